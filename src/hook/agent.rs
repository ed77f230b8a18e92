//! The coding agents whose hook protocol helix-gate speaks, and the seam between
//! their wire formats and the one decision pipeline.
//!
//! Each agent has a decoder that turns its event envelope into the one typed
//! [`HookEvent`] and an encoder that turns the one [`HookOutput`] into what that
//! agent accepts. Everything in between (the checks, the budget, the Stop gate,
//! the reviewer, escalation, configuration protection, the failure policy) is
//! the same for all agents. The real differences in what an agent *can* do are
//! asked of the agent here ([`Agent::asks_person`], [`Agent::project_dir_var`],
//! [`final_answer`], which reads Copilot CLI's transcript at Stop); where its
//! files are (which hooks files register helix-gate, its Stop hook's timeout) is
//! asked of its installer, by a `match` on the agent in `super::project` and
//! `super::reviews`.
//!
//! Adding an agent touches today (as Copilot CLI's did):
//! - here: the [`Agent`] variant and each `match` on it (`name`, `decode`,
//!   `encode`, `asks_person`, `project_dir_var`, and [`final_answer`] when its
//!   Stop carries no final answer);
//! - `src/hook/agent/NAME.rs`: the decoder (tool names mapped onto
//!   `Write`/`Edit`/`Bash` or onto a parsed patch) and the encoder, held to its
//!   output format by tests; `src/hook/event.rs` when its payload carries a
//!   field the one event lacks;
//! - `src/hook/project.rs` (which hooks files register the hook) and
//!   `src/hook/reviews.rs` (`StopWindow::find`: the installed Stop timeout);
//! - `src/install/NAME.rs` (its hooks file, written and removed), declared in
//!   `src/install/mod.rs`; `src/install/registrations.rs` (doctor's report);
//!   `src/install/claude.rs` (`AGENTS`, the names a hook command may carry);
//! - `src/cli/mod.rs` (`AgentArg` with `from_name` and its `From`,
//!   `InstallTarget`, the help texts), `src/cli/install.rs` (install, uninstall,
//!   doctor), `src/cli/hook.rs` and `src/hook/mod.rs` (their docs);
//! - `src/env.rs` for the variables it gives its hooks; `src/main.rs` only in
//!   `hook_flags`'s doc (its fast path takes `AgentArg::from_name`);
//! - the doctor snapshots (tests/it/snapshots), `tests/it/NAME.rs`,
//!   `tests/support/NAME.rs`, `scripts/install-NAME.sh` and `scripts/test.sh`
//!   for its end-to-end tests, and docs/src/other-agents.md.

mod codex;
mod copilot;
mod gemini;

use super::event::{self, BrokenField, DecodeError, EventKind, HookEvent};
use super::output::HookOutput;

/// The agent a hook process answers (`helix-gate hook --agent NAME`; one per process).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Agent {
    /// Claude Code (the default): `../shared/claude-code-hooks.md`.
    #[default]
    Claude,
    /// `OpenAI`'s Codex CLI: `../shared/agent-hooks.md`, and the output schemas
    /// of the pinned client in `tests/fixtures/codex/`.
    Codex,
    /// Google's Gemini CLI: `../shared/agent-hooks.md`, checked against the
    /// pinned client 0.61.0.
    Gemini,
    /// GitHub Copilot CLI: the GitHub docs' hooks reference, checked against
    /// the pinned client 1.0.102.
    Copilot,
}

impl Agent {
    /// The agent's name for people (messages, `doctor`).
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Gemini => "Gemini CLI",
            Agent::Copilot => "Copilot CLI",
        }
    }

    /// Decode one event from the raw bytes on stdin.
    pub fn decode(self, bytes: &[u8]) -> Result<HookEvent, DecodeError> {
        match self {
            Agent::Claude => event::decode(bytes),
            Agent::Codex => codex::decode(bytes),
            Agent::Gemini => gemini::decode(bytes),
            Agent::Copilot => copilot::decode(bytes),
        }
    }

    /// The one line for stdout that answers an event of `kind` (`None`: the
    /// event could not be decoded) with `output`, in a form the agent accepts.
    pub fn encode(self, output: &HookOutput, kind: Option<EventKind>) -> String {
        match self {
            Agent::Claude => output.to_json_line(),
            Agent::Codex => codex::encode(output, kind),
            Agent::Gemini => gemini::encode(output, kind),
            Agent::Copilot => copilot::encode(output, kind),
        }
    }

    /// Whether a `PreToolUse` hook can put a tool call to the person
    /// (`permissionDecision: ask`). Codex 0.169.0 rejects `ask` as unsupported
    /// and then runs the tool: there the call is refused instead. Gemini CLI
    /// 0.61.0 has `decision: "ask"` (it forces its confirmation prompt), but a
    /// headless `gemini -p` has nobody to answer it (not tried): refused too,
    /// the same way in every mode. Copilot CLI 1.0.102 turns `ask` into a deny
    /// when nobody watches (autopilot, `-p`): refused there too, with the reason
    /// that says what the person can do.
    pub fn asks_person(self) -> bool {
        match self {
            Agent::Claude => true,
            Agent::Codex | Agent::Gemini | Agent::Copilot => false,
        }
    }

    /// The environment variable in which the agent names the session's project
    /// folder, if it sets one. Codex sets none: its project is the event's `cwd`
    /// (and a `CLAUDE_PROJECT_DIR` inherited from a Claude Code session that
    /// started Codex must not redirect it). Gemini CLI sets `GEMINI_PROJECT_DIR`
    /// (and `CLAUDE_PROJECT_DIR`, which is not read for it), Copilot CLI
    /// `COPILOT_PROJECT_DIR` (and `CLAUDE_PROJECT_DIR` too).
    pub fn project_dir_var(self) -> Option<&'static str> {
        match self {
            Agent::Claude => Some(crate::env::CLAUDE_PROJECT_DIR),
            Agent::Codex => None,
            Agent::Gemini => Some(crate::env::GEMINI_PROJECT_DIR),
            Agent::Copilot => Some(crate::env::COPILOT_PROJECT_DIR),
        }
    }
}

/// The session's final answer at Stop, for the STEP check, and the field
/// that makes it unknown (the failure policy applies). Where the agent's Stop
/// does not carry the answer (Copilot CLI), it is read from the agent's
/// transcript, and only when `needed` (the STEP marker is required here):
/// everywhere else a Stop opens no file for it.
pub fn final_answer(event: &HookEvent, needed: bool) -> (String, Option<BrokenField>) {
    let broken = || event.broken_final_answer().cloned().filter(|_| needed);
    if let Some(text) = &event.last_assistant_message {
        return (text.clone(), broken());
    }
    match (&event.transcript, needed) {
        (Some(transcript), true) => match copilot::final_answer(transcript) {
            Ok(text) => (text, None),
            Err(found) => (
                String::new(),
                Some(BrokenField {
                    name: "transcript_path",
                    expected: "the agent's transcript with this Stop and the answer before it",
                    found,
                }),
            ),
        },
        _ => (String::new(), broken()),
    }
}
