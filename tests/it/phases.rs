//! The consultant's phase plan (`phases.yaml`): `validate` checks it, and the hook blocks a
//! bad `output/phases.yaml` on save with the same path as an ADR.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::hook;

pub(crate) const GOOD_PLAN: &str = "phases:
  - id: consultant
    type: consultant
    output:
      files: [output/ADR-feature.md]
    quality_gate:
      type: adr_complete
      file: output/ADR-*.md
      semantic: false
  - id: development
    type: development
    depends_on: consultant
    quality_gate:
      type: files_exist
";

/// Every rule of the plan at once.
pub(crate) const BAD_PLAN: &str = "phases:
  - id: consultant
    output: [/home/aiuser01/out.md]
    quality_gate:
      type: adr_completed
  - id: consultant
    depends_on: [analysis]
";

fn project() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(
        repo.path(),
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo
}

#[test]
fn validate_checks_a_phase_plan() {
    let repo = project();
    write(repo.path(), "output/phases.yaml", GOOD_PLAN);
    let out = run(repo.path(), &["validate", "output/phases.yaml"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    write(repo.path(), "output/phases.yaml", BAD_PLAN);
    let out = run(
        repo.path(),
        &["validate", "output/phases.yaml", "--format", "json"],
    );
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let rules: Vec<(&str, u64)> = doc["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["rule"].as_str().unwrap(), f["line"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        rules,
        [
            ("phase-path-unsafe", 3),
            ("phase-gate-invalid", 5),
            ("phase-id-duplicate", 6),
            ("phase-depends-on-unknown", 7),
        ]
    );
}

fn post_write(root: &Path, rel: &str) -> Value {
    json!({"session_id": "s", "transcript_path": "t", "cwd": root, "hook_event_name": "PostToolUse",
           "tool_name": "Write", "tool_input": {"file_path": root.join(rel), "content": "…"},
           "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"})
}

#[test]
fn the_hook_blocks_a_bad_output_phases_yaml_on_save_and_passes_a_good_one() {
    let repo = project();
    let rel = "projects/sessions/abc/output/phases.yaml";
    write(repo.path(), rel, BAD_PLAN);
    let answer = hook(repo.path(), &post_write(repo.path(), rel)).expect("one JSON object");
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains(&format!("{rel} fails 4 check(s) (attempt 1/3)")),
        "{reason}"
    );
    assert!(reason.contains("[phase-gate-invalid] line 5: phase `consultant`: unknown quality_gate type `adr_completed`"), "{reason}");
    // Every plan check failed, and the ADR checks are not named as passed.
    assert!(!reason.contains("PASSED"), "{reason}");
    write(repo.path(), rel, GOOD_PLAN);
    assert_eq!(hook(repo.path(), &post_write(repo.path(), rel)), None);
    let log = std::fs::read_to_string(repo.path().join(".helix-gate/log.jsonl")).unwrap();
    let verdicts: Vec<String> = log
        .lines()
        .map(|l| {
            serde_json::from_str::<Value>(l).unwrap()["verdict"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();
    assert_eq!(verdicts, ["block", "pass"]);
    // A phases.yaml outside an output/ folder is not the consultant's plan: no answer.
    write(repo.path(), "phases.yaml", BAD_PLAN);
    assert_eq!(
        hook(repo.path(), &post_write(repo.path(), "phases.yaml")),
        None
    );
}

mod e2e {
    //! The real Claude Code client (2.1.329) against the fake Messages API, with the hook
    //! registered by `helix-gate install claude`.

    use serde_json::json;

    use crate::support::claude::{ClaudeRun, hook_blocking_errors, require_claude};
    use crate::support::cli::*;
    use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
    use crate::support::repo::ScratchRepo;

    fn write_plan(conv: &Conversation<'_>, content: &str) -> Turn {
        let dir = conv.working_dir().expect("working dir");
        Turn::text("Writing the phase plan.").with_tool(
            "Write",
            json!({"file_path": dir.join("output/phases.yaml"), "content": content}),
        )
    }

    #[test]
    fn a_bad_phase_plan_is_blocked_on_save_and_the_model_fixes_it() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = ScratchRepo::new();
        repo.write(
            "config/approvals.yaml",
            "approvals:\n  adr:\n    enabled: false\n",
        );
        let out = run(repo.path(), &["install", "claude"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let api = FakeApi::start(|_: &RecordedRequest, conv: &Conversation<'_>| {
            match conv.request_index() {
                0 => write_plan(conv, super::BAD_PLAN),
                1 => write_plan(conv, super::GOOD_PLAN),
                _ => Turn::text("Plan written."),
            }
        });
        let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the phase plan").run();
        outcome.assert_success();
        let requests = api.main_requests();
        assert_eq!(requests.len(), 3, "{}", outcome.describe());
        let blocks = hook_blocking_errors(&requests, "PostToolUse:Write");
        assert_eq!(blocks.len(), 1, "{blocks:#?}");
        assert!(
            blocks[0].contains("output/phases.yaml fails 4 check(s)"),
            "{}",
            blocks[0]
        );
        assert!(blocks[0].contains("phase-id-duplicate"), "{}", blocks[0]);
        assert_eq!(outcome.result_text(), Some("Plan written."));
    }
}

/// Seed 004's phase plan template, as the consultant's prompt gives it.
fn seed_plan() -> String {
    std::fs::read_to_string(manifest_dir().join("tests/fixtures/seeds/004-phases-template.yaml"))
        .unwrap()
}

/// Seed 004's phases template with its `<...>` gaps left in is not a plan:
/// `validate`, the hook on save and pre-commit all report `phase-placeholder`.
#[test]
fn a_phase_plan_with_the_templates_placeholders_left_in_is_an_error() {
    let repo = project();
    let rel = "projects/sessions/abc/output/phases.yaml";
    write(repo.path(), rel, seed_plan());
    let out = run(repo.path(), &["validate", rel, "--format", "json"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let found: Vec<(String, u64)> = doc["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "phase-placeholder")
        .map(|f| {
            (
                f["message"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert!(
        found
            .iter()
            .any(|(m, line)| m.contains("<Beschreibender Name>") && *line == 3),
        "{found:?}"
    );
    assert!(
        found
            .iter()
            .any(|(m, _)| m.contains("<erwartete_datei.md>")),
        "a gap in an output path: {found:?}"
    );
    let answer = hook(repo.path(), &post_write(repo.path(), rel)).expect("one JSON object");
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("[phase-placeholder] line 3"),
        "{answer}"
    );
    // The filled plan passes.
    let filled = seed_plan()
        .replace("<Beschreibender Name>", "Analysis")
        .replace("[<relevante_skills>]", "[helix]")
        .replace(['<', '>'], "");
    write(repo.path(), rel, &filled);
    let out = run(repo.path(), &["validate", rel]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}
