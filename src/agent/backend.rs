//! What an agent is to helix-gate: one [`Backend`] per agent, one module each
//! (`super::claude`, `super::codex`, ...), picked by
//! [`Agent::backend`](super::Agent::backend).

use super::event::{DecodeError, EventKind, HookEvent, Transcript};
use super::output::HookOutput;

/// One agent: its wire (decode, encode, event names) and what it can do.
pub trait Backend: Sync {
    /// The agent's name for people (messages, `doctor`).
    fn name(&self) -> &'static str;

    /// Decode one event from the raw bytes on stdin into the one event.
    fn decode(&self, bytes: &[u8]) -> Result<HookEvent, DecodeError>;

    /// The one line for stdout that answers an event of `kind` (`None`: the
    /// event could not be decoded) with `output`, in a form the agent accepts.
    fn encode(&self, output: &HookOutput, kind: Option<EventKind>) -> String;

    /// The agent's name of the event helix-gate decides as `kind` (`None`:
    /// the agent has no such event).
    fn event_name(&self, kind: EventKind) -> Option<&'static str>;

    /// Whether a `PreToolUse` hook can put a tool call to the person (else the
    /// call is refused, with the reason that says what the person can do).
    fn asks_person(&self) -> bool;

    /// The environment variable in which the agent names the session's project
    /// folder, if it sets one.
    fn project_dir_var(&self) -> Option<&'static str>;

    /// The session's final answer read from the agent's transcript, for an
    /// agent whose Stop does not carry it (`Err`: what was found instead).
    fn answer_in_transcript(&self, _transcript: &Transcript) -> Result<String, &'static str> {
        Err("a transcript this agent does not write")
    }
}
