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
