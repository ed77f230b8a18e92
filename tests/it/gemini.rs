//! `helix-gate hook --agent gemini` and `helix-gate install gemini`.
//!
//! First without a client: the hook's answers to Gemini-shaped payloads and
//! what `install gemini` writes. Then end to end with the real Gemini CLI
//! 0.61.0 (`scripts/install-gemini.sh`) against the fake Gemini API, the hook
//! registered by `helix-gate install gemini` in a scratch repository and a
//! scratch `HOME`. The assertions read what the next model request carries: an
//! `AfterTool` deny replaces the tool's result (the `functionResponse` carries
//! the reason), an `AfterAgent` deny comes back as the next user message.

use std::path::Path;
use std::process::Output;

use serde_json::{Value, json};

use crate::support::agents::{MISSING, bad, good, repository, verdicts, with_stdin};
use crate::support::cli::*;
use crate::support::fake_gemini::{FakeGemini, Request, call, text};
use crate::support::gemini::{GeminiHome, require_gemini, run};
use crate::support::repo::ScratchRepo;

const REL: &str = "adr/040-x.md";

/// helix-gate in `cwd` with Gemini's `HOME`, `stdin` on its stdin.
fn helix(home: &GeminiHome, cwd: &Path, args: &[&str], stdin: &str) -> Output {
    let mut command = home.command(bin(), cwd);
    command.args(args);
    with_stdin(&mut command, stdin)
}

/// The repository with the hook installed by `install gemini [args]`.
fn installed(api: &FakeGemini, args: &[&str]) -> (ScratchRepo, GeminiHome) {
    let repo = repository(true);
    let home = GeminiHome::new(&api.base_url());
    let mut command = vec!["install", "gemini"];
    command.extend_from_slice(args);
    let out = helix(&home, repo.path(), &command, "");
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.commit_all("helix-gate installed for Gemini");
    (repo, home)
}

fn dump(requests: &[Request]) -> String {
    requests
        .iter()
        .map(|r| format!("#{}: {:?}", r.index, r.last_texts()))
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------- no client

#[test]
fn gemini_answers_deny_with_the_reason_and_never_blocks_a_prompt() {
    let repo = repository(true);
    let root = repo.path();
    let home = GeminiHome::new("http://127.0.0.1:9");
    let hook = |event: Value| {
        let out = helix(
            &home,
            root,
            &["hook", "--agent", "gemini"],
            &format!("{event}\n"),
        );
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let text = stdout(&out);
        (!text.is_empty()).then(|| serde_json::from_str::<Value>(text.trim()).unwrap())
    };
    let base = |name: &str| json!({"session_id": "g1", "transcript_path": "t", "cwd": root, "hook_event_name": name, "timestamp": "t"});
    repo.write(REL, bad("040"));
    let mut after = base("AfterTool");
    after["tool_name"] = json!("write_file");
    after["tool_input"] = json!({"file_path": root.join(REL), "content": bad("040")});
    let answer = hook(after).expect("a deny");
    assert_eq!(answer["decision"], "deny", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains(MISSING) && reason.contains("attempt 1/3"),
        "{reason}"
    );
    // A write of the configuration: Gemini is not asked (headless runs have nobody).
    let mut before = base("BeforeTool");
    before["tool_name"] = json!("replace");
    before["tool_input"] = json!({"file_path": root.join("config/helix-gate.yaml"), "old_string": "", "new_string": "x"});
    let answer = hook(before).expect("a deny");
    assert_eq!(answer["decision"], "deny", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("Gemini CLI cannot ask the user")
    );
    // SessionStart: context only, never a decision (a deny would stop the prompt).
    let answer = hook(base("SessionStart")).expect("the rules summary");
    assert!(answer.get("decision").is_none(), "{answer}");
    assert_eq!(
        answer["hookSpecificOutput"]["hookEventName"],
        "SessionStart"
    );
    // AfterAgent with the broken ADR: a deny for the retry.
    let mut stop = base("AfterAgent");
    stop["prompt"] = json!("Write it");
    stop["prompt_response"] = json!("Done.");
    stop["stop_hook_active"] = json!(false);
    let answer = hook(stop).expect("a deny");
    assert_eq!(answer["decision"], "deny", "{answer}");
}

#[test]
fn install_gemini_merges_into_the_users_settings_and_uninstall_removes_only_that() {
    let repo = repository(true);
    let home = GeminiHome::new("http://127.0.0.1:9");
    let before: Value = serde_json::from_str(&home.settings()).unwrap();
    let out = helix(
        &home,
        repo.path(),
        &["install", "gemini", "--scope", "user"],
        "",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("AfterAgent timeout: 90000 ms"),
        "{}",
        stdout(&out)
    );
    let settings: Value = serde_json::from_str(&home.settings()).unwrap();
    assert_eq!(settings["security"], before["security"]);
    let stop = &settings["hooks"]["AfterAgent"][0]["hooks"][0];
    assert_eq!(stop["timeout"], 90_000);
    assert!(
        stop["command"]
            .as_str()
            .unwrap()
            .ends_with(" hook --agent gemini --scope user")
    );
    let again = helix(
        &home,
        repo.path(),
        &["install", "gemini", "--scope", "user"],
        "",
    );
    assert_eq!(code(&again), 0);
    assert_eq!(
        serde_json::from_str::<Value>(&home.settings()).unwrap(),
        settings
    );
    let doctor = helix(&home, repo.path(), &["doctor"], "");
    assert!(
        stdout(&doctor).contains("Gemini CLI hook registrations:")
            && stdout(&doctor).contains("registered (BeforeTool, AfterTool, AfterAgent, SessionStart) for every Gemini session"),
        "{}",
        stdout(&doctor)
    );
    // A project install says what Gemini needs: folder trust.
    let mut untrusted = home.command(bin(), repo.path());
    untrusted
        .args(["install", "gemini"])
        .env_remove("GEMINI_CLI_TRUST_WORKSPACE");
    let out = untrusted.output().unwrap();
    assert!(
        stdout(&out).contains("trust this folder"),
        "{}",
        stdout(&out)
    );
    let out = helix(
        &home,
        repo.path(),
        &["uninstall", "gemini", "--scope", "user"],
        "",
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        serde_json::from_str::<Value>(&home.settings()).unwrap(),
        before
    );
    // A settings file Gemini would read (comments) but JSON cannot: refused untouched.
    let commented = "// mine\n{}\n";
    std::fs::write(home.path().join(".gemini/settings.json"), commented).unwrap();
    let out = helix(
        &home,
        repo.path(),
        &["install", "gemini", "--scope", "user"],
        "",
    );
    assert_eq!(code(&out), 2);
    assert_eq!(home.settings(), commented);
}

// ---------------------------------------------------------------- the real client

/// The repository's path, known to the fake model once the repository exists.
type Root = std::sync::Arc<std::sync::OnceLock<std::path::PathBuf>>;

fn adr_path(root: &Root) -> String {
    root.get()
        .expect("root set")
        .join(REL)
        .display()
        .to_string()
}

/// From a broken ADR to a passing end of turn, in a session folder: the ADR
/// is blocked with its failed and passed checks, fixed with `replace`, the
/// answer without the STEP marker is denied, the one with it passes. The hook
/// is registered for the user (`install gemini --scope user`): Gemini loads a
/// project's `.gemini/settings.json` only from the folder it was started in.
#[test]
fn gemini_is_blocked_on_a_broken_adr_and_on_a_missing_step_marker_then_passes() {
    let Some(gemini) = require_gemini() else {
        return;
    };
    let root = Root::default();
    let at = root.clone();
    let api = FakeGemini::start(move |request: &Request| match request.index {
        0 => vec![call(
            "write_file",
            &json!({"file_path": adr_path(&at), "content": bad("040")}),
        )],
        1 => vec![call(
            "replace",
            &json!({"file_path": adr_path(&at), "instruction": "rename the section",
                   "old_string": "## Notizen", "new_string": "## Dokumentation"}),
        )],
        2 => vec![text("Die Entscheidung steht.")],
        _ => vec![text("Die Entscheidung steht.\n\n<!-- STEP: done -->")],
    });
    let (repo, home) = installed(&api, &["--scope", "user"]);
    root.set(repo.path().to_path_buf()).unwrap();
    let session = repo.join("projects/sessions/s1");
    std::fs::create_dir_all(&session).unwrap();
    // The ADR is the repository's: Gemini's workspace must include the root.
    let include = repo.path().display().to_string();
    let outcome = run(
        &gemini,
        &home,
        &session,
        "Write the ADR",
        &["--include-directories", &include],
    );
    outcome.assert_success();
    let requests = api.requests();
    assert_eq!(
        requests.len(),
        4,
        "{}\n{}",
        outcome.describe(),
        dump(&requests)
    );
    // AfterTool deny: the tool's result is replaced by the reason.
    assert!(
        requests[1].last_contains("adr/040-x.md fails 1 check(s) (attempt 1/3)")
            && requests[1].last_contains(MISSING)
            && requests[1].last_contains("PASSED (keep these passing)"),
        "{}",
        dump(&requests)
    );
    assert!(
        requests[2].last_contains("Successfully modified file")
            && !requests[2].last_contains("helix-gate:"),
        "{}",
        dump(&requests)
    );
    // AfterAgent deny: the reason is the next user message.
    assert!(
        requests[3].last_contains("does not end with a STEP marker")
            && requests[3]
                .last_contains("<!-- STEP: what|why|constraints|generate|finalize|done -->"),
        "{}",
        dump(&requests)
    );
    assert_eq!(repo.read(REL).unwrap(), good("040"));
    assert_eq!(verdicts(&repo, REL), ["block", "pass"]);
    assert_eq!(verdicts(&repo, "step-marker"), ["block"]);
    assert!(
        outcome.stdout.contains("<!-- STEP: done -->"),
        "{}",
        outcome.describe()
    );
    assert!(api.errors().is_empty(), "{:?}", api.errors());
}

/// Gemini CLI has no cap on `AfterAgent` denies (one that always denies made
/// it re-fire 2,284 times and crash): helix-gate's budget ends the loop.
#[test]
fn without_a_fix_the_budget_ends_geminis_loop_with_an_escalation() {
    let Some(gemini) = require_gemini() else {
        return;
    };
    let root = Root::default();
    let at = root.clone();
    let api = FakeGemini::start(move |request: &Request| match request.index {
        0 => vec![call(
            "write_file",
            &json!({"file_path": adr_path(&at), "content": bad("040")}),
        )],
        _ => vec![text("I could not fix it.")],
    });
    let (repo, home) = installed(&api, &[]);
    root.set(repo.path().to_path_buf()).unwrap();
    let outcome = run(&gemini, &home, repo.path(), "Write the ADR", &[]);
    outcome.assert_success();
    let requests = api.requests();
    assert_eq!(
        requests.len(),
        4,
        "{}\n{}",
        outcome.describe(),
        dump(&requests)
    );
    assert!(
        requests[2].last_contains("[attempt 2/3] adr/040-x.md")
            && requests[2].last_contains(MISSING),
        "{}",
        dump(&requests)
    );
    assert!(
        requests[3].last_contains("[attempt 3/3] adr/040-x.md"),
        "{}",
        dump(&requests)
    );
    assert_eq!(
        verdicts(&repo, REL),
        ["block", "block", "block", "escalate"]
    );
    // `gemini -p` prints a hook's systemMessage on stderr: the escalation reaches the person.
    assert!(
        outcome
            .stderr
            .contains("Hook system message: helix-gate escalation: budget adr/040-x.md"),
        "{}",
        outcome.describe()
    );
}

/// The configuration is refused before `replace` runs (Gemini cannot ask the
/// person from a headless run), and an ADR written by a shell command
/// (`run_shell_command`, offered in `yolo` mode) is checked after it, like a save.
#[test]
fn gemini_cannot_change_the_configuration_and_a_shell_written_adr_is_checked() {
    let Some(gemini) = require_gemini() else {
        return;
    };
    let root = Root::default();
    let at = root.clone();
    let api = FakeGemini::start(move |request: &Request| {
        let config = at.get().unwrap().join("config/helix-gate.yaml");
        match request.index {
            0 => vec![call(
                "replace",
                &json!({"file_path": config, "instruction": "loosen", "old_string": "", "new_string": "x: 1\n"}),
            )],
            1 => vec![call(
                "run_shell_command",
                &json!({"command": "cp drafts/bad.md adr/041-y.md", "description": "copy"}),
            )],
            2 => vec![call(
                "run_shell_command",
                &json!({"command": "cp drafts/good.md adr/041-y.md", "description": "copy"}),
            )],
            _ => vec![text("Done.")],
        }
    });
    let (repo, home) = installed(&api, &[]);
    repo.write("drafts/bad.md", bad("041"));
    repo.write("drafts/good.md", good("041"));
    repo.commit_all("drafts");
    root.set(repo.path().to_path_buf()).unwrap();
    let outcome = run(
        &gemini,
        &home,
        repo.path(),
        "Write the ADR",
        &["--approval-mode", "yolo"],
    );
    outcome.assert_success();
    let requests = api.requests();
    assert_eq!(
        requests.len(),
        4,
        "{}\n{}",
        outcome.describe(),
        dump(&requests)
    );
    assert!(
        requests[1].last_contains("Gemini CLI cannot ask the user"),
        "{}",
        dump(&requests)
    );
    assert_eq!(repo.read("config/helix-gate.yaml").unwrap(), "");
    assert!(
        requests[2].last_contains("adr/041-y.md fails 1 check(s) (attempt 1/3)")
            && requests[2].last_contains(MISSING),
        "{}",
        dump(&requests)
    );
    assert!(
        !requests[3].last_contains("helix-gate:"),
        "{}",
        dump(&requests)
    );
    assert_eq!(verdicts(&repo, "adr/041-y.md"), ["block", "pass"]);
}
