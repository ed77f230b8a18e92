//! `helix-gate gate`: each gate type with its exit codes (0 passed, 1 failed, 2 could not
//! run) and JSON shape, one phase of a `phases.yaml`, and snapshots of the output.

use std::path::Path;

use serde_json::{Value, json};

use super::approval::{approved, canned_result, configure};
use super::concept::CONCEPT;
use super::phases::BAD_PLAN;
use crate::support::cli::*;
use crate::support::repo::{ScratchRepo, state_dir};

/// A repository laid out like HELIX: the consultant's session folder with its draft.
const SESSION: &str = "projects/sessions/s1";

fn helix_repo() -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write(format!("{SESSION}/output/ADR-cache.md"), good_adr());
    repo
}

fn reviewer_off(repo: &ScratchRepo) {
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
}

/// A stub reviewer that answers `verdict`.
fn reviewer(repo: &ScratchRepo, verdict: &Value) {
    let script = fake_reviewer(repo.path(), &canned_result(verdict), "");
    configure(repo, &script, 30);
}

/// `helix-gate gate <args>` in `cwd` of `repo`: (exit, the one JSON object on stdout).
fn gate(repo: &ScratchRepo, cwd: &str, args: &[&str]) -> (i32, Value) {
    let home = tempfile::tempdir().unwrap();
    let out = isolated(bin(), repo.path().join(cwd))
        .arg("gate")
        .args(args)
        .env("HOME", home.path())
        .env("HELIX_GATE_STATE_DIR", state_dir(repo.path()))
        .output()
        .unwrap();
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}): {}\n{}",
            stdout(&out),
            stderr(&out)
        )
    });
    (code(&out), doc)
}

fn rules(doc: &Value) -> Vec<String> {
    doc["details"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["rule"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn adr_complete_passes_fails_and_reports_a_missing_file() {
    let repo = helix_repo();
    reviewer_off(&repo);
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &["adr_complete", "--file", "output/ADR-*.md"],
    );
    assert_eq!(exit, 0, "{doc:#}");
    assert_eq!(doc["passed"], true);
    assert_eq!(doc["gate_type"], "adr_complete");
    assert_eq!(
        doc["details"]["files"],
        json!([format!("{SESSION}/output/ADR-cache.md")])
    );
    assert_eq!(
        doc["details"]["semantic"],
        "not run (semantic: auto, approvals.adr.enabled is false)"
    );
    repo.write(
        format!("{SESSION}/output/ADR-cache.md"),
        good_adr().replace("## Dokumentation", "## Notizen"),
    );
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &["adr_complete", "--file", "output/ADR-*.md"],
    );
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["passed"], false);
    assert!(
        rules(&doc).contains(&"section-missing".to_owned()),
        "{doc:#}"
    );
    assert_eq!(
        doc["details"]["findings"][0]["path"],
        format!("{SESSION}/output/ADR-cache.md")
    );
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &["adr_complete", "--file", "output/ADR-none-*.md"],
    );
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(rules(&doc), ["gate-file-missing"]);
    // A glob that leaves the base directory cannot run.
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &["adr_complete", "--file", "../../../x/*.md"],
    );
    assert_eq!(exit, 2, "{doc:#}");
}

#[test]
fn adr_complete_with_the_gates_concept_catches_the_lost_migration_plan() {
    let repo = helix_repo();
    reviewer_off(&repo);
    repo.write(format!("{SESSION}/output/concept.md"), CONCEPT);
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &[
            "adr_complete",
            "--file",
            "output/ADR-*.md",
            "--concept",
            "output/concept.md",
        ],
    );
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["details"]["concept"], "output/concept.md");
    assert_eq!(
        rules(&doc),
        [
            "concept-required-section-missing",
            "concept-section-missing",
            "concept-coverage"
        ]
    );
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &[
            "adr_complete",
            "--file",
            "output/ADR-*.md",
            "--concept",
            "output/missing.md",
        ],
    );
    assert_eq!(exit, 1, "{doc:#}");
    // The gate's concept cannot be used; the one beside the draft is compared all the same
    // (found by convention: `concept.discover`).
    assert_eq!(
        rules(&doc),
        [
            "concept-required-section-missing",
            "concept-section-missing",
            "concept-coverage",
            "concept-unreadable"
        ]
    );
}

#[test]
fn adr_complete_runs_the_reviewer_only_as_semantic_says() {
    let repo = helix_repo();
    // The reviewer would reject: it must not run with semantic false.
    let rejecting = json!({"result": "rejected", "confidence": 0.9, "findings": [
        {"severity": "error", "check": "conflicts", "message": "contradicts ADR-007"}
    ], "recommendations": []});
    reviewer(&repo, &rejecting);
    let args = ["adr_complete", "--file", "output/ADR-*.md"];
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &[&args[..], &["--semantic", "false"]].concat(),
    );
    assert_eq!(exit, 0, "{doc:#}");
    assert!(doc["details"].get("approval").is_none());
    // auto: enabled in approvals.yaml, the checks pass, so the reviewer runs.
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["details"]["semantic"], "ran");
    assert_eq!(doc["details"]["approval"]["result"], "rejected");
    assert!(rules(&doc).contains(&"conflicts".to_owned()), "{doc:#}");
    assert_eq!(doc["message"], "Approval rejected (confidence: 90%)");
    // The same content again: the verdict comes from the cache, and the gate says so.
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["details"]["semantic"], "answered from the cache");
    assert_eq!(doc["details"]["approval"]["stage"], "cache");
    // The rejection is kept for this content (one paid review per content), so
    // the revised ADR is what the approving reviewer sees.
    reviewer(&repo, &approved(0.95));
    repo.write(
        format!("{SESSION}/output/ADR-cache.md"),
        good_adr() + "\nRevised after the review: no conflict with ADR-007.\n",
    );
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &[&args[..], &["--semantic", "true"]].concat(),
    );
    assert_eq!(exit, 0, "{doc:#}");
    assert_eq!(doc["details"]["approval"]["result"], "approved");
}

#[test]
fn approval_gate_applies_required_result_and_reports_a_failed_reviewer_as_could_not_run() {
    let repo = helix_repo();
    let needs_revision = json!({"result": "needs_revision", "confidence": 0.9, "findings": [],
        "recommendations": ["name the cache size"]});
    reviewer(&repo, &needs_revision);
    let files = [
        "approval",
        "--type",
        "adr",
        "--files",
        "output/ADR-cache.md",
    ];
    let (exit, doc) = gate(&repo, SESSION, &files);
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["details"]["required_result"], "approved");
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &[&files[..], &["--required-result", "needs_revision"]].concat(),
    );
    assert_eq!(exit, 0, "{doc:#}");
    reviewer(&repo, &approved(0.95));
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &[&files[..], &["--required-result", "needs_revision"]].concat(),
    );
    assert_eq!(exit, 0, "needs_revision accepts approved: {doc:#}");
    // A reviewer that prints garbage (for new content, so no cached approval answers):
    // the gate could not decide.
    repo.write(
        format!("{SESSION}/output/ADR-cache.md"),
        good_adr().replace("## Kontext\n", "## Kontext\n\nChanged.\n"),
    );
    let script = fake_reviewer(repo.path(), "not json", "");
    configure(&repo, &script, 30);
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &[&files[..], &["--required-result", "needs_revision"]].concat(),
    );
    assert_eq!(exit, 2, "{doc:#}");
    assert_eq!(doc["details"]["outcome"], "error");
    // An unknown approval type cannot run either.
    let (exit, _) = gate(
        &repo,
        SESSION,
        &[
            "approval",
            "--type",
            "nope",
            "--files",
            "output/ADR-cache.md",
        ],
    );
    assert_eq!(exit, 2);
}

/// `helix-gate approve --out <out> <file>` in the repository root with the test's
/// state folder (its signing key), or with the state folder `state` when given.
fn approve_out(repo: &ScratchRepo, file: &str, out: &str, state: Option<&Path>) -> i32 {
    let home = tempfile::tempdir().unwrap();
    let mut cmd = super::approval::approve_command(
        repo.path(),
        None,
        home.path(),
        &["--format", "json", "--out", out, file],
    );
    if let Some(state) = state {
        cmd.env("HELIX_GATE_STATE_DIR", state);
    }
    let out = cmd.output().unwrap();
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
    assert!(doc["out"].is_string(), "{doc:#}");
    code(&out)
}

fn message(doc: &Value) -> &str {
    doc["message"].as_str().unwrap()
}

#[test]
fn approval_passed_trusts_only_a_result_helix_gate_signed_for_the_current_content() {
    let repo = helix_repo();
    reviewer(&repo, &approved(0.9));
    let adr = format!("{SESSION}/output/ADR-cache.md");
    let out = format!("{SESSION}/approvals/adr/output/approval-result.json");
    let args = [
        "approval_passed",
        "--result-file",
        "approvals/adr/output/approval-result.json",
        "--files",
        "output/ADR-cache.md",
    ];
    assert_eq!(approve_out(&repo, &adr, &out, None), 0);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.path().join(&out)).unwrap()).unwrap();
    assert_eq!(written["result"], "approved");
    assert_eq!(written["approval_type"], "adr");
    assert_eq!(written["judged"][0]["path"], adr.as_str());
    assert_eq!(written["judged"][0]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(written["signature"]["algorithm"], "ed25519");
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 0, "{doc:#}");
    assert_eq!(doc["details"]["approval"]["result"], "approved");
    assert_eq!(doc["details"]["findings"][0]["rule"], "acceptance");
    assert_eq!(doc["details"]["findings"][0]["source"], "reviewer");

    // A genuine result with its signature removed, and a hand-written one.
    let mut unsigned = written.clone();
    unsigned.as_object_mut().unwrap().remove("signature");
    for text in [
        unsigned.to_string(),
        json!({"result": "approved", "confidence": 0.99, "findings": []}).to_string(),
    ] {
        repo.write(&out, text);
        let (exit, doc) = gate(&repo, SESSION, &args);
        assert_eq!(exit, 1, "{doc:#}");
        assert!(
            message(&doc).contains("not signed by helix-gate"),
            "{doc:#}"
        );
    }
    // Signed, then changed: raised confidence.
    let mut raised = written.clone();
    raised["confidence"] = json!(1.0);
    repo.write(&out, raised.to_string());
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 1, "{doc:#}");
    assert!(
        message(&doc).contains("does not match its content"),
        "{doc:#}"
    );

    // Signed with another user's key.
    let other = tempfile::tempdir().unwrap();
    assert_eq!(approve_out(&repo, &adr, &out, Some(other.path())), 0);
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 1, "{doc:#}");
    assert!(
        message(&doc).contains("not signed by helix-gate with this user's key"),
        "{doc:#}"
    );

    // Genuine again, then the ADR changes: stale, naming the file.
    assert_eq!(approve_out(&repo, &adr, &out, None), 0);
    assert_eq!(gate(&repo, SESSION, &args).0, 0);
    repo.write(&adr, good_adr() + "\nEdited after the approval.\n");
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 1, "{doc:#}");
    assert!(message(&doc).contains("is stale"), "{doc:#}");
    assert!(message(&doc).contains(&adr), "{doc:#}");
    assert!(message(&doc).contains("content changed"), "{doc:#}");
    repo.write(&adr, good_adr());
    assert_eq!(gate(&repo, SESSION, &args).0, 0);

    // The type's required confidence raised above the approval's: not approved now.
    let script = repo.path().join("fake/reviewer.sh");
    let command = serde_json::to_string(&script.to_string_lossy()).unwrap();
    repo.write(
        "config/approvals.yaml",
        format!("defaults:\n  command: {command}\n  timeout: 30\n  required_confidence: 0.95\n"),
    );
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 1, "{doc:#}");
    assert!(message(&doc).contains("below the 95%"), "{doc:#}");
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &[&args[..], &["--required-result", "needs_revision"]].concat(),
    );
    assert_eq!(exit, 0, "{doc:#}");
}

/// A genuine result of `approve --out` for another, older ADR (a free cache hit)
/// does not pass the gate of a phase whose own output was never reviewed: the gate
/// fails and names the files the result judged and the files the phase needed.
#[test]
fn approval_passed_refuses_a_genuine_result_for_another_file() {
    let repo = helix_repo();
    reviewer(&repo, &approved(0.9));
    let old = format!("{SESSION}/output/ADR-cache.md");
    let out = format!("{SESSION}/approvals/adr/output/approval-result.json");
    assert_eq!(approve_out(&repo, &old, &out, None), 0);
    // The phase's output: broken, never reviewed.
    repo.write(format!("{SESSION}/output/ADR-broken.md"), "# not an ADR\n");
    let plan = format!("{SESSION}/output/phases.yaml");
    repo.write(
        &plan,
        "phases:\n  - id: write\n    output: [output/ADR-broken.md]\n    quality_gate:\n      type: approval_passed\n      result_file: approvals/adr/output/approval-result.json\n",
    );
    let (exit, doc) = gate(&repo, ".", &["--phases", &plan, "--phase", "write"]);
    assert_eq!(exit, 1, "{doc:#}");
    let text = doc["gates"][0]["message"].as_str().unwrap();
    assert!(
        text.contains(&format!("judged {old}"))
            && text.contains(&format!("{SESSION}/output/ADR-broken.md")),
        "{doc:#}"
    );

    // On the command line the files are given with --files, and must be judged too.
    let given = [
        "approval_passed",
        "--result-file",
        "approvals/adr/output/approval-result.json",
    ];
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &[&given[..], &["--files", "output/ADR-broken.md"]].concat(),
    );
    assert_eq!(exit, 1, "{doc:#}");
    assert!(message(&doc).contains(&format!("judged {old}")), "{doc:#}");
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &[&given[..], &["--files", "output/ADR-cache.md"]].concat(),
    );
    assert_eq!(exit, 0, "{doc:#}");
}

#[test]
#[cfg(unix)]
fn approval_passed_reports_a_result_it_cannot_read() {
    let repo = helix_repo();
    let args = [
        "approval_passed",
        "--result-file",
        "output/approval-result.json",
    ];
    repo.write(
        format!("{SESSION}/output/approval-result.json"),
        "{\"result\": \"maybe\"}",
    );
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 2, "{doc:#}");
    // A result file that a symbolic link leads out of the project is not read.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("r.json"),
        json!({"result": "approved", "confidence": 0.9, "findings": []}).to_string(),
    )
    .unwrap();
    let in_session = repo
        .path()
        .join(SESSION)
        .join("output/approval-result.json");
    std::fs::remove_file(&in_session).unwrap();
    std::os::unix::fs::symlink(outside.path().join("r.json"), &in_session).unwrap();
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 2, "{doc:#}");
    assert!(doc["details"].get("approval").is_none(), "{doc:#}");
    std::fs::remove_file(&in_session).unwrap();
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 2, "{doc:#}");
    assert!(message(&doc).contains("has the approval run?"));
}

const PLAN: &str = "phases:
  - id: consultant
    type: consultant
    output:
      files: [output/ADR-cache.md]
    quality_gate:
      type: adr_complete
      file: output/ADR-*.md
      semantic: false
  - id: approval
    depends_on: consultant
    output: [output/approval-result.json]
    quality_gate:
      - type: files_exist
      - type: approval_passed
        result_file: output/approval-result.json
  - id: tests
    depends_on: approval
    quality_gate:
      type: tests_pass
";

#[test]
fn a_phase_runs_its_gates_after_the_plan_is_checked() {
    let repo = helix_repo();
    reviewer_off(&repo);
    let plan = format!("{SESSION}/output/phases.yaml");
    repo.write(&plan, PLAN);
    // From the repository root: paths are relative to the session folder above output/.
    let (exit, doc) = gate(&repo, ".", &["--phases", &plan, "--phase", "consultant"]);
    assert_eq!(exit, 0, "{doc:#}");
    assert_eq!(doc["passed"], true);
    assert_eq!(doc["gates"].as_array().unwrap().len(), 1);
    assert_eq!(doc["gates"][0]["gate_type"], "adr_complete");
    // Two gates: one error (no result file yet) makes the phase "could not run".
    let (exit, doc) = gate(&repo, ".", &["--phases", &plan, "--phase", "approval"]);
    assert_eq!(exit, 2, "{doc:#}");
    assert_eq!(doc["gates"][0]["details"]["outcome"], "failed");
    assert_eq!(doc["gates"][1]["details"]["outcome"], "error");
    // `tests` depends on `approval`, which fails: blocked, its gate not run.
    let (exit, doc) = gate(&repo, ".", &["--phases", &plan, "--phase", "tests"]);
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["blocked_by"][0]["phase"], "approval", "{doc:#}");
    assert_eq!(doc["findings"][0]["rule"], "phase-blocked", "{doc:#}");
    repo.write(&plan, PLAN.replace("    depends_on: approval\n", ""));
    let (exit, doc) = gate(&repo, ".", &["--phases", &plan, "--phase", "tests"]);
    assert_eq!(exit, 2, "{doc:#}");
    assert!(
        doc["gates"][0]["message"]
            .as_str()
            .unwrap()
            .contains("HELIX orchestrator")
    );
    let (exit, doc) = gate(&repo, ".", &["--phases", &plan, "--phase", "nope"]);
    assert_eq!(exit, 2, "{doc:#}");
    // A bad plan: its findings, and no gate is run.
    repo.write(&plan, BAD_PLAN);
    let (exit, doc) = gate(&repo, ".", &["--phases", &plan, "--phase", "consultant"]);
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["gates"], json!([]));
    assert_eq!(doc["findings"].as_array().unwrap().len(), 4);
    assert_eq!(doc["findings"][0]["path"], plan);
}

/// The consultant's plan names its draft (`output/ADR-*.md`); once `helix-gate
/// finalize` moved it into adr/, the phase's gate checks the ADR it became.
#[test]
fn the_consultants_gate_follows_a_draft_that_finalize_moved() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write(
        "adr/INDEX.md",
        "# ADR Index\n\n| Nr | Titel | Status | Beschreibung |\n|----|-------|--------|--------------|\n",
    );
    reviewer_off(&repo);
    repo.write(
        format!("{SESSION}/output/ADR-cache.md"),
        good_adr()
            .replace("adr_id: \"001\"", "adr_id: \"XXX\"")
            .replace("# ADR-001:", "# ADR-XXX:"),
    );
    let plan = format!("{SESSION}/output/phases.yaml");
    repo.write(&plan, PLAN);
    let phase = ["--phases", "output/phases.yaml", "--phase", "consultant"];
    let (exit, doc) = gate(&repo, SESSION, &phase);
    assert_eq!(exit, 0, "{doc:#}");
    assert_eq!(
        doc["gates"][0]["details"]["files"],
        json!([format!("{SESSION}/output/ADR-cache.md")])
    );
    let out = run(
        &repo.path().join(SESSION),
        &["finalize", "output/ADR-cache.md"],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        !repo
            .path()
            .join(SESSION)
            .join("output/ADR-cache.md")
            .exists()
    );
    let adr = "adr/001-cache-parsed-rules-between-hook-calls.md";
    assert!(repo.path().join(adr).is_file());
    let (exit, doc) = gate(&repo, SESSION, &phase);
    assert_eq!(exit, 0, "{doc:#}");
    assert_eq!(doc["gates"][0]["details"]["files"], json!([adr]));
    // The finalized ADR is what is judged: broken there, the gate fails.
    repo.write(adr, good_adr().replace("## Dokumentation", "## Notizen"));
    let (exit, doc) = gate(&repo, SESSION, &phase);
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["gates"][0]["details"]["files"], json!([adr]));
    // A planted record never leads to a file that is no ADR.
    repo.write(
        ".helix-gate/finalized.jsonl",
        format!(
            "{{\"time\": \"t\", \"from\": \"{SESSION}/output/ADR-cache.md\", \"to\": \"src/lib.rs\"}}\n"
        ),
    );
    let (exit, doc) = gate(&repo, SESSION, &phase);
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(
        doc["gates"][0]["details"]["findings"][0]["rule"],
        "gate-file-missing"
    );
}

/// Seed 002's cascade: an approval phase of type `security` over a glob of critical files.
const SECURITY_PLAN: &str = "phases:
  - id: security
    type: approval
    approval_type: security
    input: [new/src/critical/*.py]
";

/// The stub reviewer answering `verdict`, with the `security` type switched on.
fn security_reviewer(repo: &ScratchRepo, verdict: &Value) {
    let script = fake_reviewer(repo.path(), &canned_result(verdict), "");
    let command = serde_json::to_string(&script.to_string_lossy()).unwrap();
    repo.write(
        "config/approvals.yaml",
        format!(
            "defaults:\n  command: {command}\n  timeout: 30\napprovals:\n  security:\n    enabled: true\n"
        ),
    );
}

#[test]
fn an_approval_phase_judges_every_file_its_input_glob_matches() {
    let repo = helix_repo();
    repo.write(
        format!("{SESSION}/new/src/critical/auth.py"),
        "def login(user):\n    return True\n",
    );
    repo.write(
        format!("{SESSION}/new/src/critical/pay.py"),
        "def pay(amount):\n    return amount\n",
    );
    repo.write(format!("{SESSION}/new/src/other.py"), "x = 1\n");
    repo.write(format!("{SESSION}/output/phases.yaml"), SECURITY_PLAN);
    let phase = ["--phases", "output/phases.yaml", "--phase", "security"];
    // Off by default, like `code`: the phase cannot run.
    let (exit, doc) = gate(&repo, SESSION, &phase);
    assert_eq!(exit, 2, "{doc:#}");
    assert!(
        doc["gates"][0]["message"]
            .as_str()
            .unwrap()
            .contains("disabled"),
        "{doc:#}"
    );

    security_reviewer(&repo, &approved(0.9));
    let (exit, doc) = gate(&repo, SESSION, &phase);
    assert_eq!(exit, 0, "{doc:#}");
    let gate0 = &doc["gates"][0];
    assert_eq!(
        gate0["details"]["files"],
        json!([
            format!("{SESSION}/new/src/critical/auth.py"),
            format!("{SESSION}/new/src/critical/pay.py")
        ])
    );
    let approvals = gate0["details"]["approval"].as_array().unwrap();
    assert_eq!(approvals.len(), 2, "each file is judged by itself: {doc:#}");
    for (approval, file) in approvals.iter().zip(["auth.py", "pay.py"]) {
        assert_eq!(approval["approval_type"], "security");
        assert_eq!(
            approval["files"],
            json!([format!("{SESSION}/new/src/critical/{file}")])
        );
    }
    // The reviewer got the security type's checks.
    let runs = repo.path().join(".helix-gate/approvals");
    let run = std::fs::read_dir(&runs)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    for check in ["injection", "secrets", "authz"] {
        assert!(run.join(format!("checks/{check}.md")).is_file(), "{check}");
    }

    // The plan's required_result applies to every file.
    repo.write(
        format!("{SESSION}/new/src/critical/pay.py"),
        "def pay(amount):\n    return eval(amount)\n",
    );
    security_reviewer(
        &repo,
        &json!({"result": "needs_revision", "confidence": 0.9, "findings": [
            {"severity": "error", "check": "injection", "message": "eval of input"}],
            "recommendations": ["parse the amount"]}),
    );
    let (exit, doc) = gate(&repo, SESSION, &phase);
    assert_eq!(exit, 1, "{doc:#}");
    let message = doc["gates"][0]["message"].as_str().unwrap();
    assert!(message.starts_with("1 of 2 file(s) passed"), "{doc:#}");
    assert!(
        message.contains("critical/pay.py: Approval needs_revision"),
        "{doc:#}"
    );
    repo.write(
        format!("{SESSION}/output/phases.yaml"),
        format!("{SECURITY_PLAN}    required_result: needs_revision\n"),
    );
    let (exit, doc) = gate(&repo, SESSION, &phase);
    assert_eq!(exit, 0, "{doc:#}");
}

/// The plan check knows the project: an approval phase with an unknown type stops
/// every phase of the plan; inputs that match nothing stop the approval phase itself,
/// not the phases before it (which may still write them).
#[test]
fn the_plan_check_reports_an_unknown_approval_type_and_inputs_that_match_nothing() {
    let repo = helix_repo();
    reviewer_off(&repo);
    let consultant = "phases:
  - id: consultant
    output: [output/ADR-cache.md]
    quality_gate: {type: adr_complete, file: output/ADR-*.md, semantic: false}
";
    let plan = |approval: &str| format!("{consultant}{}", &approval["phases:\n".len()..]);
    let run = |phase: &str| {
        gate(
            &repo,
            SESSION,
            &["--phases", "output/phases.yaml", "--phase", phase],
        )
    };
    // Unknown type: the plan fails for every phase, and no gate runs.
    repo.write(
        format!("{SESSION}/output/phases.yaml"),
        plan(&SECURITY_PLAN.replace("approval_type: security", "approval_type: securty")),
    );
    for phase in ["consultant", "security"] {
        let (exit, doc) = run(phase);
        assert_eq!(exit, 1, "{doc:#}");
        assert_eq!(doc["gates"], json!([]));
        assert_eq!(
            doc["findings"][0]["rule"], "phase-approval-type-unknown",
            "{doc:#}"
        );
        assert_eq!(doc["findings"][0]["line"], 7, "{doc:#}");
        assert!(
            doc["findings"][0]["message"]
                .as_str()
                .unwrap()
                .contains("`securty` is not configured"),
            "{doc:#}"
        );
    }
    // A known type whose input glob matches nothing (yet): the consultant phase runs,
    // the approval phase is refused by the plan check.
    repo.write(format!("{SESSION}/output/phases.yaml"), plan(SECURITY_PLAN));
    let (exit, doc) = run("consultant");
    assert_eq!(exit, 0, "{doc:#}");
    let (exit, doc) = run("security");
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["gates"], json!([]));
    assert_eq!(
        doc["findings"][0]["rule"], "phase-input-unmatched",
        "{doc:#}"
    );
    assert_eq!(doc["findings"][0]["line"], 8, "{doc:#}");
    // Once a file matches, the check is quiet and the approval runs.
    repo.write(format!("{SESSION}/new/src/critical/auth.py"), "x = 1\n");
    security_reviewer(&repo, &approved(0.9));
    let (exit, doc) = run("security");
    assert_eq!(exit, 0, "{doc:#}");
}

#[cfg(unix)]
#[test]
fn a_plan_that_a_link_leads_out_of_the_project_or_a_fifo_is_not_read() {
    let repo = helix_repo();
    reviewer_off(&repo);
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("phases.yaml"), PLAN).unwrap();
    let plan = format!("{SESSION}/output/phases.yaml");
    std::os::unix::fs::symlink(outside.path().join("phases.yaml"), repo.path().join(&plan))
        .unwrap();
    let (exit, doc) = gate(&repo, ".", &["--phases", &plan, "--phase", "consultant"]);
    assert_eq!(exit, 2, "{doc:#}");
    assert_eq!(doc["gates"], json!([]));
    assert!(
        doc["message"]
            .as_str()
            .unwrap()
            .contains("leads it outside the project; not read"),
        "{doc:#}"
    );
    // A FIFO is refused without being opened for a blocking read (no hang).
    let fifo = format!("{SESSION}/output/fifo.yaml");
    let made = std::process::Command::new("mkfifo")
        .arg(repo.path().join(&fifo))
        .status()
        .unwrap();
    assert!(made.success());
    let (exit, doc) = gate(&repo, ".", &["--phases", &fifo, "--phase", "consultant"]);
    assert_eq!(exit, 2, "{doc:#}");
    assert!(
        doc["message"]
            .as_str()
            .unwrap()
            .contains("not a regular file"),
        "{doc:#}"
    );
}

#[test]
fn gate_output_snapshots() {
    let repo = helix_repo();
    reviewer_off(&repo);
    repo.write(format!("{SESSION}/output/concept.md"), CONCEPT);
    let plan = format!("{SESSION}/output/phases.yaml");
    repo.write(
        &plan,
        PLAN.replace(
            "semantic: false",
            "semantic: auto\n      concept: output/concept.md",
        ),
    );
    repo.write(
        format!("{SESSION}/output/approval-result.json"),
        json!({"result": "approved", "confidence": 0.93, "findings": [], "recommendations": []})
            .to_string(),
    );
    super::snapshots::check_run(
        "gate_phase_consultant",
        repo.path(),
        &["gate", "--phases", &plan, "--phase", "consultant"],
    );
    super::snapshots::check_run(
        "gate_phase_approval",
        repo.path(),
        &["gate", "--phases", &plan, "--phase", "approval"],
    );
    assert!(Path::new(&repo.path().join(&plan)).exists());
}

/// `--semantic true` says whether the reviewer really ran: not when the type is
/// switched off (an error: it was asked for), and "started, but gave no
/// verdict" when the reviewer crashed.
#[test]
fn adr_complete_semantic_true_never_claims_a_review_that_did_not_happen() {
    let repo = helix_repo();
    let args = [
        "adr_complete",
        "--file",
        "output/ADR-*.md",
        "--semantic",
        "true",
    ];
    reviewer_off(&repo);
    let (exit, doc) = gate(&repo, SESSION, &args);
    assert_eq!(exit, 2, "{doc:#}");
    let semantic = doc["details"]["semantic"].as_str().unwrap();
    assert!(semantic.starts_with("not run:"), "{doc:#}");
    let crashing = fake_reviewer(repo.path(), "", "exit 3\n");
    configure(&repo, &crashing, 30);
    let (_, doc) = gate(&repo, SESSION, &args);
    let semantic = doc["details"]["semantic"].as_str().unwrap();
    assert!(
        semantic.starts_with("started, but gave no verdict"),
        "{doc:#}"
    );
}

/// An output that is a link to nothing or a folder with nothing in it was never
/// written: `files_exist` fails on both and passes the file and the full folder.
#[test]
#[cfg(unix)]
fn files_exist_fails_a_dangling_link_and_an_empty_directory() {
    let repo = helix_repo();
    reviewer_off(&repo);
    let out = format!("{SESSION}/output");
    repo.write(format!("{out}/real.md"), "x");
    repo.write(format!("{out}/full/a.md"), "x");
    std::fs::create_dir(repo.join(format!("{out}/empty"))).unwrap();
    std::os::unix::fs::symlink("gone.md", repo.join(format!("{out}/dangling.md"))).unwrap();
    let plan = format!("{out}/phases.yaml");
    repo.write(
        &plan,
        "phases:\n  - id: check\n    quality_gate:\n      type: files_exist\n      files: [output/real.md, output/full, output/empty, output/dangling.md]\n",
    );
    let (exit, doc) = gate(&repo, ".", &["--phases", &plan, "--phase", "check"]);
    assert_eq!(exit, 1, "{doc:#}");
    let text = doc.to_string();
    assert!(text.contains("2 of 4 file(s) missing"), "{doc:#}");
    assert!(
        text.contains(&format!("{out}/dangling.md does not exist (dangling link)")),
        "{doc:#}"
    );
    assert!(
        text.contains(&format!("{out}/empty is an empty directory")),
        "{doc:#}"
    );
    assert!(
        !text.contains("real.md does not") && !text.contains("full is"),
        "{doc:#}"
    );
}

/// `helix-gate <args>` in the repository root as the user whose state folder is `state`
/// (their keys and trust records), named `user`: (exit, stdout, stderr).
fn as_user(repo: &ScratchRepo, state: &Path, user: &str, args: &[&str]) -> (i32, String, String) {
    let home = tempfile::tempdir().unwrap();
    let out = isolated(bin(), repo.path())
        .args(args)
        .env("HOME", home.path())
        .env("USER", user)
        .env("HELIX_GATE_STATE_DIR", state)
        .output()
        .unwrap();
    (code(&out), stdout(&out), stderr(&out))
}

/// Issue 28, point 5: a result user A signed verifies for user B (another account,
/// another state folder, no shared secret) once A's public key is in approvals/keys/
/// and B trusts the repository's configuration as it is; a changed configuration (a key
/// added) asks B again, a tampered result and an unknown key fail, naming why.
#[test]
#[cfg(unix)]
fn approval_passed_verifies_a_teammates_result_by_a_public_key_the_person_trusted() {
    let repo = helix_repo();
    reviewer(&repo, &approved(0.9));
    let adr = format!("{SESSION}/output/ADR-cache.md");
    let out = format!("{SESSION}/approvals/adr/output/approval-result.json");
    let gate = [
        "gate",
        "approval_passed",
        "--result-file",
        &out,
        "--files",
        &adr,
    ];
    let ann = state_dir(repo.path());
    let bob = tempfile::tempdir().unwrap();
    let bob = bob.path();
    assert_eq!(approve_out(&repo, &adr, &out, None), 0);
    let written: Value =
        serde_json::from_str(&std::fs::read_to_string(repo.path().join(&out)).unwrap()).unwrap();
    assert_eq!(written["signature"]["algorithm"], "ed25519", "{written:#}");

    let (exit, text, err) = as_user(&repo, &ann, "Ann Lee", &["key", "export"]);
    assert_eq!(exit, 0, "{text}{err}");
    assert!(
        text.starts_with("wrote approvals/keys/ann-lee.pub (ed25519 key "),
        "{text}"
    );
    let key_file = std::fs::read_to_string(repo.path().join("approvals/keys/ann-lee.pub")).unwrap();
    assert!(key_file.starts_with("ed25519 "), "{key_file}");
    // The secret stays in Ann's state folder, private; only the public half is shared.
    let seed = std::fs::read(ann.join("ed25519")).unwrap();
    assert_eq!(seed.len(), 32);
    let seed = seed.iter().fold(String::new(), |mut hex, b| {
        use std::fmt::Write as _;
        let _ = write!(hex, "{b:02x}");
        hex
    });
    assert!(!key_file.contains(&seed), "{key_file}");
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(ann.join("ed25519"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);
    // Ann's own key verifies without any consent.
    let (exit, text, err) = as_user(&repo, &ann, "ann", &gate);
    assert_eq!(exit, 0, "{text}{err}");

    // Bob has not trusted the repository: the key file verifies nothing, and he is told why.
    let (exit, text, _) = as_user(&repo, bob, "bob", &gate);
    assert_eq!(exit, 1, "{text}");
    let doc: Value = serde_json::from_str(&text).unwrap();
    let message = doc["message"].as_str().unwrap();
    assert!(
        message.contains("from approvals/keys/ann-lee.pub, which verifies nothing yet")
            && message.contains("has not trusted")
            && message.contains("helix-gate trust"),
        "{message}"
    );
    let (exit, text, err) = as_user(&repo, bob, "bob", &["trust"]);
    assert_eq!(exit, 0, "{text}{err}");
    assert!(
        text.contains("approvals/keys/ann-lee.pub (ed25519 key "),
        "{text}"
    );
    let (exit, text, err) = as_user(&repo, bob, "bob", &gate);
    assert_eq!(exit, 0, "{text}{err}");

    // Tampered after signing: fails for Bob too.
    let mut raised = written.clone();
    raised["confidence"] = json!(1.0);
    repo.write(&out, raised.to_string());
    let (exit, text, _) = as_user(&repo, bob, "bob", &gate);
    assert_eq!(exit, 1, "{text}");
    assert!(text.contains("does not match its content"), "{text}");
    repo.write(&out, written.to_string());
    assert_eq!(as_user(&repo, bob, "bob", &gate).0, 0);

    // A result by Carol, whose key nobody exported: foreign.
    let carol = tempfile::tempdir().unwrap();
    assert_eq!(approve_out(&repo, &adr, &out, Some(carol.path())), 0);
    let (exit, text, _) = as_user(&repo, bob, "bob", &gate);
    assert_eq!(exit, 1, "{text}");
    assert!(
        text.contains("not signed by helix-gate with this user's key"),
        "{text}"
    );
    assert!(text.contains("approvals/keys"), "{text}");

    // Carol's key added to approvals/keys/: it verifies nothing until Bob trusts again,
    // and Ann's key waits for that too.
    let (exit, text, err) = as_user(&repo, carol.path(), "carol", &["key", "export"]);
    assert_eq!(exit, 0, "{text}{err}");
    let (exit, text, _) = as_user(&repo, bob, "bob", &gate);
    assert_eq!(exit, 1, "{text}");
    assert!(
        text.contains("approvals/keys/carol.pub") && text.contains("changed since"),
        "{text}"
    );
    assert_eq!(as_user(&repo, bob, "bob", &["trust"]).0, 0);
    let (exit, text, err) = as_user(&repo, bob, "bob", &gate);
    assert_eq!(exit, 0, "{text}{err}");
}

/// `depends_on` in `gate`: a phase whose dependency fails (its gates fail when run
/// now, transitively) is blocked (exit 1), the failing phase named, and its own gates
/// are not run. A dependency's reviewer gates are never started again: only a cached
/// approved verdict for the current content counts. Cycles end.
#[test]
fn a_phase_whose_dependency_fails_is_blocked() {
    let repo = helix_repo();
    reviewer(&repo, &approved(0.9));
    let plan = format!("{SESSION}/output/phases.yaml");
    repo.write(
        &plan,
        "phases:
  - id: write
    output: [output/ADR-missing.md]
    quality_gate: {type: files_exist}
  - id: check
    depends_on: write
    quality_gate: {type: files_exist, files: [output/ADR-cache.md]}
  - id: later
    depends_on: [check]
  - id: approve
    type: approval
    input: [output/ADR-cache.md]
  - id: build
    depends_on: approve
    quality_gate: {type: files_exist, files: [output/ADR-cache.md]}
  - id: signed
    output: [output/approval-result.json]
    quality_gate: {type: approval_passed, result_file: output/approval-result.json}
  - id: after-signed
    depends_on: signed
  - id: loop-a
    depends_on: loop-b
    quality_gate: {type: files_exist, files: [output/ADR-cache.md]}
  - id: loop-b
    depends_on: loop-a
    quality_gate: {type: files_exist, files: [output/ADR-cache.md]}
",
    );
    let run = |phase: &str| gate(&repo, ".", &["--phases", &plan, "--phase", phase]);
    let (exit, doc) = run("check");
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["passed"], false);
    assert_eq!(doc["blocked_by"][0]["phase"], "write", "{doc:#}");
    assert!(message(&doc).contains("blocked"), "{doc:#}");
    assert!(message(&doc).contains("`write`"), "{doc:#}");
    assert_eq!(
        doc["gates"],
        json!([]),
        "its own gates are not run: {doc:#}"
    );
    // Transitively, and a phase with no gate is not "passed" either.
    let (exit, doc) = run("later");
    assert_eq!(exit, 1, "{doc:#}");
    assert!(message(&doc).contains("`check`"), "{doc:#}");
    assert!(!message(&doc).contains("no quality gate"), "{doc:#}");
    // The case: the approval phase before has no (signed) result.
    let (exit, doc) = run("after-signed");
    assert_eq!(exit, 1, "{doc:#}");
    assert!(message(&doc).contains("`signed`"), "{doc:#}");

    // The approval phase never ran: blocked, and the reviewer is not started for it.
    let runs = repo.path().join(".helix-gate/approvals");
    let (exit, doc) = run("build");
    assert_eq!(exit, 1, "{doc:#}");
    assert!(message(&doc).contains("`approve`"), "{doc:#}");
    assert!(!runs.exists(), "no reviewer was started: {doc:#}");
    let (exit, doc) = run("approve");
    assert_eq!(exit, 0, "{doc:#}");
    let (exit, doc) = run("build");
    assert_eq!(exit, 0, "its verdict is cached now: {doc:#}");
    assert_eq!(doc["passed"], true);

    repo.write(format!("{SESSION}/output/ADR-missing.md"), good_adr());
    let (exit, doc) = run("check");
    assert_eq!(exit, 0, "{doc:#}");
    let (exit, doc) = run("later");
    assert_eq!(exit, 0, "{doc:#}");
    assert!(message(&doc).contains("no quality gate"), "{doc:#}");
    // A cycle ends, and its phases' own gates decide.
    let (exit, doc) = run("loop-a");
    assert_eq!(exit, 0, "{doc:#}");
}

/// Approval gates that name the consultant's draft by its name and by a glob.
const FINALIZED_PLAN: &str = "phases:
  - id: review
    type: approval
    input: [output/ADR-cache.md]
  - id: named
    quality_gate:
      type: approval
      files: [output/ADR-cache.md]
  - id: passed
    quality_gate:
      type: approval_passed
      result_file: approvals/adr/output/approval-result.json
      files: [output/ADR-cache.md]
  - id: passed-glob
    quality_gate:
      type: approval_passed
      result_file: approvals/adr/output/approval-result.json
      files: [output/ADR-*.md]
";

/// Seed 004's step inside the session: `finalize` moves the approved draft before
/// the plan's gates run. An approval gate that names the draft judges the ADR it
/// became (no `phase-input-unmatched`), and `approval_passed` accepts the signed
/// result for the draft while the ADR is exactly what finalize made of it (the
/// approval finalize carried over proves it); an edit after the finalize fails.
#[test]
fn the_plans_gates_survive_finalize() {
    let repo = helix_repo();
    repo.write(
        "adr/INDEX.md",
        "# ADR Index\n\n| Nr | Titel | Status | Beschreibung |\n|----|-------|--------|--------------|\n",
    );
    reviewer(&repo, &approved(0.9));
    let draft = format!("{SESSION}/output/ADR-cache.md");
    repo.write(
        &draft,
        good_adr()
            .replace("adr_id: \"001\"", "adr_id: \"XXX\"")
            .replace("# ADR-001:", "# ADR-XXX:"),
    );
    let out = format!("{SESSION}/approvals/adr/output/approval-result.json");
    let plan = format!("{SESSION}/output/phases.yaml");
    repo.write(&plan, FINALIZED_PLAN);
    let run = |phase: &str| {
        gate(
            &repo,
            SESSION,
            &["--phases", "output/phases.yaml", "--phase", phase],
        )
    };
    assert_eq!(approve_out(&repo, &draft, &out, None), 0);
    for phase in ["review", "named", "passed", "passed-glob"] {
        let (exit, doc) = run(phase);
        assert_eq!(exit, 0, "{phase} before finalize: {doc:#}");
    }
    // With this user's state (its signing key): finalize carries the approval over.
    let done = isolated(bin(), repo.path().join(SESSION))
        .args(["finalize", "output/ADR-cache.md"])
        .env("HELIX_GATE_STATE_DIR", state_dir(repo.path()))
        .output()
        .unwrap();
    assert!(
        stderr(&done).contains("carried over"),
        "{}{}",
        stdout(&done),
        stderr(&done)
    );
    assert_eq!(code(&done), 0, "{}{}", stdout(&done), stderr(&done));
    let adr = "adr/001-cache-parsed-rules-between-hook-calls.md";
    assert!(repo.path().join(adr).is_file());
    for phase in ["review", "named"] {
        let (exit, doc) = run(phase);
        assert_eq!(exit, 0, "{phase} after finalize: {doc:#}");
        assert_eq!(doc["gates"][0]["details"]["files"], json!([adr]), "{doc:#}");
    }
    for phase in ["passed", "passed-glob"] {
        let (exit, doc) = run(phase);
        assert_eq!(exit, 0, "{phase} after finalize: {doc:#}");
        let text = doc["gates"][0]["message"].as_str().unwrap();
        assert!(text.contains(&format!("finalized into {adr}")), "{doc:#}");
    }
    // `validate` of the plan reports no error either.
    let checked = crate::support::cli::run(repo.path(), &["validate", "--format", "json", &plan]);
    assert_eq!(
        code(&checked),
        0,
        "{}{}",
        stdout(&checked),
        stderr(&checked)
    );
    // An edit of the ADR after the finalize is no longer what was judged.
    let finalized = repo.read(adr).unwrap();
    repo.write(adr, format!("{finalized}\nUnreviewed line.\n"));
    let (exit, doc) = run("passed");
    assert_eq!(exit, 1, "{doc:#}");
    assert!(
        doc["gates"][0]["message"]
            .as_str()
            .unwrap()
            .contains("stale"),
        "{doc:#}"
    );
    repo.write(adr, &finalized);
    let (exit, doc) = run("passed");
    assert_eq!(exit, 0, "{doc:#}");
    // A planted record cannot lead the draft's result to another ADR.
    repo.write(
        "adr/002-other.md",
        good_adr().replace("adr_id: \"001\"", "adr_id: \"002\""),
    );
    repo.write(
        ".helix-gate/finalized.jsonl",
        format!("{{\"time\": \"t\", \"from\": \"{draft}\", \"to\": \"adr/002-other.md\"}}\n"),
    );
    let (exit, doc) = run("passed");
    assert_eq!(exit, 1, "{doc:#}");
}

/// `validate` of a plan and `gate --phase` agree on the plan checks that need the
/// project: an approval input that matches no file (and that no phase of the plan
/// writes) and an unknown approval type are errors in both; an input another phase
/// lists among its outputs is in neither.
#[test]
fn validate_and_gate_agree_on_the_plans_project_checks() {
    let repo = helix_repo();
    reviewer_off(&repo);
    let plan = format!("{SESSION}/output/phases.yaml");
    let validate = |repo: &ScratchRepo| {
        let out = crate::support::cli::run(repo.path(), &["validate", "--format", "json", &plan]);
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
        let rules: Vec<String> = doc["files"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|r| r["findings"].as_array().cloned().unwrap_or_default())
            .map(|f| f["rule"].as_str().unwrap_or_default().to_owned())
            .collect();
        (code(&out), rules, stdout(&out))
    };
    repo.write(
        &plan,
        SECURITY_PLAN.replace("approval_type: security", "approval_type: adr"),
    );
    let (exit, rules, text) = validate(&repo);
    assert_eq!(exit, 1, "{text}");
    assert_eq!(rules, ["phase-input-unmatched"], "{text}");
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &["--phases", "output/phases.yaml", "--phase", "security"],
    );
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(
        doc["findings"][0]["rule"], "phase-input-unmatched",
        "{doc:#}"
    );

    // Written by an earlier phase: no plan finding in either (the gate finds no file).
    repo.write(
        &plan,
        format!(
            "{}  - id: build\n    output: [new/src/critical/auth.py]\n",
            SECURITY_PLAN.replace("approval_type: security", "approval_type: adr")
        ),
    );
    let (exit, rules, text) = validate(&repo);
    assert_eq!((exit, rules.len()), (0, 0), "{text}");
    let (exit, doc) = gate(
        &repo,
        SESSION,
        &["--phases", "output/phases.yaml", "--phase", "security"],
    );
    assert_ne!(exit, 0, "{doc:#}");
    assert_eq!(doc["findings"], json!([]), "{doc:#}");

    // An unknown approval type.
    repo.write(
        &plan,
        SECURITY_PLAN.replace("approval_type: security", "approval_type: securty"),
    );
    let (exit, rules, text) = validate(&repo);
    assert_eq!(exit, 1, "{text}");
    assert!(
        rules.contains(&"phase-approval-type-unknown".to_owned()),
        "{text}"
    );
}

/// The lines from `Usage:` to the first blank line.
fn usage_block(text: &str) -> String {
    text.lines()
        .skip_while(|line| !line.starts_with("Usage:"))
        .take_while(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Without a gate type and without `--phases`, the error names both ways and shows the
/// same usage as `--help` (clap's own error usage called the optional gate type required).
#[test]
fn gate_without_arguments_names_what_is_needed_with_the_usage_of_help() {
    let help = run(&manifest_dir(), &["gate", "--help"]);
    assert_eq!(code(&help), 0, "{}", stderr(&help));
    let help_usage = usage_block(&stdout(&help));
    assert_eq!(
        help_usage,
        "Usage: helix-gate gate [OPTIONS] <GATE_TYPE>\n       \
         helix-gate gate [OPTIONS] --phases <FILE> --phase <ID>",
        "{}",
        stdout(&help)
    );
    let short = run(&manifest_dir(), &["gate", "-h"]);
    assert_eq!(usage_block(&stdout(&short)), help_usage);
    for args in [&["gate"][..], &["gate", "--format", "human"]] {
        let out = run(&manifest_dir(), args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains("required arguments were not provided:\n  <GATE_TYPE|--phases <FILE>>"),
            "{args:?}: {err}"
        );
        assert_eq!(usage_block(&err), help_usage, "{args:?}: {err}");
    }
    // `--phases` alone: the error names the `--phase` it needs.
    let out = run(&manifest_dir(), &["gate", "--phases", "plan.yaml"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--phase <ID>"), "{}", stderr(&out));
    assert_eq!(usage_block(&stderr(&out)), help_usage);
}
