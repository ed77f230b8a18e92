//! `llm_review` rules at Stop: the real Claude Code client as the reviewer
//! against the fake Messages API, driven through `helix-gate hook` with real
//! events in real git repositories. A conflict blocks the Stop with the rule and
//! the reviewer's reason, the corrected change passes, the same change is never
//! reviewed twice, and the reviewer is never asked while a deterministic error
//! remains or for a decision that is only proposed.

use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::support::claude::{api_env, require_claude};
use crate::support::cli::write;
use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
use crate::support::hook::Hook;
use crate::support::repo::{ScratchRepo, state_dir};

const ADR: &str = "adr/014-gateway.md";
const RULE: &str = "ADR-014/retries-in-the-gateway";
const CODE: &str = "src/app/sync.py";

/// ADR-014 with `status`, governing `src/**`: a rule for the reviewer, and
/// optionally a deterministic one besides.
fn gateway_adr(status: &str, forbid_requests: bool) -> String {
    let deterministic = if forbid_requests {
        "  - id: no-direct-http\n    kind: forbid_import\n    why: \"All outbound HTTP goes through app.gateway.\"\n    modules: [requests]\n    examples: {violates: \"import requests\", passes: \"from app.gateway import client\"}\n"
    } else {
        ""
    };
    format!(
        "---\nadr_id: \"014\"\ntitle: Outbound HTTP goes through the gateway\nstatus: {status}\ngoverns: [\"src/**\"]\n---\n# ADR-014: Outbound HTTP goes through the gateway\n\n## Decision\n\nAll outbound HTTP goes through app.gateway. It retries and logs; no other code retries a request.\n\n## Enforcement\n\n```yaml\nrules:\n  - id: retries-in-the-gateway\n    kind: llm_review\n    why: \"It retries and logs; no other code retries a request.\"\n    check: \"The change does not retry HTTP requests itself (no loops or sleeps around a call); retrying is the gateway's job.\"\n{deterministic}```\n"
    )
}

const RETRYING: &str = "from app.gateway import client\nimport time\n\nfor attempt in range(5):\n    if client.get(\"https://example.com\"):\n        break\n    time.sleep(2)\n";
const PLAIN: &str = "from app.gateway import client\n\nclient.get(\"https://example.com\")\n";

/// A committed repository with ADR-014 and the reviewer pointed at `claude`
/// (the ADR approval itself is off: only the code review is under test).
fn project(claude: &Path, status: &str, forbid_requests: bool) -> ScratchRepo {
    let repo = ScratchRepo::new();
    let command = serde_json::to_string(&claude.to_string_lossy()).unwrap();
    repo.write(
        "config/approvals.yaml",
        format!("defaults:\n  command: {command}\n  timeout: 120\napprovals:\n  adr:\n    enabled: false\n"),
    );
    repo.write(ADR, gateway_adr(status, forbid_requests));
    repo.write("src/app/gateway.py", "client = None\n");
    repo.commit_all("ADR-014 and the gateway");
    repo
}

/// `helix-gate hook` with `event`, the reviewer's environment isolated.
fn hook(repo: &Path, api: &FakeApi, event: &Value) -> Option<Value> {
    let home = tempfile::tempdir().unwrap();
    Hook::new(repo)
        .env("HOME", home.path())
        .env("HELIX_GATE_STATE_DIR", state_dir(repo))
        .envs(api_env(&api.base_url()))
        .event(event)
        .answer()
}

fn start(root: &Path, api: &FakeApi) {
    hook(
        root,
        api,
        &json!({"session_id": "s", "transcript_path": "t", "cwd": root,
                "hook_event_name": "SessionStart", "source": "startup"}),
    );
}

fn save(root: &Path, api: &FakeApi, rel: &str, content: &str) -> Option<Value> {
    write(root, rel, content);
    hook(
        root,
        api,
        &json!({"session_id": "s", "transcript_path": "t", "cwd": root,
                "hook_event_name": "PostToolUse", "tool_name": "Write",
                "tool_input": {"file_path": root.join(rel), "content": "…"},
                "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"}),
    )
}

fn stop(root: &Path, api: &FakeApi) -> Option<Value> {
    hook(
        root,
        api,
        &json!({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": false,
                "last_assistant_message": "done", "background_tasks": []}),
    )
}

/// A fake API whose reviewer answers `verdict` (with `reason`) for [`RULE`],
/// switchable between calls.
fn reviewer() -> (FakeApi, Arc<Mutex<(&'static str, &'static str)>>) {
    let answer = Arc::new(Mutex::new(("consistent", "no retries outside the gateway")));
    let shared = Arc::clone(&answer);
    let api = FakeApi::start(move |_: &RecordedRequest, _: &Conversation| {
        let (verdict, reason) = *shared.lock().unwrap();
        Turn::structured_output(
            json!({"rules": [{"rule": RULE, "verdict": verdict, "reason": reason}]}),
        )
    });
    (api, answer)
}

fn log(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join(".helix-gate/log.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn a_conflict_blocks_the_stop_the_fix_passes_and_one_change_is_reviewed_once() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = project(&claude, "Accepted", false);
    let root = repo.path();
    let (api, answer) = reviewer();
    start(root, &api);
    *answer.lock().unwrap() = (
        "conflicts",
        "src/app/sync.py:4 retries client.get in a loop",
    );
    // No deterministic rule judges the file: the write itself passes.
    assert_eq!(save(root, &api, CODE, RETRYING), None);
    assert!(api.requests().is_empty(), "no review before the Stop");

    let answer_one = stop(root, &api).expect("the conflict blocks");
    assert_eq!(answer_one["decision"], "block", "{answer_one}");
    let reason = answer_one["reason"].as_str().unwrap();
    assert!(reason.contains(RULE), "{reason}");
    assert!(
        reason.contains("Reviewer: src/app/sync.py:4 retries client.get in a loop"),
        "{reason}"
    );
    assert!(reason.contains("[attempt 1/"), "{reason}");
    // The reviewer got the diff and the ADR in its run folder, and the rule.
    let requests = api.requests();
    assert_eq!(requests.len(), 1);
    let prompt = requests[0].prompt().unwrap();
    assert!(
        prompt.contains(RULE) && prompt.contains("input/change.diff"),
        "{prompt}"
    );
    let run = requests[0].working_dir().expect("run folder");
    let diff = std::fs::read_to_string(run.join("input/change.diff")).unwrap();
    assert!(
        diff.contains("+++ b/src/app/sync.py") && diff.contains("+    time.sleep(2)"),
        "{diff}"
    );
    assert!(run.join("input").join(ADR).is_file());

    // The same change again: the cached verdict, no second model call.
    let answer_two = stop(root, &api).expect("still blocked");
    assert_eq!(answer_two["decision"], "block", "{answer_two}");
    assert_eq!(api.requests().len(), 1, "one change is reviewed once");

    // The model takes the loop out: reviewed anew, consistent, the turn ends.
    *answer.lock().unwrap() = ("consistent", "one call through the gateway");
    save(root, &api, CODE, PLAIN);
    assert_eq!(stop(root, &api), None);
    assert_eq!(api.requests().len(), 2);
    let records = log(root);
    assert!(
        records
            .iter()
            .any(|r| r["target"] == format!("llm_review:{RULE}")
                && r["verdict"] == "block"
                && r["rules"] == json!([RULE])),
        "{records:?}"
    );
    assert!(
        records.iter().any(|r| r["target"] == RULE
            && r["verdict"] == "allow"
            && r.get("rules").is_none_or(|rules| rules == &json!([]))
            && r["note"]
                .as_str()
                .is_some_and(|n| n.starts_with("llm_review consistent"))),
        "{records:?}"
    );
}

#[test]
fn a_deterministic_error_left_means_no_review() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = project(&claude, "Accepted", true);
    let root = repo.path();
    let (api, _) = reviewer();
    start(root, &api);
    let bad = format!("import requests\n{RETRYING}");
    let saved = save(root, &api, CODE, &bad).expect("the import is blocked");
    assert_eq!(saved["decision"], "block", "{saved}");
    let answer = stop(root, &api).expect("still blocked at Stop");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("ADR-014/no-direct-http"),
        "{answer}"
    );
    assert!(
        api.requests().is_empty(),
        "the reviewer never sees code with a deterministic error"
    );
    // Fixed: now the reviewer decides (consistent), and the turn ends.
    save(root, &api, CODE, PLAIN);
    assert_eq!(stop(root, &api), None);
    assert_eq!(api.requests().len(), 1);
}

#[test]
fn a_proposed_decision_and_code_the_session_did_not_change_are_not_reviewed() {
    let Some(claude) = require_claude() else {
        return;
    };
    // Proposed: the rule is pending and no reviewer runs.
    let repo = project(&claude, "Proposed", false);
    let (api, _) = reviewer();
    start(repo.path(), &api);
    save(repo.path(), &api, CODE, RETRYING);
    assert_eq!(stop(repo.path(), &api), None);
    assert!(api.requests().is_empty());

    // Accepted, but the change was there when the session started and the
    // session left it as it was: not the session's doing.
    let repo = project(&claude, "Accepted", false);
    write(repo.path(), CODE, RETRYING);
    let (api, _) = reviewer();
    start(repo.path(), &api);
    assert_eq!(stop(repo.path(), &api), None);
    assert!(api.requests().is_empty());
}

/// End to end: the real Claude Code session (hooks installed) writes code that
/// retries in a loop, its Stop is held by the reviewer's conflict (a second
/// `claude -p`, the same fake API), it takes the loop out, and the turn ends
/// once the reviewer finds the change consistent.
#[test]
fn claude_is_held_by_the_reviewers_conflict_and_corrects_itself() {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use crate::support::claude::{ClaudeRun, stop_hook_feedback};
    use crate::support::cli::{code, run, stderr};

    let Some(claude) = require_claude() else {
        return;
    };
    let repo = project(&claude, "Accepted", false);
    let out = run(repo.path(), &["install", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.commit_all("hooks installed");
    let file = repo.join(CODE);
    let (main, reviews) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
        if conv.is_structured_output() {
            let (verdict, reason) = match reviews.fetch_add(1, Ordering::SeqCst) {
                0 => (
                    "conflicts",
                    "src/app/sync.py:4 retries client.get in a loop",
                ),
                _ => ("consistent", "one call through the gateway"),
            };
            return Turn::structured_output(
                json!({"rules": [{"rule": RULE, "verdict": verdict, "reason": reason}]}),
            );
        }
        match main.fetch_add(1, Ordering::SeqCst) {
            0 => Turn::text("Writing the sync job.")
                .with_tool("Write", json!({"file_path": file, "content": RETRYING})),
            1 => Turn::text("The sync job retries until the call succeeds."),
            2 => Turn::text("Taking the loop out.")
                .with_tool("Write", json!({"file_path": file, "content": PLAIN})),
            _ => Turn::text("The sync job calls the gateway once; the gateway retries."),
        }
    });
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Add a sync job").run();
    outcome.assert_success();
    let feedback = stop_hook_feedback(&api.main_requests());
    assert_eq!(feedback.len(), 1, "{}", outcome.describe());
    assert!(
        feedback[0].contains(RULE)
            && feedback[0].contains("Reviewer: src/app/sync.py:4 retries client.get in a loop"),
        "{}",
        feedback[0]
    );
    let reviewer_calls = api
        .requests()
        .iter()
        .filter(|r| r.is_structured_output())
        .count();
    assert_eq!(reviewer_calls, 2, "{}", outcome.describe());
    assert_eq!(
        outcome.result_text(),
        Some("The sync job calls the gateway once; the gateway retries.")
    );
    assert_eq!(repo.read(CODE).unwrap(), PLAIN);
}
