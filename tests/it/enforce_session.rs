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
        reason.contains("FAILED:\n- [ADR-014/no-direct-http] line 2: imports `requests`: ADR-014 (Outbound HTTP goes through the gateway) says: All outbound HTTP goes through app.gateway. -> fix: use what the decision prescribes instead of this import (read adr/014-gateway.md)"),
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
fn an_adr_the_agent_writes_during_the_session_rules_from_the_next_write_on() {
    let repo = ScratchRepo::new();
    repo.write("config/approvals.yaml", NO_APPROVAL);
    repo.write("src/app/gateway.py", "client = None\n");
    repo.commit_all("the gateway, no ADR yet");
    let root = repo.path();
    start(root, "s");
    assert!(!root.join(".helix-gate/governs-index").exists());
    assert_eq!(
        save(root, "src/api.py", BAD),
        None,
        "nothing rules code yet"
    );
    // The ADR still lacks sections of its own (blocked for them), but its rules hold.
    save(root, "adr/014-gateway.md", &gateway_adr("Proposed"));
    assert!(root.join(".helix-gate/governs-index").exists());
    let answer = save(root, "src/api2.py", BAD).expect("the new ADR's warning");
    assert!(
        context(&answer).contains("- [ADR-014/no-direct-http] line 2"),
        "{answer}"
    );
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

/// Codex may run `apply_patch` through its shell (`apply_patch <<'EOF'`): the
/// files the patch writes get the same context before the command runs.
#[test]
fn an_apply_patch_run_through_the_shell_is_told_the_governing_decisions() {
    let repo = repo("Accepted");
    let root = repo.path();
    let command = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: src/api.py\n+import os\n*** End Patch\nEOF\n";
    let event = json!({"session_id": "s", "transcript_path": "t", "cwd": root,
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "call_1"});
    let answer = hook(root, &event).expect("context");
    assert!(
        answer["hookSpecificOutput"]
            .get("permissionDecision")
            .is_none(),
        "{answer}"
    );
    assert!(
        context(&answer).starts_with("helix-gate: decisions govern src/api.py;"),
        "{answer}"
    );
    assert!(context(&answer).contains("rule no-direct-http (forbid_import)"));
    // An ungoverned file written the same way: nothing.
    let docs = command.replace("src/api.py", "docs/notes.md");
    let event = json!({"session_id": "s", "transcript_path": "t", "cwd": root,
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": docs}, "tool_use_id": "call_2"});
    assert_eq!(hook(root, &event), None);
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

mod e2e {
    //! The real clients against the fake model APIs: the scripted model writes
    //! code that breaks ADR-014's rule, is blocked, writes it correctly, and
    //! ends its turn.

    use std::path::Path;
    use std::process::{Command, Output};

    use serde_json::{Value, json};

    use super::{BAD, GOOD, NO_APPROVAL, gateway_adr};
    use crate::support::agents::with_stdin;
    use crate::support::claude::{ClaudeRun, require_claude, stop_hook_feedback};
    use crate::support::cli::*;
    use crate::support::codex::{CodexHome, exec, require_codex};
    use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
    use crate::support::fake_responses::{FakeResponses, Item, Request};
    use crate::support::repo::ScratchRepo;

    /// A committed repository with ADR-014 (Accepted) and the gateway, reviewer off.
    fn governed_repo() -> ScratchRepo {
        let repo = ScratchRepo::new();
        repo.write("config/approvals.yaml", NO_APPROVAL);
        repo.write("adr/014-gateway.md", gateway_adr("Accepted"));
        repo.write("src/app/gateway.py", "client = None\n");
        repo.commit_all("ADR-014 and the gateway");
        repo
    }

    fn verdicts(repo: &ScratchRepo, target: &str) -> Vec<String> {
        repo.read(".helix-gate/log.jsonl")
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .filter(|l| l["target"] == target)
            .map(|l| l["verdict"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn claude_breaks_an_accepted_rule_is_blocked_and_corrects_itself() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = governed_repo();
        let out = run(repo.path(), &["install", "claude"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let write = |conv: &Conversation<'_>, content: &str| {
            let dir = conv.working_dir().expect("working dir");
            Turn::text("Writing the client.").with_tool(
                "Write",
                json!({"file_path": dir.join("src/api.py"), "content": content}),
            )
        };
        let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
            match conv.request_index() {
                0 => write(conv, BAD),
                1 => write(conv, GOOD),
                _ => Turn::text("The client calls the gateway."),
            }
        });
        let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Add an API client").run();
        outcome.assert_success();
        let requests = api.main_requests();
        assert_eq!(requests.len(), 3, "{}", outcome.describe());
        // Before the first write the model heard which decision governs the file.
        assert!(
            requests[1].contains("decisions govern src/api.py")
                && requests[1].contains("rule no-direct-http (forbid_import)"),
            "{}",
            outcome.describe()
        );
        // Claude Code joins the PreToolUse context and the PostToolUse block in one
        // system message: the block is what follows its prefix.
        let prefix = "PostToolUse:Write hook blocking error from command:";
        let blocks: Vec<String> = requests[1]
            .messages()
            .iter()
            .filter(|m| m["role"] == "system")
            .flat_map(|m| match &m["content"] {
                Value::String(text) => vec![text.clone()],
                other => other
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|b| b["text"].as_str().map(str::to_owned))
                    .collect(),
            })
            .filter_map(|text| text.find(prefix).map(|at| text[at..].to_owned()))
            .collect();
        assert_eq!(blocks.len(), 1, "{blocks:#?}\n{}", outcome.describe());
        assert!(
            blocks[0].contains("src/api.py breaks 1 rule(s)")
                && blocks[0].contains("[ADR-014/no-direct-http] line 2")
                && blocks[0].contains("All outbound HTTP goes through app.gateway.")
                && blocks[0].contains("attempt 1/3"),
            "{}",
            blocks[0]
        );
        // Told once: the second write of the file hears nothing new before it.
        assert!(
            !requests[2]
                .messages()
                .iter()
                .skip(requests[1].messages().len())
                .any(|m| m.to_string().contains("decisions govern")),
            "{}",
            outcome.describe()
        );
        assert!(stop_hook_feedback(&requests).is_empty());
        assert_eq!(outcome.result_text(), Some("The client calls the gateway."));
        assert_eq!(repo.read("src/api.py").unwrap(), GOOD);
        assert_eq!(verdicts(&repo, "src/api.py"), ["block", "pass"]);
    }

    /// helix-gate in `cwd` with Codex's `HOME` and `CODEX_HOME`.
    fn helix(home: &CodexHome, cwd: &Path, args: &[&str]) -> Output {
        let mut command = Command::new(bin());
        command.args(args).current_dir(cwd);
        home.isolate(&mut command);
        with_stdin(&mut command, "")
    }

    /// An `apply_patch` input that adds `rel` with `content`.
    fn add_file(rel: &str, content: &str) -> String {
        let mut lines = String::new();
        for line in content.trim_end_matches('\n').split('\n') {
            lines.push('+');
            lines.push_str(line);
            lines.push('\n');
        }
        format!("*** Begin Patch\n*** Add File: {rel}\n{lines}*** End Patch\n")
    }

    #[test]
    fn codex_breaks_an_accepted_rule_is_blocked_and_corrects_itself() {
        let Some(codex) = require_codex() else {
            return;
        };
        let rel = "src/api.py";
        let fix = format!(
            "*** Begin Patch\n*** Update File: {rel}\n@@\n import os\n-import requests\n+from app.gateway import client\n \n-requests.get(\"https://example.com\")\n+client.get(\"https://example.com\")\n*** End Patch\n"
        );
        let api = FakeResponses::start(move |request: &Request| match request.index {
            0 => vec![Item::patch("call_1", add_file(rel, BAD))],
            1 => vec![Item::patch("call_2", fix.clone())],
            _ => vec![Item::message("The client calls the gateway.")],
        });
        let repo = governed_repo();
        let home = CodexHome::new(&api.base_url());
        let out = helix(
            &home,
            repo.path(),
            &["install", "codex", "--trust-hooks", "--trust-project"],
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        repo.commit_all("helix-gate installed for Codex");
        let outcome = exec(&codex, &home, repo.path(), "Add an API client");
        outcome.assert_success();
        let requests = api.requests();
        let dump = || {
            requests
                .iter()
                .map(|r| format!("#{}: {}", r.index, r.body["input"]))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(requests.len(), 3, "{}\n{}", outcome.describe(), dump());
        let blocked = requests[1].tool_output("call_1").unwrap_or_default();
        assert!(
            blocked.contains("src/api.py breaks 1 rule(s)")
                && blocked.contains("[ADR-014/no-direct-http] line 2")
                && blocked.contains("attempt 1/3"),
            "{blocked}\n{}",
            dump()
        );
        assert!(
            requests[1].contains("decisions govern src/api.py"),
            "the PreToolUse context reaches the model: {}",
            dump()
        );
        let fixed = requests[2].tool_output("call_2").unwrap_or_default();
        assert!(!fixed.contains("breaks"), "{fixed}");
        assert!(
            requests.iter().all(|r| r.hook_prompts().is_empty()),
            "the Stop passes: {}",
            dump()
        );
        assert_eq!(repo.read(rel).unwrap(), GOOD);
        assert_eq!(verdicts(&repo, rel), ["block", "pass"]);
        assert!(api.errors().is_empty(), "{:?}", api.errors());
    }
}
