//! Codex CLI (`OpenAI`'s `@openai/codex`, pinned 0.169.0): its room. The wire
//! is [`wire`] (the shared envelope, and `apply_patch`'s paths read from the
//! patch; answers kept to Codex's closed output schemas), the registration
//! [`hooks`] (`.codex/hooks.json`, `$CODEX_HOME/hooks.json`), and [`config`]
//! the two gates of Codex's `config.toml` (project trust, hook reviews).

pub mod config;
pub mod hooks;
mod wire;

use std::path::{Path, PathBuf};

use super::backend::Backend;
use super::event::{DecodeError, EventKind, HookEvent};
use super::output::HookOutput;

/// Codex CLI's backend.
pub(super) struct Codex;

impl Backend for Codex {
    fn name(&self) -> &'static str {
        "Codex CLI"
    }

    fn decode(&self, bytes: &[u8]) -> Result<HookEvent, DecodeError> {
        wire::decode(bytes)
    }

    fn encode(&self, output: &HookOutput, kind: Option<EventKind>) -> String {
        wire::encode(output, kind)
    }

    /// Claude Code's names; Codex has no `PostToolUseFailure`.
    fn event_name(&self, kind: EventKind) -> Option<&'static str> {
        wire::event_name(kind)
    }

    /// Codex 0.169.0 rejects `permissionDecision: ask` as unsupported and then
    /// runs the tool: the call is refused instead.
    fn asks_person(&self) -> bool {
        false
    }

    /// None: Codex's project is the event's `cwd` (and a `CLAUDE_PROJECT_DIR`
    /// inherited from a Claude Code session that started Codex must not
    /// redirect it).
    fn project_dir_var(&self) -> Option<&'static str> {
        None
    }

    fn matcher(&self, kind: EventKind) -> Option<&'static str> {
        hooks::matcher(kind)
    }

    fn home(&self) -> anyhow::Result<PathBuf> {
        hooks::codex_home()
    }

    fn registered_in_project(&self, root: &Path, project_dir: &Path) -> bool {
        hooks::registered_in_project(root, project_dir)
    }

    fn installed_stop_timeouts(&self, root: &Path) -> Vec<(PathBuf, u64)> {
        hooks::installed_stop_timeouts(root)
    }

    fn home_var(&self) -> Option<&'static str> {
        Some(crate::env::CODEX_HOME)
    }

    fn registration_paths(&self) -> &'static [&'static str] {
        &[hooks::PROJECT_HOOKS]
    }

    fn user_hooks_file(&self, root: &Path) -> anyhow::Result<PathBuf> {
        hooks::hooks_path(root, hooks::Scope::User)
    }
}
