//! `helix-gate hook --agent copilot` and `helix-gate install copilot`.
//!
//! First without a client: the hook's answers to Copilot-shaped payloads and
//! what `install copilot` writes. Then end to end with the real GitHub Copilot
//! CLI 1.0.102 (`scripts/install-copilot.sh`) against the fake Chat Completions
//! API (Copilot's BYOK variables, offline: no GitHub sign-in), the hook
//! registered by `helix-gate install copilot` in a scratch repository. The
//! assertions read what the next model request carries: a `PostToolUse` block
//! replaces the tool's result (`Tool result blocked: REASON`), a `Stop` block
//! comes back as the next user message.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::agents::{MISSING, bad, good, log, repository, verdicts, with_stdin};
use crate::support::cli::*;
use crate::support::copilot::{CopilotHome, require_copilot, run};
use crate::support::fake_chat::{FakeChat, Reply, Request};
use crate::support::hook::Hook;
use crate::support::repo::ScratchRepo;

const REL: &str = "adr/040-x.md";

fn helix(home: &CopilotHome, cwd: &Path, args: &[&str], stdin: &str) -> Output {
    let mut command = home.command(bin(), cwd);
    command.args(args);
    with_stdin(&mut command, stdin)
}

fn installed(api: &FakeChat, args: &[&str]) -> (ScratchRepo, CopilotHome) {
    let repo = repository(true);
    let home = CopilotHome::new(&api.base_url());
    let mut command = vec!["install", "copilot"];
    command.extend_from_slice(args);
    let out = helix(&home, repo.path(), &command, "");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.commit_all("helix-gate installed for Copilot");
    (repo, home)
}

fn dump(requests: &[Request]) -> String {
    requests
        .iter()
        .map(|r| format!("#{}: {}", r.index, Value::Array(r.since_last_turn())))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Whether a new message of `role` in `request` contains `text`.
fn says(request: &Request, role: &str, text: &str) -> bool {
    request.new_texts(role).iter().any(|t| t.contains(text))
}

// ---------------------------------------------------------------- no client

#[test]
fn copilot_answers_in_its_own_fields() {
    let repo = repository(true);
    let root = repo.path();
    let home = CopilotHome::new("http://127.0.0.1:9/v1");
    let hook = |event: Value| {
        let out = helix(
            &home,
            root,
            &["hook", "--agent", "copilot"],
            &format!("{event}\n"),
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let text = stdout(&out);
        (!text.is_empty()).then(|| serde_json::from_str::<Value>(text.trim()).unwrap())
    };
    let base = |name: &str| json!({"hook_event_name": name, "session_id": "c1", "timestamp": "t", "cwd": root});
    repo.write(REL, bad("040"));
    let mut post = base("PostToolUse");
    post["tool_name"] = json!("Write");
    post["tool_input"] = json!({"path": root.join(REL), "file_text": bad("040")});
    let answer = hook(post).expect("a block");
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(answer["reason"].as_str().unwrap().contains(MISSING));
    let mut pre = base("PreToolUse");
    pre["tool_name"] = json!("Edit");
    pre["tool_input"] =
        json!({"path": root.join("config/helix-gate.yaml"), "old_str": "", "new_str": "x"});
    let answer = hook(pre).expect("a deny");
    assert_eq!(answer["permissionDecision"], "deny", "{answer}");
    assert!(
        answer["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains("Copilot CLI cannot ask the user")
    );
    let answer = hook(base("SessionStart")).expect("the rules summary");
    assert!(answer["additionalContext"].as_str().is_some(), "{answer}");
}

#[test]
fn install_copilot_writes_its_own_file_and_uninstall_removes_it() {
    let repo = repository(true);
    let home = CopilotHome::new("http://127.0.0.1:9/v1");
    let out = helix(&home, repo.path(), &["install", "copilot"], "");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS"),
        "{}",
        stdout(&out)
    );
    let file: Value =
        serde_json::from_str(&repo.read(".github/hooks/helix-gate.json").unwrap()).unwrap();
    assert_eq!(file["version"], 1);
    assert_eq!(file["hooks"]["Stop"][0]["timeoutSec"], 90);
    let doctor = helix(&home, repo.path(), &["doctor"], "");
    assert!(
        stdout(&doctor).contains("Copilot CLI hook registrations:\n  ok: project: .github/hooks/helix-gate.json: registered (PreToolUse, PostToolUse, PostToolUseFailure, Stop, SessionStart)"),
        "{}",
        stdout(&doctor)
    );
    let out = helix(&home, repo.path(), &["uninstall", "copilot"], "");
    assert!(stdout(&out).contains("removed 5 helix-gate hook(s)"));
    assert!(repo.read(".github/hooks/helix-gate.json").is_none());
}

/// A `Stop` whose `transcript_path` is a FIFO nobody writes: the hook must not
/// open it blocking (that stalls until the deadline) but refuse it at once,
/// with the STEP check's failure policy on the broken field. The run is
/// bounded below the deadline, so a stall fails the test.
#[test]
fn a_fifo_transcript_is_refused_without_waiting() {
    let repo = repository(true);
    // A deadline far above the run's bound: only a stall reaches it.
    repo.write("config/helix-gate.yaml", "hook:\n  deadline_ms: 60000\n");
    let session = repo.join("projects/sessions/s1");
    std::fs::create_dir_all(&session).unwrap();
    let fifo = repo.join("events.jsonl");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let stop = json!({"hook_event_name": "Stop", "session_id": "f1", "timestamp": "t",
        "cwd": session, "transcript_path": fifo, "stop_reason": "end_turn",
        "stop_hook_active": false});
    let run = Hook::new(repo.path())
        .args(&["--agent", "copilot"])
        .limit(std::time::Duration::from_secs(20))
        .event(&stop);
    // The failure policy's answer (fail open by default: a message, no block),
    // naming the field and what it named.
    let answer = run.answer().expect("an answer");
    assert!(answer["decision"].is_null(), "{answer}");
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains("fail-open")
            && message.contains("`transcript_path` of the hook event is a named pipe (FIFO)"),
        "{answer}"
    );
    assert!(
        log(&repo)
            .iter()
            .any(|line| line["event"] == "Stop" && line["verdict"] == "error"),
        "{:?}",
        log(&repo)
    );
}

// ---------------------------------------------------------------- the real client

type Root = std::sync::Arc<std::sync::OnceLock<std::path::PathBuf>>;

fn adr_path(root: &Root) -> String {
    root.get()
        .expect("root set")
        .join(REL)
        .display()
        .to_string()
}

/// From a broken ADR to a passing end of turn, in a session folder: blocked
/// with the failed and passed checks, fixed with `edit`, the answer without the
/// STEP marker (read from Copilot's transcript) blocked, the one with it passes.
#[test]
fn copilot_is_blocked_on_a_broken_adr_and_on_a_missing_step_marker_then_passes() {
    let Some(copilot) = require_copilot() else {
        return;
    };
    let root = Root::default();
    let at = root.clone();
    let api = FakeChat::start(move |request: &Request| match request.index {
        0 => vec![Reply::Call(
            "create",
            json!({"path": adr_path(&at), "file_text": bad("040")}),
        )],
        1 => vec![Reply::Call(
            "edit",
            json!({"path": adr_path(&at), "old_str": "## Notizen", "new_str": "## Dokumentation"}),
        )],
        2 => vec![Reply::Text("Die Entscheidung steht.".into())],
        _ => vec![Reply::Text(
            "Die Entscheidung steht.\n\n<!-- STEP: done -->".into(),
        )],
    });
    let (repo, home) = installed(&api, &[]);
    root.set(repo.path().to_path_buf()).unwrap();
    let session = repo.join("projects/sessions/s1");
    std::fs::create_dir_all(&session).unwrap();
    let include = repo.path().display().to_string();
    let outcome = run(
        &copilot,
        &home,
        &session,
        "Write the ADR",
        &["--add-dir", &include],
    );
    outcome.assert_success();
    let requests = api.requests();
    eprintln!(
        "LOG: {}",
        repo.read(".helix-gate/log.jsonl").unwrap_or_default()
    );
    assert_eq!(
        requests.len(),
        4,
        "{}\n{}",
        outcome.describe(),
        dump(&requests)
    );
    assert!(
        says(&requests[1], "tool", "Tool result blocked:")
            && says(
                &requests[1],
                "tool",
                "adr/040-x.md fails 1 check(s) (attempt 1/3)"
            )
            && says(&requests[1], "tool", MISSING)
            && says(&requests[1], "tool", "PASSED (keep these passing)"),
        "{}",
        dump(&requests)
    );
    assert!(
        !says(&requests[2], "tool", "helix-gate:"),
        "{}",
        dump(&requests)
    );
    assert!(
        says(&requests[3], "user", "does not end with a STEP marker"),
        "{}",
        dump(&requests)
    );
    assert_eq!(repo.read(REL).unwrap(), good("040"));
    assert_eq!(verdicts(&repo, REL), ["block", "pass"]);
    assert_eq!(verdicts(&repo, "step-marker"), ["block"]);
    assert!(api.errors().is_empty(), "{:?}", api.errors());
}

/// Without a fix helix-gate's budget ends the `Stop` blocks.
#[test]
fn without_a_fix_the_budget_ends_copilots_loop_with_an_escalation() {
    let Some(copilot) = require_copilot() else {
        return;
    };
    let root = Root::default();
    let at = root.clone();
    let api = FakeChat::start(move |request: &Request| match request.index {
        0 => vec![Reply::Call(
            "create",
            json!({"path": adr_path(&at), "file_text": bad("040")}),
        )],
        _ => vec![Reply::Text("I could not fix it.".into())],
    });
    let (repo, home) = installed(&api, &[]);
    root.set(repo.path().to_path_buf()).unwrap();
    let outcome = run(&copilot, &home, repo.path(), "Write the ADR", &[]);
    outcome.assert_success();
    let requests = api.requests();
    assert_eq!(
        requests.len(),
        4,
        "{}\n{}",
        outcome.describe(),
        dump(&requests)
    );
    assert!(
        says(&requests[2], "user", "[attempt 2/3] adr/040-x.md"),
        "{}",
        dump(&requests)
    );
    assert!(
        says(&requests[3], "user", "[attempt 3/3] adr/040-x.md"),
        "{}",
        dump(&requests)
    );
    assert_eq!(
        verdicts(&repo, REL),
        ["block", "block", "block", "escalate"]
    );
}

/// A write of the configuration is refused before `edit` runs (top-level
/// `permissionDecision: deny`), and the model is told to ask the person.
#[test]
fn copilot_cannot_change_the_configuration() {
    let Some(copilot) = require_copilot() else {
        return;
    };
    let root = Root::default();
    let at = root.clone();
    let api = FakeChat::start(move |request: &Request| match request.index {
        0 => vec![Reply::Call(
            "create",
            json!({"path": at.get().unwrap().join("config/helix-gate.yaml"), "file_text": "hook: {}\n"}),
        )],
        _ => vec![Reply::Text("Done.".into())],
    });
    let (repo, home) = installed(&api, &[]);
    root.set(repo.path().to_path_buf()).unwrap();
    let outcome = run(&copilot, &home, repo.path(), "Loosen the rules", &[]);
    outcome.assert_success();
    let requests = api.requests();
    assert_eq!(
        requests.len(),
        2,
        "{}\n{}",
        outcome.describe(),
        dump(&requests)
    );
    assert!(
        says(&requests[1], "tool", "Copilot CLI cannot ask the user"),
        "{}",
        dump(&requests)
    );
    assert_eq!(repo.read("config/helix-gate.yaml").unwrap(), "");
}

/// Registered for the user (`$COPILOT_HOME/hooks/helix-gate.json`), the hook
/// answers in a repository that opted in, in a session folder too.
#[test]
fn copilot_runs_the_user_scope_hook() {
    let Some(copilot) = require_copilot() else {
        return;
    };
    let root = Root::default();
    let at = root.clone();
    let api = FakeChat::start(move |request: &Request| match request.index {
        0 => vec![Reply::Call(
            "create",
            json!({"path": adr_path(&at), "file_text": bad("040")}),
        )],
        1 => vec![Reply::Call(
            "edit",
            json!({"path": adr_path(&at), "old_str": "## Notizen", "new_str": "## Dokumentation"}),
        )],
        _ => vec![Reply::Text("Fertig.\n\n<!-- STEP: done -->".into())],
    });
    let (repo, home) = installed(&api, &["--scope", "user"]);
    root.set(repo.path().to_path_buf()).unwrap();
    assert!(repo.read(".github/hooks/helix-gate.json").is_none());
    assert!(home.path().join(".copilot/hooks/helix-gate.json").is_file());
    let session = repo.join("projects/sessions/s2");
    std::fs::create_dir_all(&session).unwrap();
    let include = repo.path().display().to_string();
    let outcome = run(
        &copilot,
        &home,
        &session,
        "Write the ADR",
        &["--add-dir", &include],
    );
    outcome.assert_success();
    let requests = api.requests();
    assert_eq!(
        requests.len(),
        3,
        "{}\n{}",
        outcome.describe(),
        dump(&requests)
    );
    assert!(
        says(&requests[1], "tool", "adr/040-x.md fails 1 check(s)"),
        "{}",
        dump(&requests)
    );
    // The answer ends with the marker (read from the transcript): the Stop passes.
    assert_eq!(verdicts(&repo, REL), ["block", "pass"]);
    assert!(verdicts(&repo, "step-marker").is_empty());
}
