//! `helix-gate hook`: decisions for every observed event, the retry budget, the
//! failure policy and bad input (driven through stdin), then end to end with the
//! real Claude Code client against the fake Messages API.

use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::{Hook, hook};

/// Turns the reviewer off: these tests are about the deterministic gate.
const NO_APPROVAL: &str = "approvals:\n  adr:\n    enabled: false\n";

/// A project with the passing fixture's dependency (src/lib.rs), reviewer off.
fn project() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "config/approvals.yaml", NO_APPROVAL);
    repo
}

fn post_write(root: &Path, session: &str, rel: &str) -> Value {
    json!({"session_id": session, "transcript_path": "t", "cwd": root, "hook_event_name": "PostToolUse",
           "tool_name": "Write", "tool_input": {"file_path": root.join(rel), "content": "…"},
           "tool_response": {"type": "create"}, "tool_use_id": "toolu_1", "duration_ms": 3})
}

fn stop(session: &str, last: &str) -> Value {
    json!({"session_id": session, "hook_event_name": "Stop", "stop_hook_active": false,
           "last_assistant_message": last, "background_tasks": [], "session_crons": []})
}

fn log_lines(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join(".helix-gate/log.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn bad_adr() -> String {
    good_adr().replace("## Dokumentation", "## Notizen")
}

#[test]
fn non_adr_write_gives_no_output_and_logs_nothing() {
    let root = project();
    write(root.path(), "src/main.rs", "fn main() {}");
    write(root.path(), "notes/readme.md", "# notes");
    assert_eq!(
        hook(root.path(), &post_write(root.path(), "s", "src/main.rs")),
        None
    );
    assert_eq!(
        hook(
            root.path(),
            &post_write(root.path(), "s", "notes/readme.md")
        ),
        None
    );
    assert!(log_lines(root.path()).is_empty());
}

#[test]
fn adr_with_errors_is_blocked_with_failed_and_passed_checks() {
    let root = project();
    write(root.path(), "adr/001-x.md", bad_adr());
    let answer = hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md")).expect("a block");
    assert_eq!(answer["decision"], "block");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains("adr/001-x.md fails 1 check(s) (attempt 1/3)"),
        "{reason}"
    );
    assert!(
        reason.contains(
            "FAILED:\n- [section-missing] line 1: required section \"Dokumentation\" is missing"
        ),
        "{reason}"
    );
    assert!(reason.contains("PASSED (keep these passing): file content, front matter, acceptance criteria, file references, contextual rules"), "{reason}");
    let log = log_lines(root.path());
    assert_eq!(
        (log[0]["verdict"].as_str(), log[0]["attempt"].as_u64()),
        (Some("block"), Some(1))
    );
    assert!(log[0]["duration_us"].as_u64().unwrap() > 0);
}

#[test]
fn warnings_only_give_context_and_clean_adrs_give_nothing() {
    let root = project();
    let warn = good_adr().replace("- [x] The benchmark", "- The benchmark");
    write(root.path(), "adr/001-x.md", warn);
    let answer = hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md")).unwrap();
    assert!(answer.get("decision").is_none());
    assert_eq!(answer["hookSpecificOutput"]["hookEventName"], "PostToolUse");
    assert!(
        answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("acceptance-criteria-min")
    );
    write(root.path(), "adr/001-x.md", good_adr());
    assert_eq!(
        hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md")),
        None
    );
}

#[test]
fn budget_is_bounded_then_escalates_and_resets_after_a_pass() {
    let root = project();
    write(
        root.path(),
        "config/approvals.yaml",
        "defaults:\n  command: no-such-reviewer-binary\n",
    );
    write(root.path(), "adr/001-x.md", bad_adr());
    for attempt in 1..=3 {
        let a = hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md")).unwrap();
        assert_eq!(a["decision"], "block");
        assert!(
            a["reason"]
                .as_str()
                .unwrap()
                .contains(&format!("attempt {attempt}/3"))
        );
    }
    let a = hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md")).unwrap();
    assert!(
        a.get("decision").is_none(),
        "no block once the budget is spent: {a}"
    );
    assert!(a["systemMessage"].as_str().unwrap().contains("escalated"));
    assert!(
        a["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("section-missing")
    );
    // The user is told once; the model keeps getting the context.
    let again = hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md")).unwrap();
    assert!(again.get("systemMessage").is_none());
    // Stop does not block an escalated target either, and never sends it to the
    // reviewer (which is enabled here and would fail to start).
    // (The reviewer was enabled with a command that does not exist from the start.)
    assert_eq!(hook(root.path(), &stop("s", "done")), None);
    assert!(!root.path().join(".helix-gate/approvals").exists());
    assert!(
        log_lines(root.path())
            .iter()
            .any(|l| l["verdict"] == "escalate")
    );
    // A pass resets the budget.
    write(root.path(), "adr/001-x.md", good_adr());
    assert_eq!(
        hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md")),
        None
    );
    write(root.path(), "adr/001-x.md", bad_adr());
    let a = hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md")).unwrap();
    assert!(a["reason"].as_str().unwrap().contains("attempt 1/3"));
    // Another session has its own budget.
    let other = hook(root.path(), &post_write(root.path(), "t", "adr/001-x.md")).unwrap();
    assert!(other["reason"].as_str().unwrap().contains("attempt 1/3"));
}

#[test]
fn stop_checks_touched_adrs_as_they_are_on_disk_now() {
    let root = project();
    write(root.path(), "adr/001-x.md", good_adr());
    write(
        root.path(),
        "adr/002-untouched.md",
        bad_adr().replace("\"001\"", "\"002\""),
    );
    assert_eq!(
        hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md")),
        None
    );
    assert_eq!(
        hook(root.path(), &stop("s", "done")),
        None,
        "untouched ADRs are not this session's business"
    );
    write(root.path(), "adr/001-x.md", bad_adr());
    let a = hook(root.path(), &stop("s", "done")).unwrap();
    assert_eq!(a["decision"], "block");
    assert!(
        a["reason"]
            .as_str()
            .unwrap()
            .contains("[attempt 1/3] adr/001-x.md")
    );
    // Background tasks: never block.
    let mut busy = stop("s", "done");
    busy["background_tasks"] = json!([{"id": "b1"}]);
    assert_eq!(hook(root.path(), &busy), None);
    // Deleted: nothing left to check.
    std::fs::remove_file(root.path().join("adr/001-x.md")).unwrap();
    assert_eq!(hook(root.path(), &stop("s", "done")), None);
}

#[test]
fn step_marker_must_end_the_answer_then_falls_back() {
    let root = project();
    write(
        root.path(),
        "config/helix-gate.yaml",
        "step_marker: {enabled: true, paths: []}\n",
    );
    write(root.path(), "output/response.md", "Antwort an den User.\n");
    assert_eq!(
        hook(root.path(), &stop("s", "Answer.\n\n<!-- STEP: what -->")),
        None
    );
    let a = hook(
        root.path(),
        &stop("s", "<!-- STEP: what -->\nAnswer after the marker."),
    )
    .unwrap();
    let reason = a["reason"].as_str().unwrap();
    assert!(reason.contains("not at its very end"), "{reason}");
    assert!(
        reason.contains("<!-- STEP: what|why|constraints|generate|finalize|done -->"),
        "{reason}"
    );
    for attempt in 2..=3 {
        let a = hook(root.path(), &stop("s", "Was meinst du?")).unwrap();
        assert!(
            a["reason"]
                .as_str()
                .unwrap()
                .contains(&format!("attempt {attempt}/3"))
        );
    }
    let a = hook(root.path(), &stop("s", "Was meinst du?")).unwrap();
    assert!(a.get("decision").is_none());
    assert!(
        a.get("hookSpecificOutput").is_none(),
        "context at Stop would make the model continue"
    );
    assert!(a["systemMessage"].as_str().unwrap().contains("step-marker"));
    let response = std::fs::read_to_string(root.path().join("output/response.md")).unwrap();
    assert!(response.ends_with("<!-- STEP: what -->\n"), "{response}");
    assert!(
        log_lines(root.path())
            .iter()
            .any(|l| l["verdict"] == "fallback")
    );
}

#[test]
fn session_start_gives_rules_summary_and_compact_is_never_blocked() {
    let root = project();
    let a = hook(
        root.path(),
        &json!({"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"}),
    )
    .unwrap();
    let text = a["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert_eq!(a["hookSpecificOutput"]["hookEventName"], "SessionStart");
    assert!(
        text.contains(
            "Kontext, Entscheidung, Implementation, Dokumentation, Akzeptanzkriterien, Konsequenzen"
        ),
        "{text}"
    );
    assert_eq!(
        hook(
            root.path(),
            &json!({"session_id": "s", "hook_event_name": "UserPromptSubmit", "prompt": "x"})
        ),
        None,
        "off by default"
    );
    write(root.path(), "adr/001-x.md", bad_adr());
    hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md"));
    let compact = json!({"session_id": "s", "hook_event_name": "SubagentStop", "agent_type": "", "stop_hook_active": false, "last_assistant_message": "summary"});
    assert_eq!(hook(root.path(), &compact), None);
}

#[test]
fn reviewer_child_guard_makes_the_hook_a_no_op() {
    let root = project();
    write(root.path(), "adr/001-x.md", bad_adr());
    let event = post_write(root.path(), "s", "adr/001-x.md");
    let run = Hook::new(root.path())
        .env("HELIX_GATE_CHILD", "1")
        .event(&event);
    assert_eq!((run.code, run.stdout.as_str()), (0, ""));
}

#[test]
fn unknown_events_tools_and_missing_fields_are_ignored() {
    let root = project();
    for event in [
        json!({"hook_event_name": "NoSuchEvent"}),
        json!({"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"}}),
        json!({"hook_event_name": "PostToolUse", "tool_input": {"file_path": "adr/1.md"}}),
        json!({"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": {"file_path": "/etc/passwd"}}),
    ] {
        assert_eq!(hook(root.path(), &event), None, "{event}");
    }
    // A Write without a readable path cannot be checked: said, never silent
    // (tests/it/hostile_hook.rs has the cases).
    for event in [
        json!({"hook_event_name": "PostToolUse", "tool_name": "Write"}),
        json!({"hook_event_name": "PostToolUse", "tool_name": "Write", "tool_input": {"file_path": 5}}),
    ] {
        let answer = hook(root.path(), &event).unwrap();
        assert!(
            answer["systemMessage"]
                .as_str()
                .unwrap()
                .contains("infrastructure error"),
            "{answer}"
        );
    }
}

#[test]
#[cfg(unix)]
fn symlink_out_of_the_project_and_deleted_files_are_not_read() {
    let root = project();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", bad_adr());
    std::fs::create_dir_all(root.path().join("adr")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        root.path().join("adr/001-link.md"),
    )
    .unwrap();
    assert_eq!(
        hook(
            root.path(),
            &post_write(root.path(), "s", "adr/001-link.md")
        ),
        None
    );
    assert_eq!(
        hook(
            root.path(),
            &post_write(root.path(), "s", "adr/002-gone.md")
        ),
        None
    );
    let notes: Vec<String> = log_lines(root.path())
        .iter()
        .map(|l| l["note"].as_str().unwrap_or("").to_owned())
        .collect();
    assert_eq!(
        notes,
        ["symlink leads outside the project", "file no longer exists"]
    );
}

#[test]
fn damaged_stdin_fails_open_with_a_message() {
    let root = project();
    let stop_line = stop("s", "x").to_string();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (Vec::new(), "empty input"),
        (b"not json\n".to_vec(), "not valid JSON"),
        (
            format!("{stop_line}\ntrailing garbage").into_bytes(),
            "not valid JSON",
        ),
        (
            format!("{stop_line}{stop_line}").into_bytes(),
            "not valid JSON",
        ),
        (
            b"{\"hook_event_name\":\"Stop\0\"}".to_vec(),
            "not valid JSON",
        ),
        (vec![b' '; 17 * 1024 * 1024], "larger than"),
    ];
    for (input, expected) in cases {
        let run = Hook::new(root.path()).stdin(input);
        assert_eq!(run.code, 0);
        let answer = run.answer().unwrap();
        let err = run.stderr;
        let msg = answer["systemMessage"].as_str().unwrap();
        assert!(
            msg.contains("infrastructure error") && msg.contains(expected),
            "{msg}"
        );
        assert!(err.contains(expected), "{err}");
    }
    // A UTF-8 BOM is tolerated.
    let run = Hook::new(root.path()).stdin(format!("\u{feff}{stop_line}\n"));
    assert_eq!(run.stdout, "");
}

#[test]
fn stdin_that_never_closes_is_read_with_a_bound() {
    let root = project();
    for payload in [String::new(), format!("{}\n", stop("s", "x"))] {
        let mut child = Hook::new(root.path()).spawn();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(payload.as_bytes()).unwrap();
        let started = Instant::now();
        loop {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "hook hangs on an open stdin"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert_eq!(code(&out), 0);
        if payload.is_empty() {
            assert!(stdout(&out).contains("did not close"), "{}", stdout(&out));
        } else {
            assert_eq!(
                stdout(&out),
                "",
                "a complete event is decided even if stdin stays open"
            );
        }
    }
}

#[test]
fn infrastructure_errors_fail_open_or_closed_as_configured() {
    let root = project();
    write(root.path(), "adr/001-x.md", bad_adr());
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook: {budgett: 3}\n",
    );
    let a = hook(root.path(), &post_write(root.path(), "s1", "adr/001-x.md")).unwrap();
    assert!(a.get("decision").is_none());
    let msg = a["systemMessage"].as_str().unwrap();
    assert!(
        msg.contains("infrastructure error") && msg.contains("budgett"),
        "{msg}"
    );
    // State directory unusable (a file where the directory should be).
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook: {fail_closed: true}\n",
    );
    let _ = std::fs::remove_dir_all(root.path().join(".helix-gate"));
    write(root.path(), ".helix-gate", "not a directory");
    let a = hook(root.path(), &post_write(root.path(), "s2", "adr/001-x.md")).unwrap();
    assert_eq!(a["decision"], "block");
    assert!(
        a["reason"]
            .as_str()
            .unwrap()
            .starts_with("helix-gate infrastructure error (not a problem in your files)"),
        "{a}"
    );
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook: {fail_closed: false}\n",
    );
    let a = hook(root.path(), &post_write(root.path(), "s3", "adr/001-x.md")).unwrap();
    assert!(
        a.get("decision").is_none()
            && a["systemMessage"]
                .as_str()
                .unwrap()
                .contains("infrastructure error")
    );
}

#[test]
fn reviewer_failure_at_stop_fails_open_and_a_known_bad_adr_never_reaches_it() {
    let root = project();
    write(
        root.path(),
        "config/approvals.yaml",
        "defaults:\n  command: no-such-reviewer-binary\n",
    );
    write(root.path(), "adr/001-x.md", bad_adr());
    hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md"));
    // Deterministic errors: blocked by the checks, no reviewer, no run folder.
    let a = hook(root.path(), &stop("s", "done")).unwrap();
    assert_eq!(a["decision"], "block");
    assert!(!root.path().join(".helix-gate/approvals").exists());
    // Deterministically clean: the reviewer is asked and cannot start.
    write(root.path(), "adr/001-x.md", good_adr());
    let a = hook(root.path(), &stop("s", "done")).unwrap();
    assert!(a.get("decision").is_none(), "{a}");
    let msg = a["systemMessage"].as_str().unwrap();
    assert!(
        msg.contains("infrastructure error") && msg.contains("reviewer"),
        "{msg}"
    );
}

#[test]
fn log_and_stats_read_the_decision_log() {
    let root = project();
    write(root.path(), "adr/001-x.md", bad_adr());
    hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md"));
    write(root.path(), "adr/001-x.md", good_adr());
    hook(root.path(), &post_write(root.path(), "s", "adr/001-x.md"));
    let out = run(root.path(), &["stats", "--format", "json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (
            v["hook"]["decisions"].as_u64(),
            v["hook"]["blocks"].as_u64(),
            v["hook"]["passes"].as_u64()
        ),
        (Some(2), Some(1), Some(1))
    );
    assert!(v["hook"]["p95_us"].as_u64().unwrap() >= v["hook"]["p50_us"].as_u64().unwrap());
    let text = stdout(&run(root.path(), &["log", "--tail", "1"]));
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(
        text.contains("pass") && text.contains("adr/001-x.md"),
        "{text}"
    );
}

#[test]
fn install_claude_refuses_invalid_settings_and_uninstall_removes_only_ours() {
    let root = project();
    write(root.path(), ".claude/settings.json", "{ broken");
    let out = run(root.path(), &["install", "claude"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("not valid JSON"), "{}", stderr(&out));
    write(
        root.path(),
        ".claude/settings.json",
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}}"#,
    );
    assert_eq!(code(&run(root.path(), &["install", "claude"])), 0);
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(root.path().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(v["hooks"]["Stop"].as_array().unwrap().len(), 2);
    assert!(
        v["hooks"]["Stop"][1]["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .ends_with(" hook")
    );
    assert_eq!(code(&run(root.path(), &["uninstall", "claude"])), 0);
    let v: Value = serde_json::from_str(
        &std::fs::read_to_string(root.path().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        v,
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}})
    );
}

#[test]
fn plugin_manifest_and_hooks_point_at_the_wrapper() {
    let hooks: Value = serde_json::from_str(
        &std::fs::read_to_string(manifest_dir().join("hooks/hooks.json")).unwrap(),
    )
    .unwrap();
    for event in ["PostToolUse", "Stop", "SessionStart"] {
        let command = hooks["hooks"][event][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        assert!(
            command.contains("${CLAUDE_PLUGIN_ROOT}/hooks/helix-gate.sh")
                && command.ends_with(" hook"),
            "{command}"
        );
    }
    let plugin: Value = serde_json::from_str(
        &std::fs::read_to_string(manifest_dir().join(".claude-plugin/plugin.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(plugin["name"], "helix-gate");
}

mod e2e {
    //! The real Claude Code client (2.1.329) against the fake Messages API, with the
    //! hook registered by `helix-gate install claude`.

    use serde_json::{Value, json};

    use crate::support::claude::{
        ClaudeRun, hook_blocking_errors, require_claude, stop_hook_feedback,
    };
    use crate::support::cli::*;
    use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
    use crate::support::repo::ScratchRepo;

    fn installed_repo() -> ScratchRepo {
        let repo = ScratchRepo::new();
        repo.write("src/lib.rs", "");
        repo.write("config/approvals.yaml", super::NO_APPROVAL);
        let out = run(repo.path(), &["install", "claude"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        repo
    }

    fn bad() -> String {
        good_adr().replace("## Dokumentation", "## Notizen")
    }

    fn write_adr(conv: &Conversation<'_>, content: &str) -> Turn {
        let dir = conv.working_dir().expect("working dir");
        Turn::text("Writing the ADR.").with_tool(
            "Write",
            json!({"file_path": dir.join("adr/001-cache.md"), "content": content}),
        )
    }

    fn log(repo: &ScratchRepo) -> Vec<Value> {
        repo.read(".helix-gate/log.jsonl")
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn missing_section_reaches_the_model_which_fixes_it() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = installed_repo();
        let api = FakeApi::start(|_: &RecordedRequest, conv: &Conversation<'_>| {
            match conv.request_index() {
                0 => write_adr(conv, &bad()),
                1 => write_adr(conv, &good_adr()),
                _ => Turn::text("ADR written."),
            }
        });
        let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
        outcome.assert_success();
        let requests = api.main_requests();
        assert_eq!(requests.len(), 3, "{}", outcome.describe());
        let blocks = hook_blocking_errors(&requests, "PostToolUse:Write");
        assert_eq!(blocks.len(), 1, "{blocks:#?}");
        assert!(
            blocks[0].contains("required section \\\"Dokumentation\\\" is missing")
                || blocks[0].contains("required section \"Dokumentation\" is missing"),
            "{}",
            blocks[0]
        );
        assert!(blocks[0].contains("attempt 1/3"));
        assert!(requests[1].contains("PostToolUse:Write hook blocking error"));
        assert!(stop_hook_feedback(&requests).is_empty());
        assert_eq!(outcome.result_text(), Some("ADR written."));
    }

    #[test]
    fn missing_step_marker_gets_stop_feedback_then_the_run_completes() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = installed_repo();
        repo.write(
            "config/helix-gate.yaml",
            "step_marker: {enabled: true, paths: []}\n",
        );
        let api = FakeApi::start(|_: &RecordedRequest, conv: &Conversation<'_>| {
            match conv.request_index() {
                0 => Turn::text("Was genau soll gebaut werden?"),
                _ => Turn::text("Was genau soll gebaut werden?\n\n<!-- STEP: what -->"),
            }
        });
        let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Ich brauche ein Tool").run();
        outcome.assert_success();
        let requests = api.main_requests();
        assert_eq!(requests.len(), 2, "{}", outcome.describe());
        let feedback = stop_hook_feedback(&requests);
        assert_eq!(feedback.len(), 1);
        assert!(
            feedback[0].contains("does not end with a STEP marker"),
            "{}",
            feedback[0]
        );
        assert!(feedback[0].contains("<!-- STEP: what|why|constraints|generate|finalize|done -->"));
        assert!(
            outcome
                .result_text()
                .unwrap()
                .ends_with("<!-- STEP: what -->")
        );
    }

    #[test]
    fn a_model_that_never_fixes_gets_exactly_the_budget_then_escalation() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = installed_repo();
        let api = FakeApi::start(|_: &RecordedRequest, conv: &Conversation<'_>| {
            match conv.request_index() {
                0 => write_adr(conv, &bad()),
                _ => Turn::text("Looks good to me."),
            }
        });
        let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
        outcome.assert_success();
        let requests = api.main_requests();
        // 1 PostToolUse block + 2 Stop blocks = the budget of 3; then the turn ends.
        assert_eq!(
            hook_blocking_errors(&requests, "PostToolUse:Write").len(),
            1
        );
        assert_eq!(
            requests
                .iter()
                .filter(|r| r
                    .last_text_of_role("user")
                    .is_some_and(|t| t.starts_with("Stop hook feedback:")))
                .count(),
            2,
            "{}",
            outcome.describe()
        );
        assert_eq!(requests.len(), 4, "{}", outcome.describe());
        let log = log(&repo);
        let verdicts: Vec<&str> = log
            .iter()
            .filter(|l| l["target"] == "adr/001-cache.md")
            .map(|l| l["verdict"].as_str().unwrap())
            .collect();
        assert_eq!(verdicts, ["block", "block", "block", "escalate"]);
    }

    #[test]
    fn a_non_adr_write_produces_no_hook_output() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = installed_repo();
        let api = FakeApi::start(|_: &RecordedRequest, conv: &Conversation<'_>| {
            match conv.request_index() {
                0 => {
                    let dir = conv.working_dir().unwrap();
                    Turn::tool_use(
                        "Write",
                        json!({"file_path": dir.join("src/util.rs"), "content": "pub fn f() {}\n"}),
                    )
                }
                _ => Turn::text("Done."),
            }
        });
        let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Add util").run();
        outcome.assert_success();
        let requests = api.main_requests();
        assert_eq!(requests.len(), 2);
        assert!(
            !requests[1].contains("PostToolUse:Write hook"),
            "no hook text may reach the model"
        );
        assert!(log(&repo).is_empty(), "no decision about a non-ADR write");
    }

    #[test]
    fn stop_gate_review_rejects_then_approves_the_fixed_adr() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = ScratchRepo::new();
        repo.write("src/lib.rs", "");
        repo.write(
            "config/approvals.yaml",
            format!("defaults:\n  command: \"{}\"\n", claude.display()),
        );
        let out = run(repo.path(), &["install", "claude"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let reviews = std::sync::atomic::AtomicUsize::new(0);
        let fixed = good_adr().replace(
            "## Konsequenzen",
            "## Risiken\n\nA stale cache is invalidated by the file's modification time.\n\n## Konsequenzen",
        );
        let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
            if conv.is_structured_output() {
                let n = reviews.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                return if n == 0 {
                    Turn::structured_output(json!({"result": "rejected", "confidence": 0.9,
                        "findings": [{"severity": "error", "check": "completeness", "message": "REVIEWER: no word on cache invalidation", "location": "Entscheidung"}],
                        "recommendations": ["Explain when the cache is invalidated"]}))
                } else {
                    Turn::structured_output(
                        json!({"result": "approved", "confidence": 0.95, "findings": [], "recommendations": []}),
                    )
                };
            }
            match conv.request_index() {
                0 => write_adr(conv, &good_adr()),
                1 => Turn::text("ADR written."),
                2 => write_adr(conv, &fixed),
                _ => Turn::text("ADR revised."),
            }
        });
        let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
        outcome.assert_success();
        let main: Vec<RecordedRequest> = api
            .main_requests()
            .into_iter()
            .filter(|r| !r.is_structured_output())
            .collect();
        let feedback = stop_hook_feedback(&main);
        assert_eq!(feedback.len(), 1, "{}", outcome.describe());
        assert!(
            feedback[0].contains("Approval not granted")
                && feedback[0].contains("REVIEWER: no word on cache invalidation"),
            "{}",
            feedback[0]
        );
        assert_eq!(outcome.result_text(), Some("ADR revised."));
        let verdicts: Vec<String> = log(&repo)
            .iter()
            .filter(|l| l["target"] == "adr/001-cache.md")
            .map(|l| l["verdict"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            verdicts,
            ["pass", "block", "pass", "approved"],
            "{verdicts:?}"
        );
        let history = repo.read(".helix-gate/approvals.jsonl").unwrap();
        assert_eq!(history.lines().count(), 2, "{history}");
    }

    #[test]
    fn two_sessions_at_once_keep_separate_budgets() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = installed_repo();
        let api = FakeApi::start(|_: &RecordedRequest, conv: &Conversation<'_>| {
            match conv.request_index() {
                0 => write_adr(conv, &bad()),
                _ => Turn::text("Looks good to me."),
            }
        });
        let runs: Vec<_> = (0..2)
            .map(|i| {
                let run = ClaudeRun::new(&claude, &api, repo.path(), format!("Write the ADR {i}"));
                std::thread::spawn(move || run.run())
            })
            .collect();
        for handle in runs {
            handle.join().unwrap().assert_success();
        }
        let sessions = api.session_ids();
        assert_eq!(sessions.len(), 2);
        for session in &sessions {
            let verdicts: Vec<String> = log(&repo)
                .iter()
                .filter(|l| l["session"] == session.as_str() && l["target"] == "adr/001-cache.md")
                .map(|l| l["verdict"].as_str().unwrap().to_owned())
                .collect();
            assert_eq!(
                verdicts,
                ["block", "block", "block", "escalate"],
                "session {session}"
            );
        }
    }
}

/// Seed 003's hard cap: `hook.budget: 1000` (and a mistyped `fail_closed`) no
/// longer turns every check off for the session. Each bad key falls back to the
/// built-in value with one message naming the key and the allowed range: in the
/// hook's `systemMessage` at `SessionStart`, on stderr of `validate` and `doctor`;
/// the bad ADR is still blocked.
#[test]
fn a_settings_value_mistake_falls_back_and_keeps_the_gate_on() {
    let root = project();
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook:\n  budget: 1000\n  fail_closed: sometimes\n",
    );
    let rel = "adr/001-minimal-valid.md";
    write(root.path(), rel, bad_adr());
    let message = "hook.budget: 1000 is out of range (allowed: 1 to 10); using 3";
    let start = hook(
        root.path(),
        &json!({"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"}),
    )
    .unwrap();
    let shown = start["systemMessage"].as_str().unwrap_or_default();
    assert!(shown.contains(message), "{start}");
    assert!(
        shown.contains("hook.fail_closed: `sometimes` is not true or false; using false"),
        "{start}"
    );
    let answer = hook(root.path(), &post_write(root.path(), "s", rel)).unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    let out = run(root.path(), &["validate", rel]);
    assert_eq!(code(&out), 1, "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains(message), "{}", stderr(&out));
    let out = run(root.path(), &["doctor"]);
    assert!(stderr(&out).contains(message), "{}", stderr(&out));
}

/// The repository's last good configuration decides a fallen-back key in the
/// hook: a session started with `budget: 5`, the next one with `budget: 1000`
/// runs with 5, and says so.
#[test]
fn a_settings_value_mistake_falls_back_to_the_last_good_value_in_the_hook() {
    let root = project();
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook:\n  budget: 5\n",
    );
    let start = |session: &str| {
        hook(
            root.path(),
            &json!({"session_id": session, "hook_event_name": "SessionStart", "source": "startup"}),
        )
        .unwrap()
    };
    let first = start("a");
    assert!(first.get("systemMessage").is_none(), "{first}");
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook:\n  budget: 1000\n",
    );
    let second = start("b");
    assert!(
        second["systemMessage"]
            .as_str()
            .unwrap_or_default()
            .contains(
                "hook.budget: 1000 is out of range (allowed: 1 to 10); using 5 (last good value)"
            ),
        "{second}"
    );
}

/// A file named like an ADR outside the ADR globs (a HELIX repository, `docs/adr/`):
/// never passed in silence; the model and the user are told it was not checked and
/// why, and the write is not blocked.
#[test]
fn an_adr_named_file_outside_the_globs_is_reported_unchecked() {
    let root = project();
    write(root.path(), "adr/001-minimal-valid.md", good_adr());
    write(root.path(), "docs/adr/001-x.md", bad_adr());
    let answer = hook(
        root.path(),
        &post_write(root.path(), "s", "docs/adr/001-x.md"),
    )
    .unwrap();
    assert!(answer.get("decision").is_none(), "{answer}");
    let context = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(
        context.contains("docs/adr/001-x.md looks like an ADR but was not checked")
            && context.contains("adr/**/*.md")
            && context.contains("helix-gate init"),
        "{context}"
    );
    assert!(
        answer["systemMessage"]
            .as_str()
            .unwrap()
            .contains("not checked"),
        "{answer}"
    );
    // A Markdown file not named like an ADR stays silent.
    write(root.path(), "docs/adr/README.md", "# ADRs\n");
    assert_eq!(
        hook(
            root.path(),
            &post_write(root.path(), "s", "docs/adr/README.md")
        ),
        None
    );
}
