//! Reviewer economy in the Stop gate: one review per content (the real
//! `claude` as reviewer against the fake Messages API), reviews in parallel,
//! one deadline from the installed Stop timeout, and `install claude` /
//! `doctor` following config/approvals.yaml.
//!
//! The hook is driven through stdin like Claude Code drives it; the reviewer
//! is the real client or a stub script that counts its runs.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::approval::{ADR, approved, project};
use crate::support::claude::{api_env, require_claude};
use crate::support::cli::*;
use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
use crate::support::hook::Hook;
use crate::support::repo::{ScratchRepo, state_dir};

const SECOND: &str = "adr/002-cache-rules-again.md";

/// The passing fixture as ADR 002, with `extra` text in a section of its own
/// (each `extra` is a distinct content that still passes every check).
fn second_adr(extra: &str) -> String {
    good_adr()
        .replace("adr_id: \"001\"", "adr_id: \"002\"")
        .replace("# ADR-001:", "# ADR-002:")
        .replace(
            "## Konsequenzen",
            &format!("## Risiken\n\n{extra}\n\n## Konsequenzen"),
        )
}

/// `helix-gate hook` in `repo` with `event` on stdin, the reviewer's
/// environment isolated (temporary HOME, the test's state folder, `api` as
/// the Messages API). Returns the answer (`Null` for none) and the wall time.
fn hook(repo: &Path, api: Option<&FakeApi>, event: &Value) -> (Value, Duration) {
    let home = tempfile::tempdir().unwrap();
    let run = Hook::new(repo)
        .env("HOME", home.path())
        .env("HELIX_GATE_STATE_DIR", state_dir(repo))
        .envs(api_env(&api.map_or_else(
            || "http://127.0.0.1:9".to_owned(),
            FakeApi::base_url,
        )))
        .event(event);
    (run.answer().unwrap_or(Value::Null), run.took)
}

fn post_write(repo: &Path, rel: &str) -> Value {
    json!({"session_id": "s", "transcript_path": "t", "cwd": repo, "hook_event_name": "PostToolUse",
           "tool_name": "Write", "tool_input": {"file_path": repo.join(rel), "content": "…"},
           "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"})
}

fn stop() -> Value {
    json!({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": false,
           "last_assistant_message": "done", "background_tasks": []})
}

fn text_of(answer: &Value, field: &str) -> String {
    answer[field].as_str().unwrap_or_default().to_owned()
}

/// A refusal the model never acts on: the unchanged, rejected ADR counts as a
/// failed revision at every Stop, so with `max_retries: 2` the third Stop
/// escalates it to the user (message, log, approval history) and stops
/// blocking, long before Claude Code's own cap of 8 blocks.
#[test]
fn a_refusal_the_model_never_revises_escalates_within_max_retries() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = project();
    let command = serde_json::to_string(&claude.to_string_lossy()).unwrap();
    repo.write(
        "config/approvals.yaml",
        format!(
            "defaults:\n  command: {command}\n  timeout: 120\non_rejection:\n  max_retries: 2\n"
        ),
    );
    repo.write(SECOND, second_adr("Version one."));
    let api = FakeApi::start(|_: &RecordedRequest, _: &Conversation| {
        Turn::structured_output(json!({"result": "rejected", "confidence": 0.9,
            "findings": [{"severity": "error", "check": "completeness", "message": "REVIEWER: no rollback plan"}],
            "recommendations": ["Describe the rollback."]}))
    });
    hook(repo.path(), Some(&api), &post_write(repo.path(), SECOND));
    // One count from the first block to the escalation: at most 3 reviews
    // (the first and max_retries more), review 1 of 3, 2 of 3, then 3 of 3.
    let (a, _) = hook(repo.path(), Some(&api), &stop());
    assert_eq!(a["decision"], "block", "{a}");
    assert!(text_of(&a, "reason").contains("review 1 of 3"), "{a}");
    let (a, _) = hook(repo.path(), Some(&api), &stop());
    assert_eq!(a["decision"], "block", "{a}");
    assert!(
        text_of(&a, "reason").contains("failed review 2 of 3")
            && !text_of(&a, "reason").contains("at most"),
        "{a}"
    );
    // Third Stop, still unchanged: escalated, the turn may end.
    let (a, _) = hook(repo.path(), Some(&api), &stop());
    assert!(a.get("decision").is_none(), "{a}");
    assert!(
        text_of(&a, "systemMessage").starts_with(&format!(
            "helix-gate escalation: review {SECOND}: completeness after review 3 of 3; approval still rejected, escalated to you"
        )),
        "{a}"
    );
    assert_eq!(api.requests().len(), 1, "one review of one content");
    let log = repo.read(".helix-gate/log.jsonl").unwrap();
    assert!(
        log.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .any(|l| l["target"] == SECOND && l["verdict"] == "escalate"),
        "{log}"
    );
    let history = repo.read(".helix-gate/approvals.jsonl").unwrap();
    assert!(history.contains("escalat"), "{history}");
    // A fourth Stop starts nothing and blocks nothing.
    let (a, _) = hook(repo.path(), Some(&api), &stop());
    assert!(a.get("decision").is_none(), "{a}");
    assert_eq!(api.requests().len(), 1);
}

/// Six Stops over one session: ADR 001 stays unchanged and approved; ADR 002
/// is rejected, stays unchanged for one Stop, is changed twice (rejected each
/// time, the second time its retries are spent: escalated), then stays and
/// changes again after the escalation. The fake API counts one request per
/// reviewer run: exactly one per distinct content (001, and three versions of
/// 002), flat after the escalation.
#[test]
fn six_stops_make_one_review_per_distinct_content_and_none_after_escalation() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = project();
    let command = serde_json::to_string(&claude.to_string_lossy()).unwrap();
    repo.write(
        "config/approvals.yaml",
        format!(
            "defaults:\n  command: {command}\n  timeout: 120\non_rejection:\n  max_retries: 3\n"
        ),
    );
    repo.write(SECOND, second_adr("Version one."));
    let api = FakeApi::start(|request: &RecordedRequest, _: &Conversation| {
        let prompt = request.prompt().unwrap_or_default();
        if prompt.contains(SECOND) {
            Turn::structured_output(json!({"result": "rejected", "confidence": 0.9,
                "findings": [{"severity": "error", "check": "completeness", "message": "REVIEWER: no rollback plan"}],
                "recommendations": ["Describe the rollback."]}))
        } else {
            Turn::structured_output(approved(0.95))
        }
    });
    let reviews = || api.requests().len();
    hook(repo.path(), Some(&api), &post_write(repo.path(), ADR));
    hook(repo.path(), Some(&api), &post_write(repo.path(), SECOND));

    // Stop 1: both reviewed; 002 is rejected, review 1 of 4.
    let (a, _) = hook(repo.path(), Some(&api), &stop());
    assert_eq!(a["decision"], "block", "{a}");
    assert!(
        text_of(&a, "reason").contains("REVIEWER: no rollback plan"),
        "{a}"
    );
    assert_eq!(reviews(), 2);

    // Stop 2: nothing changed: the same findings again at no cost; the
    // unchanged file counts as a failed revision (review 2 of 4).
    let (a, _) = hook(repo.path(), Some(&api), &stop());
    assert_eq!(a["decision"], "block", "{a}");
    let reason = text_of(&a, "reason");
    assert!(
        reason.contains("is unchanged since its last review")
            && reason.contains("failed review 2 of 4")
            && reason.contains("REVIEWER: no rollback plan"),
        "{reason}"
    );
    assert_eq!(reviews(), 2, "unchanged files are not reviewed again");

    // Stop 3: 002 changed: reviewed, rejected, review 3.
    repo.write(SECOND, second_adr("Version two."));
    let (a, _) = hook(repo.path(), Some(&api), &stop());
    assert_eq!(a["decision"], "block", "{a}");
    assert!(!text_of(&a, "reason").contains("unchanged"), "{a}");
    assert_eq!(reviews(), 3);

    // Stop 4: changed again and rejected a third time: retries spent, the
    // stop goes through, and the user is told once that no review follows.
    repo.write(SECOND, second_adr("Version three."));
    let (a, _) = hook(repo.path(), Some(&api), &stop());
    assert!(a.get("decision").is_none(), "{a}");
    let message = text_of(&a, "systemMessage");
    assert!(
        message.contains("helix-gate escalation: review adr/002-cache-rules-again.md: ")
            && message.contains("escalated to you")
            && message.contains("starts no further review of adr/002-cache-rules-again.md"),
        "{message}"
    );
    assert_eq!(reviews(), 4);

    // Stop 5 (unchanged) and Stop 6 (changed): no review of 002 any more,
    // and the escalation is not announced again.
    let (a, _) = hook(repo.path(), Some(&api), &stop());
    assert!(a.get("decision").is_none(), "{a}");
    assert!(!text_of(&a, "systemMessage").contains("escalated"), "{a}");
    repo.write(SECOND, second_adr("Version four."));
    let (a, _) = hook(repo.path(), Some(&api), &stop());
    assert!(a.get("decision").is_none(), "{a}");
    assert!(!text_of(&a, "systemMessage").contains("escalated"), "{a}");
    assert_eq!(
        reviews(),
        4,
        "distinct contents reviewed: 001 and three versions of 002"
    );
    let log = repo.read(".helix-gate/log.jsonl").unwrap();
    let skips = log
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["target"] == SECOND && l["verdict"] == "skip")
        .count();
    assert_eq!(skips, 2, "{log}");
}

/// A stub reviewer that sleeps `seconds`, appends one line per run to
/// `fake/runs`, and approves.
fn slow_reviewer(repo: &ScratchRepo, seconds: u32) {
    let result = json!({"type": "result", "subtype": "success", "is_error": false,
        "result": "", "total_cost_usd": 0.01, "usage": {"input_tokens": 10, "output_tokens": 5},
        "structured_output": approved(0.95)});
    let runs = repo.join("fake/runs");
    fake_reviewer(
        repo.path(),
        &result.to_string(),
        &format!("echo run >> '{}'\nsleep {seconds}\n", runs.display()),
    );
}

fn runs(repo: &ScratchRepo) -> usize {
    repo.read("fake/runs").unwrap_or_default().lines().count()
}

fn three_clean_adrs(repo: &ScratchRepo) -> Vec<String> {
    let files = vec![
        ADR.to_owned(),
        SECOND.to_owned(),
        "adr/003-third.md".to_owned(),
    ];
    repo.write(SECOND, second_adr("Two."));
    repo.write(
        "adr/003-third.md",
        good_adr()
            .replace("adr_id: \"001\"", "adr_id: \"003\"")
            .replace("# ADR-001:", "# ADR-003:"),
    );
    for rel in &files {
        hook(repo.path(), None, &post_write(repo.path(), rel));
    }
    files
}

#[test]
fn three_clean_adrs_with_a_two_second_reviewer_take_one_stop_of_about_one_review() {
    let repo = project();
    slow_reviewer(&repo, 2);
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\n  timeout: 60\n  max_parallel: 4\n",
    );
    let files = three_clean_adrs(&repo);
    let (a, took) = hook(repo.path(), None, &stop());
    let message = text_of(&a, "systemMessage");
    assert!(a.get("decision").is_none(), "{a}");
    for rel in &files {
        assert!(message.contains(&format!("{rel}: approved")), "{message}");
    }
    assert_eq!(runs(&repo), 3, "one reviewer run per file");
    assert!(
        took < Duration::from_secs(5),
        "three 2 s reviews in parallel took {took:?}"
    );
    // The next Stop: every verdict from the cache, no reviewer at all.
    let (a, _) = hook(repo.path(), None, &stop());
    assert!(text_of(&a, "systemMessage").contains("cached"), "{a}");
    assert_eq!(runs(&repo), 3);
}

#[test]
fn max_parallel_one_reviews_one_after_another() {
    let repo = project();
    slow_reviewer(&repo, 1);
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\n  timeout: 60\n  max_parallel: 1\n",
    );
    three_clean_adrs(&repo);
    let (a, took) = hook(repo.path(), None, &stop());
    assert!(a.get("decision").is_none(), "{a}");
    assert_eq!(runs(&repo), 3);
    assert!(took >= Duration::from_secs(3), "one at a time: {took:?}");
}

/// Our Stop hook registered by hand with `timeout` seconds, in the local
/// settings (where the hook looks for the timeout it was installed with).
fn installed_stop_timeout(repo: &ScratchRepo, timeout: u64) {
    repo.write(
        ".claude/settings.local.json",
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "helix-gate hook",
            "timeout": timeout, "statusMessage": "helix-gate: ADR gate"}]}]}})
        .to_string(),
    );
}

#[test]
fn a_review_that_cannot_finish_before_the_installed_stop_timeout_is_stopped_and_labelled() {
    let repo = project();
    slow_reviewer(&repo, 30);
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\n  timeout: 300\n",
    );
    installed_stop_timeout(&repo, 6);
    hook(repo.path(), None, &post_write(repo.path(), ADR));
    for (config, closed) in [
        ("hook: {fail_closed: false}\n", false),
        ("hook: {fail_closed: true}\n", true),
    ] {
        repo.write("config/helix-gate.yaml", config);
        let (a, took) = hook(repo.path(), None, &stop());
        assert!(
            took < Duration::from_secs(6),
            "answered before Claude Code's timeout of 6 s: {took:?}"
        );
        let text = if closed {
            assert_eq!(a["decision"], "block", "{a}");
            text_of(&a, "reason")
        } else {
            assert!(a.get("decision").is_none(), "{a}");
            text_of(&a, "systemMessage")
        };
        assert!(
            text.contains("infrastructure error")
                && text.contains("Stop hook's deadline")
                && text.contains("timeout of 6 s in .claude/settings.local.json"),
            "{text}"
        );
    }
    // Nothing was approved, so nothing is cached: both Stops started a reviewer.
    assert_eq!(runs(&repo), 2);
}

#[test]
fn several_reviewers_that_fork_away_and_hang_are_all_killed_and_the_stop_answers_in_time() {
    let repo = project();
    let marker = format!(
        "helix-gate-parallel-escape-{}-{}",
        std::process::id(),
        repo.path().file_name().unwrap().to_string_lossy()
    );
    let runs_file = repo.join("fake/runs");
    // Each reviewer leaves a grandchild in a session of its own, then hangs.
    repo.write_executable(
        "fake/reviewer.sh",
        format!(
            "#!/bin/sh\nexport HG_TEST_MARKER={marker}\necho run >> '{}'\n(setsid sh -c 'sleep 1000; :' {marker} &)\nsleep 1000\n",
            runs_file.display()
        ),
    );
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\n  timeout: 300\n  max_parallel: 3\n",
    );
    installed_stop_timeout(&repo, 6);
    three_clean_adrs(&repo);
    let (a, took) = hook(repo.path(), None, &stop());
    assert!(
        took < Duration::from_secs(6),
        "answered before Claude Code's timeout of 6 s: {took:?}"
    );
    assert!(a.get("decision").is_none(), "fail open by default: {a}");
    let text = text_of(&a, "systemMessage");
    assert!(
        text.contains("infrastructure error") && text.contains("Stop hook's deadline"),
        "{text}"
    );
    assert_eq!(runs(&repo), 3, "all three were in flight at once");
    // Nothing of any of the three reviewers outlives the answer.
    let deadline = Instant::now() + Duration::from_secs(2);
    let survivors = || -> Vec<u32> {
        crate::support::procs::live()
            .into_iter()
            .filter(|p| p.mentions(&marker))
            .map(|p| p.pid)
            .collect()
    };
    let mut left = survivors();
    while !left.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        left = survivors();
    }
    for pid in &left {
        let _ = Command::new("kill")
            .args(["-KILL", &pid.to_string()])
            .status();
    }
    assert_eq!(left, Vec::<u32>::new(), "reviewer descendants survived");
}

#[test]
fn a_planted_huge_stop_timeout_neither_crashes_the_stop_nor_skips_the_review() {
    let repo = project();
    slow_reviewer(&repo, 0);
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\n  timeout: 60\n",
    );
    // A cloned repository may ship any number as the Stop hook's timeout.
    installed_stop_timeout(&repo, u64::MAX);
    hook(repo.path(), None, &post_write(repo.path(), ADR));
    let (a, _) = hook(repo.path(), None, &stop());
    assert!(a.get("decision").is_none(), "{a}");
    assert!(
        text_of(&a, "systemMessage").contains(&format!("{ADR}: approved")),
        "{a}"
    );
    assert_eq!(runs(&repo), 1, "the review ran");
}

#[test]
fn install_claude_sets_the_stop_timeout_from_the_config_and_doctor_checks_it() {
    let repo = project();
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    timeout: 900\n",
    );
    let out = run(repo.path(), &["install", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "Stop timeout: 960 s (the longest enabled approval timeout, 900 s, plus 60 s"
        ),
        "{}",
        stdout(&out)
    );
    let settings: Value =
        serde_json::from_str(&repo.read(".claude/settings.json").unwrap()).unwrap();
    assert_eq!(settings["hooks"]["Stop"][0]["hooks"][0]["timeout"], 960);
    let doctor = |repo: &ScratchRepo| stdout(&run(repo.path(), &["doctor"]));
    assert!(!doctor(&repo).contains("stop-timeout"), "{}", doctor(&repo));

    // The timeout is raised afterwards: doctor says the installed one is short.
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    timeout: 1200\n",
    );
    let text = doctor(&repo);
    assert!(
        text.contains("stop-timeout")
            && text.contains(".claude/settings.json")
            && text.contains("timeout of 960 s")
            && text.contains("needs 1260 s"),
        "{text}"
    );
    let out = run(repo.path(), &["install", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!doctor(&repo).contains("stop-timeout"));

    // No approval type enabled: the deterministic checks only.
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    let out = run(repo.path(), &["install", "claude"]);
    assert!(stdout(&out).contains("Stop timeout: 90 s (no approval type is enabled"));
}

mod e2e {
    //! A real Claude Code session (2.1.329, hooks registered by `helix-gate
    //! install claude`) against the fake Messages API, the reviewer the real
    //! client too: six Stops, reviewer requests counted by the fake server.

    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::{Value, json};

    use crate::approval::{ADR, project};
    use crate::support::claude::{ClaudeRun, require_claude, stop_hook_feedback};
    use crate::support::cli::*;
    use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};

    fn version(n: u32) -> String {
        good_adr().replace(
            "## Konsequenzen",
            &format!("## Risiken\n\nVersion {n} of the risks.\n\n## Konsequenzen"),
        )
    }

    /// A refusal the model never acts on, with the real client: the model
    /// writes the ADR once and then only answers. With `max_retries: 2` the
    /// unchanged, rejected ADR blocks two Stops (one review, then the same
    /// verdict from the cache) and escalates at the third: the turn ends well
    /// before Claude Code's own cap of 8 blocks, and the escalation is in the
    /// log and the approval history.
    #[test]
    fn a_refusal_the_model_never_acts_on_escalates_before_claude_codes_cap() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = project();
        let command = serde_json::to_string(&claude.to_string_lossy()).unwrap();
        repo.write(
            "config/approvals.yaml",
            format!(
                "defaults:\n  command: {command}\n  timeout: 120\non_rejection:\n  max_retries: 2\n"
            ),
        );
        let out = run(repo.path(), &["install", "claude"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let file = repo.join(ADR);
        let main = AtomicUsize::new(0);
        let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
            if conv.is_structured_output() {
                return Turn::structured_output(json!({"result": "rejected", "confidence": 0.9,
                    "findings": [{"severity": "error", "check": "migration", "message": "REVIEWER: no rollback"}],
                    "recommendations": ["Describe the rollback."]}));
            }
            match main.fetch_add(1, Ordering::SeqCst) {
                0 => Turn::text("Writing the ADR.")
                    .with_tool("Write", json!({"file_path": file, "content": version(1)})),
                _ => Turn::text("I think the ADR is fine as it is."),
            }
        });
        let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
        outcome.assert_success();
        let feedback = stop_hook_feedback(&api.main_requests());
        assert_eq!(feedback.len(), 2, "{}", outcome.describe());
        assert!(
            feedback[0].contains("REVIEWER: no rollback"),
            "{}",
            feedback[0]
        );
        assert!(
            feedback[1].contains("is unchanged since its last review")
                && feedback[1].contains("failed review 2 of 3"),
            "{}",
            feedback[1]
        );
        let reviews = api
            .requests()
            .iter()
            .filter(|r| r.is_structured_output())
            .count();
        assert_eq!(reviews, 1, "one review of one content");
        let log = repo.read(".helix-gate/log.jsonl").unwrap();
        assert!(
            log.lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap())
                .any(|l| l["target"] == ADR && l["verdict"] == "escalate"),
            "{log}"
        );
        let history = repo.read(".helix-gate/approvals.jsonl").unwrap();
        assert!(history.contains("escalat"), "{history}");
    }

    #[test]
    fn a_session_of_six_stops_pays_one_review_per_distinct_content() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = project();
        let command = serde_json::to_string(&claude.to_string_lossy()).unwrap();
        repo.write(
            "config/approvals.yaml",
            format!(
                "defaults:\n  command: {command}\n  timeout: 120\non_rejection:\n  max_retries: 3\n"
            ),
        );
        let out = run(repo.path(), &["install", "claude"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let file = repo.join(ADR);
        let main = AtomicUsize::new(0);
        let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
            if conv.is_structured_output() {
                return Turn::structured_output(json!({"result": "rejected", "confidence": 0.9,
                    "findings": [{"severity": "error", "check": "migration", "message": "REVIEWER: no rollback"}],
                    "recommendations": ["Describe the rollback."]}));
            }
            let write = |n: u32| {
                Turn::text("Revising the ADR.")
                    .with_tool("Write", json!({"file_path": file, "content": version(n)}))
            };
            match main.fetch_add(1, Ordering::SeqCst) {
                0 => write(1),
                3 => write(2),
                5 => write(3),
                7 => write(4),
                _ => Turn::text("Done."),
            }
        });
        let reviews = || {
            api.requests()
                .iter()
                .filter(|r| r.is_structured_output())
                .count()
        };
        let home = tempfile::tempdir().unwrap();
        // Stops 1-4: rejected (review 1), unchanged (same verdict, no review),
        // changed (review 2), changed (review 3: retries spent, escalated).
        let first = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR")
            .home(home.path())
            .run();
        first.assert_success();
        let feedback = stop_hook_feedback(&api.main_requests());
        assert_eq!(feedback.len(), 3, "{}", first.describe());
        assert!(
            feedback[1].contains("is unchanged since its last review")
                && feedback[1].contains("failed review 2 of 4"),
            "{}",
            feedback[1]
        );
        assert_eq!(reviews(), 3, "v1, v2, v3: {}", first.describe());
        let session = first.session_id().unwrap().to_owned();

        // Stops 5 (file changed again) and 6 (unchanged) in the same session:
        // escalated, so no review at all.
        for prompt in ["Revise it once more", "Anything else?"] {
            let more = ClaudeRun::new(&claude, &api, repo.path(), prompt)
                .home(home.path())
                .args(["--resume", session.as_str()])
                .run();
            more.assert_success();
        }
        assert_eq!(reviews(), 3, "flat after the escalation");
        let log: Vec<Value> = repo
            .read(".helix-gate/log.jsonl")
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let stops: Vec<(&str, &str)> = log
            .iter()
            .filter(|l| l["event"] == "Stop" && l["target"] == ADR && l["verdict"] != "pass")
            .map(|l| {
                (
                    l["session"].as_str().unwrap(),
                    l["verdict"].as_str().unwrap(),
                )
            })
            .collect();
        let verdicts: Vec<&str> = stops.iter().map(|(_, v)| *v).collect();
        assert_eq!(
            verdicts,
            ["block", "block", "block", "escalate", "skip", "skip"],
            "{stops:?}"
        );
        assert!(
            stops.iter().all(|(s, _)| *s == session),
            "one session: {stops:?}"
        );
    }
}
