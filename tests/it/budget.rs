//! The hook's retry budget counts failures to improve: a save (or a Stop) with fewer
//! failing checks than the one before is free, a loop that does not improve escalates
//! after `hook.budget` attempts, and the hard cap (twice the budget) ends every loop.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::hook;

/// The passing fixture with `n` (0..=4) required sections renamed: `n` errors.
fn adr_with_errors(n: usize) -> String {
    let mut text = good_adr();
    for section in [
        "Dokumentation",
        "Konsequenzen",
        "Entscheidung",
        "Implementation",
    ]
    .iter()
    .take(n)
    {
        text = text.replace(
            &format!("## {section}\n"),
            &format!("## Notes on {section}\n"),
        );
    }
    text
}

fn project() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(
        repo.path(),
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo
}

/// Save the ADR with `errors` errors and send the `PostToolUse` of that Edit.
fn save(root: &Path, errors: usize) -> Value {
    write(root, "adr/001-x.md", adr_with_errors(errors));
    let event = json!({"session_id": "s", "cwd": root, "hook_event_name": "PostToolUse",
        "tool_name": "Edit", "tool_input": {"file_path": root.join("adr/001-x.md")},
        "tool_response": {}, "tool_use_id": "t"});
    hook(root, &event).expect("an answer")
}

fn log(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join(".helix-gate/log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The `attempt` of every log record.
fn attempts(root: &Path) -> Vec<u64> {
    log(root)
        .iter()
        .map(|l| l["attempt"].as_u64().unwrap())
        .collect()
}

fn reason(answer: &Value) -> &str {
    answer["reason"]
        .as_str()
        .unwrap_or_else(|| panic!("not a block: {answer}"))
}

#[test]
fn edits_that_lower_the_error_count_are_all_blocked_and_never_escalate() {
    let repo = project();
    let root = repo.path();
    let first = save(root, 4);
    assert!(
        reason(&first).contains("fails 4 check(s) (attempt 1/3)"),
        "{first}"
    );
    assert!(
        reason(&first).contains("Budget: attempt 1/3 used (the first failure)"),
        "{first}"
    );
    for errors in [3, 2, 1] {
        let answer = save(root, errors);
        assert_eq!(answer["decision"], "block", "{answer}");
        let text = reason(&answer);
        assert!(
            text.contains(&format!("fails {errors} check(s) (attempt 1/3)")),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "Budget: this try did not use up an attempt (failing checks went down from {} to {errors}); attempts used: 1/3, try {} of at most 6.",
                errors + 1,
                5 - errors
            )),
            "{text}"
        );
        assert!(answer.get("systemMessage").is_none());
    }
    let log = log(root);
    assert_eq!(log.len(), 4);
    assert!(log.iter().all(|l| l["verdict"] == "block"), "{log:?}");
    assert!(log.iter().all(|l| l["attempt"] == 1), "{log:?}");
    assert_eq!(
        log[3]["note"],
        "try 4 of at most 6: not counted (failing checks went down from 2 to 1)"
    );
}

#[test]
fn saves_that_do_not_improve_escalate_after_the_budget() {
    let repo = project();
    let root = repo.path();
    for (attempt, errors) in [(1, 2), (2, 2), (3, 3)] {
        let answer = save(root, errors);
        assert!(
            reason(&answer).contains(&format!("(attempt {attempt}/3)")),
            "{answer}"
        );
        assert!(
            reason(&answer).contains(&format!("Budget: attempt {attempt}/3 used")),
            "{answer}"
        );
    }
    assert!(
        reason(&save(root, 1)).contains("did not use up an attempt"),
        "improving is still free"
    );
    let spent = save(root, 1);
    assert!(spent.get("decision").is_none(), "{spent}");
    let message = spent["systemMessage"].as_str().unwrap();
    assert!(
        message.starts_with("helix-gate escalation: budget adr/")
            && message.contains(" after attempt 3/3; still fails 1 check(s), escalated to you (all 3 attempts used without fewer failing checks, 5 failing tries"),
        "{message}"
    );
    let last = log(root).pop().unwrap();
    assert_eq!(last["verdict"], "escalate");
    assert!(
        last["note"]
            .as_str()
            .unwrap()
            .starts_with("escalated: all 3 attempts used"),
        "{last}"
    );
    // The log says what the message says: attempt 3 of 3, never 4; a later save too.
    assert_eq!(last["attempt"], 3, "{last}");
    save(root, 1);
    assert_eq!(attempts(root), [1, 2, 3, 3, 3, 3]);
    let out = run(root, &["log"]);
    assert!(
        stdout(&out).contains("escalate") && stdout(&out).contains("(attempt 3)"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("(attempt 4)"), "{}", stdout(&out));
}

#[test]
fn an_alternating_loop_and_an_endless_improvement_end_at_the_hard_cap() {
    let repo = project();
    let root = repo.path();
    for errors in [2, 1, 2, 1, 2, 1] {
        assert_eq!(save(root, errors)["decision"], "block");
    }
    let capped = save(root, 2);
    assert!(capped.get("decision").is_none(), "{capped}");
    assert!(
        capped["systemMessage"]
            .as_str()
            .unwrap()
            .contains("hard cap reached: 7 failing tries, at most 6 = twice the budget of 3"),
        "{capped}"
    );
    assert_eq!(attempts(root).last(), Some(&3));

    // Always improving, never passing: the cap ends it too (budget 1, cap 2).
    let repo = project();
    let root = repo.path();
    write(root, "config/helix-gate.yaml", "hook:\n  budget: 1\n");
    assert!(reason(&save(root, 4)).contains("Budget: attempt 1/1 used"));
    assert!(reason(&save(root, 3)).contains("did not use up an attempt"));
    let capped = save(root, 2);
    assert!(capped.get("decision").is_none(), "{capped}");
    assert!(
        capped["systemMessage"]
            .as_str()
            .unwrap()
            .contains("hard cap reached: 3 failing tries, at most 2"),
        "{capped}"
    );
    assert_eq!(attempts(root), [1, 1, 1]);
}

/// At Stop too, the escalation's log record counts the budget, as its message does.
#[test]
fn a_stop_that_escalates_logs_the_budget_as_its_attempt() {
    let repo = project();
    let root = repo.path();
    save(root, 2);
    let stop = || {
        hook(
            root,
            &json!({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": false,
                    "last_assistant_message": "done", "background_tasks": []}),
        )
        .expect("an answer")
    };
    assert!(reason(&stop()).contains("[attempt 2/3]"));
    assert!(reason(&stop()).contains("[attempt 3/3]"));
    let spent = stop();
    let message = spent["systemMessage"].as_str().unwrap_or_default();
    assert!(message.contains(" after attempt 3/3; "), "{spent}");
    let last = log(root).pop().unwrap();
    assert_eq!(
        (&last["event"], &last["verdict"], &last["attempt"]),
        (&json!("Stop"), &json!("escalate"), &json!(3)),
        "{last}"
    );
}

#[test]
fn stop_counts_improvement_too() {
    let repo = project();
    let root = repo.path();
    save(root, 2);
    let stop = |last: &str| {
        hook(
            root,
            &json!({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": false,
                    "last_assistant_message": last, "background_tasks": []}),
        )
    };
    let blocked = stop("done").unwrap();
    assert!(
        reason(&blocked).contains("[attempt 2/3] adr/001-x.md"),
        "{blocked}"
    );
    write(root, "adr/001-x.md", adr_with_errors(1));
    let improved = stop("done").unwrap();
    let text = reason(&improved);
    assert!(text.contains("[attempt 2/3] adr/001-x.md"), "{text}");
    assert!(
        text.contains(
            "Budget: this try did not use up an attempt (failing checks went down from 2 to 1)"
        ),
        "{text}"
    );
}
