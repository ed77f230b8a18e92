//! The ADR lifecycle across files: supersession on both sides, and an accepted
//! successor's predecessor Superseded in the same commit; checked by pre-commit
//! in real repositories.

use crate::support::cli::*;
use crate::support::repo::ScratchRepo;

/// A complete MADR ADR with `extra` front matter lines.
fn madr(title: &str, front: &str) -> String {
    format!(
        "---\n{front}\ndate: 2026-11-20\n---\n# {title}\n\n## Context and Problem Statement\n\nThe services need one way to talk to each other, decided once.\n\n## Considered Options\n\n* REST\n* gRPC\n\n## Decision Outcome\n\nChosen option: the one this ADR names, because it fits the team.\n"
    )
}

const OLD: &str = "docs/decisions/0003-rest.md";
const NEW: &str = "docs/decisions/0007-grpc.md";

/// A MADR repository with ADR 0003 accepted, committed.
fn repo() -> ScratchRepo {
    let repo = ScratchRepo::empty();
    repo.write("config/helix-gate.yaml", "preset: madr\n");
    repo.write(OLD, madr("Use REST", "status: accepted"));
    repo.commit_all("REST");
    repo
}

fn rules(out: &std::process::Output) -> String {
    format!("{}{}", stdout(out), stderr(out))
}

#[test]
fn a_successor_is_accepted_only_with_its_predecessor_superseded_in_the_same_commit() {
    let repo = repo();
    // Proposed successor, both sides written: fine.
    repo.write(
        NEW,
        madr("Use gRPC", "status: proposed\nsupersedes: [\"0003\"]"),
    );
    repo.write(
        OLD,
        madr("Use REST", "status: accepted\nsuperseded_by: [\"0007\"]"),
    );
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", rules(&out));
    repo.git(&["commit", "-q", "--no-verify", "-m", "propose gRPC"]);
    // The successor accepted, the predecessor left accepted: refused.
    repo.write(
        NEW,
        madr("Use gRPC", "status: accepted\nsupersedes: [\"0003\"]"),
    );
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", rules(&out));
    let text = rules(&out);
    assert!(text.contains("supersession-predecessor-active"), "{text}");
    assert!(
        text.contains("docs/decisions/0003-rest.md (0003), whose status is still `accepted`"),
        "{text}"
    );
    // Both in one commit, the successor accepted by a person: accepted.
    repo.write(
        OLD,
        madr("Use REST", "status: superseded\nsuperseded_by: [\"0007\"]"),
    );
    repo.write(
        NEW,
        madr("Use gRPC", "status: proposed\nsupersedes: [\"0003\"]"),
    );
    let out = repo.helix(&["accept", "7", "--by", "Ann"]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", rules(&out));
}

#[test]
fn a_one_sided_supersession_is_refused_at_commit() {
    let repo = repo();
    repo.write(
        NEW,
        madr("Use gRPC", "status: proposed\nsupersedes: [\"0003\"]"),
    );
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", rules(&out));
    let text = rules(&out);
    assert!(text.contains("supersession-one-sided"), "{text}");
    assert!(
        text.contains("supersedes names 0003, but docs/decisions/0003-rest.md does not name this ADR in superseded_by"),
        "{text}"
    );
    // doctor sees the same across the whole directory.
    repo.git(&["commit", "-q", "--no-verify", "-m", "one side"]);
    let out = repo.helix(&["doctor"]);
    assert_ne!(code(&out), 0);
    assert!(
        rules(&out).contains("supersession-one-sided"),
        "{}",
        rules(&out)
    );
}

#[test]
fn new_supersedes_writes_both_sides_in_madr_and_nygard() {
    let repo = repo();
    let out = repo.helix(&["new", "--supersedes", "3", "Use gRPC"]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    assert!(
        stdout(&out).contains("docs/decisions/0003-rest.md now names it in superseded_by"),
        "{}",
        stdout(&out)
    );
    let new = repo
        .read("docs/decisions/0004-use-grpc.md")
        .expect("the new ADR");
    assert!(
        new.contains("\nstatus: proposed\nsupersedes: [\"0003\"]\n"),
        "{new}"
    );
    let old = repo.read(OLD).expect("the old ADR");
    assert!(
        old.starts_with("---\nstatus: accepted\nsuperseded_by: [\"0004\"]\n"),
        "{old}"
    );
    // Both sides agree: the check across files finds nothing to say about them.
    let out = repo.helix(&["validate", "docs/decisions"]);
    assert!(!rules(&out).contains("supersession-"), "{}", rules(&out));
    // A number the directory lacks changes nothing.
    let out = repo.helix(&["new", "--supersedes", "ADR-0042", "Use SOAP"]);
    assert_eq!(code(&out), 2, "{}", rules(&out));
    assert!(
        stderr(&out).contains("--supersedes 42: the ADR directory has no ADR 42"),
        "{}",
        stderr(&out)
    );
    assert!(repo.read("docs/decisions/0005-use-soap.md").is_none());

    // adr-tools / Nygard: no front matter, the lines go into the status sections.
    let nygard = ScratchRepo::empty();
    nygard.write("config/helix-gate.yaml", "preset: nygard\n");
    nygard.write(
        "doc/adr/0001-use-rest.md",
        "# 1. Use REST\n\nDate: 2026-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nWe need an API style.\n\n## Decision\n\nREST.\n\n## Consequences\n\nJSON everywhere.\n",
    );
    nygard.commit_all("REST");
    let out = nygard.helix(&["new", "--supersedes", "1", "Use gRPC"]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    let old = nygard.read("doc/adr/0001-use-rest.md").unwrap();
    assert!(
        old.contains(
            "## Status\n\nAccepted\n\nSuperseded by [2. Use gRPC](0002-use-grpc.md)\n\n## Context"
        ),
        "{old}"
    );
    let new = nygard.read("doc/adr/0002-use-grpc.md").unwrap();
    assert!(
        new.contains("Supersedes [1. Use REST](0001-use-rest.md)"),
        "{new}"
    );
}

#[test]
fn an_illegal_status_change_is_refused_at_commit() {
    let repo = repo();
    // Accepted -> Proposed is not a change MADR's table allows.
    repo.write(OLD, madr("Use REST", "status: proposed"));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", rules(&out));
    let text = rules(&out);
    assert!(
        text.contains("error[status-transition-illegal] the status changed from Accepted to Proposed; from Accepted it may change to: Deprecated, Superseded"),
        "{text}"
    );
    // A legal one passes.
    repo.write(OLD, madr("Use REST", "status: deprecated"));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", rules(&out));
    // A new ADR starts as proposed (or draft), not rejected.
    repo.write(NEW, madr("Use gRPC", "status: rejected"));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", rules(&out));
    assert!(
        rules(&out).contains("a new ADR starts as Rejected; it may start as: Proposed, Draft"),
        "{}",
        rules(&out)
    );
}

#[test]
fn the_first_commit_is_adoption_any_status_may_start_there() {
    let repo = ScratchRepo::empty();
    repo.write("config/helix-gate.yaml", "preset: madr\n");
    repo.write(OLD, madr("Use REST", "status: accepted"));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", rules(&out));
}

/// The hook's answer to a Write of `rel` (already on disk) in the repository at `root`.
fn saved(root: &std::path::Path, rel: &str) -> Option<serde_json::Value> {
    crate::support::hook::hook(
        root,
        &serde_json::json!({"session_id": "s", "transcript_path": "t", "cwd": root,
            "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": root.join(rel), "content": "…"},
            "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"}),
    )
}

#[test]
fn the_hook_refuses_an_agents_illegal_status_change_against_head() {
    let repo = repo();
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo.commit_all("no reviewer");
    // Accepted -> Proposed: blocked, naming both statuses and the legal ones.
    repo.write(OLD, madr("Use REST", "status: proposed"));
    let answer = saved(repo.path(), OLD).expect("an answer");
    let text = answer.to_string();
    assert_eq!(answer["decision"], "block", "{text}");
    assert!(
        text.contains("the status changed from Accepted to Proposed; from Accepted it may change to: Deprecated, Superseded"),
        "{text}"
    );
    // A legal change passes.
    repo.write(OLD, madr("Use REST", "status: deprecated"));
    let answer = saved(repo.path(), OLD);
    assert!(
        answer.as_ref().is_none_or(|a| a["decision"] != "block"),
        "{answer:?}"
    );
}

#[test]
fn an_accepted_decision_is_not_rewritten_by_the_agent_or_at_commit() {
    let repo = repo();
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo.commit_all("no reviewer");
    let rewritten = madr("Use REST", "status: accepted").replace(
        "Chosen option: the one this ADR names, because it fits the team.",
        "Chosen option: whatever the code does today.",
    );
    repo.write(OLD, &rewritten);
    let answer = saved(repo.path(), OLD).expect("an answer");
    let text = answer.to_string();
    assert_eq!(answer["decision"], "block", "{text}");
    assert!(
        text.contains(
            "this ADR is accepted and its text is as accepted: ## Decision Outcome changed"
        ),
        "{text}"
    );
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", rules(&out));
    assert!(
        rules(&out).contains("error[accepted-adr-rewritten]"),
        "{}",
        rules(&out)
    );
    // Retiring it, with its successor named, is what may change.
    repo.write(OLD, madr("Use REST", "status: deprecated"));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", rules(&out));
}

#[test]
fn a_person_fixes_a_typo_in_an_accepted_adr_with_a_recorded_override_for_one_commit() {
    let repo = repo();
    let typo = madr("Use REST", "status: accepted").replace("fits the team", "fits teh team");
    repo.write(OLD, &typo);
    repo.commit_all("a typo slipped in before the gate");
    repo.write(OLD, madr("Use REST", "status: accepted"));
    repo.git(&["add", "-A"]);
    assert_eq!(code(&repo.pre_commit()), 1);
    let out = repo.helix(&[
        "override",
        "accepted-adr-rewritten",
        "--reason",
        "fix the typo 'teh'",
    ]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", rules(&out));
    assert!(
        rules(&out).contains("fix the typo 'teh'"),
        "{}",
        rules(&out)
    );
    repo.git(&["commit", "-q", "--no-verify", "-m", "typo"]);
    // Used up: the next rewrite is refused again, and the override is in the log.
    repo.write(
        OLD,
        madr("Use REST", "status: accepted").replace("fits the team", "fits us"),
    );
    repo.git(&["add", "-A"]);
    assert_eq!(code(&repo.pre_commit()), 1);
    let log = repo.helix(&["log"]);
    assert!(
        stdout(&log).contains("accepted-adr-rewritten"),
        "{}",
        stdout(&log)
    );
}

#[test]
fn check_base_judges_the_lifecycle_of_a_branch() {
    let repo = repo();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write(
        OLD,
        madr("Use REST", "status: proposed").replace("fits the team", "fits nobody"),
    );
    repo.commit_all("rewrite the decision");
    let out = repo.helix(&["check", "--base", "main"]);
    assert_eq!(code(&out), 1, "{}", rules(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "error[status-transition-illegal] the status changed from Accepted to Proposed"
        ),
        "{text}"
    );
    assert!(text.contains("error[accepted-adr-rewritten]"), "{text}");
    // The legal change alone passes.
    repo.write(OLD, madr("Use REST", "status: deprecated"));
    repo.commit_all("retire it");
    let out = repo.helix(&["check", "--base", "main"]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
}

/// The MADR repository with ADR 0007 proposed, committed, and no reviewer.
fn proposed() -> ScratchRepo {
    let repo = repo();
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo.write(NEW, madr("Use gRPC", "status: proposed"));
    repo.commit_all("gRPC proposed");
    repo
}

#[test]
fn a_person_accepts_and_pre_commit_takes_only_a_recorded_acceptance() {
    let repo = proposed();
    // A hand edit (or a model's) to accepted: refused at commit, with the way out.
    repo.write(NEW, madr("Use gRPC", "status: accepted"));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", rules(&out));
    let text = rules(&out);
    assert!(
        text.contains("error[acceptance-unrecorded] the status changed from Proposed to Accepted, and no person's `helix-gate accept` recorded it"),
        "{text}"
    );
    assert!(
        text.contains("set the status back to Proposed and have a person run `helix-gate accept 7 --by NAME [--reason TEXT]`"),
        "{text}"
    );
    // A history entry written by hand is no record either.
    repo.write(
        NEW,
        madr(
            "Use gRPC",
            "status: accepted\nstatus_history:\n  - {from: Proposed, to: Accepted, by: Ann}",
        ),
    );
    repo.git(&["add", "-A"]);
    assert_eq!(code(&repo.pre_commit()), 1);
    // The person's command: sets the status as MADR writes it and records it.
    repo.write(NEW, madr("Use gRPC", "status: proposed"));
    let out = repo.helix(&[
        "accept",
        "ADR-0007",
        "--by",
        "Ann",
        "--reason",
        "we agreed in review",
    ]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    let text = repo.read(NEW).unwrap();
    assert!(text.contains("\nstatus: accepted\n"), "{text}");
    assert!(
        text.contains(
            "status_history:\n  - {from: \"Proposed\", to: \"Accepted\", by: \"Ann\", at: \""
        ),
        "{text}"
    );
    assert!(text.contains("reason: \"we agreed in review\"}"), "{text}");
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", rules(&out));
    // `history` shows the record, signed by this user's key.
    let out = repo.helix(&["history", "7", "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    let json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let entry = &json["history"][0];
    assert_eq!(json["path"], NEW);
    assert_eq!(
        (
            &entry["from"],
            &entry["to"],
            &entry["by"],
            &entry["reason"],
            &entry["verified"]
        ),
        (
            &"Proposed".into(),
            &"Accepted".into(),
            &"Ann".into(),
            &"we agreed in review".into(),
            &true.into()
        )
    );
    let human = stdout(&repo.helix(&["history", NEW]));
    assert!(
        human.contains("Proposed -> Accepted  by Ann: we agreed in review"),
        "{human}"
    );
}

#[test]
fn reject_and_deprecate_follow_the_table_and_nygard_writes_its_status_section() {
    let repo = proposed();
    // Proposed -> Deprecated is not in MADR's table.
    let out = repo.helix(&["deprecate", "7", "--by", "Ann"]);
    assert_eq!(code(&out), 2, "{}", rules(&out));
    assert!(
        rules(&out).contains(
            "is Proposed; from Proposed the status may change to: Accepted, Rejected, On hold"
        ),
        "{}",
        rules(&out)
    );
    let out = repo.helix(&["reject", NEW, "--by", "Ann"]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    assert!(repo.read(NEW).unwrap().contains("\nstatus: rejected\n"));
    let out = repo.helix(&[
        "deprecate",
        "3",
        "--by",
        "Bo",
        "--reason",
        "gRPC everywhere",
    ]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    assert!(repo.read(OLD).unwrap().contains("\nstatus: deprecated\n"));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", rules(&out));

    let nygard = ScratchRepo::empty();
    nygard.write("config/helix-gate.yaml", "preset: nygard\n");
    let adr = "doc/adr/0001-use-rest.md";
    nygard.write(
        adr,
        "# 1. Use REST\n\nDate: 2026-11-20\n\n## Status\n\nProposed\n\n## Context\n\nThe services talk.\n\n## Decision\n\nWe use REST.\n\n## Consequences\n\nSimple.\n",
    );
    nygard.commit_all("proposed");
    let out = nygard.helix(&["accept", "1", "--by", "Ann"]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    let text = nygard.read(adr).unwrap();
    assert!(
        text.contains("## Status\n\nAccepted\n\nStatus history: Proposed -> Accepted on "),
        "{text}"
    );
    assert!(text.contains(" by Ann\n\n## Context"), "{text}");
    nygard.git(&["add", "-A"]);
    let out = nygard.pre_commit();
    assert_eq!(code(&out), 0, "{}", rules(&out));
}

#[test]
fn a_status_command_is_refused_inside_an_agents_session() {
    let repo = proposed();
    let out = bounded(
        crate::support::repo::in_repo(bin(), repo.path())
            .args(["accept", "7", "--by", "Claude"])
            .env("CLAUDECODE", "1"),
        crate::support::repo::TIME_LIMIT,
    );
    assert_eq!(code(&out), 2, "{}", rules(&out));
    assert!(
        rules(&out).contains("`helix-gate accept` records a person's decision and is refused inside an agent's session (CLAUDECODE is set)"),
        "{}",
        rules(&out)
    );
    assert!(repo.read(NEW).unwrap().contains("status: proposed"));
    assert!(
        !repo
            .path()
            .join(".helix-gate/status-history.jsonl")
            .exists()
    );
}

/// The hook's answer to a `PreToolUse` of `tool` with `input` in the repository at `root`.
fn before(
    root: &std::path::Path,
    tool: &str,
    input: &serde_json::Value,
) -> Option<serde_json::Value> {
    crate::support::hook::hook(
        root,
        &serde_json::json!({"session_id": "s", "transcript_path": "t", "cwd": root,
            "hook_event_name": "PreToolUse", "tool_name": tool,
            "tool_input": input, "tool_use_id": "toolu_1"}),
    )
}

#[test]
fn the_hook_refuses_a_write_that_accepts_an_adr_before_it_lands() {
    let repo = proposed();
    let path = repo.path().join(NEW);
    let refused = |answer: Option<serde_json::Value>| {
        let answer = answer.expect("an answer");
        let text = answer.to_string();
        assert_eq!(
            answer["hookSpecificOutput"]["permissionDecision"], "deny",
            "{text}"
        );
        assert!(
            text.contains(
                "this write sets docs/decisions/0007-grpc.md to Accepted (it is Proposed)"
            ),
            "{text}"
        );
        assert!(
            text.contains("ask a person to run `helix-gate accept 7 --by NAME [--reason TEXT]`"),
            "{text}"
        );
    };
    // Write, Edit and MultiEdit.
    refused(before(
        repo.path(),
        "Write",
        &serde_json::json!({"file_path": path, "content": madr("Use gRPC", "status: accepted")}),
    ));
    refused(before(
        repo.path(),
        "Edit",
        &serde_json::json!({"file_path": path, "old_string": "status: proposed", "new_string": "status: Accepted"}),
    ));
    refused(before(
        repo.path(),
        "MultiEdit",
        &serde_json::json!({"file_path": path, "edits": [
            {"old_string": "Use gRPC", "new_string": "Use gRPC now"},
            {"old_string": "status: proposed", "new_string": "status: accepted"}]}),
    ));
    assert!(repo.read(NEW).unwrap().contains("status: proposed"));
    // The word elsewhere is no acceptance.
    let answer = before(
        repo.path(),
        "Edit",
        &serde_json::json!({"file_path": path, "old_string": "fits the team", "new_string": "fits the team, as accepted practice"}),
    );
    assert!(
        answer
            .as_ref()
            .is_none_or(|a| a["hookSpecificOutput"]["permissionDecision"] != "deny"),
        "{answer:?}"
    );
    // The model's shell running the person's command: put to the person.
    let answer = before(
        repo.path(),
        "Bash",
        &serde_json::json!({"command": "helix-gate accept 7 --by Claude"}),
    )
    .expect("an answer");
    let text = answer.to_string();
    assert!(
        text.contains("`helix-gate accept 7 --by Claude` changes an ADR's status as a person's recorded decision"),
        "{text}"
    );
}

/// Gemini CLI's and Copilot CLI's writes are refused before they land as well,
/// in their own event shapes and answers.
#[test]
fn gemini_and_copilot_writes_that_accept_an_adr_are_refused_before_they_land() {
    use crate::support::hook::Hook;
    let repo = proposed();
    let root = repo.path();
    let path = root.join(NEW);
    let ask = |agent: &str, event: serde_json::Value| {
        let run = Hook::new(root).args(&["--agent", agent]).event(&event);
        run.answer()
            .unwrap_or_else(|| panic!("{agent}: no answer: {}", run.stderr))
            .to_string()
    };
    let gemini = ask(
        "gemini",
        serde_json::json!({"session_id": "g", "transcript_path": "t", "cwd": root,
            "hook_event_name": "BeforeTool", "tool_name": "replace",
            "tool_input": {"file_path": path, "instruction": "accept it",
                           "old_string": "status: proposed", "new_string": "status: accepted"}}),
    );
    assert!(gemini.contains("\"decision\":\"deny\""), "{gemini}");
    assert!(
        gemini.contains("this write sets docs/decisions/0007-grpc.md to Accepted"),
        "{gemini}"
    );
    let copilot = ask(
        "copilot",
        serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "c",
            "timestamp": "2026-11-26T16:14:20.146Z", "cwd": root, "tool_name": "Edit",
            "tool_input": {"path": path, "old_str": "status: proposed", "new_str": "status: accepted"}}),
    );
    assert!(copilot.contains("deny"), "{copilot}");
    assert!(
        copilot.contains("this write sets docs/decisions/0007-grpc.md to Accepted"),
        "{copilot}"
    );
    let created = ask(
        "copilot",
        serde_json::json!({"hook_event_name": "PreToolUse", "session_id": "c",
            "timestamp": "2026-11-26T16:14:20.146Z", "cwd": root, "tool_name": "Write",
            "tool_input": {"path": root.join("docs/decisions/0008-queue.md"),
                           "file_text": madr("Use a queue", "status: accepted")}}),
    );
    assert!(
        created.contains("0008-queue.md to Accepted (a new ADR)"),
        "{created}"
    );
    assert!(repo.read(NEW).unwrap().contains("status: proposed"));
}

/// Codex's `apply_patch` that makes an ADR Accepted is refused before it lands,
/// its text after the patch worked out from the file now.
#[test]
fn a_codex_patch_that_accepts_an_adr_is_refused_before_it_lands() {
    use crate::support::hook::Hook;
    let repo = proposed();
    let root = repo.path();
    let ask = |patch: &str| {
        let event = serde_json::json!({"session_id": "x", "transcript_path": null, "cwd": root,
            "hook_event_name": "PreToolUse", "model": "gpt-5", "turn_id": "t1",
            "tool_name": "apply_patch", "tool_input": {"command": patch}, "tool_use_id": "call_1"});
        Hook::new(root)
            .args(&["--agent", "codex"])
            .event(&event)
            .answer()
            .map(|a| a.to_string())
            .unwrap_or_default()
    };
    let update = format!(
        "*** Begin Patch\n*** Update File: {NEW}\n@@\n-status: proposed\n+status: accepted\n*** End Patch"
    );
    let answer = ask(&update);
    assert!(answer.contains("deny"), "{answer}");
    assert!(
        answer.contains("this write sets docs/decisions/0007-grpc.md to Accepted (it is Proposed)"),
        "{answer}"
    );
    let add = "*** Begin Patch\n*** Add File: docs/decisions/0008-queue.md\n+---\n+status: accepted\n+---\n+# Use a queue\n*** End Patch";
    assert!(
        ask(add).contains("0008-queue.md to Accepted (a new ADR)"),
        "{}",
        ask(add)
    );
    // The word in another line is no acceptance.
    let other = format!(
        "*** Begin Patch\n*** Update File: {NEW}\n@@\n-status: proposed\n+status: proposed\n+# accepted practice\n*** End Patch"
    );
    assert!(!ask(&other).contains("deny"), "{}", ask(&other));
    assert!(repo.read(NEW).unwrap().contains("status: proposed"));
}

/// The session's start tells the model which ADRs are superseded and by what, and
/// that a status is a person's to set.
#[test]
fn the_session_start_names_the_successors_of_superseded_adrs() {
    let repo = repo();
    repo.write(
        NEW,
        madr("Use gRPC", "status: accepted\nsupersedes: [\"0003\"]"),
    );
    repo.write(
        OLD,
        madr("Use REST", "status: superseded\nsuperseded_by: [\"0007\"]"),
    );
    repo.commit_all("gRPC replaces REST");
    let answer = crate::support::hook::hook(
        repo.path(),
        &serde_json::json!({"session_id": "s", "transcript_path": "t", "cwd": repo.path(),
            "hook_event_name": "SessionStart", "source": "startup"}),
    )
    .expect("a summary");
    let text = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(
        text.contains("- superseded, so follow their successors instead: ADR-0003 by ADR-0007\n"),
        "{text}"
    );
    assert!(
        text.contains("ask a person to run `helix-gate accept N --by NAME`"),
        "{text}"
    );
}

/// An accepted Decision rewritten during the session (by a write whose block the
/// model ignored, or a way the hook did not see) is still held at the end of the turn.
#[test]
fn the_stop_holds_a_rewritten_accepted_decision() {
    let repo = repo();
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo.commit_all("no reviewer");
    let event = |name: &str| {
        serde_json::json!({"session_id": "s", "transcript_path": "t", "cwd": repo.path(),
            "hook_event_name": name, "source": "startup", "stop_hook_active": false,
            "last_assistant_message": "Done."})
    };
    crate::support::hook::hook(repo.path(), &event("SessionStart"));
    let rewritten = madr("Use REST", "status: accepted").replace(
        "Chosen option: the one this ADR names, because it fits the team.",
        "Chosen option: whatever the code does today.",
    );
    repo.write(OLD, &rewritten);
    let answer = crate::support::hook::hook(repo.path(), &event("Stop")).expect("an answer");
    let text = answer.to_string();
    assert_eq!(answer["decision"], "block", "{text}");
    assert!(text.contains("accepted-adr-rewritten"), "{text}");
    // Put back as accepted, the turn may end.
    repo.write(OLD, madr("Use REST", "status: accepted"));
    let answer = crate::support::hook::hook(repo.path(), &event("Stop"));
    assert!(
        answer.as_ref().is_none_or(|a| a["decision"] != "block"),
        "{answer:?}"
    );
}

#[test]
fn a_shell_that_accepts_an_adr_is_blocked_after_the_command() {
    let repo = proposed();
    // The session starts (the hook takes its baseline), then the shell writes.
    crate::support::hook::hook(
        repo.path(),
        &serde_json::json!({"session_id": "s", "transcript_path": "t", "cwd": repo.path(),
            "hook_event_name": "SessionStart", "source": "startup"}),
    );
    repo.write(NEW, madr("Use gRPC", "status: accepted"));
    let answer = crate::support::hook::hook(
        repo.path(),
        &serde_json::json!({"session_id": "s", "transcript_path": "t", "cwd": repo.path(),
            "hook_event_name": "PostToolUse", "tool_name": "Bash",
            "tool_input": {"command": format!("sed -i s/proposed/accepted/ {NEW}")},
            "tool_response": {"stdout": "", "stderr": ""}, "tool_use_id": "toolu_1"}),
    )
    .expect("an answer");
    let text = answer.to_string();
    assert_eq!(answer["decision"], "block", "{text}");
    assert!(text.contains("acceptance-unrecorded"), "{text}");
}

#[test]
fn report_lists_the_status_changes_a_person_made_per_adr() {
    let repo = proposed();
    let out = repo.helix(&["report", "--out", "-"]);
    assert!(
        stdout(&out).contains("No ADR's status was changed with"),
        "{}",
        rules(&out)
    );
    let out = repo.helix(&["accept", "7", "--by", "Ann <ann@x>", "--reason", "review"]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    let out = repo.helix(&["report", "--out", "-"]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    let page = stdout(&out);
    assert!(
        page.contains("<h2>Status changes by a person</h2>"),
        "{page}"
    );
    assert!(
        page.contains("<td>docs/decisions/0007-grpc.md</td><td>Proposed &rarr; Accepted</td><td>Ann &lt;ann@x&gt;</td>"),
        "{page}"
    );
}

#[test]
fn validate_of_files_warns_of_a_one_sided_supersession() {
    let repo = repo();
    repo.write(
        NEW,
        madr("Use gRPC", "status: proposed\nsupersedes: [\"0003\"]"),
    );
    // 0003 was not among the files: a warning, the exit stays 0.
    let out = repo.helix(&["validate", NEW]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    assert!(
        rules(&out).contains("warning[supersession-one-sided] supersedes names 0003, but docs/decisions/0003-rest.md does not name this ADR in superseded_by"),
        "{}",
        rules(&out)
    );
    // Both given: a warning on each side; doctor makes them errors.
    let out = repo.helix(&["validate", NEW, OLD]);
    assert_eq!(code(&out), 0, "{}", rules(&out));
    assert_eq!(
        rules(&out)
            .matches("warning[supersession-one-sided]")
            .count(),
        2,
        "{}",
        rules(&out)
    );
    let out = repo.helix(&["validate"]);
    assert_eq!(code(&out), 1, "{}", rules(&out));
    assert!(
        rules(&out).contains("error[supersession-one-sided]"),
        "{}",
        rules(&out)
    );
}

mod e2e {
    //! The real Claude Code client against the fake model API: the scripted model
    //! sets its own ADR to accepted and edits an accepted Decision; both are
    //! refused, and the run ends with the way out in the transcript.

    use serde_json::json;

    use super::{NEW as OWN, OLD as ACCEPTED, madr};
    use crate::support::claude::{ClaudeRun, error_tool_results, require_claude};
    use crate::support::cli::*;
    use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
    use crate::support::repo::ScratchRepo;

    const DECISION: &str = "Chosen option: the one this ADR names, because it fits the team.";
    const LAST: &str = "Both were refused: a person must run `helix-gate accept 7 --by NAME`, and a changed decision is a new ADR.";

    #[test]
    fn claude_cannot_accept_its_own_adr_or_rewrite_an_accepted_decision() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = ScratchRepo::empty();
        repo.write("config/helix-gate.yaml", "preset: madr\n");
        repo.write(
            "config/approvals.yaml",
            "approvals:\n  adr:\n    enabled: false\n",
        );
        repo.write(ACCEPTED, madr("Use REST", "status: accepted"));
        repo.write(OWN, madr("Use gRPC", "status: proposed"));
        let out = run(repo.path(), &["install", "claude"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        repo.commit_all("0003 accepted, 0007 proposed");
        let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
            let dir = conv.working_dir().expect("working dir");
            // Claude Code edits only a file read first.
            let read = |rel: &str| {
                Turn::text("Reading it.").with_tool("Read", json!({"file_path": dir.join(rel)}))
            };
            let edit = |rel: &str, old: &str, new: &str| {
                Turn::text("Editing it.").with_tool(
                    "Edit",
                    json!({"file_path": dir.join(rel), "old_string": old, "new_string": new}),
                )
            };
            match conv.request_index() {
                0 => read(OWN),
                1 => edit(OWN, "status: proposed", "status: accepted"),
                2 => read(ACCEPTED),
                3 => edit(
                    ACCEPTED,
                    DECISION,
                    "Chosen option: whatever the code does today.",
                ),
                // Ending the turn with the rewrite still on disk is held at Stop; the
                // model puts the Decision back and ends again.
                5 => edit(
                    ACCEPTED,
                    "Chosen option: whatever the code does today.",
                    DECISION,
                ),
                _ => Turn::text(LAST),
            }
        });
        let outcome = ClaudeRun::new(
            &claude,
            &api,
            repo.path(),
            "Accept ADR-0007 and relax ADR-0003",
        )
        .run();
        outcome.assert_success();
        let requests = api.main_requests();
        assert_eq!(requests.len(), 7, "{}", outcome.describe());
        // The acceptance never landed; the model heard the way out.
        assert!(repo.read(OWN).unwrap().contains("status: proposed"));
        let refused: Vec<String> = error_tool_results(&requests)
            .into_iter()
            .map(|r| r.content)
            .collect();
        let all = refused.join("\n");
        assert!(
            all.contains("this write sets docs/decisions/0007-grpc.md to Accepted (it is Proposed)")
                && all.contains(
                    "Leave the status at Proposed, and ask a person to run `helix-gate accept 7 --by NAME [--reason TEXT]`"
                ),
            "{all}\n{}",
            outcome.describe()
        );
        // The accepted Decision's rewrite was blocked, with its way out.
        assert!(
            requests[4].contains("accepted-adr-rewritten")
                && requests[4].contains("helix-gate new --supersedes N"),
            "{}",
            outcome.describe()
        );
        // The turn it tried to end with the rewrite in place was held at Stop.
        assert!(
            requests[5].contains("Stop hook feedback")
                && requests[5].contains("accepted-adr-rewritten"),
            "{}",
            outcome.describe()
        );
        assert!(repo.read(ACCEPTED).unwrap().contains(DECISION));
        assert_eq!(outcome.result_text(), Some(LAST));
    }
}
