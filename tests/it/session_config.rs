//! The session's own configuration and baseline, driven through stdin with
//! real git repositories and a state folder of the test's own: a change of
//! helix-gate's configuration during a session waits for the next session or
//! `helix-gate trust`; a configuration that does not load fails closed by the
//! last good one; plain shell writes of helix-gate's files are put to the
//! person or refused; a user-scope Stop runs no reviewer the repository names
//! without consent; a lost baseline falls back to `HEAD` and says so.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::Hook;
use crate::support::repo::{ScratchRepo, git, state_dir};

const NO_APPROVAL: &str = "approvals:\n  adr:\n    enabled: false\n";

/// A committed repository with the passing fixture's dependency, reviewer off.
fn repo() -> ScratchRepo {
    let repo = ScratchRepo::empty();
    repo.write("src/lib.rs", "");
    repo.write("config/approvals.yaml", NO_APPROVAL);
    repo.write("config/helix-gate.yaml", "");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "init"]);
    repo
}

/// Run `helix-gate ARGS` in `root` with the test's state folder.
fn cli(root: &Path, args: &[&str]) -> std::process::Output {
    isolated(bin(), root)
        .args(args)
        .env("HELIX_GATE_STATE_DIR", state_dir(root))
        .env("CLAUDE_PROJECT_DIR", root)
        .output()
        .unwrap()
}

/// The hook's answer to `event` (`None` for none) with the test's state folder, with
/// extra arguments.
fn hook_with(root: &Path, args: &[&str], event: &Value) -> Option<Value> {
    Hook::new(root)
        .args(args)
        .env("HELIX_GATE_STATE_DIR", state_dir(root))
        .event(event)
        .answer()
}

fn hook(root: &Path, event: &Value) -> Option<Value> {
    hook_with(root, &[], event)
}

fn start(root: &Path, session: &str) {
    hook(
        root,
        &json!({"session_id": session, "cwd": root, "hook_event_name": "SessionStart", "source": "startup"}),
    );
}

fn post_write(root: &Path, session: &str, rel: &str) -> Value {
    json!({"session_id": session, "cwd": root, "hook_event_name": "PostToolUse",
           "tool_name": "Write", "tool_input": {"file_path": root.join(rel), "content": "…"}})
}

fn bash(root: &Path, session: &str, event: &str, command: &str) -> Value {
    json!({"session_id": session, "cwd": root, "hook_event_name": event,
           "tool_name": "Bash", "tool_input": {"command": command}})
}

fn stop(session: &str) -> Value {
    json!({"session_id": session, "hook_event_name": "Stop", "stop_hook_active": false,
           "last_assistant_message": "done", "background_tasks": []})
}

#[allow(clippy::ref_option, reason = "takes the hook's answer as it comes")]
fn text(answer: &Option<Value>, pointer: &str) -> String {
    text_of(answer.as_ref(), pointer)
}

fn text_of(answer: Option<&Value>, pointer: &str) -> String {
    answer
        .and_then(|a| a.pointer(pointer))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

fn bad_adr() -> String {
    good_adr().replace("## Dokumentation", "## Notizen")
}

#[test]
fn a_budget_changed_during_the_session_waits_for_trust_and_then_applies() {
    let root = repo();
    let root = root.path();
    start(root, "s");
    write(root, "config/helix-gate.yaml", "hook: {budget: 7}\n");
    write(root, "adr/001-x.md", bad_adr());
    let a = hook(root, &post_write(root, "s", "adr/001-x.md"));
    assert!(text(&a, "/reason").contains("attempt 1/3"), "{a:?}");
    let message = text(&a, "/systemMessage");
    assert!(
        message.contains("config/helix-gate.yaml changed during this session")
            && message.contains("helix-gate trust"),
        "{a:?}"
    );
    // Told once.
    let a = hook(root, &post_write(root, "s", "adr/001-x.md"));
    assert!(text(&a, "/reason").contains("attempt 2/3"), "{a:?}");
    assert!(text(&a, "/systemMessage").is_empty(), "{a:?}");
    // The person trusts the new configuration: it applies at once.
    let out = cli(root, &["trust"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let a = hook(root, &post_write(root, "s", "adr/001-x.md"));
    assert!(text(&a, "/reason").contains("/7"), "{a:?}");
    // A new session starts with it anyway.
    start(root, "t");
    let a = hook(root, &post_write(root, "t", "adr/001-x.md"));
    assert!(text(&a, "/reason").contains("attempt 1/7"), "{a:?}");
}

#[test]
fn a_configuration_that_does_not_load_fails_closed_by_the_last_good_one() {
    let root = repo();
    let root = root.path();
    write(
        root,
        "config/helix-gate.yaml",
        "hook: {fail_closed: true}\n",
    );
    start(root, "s1");
    // Between sessions the file breaks: the setting that asked to fail closed
    // is in the broken file, and the last good configuration decides.
    write(
        root,
        "config/helix-gate.yaml",
        "hook: {fail_closed: true, budget: [}\n",
    );
    start(root, "s2");
    write(root, "adr/001-x.md", good_adr());
    let a = hook(root, &post_write(root, "s2", "adr/001-x.md"));
    assert_eq!(text(&a, "/decision"), "block", "{a:?}");
    assert!(
        text(&a, "/reason").starts_with("helix-gate infrastructure error"),
        "{a:?}"
    );
    // A repository that never had a good configuration fails open, loudly.
    let other = repo();
    let other = other.path();
    write(other, "config/helix-gate.yaml", "hook: {budget: [}\n");
    start(other, "s");
    write(other, "adr/001-x.md", good_adr());
    let a = hook(other, &post_write(other, "s", "adr/001-x.md"));
    assert!(
        a.as_ref().and_then(|a| a.get("decision")).is_none(),
        "{a:?}"
    );
    assert!(
        text(&a, "/systemMessage").contains("infrastructure error"),
        "{a:?}"
    );
}

#[test]
fn plain_shell_writes_of_the_gate_files_are_put_to_the_person_or_refused() {
    let root = repo();
    let root = root.path();
    start(root, "s");
    for command in [
        "echo 'approvals: {adr: {enabled: false}}' > config/approvals.yaml",
        "sed -i 's/budget: 3/budget: 99/' config/helix-gate.yaml",
        "rm -rf approvals",
        "cd . && cp /tmp/x.yaml ./config/adr-completeness-rules.yaml",
    ] {
        let a = hook(root, &bash(root, "s", "PreToolUse", command));
        assert_eq!(
            text(&a, "/hookSpecificOutput/permissionDecision"),
            "ask",
            "{command}: {a:?}"
        );
    }
    for command in [
        "rm -rf .helix-gate",
        "rm -rf .",
        "echo x > .helix-gate/log.jsonl",
    ] {
        let a = hook(root, &bash(root, "s", "PreToolUse", command));
        assert_eq!(
            text(&a, "/hookSpecificOutput/permissionDecision"),
            "deny",
            "{command}: {a:?}"
        );
    }
    for command in [
        "cat config/helix-gate.yaml",
        "cp config/approvals.yaml /tmp/copy.yaml",
        "grep -r budget config/",
        "helix-gate validate adr/",
    ] {
        assert_eq!(
            hook(root, &bash(root, "s", "PreToolUse", command)),
            None,
            "{command}"
        );
    }
}

#[test]
fn a_shell_command_that_changes_an_adr_is_checked_on_the_spot_even_when_it_failed() {
    let root = repo();
    let root = root.path();
    write(root, "adr/001-x.md", good_adr());
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "adr"]);
    start(root, "s");
    // Nothing changed: nothing to say.
    assert_eq!(hook(root, &bash(root, "s", "PostToolUse", "ls")), None);
    // Same size, same second: still seen (the content hash decides).
    let broken = good_adr().replace("## Dokumentation", "## Dokumentatio_");
    write(root, "adr/001-x.md", &broken);
    let a = hook(root, &bash(root, "s", "PostToolUse", "python3 fix.py"));
    assert_eq!(text(&a, "/decision"), "block", "{a:?}");
    assert!(text(&a, "/reason").contains("adr/001-x.md"), "{a:?}");
    // A new ADR in a watched folder, by a command that failed afterwards.
    write(
        root,
        "adr/002-y.md",
        bad_adr().replace("\"001\"", "\"002\""),
    );
    let a = hook(
        root,
        &bash(
            root,
            "s",
            "PostToolUseFailure",
            "cat > adr/002-y.md <<EOF; false",
        ),
    );
    assert!(
        text(&a, "/hookSpecificOutput/additionalContext").contains("adr/002-y.md"),
        "{a:?}"
    );
    assert_eq!(
        text(&a, "/hookSpecificOutput/hookEventName"),
        "PostToolUseFailure"
    );
    // Seen once: the next command that changes nothing is silent again.
    assert_eq!(hook(root, &bash(root, "s", "PostToolUse", "ls")), None);
}

#[test]
fn a_lost_baseline_falls_back_to_head_and_says_so() {
    let root = repo();
    let root = root.path();
    start(root, "s");
    write(root, "adr/001-x.md", bad_adr());
    let a = hook(root, &post_write(root, "s", "adr/001-x.md"));
    assert_eq!(text(&a, "/decision"), "block");
    // Both the work-tree state and the record outside it are wiped.
    std::fs::remove_dir_all(state_dir(root)).unwrap();
    write(
        root,
        "adr/002-y.md",
        bad_adr().replace("\"001\"", "\"002\""),
    );
    let a = hook(root, &stop("s"));
    assert_eq!(text(&a, "/decision"), "block", "{a:?}");
    let reason = text(&a, "/reason");
    assert!(
        reason.contains("adr/001-x.md") && reason.contains("adr/002-y.md"),
        "both differ from HEAD: {reason}"
    );
    assert!(
        text(&a, "/systemMessage").contains("baseline was missing"),
        "{a:?}"
    );
}

/// A repository that opted in and names its own reviewer program.
fn repo_with_own_reviewer() -> ScratchRepo {
    let repo = repo();
    let runs = repo.path().join("runs.txt");
    let result = json!({"type": "result", "subtype": "success", "is_error": false, "result": "",
        "total_cost_usd": 0.01, "usage": {"input_tokens": 10, "output_tokens": 5},
        "structured_output": {"result": "approved", "confidence": 0.95, "findings": [],
                              "recommendations": [], "summary": "Seen."}});
    fake_reviewer(
        repo.path(),
        &result.to_string(),
        &format!("echo run >> '{}'\n", runs.display()),
    );
    write(
        repo.path(),
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\n  timeout: 60\n",
    );
    repo
}

#[test]
fn a_user_scope_stop_runs_a_repository_reviewer_only_after_consent() {
    let repo = repo_with_own_reviewer();
    let root = repo.path();
    let user = ["--scope", "user"];
    let session_start = |s: &str| {
        hook_with(
            root,
            &user,
            &json!({"session_id": s, "cwd": root, "hook_event_name": "SessionStart", "source": "startup"}),
        )
    };
    session_start("s");
    write(root, "adr/001-x.md", good_adr());
    assert_eq!(
        hook_with(root, &user, &post_write(root, "s", "adr/001-x.md")),
        None
    );
    let a = hook_with(root, &user, &stop("s"));
    assert!(
        a.as_ref().and_then(|a| a.get("decision")).is_none(),
        "{a:?}"
    );
    let message = text(&a, "/systemMessage");
    assert!(
        message.contains("fake/reviewer.sh") && message.contains("helix-gate trust"),
        "{message}"
    );
    assert!(!root.join("runs.txt").exists(), "the program did not run");
    // Registered by the repository itself, it would run: consent is for user scope.
    // After the person's consent, a new session runs it.
    let out = cli(root, &["trust"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    session_start("t");
    hook_with(root, &user, &post_write(root, "t", "adr/001-x.md"));
    let a = hook_with(root, &user, &stop("t"));
    assert!(text(&a, "/systemMessage").contains("approved"), "{a:?}");
    assert!(root.join("runs.txt").exists(), "the program ran");
}

#[test]
fn a_saved_adr_whose_adr_id_another_adr_has_is_blocked_naming_it() {
    let root = repo();
    let root = root.path();
    write(root, "adr/001-first.md", good_adr());
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "first"]);
    start(root, "s");
    let with_id = |id: &str| good_adr().replace("adr_id: \"001\"", &format!("adr_id: \"{id}\""));
    // A committed ADR has 001 (known from the session's baseline).
    write(root, "adr/002-second.md", with_id("001"));
    let a = hook(root, &post_write(root, "s", "adr/002-second.md"));
    assert_eq!(text(&a, "/decision"), "block", "{a:?}");
    let reason = text(&a, "/reason");
    assert!(
        reason.contains("adr-id-duplicate") && reason.contains("adr/001-first.md"),
        "{reason}"
    );
    // Fixed: passes.
    write(root, "adr/002-second.md", with_id("002"));
    assert_eq!(
        hook(root, &post_write(root, "s", "adr/002-second.md")),
        None
    );
    // Two ADRs written in this session (not in the baseline) by file name.
    write(root, "adr/003-a.md", with_id("003"));
    assert_eq!(hook(root, &post_write(root, "s", "adr/003-a.md")), None);
    write(root, "adr/003-b.md", with_id("003"));
    let a = hook(root, &post_write(root, "s", "adr/003-b.md"));
    assert!(text(&a, "/reason").contains("adr/003-a.md"), "{a:?}");
    // A draft without a number yet is no duplicate of anything.
    write(root, "projects/sessions/s1/output/ADR-x.md", with_id("XXX"));
    let a = hook(
        root,
        &post_write(root, "s", "projects/sessions/s1/output/ADR-x.md"),
    );
    assert!(!text(&a, "/reason").contains("adr-id-duplicate"), "{a:?}");
}

/// A damaged session state (a write cut short, or a script's scribble over it)
/// does not give the session a fresh budget: the copy outside the work tree is
/// restored, and the count goes on.
#[test]
fn a_damaged_session_state_is_restored_from_its_copy() {
    let repo = repo();
    start(repo.path(), "s1");
    repo.write("adr/001-x.md", bad_adr());
    let a = hook(repo.path(), &post_write(repo.path(), "s1", "adr/001-x.md"));
    assert!(text(&a, "/reason").contains("attempt 1/3"), "{a:?}");
    let state = repo.path().join(".helix-gate/state/s1.json");
    let len = std::fs::metadata(&state).unwrap().len();
    // Cut short in the middle, as a crash during the write would leave it.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&state)
        .unwrap()
        .set_len(len / 2)
        .unwrap();
    let out = Hook::new(repo.path())
        .env("HELIX_GATE_STATE_DIR", state_dir(repo.path()))
        .event(&post_write(repo.path(), "s1", "adr/001-x.md"));
    let a = out.answer();
    assert!(text(&a, "/reason").contains("attempt 2/3"), "{a:?}");
    assert!(
        out.stderr
            .contains("restored from its copy outside the work tree"),
        "{}",
        out.stderr
    );
}

/// The reviewer's whole output: a `claude -p` result whose verdict is `result`.
fn reviewer_output(result: &str) -> String {
    json!({"type": "result", "subtype": "success", "is_error": false, "result": "",
        "total_cost_usd": 0.01, "usage": {"input_tokens": 10, "output_tokens": 5},
        "structured_output": {"result": result, "confidence": 0.95,
            "findings": [{"severity": "error", "check": "completeness", "message": "the migration plan is missing"}],
            "recommendations": [], "summary": "Seen."}})
    .to_string()
}

/// Write `tools/reviewer`, a program that notes each run in `runs.txt` under `tag`
/// and answers `result`.
fn write_program(root: &Path, tag: &str, result: &str) {
    let script = write(
        root,
        "tools/reviewer",
        format!(
            "#!/bin/sh\necho {tag} >> '{}'\ncat <<'JSON'\n{}\nJSON\n",
            root.join("runs.txt").display(),
            reviewer_output(result)
        ),
    );
    crate::support::make_executable(&script);
}

/// A committed repository whose ADR reviewer is its own program `tools/reviewer`,
/// which rejects.
fn repo_with_program() -> ScratchRepo {
    let repo = repo();
    write_program(repo.path(), "honest", "rejected");
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    command: tools/reviewer\n    timeout: 60\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "own reviewer"]);
    repo
}

fn runs(root: &Path) -> String {
    std::fs::read_to_string(root.join("runs.txt")).unwrap_or_default()
}

#[test]
fn the_model_cannot_rewrite_the_reviewer_program_to_approve_its_own_adr() {
    let repo = repo_with_program();
    let root = repo.path();
    start(root, "s");
    write(root, "adr/001-x.md", good_adr());
    hook(root, &post_write(root, "s", "adr/001-x.md"));
    let a = hook(root, &stop("s"));
    assert_eq!(
        text(&a, "/decision"),
        "block",
        "the reviewer rejects: {a:?}"
    );
    assert_eq!(runs(root), "honest\n");
    // The program is configuration: its write is put to the person.
    let pre = json!({"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_input": {"file_path": root.join("tools/reviewer"), "content": "…"}});
    let a = hook(root, &pre);
    assert_eq!(
        text(&a, "/hookSpecificOutput/permissionDecision"),
        "ask",
        "{a:?}"
    );
    assert!(
        text(&a, "/hookSpecificOutput/permissionDecisionReason").contains("tools/reviewer"),
        "{a:?}"
    );
    // So is a shell write of it.
    let a = hook(
        root,
        &bash(
            root,
            "s",
            "PreToolUse",
            "cat > tools/reviewer <<'EOF'\nexit 0\nEOF",
        ),
    );
    assert_eq!(
        text(&a, "/hookSpecificOutput/permissionDecision"),
        "ask",
        "{a:?}"
    );
    // Written anyway (allowed by a person, or by a path the hook does not see):
    // the changed program is not run for this session, and nothing is approved.
    write_program(root, "model", "approved");
    write(root, "adr/001-x.md", format!("{}\n", good_adr()));
    hook(root, &post_write(root, "s", "adr/001-x.md"));
    let a = hook(root, &stop("s"));
    assert_eq!(
        runs(root),
        "honest\n",
        "the model's program never ran: {a:?}"
    );
    let message = text(&a, "/systemMessage");
    assert!(
        message.contains("tools/reviewer") && message.contains("changed during this session"),
        "{a:?}"
    );
    let history = std::fs::read_to_string(root.join(".helix-gate/approvals.jsonl")).unwrap();
    assert!(history.contains("\"rejected\""), "{history}");
    assert!(
        !history.contains("\"approved\""),
        "no approval was recorded: {history}"
    );
}

#[test]
fn trust_covers_the_bytes_of_the_repository_reviewer_program() {
    let repo = repo_with_program();
    let root = repo.path();
    let out = cli(root, &["trust"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("tools/reviewer"), "{}", stdout(&out));
    let out = cli(root, &["trust", "--show"]);
    assert!(stdout(&out).contains("trusted"), "{}", stdout(&out));
    // A pull that changes only the program.
    write_program(root, "pulled", "approved");
    repo.git(&["commit", "-qam", "a new reviewer"]);
    let out = cli(root, &["trust", "--show"]);
    assert!(
        stdout(&out).contains("changed since"),
        "a changed program is a changed configuration: {}",
        stdout(&out)
    );
    let user = ["--scope", "user"];
    hook_with(
        root,
        &user,
        &json!({"session_id": "u", "cwd": root, "hook_event_name": "SessionStart", "source": "startup"}),
    );
    write(root, "adr/001-x.md", good_adr());
    hook_with(root, &user, &post_write(root, "u", "adr/001-x.md"));
    let a = hook_with(root, &user, &stop("u"));
    assert!(
        text(&a, "/systemMessage").contains("helix-gate trust"),
        "{a:?}"
    );
    assert_eq!(runs(root), "", "the new program did not run");
}

#[test]
fn wiping_both_stores_in_a_registered_repository_does_not_end_the_session_silently() {
    let root = repo();
    let root = root.path();
    let out = cli(root, &["install", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    start(root, "s");
    write(root, "adr/001-x.md", bad_adr());
    let a = hook(root, &post_write(root, "s", "adr/001-x.md"));
    assert_eq!(text(&a, "/decision"), "block");
    // `find .helix-gate -mindepth 1 -delete`, and the record outside the work tree.
    std::fs::remove_dir_all(root.join(".helix-gate")).unwrap();
    std::fs::create_dir(root.join(".helix-gate")).unwrap();
    std::fs::remove_dir_all(state_dir(root)).unwrap();
    let a = hook(root, &stop("s"));
    assert_eq!(text(&a, "/decision"), "block", "{a:?}");
    assert!(text(&a, "/reason").contains("adr/001-x.md"), "{a:?}");
    assert!(
        text(&a, "/systemMessage").contains("baseline was missing"),
        "{a:?}"
    );
}

#[test]
fn renaming_a_blocked_adr_to_a_template_name_does_not_hide_it() {
    let root = repo();
    let root = root.path();
    start(root, "s");
    write(
        root,
        "adr/002-x.md",
        bad_adr().replace("\"001\"", "\"002\""),
    );
    let a = hook(root, &post_write(root, "s", "adr/002-x.md"));
    assert_eq!(text(&a, "/decision"), "block");
    std::fs::rename(
        root.join("adr/002-x.md"),
        root.join("adr/002-x.template.md"),
    )
    .unwrap();
    hook(
        root,
        &bash(
            root,
            "s",
            "PostToolUse",
            "mv adr/002-x.md adr/002-x.template.md",
        ),
    );
    let a = hook(root, &stop("s"));
    assert_eq!(text(&a, "/decision"), "block", "{a:?}");
    assert!(
        text(&a, "/reason").contains("adr/002-x.template.md"),
        "{a:?}"
    );
    // validate and the commit see it too.
    let out = cli(root, &["validate"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("002-x.template.md"),
        "{}",
        stdout(&out)
    );
    git(root, &["add", "-A"]);
    let out = cli(root, &["pre-commit"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
}
