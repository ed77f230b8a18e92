//! GitHub Copilot CLI (`@github/copilot`, pinned 1.0.102): its room. The wire
//! is [`wire`] (the shared envelope with `tool_input.path`, the final answer
//! read from its transcript at Stop; answers in the fields Copilot reads), the
//! registration [`hooks`] (helix-gate's own `.github/hooks/helix-gate.json`).

pub mod hooks;
mod wire;

use std::path::{Path, PathBuf};

use super::backend::Backend;
use super::event::{DecodeError, EventKind, HookEvent, Transcript};
use super::output::HookOutput;

/// Copilot CLI's backend.
pub(super) struct Copilot;

impl Backend for Copilot {
    fn name(&self) -> &'static str {
        "Copilot CLI"
    }

    fn decode(&self, bytes: &[u8]) -> Result<HookEvent, DecodeError> {
        wire::decode(bytes)
    }

    fn encode(&self, output: &HookOutput, kind: Option<EventKind>) -> String {
        wire::encode(output, kind)
    }

    /// Claude Code's names, `SubagentStop` aside (Copilot has none registered).
    fn event_name(&self, kind: EventKind) -> Option<&'static str> {
        wire::event_name(kind)
    }

    /// Copilot CLI 1.0.102 turns `ask` into a deny when nobody watches
    /// (autopilot, `-p`): refused, with the reason that says what the person
    /// can do.
    fn asks_person(&self) -> bool {
        false
    }

    /// `COPILOT_PROJECT_DIR` (Copilot sets `CLAUDE_PROJECT_DIR` too).
    fn project_dir_var(&self) -> Option<&'static str> {
        Some(crate::env::COPILOT_PROJECT_DIR)
    }

    fn answer_in_transcript(&self, transcript: &Transcript) -> Result<String, &'static str> {
        wire::final_answer(transcript)
    }

    /// No matcher: Copilot runs tool hooks for every tool; the hook settles
    /// the others at once.
    fn matcher(&self, _kind: EventKind) -> Option<&'static str> {
        None
    }

    fn home(&self) -> anyhow::Result<PathBuf> {
        hooks::copilot_home()
    }

    fn registered_in_project(&self, root: &Path, _project_dir: &Path) -> bool {
        hooks::registered_in_project(root)
    }

    fn installed_stop_timeouts(&self, root: &Path) -> Vec<(PathBuf, u64)> {
        hooks::installed_stop_timeouts(root)
    }

    fn home_var(&self) -> Option<&'static str> {
        Some(crate::env::COPILOT_HOME)
    }

    fn registration_paths(&self) -> &'static [&'static str] {
        &[hooks::PROJECT_HOOKS, ".copilot/hooks/helix-gate.json"]
    }

    fn user_hooks_file(&self, root: &Path) -> anyhow::Result<PathBuf> {
        hooks::hooks_path(root, hooks::Scope::User)
    }
}
