//! What the end-to-end tests of Codex, Gemini and Copilot CLI share: the passing
//! fixture numbered for a test and its broken twin, a committed repository with the
//! reviewer off, helix-gate run with a given stdin, and the decision log.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use super::cli::good_adr;
use super::repo::ScratchRepo;

/// Turns the reviewer off: these tests are about the deterministic gate.
pub(crate) const NO_APPROVAL: &str = "approvals:\n  adr:\n    enabled: false\n";

/// The finding a broken ADR ([`bad`]) produces.
pub(crate) const MISSING: &str = "required section \"Dokumentation\" is missing";

/// The passing fixture, numbered `number`.
pub(crate) fn good(number: &str) -> String {
    good_adr()
        .replace("adr_id: \"001\"", &format!("adr_id: \"{number}\""))
        .replace("# ADR-001:", &format!("# ADR-{number}:"))
}

/// The passing fixture without its `Dokumentation` section.
pub(crate) fn bad(number: &str) -> String {
    good(number).replace("## Dokumentation", "## Notizen")
}

/// A committed repository with the fixture's dependency and the reviewer off;
/// `opted_in`: with a `config/helix-gate.yaml` (what a user-scope hook looks for).
pub(crate) fn repository(opted_in: bool) -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write("config/approvals.yaml", NO_APPROVAL);
    if opted_in {
        repo.write("config/helix-gate.yaml", "");
    }
    repo.write("adr/.gitkeep", "");
    repo.commit_all("a repository with ADRs");
    repo
}

/// Run `command` with `stdin` on its standard input, collecting its output.
pub(crate) fn with_stdin(command: &mut Command, stdin: &str) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run helix-gate");
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// The decision log's lines.
pub(crate) fn log(repo: &ScratchRepo) -> Vec<Value> {
    repo.read(".helix-gate/log.jsonl")
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Verdicts logged for `target`, in order.
pub(crate) fn verdicts(repo: &ScratchRepo, target: &str) -> Vec<String> {
    log(repo)
        .iter()
        .filter(|l| l["target"] == target)
        .map(|l| l["verdict"].as_str().unwrap_or("").to_owned())
        .collect()
}
