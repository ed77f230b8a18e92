//! Claude Code, the default agent: its room. Its envelope is the one the
//! shared decoder reads (`super::event`), its answer the one `HookOutput`
//! writes; the registration is [`hooks`] (`.claude/settings.json`,
//! `.claude/settings.local.json`, `~/.claude/settings.json`, and the plugin's
//! `hooks/hooks.json`).

pub mod hooks;

use std::path::{Path, PathBuf};

use super::backend::Backend;
use super::event::{self, DecodeError, EventKind, HookEvent};
use super::output::HookOutput;

/// Claude Code's backend.
pub(super) struct Claude;

impl Backend for Claude {
    fn name(&self) -> &'static str {
        "Claude Code"
    }

    fn decode(&self, bytes: &[u8]) -> Result<HookEvent, DecodeError> {
        event::decode(bytes)
    }

    fn encode(&self, output: &HookOutput, _kind: Option<EventKind>) -> String {
        output.to_json_line()
    }

    fn event_name(&self, kind: EventKind) -> Option<&'static str> {
        kind.name()
    }

    fn asks_person(&self) -> bool {
        true
    }

    fn project_dir_var(&self) -> Option<&'static str> {
        Some(crate::env::CLAUDE_PROJECT_DIR)
    }

    fn matcher(&self, kind: EventKind) -> Option<&'static str> {
        hooks::matcher(kind)
    }

    fn home(&self) -> anyhow::Result<PathBuf> {
        Ok(super::hooks_file::home()?.join(".claude"))
    }

    fn registered_in_project(&self, _root: &Path, project_dir: &Path) -> bool {
        hooks::registered_in_project(project_dir)
    }

    /// The settings files', and the plugin's when the hook runs as helix-gate's
    /// plugin hook (`CLAUDE_PLUGIN_ROOT`).
    fn installed_stop_timeouts(&self, root: &Path) -> Vec<(PathBuf, u64)> {
        let mut found = hooks::installed_stop_timeouts(root);
        if let Some(plugin) = crate::env::var(crate::env::CLAUDE_PLUGIN_ROOT) {
            found.extend(hooks::plugin_stop_timeouts(Path::new(&plugin)));
        }
        found
    }

    fn home_var(&self) -> Option<&'static str> {
        None
    }

    fn registration_paths(&self) -> &'static [&'static str] {
        &[".claude/settings.json", ".claude/settings.local.json"]
    }

    fn user_hooks_file(&self, root: &Path) -> anyhow::Result<PathBuf> {
        hooks::settings_path(root, super::hooks_file::Scope::User)
    }
}
