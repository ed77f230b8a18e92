//! `--format junit`: a JUnit XML report for CI systems that show test results
//! (GitLab's `artifacts:reports:junit`, Jenkins, Azure Pipelines, ...).
//!
//! One `testsuite` per checked file, so a CI's test view groups the findings the
//! way an author fixes them. Every error finding is a failed `testcase`; warnings
//! and infos are passing test cases that carry their text in `system-out`, since
//! they do not fail the gate either. A file without findings is one passing case.

use std::fmt::Write as _;

use crate::diagnostic::{FileReport, Severity, Summary};

/// Text escaped for XML 1.0 content and attribute values. Control characters XML 1.0
/// cannot carry at all (even as references) are written as `\u{..}`, so a hostile
/// message never makes the document unparsable.
pub fn escape_xml(text: &str) -> String {
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
