//! Claude Code, the default agent: its envelope is the one the shared decoder
//! reads (`super::event`), its answer the one `HookOutput` writes.

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
}
