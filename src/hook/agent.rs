//! The coding agents whose hook protocol helix-gate speaks, and the seam between
//! their wire formats and the one decision pipeline.
//!
//! Every agent does two things here and nothing else: its decoder turns the
//! agent's event envelope into the one typed [`HookEvent`], and its encoder
//! turns the one [`HookOutput`] into what that agent accepts. Everything in
//! between (the checks, the budget, the Stop gate, the reviewer, escalation,
//! configuration protection, the failure policy) is the same for all agents.
//! The few real differences in what an agent *can* do are asked of the agent
//! ([`Agent::asks_person`], [`Agent::project_dir_var`]), never branched on by
//! name elsewhere.
//!
//! Adding an agent: a variant, a decoder that fills
//! [`HookEvent`] from its payload (tool names mapped onto `Write`/`Edit`/`Bash`
//! or onto a parsed patch), an encoder held to its output format by a test,
//! and an `install` target.

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
