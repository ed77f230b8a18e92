//! The compact form for Claude Code: one line per finding, with its fix, in the
//! words the model acts on (`- path:line [rule] message. Fix: hint`), control characters
//! escaped: the model reads this text, and so may a terminal.

use std::fmt::Write as _;

use crate::diagnostic::{FileReport, Severity};
use crate::text::escape_controls;

/// One line per finding of `severity` in `reports`.
pub fn lines(reports: &[FileReport], severity: Severity) -> String {
    let mut out = String::new();
    for report in reports {
        for f in report.findings.iter().filter(|f| f.severity == severity) {
            let _ = write!(
                out,
                "- {} [{}] {}",
                escape_controls(&report.location(f)),
                escape_controls(&f.rule),
                escape_controls(&f.message)
            );
            if let Some(hint) = &f.hint {
                let _ = write!(out, ". Fix: {}", escape_controls(hint));
            }
            out.push('\n');
        }
    }
    out
}
