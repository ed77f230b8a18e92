//! Claude Code hook (`helix-gate hook`): decode one event, decide, encode one answer.

use crate::cli::ExitStatus;

/// Run the hook. Never fails: every failure becomes an explicit decision.
pub fn run() -> ExitStatus {
    ExitStatus::Success
}
