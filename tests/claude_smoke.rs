//! Smoke tests for the end-to-end harness (tests/support): the real Claude Code
//! CLI against the fake Messages API. They prove that a scripted tool call is
//! executed, that a `PostToolUse` block and a Stop block reach the model the way
//! `claude-code-hooks.md` describes, and that the harness captures it all.
//!
//! Skipped (with a note on stderr) when the client is not installed; under
//! `CI` a missing client is a failure. Install: `scripts/install-claude.sh`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use serde_json::json;

use support::claude::{
    ClaudeRun, first_request_with, hook_blocking_errors, require_claude, stop_hook_feedback,
};
use support::fake_api::{Conversation, FakeApi, RecordedRequest, RequestKind, Script, Turn};
use support::repo::ScratchRepo;

#[test]
fn write_tool_call_creates_the_file_and_run_ends_with_final_text() {
    let Some(bin) = require_claude() else { return };
    let repo = ScratchRepo::new();

    let api = FakeApi::start(|_req: &RecordedRequest, conv: &Conversation<'_>| {
        match conv.request_index() {
            0 => {
                let dir = conv
                    .working_dir()
                    .expect("working dir in the first request");
                Turn::text("Writing.").with_tool(
                    "Write",
                    json!({"file_path": dir.join("hello.txt"), "content": "hello world\n"}),
                )
            }
            _ => Turn::text("All done."),
        }
    });

    let outcome = ClaudeRun::new(&bin, &api, repo.path(), "Create hello.txt").run();
    outcome.assert_success();

    assert_eq!(repo.read("hello.txt").as_deref(), Some("hello world\n"));
    assert_eq!(
        outcome.result_text(),
        Some("All done."),
        "{}",
        outcome.describe()
    );

    let requests = api.requests();
    assert_eq!(
        requests.len(),
        2,
        "one request per model turn: {requests:#?}"
    );
    let first = &requests[0];
    assert!(first.is_messages_call(), "path {}", first.path);
    assert_eq!(first.kind(), RequestKind::Main);
    assert_eq!(first.working_dir().as_deref(), Some(repo.path()));
    assert_eq!(first.prompt().as_deref(), Some("Create hello.txt"));
    assert_eq!(first.header("x-api-key"), Some("sk-test"));
    assert_eq!(first.session_id.as_deref(), outcome.session_id());
    assert!(first.has_tool("Write"));
    let results = requests[1].tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(!results[0].is_error);
    assert!(
        results[0]
            .content
            .starts_with("File created successfully at: "),
        "{results:?}"
    );
    assert_eq!(outcome.field("num_turns"), Some(&json!(2)));
    assert_eq!(
        outcome.field("usage").and_then(|u| u.get("input_tokens")),
        Some(&json!(200))
    );
    assert!(api.errors().is_empty(), "{:?}", api.errors());
}

#[test]
fn post_tool_use_block_reaches_the_model_as_system_message() {
    let Some(bin) = require_claude() else { return };
    let repo = ScratchRepo::new();
    repo.write_executable(
        ".claude/hooks/post.sh",
        "#!/bin/sh\ncat >/dev/null\nprintf '%s\\n' '{\"decision\":\"block\",\"reason\":\"SMOKE-REASON\"}'\n",
    );
    repo.write_settings(&json!({"hooks": {"PostToolUse": [{
        "matcher": "Write|Edit",
        "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/post.sh"}]
    }]}}));

    let api = FakeApi::start(Script::new([
        Turn::text("Writing.").with_tool(
            "Write",
            json!({"file_path": repo.join("hello.txt"), "content": "hello\n"}),
        ),
        Turn::text("Fixed it."),
    ]));

    let outcome = ClaudeRun::new(&bin, &api, repo.path(), "Create hello.txt").run();
    outcome.assert_success();
    assert_eq!(
        outcome.result_text(),
        Some("Fixed it."),
        "{}",
        outcome.describe()
    );
    // PostToolUse cannot undo the write.
    assert_eq!(repo.read("hello.txt").as_deref(), Some("hello\n"));

    let requests = api.requests();
    assert_eq!(
        requests.len(),
        2,
        "a PostToolUse block adds no request: {requests:#?}"
    );
    let prefix = "PostToolUse:Write hook blocking error from command:";
    assert_eq!(first_request_with(&requests, "system", prefix), Some(1));
    let errors = hook_blocking_errors(&requests, "PostToolUse:Write");
    assert_eq!(
        errors,
        vec![r#"PostToolUse:Write hook blocking error from command: ""$CLAUDE_PROJECT_DIR"/.claude/hooks/post.sh": SMOKE-REASON"#.to_owned()],
    );
    // It sits right after the user message holding the tool result.
    let messages = requests[1].messages();
    let roles: Vec<&str> = messages.iter().filter_map(|m| m["role"].as_str()).collect();
    assert_eq!(roles.last(), Some(&"system"), "{roles:?}");
    assert_eq!(roles[roles.len() - 2], "user", "{roles:?}");
    assert!(api.errors().is_empty(), "{:?}", api.errors());
}

#[test]
fn stop_hook_block_once_sends_feedback_and_run_completes() {
    let Some(bin) = require_claude() else { return };
    let repo = ScratchRepo::new();
    let state = tempfile::tempdir().expect("temp dir for the stop marker");
    let marker = state.path().join("blocked-once");
    let payloads = state.path().join("stop-payloads.jsonl");
    repo.write_executable(
        ".claude/hooks/stop.sh",
        format!(
            "#!/bin/sh\ncat >> '{payloads}'\necho >> '{payloads}'\n\
             if [ -e '{marker}' ]; then exit 0; fi\n\
             touch '{marker}'\n\
             printf '%s\\n' '{{\"decision\":\"block\",\"reason\":\"SMOKE-STOP: run the tests\"}}'\n",
            payloads = payloads.display(),
            marker = marker.display(),
        ),
    );
    repo.write_settings(&json!({"hooks": {"Stop": [{
        "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/stop.sh"}]
    }]}}));

    let api = FakeApi::start(Script::new([
        Turn::text("First answer."),
        Turn::text("Second answer."),
    ]));

    let outcome = ClaudeRun::new(&bin, &api, repo.path(), "Do the task").run();
    outcome.assert_success();
    assert_eq!(
        outcome.result_text(),
        Some("Second answer."),
        "{}",
        outcome.describe()
    );
    assert!(marker.exists(), "the stop hook ran");

    let requests = api.requests();
    assert_eq!(
        requests.len(),
        2,
        "a Stop block adds one request: {requests:#?}"
    );
    assert_eq!(
        stop_hook_feedback(&requests),
        vec!["Stop hook feedback:\nSMOKE-STOP: run the tests".to_owned()],
    );
    assert_eq!(
        first_request_with(&requests, "user", "Stop hook feedback:\n"),
        Some(1)
    );
    assert!(requests[1].contains("Stop hook blocking error from command:"));

    // The hook saw stop_hook_active false, then true.
    let seen: Vec<serde_json::Value> = std::fs::read_to_string(&payloads)
        .expect("stop payload log")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("stop payload is JSON"))
        .collect();
    let active: Vec<bool> = seen
        .iter()
        .map(|p| p["stop_hook_active"] == json!(true))
        .collect();
    assert_eq!(active, vec![false, true], "{seen:#?}");
    assert_eq!(seen[1]["last_assistant_message"], json!("Second answer."));
    assert!(api.errors().is_empty(), "{:?}", api.errors());
}
