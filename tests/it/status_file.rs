//! `step_marker.status_file`: at a Stop with a valid STEP marker, and when the
//! fallback marker is applied, the step and `updated_at` go into the session's
//! status JSON, every other key kept in order; a file that is not a JSON object
//! is left alone and noted (stderr and decision log), never a block; unset, no
//! file is touched. The hook is driven through stdin in a temporary git repository.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::Hook;
use crate::support::repo::ScratchRepo;

const SESSION: &str = "projects/sessions/s1";
const STATUS: &str = "projects/sessions/s1/status.json";

/// A repository with the consultant's session folder and `config` as
/// config/helix-gate.yaml (the reviewer off).
fn repo(config: &str) -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo.write("config/helix-gate.yaml", config);
    repo.write(format!("{SESSION}/output/response.md"), "Antwort\n");
    repo.commit_all("start");
    repo
}

const ON: &str = "hook: {budget: 1}\nstep_marker: {status_file: status.json}\n";

/// A Stop of the session working in its folder with `last` as its answer:
/// (answer, stderr).
fn stop(repo: &ScratchRepo, last: &str) -> (Option<Value>, String) {
    let session = repo.join(SESSION);
    let event = json!({"session_id": "s1", "cwd": session, "hook_event_name": "Stop",
        "stop_hook_active": false, "last_assistant_message": last, "background_tasks": []});
    let run = Hook::new(&session).event(&event);
    let answer = run.answer();
    (answer, run.stderr)
}

fn status(repo: &ScratchRepo) -> Value {
    serde_json::from_str(&repo.read(STATUS).unwrap()).unwrap()
}

fn notes(root: &Path) -> Vec<String> {
    std::fs::read_to_string(root.join(".helix-gate/log.jsonl"))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|l| l["note"].as_str().map(str::to_owned))
        .collect()
}

fn keys(value: &Value) -> Vec<String> {
    value.as_object().unwrap().keys().cloned().collect()
}

#[test]
fn a_valid_marker_writes_the_step_and_keeps_every_other_key_in_order() {
    let repo = repo(ON);
    repo.write(
        STATUS,
        "{\"session_id\": \"s1\", \"step\": \"what\", \"status\": \"discussing\", \"extra\": {\"a\": [1, 2]}}\n",
    );
    let (answer, _) = stop(
        &repo,
        "ADR-040 wurde erstellt.\n\n<!-- STEP: generate -->\n",
    );
    assert_eq!(answer, None, "a valid marker never blocks");
    let status = status(&repo);
    assert_eq!(
        keys(&status),
        ["session_id", "step", "status", "extra", "updated_at"]
    );
    assert_eq!(status["step"], "generate");
    assert_eq!(status["status"], "discussing");
    assert_eq!(status["extra"], json!({"a": [1, 2]}));
    let updated = status["updated_at"].as_str().unwrap();
    assert!(
        updated.len() >= 20 && updated.as_bytes()[10] == b'T' && updated.ends_with('Z'),
        "RFC 3339: {updated}"
    );
    assert!(
        notes(repo.path())
            .iter()
            .any(|n| n.starts_with(&format!("status file {STATUS}: step `generate`"))),
        "{:?}",
        notes(repo.path())
    );
    // The next valid marker moves it on.
    stop(&repo, "Warum?\n<!-- STEP: why -->");
    assert_eq!(self::status(&repo)["step"], "why");
}

#[test]
fn the_applied_fallback_writes_the_fallback_step() {
    let repo = repo(ON);
    repo.write(STATUS, "{\"status\": \"discussing\"}");
    let (answer, _) = stop(&repo, "Was meinst du?");
    assert_eq!(answer.unwrap()["decision"], "block", "attempt 1/1");
    assert_eq!(keys(&status(&repo)), ["status"], "nothing yet");
    let (answer, _) = stop(&repo, "Was meinst du?");
    let message = answer.unwrap()["systemMessage"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        message.starts_with("helix-gate escalation: step-marker output/response.md: "),
        "{message}"
    );
    assert_eq!(
        repo.read(format!("{SESSION}/output/response.md")).unwrap(),
        "Antwort\n\n\n<!-- STEP: what -->\n"
    );
    let status = status(&repo);
    assert_eq!(keys(&status), ["status", "step", "updated_at"]);
    assert_eq!(status["step"], "what");
}

#[test]
fn a_status_file_that_is_no_json_object_is_left_alone_and_noted() {
    for (content, why) in [
        ("[1,2]", "is not a JSON object"),
        ("not json", "is not valid JSON"),
    ] {
        let repo = repo(ON);
        repo.write(STATUS, content);
        let (answer, err) = stop(&repo, "Fertig.\n<!-- STEP: done -->");
        assert_eq!(answer, None, "never a block");
        assert_eq!(repo.read(STATUS).unwrap(), content);
        let note = format!("status file {STATUS} {why}");
        assert!(err.contains(&note), "{err}");
        assert!(
            notes(repo.path()).iter().any(|n| n.starts_with(&note)),
            "{:?}",
            notes(repo.path())
        );
    }
    // A folder where the file should be: not a regular file.
    let repo = repo(ON);
    std::fs::create_dir_all(repo.join(STATUS)).unwrap();
    let (answer, err) = stop(&repo, "Fertig.\n<!-- STEP: done -->");
    assert_eq!(answer, None);
    assert!(err.contains("not a regular file"), "{err}");
}

#[test]
#[cfg(unix)]
fn a_status_file_linked_out_of_the_project_is_not_written() {
    let repo = repo(ON);
    let outside = tempfile::tempdir().unwrap();
    let target = write(outside.path(), "status.json", "{\"step\": \"what\"}");
    std::os::unix::fs::symlink(&target, repo.join(STATUS)).unwrap();
    let (answer, err) = stop(&repo, "Fertig.\n<!-- STEP: done -->");
    assert_eq!(answer, None);
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "{\"step\": \"what\"}"
    );
    assert!(err.contains("leads outside the project"), "{err}");
}

#[test]
fn unset_or_without_a_file_nothing_is_written() {
    let repo = repo("hook: {budget: 1}\n");
    repo.write(STATUS, "{\"status\": \"discussing\"}");
    stop(&repo, "Fertig.\n<!-- STEP: done -->");
    assert_eq!(repo.read(STATUS).unwrap(), "{\"status\": \"discussing\"}");
    // Set, but the session has no status file: none is created.
    let repo = self::repo(ON);
    let (answer, err) = stop(&repo, "Fertig.\n<!-- STEP: done -->");
    assert_eq!(answer, None);
    assert!(repo.read(STATUS).is_none());
    assert!(!err.contains("status file"), "{err}");
}
