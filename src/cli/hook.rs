//! `hook`: answer Claude Code with exactly one JSON object on stdout, or nothing.

use std::io::Write as _;

use super::ExitStatus;

/// Run the hook and write its answer. Always exit 0: Claude Code reads the
/// decision from stdout, and a non-zero exit would only mean "proceed".
pub fn run() -> ExitStatus {
    if let Some(line) = crate::hook::run() {
        let mut stdout = std::io::stdout().lock();
        // A closed stdout leaves Claude Code nothing to read: it proceeds.
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
    }
    ExitStatus::Success
}
