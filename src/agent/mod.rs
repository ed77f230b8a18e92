//! The agents helix-gate speaks to, one room each: `src/agent/NAME/` holds
//! one agent's [`Backend`] (its wire: decoder, encoder and event names, in
//! `wire.rs`; its registration: hooks files, install and uninstall, in
//! `hooks.rs`, and its part of `doctor` in `doctor.rs`; what it can do: ask a
//! person, the variable naming its project folder, its home folder), picked
//! by the one `match` in [`Agent::backend`]. What every agent shares is
//! written once: the one event ([`event`]), the one answer ([`output`]), the
//! one table of hook entries over the event kind and the shape of a hooks file
//! ([`hooks_file`]), the lines of `doctor` ([`doctor`]), the record of what
//! `install` wrote ([`record`]).
//!
//! Everything between the decoder and the encoder (the checks, the budget, the
//! Stop gate, the reviewer, escalation, configuration protection, the failure
//! policy) is the same for all agents and lives in `crate::hook`. The one
//! typed event ([`event::HookEvent`]) and the one answer
//! ([`output::HookOutput`]) are here, below the hook, so that an agent's room
//! needs nothing from above it.
//!
//! The files import downwards only: `name` (the enum) is a leaf, the event
//! names it, the backends use the event, and this file picks the backend.
//!
//! Adding an agent: the room `src/agent/NAME/` (a `Backend`, with the tests of
//! its decoder, encoder and hooks file beside them), a variant of [`Agent`]
//! (the compiler asks for its command-line name in `name.rs` and its backend
//! here); outside `src/`, `tests/it/NAME.rs` with its harness and a fake of its
//! model API in `tests/support/`, and `scripts/install-NAME.sh`. The variables
//! it gives its hooks go into `crate::env`, the one list of every variable
//! helix-gate reads. The CLI (`--agent`, `install`, `doctor`) and the hook
//! (where it finds its registration and its Stop timeout, which files it
//! guards) ask the backend; only the CLI's help texts name the agents.

mod backend;
pub mod claude;
pub mod codex;
pub mod copilot;
pub mod doctor;
pub mod event;
pub mod gemini;
pub mod hooks_file;
mod name;
pub mod output;
pub mod patch;
pub mod record;

pub use backend::{Backend, Done, InstallRequest};
pub use name::Agent;

use event::{BrokenField, DecodeError, EventKind, HookEvent};
use output::HookOutput;

impl Agent {
    /// The agent's backend: the one `match` on the agent.
    pub fn backend(self) -> &'static dyn Backend {
        match self {
            Agent::Claude => &claude::Claude,
            Agent::Codex => &codex::Codex,
            Agent::Gemini => &gemini::Gemini,
            Agent::Copilot => &copilot::Copilot,
        }
    }

    /// The agent's name for people (messages, `doctor`).
    pub fn name(self) -> &'static str {
        self.backend().name()
    }

    /// Decode one event from the raw bytes on stdin.
    pub fn decode(self, bytes: &[u8]) -> Result<HookEvent, DecodeError> {
        self.backend().decode(bytes)
    }

    /// The one line for stdout that answers an event of `kind` (`None`: the
    /// event could not be decoded) with `output`, in a form the agent accepts.
    pub fn encode(self, output: &HookOutput, kind: Option<EventKind>) -> String {
        self.backend().encode(output, kind)
    }

    /// Whether a `PreToolUse` hook can put a tool call to the person
    /// ([`Backend::asks_person`]).
    pub fn asks_person(self) -> bool {
        self.backend().asks_person()
    }

    /// The environment variable in which the agent names the session's project
    /// folder, if it sets one ([`Backend::project_dir_var`]).
    pub fn project_dir_var(self) -> Option<&'static str> {
        self.backend().project_dir_var()
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
        (Some(transcript), true) => match event.agent.backend().answer_in_transcript(transcript) {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every event an agent registers (the one table in its names) comes back
    /// from its decoder as the kind it was registered for, and every agent's
    /// name on the command line finds it again.
    #[test]
    fn every_agent_decodes_the_events_it_registers() {
        for agent in Agent::ALL {
            assert_eq!(Agent::from_name(agent.cli_name()), Some(agent));
            let backend = agent.backend();
            assert!(!backend.registration_paths().is_empty(), "{agent:?}");
            let entries = hooks_file::entries(
                |kind| backend.event_name(kind),
                |kind| backend.matcher(kind),
                true,
                90,
            );
            assert!(
                entries.iter().any(|e| e.kind == EventKind::Stop),
                "{agent:?} registers no Stop"
            );
            for entry in entries {
                let payload = serde_json::json!({"hook_event_name": entry.event}).to_string();
                let event = agent.decode(payload.as_bytes()).unwrap();
                assert_eq!(
                    (event.kind, event.agent),
                    (entry.kind, agent),
                    "{agent:?} {}",
                    entry.event
                );
            }
        }
    }
}
