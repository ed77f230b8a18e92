//! The CI recipes: `action.yml` (composite GitHub Action) declares every input it uses and
//! uses every input it declares, its validate script runs (with the real binary) the way
//! a runner would run it, and the example workflow and GitLab snippet in `examples/ci/`,
//! which the book shows verbatim (docs/src/output-formats.md, "In CI"), use it correctly.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::support::cli::{good_adr, isolated, manifest_dir, path_with_bin, scratch_repo, write};

fn yaml(rel: &str) -> Value {
    let text = std::fs::read_to_string(manifest_dir().join(rel)).unwrap();
    yaml_serde::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn action() -> Value {
    yaml("action.yml")
}

fn steps(action: &Value) -> &Vec<Value> {
    action["runs"]["steps"].as_array().unwrap()
}

/// Every `inputs.NAME` in `text`.
fn referenced_inputs(text: &str) -> BTreeSet<String> {
    text.match_indices("inputs.")
        .map(|(at, _)| {
            text[at + "inputs.".len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
                .collect()
        })
        .collect()
}

#[test]
fn action_declares_exactly_the_inputs_it_uses() {
    let action = action();
    assert_eq!(action["runs"]["using"], "composite");
    let declared: BTreeSet<String> = action["inputs"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    for required in ["paths", "args", "sarif-file", "mode"] {
        assert!(declared.contains(required), "input {required} missing");
    }
    let text = std::fs::read_to_string(manifest_dir().join("action.yml")).unwrap();
    // Comments may mention inputs in prose; only the YAML's values count.
    let used = referenced_inputs(&serde_json::to_string(&action["runs"]).unwrap());
    let used_outputs = referenced_inputs(&serde_json::to_string(&action["outputs"]).unwrap());
    assert!(used_outputs.is_empty(), "{used_outputs:?}");
    assert_eq!(used, declared, "used vs declared inputs\n{text}");
    for (name, input) in action["inputs"].as_object().unwrap() {
        assert!(
            input["description"].is_string(),
            "input {name} has no description"
        );
    }
}

#[test]
fn action_steps_run_bash_without_expressions_in_scripts_and_upload_sarif() {
    let action = action();
    for step in steps(&action) {
        if let Some(script) = step["run"].as_str() {
            assert_eq!(step["shell"], "bash", "{step}");
            // An expression inside a script is pasted into it before bash parses it:
            // inputs reach the scripts through `env` only.
            assert!(!script.contains("${{"), "expression in a script: {script}");
        }
    }
    let upload = steps(&action)
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
        })
        .expect("an upload-sarif step");
    assert_eq!(upload["with"]["sarif_file"], "${{ inputs.sarif-file }}");
}

/// The `validate` step's script run by bash as the runner would, with helix-gate on PATH.
fn run_validate_step(repo: &Path, env: &[(&str, &str)]) -> (i32, String, String, String) {
    let action = action();
    let step = steps(&action)
        .iter()
        .find(|s| s["id"] == "validate")
        .unwrap();
    let script = step["run"].as_str().unwrap();
    let output_file = repo.join("github-output");
    std::fs::write(&output_file, "").unwrap();
    let mut cmd = isolated("bash", repo);
    cmd.args([
        "--noprofile",
        "--norc",
        "-e",
        "-o",
        "pipefail",
        "-c",
        script,
    ])
    .env("PATH", path_with_bin())
    .env("GITHUB_OUTPUT", &output_file);
    for (key, value) in [
        ("HELIX_GATE_PATHS", ""),
        ("HELIX_GATE_ARGS", ""),
        ("HELIX_GATE_MODE", "sarif"),
        ("HELIX_GATE_SARIF_FILE", "helix-gate.sarif"),
    ] {
        cmd.env(key, value);
    }
    for (key, value) in env {
        cmd.env(key, value);
    }
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        std::fs::read_to_string(&output_file).unwrap(),
    )
}

fn repo_with_a_bad_adr() -> tempfile::TempDir {
    let dir = scratch_repo();
    write(dir.path(), "src/lib.rs", "");
    write(dir.path(), "adr/001-good.md", good_adr());
    let bad = good_adr()
        .replace("adr_id: \"001\"", "adr_id: \"002\"")
        .replace("    - src/lib.rs", "    - src/gone.rs")
        .replace("# ADR-001", "# ADR-002");
    write(dir.path(), "adr/002-bad.md", bad);
    dir
}

#[test]
fn validate_step_writes_sarif_and_records_the_exit_code() {
    let dir = repo_with_a_bad_adr();
    let (code, _, stderr, outputs) = run_validate_step(dir.path(), &[("HELIX_GATE_PATHS", "adr/")]);
    // Error findings do not stop the step: the upload comes first, then "Fail on error findings".
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(outputs, "exit-code=1\n");
    let sarif: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("helix-gate.sarif")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        sarif["runs"][0]["results"][0]["ruleId"],
        "files-modify-missing"
    );
}

#[test]
fn validate_step_annotates_in_annotations_mode() {
    let dir = repo_with_a_bad_adr();
    let (code, stdout, stderr, outputs) = run_validate_step(
        dir.path(),
        &[
            ("HELIX_GATE_MODE", "annotations"),
            ("HELIX_GATE_PATHS", "adr/002-bad.md adr/001-good.md"),
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(outputs, "exit-code=1\n");
    assert!(
        stdout.starts_with("::error file=adr/002-bad.md,line="),
        "{stdout}"
    );
    assert!(!dir.path().join("helix-gate.sarif").exists());
}

#[test]
fn validate_step_fails_when_helix_gate_cannot_check_and_never_runs_inputs() {
    let dir = repo_with_a_bad_adr();
    let (code, stdout, _, _) = run_validate_step(dir.path(), &[("HELIX_GATE_MODE", "shrug")]);
    assert_eq!(code, 2);
    assert!(stdout.contains("unknown mode 'shrug'"), "{stdout}");

    // An argument is an argument, not shell code: helix-gate refuses it (exit 2), nothing runs.
    let (code, _, _, outputs) = run_validate_step(
        dir.path(),
        &[("HELIX_GATE_ARGS", "$(touch pwned) `touch pwned2` *")],
    );
    assert_eq!(code, 2);
    assert_eq!(outputs, "exit-code=2\n");
    assert!(!dir.path().join("pwned").exists() && !dir.path().join("pwned2").exists());
}

#[test]
fn check_step_annotates_a_pull_requests_code_and_writes_the_comment() {
    use crate::support::repo::{ScratchRepo, git};
    // origin: main with an accepted ADR; the runner's checkout: a clone on a branch that
    // breaks its rule.
    let origin = ScratchRepo::empty();
    origin.write(
        "adr/014-gateway.md",
        super::check::adr("Accepted", super::check::NO_HTTP),
    );
    origin.write("src/app.py", "import os\n");
    origin.commit_all("base");
    let base = origin.base();
    git(
        &base,
        &["clone", "-q", origin.path().to_str().unwrap(), "checkout"],
    );
    let clone = base.join("checkout");
    git(&clone, &["checkout", "-q", "-b", "feature"]);
    write(&clone, "src/api.py", "import requests\n");
    git(&clone, &["add", "-A"]);
    git(&clone, &["commit", "-q", "--no-verify", "-m", "api"]);

    let action = action();
    let script = steps(&action)
        .iter()
        .find(|s| s["id"] == "check")
        .and_then(|s| s["run"].as_str())
        .unwrap();
    let output_file = base.join("github-output");
    let comment = base.join("comment.md");
    std::fs::write(&output_file, "").unwrap();
    let out = isolated("bash", &clone)
        .args([
            "--noprofile",
            "--norc",
            "-e",
            "-o",
            "pipefail",
            "-c",
            script,
        ])
        .env("PATH", path_with_bin())
        .env("GITHUB_OUTPUT", &output_file)
        .env("HELIX_GATE_BASE_REF", "main")
        .env("HELIX_GATE_CHECK_CODE", "true")
        .env("HELIX_GATE_PR_COMMENT", "true")
        .env("HELIX_GATE_COMMENT_FILE", &comment)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A broken rule does not stop the step: "Fail on error findings" comes after the comment.
    assert_eq!(out.status.code(), Some(0), "{stdout}{stderr}");
    assert_eq!(
        std::fs::read_to_string(&output_file).unwrap(),
        "exit-code=1\n"
    );
    assert!(
        stdout.starts_with("::error file=src/api.py,line=1,title=ADR-014/no-direct-http::"),
        "{stdout}"
    );
    let comment = std::fs::read_to_string(&comment).unwrap();
    assert!(
        comment.starts_with("<!-- helix-gate:check -->\n## Decisions governing this change\n"),
        "{comment}"
    );
    assert!(comment.contains("compared with `origin/main`"), "{comment}");
}

#[test]
fn example_workflow_passes_only_declared_inputs() {
    let declared: BTreeSet<String> = action()["inputs"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .collect();
    let workflow = yaml("examples/ci/github-workflow.yml");
    let steps = workflow["jobs"]["helix-gate"]["steps"].as_array().unwrap();
    let step = steps
        .iter()
        .find(|s| s["uses"].as_str().is_some_and(|u| u.contains("helix-gate")))
        .unwrap();
    for key in step["with"].as_object().unwrap().keys() {
        assert!(declared.contains(key), "undeclared input {key}");
    }
    assert_eq!(
        workflow["jobs"]["helix-gate"]["permissions"]["security-events"],
        "write"
    );
}

#[test]
fn gitlab_snippet_publishes_the_reports_it_writes() {
    let job = yaml("examples/ci/gitlab-ci.yml")["helix-gate"].clone();
    let script = job["script"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line.as_str().unwrap())
        .collect::<Vec<_>>()
        .join("\n");
    let reports = &job["artifacts"]["reports"];
    let quality = reports["codequality"].as_str().unwrap();
    let junit = reports["junit"].as_str().unwrap();
    assert!(
        script.contains(&format!("--format gitlab adr/ > {quality}")),
        "{script}"
    );
    assert!(
        script.contains(&format!("--format junit adr/ > {junit}")),
        "{script}"
    );
    assert_eq!(job["artifacts"]["when"], "always");
}

#[test]
fn the_book_shows_the_ci_examples_verbatim() {
    let chapter = "docs/src/output-formats.md";
    let book = std::fs::read_to_string(manifest_dir().join(chapter)).unwrap();
    for example in [
        "examples/ci/github-workflow.yml",
        "examples/ci/gitlab-ci.yml",
    ] {
        let text = std::fs::read_to_string(manifest_dir().join(example)).unwrap();
        assert!(
            book.contains(&format!("```yaml\n{text}```")),
            "{chapter} (## In CI) does not show {example} as it is"
        );
    }
}
