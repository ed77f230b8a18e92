//! The one value the hook builds per event and hands to every handler: the
//! event, its repository root and deadline, and what is worked out from them
//! on first use only (the settings, parsed at most once). The no-op path builds
//! it too, so nothing in it is read or opened before a handler asks.

use std::path::PathBuf;
use std::sync::OnceLock;

use super::deadline::Deadline;
use super::policy::{InfraError, load_settings};
use crate::agent::event::HookEvent;
use crate::config::Settings;

/// One event and what the hook knows about it.
pub(super) struct Context {
    pub(super) event: HookEvent,
    /// The repository the event belongs to ([`super::project::repository_root`]).
    pub(super) root: PathBuf,
    pub(super) deadline: Deadline,
    /// The settings (or why they do not load), on first use.
    settings: OnceLock<Result<Settings, InfraError>>,
}

impl Context {
    pub(super) fn new(event: HookEvent, root: PathBuf, deadline: Deadline) -> Context {
        Context {
            event,
            root,
            deadline,
            settings: OnceLock::new(),
        }
    }

    /// The settings of this event ([`load_settings`]), parsed on the first call
    /// and handed out again (a copy each: some handlers adjust theirs) after.
    pub(super) fn settings(&self) -> Result<Settings, InfraError> {
        self.settings
            .get_or_init(|| load_settings(&self.root, &self.deadline))
            .clone()
    }
}
