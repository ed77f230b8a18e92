//! `helix-gate hook --agent codex` and `helix-gate install codex`.
//!
//! First without a client: the hook's answers to recorded Codex payloads,
//! each held to the pinned Codex's output schema, and what `install codex`
//! writes and says. Then end to end with the real Codex CLI 0.169.0
//! (`scripts/install-codex.sh`) against the fake Responses API, with the hook
//! registered by `helix-gate install codex --trust-hooks --trust-project` in a
//! scratch repository and a scratch `CODEX_HOME` (no `--dangerously-bypass-hook-trust`:
//! Codex runs the hook because helix-gate recorded its review exactly as Codex
//! computes it). The assertions read what the next model request carries: a
//! block reason reaches the model as the tool's output (`PostToolUse`,
//! `PreToolUse`) or as a `<hook_prompt>` user message (Stop).

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

use crate::support::agents::{
    MISSING, NO_APPROVAL, bad, good, log, repository, verdicts, with_stdin,
};
use crate::support::cli::*;
use crate::support::codex::{AppServer, CodexHome, exec, require_codex};
use crate::support::fake_responses::{FakeResponses, Item, Request};
use crate::support::repo::ScratchRepo;

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

/// The patch that turns [`bad`] into [`good`].
fn fix(rel: &str) -> String {
    format!(
        "*** Begin Patch\n*** Update File: {rel}\n@@\n-## Notizen\n+## Dokumentation\n*** End Patch\n"
    )
}

/// helix-gate in `cwd` with Codex's `HOME` and `CODEX_HOME`.
fn helix(home: &CodexHome, cwd: &Path, args: &[&str], stdin: &str) -> Output {
    let mut command = Command::new(bin());
    command.args(args).current_dir(cwd);
    home.isolate(&mut command);
    with_stdin(&mut command, stdin)
}

/// A repository with the hook installed by `helix-gate install codex`, its
/// review recorded and the project trusted, and a Codex home pointing at `api`.
fn installed(api: &FakeResponses) -> (ScratchRepo, CodexHome) {
    let repo = repository(false);
    let home = CodexHome::new(&api.base_url());
    let out = helix(
        &home,
        repo.path(),
        &["install", "codex", "--trust-hooks", "--trust-project"],
        "",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.commit_all("helix-gate installed for Codex");
    (repo, home)
}

/// Every request, printed for a failing assertion.
fn dump(requests: &[Request]) -> String {
    requests
        .iter()
        .map(|r| format!("#{}: {}", r.index, r.body["input"]))
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------- no client

/// Codex's output schema for `event` (the pinned client's, `tests/fixtures/codex`).
fn schema(event: &str) -> jsonschema::Validator {
    let name = match event {
        "PreToolUse" => "pre-tool-use",
        "PostToolUse" => "post-tool-use",
        "Stop" => "stop",
        "SessionStart" => "session-start",
        "UserPromptSubmit" => "user-prompt-submit",
        _ => "interrupt",
    };
    let path = manifest_dir().join(format!(
        "tests/fixtures/codex/{name}.command.output.schema.json"
    ));
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::draft7::new(&schema).unwrap()
}

/// Run `hook --agent codex` on `event` in `root`; the answer, checked against
/// Codex's schema for the event (`None`: no answer).
fn codex_hook(home: &CodexHome, root: &Path, event: &Value) -> Option<Value> {
    let out = helix(
        home,
        root,
        &["hook", "--agent", "codex"],
        &format!("{event}\n"),
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    if text.is_empty() {
        return None;
    }
    assert_eq!(text.lines().count(), 1, "one JSON line: {text:?}");
    let answer: Value = serde_json::from_str(text.trim()).unwrap();
    let name = event["hook_event_name"].as_str().unwrap_or("");
    let errors: Vec<String> = schema(name)
        .iter_errors(&answer)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "not a valid {name} answer for Codex: {answer}\n{errors:#?}"
    );
    Some(answer)
}

fn payload(root: &Path, event: &str, extra: &Value) -> Value {
    let mut payload = json!({
        "session_id": "01a2-codex", "turn_id": "t1", "transcript_path": "/h/r.jsonl",
        "cwd": root, "hook_event_name": event, "model": "gpt-5.5",
        "permission_mode": "bypassPermissions",
    });
    for (key, value) in extra.as_object().unwrap() {
        payload[key] = value.clone();
    }
    payload
}

fn patch_event(root: &Path, event: &str, patch: &str) -> Value {
    payload(
        root,
        event,
        &json!({"tool_name": "apply_patch", "tool_input": {"command": patch}, "tool_use_id": "call_1"}),
    )
}

#[test]
fn every_codex_answer_fits_codexs_schema_from_a_save_to_the_escalation() {
    let repo = repository(false);
    let root = repo.path();
    let home = CodexHome::new("http://127.0.0.1:9/v1");
    let rel = "adr/040-x.md";
    // SessionStart: the rules summary as context.
    let start = codex_hook(
        &home,
        root,
        &payload(root, "SessionStart", &json!({"source": "startup"})),
    )
    .unwrap();
    assert!(
        start["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("helix-gate checks every ADR")
    );
    // PreToolUse of an ADR: nothing to say.
    assert!(
        codex_hook(
            &home,
            root,
            &patch_event(root, "PreToolUse", &add_file(rel, &bad("040")))
        )
        .is_none()
    );
    // PostToolUse of a broken ADR: blocked with the failed and passed checks.
    repo.write(rel, bad("040"));
    let post = codex_hook(
        &home,
        root,
        &patch_event(root, "PostToolUse", &add_file(rel, &bad("040"))),
    )
    .unwrap();
    let reason = post["reason"].as_str().unwrap();
    assert_eq!(post["decision"], "block");
    assert!(
        reason.contains("adr/040-x.md fails 1 check(s) (attempt 1/3)") && reason.contains(MISSING)
    );
    assert!(reason.contains("PASSED (keep these passing)"), "{reason}");
    // Stop: blocked twice, then escalated with a message only (no hookSpecificOutput at Stop).
    let stop = |active: bool| {
        payload(
            root,
            "Stop",
            &json!({"stop_hook_active": active, "last_assistant_message": "I could not."}),
        )
    };
    for attempt in ["2/3", "3/3"] {
        let answer = codex_hook(&home, root, &stop(true)).unwrap();
        assert!(
            answer["reason"]
                .as_str()
                .unwrap()
                .contains(&format!("[attempt {attempt}] {rel}")),
            "{answer}"
        );
    }
    let escalated = codex_hook(&home, root, &stop(true)).unwrap();
    assert_eq!(escalated.as_object().unwrap().len(), 1, "{escalated}");
    assert!(
        escalated["systemMessage"].as_str().unwrap().starts_with(
            "helix-gate escalation: budget adr/040-x.md: section-missing after attempt 3/3;"
        ),
        "{escalated}"
    );
    assert_eq!(
        verdicts(&repo, rel),
        ["block", "block", "block", "escalate"]
    );
}

#[test]
fn codex_writes_of_protected_files_are_refused_because_codex_cannot_ask() {
    let repo = repository(false);
    let root = repo.path();
    let home = CodexHome::new("http://127.0.0.1:9/v1");
    let config_patch = "*** Begin Patch\n*** Update File: config/approvals.yaml\n@@\n-    enabled: false\n+    enabled: true\n*** End Patch\n";
    let answer = codex_hook(&home, root, &patch_event(root, "PreToolUse", config_patch)).unwrap();
    let specific = &answer["hookSpecificOutput"];
    assert_eq!(
        specific["permissionDecision"], "deny",
        "Codex rejects ask: {answer}"
    );
    let reason = specific["permissionDecisionReason"].as_str().unwrap();
    assert!(
        reason.contains("config/approvals.yaml is part of helix-gate's configuration"),
        "{reason}"
    );
    assert!(
        reason.contains("Codex CLI cannot ask the user from a hook"),
        "{reason}"
    );
    // Deleting it, or moving a file over it, is a write too; so is anything in .helix-gate/.
    for patch in [
        "*** Begin Patch\n*** Delete File: config/approvals.yaml\n*** End Patch\n".to_owned(),
        "*** Begin Patch\n*** Update File: notes.md\n*** Move to: config/helix-gate.yaml\n@@\n-a\n+b\n*** End Patch\n".to_owned(),
        add_file(".helix-gate/state/x.json", "{}"),
        format!("*** Begin Patch\n*** Add File: {}/.helix-gate/log.jsonl\n+x\n*** End Patch\n", root.display()),
    ] {
        let answer = codex_hook(&home, root, &patch_event(root, "PreToolUse", &patch)).unwrap();
        assert_eq!(answer["hookSpecificOutput"]["permissionDecision"], "deny", "{patch}: {answer}");
    }
    // The same through a shell command (Codex reports exec_command as Bash).
    let bash = payload(
        root,
        "PreToolUse",
        &json!({"tool_name": "Bash", "tool_input": {"command": "echo x > config/helix-gate.yaml"}, "tool_use_id": "call_2"}),
    );
    let answer = codex_hook(&home, root, &bash).unwrap();
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    // One refused path refuses the whole patch; the others are named nowhere.
    let mixed = "*** Begin Patch\n*** Add File: adr/041-y.md\n+x\n*** Delete File: .helix-gate/log.jsonl\n*** End Patch\n";
    let answer = codex_hook(&home, root, &patch_event(root, "PreToolUse", mixed)).unwrap();
    assert!(
        answer["hookSpecificOutput"]["permissionDecisionReason"]
            .as_str()
            .unwrap()
            .contains(".helix-gate/log.jsonl")
    );
}

#[test]
fn a_patch_with_several_files_checks_each_adr_and_skips_a_deleted_one() {
    let repo = repository(false);
    let root = repo.path();
    repo.write("adr/001-old.md", good("001"));
    repo.commit_all("an ADR");
    let home = CodexHome::new("http://127.0.0.1:9/v1");
    // The patch as Codex applied it: one good ADR, one broken, one deleted, a move.
    repo.write("adr/042-a.md", good("042"));
    repo.write("adr/043-b.md", bad("043"));
    std::fs::remove_file(repo.join("adr/001-old.md")).unwrap();
    repo.write("adr/044-c.md", bad("044"));
    let patch = format!(
        "{}{}*** Delete File: adr/001-old.md\n*** Update File: drafts/c.md\n*** Move to: adr/044-c.md\n@@\n-x\n+y\n*** End Patch\n",
        add_file("adr/042-a.md", &good("042")).trim_end_matches("*** End Patch\n"),
        add_file("adr/043-b.md", &bad("043"))
            .trim_start_matches("*** Begin Patch\n")
            .trim_end_matches("*** End Patch\n"),
    );
    let answer = codex_hook(&home, root, &patch_event(root, "PostToolUse", &patch)).unwrap();
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains("adr/043-b.md fails") && reason.contains("adr/044-c.md fails"),
        "{reason}"
    );
    assert!(!reason.contains("adr/042-a.md"), "{reason}");
    assert_eq!(verdicts(&repo, "adr/042-a.md"), ["pass"]);
    assert_eq!(verdicts(&repo, "adr/043-b.md"), ["block"]);
    assert_eq!(verdicts(&repo, "adr/001-old.md"), ["skip"]);
    // Each ADR has its own budget: the second one is at its first attempt too.
    assert!(
        reason.contains("adr/044-c.md fails 1 check(s) (attempt 1/3)"),
        "{reason}"
    );
    // A patch whose text helix-gate cannot read is not a pass: the failure policy
    // (fail-open by default) says so, within Codex's schema.
    let broken = payload(
        root,
        "PostToolUse",
        &json!({"tool_name": "apply_patch", "tool_input": {"command": 5}, "tool_use_id": "call_9"}),
    );
    let answer = codex_hook(&home, root, &broken).unwrap();
    let message = answer["systemMessage"].as_str().unwrap();
    assert!(
        message.starts_with("helix-gate escalation: infrastructure -:")
            && message.contains("tool_input.command"),
        "{answer}"
    );
}

#[test]
fn a_claude_project_dir_inherited_by_codex_does_not_redirect_it() {
    let repo = repository(false);
    let other = repository(false);
    let home = CodexHome::new("http://127.0.0.1:9/v1");
    let rel = "adr/045-x.md";
    repo.write(rel, bad("045"));
    let event = patch_event(repo.path(), "PostToolUse", &add_file(rel, &bad("045")));
    let mut command = Command::new(bin());
    command
        .args(["hook", "--agent", "codex"])
        .current_dir(repo.path());
    home.isolate(&mut command);
    let out = command
        .env("CLAUDE_PROJECT_DIR", other.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            child
                .stdin
                .take()
                .unwrap()
                .write_all(format!("{event}\n").as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert!(
        stdout(&out).contains("adr/045-x.md fails"),
        "{}",
        stdout(&out)
    );
    assert_eq!(verdicts(&repo, rel), ["block"]);
    assert!(log(&other).is_empty());
}

#[test]
fn any_patch_gets_an_answer_codex_accepts_exit_0() {
    use proptest::prelude::*;
    let repo = repository(false);
    repo.write("adr/001-x.md", bad("001"));
    let root = repo.path().to_path_buf();
    let home = CodexHome::new("http://127.0.0.1:9/v1");
    let target = prop_oneof![
        Just("adr/001-x.md".to_owned()),
        Just("config/helix-gate.yaml".to_owned()),
        Just(".helix-gate/log.jsonl".to_owned()),
        Just("../outside.md".to_owned()),
        Just(root.join("adr/002-y.md").display().to_string()),
        "[a-z./]{0,10}".prop_map(String::from),
    ];
    let header = prop_oneof![
        Just("*** Add File: "),
        Just("*** Update File: "),
        Just("*** Delete File: "),
        Just("*** Move to: "),
        Just("+"),
        Just("@@"),
    ];
    let patch = prop::collection::vec((header, target), 0..4).prop_map(|parts| {
        let mut text = String::from("*** Begin Patch\n");
        for (header, target) in parts {
            text.push_str(header);
            text.push_str(&target);
            text.push_str("\n+x\n");
        }
        text.push_str("*** End Patch\n");
        text
    });
    let event = prop_oneof![Just("PreToolUse"), Just("PostToolUse")];
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&(event, patch), |(event, patch)| {
            // `codex_hook` asserts exit 0, one JSON line and Codex's schema.
            codex_hook(&home, &root, &patch_event(&root, event, &patch));
            Ok(())
        })
        .unwrap();
}

#[test]
fn install_codex_says_what_codex_still_needs_and_changes_nothing_else() {
    let repo = repository(false);
    let home = CodexHome::new("http://127.0.0.1:9/v1");
    let before = home.config();
    std::fs::create_dir_all(repo.join(".codex")).unwrap();
    let foreign =
        r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}}"#;
    repo.write(".codex/hooks.json", foreign);
    let out = helix(&home, repo.path(), &["install", "codex"], "");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("trust this project") && text.contains("trust_level = \"trusted\""),
        "{text}"
    );
    assert!(
        text.contains("review the hooks") && text.contains("--trust-hooks"),
        "{text}"
    );
    assert_eq!(
        home.config(),
        before,
        "nothing recorded without being asked"
    );
    let file: Value = serde_json::from_str(&repo.read(".codex/hooks.json").unwrap()).unwrap();
    assert_eq!(file["hooks"]["Stop"][0]["hooks"][0]["command"], "./mine.sh");
    assert_eq!(file["hooks"]["Stop"].as_array().unwrap().len(), 2);
    // Twice changes nothing; --trust-hooks then records the reviews.
    let written = repo.read(".codex/hooks.json").unwrap();
    helix(&home, repo.path(), &["install", "codex"], "");
    assert_eq!(repo.read(".codex/hooks.json").unwrap(), written);
    let out = helix(
        &home,
        repo.path(),
        &["install", "codex", "--trust-hooks"],
        "",
    );
    assert!(
        stdout(&out).contains("recorded Codex's review of 4 helix-gate hook(s)"),
        "{}",
        stdout(&out)
    );
    assert!(
        home.config().starts_with(&before),
        "the person's config stays as it was"
    );
    assert_eq!(home.config().matches("trusted_hash = \"sha256:").count(), 4);
    // doctor reports both gates.
    let doctor = stdout(&helix(&home, repo.path(), &["doctor"], ""));
    assert!(doctor.contains("Codex CLI hook registrations:"), "{doctor}");
    assert!(
        doctor.contains("all 4 helix-gate hook(s) are reviewed"),
        "{doctor}"
    );
    assert!(
        doctor.contains("Codex ignores .codex/hooks.json until the project is trusted"),
        "{doctor}"
    );
    // A malformed hooks file or config.toml is refused, untouched.
    repo.write(".codex/hooks.json", "{ nope");
    let out = helix(&home, repo.path(), &["install", "codex"], "");
    assert_eq!(code(&out), 2);
    assert_eq!(repo.read(".codex/hooks.json").unwrap(), "{ nope");
    repo.write(".codex/hooks.json", written);
    std::fs::write(home.path().join("config.toml"), "model = [\n").unwrap();
    let out = helix(
        &home,
        repo.path(),
        &["install", "codex", "--trust-hooks"],
        "",
    );
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains("not valid TOML"), "{}", stderr(&out));
    assert_eq!(home.config(), "model = [\n");
    // Uninstall removes only ours.
    std::fs::write(home.path().join("config.toml"), &before).unwrap();
    let out = helix(&home, repo.path(), &["uninstall", "codex"], "");
    assert!(
        stdout(&out).contains("removed 4 helix-gate hook(s)"),
        "{}",
        stdout(&out)
    );
    let file: Value = serde_json::from_str(&repo.read(".codex/hooks.json").unwrap()).unwrap();
    assert_eq!(file, serde_json::from_str::<Value>(foreign).unwrap());
    // Codex has no local scope.
    assert_eq!(
        code(&helix(
            &home,
            repo.path(),
            &["install", "codex", "--scope", "local"],
            ""
        )),
        2
    );
}

// ------------------------------------------------------- with the real client

#[test]
fn a_broken_adr_written_with_apply_patch_is_blocked_then_fixed() {
    let Some(codex) = require_codex() else {
        return;
    };
    let rel = "adr/040-x.md";
    let api = FakeResponses::start(move |request: &Request| match request.index {
        0 => vec![Item::patch("call_1", add_file(rel, &bad("040")))],
        1 => vec![Item::patch("call_2", fix(rel))],
        _ => vec![Item::message("ADR written.")],
    });
    let (repo, home) = installed(&api);
    let outcome = exec(&codex, &home, repo.path(), "Write the ADR");
    outcome.assert_success();
    let requests = api.requests();
    assert_eq!(
        requests.len(),
        3,
        "{}\n{}",
        outcome.describe(),
        dump(&requests)
    );
    // The block replaces the tool output the model sees: failed and passed checks.
    let blocked = requests[1].tool_output("call_1").unwrap_or_default();
    assert!(
        blocked.contains("adr/040-x.md fails 1 check(s) (attempt 1/3)")
            && blocked.contains("FAILED")
            && blocked.contains(MISSING)
            && blocked.contains("PASSED (keep these passing)"),
        "{blocked}"
    );
    let fixed = requests[2].tool_output("call_2").unwrap_or_default();
    assert!(
        fixed.contains("Success.") && !fixed.contains("helix-gate"),
        "{fixed}"
    );
    assert!(
        requests.iter().all(|r| r.hook_prompts().is_empty()),
        "the Stop passes"
    );
    assert_eq!(repo.read(rel).unwrap(), good("040"));
    assert_eq!(verdicts(&repo, rel), ["block", "pass"]);
    assert!(api.errors().is_empty(), "{:?}", api.errors());
}

#[test]
fn in_a_session_folder_codex_must_end_with_the_step_marker() {
    let Some(codex) = require_codex() else {
        return;
    };
    let api = FakeResponses::start(|request: &Request| match request.index {
        0 => vec![Item::message("Die Entscheidung steht.")],
        _ => vec![Item::message(
            "Die Entscheidung steht.\n\n<!-- STEP: done -->",
        )],
    });
    let (repo, home) = installed(&api);
    // The hook is registered at the repository root; Codex loads it for a
    // session started in a subfolder too.
    let session = repo.join("projects/sessions/s1");
    std::fs::create_dir_all(&session).unwrap();
    let outcome = exec(&codex, &home, &session, "Entscheide");
    outcome.assert_success();
    let requests = api.requests();
    assert_eq!(
        requests.len(),
        2,
        "{}\n{}",
        outcome.describe(),
        dump(&requests)
    );
    let prompts = requests[1].hook_prompts();
    assert_eq!(prompts.len(), 1, "{prompts:#?}");
    assert!(
        prompts[0].contains("does not end with a STEP marker")
            && prompts[0].contains("<!-- STEP: what|why|constraints|generate|finalize|done -->"),
        "{prompts:#?}"
    );
    assert!(
        outcome.stdout.trim_end().ends_with("<!-- STEP: done -->"),
        "{}",
        outcome.describe()
    );
    assert_eq!(verdicts(&repo, "step-marker"), ["block"]);
}

/// The model writes a broken ADR and never fixes it.
fn never_fixed(request: &Request) -> Vec<Item> {
    match request.index {
        0 => vec![Item::patch("call_1", add_file("adr/040-x.md", &bad("040")))],
        _ => vec![Item::message("I could not fix it.")],
    }
}

#[test]
fn without_a_fix_the_budget_ends_codexs_loop_with_an_escalation() {
    let Some(codex) = require_codex() else {
        return;
    };
    let api = FakeResponses::start(never_fixed);
    let (repo, home) = installed(&api);
    let outcome = exec(&codex, &home, repo.path(), "Write the ADR");
    // Codex has no cap on Stop blocks: helix-gate's budget is what ends the turn.
    outcome.assert_success();
    let requests = api.requests();
    assert_eq!(
        requests.len(),
        4,
        "{}\n{}",
        outcome.describe(),
        dump(&requests)
    );
    let prompts = requests[3].hook_prompts();
    assert_eq!(prompts.len(), 2, "{prompts:#?}");
    assert!(
        prompts[0].contains("[attempt 2/3] adr/040-x.md") && prompts[0].contains(MISSING),
        "{prompts:#?}"
    );
    assert!(
        prompts[1].contains("[attempt 3/3] adr/040-x.md"),
        "{prompts:#?}"
    );
    assert_eq!(
        verdicts(&repo, "adr/040-x.md"),
        ["block", "block", "block", "escalate"]
    );
}

#[test]
fn the_escalation_line_reaches_codexs_client_and_the_reviews_match_codexs_hashes() {
    let Some(codex) = require_codex() else {
        return;
    };
    let api = FakeResponses::start(never_fixed);
    let (repo, home) = installed(&api);
    let mut server = AppServer::start(&codex, &home, repo.path());
    // Codex's own view of the hooks: every one of ours reviewed, with the hash
    // helix-gate recorded.
    let listed = server.request("hooks/list", &json!({"cwds": [repo.path()]}));
    let hooks = listed["data"][0]["hooks"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let ours: Vec<&Value> = hooks
        .iter()
        .filter(|h| h["statusMessage"] == "helix-gate: ADR gate")
        .collect();
    assert_eq!(ours.len(), 4, "{listed}");
    let config = home.config();
    for hook in &ours {
        assert_eq!(hook["trustStatus"], "trusted", "{hook}");
        let hash = hook["currentHash"].as_str().unwrap();
        assert!(
            config.contains(&format!("trusted_hash = \"{hash}\"")),
            "{hash} not in\n{config}"
        );
    }
    let thread = server.request(
        "thread/start",
        &json!({"cwd": repo.path(), "sandbox": "danger-full-access", "approvalPolicy": "never"}),
    );
    let thread_id = thread["thread"]["id"].clone();
    server.request(
        "turn/start",
        &json!({"threadId": thread_id, "input": [{"type": "text", "text": "Write the ADR"}]}),
    );
    server.wait_for(|m| m["method"] == "turn/completed");
    let warnings: Vec<String> = server
        .notifications("hook/completed")
        .iter()
        .flat_map(|n| {
            n["params"]["run"]["entries"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .filter(|e| e["kind"] == "warning")
        .filter_map(|e| e["text"].as_str().map(str::to_owned))
        .collect();
    assert!(
        warnings.iter().any(|w| w.starts_with(
            "helix-gate escalation: budget adr/040-x.md: section-missing after attempt 3/3;"
        )),
        "the escalation line must reach the client as the Stop hook's warning: {warnings:#?}"
    );
    assert_eq!(api.requests().len(), 4, "{}", dump(&api.requests()));
    assert_eq!(
        verdicts(&repo, "adr/040-x.md"),
        ["block", "block", "block", "escalate"]
    );
}

#[test]
fn codex_refuses_the_patch_of_a_protected_file_and_the_model_is_told_why() {
    let Some(codex) = require_codex() else {
        return;
    };
    let api = FakeResponses::start(|request: &Request| match request.index {
        0 => vec![Item::patch(
            "call_1",
            "*** Begin Patch\n*** Update File: config/approvals.yaml\n@@\n-    enabled: false\n+    enabled: true\n*** End Patch\n",
        )],
        1 => vec![Item::patch(
            "call_2",
            add_file(".helix-gate/log.jsonl", "{}"),
        )],
        _ => vec![Item::message("I left them alone.")],
    });
    let (repo, home) = installed(&api);
    let outcome = exec(&codex, &home, repo.path(), "Turn the reviewer on");
    outcome.assert_success();
    let requests = api.requests();
    assert_eq!(requests.len(), 3, "{}", dump(&requests));
    let refused = requests[1].tool_output("call_1").unwrap_or_default();
    assert!(
        refused.contains("blocked by PreToolUse hook")
            && refused.contains("config/approvals.yaml is part of helix-gate's configuration"),
        "{refused}"
    );
    let data = requests[2].tool_output("call_2").unwrap_or_default();
    assert!(data.contains("inside .helix-gate/"), "{data}");
    assert_eq!(
        repo.read("config/approvals.yaml").as_deref(),
        Some(NO_APPROVAL)
    );
    assert!(
        !log(&repo).iter().any(|l| l["verdict"] == "error"),
        "{:?}",
        log(&repo)
    );
}

#[test]
fn the_output_schemas_are_the_pinned_clients() {
    let Some(codex) = require_codex() else {
        return;
    };
    // The npm launcher runs the platform package's native binary, which embeds
    // codex-rs/hooks/schema/generated/*.command.output.schema.json.
    let package = std::fs::canonicalize(&codex).unwrap();
    let modules = package
        .ancestors()
        .find(|p| p.ends_with("node_modules"))
        .expect("node_modules above the codex launcher")
        .join("@openai");
    let native = std::fs::read_dir(&modules)
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("codex-"))
        .flat_map(|e| walk(&e.path()))
        .find(|p| p.file_name().is_some_and(|n| n == "codex") && p.is_file())
        .expect("the native codex binary");
    let bytes = std::fs::read(native).unwrap();
    let stored: Vec<(std::path::PathBuf, Value)> =
        std::fs::read_dir(manifest_dir().join("tests/fixtures/codex"))
            .unwrap()
            .map(|entry| {
                let path = entry.unwrap().path();
                let value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
                (path, value)
            })
            .collect();
    let markers: Vec<String> = stored
        .iter()
        .map(|(_, schema)| format!("\"title\": \"{}\"", schema["title"].as_str().unwrap()))
        .collect();
    // One pass over the 300 MB binary for all of them.
    let finder = aho_corasick::AhoCorasick::new(&markers).unwrap();
    let mut found = vec![None; markers.len()];
    for hit in finder.find_iter(&bytes) {
        found[hit.pattern().as_usize()].get_or_insert(hit.start());
    }
    for ((path, schema), at) in stored.iter().zip(found) {
        let at = at.unwrap_or_else(|| panic!("{} is not in the pinned client", path.display()));
        // The schema's JSON starts at the `{` that opens its `"$schema"` line.
        let opening = b"{\n  \"$schema\"";
        let start = bytes[at.saturating_sub(64 * 1024)..at]
            .windows(opening.len())
            .rposition(|w| w == opening)
            .map(|i| at.saturating_sub(64 * 1024) + i)
            .unwrap();
        let embedded: Value = serde_json::Deserializer::from_slice(&bytes[start..])
            .into_iter::<Value>()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(
            &embedded,
            schema,
            "{} differs from the pinned client",
            path.display()
        );
    }
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else {
            out.push(path);
        }
    }
    out
}

/// `install codex --scope user` on a machine where Codex never ran: it creates
/// `~/.codex/` and writes its hooks there (it was refused as a folder that cannot be
/// resolved).
#[test]
fn install_codex_for_the_user_creates_codex_home() {
    let repo = repository(false);
    let home = tempfile::tempdir().unwrap();
    let out = crate::support::cli::isolated(bin(), repo.path())
        .args(["install", "codex", "--scope", "user"])
        .env("HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let hooks: Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join(".codex/hooks.json")).unwrap(),
    )
    .unwrap();
    assert!(hooks["hooks"]["Stop"].is_array(), "{hooks}");
}
