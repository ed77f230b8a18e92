//! Renderers of the one findings model ([`crate::diagnostic`]), together in one
//! place: terminal text ([`human`](mod@human)), the versioned JSON document
//! ([`json`](mod@json)), the compact form Claude Code's Bash tool hands the
//! model ([`compact`]), the feedback the hook gives the model after a block
//! ([`feedback`]), and what the git pre-commit gate shows of a commit-to-be
//! ([`commit`]). No other module formats findings.

pub mod commit;
pub mod compact;
pub mod feedback;
pub mod human;
pub mod json;
pub mod report;
#[cfg(test)]
mod snapshots;

use std::fmt::Write as _;

use crate::diagnostic::Summary;

pub use crate::text::plural;
pub use human::human;
pub use json::json;

/// `2 files checked: 1 error, 1 warning`.
pub fn summary_line(s: &Summary) -> String {
    let mut line = format!(
        "{} checked: {}, {}",
        plural(s.files, "file"),
        plural(s.errors, "error"),
        plural(s.warnings, "warning")
    );
    if s.infos > 0 {
        let _ = write!(line, ", {}", plural(s.infos, "info"));
    }
    line
}

/// ANSI colour `code` around `text` when `color` is on.
pub fn paint(color: bool, code: &str, text: &str) -> String {
    if color {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_owned()
    }
}
