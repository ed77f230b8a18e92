//! The HELIX consultant's whole path at the seams (issue 12), end to end with the
//! real Claude Code client against the fake Messages API: `helix-gate new` in a
//! session folder, a draft with one gap blocked on save, fixed, an answer without
//! the STEP marker blocked at Stop, the reviewer (a real `claude -p` child of the
//! hook, scripted through the same fake API) approving it, `gate --phase
//! consultant`, `finalize` with its INDEX row, and a `git commit` through the
//! pre-commit hook with `commit.required_on_commit: true` and no second review.
//!
//! The hook is registered at user scope in a temporary HOME, with the repository
//! opted in by `config/helix-gate.yaml`: the book's recommendation for sessions
//! started in `projects/sessions/<id>/`, because one install reaches every
//! session folder the orchestrator creates (a session-folder `.claude/settings.json`
//! must be copied into each new folder).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::claude::{
    ClaudeRun, api_env, hook_blocking_errors, require_claude, stop_hook_feedback,
};
use crate::support::cli::*;
use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, RequestKind, Turn};
use crate::support::hook::Hook;
use crate::support::repo::{ScratchRepo, git_command};

const SESSION: &str = "projects/sessions/session-a2697";
const TITLE: &str = "Response Enforcement";
const DRAFT: &str = "output/ADR-response-enforcement.md";
/// The one gap the model leaves in its first save.
const GAP: &str = "<Drawback or trade-off 1>";
const GAP_FILLED: &str = "One more hook process per answer";

/// What the consultant writes for each placeholder of `new`'s template
/// (matched by the placeholder's first words, so a reworded hint still fits).
const FILL: &[(&str, &str)] = &[
    ("<TOOL|", "TOOL"),
    ("<NEW|", "NEW"),
    ("<minor|", "minor"),
    ("<src/path/", "src/enforce.rs"),
    ("<src/existing/", "src/lib.rs"),
    ("<docs/", "README.md"),
    (
        "<Why",
        "Claude Code ends consultant answers without the STEP marker, and ADR drafts miss \
         required sections; both are found only after the session, by hand.",
    ),
    (
        "<What is built",
        "A Stop hook checks every answer for the STEP marker and blocks with the exact \
         format; the ADR hook blocks a draft with missing sections. A wrapper around the \
         runner was rejected because it restarts the whole session.",
    ),
    (
        "<Technical",
        "The hook reads the last assistant message of the Stop event and checks that it \
         ends with the marker. Example of the CLI command:\n\n```console\n$ helix-gate hook < stop.json\n\
         {\"decision\":\"block\",\"reason\":\"...\"}\n```",
    ),
    (
        "<Which documentation",
        "The README gets a section on the consultant workflow with every command in order, \
         and the hook table lists the STEP marker check.",
    ),
    (
        "<Phase 1",
        "No migration is needed: this minor change adds a check; existing sessions keep \
         working and one setting turns the check off again.",
    ),
    (
        "<Concrete, testable criterion 1",
        "An answer without the STEP marker is blocked at Stop with the format",
    ),
    (
        "<Concrete, testable criterion 2",
        "An answer with the marker at its end passes the Stop gate",
    ),
    (
        "<Migration and",
        "The end-to-end test covers the whole consultant path",
    ),
    (
        "<Documentation is",
        "The README describes the consultant workflow",
    ),
    ("<Benefit", "Step tracking is complete without manual fixes"),
];

/// `template` with every placeholder filled except `GAP`.
fn fill_leaving_one_gap(template: &str) -> String {
    let mut text = template.to_owned();
    for (start, with) in FILL {
        let at = text
            .find(start)
            .unwrap_or_else(|| panic!("template has no placeholder {start}…:\n{template}"));
        let end = at + text[at..].find('>').expect("placeholder closes") + 1;
        text.replace_range(at..end, with);
    }
    assert!(text.contains(GAP), "the gap is left: {text}");
    // The ADR names the concept it was written from, next to the draft.
    text.replacen(
        "change_scope: minor\n",
        "change_scope: minor\nconcept: concept.md\n",
        1,
    )
}

/// The concept of the meeting (seed 002's concept-to-ADR diff): the ADR must
/// keep its sections, Migration included (the ADR-014 case).
const CONCEPT: &str = "# Konzept: Response Enforcement

## Kontext

Answers end without the STEP marker.

## Entscheidung

A Stop hook enforces it.

## Migration

None needed: a new check that one setting turns off.
";

/// The consultant's phase plan: its own phase gated by `adr_complete` and an
/// `approval` of the draft (seed 001 section 4, seed 002 section 9).
const PHASES: &str = "phases:
  - id: consultant
    name: ADR and plan
    type: consultant
    output:
      files: [output/ADR-response-enforcement.md]
    quality_gate:
      - type: adr_complete
        file: output/ADR-*.md
        semantic: auto
      - type: approval
        approval_type: adr
        files: [output/ADR-response-enforcement.md]
        required_result: approved
  - id: 01-implementation
    name: Implementation
    type: development
    depends_on: consultant
    input:
      files: [output/ADR-response-enforcement.md]
    output:
      files: [phases/01-implementation/output/enforce.rs]
    quality_gate:
      type: files_exist
";

const INDEX: &str = "# ADR Index

| Nr | Titel | Status | Beschreibung |
|----|-------|--------|--------------|
| 001 | [Cache parsed rules between hook calls](001-cache-parsed-rules.md) | Proposed | Every hook call parses the rules file again. |
| 002 | [Lazy rule loading](002-lazy-rule-loading.md) | Proposed | Rules are loaded on every call. |
";

/// A repository laid out like HELIX, with the reviewer run by `claude`, approvals
/// required on commit, helix-gate's pre-commit hook and one session folder.
fn helix_repo(claude: &Path, path: &OsStr) -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "pub fn rules_are_loaded_lazily() {}\n");
    repo.write("README.md", "# HELIX\n");
    repo.write("adr/001-cache-parsed-rules.md", good_adr());
    repo.write(
        "adr/002-lazy-rule-loading.md",
        good_adr()
            .replace("adr_id: \"001\"", "adr_id: \"002\"")
            .replace("Cache parsed rules between hook calls", "Lazy rule loading")
            .replace("# ADR-001:", "# ADR-002:"),
    );
    repo.write("adr/INDEX.md", INDEX);
    // The opt-in for the user-scope hook; every other setting is the default
    // (STEP marker in projects/sessions/**, sessions in projects/sessions/*).
    repo.write("config/helix-gate.yaml", "");
    let command = serde_json::to_string(&claude.to_string_lossy()).unwrap();
    repo.write(
        "config/approvals.yaml",
        format!(
            "defaults:\n  command: {command}\n  timeout: 120\ncommit:\n  required_on_commit: true\n"
        ),
    );
    repo.write(format!("{SESSION}/notes.md"), "Meeting notes\n");
    repo.write(format!("{SESSION}/output/concept.md"), CONCEPT);
    repo.commit_all("helix layout");
    let out = helix(repo.path(), None, path, None, &["install", "git"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo
}

/// helix-gate as the consultant runs it after the session ([`session_env`]).
fn helix(
    cwd: &Path,
    home: Option<&Path>,
    path: &OsStr,
    api: Option<&str>,
    args: &[&str],
) -> Output {
    let mut cmd = isolated(bin(), cwd);
    session_env(&mut cmd, home, path, api);
    cmd.args(args).output().unwrap()
}

/// The consultant's environment on top of [`isolated`]: the temporary HOME (the
/// approval signing key and the user registration live there), `path` as `PATH`
/// (the built helix-gate first: the model's Bash tool, the pre-commit shim and
/// the hook command find it there), the fake API for any reviewer it would start.
fn session_env(cmd: &mut Command, home: Option<&Path>, path: &OsStr, api: Option<&str>) {
    if let Some(home) = home {
        cmd.env("HOME", home);
    }
    cmd.env("PATH", path);
    if let Some(api) = api {
        cmd.envs(api_env(api));
    }
}

fn log(root: &Path) -> Vec<Value> {
    std::fs::read_to_string(root.join(".helix-gate/log.jsonl"))
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The verdicts of the decision log lines for `target`, in order.
fn verdicts(root: &Path, target: &str) -> Vec<String> {
    log(root)
        .iter()
        .filter(|l| l["target"] == target)
        .map(|l| l["verdict"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
#[expect(clippy::too_many_lines, reason = "one path, asserted step by step")]
fn the_consultant_path_from_new_to_commit_with_one_review() {
    let Some(claude) = require_claude() else {
        return;
    };
    let path = path_with_bin();
    let repo = helix_repo(&claude, &path);
    let home = tempfile::tempdir().unwrap();
    let out = helix(
        home.path(),
        Some(home.path()),
        &path,
        None,
        &["install", "claude", "--scope", "user"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    // The repository names its own reviewer command (the pinned client's
    // path): a user-scope hook runs it only after the person's consent.
    let out = helix(repo.path(), Some(home.path()), &path, None, &["trust"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    let session = repo.join(SESSION);
    let draft: PathBuf = session.join(DRAFT);
    let plan = session.join("output/phases.yaml");
    let draft_path = draft.clone();
    let api = FakeApi::start(move |request: &RecordedRequest, conv: &Conversation<'_>| {
        if request.kind() == RequestKind::StructuredOutput {
            // The reviewer: a `claude -p` child of the Stop hook.
            return Turn::structured_output(json!({"result": "approved", "confidence": 0.93,
                "findings": [{"severity": "info", "check": "acceptance",
                              "message": "criteria are checkable"}],
                "recommendations": [], "summary": "Clear, small ADR."}));
        }
        let draft = &draft_path;
        match conv.request_index() {
            0 => Turn::text("I create the draft.").with_tool(
                "Bash",
                json!({"command": format!("helix-gate new \"{TITLE}\""),
                       "description": "Create the ADR draft"}),
            ),
            1 => Turn::text("Reading the template.").with_tool("Read", json!({"file_path": draft})),
            2 => {
                let template = std::fs::read_to_string(draft).unwrap_or_default();
                Turn::text("Filling in the ADR.").with_tool(
                    "Write",
                    json!({"file_path": draft, "content": fill_leaving_one_gap(&template)}),
                )
            }
            3 => Turn::text("Fixing the placeholder.").with_tool(
                "Edit",
                json!({"file_path": draft, "old_string": GAP, "new_string": GAP_FILLED}),
            ),
            4 => Turn::text("Writing the phase plan.")
                .with_tool("Write", json!({"file_path": plan, "content": PHASES})),
            5 => Turn::text("ADR-XXX Response Enforcement is drafted in output/."),
            _ => Turn::text(
                "ADR-XXX Response Enforcement is drafted in output/.\n\n<!-- STEP: generate -->",
            ),
        }
    });
    let reviews = || {
        api.requests()
            .iter()
            .filter(|r| r.kind() == RequestKind::StructuredOutput)
            .count()
    };

    let outcome = ClaudeRun::new(
        &claude,
        &api,
        &session,
        "Erstelle das ADR für Response Enforcement",
    )
    .home(home.path())
    .path_prepend(Path::new(bin()).parent().unwrap())
    .timeout(Duration::from_secs(240))
    .run();
    outcome.assert_success();
    let requests = api.main_requests();
    let main: Vec<&RecordedRequest> = requests
        .iter()
        .filter(|r| r.kind() == RequestKind::Main)
        .collect();
    assert_eq!(main.len(), 7, "{}", outcome.describe());
    assert_eq!(
        outcome.result_text(),
        Some("ADR-XXX Response Enforcement is drafted in output/.\n\n<!-- STEP: generate -->")
    );

    // 1. `new` in the session folder wrote the draft there.
    let created = main[1]
        .tool_results()
        .into_iter()
        .map(|r| r.content)
        .collect::<String>();
    assert!(
        created.contains("created output/ADR-response-enforcement.md (draft in session projects/sessions/session-a2697"),
        "{created}"
    );

    // 2. The save with one gap was blocked with the failed AND the passed checks.
    let blocks = hook_blocking_errors(&requests, "PostToolUse:Write");
    assert_eq!(blocks.len(), 1, "{blocks:#?}");
    let block = &blocks[0];
    assert!(block.contains("template-placeholder"), "{block}");
    assert!(block.contains(GAP), "{block}");
    assert!(block.contains("PASSED (keep these passing):"), "{block}");
    assert!(block.contains("required sections"), "{block}");
    assert!(
        block.contains("attempt 1/3") && block.contains("Budget:"),
        "{block}"
    );
    // The SessionStart context of the session folder asked for the marker.
    assert!(main[0].contains("End EVERY answer with a STEP marker"));
    // The Edit fixed it, and the phase plan passed: nothing else was blocked.
    assert!(hook_blocking_errors(&requests, "PostToolUse:Edit").is_empty());
    let target = format!("{SESSION}/{DRAFT}");
    let draft_verdicts = verdicts(repo.path(), &target);
    assert_eq!(
        draft_verdicts[..2],
        ["block", "pass"],
        "{:#?}",
        log(repo.path())
    );
    assert!(
        !repo
            .read(format!("{SESSION}/{DRAFT}"))
            .unwrap()
            .contains(GAP)
    );
    assert_eq!(
        verdicts(repo.path(), &format!("{SESSION}/output/phases.yaml")),
        ["pass"]
    );

    // 3. The answer without the STEP marker was blocked, with the format.
    let feedback = stop_hook_feedback(&requests);
    assert_eq!(feedback.len(), 1, "{feedback:#?}");
    assert!(
        feedback[0].contains("does not end with a STEP marker")
            && feedback[0].contains("<!-- STEP: "),
        "{}",
        feedback[0]
    );
    assert_eq!(verdicts(repo.path(), "step-marker"), ["block"]);

    // 4. The Stop with the marker ran the reviewer once: approved.
    assert_eq!(reviews(), 1, "one review");
    let review = api
        .requests()
        .into_iter()
        .find(|r| r.kind() == RequestKind::StructuredOutput)
        .unwrap();
    assert!(
        review.contains("ADR-response-enforcement.md"),
        "the reviewer saw the draft"
    );
    assert!(
        review.contains(&format!("{SESSION}/output/concept.md")),
        "the reviewer was given the concept: {}",
        review.prompt().unwrap_or_default()
    );
    assert!(
        draft_verdicts.contains(&"approved".to_owned()),
        "{draft_verdicts:?}"
    );
    let api_url = api.base_url();

    // 5. The consultant phase's gates pass (the approval comes from the cache).
    let out = helix(
        &session,
        Some(home.path()),
        &path,
        Some(&api_url),
        &[
            "gate",
            "--phases",
            "output/phases.yaml",
            "--phase",
            "consultant",
        ],
    );
    let gate: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
    assert_eq!(code(&out), 0, "{gate:#}\n{}", stderr(&out));
    assert_eq!(gate["passed"], true, "{gate:#}");
    let gates = gate["gates"].as_array().unwrap();
    assert_eq!(gates.len(), 2, "{gate:#}");
    assert_eq!(gates[0]["gate_type"], "adr_complete");
    assert_eq!(gates[1]["gate_type"], "approval");
    assert!(gates.iter().all(|g| g["passed"] == true), "{gate:#}");
    // The concept diff ran on the draft's concept, and both gates took the
    // reviewer's verdict from the cache.
    assert!(
        gates[0].to_string().contains(&format!(
            "concept coverage ({SESSION}/output/concept.md): 3 of 3 sections"
        )),
        "{gate:#}"
    );
    for g in gates {
        assert_eq!(g["details"]["approval"]["stage"], "cache", "{gate:#}");
    }
    assert_eq!(reviews(), 1, "the gate reuses the verdict");

    // 6. finalize moves the draft to adr/003-… with its INDEX row and carries the approval over.
    let out = helix(
        &session,
        Some(home.path()),
        &path,
        Some(&api_url),
        &["finalize", DRAFT],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out)
            .contains("output/ADR-response-enforcement.md -> adr/003-response-enforcement.md"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("carried over to adr/003-response-enforcement.md"),
        "{}",
        stderr(&out)
    );
    assert!(!draft.exists());
    let finalized = repo.read("adr/003-response-enforcement.md").unwrap();
    assert!(finalized.contains("adr_id: \"003\""), "{finalized}");
    assert!(
        finalized.contains(&format!("concept: \"{SESSION}/output/concept.md\"")),
        "the moved ADR keeps its concept: {finalized}"
    );
    let index = repo.read("adr/INDEX.md").unwrap();
    assert!(
        index.contains("| 003 | [Response Enforcement](003-response-enforcement.md) | Proposed | Claude Code ends consultant answers without the STEP marker"),
        "{index}"
    );
    let out = helix(
        repo.path(),
        Some(home.path()),
        &path,
        None,
        &["index", "--check"],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));

    // 7. git commit through the pre-commit hook: the approval is required and
    //    found, no second review runs. First, as a control, content nobody
    //    reviewed is refused.
    let commit = |message: &str| {
        let mut add = git_command(repo.path());
        assert!(add.args(["add", "-A"]).status().unwrap().success());
        let mut commit = git_command(repo.path());
        // The shim's helix-gate finds the approval's signing key under HOME, as
        // the Stop hook left it, not in the repository's test state folder.
        commit.env_remove("HELIX_GATE_STATE_DIR");
        session_env(&mut commit, Some(home.path()), &path, Some(&api_url));
        commit
            .args(["commit", "-q", "-m", message])
            .output()
            .unwrap()
    };
    repo.write(
        "adr/003-response-enforcement.md",
        format!("{finalized}\nUnreviewed line.\n"),
    );
    let out = commit("unreviewed");
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("approval-required"),
        "{}",
        stderr(&out)
    );
    repo.write("adr/003-response-enforcement.md", &finalized);
    let out = commit("ADR-003 Response Enforcement");
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let shown = repo.git(&["show", "--name-only", "--format=%s", "HEAD"]);
    assert!(shown.starts_with("ADR-003 Response Enforcement"), "{shown}");
    assert!(shown.contains("adr/003-response-enforcement.md"), "{shown}");
    assert!(shown.contains("adr/INDEX.md"), "{shown}");
    assert_eq!(reviews(), 1, "no second review at commit");
    assert!(api.errors().is_empty(), "{:?}", api.errors());
}

/// `helix-gate hook` as Claude Code runs it for a session started in `session`
/// (`Null` for no answer).
fn hook_in(session: &Path, home: &Path, path: &OsStr, event: &Value) -> Value {
    Hook::new(session)
        .env("HOME", home)
        .env("PATH", path)
        .event(event)
        .answer()
        .unwrap_or(Value::Null)
}

/// The consultant writes its draft and finalizes it through Bash in the same
/// turn (seed 004's "finalize" step): at Stop the draft is gone. The Stop gate
/// follows it to the ADR finalize made, checks and reviews that file, and the
/// commit with `required_on_commit` finds its approval.
#[test]
fn a_draft_finalized_before_the_stop_is_checked_and_reviewed_where_it_went() {
    let path = path_with_bin();
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "pub fn rules_are_loaded_lazily() {}\n");
    repo.write(
        "adr/INDEX.md",
        INDEX.lines().take(4).collect::<Vec<_>>().join("\n") + "\n",
    );
    repo.write("config/helix-gate.yaml", "");
    let result = json!({"type": "result", "subtype": "success", "is_error": false,
        "result": "", "total_cost_usd": 0.01, "usage": {"input_tokens": 10, "output_tokens": 5},
        "structured_output": {"result": "approved", "confidence": 0.95, "findings": [],
                              "recommendations": [], "summary": "Fine."}});
    let runs = repo.join("fake/runs");
    fake_reviewer(
        repo.path(),
        &result.to_string(),
        &format!("echo run >> '{}'\n", runs.display()),
    );
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\n  timeout: 60\ncommit:\n  required_on_commit: true\n",
    );
    repo.commit_all("layout");
    let home = tempfile::tempdir().unwrap();
    let session = repo.join(SESSION);
    let draft = repo.write(
        format!("{SESSION}/output/ADR-cache.md"),
        good_adr()
            .replace("adr_id: \"001\"", "adr_id: \"XXX\"")
            .replace("# ADR-001:", "# ADR-XXX:"),
    );
    let post = json!({"session_id": "s", "cwd": session, "hook_event_name": "PostToolUse",
        "tool_name": "Write", "tool_input": {"file_path": draft, "content": "…"},
        "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"});
    assert_eq!(hook_in(&session, home.path(), &path, &post), Value::Null);
    let out = helix(
        &session,
        Some(home.path()),
        &path,
        None,
        &["finalize", "output/ADR-cache.md"],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let adr = "adr/001-cache-parsed-rules-between-hook-calls.md";
    assert!(repo.join(adr).is_file(), "{}", stdout(&out));

    let stop = json!({"session_id": "s", "cwd": session, "hook_event_name": "Stop",
        "stop_hook_active": false, "background_tasks": [],
        "last_assistant_message": "ADR-001 finalized.\n\n<!-- STEP: finalize -->"});
    let answer = hook_in(&session, home.path(), &path, &stop);
    assert!(answer.get("decision").is_none(), "{answer}");
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("helix-gate approval {adr}: approved")),
        "{answer}"
    );
    assert_eq!(
        repo.read("fake/runs").unwrap_or_default().lines().count(),
        1
    );
    assert!(verdicts(repo.path(), adr).contains(&"approved".to_owned()));

    // The commit finds the approval of exactly that content.
    repo.git(&["add", "-A"]);
    let out = helix(repo.path(), Some(home.path()), &path, None, &["pre-commit"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));

    // A broken ADR where finalize put it is the Stop's to block, like any touched ADR.
    repo.write(adr, good_adr().replace("## Dokumentation", "## Notizen"));
    let answer = hook_in(&session, home.path(), &path, &stop);
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(answer["reason"].as_str().unwrap().contains(adr), "{answer}");
}

/// Every `config/helix-gate.yaml` example in the README and the book (a YAML block named so
/// in its first line or in the lines just above it) is accepted as that file: a
/// user who copies one gets no "unknown field" (the `new` example named
/// `new.sessions` after that key had become `sessions.paths`).
#[test]
fn the_docs_examples_of_config_helix_gate_yaml_load() {
    let mut pages = vec![manifest_dir().join("README.md")];
    let mut stack = vec![manifest_dir().join("docs/src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                pages.push(path);
            }
        }
    }
    let mut checked = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let mut at = 0;
        while at < lines.len() {
            if lines[at].trim() != "```yaml" {
                at += 1;
                continue;
            }
            let end = (at + 1..lines.len())
                .find(|&i| lines[i].trim() == "```")
                .expect("the YAML block closes");
            let block = lines[at + 1..end].join("\n") + "\n";
            let named = lines[at.saturating_sub(3)..=at + 1]
                .iter()
                .any(|l| l.contains("config/helix-gate.yaml"));
            if named {
                let repo = scratch_repo();
                write(repo.path(), "config/helix-gate.yaml", &block);
                write(repo.path(), "adr/.keep", "");
                let out = run(repo.path(), &["validate"]);
                assert_eq!(
                    code(&out),
                    0,
                    "{} line {}:\n{block}\n{}",
                    page.display(),
                    at + 1,
                    stderr(&out)
                );
                checked += 1;
            }
            at = end + 1;
        }
    }
    assert!(checked >= 2, "{checked} examples found");
}

/// The book's walk-through (docs/src/consultant.md) stays true: it names the commands the
/// end-to-end test runs, in that order, and shows its `consultant` phase.
#[test]
fn the_book_walk_through_shows_what_the_end_to_end_test_runs() {
    let chapter = "docs/src/consultant.md";
    let section = std::fs::read_to_string(manifest_dir().join(chapter)).unwrap();
    assert!(
        section.starts_with("# HELIX consultant workflow\n"),
        "{chapter} is not the consultant chapter"
    );
    let section = section.as_str();
    let commands = [
        "helix-gate install claude --scope user",
        "touch config/helix-gate.yaml",
        "helix-gate install git",
        "required_on_commit: true",
        &format!("helix-gate new \"{TITLE}\""),
        GAP,
        "<!-- STEP: what|why|constraints|generate|finalize|done -->",
        "helix-gate gate --phases output/phases.yaml --phase consultant",
        &format!("helix-gate finalize {DRAFT}"),
        "git add -A && git commit -m \"ADR-003 Response Enforcement\"",
    ];
    let mut from = 0;
    for command in commands {
        let at = section[from..]
            .find(command)
            .unwrap_or_else(|| panic!("`{command}` missing (or out of order) in:\n{section}"));
        from += at + command.len();
    }
    let phase = &PHASES[..PHASES.find("  - id: 01-implementation").unwrap()];
    assert!(section.contains(phase), "{phase}");
}

/// Seed 002 (section 9) writes the approval as a phase of its own: `type:
/// approval`, `approval_type`, the files in `input`, no `quality_gate`. `gate`
/// runs that phase as its approval gate; it used to pass it as a phase that
/// "has no quality gate", without any review.
#[test]
fn a_seed_002_approval_phase_runs_the_approval_of_its_input() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "pub fn rules_are_loaded_lazily() {}\n");
    std::fs::create_dir_all(repo.join("adr")).unwrap();
    let runs = repo.join("fake/runs");
    let verdict = |result: &str| {
        json!({"type": "result", "subtype": "success", "is_error": false, "result": "",
            "total_cost_usd": 0.01, "usage": {"input_tokens": 10, "output_tokens": 5},
            "structured_output": {"result": result, "confidence": 0.95, "findings": [],
                                  "recommendations": [], "summary": "Seen."}})
        .to_string()
    };
    fake_reviewer(
        repo.path(),
        &verdict("rejected"),
        &format!("echo run >> '{}'\n", runs.display()),
    );
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\n  timeout: 60\n",
    );
    repo.write(format!("{SESSION}/output/ADR-feature.md"), good_adr());
    let plan = "phases:
  - id: consultant
    type: consultant
    output:
      - output/ADR-feature.md
    quality_gate:
      type: adr_complete
      file: output/ADR-*.md
      semantic: false
  - id: approval
    type: approval
    approval_type: adr
    input:
      - output/ADR-feature.md
    output:
      - approvals/adr/output/approval-result.json
    on_rejection:
      action: retry_phase
      target_phase: consultant
      max_retries: 2
";
    repo.write(format!("{SESSION}/output/phases.yaml"), plan);
    let session = repo.join(SESSION);
    let gate = |phase: &str| {
        let out = run(
            &session,
            &["gate", "--phases", "output/phases.yaml", "--phase", phase],
        );
        let doc: Value = serde_json::from_str(&stdout(&out))
            .unwrap_or_else(|e| panic!("{e}: {}{}", stdout(&out), stderr(&out)));
        (code(&out), doc)
    };
    let (exit, doc) = gate("approval");
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["gates"][0]["gate_type"], "approval", "{doc:#}");
    assert_eq!(
        doc["gates"][0]["details"]["files"],
        json!([format!("{SESSION}/output/ADR-feature.md")])
    );
    assert_eq!(doc["gates"][0]["details"]["approval"]["result"], "rejected");
    assert_eq!(repo.read("fake/runs").unwrap().lines().count(), 1);
    // The reviewer's approval passes the phase.
    fake_reviewer(
        repo.path(),
        &verdict("approved"),
        &format!("echo run >> '{}'\n", runs.display()),
    );
    repo.write(
        format!("{SESSION}/output/ADR-feature.md"),
        good_adr() + "\nRevised.\n",
    );
    let (exit, doc) = gate("approval");
    assert_eq!(exit, 0, "{doc:#}");
    assert_eq!(doc["passed"], true);
    assert_eq!(repo.read("fake/runs").unwrap().lines().count(), 2);
    // An approval phase with nothing to review is an error of the plan, not a pass.
    repo.write(
        format!("{SESSION}/output/phases.yaml"),
        plan.replace("    input:\n      - output/ADR-feature.md\n", ""),
    );
    let (exit, doc) = gate("approval");
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["findings"][0]["rule"], "phase-gate-invalid", "{doc:#}");
}

/// A repository with one consultant session folder ([`SESSION`]) whose
/// `status.json` helix-gate keeps up to date, helix-gate registered at user
/// scope in `home`. `approvals` is `config/approvals.yaml`.
fn answer_repo(home: &Path, path: &OsStr, approvals: &str) -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "pub fn rules_are_loaded_lazily() {}\n");
    repo.write(
        "adr/INDEX.md",
        INDEX.lines().take(4).collect::<Vec<_>>().join("\n") + "\n",
    );
    repo.write(
        "config/helix-gate.yaml",
        "step_marker:\n  status_file: status.json\n",
    );
    repo.write("config/approvals.yaml", approvals);
    repo.write(
        format!("{SESSION}/status.json"),
        "{\"session\": \"session-a2697\", \"step\": \"what\"}\n",
    );
    repo.write(format!("{SESSION}/output/.gitkeep"), "");
    repo.commit_all("layout");
    let out = helix(
        home,
        Some(home),
        path,
        None,
        &["install", "claude", "--scope", "user"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo
}

/// Seed 004: "Schreibe nach output/response.md - das ist deine Antwort". The
/// consultant writes its answer, ending with `<!-- STEP: what -->`, to the
/// answer file and says so in a short chat reply without a marker: the answer
/// file's marker satisfies the Stop check (no block), the status file gets
/// `what`, and nothing is appended to the file.
#[test]
fn the_answer_file_written_this_turn_is_the_answer() {
    let Some(claude) = require_claude() else {
        return;
    };
    let path = path_with_bin();
    let home = tempfile::tempdir().unwrap();
    let repo = answer_repo(
        home.path(),
        &path,
        "approvals:\n  adr:\n    enabled: false\n",
    );
    let session = repo.join(SESSION);
    let response = session.join("output/response.md");
    let answer = "Welche Varianten gibt es für das Retry?\n\n<!-- STEP: what -->\n";
    let file = response.clone();
    let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
        match conv.request_index() {
            0 => Turn::text("Ich schreibe die Antwort.")
                .with_tool("Write", json!({"file_path": file, "content": answer})),
            _ => Turn::text("Die Antwort steht in output/response.md."),
        }
    });
    let outcome = ClaudeRun::new(&claude, &api, &session, "Wie machen wir das Retry?")
        .home(home.path())
        .path_prepend(Path::new(bin()).parent().unwrap())
        .timeout(Duration::from_secs(180))
        .run();
    outcome.assert_success();
    let requests = api.main_requests();
    assert!(
        stop_hook_feedback(&requests).is_empty(),
        "no Stop block: {:?}\n{}",
        stop_hook_feedback(&requests),
        outcome.describe()
    );
    assert_eq!(std::fs::read_to_string(&response).unwrap(), answer);
    let status: Value =
        serde_json::from_str(&std::fs::read_to_string(session.join("status.json")).unwrap())
            .unwrap();
    assert_eq!(status["step"], "what", "{status}");
    assert!(
        !verdicts(repo.path(), "step-marker").contains(&"fallback".to_owned()),
        "{:?}",
        log(repo.path())
    );
}

/// "Written this turn" is the turn's `prompt_id`: the answer file written in
/// an earlier turn (another prompt id) does not stand in for this turn's
/// answer, and a file written this turn without a marker does not either (the
/// block says so). At the end of the budget, the fallback appends nothing after
/// a valid marker the file already ends with.
#[test]
fn only_an_answer_file_written_in_the_same_turn_counts() {
    let path = path_with_bin();
    let home = tempfile::tempdir().unwrap();
    let repo = answer_repo(
        home.path(),
        &path,
        "approvals:\n  adr:\n    enabled: false\n",
    );
    let session = repo.join(SESSION);
    let response = repo.write(
        format!("{SESSION}/output/response.md"),
        "Frage?\n\n<!-- STEP: what -->\n",
    );
    let write = |prompt: &str| {
        json!({"session_id": "s", "prompt_id": prompt, "cwd": session,
            "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": response, "content": "…"},
            "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"})
    };
    let stop = |prompt: &str| {
        json!({"session_id": "s", "prompt_id": prompt, "cwd": session,
            "hook_event_name": "Stop", "stop_hook_active": false, "background_tasks": [],
            "last_assistant_message": "Siehe output/response.md."})
    };
    assert_eq!(
        hook_in(&session, home.path(), &path, &write("p1")),
        Value::Null
    );
    let answer = hook_in(&session, home.path(), &path, &stop("p1"));
    assert!(answer.get("decision").is_none(), "{answer}");
    // The file's marker does not need the chat reply: a broken one is no error.
    let mut broken = stop("p1");
    broken["last_assistant_message"] = json!(5);
    let answer = hook_in(&session, home.path(), &path, &broken);
    assert_eq!(answer, Value::Null, "{answer}");
    // The next turn says nothing new and writes no answer: blocked.
    let answer = hook_in(&session, home.path(), &path, &stop("p2"));
    assert_eq!(answer["decision"], "block", "{answer}");
    // Written this turn without a marker: blocked, and the block names the file.
    std::fs::write(&response, "Noch eine Frage?\n").unwrap();
    assert_eq!(
        hook_in(&session, home.path(), &path, &write("p3")),
        Value::Null
    );
    let answer = hook_in(&session, home.path(), &path, &stop("p3"));
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains(&format!(
            "{SESSION}/output/response.md, which you wrote this turn"
        )),
        "{reason}"
    );
    // The file gets its marker by other means (not this turn's Write): when the
    // budget is spent, the fallback keeps it and records it.
    std::fs::write(&response, "Noch eine Frage?\n\n<!-- STEP: why -->\n").unwrap();
    let mut last = Value::Null;
    for _ in 0..3 {
        last = hook_in(&session, home.path(), &path, &stop("p4"));
    }
    assert!(last.get("decision").is_none(), "{last}");
    assert_eq!(
        std::fs::read_to_string(&response).unwrap(),
        "Noch eine Frage?\n\n<!-- STEP: why -->\n"
    );
    let status = std::fs::read_to_string(session.join("status.json")).unwrap();
    assert!(status.contains("\"step\": \"why\""), "{status}");
}

/// The consultant's draft, complete: it passes every deterministic check.
fn complete_draft() -> String {
    good_adr()
        .replace("adr_id: \"001\"", "adr_id: \"XXX\"")
        .replace("# ADR-001:", "# ADR-XXX:")
}

/// The consultant writes a complete draft but never ends its answer with the
/// STEP marker: the marker's budget (3) releases the turn at the fourth Stop,
/// and the draft the session wrote is still reviewed at that Stop (the real
/// reviewer, a `claude -p` child of the hook), its verdict logged.
#[test]
fn a_turn_released_by_the_marker_budget_still_reviews_the_sessions_adr() {
    let Some(claude) = require_claude() else {
        return;
    };
    let path = path_with_bin();
    let home = tempfile::tempdir().unwrap();
    let command = serde_json::to_string(&claude.to_string_lossy()).unwrap();
    let repo = answer_repo(
        home.path(),
        &path,
        &format!("defaults:\n  command: {command}\n  timeout: 120\n"),
    );
    let out = helix(repo.path(), Some(home.path()), &path, None, &["trust"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let session = repo.join(SESSION);
    let draft = session.join("output/ADR-cache.md");
    let file = draft.clone();
    let api = FakeApi::start(move |request: &RecordedRequest, conv: &Conversation<'_>| {
        if request.kind() == RequestKind::StructuredOutput {
            return Turn::structured_output(json!({"result": "approved", "confidence": 0.91,
                "findings": [], "recommendations": [], "summary": "Fine."}));
        }
        match conv.request_index() {
            0 => Turn::text("Ich schreibe das ADR.").with_tool(
                "Write",
                json!({"file_path": file, "content": complete_draft()}),
            ),
            _ => Turn::text("Das ADR ist geschrieben."),
        }
    });
    let outcome = ClaudeRun::new(&claude, &api, &session, "Schreibe das ADR")
        .home(home.path())
        .path_prepend(Path::new(bin()).parent().unwrap())
        .args(["--output-format", "stream-json", "--verbose"])
        .timeout(Duration::from_secs(240))
        .run();
    outcome.assert_success();
    let requests = api.main_requests();
    assert_eq!(
        stop_hook_feedback(&requests).len(),
        3,
        "{}",
        outcome.describe()
    );
    // The person reads the escalation and then the verdict, in one message
    // (Claude Code 2.1.329 streams each of its lines with the `Stop says: ` prefix).
    let told: Vec<String> = outcome
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "system" && v["subtype"] == "informational")
        .filter_map(|v| v["content"].as_str().map(str::to_owned))
        .filter(|c| c.starts_with("Stop says: helix-gate escalation: step-marker"))
        .collect();
    assert_eq!(told.len(), 1, "{}", outcome.describe());
    assert!(
        told[0].contains(&format!(
            "\nStop says: helix-gate approval {SESSION}/output/ADR-cache.md: approved"
        )),
        "{told:?}"
    );
    let reviews = api
        .requests()
        .iter()
        .filter(|r| r.kind() == RequestKind::StructuredOutput)
        .count();
    assert_eq!(reviews, 1, "the released turn's ADR is reviewed");
    let target = format!("{SESSION}/output/ADR-cache.md");
    assert!(
        verdicts(repo.path(), &target).contains(&"approved".to_owned()),
        "{:?}",
        log(repo.path())
    );
    assert!(verdicts(repo.path(), "step-marker").contains(&"fallback".to_owned()));
}

/// When the marker's budget releases the turn and the reviewer cannot give a
/// verdict (it answers garbage), the person is told in one more escalation
/// line that the session's ADR was not reviewed.
#[test]
fn a_released_turn_whose_review_fails_says_not_reviewed() {
    let path = path_with_bin();
    let home = tempfile::tempdir().unwrap();
    let repo = answer_repo(
        home.path(),
        &path,
        "defaults:\n  command: fake/reviewer.sh\n  timeout: 60\n",
    );
    fake_reviewer(repo.path(), "this is no verdict", "");
    repo.commit_all("the reviewer");
    let out = helix(repo.path(), Some(home.path()), &path, None, &["trust"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let session = repo.join(SESSION);
    let draft = repo.write(format!("{SESSION}/output/ADR-cache.md"), complete_draft());
    let post = json!({"session_id": "s", "prompt_id": "p", "cwd": session,
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": draft, "content": "…"},
        "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"});
    assert_eq!(hook_in(&session, home.path(), &path, &post), Value::Null);
    let stop = json!({"session_id": "s", "prompt_id": "p", "cwd": session,
        "hook_event_name": "Stop", "stop_hook_active": false, "background_tasks": [],
        "last_assistant_message": "Das ADR ist geschrieben."});
    for _ in 0..3 {
        let answer = hook_in(&session, home.path(), &path, &stop);
        assert_eq!(answer["decision"], "block", "{answer}");
    }
    let answer = hook_in(&session, home.path(), &path, &stop);
    assert!(answer.get("decision").is_none(), "{answer}");
    let message = answer["systemMessage"].as_str().unwrap_or_default();
    let lines: Vec<&str> = message.lines().collect();
    assert_eq!(lines.len(), 2, "{message}");
    assert!(
        lines[0].starts_with("helix-gate escalation: step-marker "),
        "{message}"
    );
    assert!(
        lines[1].starts_with(&format!(
            "helix-gate escalation: infrastructure {SESSION}/output/ADR-cache.md: - after 1 failure; not reviewed:"
        )),
        "{message}"
    );
}

/// The `helix-gate retry:` lines of a stream-json text: (hook, line).
fn retry_events(stream: &str) -> Vec<(String, String)> {
    stream
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "system" && v["subtype"] == "informational")
        .filter_map(|v| {
            let content = v["content"].as_str()?.to_owned();
            let (hook, message) = content.split_once(" says: ")?;
            Some(
                message
                    .lines()
                    // Claude Code prefixes every line of a message, not only the first.
                    .map(|l| l.split_once(" says: ").map_or(l, |(_, rest)| rest))
                    .filter(|l| l.starts_with("helix-gate retry: "))
                    .map(|l| (hook.to_owned(), l.to_owned()))
                    .collect::<Vec<_>>(),
            )
        })
        .flatten()
        .collect()
}

/// The `helix_gate_retry` records `examples/orchestrator/escalations.py` makes of `stream`.
fn rendered_retries(stream: &str) -> Vec<Value> {
    let mut child = std::process::Command::new("python3")
        .arg(manifest_dir().join("examples/orchestrator/escalations.py"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3");
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), stream.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v["type"] == "helix_gate_retry")
        .collect()
}

/// Several retry lines in one message, each line with the client's prefix:
/// the example finds every one.
#[test]
fn the_example_reads_every_line_of_a_message() {
    let event = json!({"type": "system", "subtype": "informational", "level": "notice",
        "content": "Stop says: helix-gate retry: adr/001-x.md attempt 2/3: section-missing\nStop says: helix-gate retry: step-marker attempt 1/3: step-marker"});
    let rendered = rendered_retries(&format!("{event}\n"));
    assert_eq!(rendered.len(), 2, "{rendered:?}");
    assert_eq!(rendered[0]["target"], "adr/001-x.md");
    assert_eq!(rendered[0]["rules"], json!(["section-missing"]));
    assert_eq!(rendered[1]["hook"], "Stop");
    assert_eq!(rendered[1]["attempt"], "1/3");
}

/// Seed 003, Pattern 4: each retry visible to the orchestrator as it happens.
/// In a consultant session, run as HELIX runs it (`claude -p --output-format
/// stream-json --verbose`), a save blocked by the hook and a Stop blocked for
/// the missing marker each put one `helix-gate retry:` line into the stream,
/// and `examples/orchestrator/escalations.py` renders them.
#[test]
fn each_retry_reaches_the_stream_json_of_a_consultant_session() {
    let Some(claude) = require_claude() else {
        return;
    };
    let path = path_with_bin();
    let home = tempfile::tempdir().unwrap();
    let repo = answer_repo(
        home.path(),
        &path,
        "approvals:\n  adr:\n    enabled: false\n",
    );
    let session = repo.join(SESSION);
    let draft = session.join("output/ADR-cache.md");
    let file = draft.clone();
    let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
        match conv.request_index() {
            0 => Turn::text("Erster Entwurf.").with_tool(
                "Write",
                json!({"file_path": file,
                       "content": complete_draft().replace("## Dokumentation", "## Notizen")}),
            ),
            1 => Turn::text("Korrigiert.").with_tool(
                "Write",
                json!({"file_path": file, "content": complete_draft()}),
            ),
            2 => Turn::text("Das ADR steht."),
            _ => Turn::text("Das ADR steht.\n\n<!-- STEP: generate -->"),
        }
    });
    let outcome = ClaudeRun::new(&claude, &api, &session, "Schreibe das ADR")
        .home(home.path())
        .path_prepend(Path::new(bin()).parent().unwrap())
        .args(["--output-format", "stream-json", "--verbose"])
        .timeout(Duration::from_secs(180))
        .run();
    outcome.assert_success();
    let retries = retry_events(&outcome.stdout);
    let target = format!("{SESSION}/output/ADR-cache.md");
    assert_eq!(retries.len(), 2, "{retries:?}\n{}", outcome.describe());
    assert_eq!(retries[0].0, "PostToolUse:Write");
    assert!(
        retries[0]
            .1
            .starts_with(&format!("helix-gate retry: {target} attempt 1/3: ")),
        "{retries:?}"
    );
    assert_eq!(retries[1].0, "Stop");
    assert_eq!(
        retries[1].1,
        "helix-gate retry: step-marker attempt 1/3: step-marker"
    );
    // The example renders each as a line of its own kind.
    let rendered = rendered_retries(&outcome.stdout);
    assert_eq!(rendered.len(), 2, "{rendered:?}");
    assert_eq!(rendered[1]["target"], "step-marker");
    assert_eq!(rendered[1]["attempt"], "1/3");
    assert_eq!(rendered[1]["rules"], json!(["step-marker"]));
    assert!(
        rendered[0]["block"].as_str().unwrap().contains(&format!(
            "<summary>helix-gate retry: {target} attempt 1/3</summary>"
        )),
        "{rendered:?}"
    );
}
