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
    let mut out = findings(report);
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

/// The FAILED and warning lines of one file (errors first), each finding with
/// its rule, line, message and fix.
fn findings(report: &FileReport) -> String {
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

/// FAILED / warnings / PASSED lines for a code file checked against the rules
/// of the ADRs that govern it: `passed` names the rules (`ADR-014/no-direct-http`)
/// that applied to it; those without a finding are listed as PASSED.
pub fn describe_code(report: &FileReport, passed: &[String]) -> String {
    let mut out = findings(report);
    let passed: Vec<String> = passed
        .iter()
        .filter(|rule| {
            !report
                .findings
                .iter()
                .any(|f| f.severity != Severity::Info && &f.rule == *rule)
        })
        .map(|rule| escape_controls(rule).into_owned())
        .collect();
    if !passed.is_empty() {
        let _ = writeln!(out, "PASSED (keep these passing): {}", passed.join(", "));
    }
    out
}

/// The block reason after saving a code file that breaks a rule of an accepted
/// ADR ([`describe_code`] for `rules`).
pub fn code_block(report: &FileReport, rules: &[String], attempt: u32, budget: u32) -> String {
    let errors = report
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    format!(
        "helix-gate: {} breaks {errors} rule(s) of the accepted decisions that govern it (attempt {attempt}/{budget}). Fix the FAILED items in the file and save it again; keep what your change is for.\n{}",
        escape_controls(&report.path),
        describe_code(report, rules)
    )
}

/// The additionalContext after saving a code file with warnings only (a
/// proposed ADR's rules, a rule of severity warning, advice).
pub fn code_warnings(report: &FileReport, rules: &[String]) -> String {
    format!(
        "helix-gate: {} breaks no rule of an accepted decision, with warnings worth heeding:\n{}",
        escape_controls(&report.path),
        describe_code(report, rules)
    )
}

/// One ADR that governs a file the model is about to write, as
/// [`governing_context`] puts it before the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoverningBrief {
    /// `ADR-014`.
    pub id: String,
    pub title: Option<String>,
    /// `binding` or `pending`.
    pub force: &'static str,
    /// The ADR's file, relative to the repository root.
    pub file: String,
    /// The first sentences of its Decision section.
    pub decision: Option<String>,
    /// Its rules: (id, kind, why).
    pub rules: Vec<(String, String, String)>,
}

/// Longest decision quoted per ADR in [`governing_context`].
const MAX_DECISION_CHARS: usize = 300;

/// The ADRs that govern `path`, for the model before it writes the file: id,
/// title, the decision's first sentences, the rules; at most `max` characters
/// (the ADRs that do not fit are named by id and file only).
pub fn governing_context(path: &str, adrs: &[GoverningBrief], max: usize) -> String {
    let mut out = format!(
        "helix-gate: decisions govern {}; write it so it follows them (a binding rule's violation is blocked on save):\n",
        escape_controls(path)
    );
    let mut left_out: Vec<String> = Vec::new();
    for adr in adrs {
        let mut entry = String::new();
        let title = adr
            .title
            .as_deref()
            .map(|t| format!(" {}", escape_controls(t)))
            .unwrap_or_default();
        let _ = write!(
            entry,
            "- {}{title} ({}, {})",
            escape_controls(&adr.id),
            adr.force,
            escape_controls(&adr.file)
        );
        if let Some(decision) = &adr.decision {
            let _ = write!(
                entry,
                ": {}",
                truncate(&escape_controls(decision), MAX_DECISION_CHARS)
            );
        }
        entry.push('\n');
        for (id, kind, why) in &adr.rules {
            let _ = writeln!(
                entry,
                "  rule {} ({}): {}",
                escape_controls(id),
                escape_controls(kind),
                truncate(&escape_controls(why), MAX_ITEM_CHARS)
            );
        }
        if out.chars().count() + entry.chars().count() <= max {
            out.push_str(&entry);
        } else {
            left_out.push(format!(
                "{} ({})",
                escape_controls(&adr.id),
                escape_controls(&adr.file)
            ));
        }
    }
    if !left_out.is_empty() {
        let _ = writeln!(out, "- also: {}", truncate(&left_out.join(", "), 200));
    }
    out
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

    #[test]
    fn code_feedback_names_the_rule_its_why_and_the_rules_that_passed() {
        let report = FileReport {
            path: "src/api.py".into(),
            findings: vec![
                Finding::new(
                    "ADR-014/no-direct-http",
                    Severity::Error,
                    "imports `requests`: ADR-014 (Gateway) says: all HTTP goes through app.gateway",
                )
                .in_file("src/api.py")
                .at(2)
                .hint(
                    "use what the decision prescribes instead of this import (read adr/014-gw.md)",
                ),
            ],
        };
        let rules = [
            "ADR-014/no-direct-http".to_owned(),
            "ADR-014/no-print".to_owned(),
        ];
        let text = code_block(&report, &rules, 2, 3);
        assert!(text.starts_with("helix-gate: src/api.py breaks 1 rule(s) of the accepted decisions that govern it (attempt 2/3)."), "{text}");
        assert!(text.contains("FAILED:\n- [ADR-014/no-direct-http] line 2: imports `requests`: ADR-014 (Gateway) says: all HTTP goes through app.gateway -> fix: use what"), "{text}");
        assert!(
            text.ends_with("PASSED (keep these passing): ADR-014/no-print\n"),
            "{text}"
        );
        let clean = FileReport {
            path: "src/api.py".into(),
            findings: Vec::new(),
        };
        assert_eq!(
            describe_code(&clean, &rules),
            "PASSED (keep these passing): ADR-014/no-direct-http, ADR-014/no-print\n"
        );
    }

    #[test]
    fn the_governing_context_keeps_to_its_size() {
        let brief = |n: u32| GoverningBrief {
            id: format!("ADR-{n:03}"),
            title: Some("Outbound HTTP goes through the gateway".into()),
            force: "binding",
            file: format!("adr/{n:03}-gw.md"),
            decision: Some("All outbound HTTP goes through app.gateway.".into()),
            rules: vec![(
                "no-direct-http".into(),
                "forbid_import".into(),
                "All outbound HTTP goes through app.gateway.".into(),
            )],
        };
        let one = governing_context("src/api.py", &[brief(14)], 1500);
        assert_eq!(
            one,
            "helix-gate: decisions govern src/api.py; write it so it follows them (a binding rule's violation is blocked on save):\n\
- ADR-014 Outbound HTTP goes through the gateway (binding, adr/014-gw.md): All outbound HTTP goes through app.gateway.\n  \
rule no-direct-http (forbid_import): All outbound HTTP goes through app.gateway.\n"
        );
        let many: Vec<GoverningBrief> = (1..=40).map(brief).collect();
        let text = governing_context("src/api.py", &many, 1500);
        assert!(text.chars().count() <= 1500 + 210, "{}", text.len());
        assert!(text.contains("- also: ADR-"), "{text}");
    }
}
