//! Terminal text: `path:line: error[rule] message`, an indented hint, a summary line;
//! for an approval's findings `  error[rule] location: message`. Every text of a finding may come
//! from the repository or a reviewer, so each goes through [`escape_controls`] here.

use std::fmt::Write as _;

use super::{paint, summary_line};
use crate::diagnostic::{FileReport, Finding, Severity, Summary};
use crate::text::escape_controls;

/// Terminal text. `color` adds ANSI colours (callers decide: terminal and no `NO_COLOR`).
pub fn human(reports: &[FileReport], color: bool) -> String {
    let mut out = String::new();
    findings(&mut out, reports, color);
    out.push_str(&summary_line(&Summary::of(reports)));
    out.push('\n');
    out
}

/// `error[rule]`, coloured by severity.
fn label(f: &Finding, color: bool) -> String {
    let (code, severity) = match f.severity {
        Severity::Error => ("1;31", "error"),
        Severity::Warning => ("1;33", "warning"),
        Severity::Info => ("1;34", "info"),
    };
    paint(
        color,
        code,
        &format!("{severity}[{}]", escape_controls(&f.rule)),
    )
}

/// One finding that names its own place (an approval's):
/// `error[rule] location: message`, or `error[rule] message` without a place.
pub fn finding_line(f: &Finding, color: bool) -> String {
    let label = label(f, color);
    let message = escape_controls(&f.message);
    match f.location() {
        Some(location) => format!("{label} {}: {message}", escape_controls(&location)),
        None => format!("{label} {message}"),
    }
}

/// The findings of an approval, most severe first (otherwise in their
/// order), one indented [`finding_line`] each.
pub fn approval_findings(findings: &[Finding], color: bool) -> String {
    let mut sorted: Vec<&Finding> = findings.iter().collect();
    sorted.sort_by_key(|f| f.severity);
    let mut out = String::new();
    for f in sorted {
        let _ = writeln!(out, "  {}", finding_line(f, color));
    }
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
    let location = format!("{}:", escape_controls(location));
    let _ = writeln!(
        out,
        "{} {} {}",
        paint(color, "1", &location),
        label(f, color),
        escape_controls(&f.message)
    );
    if let Some(hint) = &f.hint {
        let _ = writeln!(
            out,
            "  {} {}",
            paint(color, "36", "hint:"),
            escape_controls(hint)
        );
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
                    Finding::new("major-needs-migration", Severity::Error, "change_scope=major requires a migration plan: section \"Migration\" is missing")
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
            "adr/038-response-enforcement.md:1: error[major-needs-migration] change_scope=major requires a migration plan: section \"Migration\" is missing\n  \
hint: add \"## Migration\" with the phases/steps (Phase, Schritt) and a rollback plan\n\
adr/038-response-enforcement.md:57: warning[acceptance-criteria-min] 2 acceptance criteria, at least 3 expected\n\
2 files checked: 1 error, 1 warning\n"
        );
    }

    #[test]
    fn approval_findings_most_severe_first_with_their_place() {
        let findings = [
            Finding::new("acceptance", Severity::Warning, "criterion 2 is vague"),
            Finding::new("section-missing", Severity::Error, "no Migration")
                .in_file("adr/001-x.md")
                .at(3),
            Finding::new("conflicts", Severity::Error, "contradicts ADR-000")
                .in_file("adr/001-x.md#Entscheidung"),
        ];
        assert_eq!(
            approval_findings(&findings, false),
            "  error[section-missing] adr/001-x.md:3: no Migration\n  \
error[conflicts] adr/001-x.md#Entscheidung: contradicts ADR-000\n  \
warning[acceptance] criterion 2 is vague\n"
        );
        assert_eq!(
            finding_line(&findings[0], true),
            "\x1b[1;33mwarning[acceptance]\x1b[0m criterion 2 is vague"
        );
    }
}
