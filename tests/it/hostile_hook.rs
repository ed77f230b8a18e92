//! `helix-gate hook` under hostile input and in hostile repositories: it cannot be
//! hung (stdin, locks, files that never end), fooled (symlinked paths, payload
//! fields of the wrong type, symlinks out of the project) or bypassed (writes into
//! `.helix-gate/`). Every run is bounded: a hook that overruns is killed and the
//! test fails instead of hanging the suite.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::{Hook, HookRun};

/// Turns the reviewer off: these tests are about the deterministic gate.
const NO_APPROVAL: &str = "approvals:\n  adr:\n    enabled: false\n";
/// Longest any hook run may take here: the default deadline (8 s) plus room.
const HARD_LIMIT: Duration = Duration::from_secs(15);

fn project() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "config/approvals.yaml", NO_APPROVAL);
    repo
}

fn bad_adr() -> String {
    good_adr().replace("## Dokumentation", "## Notizen")
}

/// The hook for the project at `project_dir`, killed (and the test failed) after
/// [`HARD_LIMIT`].
fn bounded_hook(project_dir: &Path) -> Hook {
    Hook::new(project_dir).limit(HARD_LIMIT)
}

fn hook_bytes(project_dir: &Path, bytes: Vec<u8>) -> HookRun {
    bounded_hook(project_dir).stdin(bytes)
}

fn hook(project_dir: &Path, event: &Value) -> HookRun {
    bounded_hook(project_dir).event(event)
}

fn post_write(file: &Path, session: &str) -> Value {
    json!({"session_id": session, "transcript_path": "t", "cwd": "/", "hook_event_name": "PostToolUse",
           "tool_name": "Write", "tool_input": {"file_path": file, "content": "…"},
           "tool_response": {"type": "create"}, "tool_use_id": "toolu_1", "duration_ms": 3})
}

fn pre_write(file: &Path, tool: &str) -> Value {
    json!({"session_id": "s", "transcript_path": "t", "cwd": "/", "hook_event_name": "PreToolUse",
           "tool_name": tool, "tool_input": {"file_path": file, "content": "{}"}, "tool_use_id": "toolu_1"})
}

fn stop(session: &str) -> Value {
    json!({"session_id": session, "hook_event_name": "Stop", "stop_hook_active": false,
           "last_assistant_message": "done", "background_tasks": [], "session_crons": []})
}

fn log_lines(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join(".helix-gate/log.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn text(answer: &Value) -> String {
    answer.to_string()
}

/// The labelled infrastructure answer under `fail_closed: false` / `true`.
fn assert_fails_open(answer: &Value, what: &str) {
    assert!(answer.get("decision").is_none(), "{answer}");
    let msg = answer["systemMessage"].as_str().unwrap();
    assert!(
        msg.starts_with(
            "helix-gate escalation: infrastructure -: - after 1 failure; infrastructure error"
        ) && msg.contains(what),
        "{msg}"
    );
}

fn assert_fails_closed(answer: &Value, what: &str) {
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("helix-gate infrastructure error (not a problem in your files)")
            && reason.contains(what),
        "{reason}"
    );
}

// ------------------------------------------------------------------ time

#[test]
fn stdin_trickling_a_byte_every_3_s_is_answered_after_the_stdin_deadline() {
    let root = project();
    let run = bounded_hook(root.path()).feed(|mut stdin| {
        for byte in br#"{"hook_event_name":"Stop"}"# {
            if stdin
                .write_all(&[*byte])
                .and_then(|()| stdin.flush())
                .is_err()
            {
                return;
            }
            std::thread::sleep(Duration::from_secs(3));
        }
    });
    assert!(run.took < Duration::from_secs(8), "took {:?}", run.took);
    let answer = run.answer().unwrap();
    assert_fails_open(&answer, "did not close within 5 s");
}

/// Holds the session's lock file the way a parallel hook process does.
fn hold_session_lock(root: &Path, session: &str) -> std::fs::File {
    let dir = root.join(".helix-gate/state");
    std::fs::create_dir_all(&dir).unwrap();
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(format!("{session}.lock")))
        .unwrap();
    lock.lock().unwrap();
    lock
}

#[test]
fn a_session_lock_held_past_the_deadline_gets_a_labelled_answer_on_time() {
    let root = project();
    let adr = write(root.path(), "adr/001-x.md", bad_adr());
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook: {deadline_ms: 1000}\n",
    );
    let _held = hold_session_lock(root.path(), "s1");
    let run = hook(root.path(), &post_write(&adr, "s1"));
    assert!(run.took < Duration::from_secs(3), "took {:?}", run.took);
    assert_fails_open(&run.answer().unwrap(), "deadline of 1000 ms");
    let log = log_lines(root.path());
    assert_eq!(log.last().unwrap()["verdict"], "error", "{log:?}");

    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook: {deadline_ms: 1000, fail_closed: true}\n",
    );
    let run = hook(root.path(), &stop("s1"));
    assert!(run.took < Duration::from_secs(3), "took {:?}", run.took);
    assert_fails_closed(&run.answer().unwrap(), "deadline of 1000 ms");
}

fn mkfifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let status = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(status.success());
}

#[test]
fn a_fifo_adr_never_hangs_the_hook_at_post_tool_use_or_stop() {
    let root = project();
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook: {deadline_ms: 1000}\n",
    );
    let adr = root.path().join("adr/001-x.md");
    write(root.path(), "adr/001-x.md", bad_adr());
    hook(root.path(), &post_write(&adr, "s1")).answer().unwrap();
    // The touched ADR becomes a named pipe: nothing ever writes to it.
    std::fs::remove_file(&adr).unwrap();
    mkfifo(&adr);
    for event in [post_write(&adr, "s1"), stop("s1")] {
        let run = hook(root.path(), &event);
        assert!(run.took < Duration::from_secs(3), "took {:?}", run.took);
        // Whatever reading a FIFO leads to, it is a defined answer, on time.
        let answer = run.answer().unwrap();
        assert!(!text(&answer).contains("invalid settings"), "{answer}");
    }
}

// ------------------------------------------------------------------ tolerant decoding

#[test]
fn stop_with_fields_of_the_wrong_type_still_checks_the_touched_adrs() {
    let root = project();
    let adr = write(root.path(), "adr/001-x.md", bad_adr());
    hook(root.path(), &post_write(&adr, "s1")).answer().unwrap();
    let event = json!({"session_id": "s1", "hook_event_name": "Stop", "stop_hook_active": null,
        "last_assistant_message": ["a", "list"], "background_tasks": {}, "session_crons": 5});
    let run = hook(root.path(), &event);
    let answer = run.answer().unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(text(&answer).contains("section-missing"), "{answer}");
    for field in [
        "stop_hook_active",
        "last_assistant_message",
        "background_tasks",
    ] {
        assert!(
            run.stderr
                .contains(&format!("field `{field}` of the hook event is")),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_broken_field_the_stop_marker_needs_follows_the_failure_policy() {
    let root = project();
    write(
        root.path(),
        "config/helix-gate.yaml",
        "step_marker: {enabled: true, paths: []}\n",
    );
    let event = json!({"session_id": "s1", "hook_event_name": "Stop", "last_assistant_message": {"text": "x"}});
    assert_fails_open(
        &hook(root.path(), &event).answer().unwrap(),
        "field `last_assistant_message` of the hook event is an object, expected a string",
    );
    write(
        root.path(),
        "config/helix-gate.yaml",
        "step_marker: {enabled: true, paths: []}\nhook: {fail_closed: true}\n",
    );
    assert_fails_closed(
        &hook(root.path(), &event).answer().unwrap(),
        "the STEP marker check needs it",
    );
}

#[test]
fn a_write_event_whose_tool_input_or_path_is_broken_or_missing_is_never_a_silent_pass() {
    let root = project();
    let events = [
        (
            json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Write", "tool_input": "x"}),
            "field `tool_input` of the hook event is a string, expected an object",
        ),
        (
            json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Edit", "tool_input": {"file_path": ["adr/1.md"]}}),
            "field `tool_input.file_path` of the hook event is an array",
        ),
        (
            json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": "Write", "tool_input": {"path": "adr/1.md"}}),
            "has no tool_input.file_path",
        ),
        (
            json!({"hook_event_name": "PostToolUse", "session_id": "s", "tool_name": {"name": "Write"}}),
            "field `tool_name` of the hook event is an object",
        ),
    ];
    for (event, what) in &events {
        assert_fails_open(&hook(root.path(), event).answer().unwrap(), what);
    }
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook: {fail_closed: true}\n",
    );
    for (event, what) in &events {
        assert_fails_closed(&hook(root.path(), event).answer().unwrap(), what);
    }
    // PreToolUse denies under fail_closed (it has no block form).
    let pre = json!({"hook_event_name": "PreToolUse", "session_id": "s", "tool_name": "Write", "tool_input": 7});
    let answer = hook(root.path(), &pre).answer().unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    // A broken session id at Stop: the budget cannot be counted.
    let answer = hook(
        root.path(),
        &json!({"hook_event_name": "Stop", "session_id": 42}),
    )
    .answer()
    .unwrap();
    assert_fails_closed(&answer, "field `session_id` of the hook event is a number");
}

#[test]
fn a_broken_field_the_decision_does_not_need_is_only_noted() {
    let root = project();
    let adr = write(root.path(), "adr/001-x.md", bad_adr());
    let mut event = post_write(&adr, "s1");
    event["cwd"] = json!(5);
    event["stop_hook_active"] = json!("yes");
    event["agent_type"] = json!([]);
    let run = hook(root.path(), &event);
    assert_eq!(run.answer().unwrap()["decision"], "block");
    assert!(
        run.stderr
            .contains("field `cwd` of the hook event is a number")
    );
    // Events that need nothing: a non-object or odd types change nothing.
    let run = hook(
        root.path(),
        &json!({"hook_event_name": "SubagentStop", "agent_type": 1, "background_tasks": "x"}),
    );
    assert_eq!(run.answer(), None);
}

// ------------------------------------------------------------------ paths

/// `<tmp>/alias` -> the project.
#[cfg(unix)]
fn alias_of(root: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let alias = dir.path().join("alias");
    std::os::unix::fs::symlink(root, &alias).unwrap();
    (dir, alias)
}

#[test]
#[cfg(unix)]
fn a_project_dir_reached_through_a_symlink_still_checks_logs_and_records_the_adr() {
    let root = project();
    let (_keep, alias) = alias_of(root.path());
    let real_adr = write(root.path(), "adr/001-x.md", bad_adr());
    // CLAUDE_PROJECT_DIR is the alias, file_path the real location ...
    let answer = hook(&alias, &post_write(&real_adr, "s1")).answer().unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    assert_eq!(log_lines(root.path())[0]["target"], "adr/001-x.md");
    // ... and it was recorded as touched: Stop checks it.
    let answer = hook(&alias, &stop("s1")).answer().unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    // The other way round: the real project dir, the path through the alias.
    let answer = hook(root.path(), &post_write(&alias.join("adr/001-x.md"), "s2"))
        .answer()
        .unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(text(&answer).contains("adr/001-x.md fails"), "{answer}");
}

#[test]
#[cfg(unix)]
fn a_private_prefix_on_the_path_is_compared_by_real_location() {
    // macOS: /tmp is /private/tmp. Built here as <tmp>/private/<repo> reached
    // through <tmp>/tmp -> <tmp>/private.
    let base = tempfile::tempdir().unwrap();
    let real_root = base.path().join("private/repo");
    std::fs::create_dir_all(real_root.join(".git")).unwrap();
    write(&real_root, "src/lib.rs", "");
    write(&real_root, "config/approvals.yaml", NO_APPROVAL);
    std::os::unix::fs::symlink(base.path().join("private"), base.path().join("tmp")).unwrap();
    let adr = write(&real_root, "adr/001-x.md", bad_adr());
    let answer = hook(&base.path().join("tmp/repo"), &post_write(&adr, "s1"))
        .answer()
        .unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
}

#[test]
#[cfg(unix)]
fn a_touched_adr_replaced_by_a_symlink_out_of_the_project_is_not_read_at_stop() {
    let root = project();
    let outside = tempfile::tempdir().unwrap();
    let secret = bad_adr().replace("title:", "title: SECRET-VALUE-4711");
    write(outside.path(), "secret.md", &secret);
    let adr = write(root.path(), "adr/001-x.md", good_adr());
    let adr2 = write(root.path(), "adr/002-y.md", good_adr());
    hook(root.path(), &post_write(&adr, "s1"));
    hook(root.path(), &post_write(&adr2, "s1"));
    std::fs::remove_file(&adr).unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), &adr).unwrap();
    // A dangling link out of the project counts as leading out, too.
    std::fs::remove_file(&adr2).unwrap();
    std::os::unix::fs::symlink(outside.path().join("gone.md"), &adr2).unwrap();
    let run = hook(root.path(), &stop("s1"));
    let answer = run.answer().unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    for rel in ["adr/001-x.md", "adr/002-y.md"] {
        assert!(
            reason.contains(&format!(
                "{rel}: now leads outside the project (a symbolic link"
            )),
            "{reason}"
        );
    }
    let log = std::fs::read_to_string(root.path().join(".helix-gate/log.jsonl")).unwrap();
    for seen in [reason, &log, &run.stderr] {
        assert!(!seen.contains("SECRET-VALUE-4711"), "{seen}");
        assert!(
            !seen.contains(&outside.path().display().to_string()),
            "{seen}"
        );
    }
}

#[test]
#[cfg(unix)]
fn the_step_fallback_file_is_not_appended_through_a_symlink_out_of_the_project() {
    let root = project();
    let outside = tempfile::tempdir().unwrap();
    let target = write(outside.path(), "script.sh", "#!/bin/sh\n");
    std::fs::create_dir_all(root.path().join("output")).unwrap();
    std::os::unix::fs::symlink(&target, root.path().join("output/response.md")).unwrap();
    write(
        root.path(),
        "config/helix-gate.yaml",
        "step_marker: {enabled: true, paths: []}\nhook: {budget: 1}\n",
    );
    for _ in 0..2 {
        hook(root.path(), &stop("s1")).answer().unwrap();
    }
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "#!/bin/sh\n");
    assert!(
        log_lines(root.path())
            .iter()
            .any(|l| l["verdict"] == "fallback"
                && l["note"]
                    .as_str()
                    .unwrap()
                    .contains("leads outside the project")),
        "{:?}",
        log_lines(root.path())
    );
}

// ------------------------------------------------------------------ .helix-gate/

#[test]
#[cfg(unix)]
fn pre_tool_use_denies_writes_into_the_data_folder_by_any_path() {
    let root = project();
    std::fs::create_dir_all(root.path().join(".helix-gate/approval-cache")).unwrap();
    write(root.path(), ".helix-gate/log.jsonl", "");
    let (_keep, alias) = alias_of(root.path());
    std::os::unix::fs::symlink(root.path().join(".helix-gate"), root.path().join("notes")).unwrap();
    let forged = ".helix-gate/approval-cache/forged.json";
    for (path, tool) in [
        (root.path().join(forged), "Write"),
        (root.path().join(".helix-gate/log.jsonl"), "Edit"),
        (root.path().join("adr/../.helix-gate/state/s.json"), "Write"),
        (alias.join(forged), "Write"),
        // A symlink elsewhere in the project that leads into the folder.
        (
            root.path().join("notes/approval-cache/forged.json"),
            "MultiEdit",
        ),
    ] {
        let answer = hook(root.path(), &pre_write(&path, tool)).answer().unwrap();
        let out = &answer["hookSpecificOutput"];
        assert_eq!(
            (
                out["hookEventName"].as_str(),
                out["permissionDecision"].as_str()
            ),
            (Some("PreToolUse"), Some("deny")),
            "{}: {answer}",
            path.display()
        );
        assert!(
            out["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .contains("inside .helix-gate/, helix-gate's own records"),
            "{answer}"
        );
    }
    // Anything else, and other tools, proceed without a word or a log line.
    let before = log_lines(root.path()).len();
    assert_eq!(
        hook(
            root.path(),
            &pre_write(&root.path().join("adr/001-x.md"), "Write")
        )
        .answer(),
        None
    );
    assert_eq!(
        hook(root.path(), &pre_write(&root.path().join(forged), "Read")).answer(),
        None
    );
    assert_eq!(log_lines(root.path()).len(), before);
}

#[test]
fn post_tool_use_blocks_a_write_into_the_data_folder_when_pre_tool_use_is_not_registered() {
    let root = project();
    let path = write(root.path(), ".helix-gate/approval-cache/forged.json", "{}");
    let answer = hook(root.path(), &post_write(&path, "s1"))
        .answer()
        .unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("you wrote .helix-gate/approval-cache/forged.json"),
        "{answer}"
    );
}

// ------------------------------------------------------------------ the decision log

#[test]
fn an_invalid_utf8_byte_in_the_log_hides_only_its_own_line() {
    let root = project();
    let adr = write(root.path(), "adr/001-x.md", bad_adr());
    hook(root.path(), &post_write(&adr, "s1"));
    let log = root.path().join(".helix-gate/log.jsonl");
    let mut bytes = std::fs::read(&log).unwrap();
    bytes.extend_from_slice(b"{\"verdict\":\"pass\",\"target\":\"\xff\"}\n");
    std::fs::write(&log, bytes).unwrap();
    write(root.path(), "adr/001-x.md", good_adr());
    hook(root.path(), &post_write(&adr, "s1"));
    let out = stdout(&run(root.path(), &["log"]));
    assert_eq!(out.matches("adr/001-x.md").count(), 2, "{out}");
    assert!(out.contains("(1 damaged line(s) skipped)"), "{out}");
    let stats = stdout(&run(root.path(), &["stats"]));
    assert!(
        stats.contains("hook decisions: 2 (blocks 1, passes 1"),
        "{stats}"
    );
    assert!(
        stats.contains("(1 damaged line(s) in .helix-gate/log.jsonl skipped)"),
        "{stats}"
    );
    let v: Value =
        serde_json::from_str(&stdout(&run(root.path(), &["stats", "--format", "json"]))).unwrap();
    assert_eq!(
        (
            v["hook"]["decisions"].as_u64(),
            v["hook"]["damaged_lines"].as_u64()
        ),
        (Some(2), Some(1))
    );
}

// ------------------------------------------------------------------ any input

/// Event-shaped objects: a known event name, the fields the hook reads with
/// values of any type, paths that reach into the project and its data folder.
fn event_like(root: PathBuf) -> impl Strategy<Value = Value> {
    let names = prop::sample::select(vec![
        "PreToolUse",
        "PostToolUse",
        "Stop",
        "SubagentStop",
        "SessionStart",
        "UserPromptSubmit",
        "PostToolBatch",
    ]);
    let tools = prop::sample::select(vec!["Write", "Edit", "MultiEdit", "Bash", "Read"]);
    let rels = prop::sample::select(vec![
        "adr/001-x.md",
        ".helix-gate/approval-cache/x.json",
        "src/lib.rs",
        "../outside.md",
        "adr/002-missing.md",
        "",
    ]);
    let path = (rels, any::<bool>()).prop_map(move |(rel, absolute)| {
        if absolute {
            Value::String(root.join(rel).display().to_string())
        } else {
            Value::String(rel.to_owned())
        }
    });
    let tool_input = prop_oneof![
        path.clone()
            .prop_map(|p| json!({"file_path": p, "content": "x"})),
        any_json().prop_map(|v| json!({"file_path": v})),
        any_json(),
    ];
    (
        names,
        prop_oneof![tools.prop_map(Value::from), any_json()],
        tool_input,
        prop_oneof![Just(json!("s1")), any_json()],
        proptest::option::of(any_json()),
        proptest::option::of(any_json()),
    )
        .prop_map(|(name, tool, input, session, last, tasks)| {
            let mut event = json!({"hook_event_name": name, "tool_name": tool,
                "tool_input": input, "session_id": session});
            if let Some(last) = last {
                event["last_assistant_message"] = last;
            }
            if let Some(tasks) = tasks {
                event["background_tasks"] = tasks;
            }
            event
        })
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ".{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("hook_event_name".to_owned()),
                    Just("tool_input".to_owned()),
                    ".{0,6}".prop_map(String::from)
                ],
                inner,
                0..4
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Exactly one JSON object or nothing on stdout, exit 0, on time.
fn assert_defined_answer(run: &HookRun) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.took < HARD_LIMIT);
    if !run.stdout.is_empty() {
        assert_eq!(run.stdout.lines().count(), 1, "{:?}", run.stdout);
        let v: Value = serde_json::from_str(run.stdout.trim()).unwrap();
        assert!(v.is_object(), "{v}");
    }
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(64)
}

#[test]
fn any_json_value_or_event_shape_gets_one_object_or_nothing_exit_0_on_time() {
    let root = project();
    write(root.path(), "adr/001-x.md", bad_adr());
    let dir = root.path().to_path_buf();
    let strategy = prop_oneof![any_json(), event_like(dir.clone())];
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&strategy, |event| {
            assert_defined_answer(&hook(&dir, &event));
            Ok(())
        })
        .unwrap();
}

#[test]
fn any_bytes_on_stdin_get_one_object_or_nothing_exit_0_on_time() {
    let root = project();
    let dir = root.path().to_path_buf();
    let strategy = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        // Near misses of a real event: cut, spliced or with a byte flipped.
        (0..200usize, any::<u8>()).prop_map(|(at, byte)| {
            let mut bytes =
                br#"{"hook_event_name":"Stop","session_id":"s","background_tasks":[]}"#.to_vec();
            let at = at % bytes.len();
            bytes[at] = byte;
            bytes
        }),
    ];
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: cases(),
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&strategy, |bytes| {
            assert_defined_answer(&hook_bytes(&dir, bytes));
            Ok(())
        })
        .unwrap();
}

mod e2e {
    //! The real Claude Code client (2.1.329) against the fake Messages API, with the
    //! hooks registered by `helix-gate install claude`.

    use serde_json::json;

    use crate::support::claude::{ClaudeRun, error_tool_results, require_claude};
    use crate::support::cli::*;
    use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
    use crate::support::repo::ScratchRepo;

    #[test]
    fn a_model_write_into_the_data_folder_is_denied_before_it_happens() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = ScratchRepo::new();
        repo.write("config/approvals.yaml", super::NO_APPROVAL);
        let out = run(repo.path(), &["install", "claude"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let api = FakeApi::start(|_: &RecordedRequest, conv: &Conversation<'_>| {
            match conv.request_index() {
                0 => {
                    let dir = conv.working_dir().expect("working dir");
                    Turn::tool_use(
                        "Write",
                        json!({"file_path": dir.join(".helix-gate/approval-cache/forged.json"),
                               "content": "{\"result\": \"approved\"}\n"}),
                    )
                }
                _ => Turn::text("Done."),
            }
        });
        let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Approve it").run();
        outcome.assert_success();
        assert!(
            !repo.join(".helix-gate/approval-cache/forged.json").exists(),
            "the write went through"
        );
        let errors = error_tool_results(&api.main_requests());
        assert_eq!(errors.len(), 1, "{}", outcome.describe());
        assert!(
            errors[0].content.starts_with(
                "PreToolUse:Write hook error: helix-gate: .helix-gate/approval-cache/forged.json is inside .helix-gate/"
            ),
            "{}",
            errors[0].content
        );
    }
}
