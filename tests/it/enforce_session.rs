//! Decisions govern code in the session: `helix-gate hook` runs the rules of the
//! ADRs that govern a written file (not an ADR), blocks an accepted ADR's error
//! within the file's retry budget, gives a proposed ADR's findings as context,
//! tells the model which decisions govern a file before it writes it, and
//! catches a file a shell command changed; driven with real events in real git
//! repositories. Then end to end: the real Claude Code and Codex clients against
//! the fake model APIs, the scripted model breaking a rule and correcting itself.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::hook;
use crate::support::repo::ScratchRepo;

/// Turns the reviewer off: these tests are about the deterministic rules.
const NO_APPROVAL: &str = "approvals:\n  adr:\n    enabled: false\n";

/// ADR-014 with `status`, governing `src/**`, forbidding `requests`.
fn gateway_adr(status: &str) -> String {
    format!(
        "---\nadr_id: \"014\"\ntitle: Outbound HTTP goes through the gateway\nstatus: {status}\ngoverns: [\"src/**\"]\n---\n# ADR-014: Outbound HTTP goes through the gateway\n\n## Decision\n\nAll outbound HTTP goes through app.gateway. It retries and logs.\nNothing else opens a connection.\n\n## Enforcement\n\n```yaml\nrules:\n  - id: no-direct-http\n    kind: forbid_import\n    why: \"All outbound HTTP goes through app.gateway.\"\n    modules: [requests]\n    examples: {{violates: \"import requests\", passes: \"from app.gateway import client\"}}\n```\n"
    )
}

const BAD: &str = "import os\nimport requests\n\nrequests.get(\"https://example.com\")\n";
const GOOD: &str =
    "import os\nfrom app.gateway import client\n\nclient.get(\"https://example.com\")\n";

/// A committed repository with ADR-014 (`status`), reviewer off, and a session started.
fn repo(status: &str) -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("config/approvals.yaml", NO_APPROVAL);
    repo.write("adr/014-gateway.md", gateway_adr(status));
    repo.write("src/app/gateway.py", "client = None\n");
    repo.commit_all("ADR-014 and the gateway");
    start(repo.path(), "s");
    repo
}

fn start(root: &Path, session: &str) -> Option<Value> {
    hook(
        root,
        &json!({"session_id": session, "transcript_path": "t", "cwd": root,
                "hook_event_name": "SessionStart", "source": "startup"}),
    )
}

fn write_event(root: &Path, kind: &str, session: &str, rel: &str) -> Value {
    json!({"session_id": session, "transcript_path": "t", "cwd": root, "hook_event_name": kind,
           "tool_name": "Write", "tool_input": {"file_path": root.join(rel), "content": "…"},
           "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"})
}

/// The file written, then the hook's answer to its `PostToolUse`.
fn save(root: &Path, rel: &str, content: &str) -> Option<Value> {
    write(root, rel, content);
    hook(root, &write_event(root, "PostToolUse", "s", rel))
}

fn before_write(root: &Path, rel: &str) -> Option<Value> {
    hook(root, &write_event(root, "PreToolUse", "s", rel))
}

fn bash(root: &Path, command: &str) -> Option<Value> {
    hook(
        root,
        &json!({"session_id": "s", "transcript_path": "t", "cwd": root,
                "hook_event_name": "PostToolUse", "tool_name": "Bash",
                "tool_input": {"command": command}, "tool_response": {"stdout": ""}}),
    )
}

fn stop(root: &Path) -> Option<Value> {
    hook(
        root,
        &json!({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": false,
                "last_assistant_message": "done", "background_tasks": []}),
    )
}

fn log(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join(".helix-gate/log.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn context(answer: &Value) -> &str {
    answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_else(|| panic!("no additionalContext: {answer}"))
}

#[test]
fn a_forbidden_import_is_blocked_and_the_fix_passes() {
    let repo = repo("Accepted");
    let root = repo.path();
    let answer = save(root, "src/api.py", BAD).expect("a block");
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("helix-gate: src/api.py breaks 1 rule(s) of the accepted decisions that govern it (attempt 1/3)."),
        "{reason}"
    );
    assert!(
        reason.contains("FAILED:\n- [ADR-014/no-direct-http] line 2: imports `requests`: forbid_import ADR-014 (Outbound HTTP goes through the gateway) says: All outbound HTTP goes through app.gateway. -> fix: use what the decision prescribes instead of this import (read adr/014-gateway.md)"),
        "{reason}"
    );
    assert_eq!(
        save(root, "src/api.py", GOOD),
        None,
        "the corrected file passes"
    );
    let verdicts: Vec<(String, String)> = log(root)
        .iter()
        .map(|l| {
            (
                l["target"].as_str().unwrap().to_owned(),
                l["verdict"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("src/api.py".to_owned(), "block".to_owned()),
            ("src/api.py".to_owned(), "pass".to_owned())
        ]
    );
    assert_eq!(log(root)[0]["rules"], json!(["ADR-014/no-direct-http"]));
}

#[test]
fn an_import_that_head_already_had_is_not_this_sessions_doing() {
    let repo = repo("Accepted");
    repo.write("src/legacy.py", "import requests\n");
    repo.commit_all("legacy code");
    let root = repo.path();
    assert_eq!(
        save(root, "src/legacy.py", "import requests\nimport os\n"),
        None
    );
    let answer = save(
        root,
        "src/legacy.py",
        "import requests\nimport requests.adapters\n",
    )
    .expect("a block");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("line 2: imports `requests.adapters`"),
        "{answer}"
    );
}

#[test]
fn the_budget_is_spent_then_the_person_is_told() {
    let repo = repo("Accepted");
    let root = repo.path();
    for attempt in 1..=3 {
        let answer = save(root, "src/api.py", BAD).unwrap();
        assert_eq!(answer["decision"], "block");
        assert!(
            answer["reason"]
                .as_str()
                .unwrap()
                .contains(&format!("(attempt {attempt}/3)")),
            "{answer}"
        );
    }
    let spent = save(root, "src/api.py", BAD).unwrap();
    assert!(spent.get("decision").is_none(), "{spent}");
    let message = spent["systemMessage"].as_str().unwrap();
    assert!(message.contains("escalated"), "{message}");
    assert!(message.contains("src/api.py"), "{message}");
    assert!(
        context(&spent).contains("the retry budget for src/api.py is spent"),
        "{spent}"
    );
    assert!(context(&spent).contains("[ADR-014/no-direct-http]"));
    // Told once; the model keeps hearing it, the Stop does not block it again.
    let again = save(root, "src/api.py", BAD).unwrap();
    assert!(again.get("systemMessage").is_none(), "{again}");
    assert_eq!(stop(root), None);
    assert!(log(root).iter().any(|l| l["verdict"] == "escalate"));
}

#[test]
fn a_proposed_adrs_rule_only_warns() {
    let repo = repo("Proposed");
    let root = repo.path();
    let answer = save(root, "src/api.py", BAD).expect("context");
    assert!(answer.get("decision").is_none(), "{answer}");
    let text = context(&answer);
    assert!(
        text.starts_with(
            "helix-gate: src/api.py breaks no rule of an accepted decision, with warnings"
        ),
        "{text}"
    );
    assert!(
        text.contains("Warnings (fix if you can):\n- [ADR-014/no-direct-http] line 2"),
        "{text}"
    );
    assert!(text.contains("[proposed: a warning until it is accepted]"));
    assert_eq!(stop(root), None, "a warning never blocks the Stop");
}

#[test]
fn an_ungoverned_file_gets_nothing() {
    let repo = repo("Accepted");
    let root = repo.path();
    assert_eq!(save(root, "tools/fetch.py", BAD), None);
    assert_eq!(before_write(root, "tools/fetch.py"), None);
    // The ADR itself is no code.
    assert_eq!(before_write(root, "adr/014-gateway.md"), None);
    assert!(log(root).is_empty(), "{:?}", log(root));
    // Without a ruling ADR there is no marker, and a write is the plain no-op.
    let plain = ScratchRepo::new();
    plain.write("adr/014-gateway.md", gateway_adr("Superseded"));
    plain.commit_all("a superseded ADR");
    start(plain.path(), "s");
    assert!(!plain.join(".helix-gate/governs-index").exists());
    assert_eq!(save(plain.path(), "src/api.py", BAD), None);
    assert_eq!(before_write(plain.path(), "src/api.py"), None);
    assert!(log(plain.path()).is_empty());
}

#[test]
fn the_governing_decisions_are_told_before_the_write_once_per_folder() {
    let repo = repo("Accepted");
    let root = repo.path();
    let answer = before_write(root, "src/api.py").expect("context");
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PreToolUse");
    assert!(
        answer["hookSpecificOutput"]
            .get("permissionDecision")
            .is_none()
    );
    assert_eq!(
        context(&answer),
        "helix-gate: decisions govern src/api.py; write it so it follows them (a binding rule's violation is blocked on save):\n\
- ADR-014 Outbound HTTP goes through the gateway (binding, adr/014-gateway.md): All outbound HTTP goes through app.gateway. It retries and logs.\n  \
rule no-direct-http (forbid_import): All outbound HTTP goes through app.gateway.\n"
    );
    assert_eq!(
        before_write(root, "src/other.py"),
        None,
        "told once per folder"
    );
    assert_eq!(before_write(root, "src/api.py"), None);
    let elsewhere = before_write(root, "src/app/client.py").expect("another folder");
    assert!(context(&elsewhere).contains("ADR-014"));
    // Another session is told again.
    let other = hook(root, &write_event(root, "PreToolUse", "t", "src/api.py"));
    assert!(other.is_some());
}

#[test]
fn a_violation_written_by_a_shell_command_is_caught_on_the_spot_and_at_stop() {
    let repo = repo("Accepted");
    let root = repo.path();
    // Dirty before the session: not held against it.
    write(root, "src/old.py", "import requests\n");
    start(root, "s");
    assert_eq!(bash(root, "ls"), None);
    // The command wrote the file (as `cat > src/api.py <<EOF` would).
    write(root, "src/api.py", BAD);
    let answer = bash(root, "cat > src/api.py <<'EOF'\n...\nEOF").expect("a block");
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains("src/api.py breaks 1 rule(s)")
            && reason.contains("[ADR-014/no-direct-http] line 2"),
        "{reason}"
    );
    assert!(!reason.contains("src/old.py"), "{reason}");
    // Checked once: an unrelated command does not charge it again.
    assert_eq!(bash(root, "ls"), None);
    // The Stop: what is left blocks within the budget.
    let at_stop = stop(root).expect("a block");
    assert_eq!(at_stop["decision"], "block");
    let reason = at_stop["reason"].as_str().unwrap();
    assert!(reason.contains("[attempt 2/3] src/api.py:"), "{reason}");
    assert!(reason.contains("[ADR-014/no-direct-http]"), "{reason}");
    assert!(!reason.contains("src/old.py"), "{reason}");
    // Fixed by another command: the Stop lets the turn end.
    write(root, "src/api.py", GOOD);
    assert_eq!(stop(root), None);
}
