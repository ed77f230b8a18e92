//! Renderers of the one findings model ([`crate::diagnostic`]), together in one
//! place: terminal text ([`human`](mod@human)), the versioned JSON document
//! ([`json`](mod@json)), the compact form Claude Code's Bash tool hands the
//! model ([`compact`]), the feedback the hook gives the model after a block
//! ([`feedback`]), what the git pre-commit gate shows of a commit-to-be
//! ([`commit`]), the HELIX quality gates' results ([`gate`](mod@gate)), and the CI
//! formats ([`sarif`](mod@sarif), [`github`](mod@github), [`gitlab`](mod@gitlab),
//! [`junit`](mod@junit)). No other module formats findings.

pub mod commit;
pub mod compact;
pub mod feedback;
pub mod gate;
pub mod github;
pub mod gitlab;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod report;
pub mod sarif;
#[cfg(test)]
mod snapshots;

use std::fmt::Write as _;

use crate::diagnostic::{FileReport, Finding, Summary};

pub use crate::text::plural;
pub use github::github;
pub use gitlab::gitlab;
pub use human::human;
pub use json::json;
pub use junit::junit;
pub use sarif::sarif;

/// Text escaped for XML 1.0 and HTML content and quoted attribute values (JUnit and the
/// report page). Control characters XML 1.0 cannot carry at all (even as references) are
/// written as `\u{..}`, so a hostile message never makes the document unparsable.
pub fn escape_markup(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

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

/// Every finding of `reports` with the path it concerns (its own, else its report's),
/// in report order: what the CI formats, which list findings flat, iterate over.
pub(crate) fn located(reports: &[FileReport]) -> impl Iterator<Item = (&str, &Finding)> {
    reports.iter().flat_map(|report| {
        report
            .findings
            .iter()
            .map(move |f| (f.path.as_deref().unwrap_or(&report.path), f))
    })
}
