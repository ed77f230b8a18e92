//! `--format junit`: a JUnit XML report for CI systems that show test results
//! (GitLab's `artifacts:reports:junit`, Jenkins, Azure Pipelines, ...).
//!
//! One `testsuite` per checked file, so a CI's test view groups the findings the
//! way an author fixes them. Every error finding is a failed `testcase`; warnings
//! and infos are passing test cases that carry their text in `system-out`, since
//! they do not fail the gate either. A file without findings is one passing case.

use std::fmt::Write as _;

use super::escape_markup as escape_xml;
use crate::diagnostic::{FileReport, Severity, Summary};

/// The JUnit report of `reports`.
pub fn junit(reports: &[FileReport]) -> String {
    let summary = Summary::of(reports);
    let total: usize = reports.iter().map(|r| r.findings.len().max(1)).sum();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"helix-gate\" tests=\"{total}\" failures=\"{}\" errors=\"0\">",
        summary.errors
    );
    for report in reports {
        let path = escape_xml(&report.path);
        let failures = report
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{path}\" tests=\"{}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">",
            report.findings.len().max(1)
        );
        if report.findings.is_empty() {
            let _ = writeln!(
                out,
                "    <testcase classname=\"{path}\" name=\"helix-gate\" file=\"{path}\"/>"
            );
        }
        for finding in &report.findings {
            let location = escape_xml(&report.location(finding));
            let file = escape_xml(finding.path.as_deref().unwrap_or(&report.path));
            let rule = escape_xml(&finding.rule);
            let line = finding
                .line
                .map(|line| format!(" line=\"{line}\""))
                .unwrap_or_default();
            let mut text = format!(
                "{location}: {}[{}] {}",
                finding.severity.as_str(),
                finding.rule,
                finding.message
            );
            if let Some(hint) = &finding.hint {
                let _ = write!(text, "\n  hint: {hint}");
            }
            let _ = write!(
                out,
                "    <testcase classname=\"{path}\" name=\"{rule} ({location})\" file=\"{file}\"{line}>"
            );
            if finding.severity == Severity::Error {
                let _ = write!(
                    out,
                    "<failure type=\"{rule}\" message=\"{}\">{}</failure>",
                    escape_xml(&finding.message),
                    escape_xml(&text)
                );
            } else {
                let _ = write!(out, "<system-out>{}</system-out>", escape_xml(&text));
            }
            out.push_str("</testcase>\n");
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_characters_xml_cannot_carry() {
        assert_eq!(
            escape_xml("<a href=\"x\">&'\u{1b}\u{0}\n"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\\u{1b}\\u{0}&#10;"
        );
    }
}
