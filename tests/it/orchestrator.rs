//! The escalation contract for orchestrators (docs/src/orchestrators.md): with
//! the real client in `--output-format stream-json --verbose`, every helix-gate
//! escalation reaches the stream as a `system`/`informational` event whose
//! content is `<hook> says: helix-gate escalation: …`, and
//! `examples/orchestrator/escalations.py` turns each into a reasoning block for the chat UI.
//! The same session also shows `step_marker.status_file` at work.
//!
//! `HELIX_GATE_RECORD_STREAM=1` rewrites the committed recording
//! (`tests/fixtures/orchestrator/escalations.stream.jsonl`) from the live run.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::claude::{ClaudeRun, require_claude};
use crate::support::cli::*;
use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
use crate::support::repo::ScratchRepo;

const FIXTURE: &str = "tests/fixtures/orchestrator/escalations.stream.jsonl";
const SCRIPT: &str = "examples/orchestrator/escalations.py";
const PREFIX: &str = "helix-gate escalation:";

/// `python3 escalations.py ARGS` with `stdin`; its stdout.
fn script(args: &[&str], stdin: &str) -> String {
    let mut child = Command::new("python3")
        .arg(manifest_dir().join(SCRIPT))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("python3");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    stdout(&out)
}

/// The escalation events of a stream-json text: (hook, escalation lines).
fn escalation_events(stream: &str) -> Vec<(String, Vec<String>)> {
    stream
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "system" && v["subtype"] == "informational")
        .filter_map(|v| {
            let content = v["content"].as_str()?.to_owned();
            let (hook, message) = content.split_once(" says: ")?;
            let lines: Vec<String> = message
                .lines()
                .filter(|l| l.starts_with(PREFIX))
                .map(str::to_owned)
                .collect();
            (!lines.is_empty()).then(|| (hook.to_owned(), lines))
        })
        .collect()
}

/// What the script makes of a stream with a save escalation and a Stop escalation.
fn assert_script_output(stream: &str) {
    let annotated: Vec<Value> = script(&[], stream)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|v| v["type"] == "helix_gate_escalation")
        .collect();
    assert_eq!(annotated.len(), 2, "{annotated:#?}");
    assert_eq!(annotated[0]["hook"], "PostToolUse:Write");
    assert_eq!(annotated[0]["kind"], "budget");
    assert_eq!(annotated[0]["target"], "adr/040-x.md");
    assert_eq!(annotated[0]["rules"], json!(["section-missing"]));
    assert_eq!(annotated[0]["attempts"], "attempt 1/1");
    assert_eq!(annotated[1]["hook"], "Stop");
    assert_eq!(annotated[1]["kind"], "step-marker");
    assert_eq!(annotated[1]["attempts"], "attempt 1/1");
    let blocks = script(&["--blocks"], stream);
    assert_eq!(
        blocks
            .matches("<details type=\"reasoning\" done=\"true\" duration=\"0\">\n<summary>helix-gate escalation: ")
            .count(),
        2,
        "{blocks}"
    );
    assert!(
        blocks.contains("<summary>helix-gate escalation: budget adr/040-x.md</summary>\n> rules: section-missing\n> attempts: attempt 1/1\n> now: still fails"),
        "{blocks}"
    );
}

fn write_bad(conv: &Conversation<'_>) -> Turn {
    let dir = conv.working_dir().expect("working dir");
    let bad = good_adr()
        .replace("adr_id: \"001\"", "adr_id: \"040\"")
        .replace("# ADR-001:", "# ADR-040:")
        .replace("## Dokumentation", "## Notizen");
    Turn::text("Writing it.").with_tool(
        "Write",
        json!({"file_path": dir.join("adr/040-x.md"), "content": bad}),
    )
}

/// Budget 1: the second failing save escalates (`PostToolUse:Write says:`), and
/// the second answer without a STEP marker escalates at Stop (`Stop says:`),
/// applying the fallback, which also sets the status file's step.
#[test]
fn escalations_reach_stream_json_as_informational_system_events() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo.write(
        "config/helix-gate.yaml",
        "hook: {budget: 1}\nstep_marker: {enabled: true, paths: [], status_file: status.json}\n",
    );
    repo.write(
        "status.json",
        "{\"session\": \"s-1\", \"status\": \"discussing\"}\n",
    );
    repo.write("adr/.gitkeep", "");
    let out = run(repo.path(), &["install", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.commit_all("helix-gate installed");
    let api =
        FakeApi::start(
            |_: &RecordedRequest, conv: &Conversation<'_>| match conv.request_index() {
                0 | 1 => write_bad(conv),
                _ => Turn::text("Fertig."),
            },
        );
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR")
        .args(["--output-format", "stream-json", "--verbose"])
        .run();
    outcome.assert_success();
    let stream = &outcome.stdout;
    let events = escalation_events(stream);
    assert_eq!(events.len(), 2, "{}", outcome.describe());
    let (hook, lines) = &events[0];
    assert_eq!(hook, "PostToolUse:Write");
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].starts_with(
            "helix-gate escalation: budget adr/040-x.md: section-missing after attempt 1/1; still fails 1 check(s), escalated to you"
        ),
        "{lines:?}"
    );
    let (hook, lines) = &events[1];
    assert_eq!(hook, "Stop");
    assert_eq!(
        lines.len(),
        1,
        "the ADR escalated on save is not told again"
    );
    assert!(
        lines[0].starts_with(
            "helix-gate escalation: step-marker output/response.md: step-marker after attempt 1/1; fallback applied"
        ),
        "{lines:?}"
    );
    // The run itself ends normally: an escalation is not an error of the run.
    assert_eq!(outcome.field("subtype"), Some(&json!("success")));
    assert_eq!(outcome.field("is_error"), Some(&json!(false)));
    // The fallback's step reached the status file, the other keys kept in order.
    let status: Value = serde_json::from_str(&repo.read("status.json").unwrap()).unwrap();
    let keys: Vec<&String> = status.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["session", "status", "step", "updated_at"],
        "{status}"
    );
    assert_eq!(status["step"], "done", "{status}");
    assert_script_output(stream);
    if std::env::var("HELIX_GATE_RECORD_STREAM").as_deref() == Ok("1") {
        let path = manifest_dir().join(FIXTURE);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, stream).unwrap();
    }
}

/// The committed recording of that session (real client 2.1.329) gives the same.
#[test]
fn the_recorded_stream_gives_the_documented_blocks() {
    let path = manifest_dir().join(FIXTURE);
    let stream = std::fs::read_to_string(&path).unwrap();
    assert_eq!(escalation_events(&stream).len(), 2);
    assert_script_output(&stream);
    assert!(Path::new(&manifest_dir().join(SCRIPT)).is_file());
}
