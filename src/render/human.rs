//! Terminal text: `path:line: error[rule] message`, an indented hint, a summary line.

use std::fmt::Write as _;

use super::{paint, summary_line};
use crate::diagnostic::{FileReport, Finding, Severity, Summary};

/// Terminal text. `color` adds ANSI colours (callers decide: terminal and no NO_COLOR).
pub fn human(reports: &[FileReport], color: bool) -> String {
    let mut out = String::new();
    findings(&mut out, reports, color);
    out.push_str(&summary_line(&Summary::of(reports)));
    out.push('\n');
    out
}

/// Every finding of `reports`, each at its location (see [`finding`]).
pub(crate) fn findings(out: &mut String, reports: &[FileReport], color: bool) {
    for report in reports {
        for f in &report.findings {
            finding(out, &report.location(f), f, color);
        }
    }
}

/// `location: error[rule] message` and, when there is one, an indented hint.
pub(crate) fn finding(out: &mut String, location: &str, f: &Finding, color: bool) {
    let paint = |code: &str, text: &str| paint(color, code, text);
    let location = format!("{location}:");
    let label = match f.severity {
        Severity::Error => paint("1;31", &format!("error[{}]", f.rule)),
        Severity::Warning => paint("1;33", &format!("warning[{}]", f.rule)),
        Severity::Info => paint("1;34", &format!("info[{}]", f.rule)),
    };
    let _ = writeln!(out, "{} {label} {}", paint("1", &location), f.message);
    if let Some(hint) = &f.hint {
        let _ = writeln!(out, "  {} {hint}", paint("36", "hint:"));
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample() -> Vec<FileReport> {
        vec![
            FileReport {
                path: "adr/038-response-enforcement.md".into(),
                findings: vec![
                    Finding::new("major-needs-migration", Severity::Error, "change_scope=major erfordert einen Migrations-Plan: section \"Migration\" is missing")
                        .at(1)
                        .hint("add \"## Migration\" with the phases/steps (Phase, Schritt) and a rollback plan"),
                    Finding::new("acceptance-criteria-min", Severity::Warning, "2 acceptance criteria, at least 3 expected").at(57),
                ],
            },
            FileReport { path: "adr/001-x.md".into(), findings: vec![] },
        ]
    }

    #[test]
    fn human_matches_the_documented_shape() {
        assert_eq!(
            human(&sample(), false),
            "adr/038-response-enforcement.md:1: error[major-needs-migration] change_scope=major erfordert einen Migrations-Plan: section \"Migration\" is missing\n  \
hint: add \"## Migration\" with the phases/steps (Phase, Schritt) and a rollback plan\n\
adr/038-response-enforcement.md:57: warning[acceptance-criteria-min] 2 acceptance criteria, at least 3 expected\n\
2 files checked: 1 error, 1 warning\n"
        );
    }
}
