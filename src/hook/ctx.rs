//! The one value the hook builds per event and hands to every handler: the
//! agent and how its hook was registered, the event, its repository root and
//! deadline, and what is worked out from them on first use only: the session's
//! configuration ([`baseline`]) and the settings (parsed at most once). The
//! no-op path builds it too, so nothing in it is read or opened before a
//! handler asks.

use std::path::PathBuf;
use std::sync::{Mutex, OnceLock, PoisonError};

use super::baseline::{self, Moment, SessionConfig};
use super::deadline::Deadline;
use super::policy::InfraError;
use super::project::{self, Registration};
use super::tool::Tool;
use crate::agent::Agent;
use crate::agent::event::{EventKind, HookEvent};
use crate::config::Settings;
use crate::engine::Engine;

/// One event and what the hook knows about it.
pub(super) struct Context {
    pub(super) agent: Agent,
    pub(super) registration: Registration,
    pub(super) event: HookEvent,
    /// The repository the event belongs to ([`project::repository_root`]).
    pub(super) root: PathBuf,
    pub(super) deadline: Deadline,
    /// The event's tool, decoded once.
    pub(super) tool: Tool,
    /// The session's configuration, on first use.
    config: OnceLock<SessionConfig>,
    /// The message for the user this event adds (the configuration changed,
    /// the record was lost, a settings value fell back), taken once.
    message: Mutex<Option<String>>,
    /// The settings (or why they do not load), on first use.
    settings: OnceLock<Result<Settings, InfraError>>,
}

impl Context {
    pub(super) fn new(
        agent: Agent,
        registration: Registration,
        event: HookEvent,
        root: PathBuf,
        deadline: Deadline,
    ) -> Context {
        Context {
            agent,
            registration,
            tool: Tool::of(&event),
            event,
            root,
            deadline,
            config: OnceLock::new(),
            message: Mutex::new(None),
            settings: OnceLock::new(),
        }
    }

    /// Whether the hook answering this event runs for every session on the
    /// machine (user scope): then it runs no program a repository names
    /// without the person's consent.
    pub(super) fn user_scope(&self) -> bool {
        self.registration == Registration::User
    }

    /// The configuration of this event's session ([`baseline::open`]), worked
    /// out on first use: the no-op path never gets here.
    pub(super) fn config(&self) -> &SessionConfig {
        self.config.get_or_init(|| {
            let config = baseline::open(
                &self.root,
                super::ruling::session_id(&self.event),
                self.moment(),
            );
            if let Some(message) = &config.message {
                *self.message.lock().unwrap_or_else(PoisonError::into_inner) =
                    Some(message.clone());
            }
            config
        })
    }

    /// This event's configuration, if it was worked out.
    pub(super) fn config_if_opened(&self) -> Option<&SessionConfig> {
        self.config.get()
    }

    /// Where this event's configuration is read: the session's copy once it
    /// was worked out, else the repository itself.
    pub(super) fn config_root(&self) -> PathBuf {
        self.config
            .get()
            .map_or_else(|| self.root.clone(), |c| c.config_root.clone())
    }

    /// Where in its session the event stands.
    fn moment(&self) -> Moment {
        match self.event.kind {
            EventKind::SessionStart => Moment::First,
            EventKind::Stop => Moment::Stop {
                registered: project::registered_here(
                    self.registration,
                    self.agent,
                    &self.root,
                    &project::project_dir(self.agent, Some(&self.event)),
                ),
            },
            _ => Moment::Other,
        }
    }

    /// A field the decision needs is broken or missing: an infrastructure error
    /// under the repository's failure policy (read for it, when it can be), never a
    /// silent pass. A future payload change must not switch the gate off unseen.
    pub(super) fn needed(&self, problem: impl std::fmt::Display) -> InfraError {
        let settings = self.settings().ok();
        InfraError::new(
            format!("{problem}; helix-gate needs it to decide"),
            settings.as_ref(),
        )
    }

    /// The rules engine over `settings`, its load failure under their failure policy.
    pub(super) fn load_engine(&self, settings: Settings) -> Result<Engine, InfraError> {
        let fail_closed = settings.hook.fail_closed;
        Engine::with_config(&self.root, &self.config_root(), settings).map_err(|e| InfraError {
            message: format!("{e:#}"),
            fail_closed,
        })
    }

    /// The settings of this event ([`load_settings`]), parsed on the first call
    /// and handed out again (a copy each: some handlers adjust theirs) after.
    pub(super) fn settings(&self) -> Result<Settings, InfraError> {
        self.settings.get_or_init(|| load_settings(self)).clone()
    }

    /// Add `message` to this event's user message when the event is the
    /// session's start or a Stop (once, however often it is said).
    pub(super) fn tell_at_start_and_stop(&self, message: &str) {
        if !matches!(self.event.kind, EventKind::SessionStart | EventKind::Stop) {
            return;
        }
        let mut slot = self.message.lock().unwrap_or_else(PoisonError::into_inner);
        match slot.as_mut() {
            Some(text) if text.contains(message) => {}
            Some(text) => {
                text.push('\n');
                text.push_str(message);
            }
            None => *slot = Some(message.to_owned()),
        }
    }

    /// The user message of this event, once.
    pub(super) fn take_message(&self) -> Option<String> {
        self.message
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

/// The settings; they also set the deadline and the failure policy it applies.
/// They come from the session's copy of the configuration ([`baseline`]): a
/// change during the session does not reach them. When they cannot be loaded,
/// the last configuration that could decides whether to fail closed.
///
/// A value mistake (out of range, wrong type) does not fail the load: that key
/// falls back to the repository's last good configuration (the last one a
/// session started with that loaded without a fallback), else to the built-in
/// value, and the person is told at the session's start and at each Stop.
///
/// Called once per event, by [`Context::settings`], which keeps what it returns.
fn load_settings(ctx: &Context) -> Result<Settings, InfraError> {
    let config = ctx.config();
    let mut settings = Settings::load(&config.config_root).map_err(|e| InfraError {
        message: e.to_string(),
        fail_closed: baseline::last_good_fail_closed(config),
    })?;
    if !settings.problems.is_empty() {
        if let Some(good) = baseline::last_good_settings(config) {
            settings.fall_back_to(&good, "last good");
        }
        let lines: Vec<String> = settings.problems.iter().map(ToString::to_string).collect();
        ctx.tell_at_start_and_stop(&format!(
            "helix-gate: settings value(s) fell back, the gate stays on: {}",
            lines.join("; ")
        ));
    }
    ctx.deadline.apply(&settings);
    Ok(settings)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    fn context(kind: EventKind) -> Context {
        let event = HookEvent {
            kind,
            ..HookEvent::default()
        };
        Context::new(
            Agent::Claude,
            Registration::Repository,
            event,
            PathBuf::from("/nonexistent"),
            Deadline::new(Instant::now()),
        )
    }

    #[test]
    fn a_message_is_told_once_at_start_and_stop_only() {
        for kind in [EventKind::SessionStart, EventKind::Stop] {
            let ctx = context(kind);
            ctx.tell_at_start_and_stop("a");
            ctx.tell_at_start_and_stop("b");
            ctx.tell_at_start_and_stop("a");
            assert_eq!(ctx.take_message().as_deref(), Some("a\nb"), "{kind:?}");
            assert_eq!(ctx.take_message(), None);
        }
        let ctx = context(EventKind::PostToolUse);
        ctx.tell_at_start_and_stop("a");
        assert_eq!(ctx.take_message(), None);
        // Nothing was worked out on the way.
        assert!(ctx.config_if_opened().is_none());
        assert_eq!(ctx.config_root(), PathBuf::from("/nonexistent"));
    }
}
