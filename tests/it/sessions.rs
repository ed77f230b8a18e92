//! Sessions started below the repository root (claude-code-hooks.md, section 2.4):
//! the hook registered at user scope reaches them, finds the repository above the
//! session folder, and stays silent in repositories that did not opt in; the STEP
//! marker is scoped to session folders and its fallback file lives there.
//! End to end with the real Claude Code client against the fake Messages API,
//! plus the hook's silence driven through stdin.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::claude::{ClaudeRun, hook_blocking_errors, require_claude, stop_hook_feedback};
use crate::support::cli::*;
use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
use crate::support::hook::{Hook, HookRun};
use crate::support::repo::ScratchRepo;

/// Turns the reviewer off: these tests are about reaching the session.
const NO_APPROVAL: &str = "approvals:\n  adr:\n    enabled: false\n";
const SESSION: &str = "projects/sessions/s1";

/// helix-gate with `HOME` set (`install --scope user` writes `~/.claude/settings.json`).
fn run_home(cwd: &Path, home: &Path, args: &[&str]) -> Output {
    isolated(bin(), cwd)
        .args(args)
        .env("HOME", home)
        .output()
        .unwrap()
}

/// A temporary HOME with helix-gate registered at user scope.
fn user_home() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let out = run_home(
        home.path(),
        home.path(),
        &["install", "claude", "--scope", "user"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let settings = std::fs::read_to_string(home.path().join(".claude/settings.json")).unwrap();
    assert!(settings.contains(" hook --scope user"), "{settings}");
    home
}

/// A HELIX-like repository: the fixture's dependency, the reviewer off and a
/// session folder; `config` (when given) is its config/helix-gate.yaml.
fn helix_repo(config: Option<&str>) -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write("config/approvals.yaml", NO_APPROVAL);
    if let Some(config) = config {
        repo.write("config/helix-gate.yaml", config);
    }
    repo.write(format!("{SESSION}/notes.md"), "session notes\n");
    repo.commit_all("helix layout");
    repo
}

fn bad_adr() -> String {
    good_adr().replace("## Dokumentation", "## Notizen")
}

fn log(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join(".helix-gate/log.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_user_scope_session_below_the_root_checks_the_repository_adr_with_its_config() {
    let Some(claude) = require_claude() else {
        return;
    };
    // Observable repository config: a budget of 2 shows as "attempt 1/2".
    let repo = helix_repo(Some("hook:\n  budget: 2\n"));
    let home = user_home();
    let adr = repo.join("adr/001-cache.md");
    let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
        let write = |content: String| {
            Turn::text("Writing the ADR.")
                .with_tool("Write", json!({"file_path": adr, "content": content}))
        };
        match conv.request_index() {
            0 => write(bad_adr()),
            1 => write(good_adr()),
            // A consultant session: the answer ends with its STEP marker (on by default there).
            _ => Turn::text("ADR written.\n\n<!-- STEP: done -->"),
        }
    });
    let session = repo.join(SESSION);
    let outcome = ClaudeRun::new(&claude, &api, &session, "Write the ADR")
        .home(home.path())
        .run();
    outcome.assert_success();
    let requests = api.main_requests();
    assert_eq!(requests.len(), 3, "{}", outcome.describe());
    // The session really was its own project (the folder Claude Code reports).
    assert_eq!(
        requests[0].working_dir().as_deref(),
        Some(session.as_path())
    );
    let blocks = hook_blocking_errors(&requests, "PostToolUse:Write");
    assert_eq!(blocks.len(), 1, "{blocks:#?}");
    assert!(blocks[0].contains("Dokumentation"), "{}", blocks[0]);
    assert!(blocks[0].contains("attempt 1/2"), "{}", blocks[0]);
    // The SessionStart summary came from the repository too.
    assert!(requests[0].contains("helix-gate checks every ADR"));
    // helix-gate's records are the repository's, named relative to its root.
    let log = log(repo.path());
    let verdicts: Vec<(&str, &str)> = log
        .iter()
        .map(|l| {
            (
                l["target"].as_str().unwrap(),
                l["verdict"].as_str().unwrap(),
            )
        })
        .filter(|(t, _)| *t == "adr/001-cache.md")
        .collect();
    assert_eq!(
        verdicts,
        [("adr/001-cache.md", "block"), ("adr/001-cache.md", "pass")]
    );
    assert!(!session.join(".helix-gate").exists());
}

#[test]
fn a_user_scope_install_does_nothing_in_a_repository_without_helix_gate_config() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = helix_repo(None);
    let home = user_home();
    let state = tempfile::tempdir().unwrap();
    let root = repo.path().to_path_buf();
    let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
        match conv.request_index() {
            0 => Turn::text("Writing.").with_tool(
                "Write",
                json!({"file_path": root.join("adr/001-cache.md"), "content": bad_adr()}),
            ),
            _ => Turn::text("Done, no marker."),
        }
    });
    for cwd in [repo.path().to_path_buf(), repo.join(SESSION)] {
        let outcome = ClaudeRun::new(&claude, &api, &cwd, "Write the ADR")
            .home(home.path())
            .env("HELIX_GATE_STATE_DIR", state.path())
            .run();
        outcome.assert_success();
        assert_eq!(outcome.result_text(), Some("Done, no marker."));
    }
    let requests = api.main_requests();
    assert_eq!(requests.len(), 4, "one write and one answer per session");
    for request in &requests {
        // (The repository's temp path itself contains "helix-gate-repo-".)
        assert!(
            !request.contains("helix-gate:"),
            "nothing may reach the model"
        );
        assert!(!request.contains("helix-gate checks every ADR"));
        assert!(!request.contains("hook blocking error"));
    }
    // Nothing written: no records in the repository or the session, no state.
    assert!(!repo.join(".helix-gate").exists());
    assert!(!repo.join(SESSION).join(".helix-gate").exists());
    assert_eq!(std::fs::read_dir(state.path()).unwrap().count(), 0);
    assert!(!home.path().join(".local/state/helix-gate").exists());
}

#[test]
fn the_step_marker_is_required_in_session_folders_only_and_falls_back_there() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = helix_repo(Some(
        "hook:\n  budget: 1\nstep_marker:\n  enabled: true\n  paths: [\"projects/sessions/**\"]\nsessions:\n  paths: [\"projects/sessions/*\"]\n",
    ));
    // The consultant's response file in the session folder, and a decoy at the root.
    repo.write(format!("{SESSION}/output/response.md"), "Antwort\n");
    repo.write("output/response.md", "root file\n");
    let home = user_home();
    let api = FakeApi::start(|_: &RecordedRequest, _: &Conversation<'_>| {
        Turn::text("Was genau soll gebaut werden?")
    });
    // In the session folder: blocked once (budget 1), then the fallback.
    let session = repo.join(SESSION);
    let outcome = ClaudeRun::new(&claude, &api, &session, "Ich brauche ein Tool")
        .home(home.path())
        .run();
    outcome.assert_success();
    let requests = api.main_requests();
    assert_eq!(requests.len(), 2, "{}", outcome.describe());
    let feedback = stop_hook_feedback(&requests);
    assert_eq!(feedback.len(), 1, "{feedback:#?}");
    assert!(feedback[0].contains("does not end with a STEP marker"));
    assert!(requests[0].contains("End EVERY answer with a STEP marker"));
    assert_eq!(
        repo.read(format!("{SESSION}/output/response.md")).unwrap(),
        "Antwort\n\n\n<!-- STEP: what -->\n"
    );
    assert_eq!(repo.read("output/response.md").unwrap(), "root file\n");
    let fallback: Vec<Value> = log(repo.path())
        .into_iter()
        .filter(|l| l["verdict"] == "fallback")
        .collect();
    assert_eq!(fallback.len(), 1, "{fallback:#?}");
    let note = fallback[0]["note"].as_str().unwrap();
    assert!(
        note.contains("ask a question")
            && note.contains(
                "appended <!-- STEP: what --> to projects/sessions/s1/output/response.md"
            ),
        "{note}"
    );
    // At the repository root the same answer passes: no marker is asked for.
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Ich brauche ein Tool")
        .home(home.path())
        .run();
    outcome.assert_success();
    let requests = api.main_requests();
    assert_eq!(requests.len(), 3, "{}", outcome.describe());
    assert!(!requests[2].contains("End EVERY answer with a STEP marker"));
    assert_eq!(stop_hook_feedback(&requests[2..]).len(), 0);
    // doctor, run in the session folder, sees the registration that reaches it.
    repo.write("adr/.gitkeep", "");
    let out = run_home(&session, home.path(), &["doctor"]);
    let text = stdout(&out);
    assert!(
        text.contains("ok: session folder projects/sessions/s1/ (`projects/sessions/*`): loads the hook from the user settings"),
        "{text}{}",
        stderr(&out)
    );
}

/// The hook registered at user scope, driven through stdin as Claude Code runs it
/// in a session folder.
fn user_hook(session: &Path, stdin: &[u8], state: &Path) -> HookRun {
    Hook::new(session)
        .args(&["--scope", "user"])
        .env("HELIX_GATE_STATE_DIR", state)
        .stdin(stdin)
}

#[test]
fn without_opt_in_the_user_scope_hook_is_silent_even_on_broken_input() {
    let repo = scratch_repo();
    let session = repo.path().join(SESSION);
    std::fs::create_dir_all(&session).unwrap();
    write(repo.path(), "adr/001-x.md", bad_adr());
    let state = tempfile::tempdir().unwrap();
    let post = json!({"session_id": "s", "cwd": session, "hook_event_name": "PostToolUse",
        "tool_name": "Write", "tool_input": {"file_path": repo.path().join("adr/001-x.md")}});
    let stop = json!({"session_id": "s", "cwd": session, "hook_event_name": "Stop",
        "last_assistant_message": "no marker"});
    for stdin in [
        format!("{post}\n").into_bytes(),
        format!("{stop}\n").into_bytes(),
        b"{ not json".to_vec(),
    ] {
        let run = user_hook(&session, &stdin, state.path());
        assert_eq!(run.code, 0);
        assert_eq!(run.stdout, "", "no answer");
        assert_eq!(run.stderr, "", "no note");
    }
    assert!(!repo.path().join(".helix-gate").exists());
    assert!(!session.join(".helix-gate").exists());
    assert_eq!(std::fs::read_dir(state.path()).unwrap().count(), 0);
    // Opted in (an empty settings file), the same write is blocked, and recorded
    // at the repository root.
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "config/approvals.yaml", NO_APPROVAL);
    write(repo.path(), "config/helix-gate.yaml", "");
    let run = user_hook(&session, format!("{post}\n").as_bytes(), state.path());
    let answer: Value = serde_json::from_str(run.stdout.trim()).unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    assert_eq!(log(repo.path())[0]["target"], "adr/001-x.md");
    // A session folder with its own helix-gate registration answers itself: the
    // user-scope hook stays out, so no attempt is counted twice.
    write(
        &session,
        ".claude/settings.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "helix-gate hook", "statusMessage": "helix-gate: ADR gate"}]}]}}"#,
    );
    let run = user_hook(&session, format!("{post}\n").as_bytes(), state.path());
    assert_eq!(run.stdout, "");
    assert_eq!(log(repo.path()).len(), 1);
}

#[test]
fn user_scope_install_merges_is_idempotent_and_uninstalls_only_its_entries() {
    let home = tempfile::tempdir().unwrap();
    let settings = home.path().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original = r#"{"model": "opus", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}}"#;
    std::fs::write(&settings, original).unwrap();
    for _ in 0..2 {
        let out = run_home(
            home.path(),
            home.path(),
            &["install", "claude", "--scope", "user"],
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert!(stderr(&out).contains("checks only repositories that have config/helix-gate.yaml"));
    }
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v["model"], "opus");
    let stop = v["hooks"]["Stop"].as_array().unwrap();
    assert_eq!(stop.len(), 2, "ours once, theirs kept: {stop:?}");
    assert_eq!(stop[0]["hooks"][0]["command"], "./mine.sh");
    assert!(
        stop[1]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .ends_with(" hook --scope user")
    );
    let out = run_home(
        home.path(),
        home.path(),
        &["uninstall", "claude", "--scope", "user"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(v, serde_json::from_str::<Value>(original).unwrap());
}
