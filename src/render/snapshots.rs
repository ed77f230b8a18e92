//! Snapshot tests of every renderer on the same findings (insta; regenerate
//! with `INSTA_UPDATE=always cargo test --lib render::snapshots`, never edit).

use crate::diagnostic::{FileReport, Finding, Severity, Source};

/// Two files: errors with and without line and hint, a warning, an info, a
/// clean file, and a finding that names its own path.
fn reports() -> Vec<FileReport> {
    vec![
        FileReport {
            path: "adr/038-response-enforcement.md".into(),
            findings: vec![
                Finding::new(
                    "major-needs-migration",
                    Severity::Error,
                    "change_scope=major requires a migration plan: section \"Migration\" is missing",
                )
                .at(1)
                .hint("add \"## Migration\" with the phases/steps (Phase, Schritt) and a rollback plan"),
                Finding::new(
                    "files-modify-missing",
                    Severity::Error,
                    "files.modify names `src/gone.rs`, which does not exist",
                )
                .at(9),
                Finding::new(
                    "acceptance-criteria-min",
                    Severity::Warning,
                    "2 acceptance criteria, at least 3 expected",
                )
                .at(57),
                Finding::new("concept-coverage", Severity::Info, "covers 4 of 5 concept sections"),
            ],
        },
        FileReport {
            path: "adr/039-other.md".into(),
            findings: vec![
                Finding::new("adr-id-duplicate", Severity::Error, "adr_id 038 is also used")
                    .in_file("adr/038-response-enforcement.md")
                    .at(2),
            ],
        },
        FileReport {
            path: "adr/001-clean.md".into(),
            findings: vec![],
        },
    ]
}

#[test]
fn human_plain() {
    insta::assert_snapshot!(super::human(&reports(), false));
}

#[test]
fn human_colour() {
    insta::assert_snapshot!(super::human(&reports(), true).replace('\x1b', "<ESC>"));
}

#[test]
fn json_document() {
    let mut reports = reports();
    reports[1].findings.push(
        Finding::new(
            "completeness",
            Severity::Warning,
            "the rollback plan is thin",
        )
        .from_source(Source::Reviewer),
    );
    insta::assert_snapshot!(super::json(&reports));
}

#[test]
fn compact_errors_and_warnings() {
    let reports = reports();
    insta::assert_snapshot!(format!(
        "errors:\n{}warnings:\n{}",
        super::compact::lines(&reports, Severity::Error),
        super::compact::lines(&reports, Severity::Warning)
    ));
}

#[test]
fn hook_feedback_block_and_warnings() {
    let reports = reports();
    let warnings_only = FileReport {
        path: "adr/040-x.md".into(),
        findings: vec![
            Finding::new(
                "acceptance-criteria-min",
                Severity::Warning,
                "2 acceptance criteria, at least 3 expected",
            )
            .at(57),
        ],
    };
    insta::assert_snapshot!(format!(
        "--- block\n{}\n--- warnings\n{}",
        super::feedback::adr_block(&reports[0], 2, 3),
        super::feedback::adr_warnings(&warnings_only)
    ));
}

#[test]
fn hook_feedback_lists_at_most_twelve_and_cuts_long_messages() {
    let mut findings: Vec<Finding> = (1..=14)
        .map(|i| {
            Finding::new(
                "section-missing",
                Severity::Error,
                format!("section {i} is missing"),
            )
            .at(i)
        })
        .collect();
    findings[0].message = "x".repeat(1000);
    let report = FileReport {
        path: "adr/041-long.md".into(),
        findings,
    };
    insta::assert_snapshot!(super::feedback::describe(&report));
}

#[test]
fn sarif_log() {
    // The built-in rules file documents the contextual rule `major-needs-migration`.
    let rules = crate::config::RuleSet::builtin().unwrap();
    insta::assert_snapshot!(super::sarif(&reports(), Some(&rules)));
}

#[test]
fn github_workflow_commands() {
    insta::assert_snapshot!(super::github(&reports()));
}

#[test]
fn gitlab_code_quality() {
    insta::assert_snapshot!(super::gitlab(&reports()));
}

#[test]
fn junit_report() {
    insta::assert_snapshot!(super::junit(&reports()));
}
