//! Side doors around the ADR gate, end to end: the real Claude Code client
//! against the fake Messages API, with the hook registered by
//! `helix-gate install claude`. One test per way an ADR (or helix-gate's own
//! configuration and records) can change besides Write/Edit: a Bash heredoc,
//! `sed -i`, `cp`, a write into a folder the hook does not watch, a write
//! through a linked folder, a configuration rewritten behind the text check,
//! and a wiped `.helix-gate/`; plus the controls that an honest session, a
//! person's untouched draft and a person's configuration change between
//! sessions are treated fairly.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::claude::{
    ClaudeOutcome, ClaudeRun, error_tool_results, hook_blocking_errors, require_claude,
    stop_hook_feedback,
};
use crate::support::cli::*;
use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
use crate::support::repo::ScratchRepo;

/// Turns the reviewer off: these tests are about the deterministic gate.
const NO_APPROVAL: &str = "approvals:\n  adr:\n    enabled: false\n";

/// The finding a broken ADR ([`bad`]) produces.
const MISSING: &str = "required section \"Dokumentation\" is missing";

/// A committed repository with the fixture's dependency, reviewer off, hook installed.
fn installed_repo() -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write("config/approvals.yaml", NO_APPROVAL);
    repo.write("adr/.gitkeep", "");
    let out = run(repo.path(), &["install", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.commit_all("helix-gate installed");
    repo
}

/// The passing fixture without its `Dokumentation` section.
/// The passing fixture, numbered `number` (its file name's number, so no
/// `adr-id-file-name-mismatch` warning muddies the verdicts).
fn good(number: &str) -> String {
    good_adr()
        .replace("adr_id: \"001\"", &format!("adr_id: \"{number}\""))
        .replace("# ADR-001:", &format!("# ADR-{number}:"))
}

fn bad(number: &str) -> String {
    good(number).replace("## Dokumentation", "## Notizen")
}

/// A turn running `command` with the Bash tool.
fn bash(command: impl Into<String>) -> Turn {
    Turn::text("Running it.").with_tool(
        "Bash",
        json!({"command": command.into(), "description": "run the command"}),
    )
}

/// A Bash heredoc writing `content` to `rel`.
fn heredoc(rel: &str, content: &str) -> Turn {
    let content = content.trim_end_matches('\n');
    bash(format!("cat > {rel} <<'EOF'\n{content}\nEOF"))
}

/// A Write tool call of `content` to `rel` (absolute, under the session's working dir).
fn write_tool(conv: &Conversation<'_>, rel: &str, content: &str) -> Turn {
    let dir = conv.working_dir().expect("working dir");
    Turn::text("Writing it.").with_tool(
        "Write",
        json!({"file_path": dir.join(rel), "content": content}),
    )
}

/// The hook's texts as the model sees them: JSON-escaped quotes unescaped.
fn unescaped(text: &str) -> String {
    text.replace("\\\"", "\"")
}

/// Whether any blocking error of `event_and_tool` names `rel`, `MISSING` and `attempt`.
fn blocked_on_the_spot(
    requests: &[RecordedRequest],
    event_and_tool: &str,
    rel: &str,
    attempt: &str,
) -> Vec<String> {
    let blocks: Vec<String> = hook_blocking_errors(requests, event_and_tool)
        .iter()
        .map(|b| unescaped(b))
        .collect();
    assert!(
        blocks
            .iter()
            .any(|b| b.contains(rel) && b.contains(MISSING) && b.contains(attempt)),
        "expected a {event_and_tool} block naming {rel}, {MISSING:?} and {attempt:?}; got {blocks:#?}\n--- the model's last request ---\n{}",
        requests
            .last()
            .map(RecordedRequest::messages_text)
            .unwrap_or_default()
    );
    blocks
}

fn log(repo: &ScratchRepo) -> Vec<Value> {
    repo.read(".helix-gate/log.jsonl")
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Verdicts logged for `target`, in order.
fn verdicts(repo: &ScratchRepo, target: &str) -> Vec<String> {
    log(repo)
        .iter()
        .filter(|l| l["target"] == target)
        .map(|l| l["verdict"].as_str().unwrap_or("").to_owned())
        .collect()
}

/// The hook `systemMessage`s the client showed the user, in order: the
/// `hook_system_message` attachments of the transcripts under its HOME's
/// `.claude/projects` (`claude -p --output-format json` prints only the result).
fn system_messages(outcome: &ClaudeOutcome) -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                out.extend(
                    text.lines()
                        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                        .filter(|v| v["attachment"]["type"] == "hook_system_message")
                        .filter_map(|v| v["attachment"]["content"].as_str().map(str::to_owned)),
                );
            }
        }
    }
    let mut out = Vec::new();
    walk(&outcome.home.join(".claude/projects"), &mut out);
    out
}

#[test]
fn heredoc_with_a_broken_adr_is_blocked_on_the_spot_then_fixed() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    let api =
        FakeApi::start(
            |_: &RecordedRequest, conv: &Conversation<'_>| match conv.request_index() {
                0 => heredoc("adr/040-x.md", &bad("040")),
                1 => heredoc("adr/040-x.md", &good("040")),
                _ => Turn::text("ADR written."),
            },
        );
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
    outcome.assert_success();
    let requests = api.main_requests();
    let blocks = blocked_on_the_spot(&requests, "PostToolUse:Bash", "adr/040-x.md", "attempt 1/3");
    assert_eq!(blocks.len(), 1, "{blocks:#?}");
    assert!(
        requests[1].contains("PostToolUse:Bash hook blocking error"),
        "the block reaches the model with the command that broke the ADR"
    );
    assert!(stop_hook_feedback(&requests).is_empty());
    assert_eq!(requests.len(), 3, "{}", outcome.describe());
    assert_eq!(outcome.result_text(), Some("ADR written."));
    assert_eq!(repo.read("adr/040-x.md").unwrap(), good("040"));
    assert_eq!(verdicts(&repo, "adr/040-x.md"), ["block", "pass"]);
}

#[test]
fn sed_in_place_breaking_a_committed_adr_is_blocked_on_the_spot() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    repo.write("adr/001-x.md", good("001"));
    repo.commit_all("a good ADR");
    let api =
        FakeApi::start(
            |_: &RecordedRequest, conv: &Conversation<'_>| match conv.request_index() {
                0 => bash("sed -i 's/^## Dokumentation$/## Notizen/' adr/001-x.md"),
                _ => Turn::text("Renamed."),
            },
        );
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Rename the section").run();
    outcome.assert_success();
    let requests = api.main_requests();
    blocked_on_the_spot(&requests, "PostToolUse:Bash", "adr/001-x.md", "attempt 1/3");
    assert!(repo.read("adr/001-x.md").unwrap().contains("## Notizen"));
    assert_eq!(
        verdicts(&repo, "adr/001-x.md").first().map(String::as_str),
        Some("block")
    );
}

#[test]
fn cp_of_a_broken_draft_into_the_adr_folder_is_blocked_on_the_spot() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    repo.write("drafts/x.txt", bad("041"));
    let api =
        FakeApi::start(
            |_: &RecordedRequest, conv: &Conversation<'_>| match conv.request_index() {
                0 => bash("cp drafts/x.txt adr/041-x.md"),
                _ => Turn::text("Copied."),
            },
        );
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Publish the draft").run();
    outcome.assert_success();
    let requests = api.main_requests();
    blocked_on_the_spot(&requests, "PostToolUse:Bash", "adr/041-x.md", "attempt 1/3");
    assert_eq!(repo.read("adr/041-x.md").unwrap(), bad("041"));
    assert_eq!(
        verdicts(&repo, "adr/041-x.md").first().map(String::as_str),
        Some("block")
    );
}

#[test]
fn stop_catches_an_adr_written_where_the_bash_hook_does_not_look() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    repo.write("drafts/x.txt", bad("001"));
    let api = FakeApi::start(|_: &RecordedRequest, conv: &Conversation<'_>| {
        match conv.request_index() {
            0 => bash(
                "mkdir -p newdir && python3 -c \"import shutil; shutil.copy('drafts/x.txt', 'newdir/' + 'ADR-x.md')\"",
            ),
            _ => Turn::text("done"),
        }
    });
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
    outcome.assert_success();
    assert_eq!(repo.read("newdir/ADR-x.md").unwrap(), bad("001"));
    let requests = api.main_requests();
    let feedback: Vec<String> = stop_hook_feedback(&requests)
        .iter()
        .map(|f| unescaped(f))
        .collect();
    assert!(
        feedback
            .iter()
            .any(|f| f.contains("newdir/ADR-x.md") && f.contains(MISSING)),
        "the Stop gate must name the ADR the session wrote: {feedback:#?}\n{}",
        outcome.describe()
    );
    assert!(
        verdicts(&repo, "newdir/ADR-x.md")
            .iter()
            .any(|v| v == "block"),
        "{:?}",
        log(&repo)
    );
}

#[test]
fn a_write_of_the_configuration_is_refused_and_the_file_stays() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    let api =
        FakeApi::start(
            |_: &RecordedRequest, conv: &Conversation<'_>| match conv.request_index() {
                0 => write_tool(
                    conv,
                    "config/approvals.yaml",
                    "approvals:\n  adr:\n    enabled: true\n",
                ),
                _ => Turn::text("Could not change it."),
            },
        );
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Turn the reviewer on").run();
    outcome.assert_success();
    let requests = api.main_requests();
    let errors = error_tool_results(&requests);
    assert!(
        errors
            .iter()
            .any(|e| e.content.contains("helix-gate's configuration")),
        "the model must get an is_error tool result naming helix-gate's configuration: {errors:#?}\n{}",
        outcome.describe()
    );
    assert_eq!(
        repo.read("config/approvals.yaml").as_deref(),
        Some(NO_APPROVAL)
    );
}

#[test]
fn a_configuration_rewritten_behind_the_text_check_changes_nothing_in_the_session() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    let api = FakeApi::start(|_: &RecordedRequest, conv: &Conversation<'_>| {
        match conv.request_index() {
            0 => bash(
                "python3 -c \"open('config/helix-gate.yaml', 'w').write('hook: {budget: 99}' + chr(10))\"",
            ),
            1 => heredoc("adr/043-x.md", &bad("043")),
            _ => Turn::text("done"),
        }
    });
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
    outcome.assert_success();
    assert_eq!(
        repo.read("config/helix-gate.yaml").as_deref(),
        Some("hook: {budget: 99}\n"),
        "the rewrite itself went through"
    );
    let requests = api.main_requests();
    let blocks = blocked_on_the_spot(&requests, "PostToolUse:Bash", "adr/043-x.md", "attempt 1/3");
    assert!(
        !blocks.iter().any(|b| b.contains("/99")),
        "the session's budget is the one it started with: {blocks:#?}"
    );
    // The session's own budget of 3 ends the run: 1 on the spot + 2 at Stop, then escalation.
    assert_eq!(
        verdicts(&repo, "adr/043-x.md"),
        ["block", "block", "block", "escalate"]
    );
    // The user is told, once, which file changed.
    let told = "config/helix-gate.yaml changed during this session";
    let messages = system_messages(&outcome);
    assert_eq!(
        messages.iter().filter(|m| m.contains(told)).count(),
        1,
        "expected {told:?} once among the hook system messages: {messages:#?}\n{}",
        outcome.describe()
    );
}

#[test]
fn wiping_the_state_folder_does_not_make_the_stop_forget_a_broken_adr() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    let api =
        FakeApi::start(
            |_: &RecordedRequest, conv: &Conversation<'_>| match conv.request_index() {
                0 => heredoc("adr/044-x.md", &bad("044")),
                1 => bash("python3 -c \"import shutil; shutil.rmtree('.helix-gate')\""),
                _ => Turn::text("done"),
            },
        );
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
    outcome.assert_success();
    let requests = api.main_requests();
    blocked_on_the_spot(&requests, "PostToolUse:Bash", "adr/044-x.md", "attempt 1/3");
    let feedback: Vec<String> = stop_hook_feedback(&requests)
        .iter()
        .map(|f| unescaped(f))
        .collect();
    assert!(
        feedback
            .iter()
            .any(|f| f.contains("adr/044-x.md") && f.contains(MISSING)),
        "the Stop must still block on the broken ADR after .helix-gate/ was wiped: {feedback:#?}\n{}",
        outcome.describe()
    );
    // The wipe does not give the session a fresh budget: the first Stop is
    // the second attempt, and the budget of 3 ends the loop after two Stops.
    assert!(
        feedback[0].contains("[attempt 2/3] adr/044-x.md"),
        "{feedback:#?}"
    );
    assert_eq!(feedback.len(), 2, "{feedback:#?}");
}

#[test]
#[cfg(unix)]
fn a_write_through_a_linked_folder_is_checked_as_the_adr_it_is() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    std::fs::create_dir_all(repo.join("docs")).unwrap();
    std::os::unix::fs::symlink("../adr", repo.join("docs/decisions")).unwrap();
    repo.commit_all("linked folder");
    let api =
        FakeApi::start(
            |_: &RecordedRequest, conv: &Conversation<'_>| match conv.request_index() {
                0 => write_tool(conv, "docs/decisions/042-x.md", &bad("042")),
                _ => Turn::text("done"),
            },
        );
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
    outcome.assert_success();
    assert_eq!(repo.read("adr/042-x.md").unwrap(), bad("042"));
    let requests = api.main_requests();
    blocked_on_the_spot(
        &requests,
        "PostToolUse:Write",
        "adr/042-x.md",
        "attempt 1/3",
    );
    assert_eq!(
        verdicts(&repo, "adr/042-x.md").first().map(String::as_str),
        Some("block")
    );
}

#[test]
fn an_honest_session_writing_a_good_adr_by_heredoc_is_never_blocked() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    let api =
        FakeApi::start(
            |_: &RecordedRequest, conv: &Conversation<'_>| match conv.request_index() {
                0 => heredoc("adr/045-x.md", &good("045")),
                _ => Turn::text("done"),
            },
        );
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
    outcome.assert_success();
    let requests = api.main_requests();
    assert!(hook_blocking_errors(&requests, "PostToolUse:Bash").is_empty());
    assert!(stop_hook_feedback(&requests).is_empty());
    assert!(error_tool_results(&requests).is_empty());
    assert_eq!(requests.len(), 2, "{}", outcome.describe());
    assert_eq!(outcome.result_text(), Some("done"));
    assert!(
        log(&repo).iter().all(|l| l["verdict"] != "block"),
        "{:?}",
        log(&repo)
    );
}

#[test]
fn a_persons_broken_draft_the_session_left_alone_is_not_held_against_it() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    repo.write("adr/050-draft.md", bad("050"));
    repo.commit_all("a draft, not finished");
    let good = good("051");
    let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
        match conv.request_index() {
            0 => heredoc("adr/051-y.md", &good),
            _ => Turn::text("done"),
        }
    });
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write another ADR").run();
    outcome.assert_success();
    let requests = api.main_requests();
    assert!(hook_blocking_errors(&requests, "PostToolUse:Bash").is_empty());
    assert!(
        stop_hook_feedback(&requests).is_empty(),
        "{:#?}",
        stop_hook_feedback(&requests)
    );
    assert_eq!(requests.len(), 2, "{}", outcome.describe());
    assert!(
        verdicts(&repo, "adr/050-draft.md").is_empty(),
        "{:?}",
        log(&repo)
    );
}

#[test]
fn a_configuration_a_person_changes_between_sessions_takes_effect_in_the_next() {
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = installed_repo();
    let script = |rel: &'static str, number: &'static str| {
        move |_: &RecordedRequest, conv: &Conversation<'_>| match conv.request_index() {
            0 => heredoc(rel, &bad(number)),
            _ => Turn::text("done"),
        }
    };
    let first = FakeApi::start(script("adr/046-x.md", "046"));
    let outcome = ClaudeRun::new(&claude, &first, repo.path(), "Write the ADR").run();
    outcome.assert_success();
    blocked_on_the_spot(
        &first.main_requests(),
        "PostToolUse:Bash",
        "adr/046-x.md",
        "attempt 1/3",
    );

    repo.write("config/helix-gate.yaml", "hook: {budget: 2}\n");
    let second = FakeApi::start(script("adr/047-x.md", "047"));
    let outcome = ClaudeRun::new(&claude, &second, repo.path(), "Write the ADR").run();
    outcome.assert_success();
    let blocks = blocked_on_the_spot(
        &second.main_requests(),
        "PostToolUse:Bash",
        "adr/047-x.md",
        "attempt 1/2",
    );
    assert!(!blocks.iter().any(|b| b.contains("/3)")), "{blocks:#?}");
    assert_eq!(
        verdicts(&repo, "adr/047-x.md"),
        ["block", "block", "escalate"]
    );
}
