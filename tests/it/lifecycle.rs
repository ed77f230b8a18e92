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
    // Both in one commit: accepted.
    repo.write(
        OLD,
        madr("Use REST", "status: superseded\nsuperseded_by: [\"0007\"]"),
    );
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
