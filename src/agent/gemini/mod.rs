//! Gemini CLI (Google's `@google/gemini-cli`, pinned 0.61.0): its room. The
//! wire is [`wire`] (its own event and tool names mapped onto the one event;
//! answers in `DefaultHookOutput`'s fields), the registration [`hooks`]
//! (`.gemini/settings.json`, timeouts in milliseconds; folder trust).

pub mod hooks;
mod wire;

use std::path::{Path, PathBuf};

use super::backend::Backend;
use super::event::{DecodeError, EventKind, HookEvent};
use super::output::HookOutput;

/// Gemini CLI's backend.
pub(super) struct Gemini;

impl Backend for Gemini {
    fn name(&self) -> &'static str {
        "Gemini CLI"
    }

    fn decode(&self, bytes: &[u8]) -> Result<HookEvent, DecodeError> {
        wire::decode(bytes)
    }

    fn encode(&self, output: &HookOutput, kind: Option<EventKind>) -> String {
        wire::encode(output, kind)
    }

    /// Gemini's own names; its `AfterTool` fires after a failed tool too, so
    /// there is no `PostToolUseFailure` of its own.
    fn event_name(&self, kind: EventKind) -> Option<&'static str> {
        wire::event_name(kind)
    }

    /// Gemini CLI 0.61.0 has `decision: "ask"` (it forces its confirmation
    /// prompt), but a headless `gemini -p` has nobody to answer it: refused,
    /// the same way in every mode.
    fn asks_person(&self) -> bool {
        false
    }

    /// `GEMINI_PROJECT_DIR` (Gemini sets `CLAUDE_PROJECT_DIR` too, which is not
    /// read for it).
    fn project_dir_var(&self) -> Option<&'static str> {
        Some(crate::env::GEMINI_PROJECT_DIR)
    }

    fn matcher(&self, kind: EventKind) -> Option<&'static str> {
        hooks::matcher(kind)
    }

    fn home(&self) -> anyhow::Result<PathBuf> {
        hooks::gemini_home()
    }

    fn registered_in_project(&self, _root: &Path, project_dir: &Path) -> bool {
        hooks::registered_in_project(project_dir)
    }

    fn installed_stop_timeouts(&self, root: &Path) -> Vec<(PathBuf, u64)> {
        hooks::installed_stop_timeouts(root)
    }

    fn home_var(&self) -> Option<&'static str> {
        Some(crate::env::GEMINI_CLI_HOME)
    }

    fn registration_paths(&self) -> &'static [&'static str] {
        &[hooks::PROJECT_SETTINGS]
    }

    fn user_hooks_file(&self, root: &Path) -> anyhow::Result<PathBuf> {
        hooks::settings_path(root, hooks::Scope::User)
    }
}
