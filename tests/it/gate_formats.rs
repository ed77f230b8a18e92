//! `helix-gate gate --format`: JSON (the `GateResult` the orchestrator reads) stays the
//! default; the CI formats render the gate's findings with the renderers `validate` uses,
//! `human` prints the result for a terminal, and the exit code is the gate's in every
//! format. A snapshot per format.

use std::path::Path;

use serde_json::Value;

use crate::support::cli::*;

const SESSION: &str = "projects/sessions/s1";

const FORMATS: [&str; 6] = ["json", "human", "sarif", "github", "gitlab", "junit"];

/// A HELIX repository whose session draft fails two checks (major change without a
/// migration) and warns once; the reviewer is off.
fn failing_repo() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(
        repo.path(),
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    let mut adr = String::new();
    let mut skip = false;
    for line in good_adr().lines() {
        if line.starts_with("## ") {
            skip = line == "## Migration";
        }
        if line.starts_with("change_scope:") {
            adr.push_str("change_scope: major\n");
        } else if !skip {
            adr.push_str(line);
            adr.push('\n');
        }
    }
    write(repo.path(), &format!("{SESSION}/output/ADR-cache.md"), adr);
    write(
        repo.path(),
        &format!("{SESSION}/output/phases.yaml"),
        "phases:\n  - id: consultant\n    quality_gate:\n      - type: adr_complete\n        file: output/ADR-*.md\n        semantic: false\n      - type: files_exist\n        files: [output/response.md]\n",
    );
    repo
}

fn session(repo: &tempfile::TempDir) -> std::path::PathBuf {
    repo.path().join(SESSION)
}

#[test]
fn gate_speaks_every_format_with_the_same_exit_code() {
    let repo = failing_repo();
    let dir = session(&repo);
    let gate = ["gate", "adr_complete", "--file", "output/ADR-*.md"];
    let default = run(&dir, &gate);
    assert_eq!(code(&default), 1, "{}", stderr(&default));
    for format in FORMATS {
        let mut args = gate.to_vec();
        args.extend(["--format", format]);
        let out = super::snapshots::check_run(&format!("gate_format_{format}"), &dir, &args);
        assert_eq!(code(&out), 1, "{format}: {}", stderr(&out));
        if format == "json" {
            // JSON is the default: the GateResult, unchanged.
            assert_eq!(stdout(&out), stdout(&default));
            let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
            assert_eq!(doc["gate_type"], "adr_complete");
        }
    }
    // A passing gate passes in every format.
    for format in FORMATS {
        let out = run(
            &dir,
            &[
                "gate",
                "files_exist",
                "--files",
                "output/ADR-cache.md",
                "--format",
                format,
            ],
        );
        assert_eq!(code(&out), 0, "{format}: {}", stdout(&out));
    }
}

#[test]
fn a_phase_speaks_every_format() {
    let repo = failing_repo();
    let dir = session(&repo);
    for format in ["human", "github"] {
        let out = super::snapshots::check_run(
            &format!("gate_phase_format_{format}"),
            &dir,
            &[
                "gate",
                "--phases",
                "output/phases.yaml",
                "--phase",
                "consultant",
                "--format",
                format,
            ],
        );
        assert_eq!(code(&out), 1, "{format}");
    }
    let out = run(
        &dir,
        &[
            "gate",
            "--phases",
            "output/phases.yaml",
            "--phase",
            "consultant",
            "--format",
            "gitlab",
        ],
    );
    assert_eq!(code(&out), 1);
    let issues: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let checks: Vec<&str> = issues
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["check_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        checks,
        [
            "major-needs-migration",
            "major-needs-rollback",
            "major-needs-migration",
            "gate-file-missing"
        ]
    );
}

/// A gate that could not run has no finding of its own; CI must still show why.
#[test]
fn a_gate_that_could_not_run_is_an_infrastructure_finding_and_exit_2() {
    let repo = failing_repo();
    let dir = session(&repo);
    let args = |format: &'static str| {
        vec![
            "gate",
            "approval_passed",
            "--result-file",
            "output/approval-result.json",
            "--format",
            format,
        ]
    };
    for format in FORMATS {
        let out = run(&dir, &args(format));
        assert_eq!(code(&out), 2, "{format}: {}", stdout(&out));
        let text = stdout(&out);
        match format {
            "github" => assert!(
                text.starts_with(&format!(
                    "::error file={SESSION}/output/approval-result.json,title=infrastructure::gate approval_passed: cannot read"
                )),
                "{text}"
            ),
            "sarif" => {
                let log: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(log["runs"][0]["results"][0]["ruleId"], "infrastructure");
                assert_eq!(log["runs"][0]["results"][0]["level"], "error");
            }
            "gitlab" => {
                let issues: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(issues[0]["check_name"], "infrastructure");
            }
            "junit" => assert!(text.contains("<failure type=\"infrastructure\""), "{text}"),
            "human" => assert!(text.starts_with("gate approval_passed: could not run\n"), "{text}"),
            _ => {
                let doc: Value = serde_json::from_str(&text).unwrap();
                assert_eq!(doc["details"]["outcome"], "error");
                assert_eq!(doc["details"]["findings"], serde_json::json!([]));
            }
        }
    }
}

#[test]
fn gate_sarif_validates_against_the_sarif_2_1_0_schema() {
    let Some(validator) = super::formats::sarif_validator() else {
        return;
    };
    let repo = failing_repo();
    let dir = session(&repo);
    let out = run(
        &dir,
        &[
            "gate",
            "--phases",
            "output/phases.yaml",
            "--phase",
            "consultant",
            "--format",
            "sarif",
        ],
    );
    let file = write(repo.path(), "out/gate.sarif", stdout(&out));
    let problems = super::formats::sarif_problems(&validator, Path::new(&file));
    assert!(problems.is_empty(), "{problems:#?}\n{}", stdout(&out));
}
