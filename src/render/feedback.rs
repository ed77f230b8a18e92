//! Feedback the model reads after a block, written so it fixes the right thing:
//! which checks FAILED (rule, line, fix), which PASSED (keep them passing), the
//! attempt count, and nothing longer than it needs to be (seed 003). Paths, messages and hints
//! are quoted with control characters escaped: a raw ESC or newline from a file name or a YAML
//! value would reach the model (and any terminal showing the transcript) as it is.

use std::fmt::Write as _;

use crate::diagnostic::{FileReport, Finding, Severity};
use crate::rules::{self, Category};
use crate::text::{escape_controls, truncate};

/// Longest message or hint quoted per finding.
const MAX_ITEM_CHARS: usize = 400;
/// Most findings listed per file; the rest are counted.
const MAX_ITEMS: usize = 12;
/// Longest message quoted per finding of an approval (its rejection feedback).
const MAX_APPROVAL_MESSAGE_CHARS: usize = 500;

/// Check groups named in the PASSED line, by the category of the rule.
const GROUPS: [Category; 5] = [
    Category::FileContent,
    Category::FrontMatter,
    Category::RequiredSections,
    Category::AcceptanceCriteria,
    Category::FileReferences,
];
/// The group of every finding whose id is no built-in rule: the rules file's.
const CONTEXTUAL: &str = "contextual rules";

fn group_of(rule: &str) -> &'static str {
    rules::find(rule).map_or(CONTEXTUAL, |meta| meta.category.label())
}

/// FAILED / warnings / PASSED lines for one file.
pub fn describe(report: &FileReport) -> String {
    let mut out = String::new();
    let errors: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .collect();
    let warnings: Vec<_> = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .collect();
    for (title, items) in [
        ("FAILED", &errors),
        ("Warnings (fix if you can)", &warnings),
    ] {
        if items.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{title}:");
        for f in items.iter().take(MAX_ITEMS) {
            let line = f.line.map(|l| format!(" line {l}")).unwrap_or_default();
            let _ = write!(
                out,
                "- [{}]{line}: {}",
                escape_controls(&f.rule),
                truncate(&escape_controls(&f.message), MAX_ITEM_CHARS)
            );
            if let Some(hint) = &f.hint {
                let _ = write!(
                    out,
                    " -> fix: {}",
                    truncate(&escape_controls(hint), MAX_ITEM_CHARS)
                );
            }
            out.push('\n');
        }
        if items.len() > MAX_ITEMS {
            let _ = writeln!(
                out,
                "- … and {} more (run `helix-gate validate {}`)",
                items.len() - MAX_ITEMS,
                escape_controls(&report.path)
            );
        }
    }
    let mut passed: Vec<&str> = GROUPS.iter().map(|c| c.label()).collect();
    passed.push(CONTEXTUAL);
    if crate::config::plan::is_plan(std::path::Path::new(&report.path)) {
        // A phase plan gets none of the ADR checks: only its own can have passed.
        passed = vec![rules::Category::Phases.label()];
    }
    passed.retain(|group| {
        !report
            .findings
            .iter()
            .any(|f| f.severity != Severity::Info && group_of(&f.rule) == *group)
    });
    if !passed.is_empty() {
        let _ = writeln!(out, "PASSED (keep these passing): {}", passed.join(", "));
    }
    out
}

/// The block reason after saving an ADR with errors.
pub fn adr_block(report: &FileReport, attempt: u32, budget: u32) -> String {
    let errors = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    format!(
        "helix-gate: {} fails {errors} check(s) (attempt {attempt}/{budget}). Fix the FAILED items in the file and save it again; keep the ADR's content and goal.\n{}",
        escape_controls(&report.path),
        describe(report)
    )
}

/// The additionalContext after saving an ADR with warnings only.
pub fn adr_warnings(report: &FileReport) -> String {
    format!(
        "helix-gate: {} passes all required checks, with warnings worth fixing:\n{}",
        escape_controls(&report.path),
        describe(report)
    )
}

/// The `{findings}` list of an approval's rejection feedback: most severe
/// first (otherwise in their order), `- [severity] rule: message (location)`,
/// or `- none`.
pub fn approval_findings(findings: &[Finding]) -> String {
    if findings.is_empty() {
        return "- none".to_owned();
    }
    let mut sorted: Vec<&Finding> = findings.iter().collect();
    sorted.sort_by_key(|f| f.severity);
    sorted
        .iter()
        .map(|f| {
            let mut line = format!(
                "- [{}] {}: {}",
                f.severity.as_str(),
                escape_controls(&f.rule),
                truncate(&escape_controls(&f.message), MAX_APPROVAL_MESSAGE_CHARS)
            );
            if let Some(location) = f.location() {
                let _ = write!(line, " ({})", escape_controls(&location));
            }
            line
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Finding;

    #[test]
    fn failed_and_passed_are_both_listed() {
        let report = FileReport {
            path: "adr/038-x.md".into(),
            findings: vec![
                Finding::new(
                    "section-missing",
                    Severity::Error,
                    "required section \"Migration\" is missing",
                )
                .at(1)
                .hint("add \"## Migration\""),
                Finding::new(
                    "acceptance-criteria-min",
                    Severity::Warning,
                    "2 acceptance criteria, at least 3 expected",
                )
                .at(57),
            ],
        };
        let text = adr_block(&report, 1, 3);
        assert!(
            text.starts_with("helix-gate: adr/038-x.md fails 1 check(s) (attempt 1/3)."),
            "{text}"
        );
        assert!(text.contains("FAILED:\n- [section-missing] line 1: required section \"Migration\" is missing -> fix: add \"## Migration\""), "{text}");
        assert!(
            text.contains("Warnings (fix if you can):\n- [acceptance-criteria-min] line 57"),
            "{text}"
        );
        assert!(text.contains("PASSED (keep these passing): file content, front matter, file references, contextual rules"), "{text}");
    }
}
