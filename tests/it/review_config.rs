//! The seeds' `config/approvals.yaml` as written, the `docs` approval type, and
//! a configuration error that the command named in pre-commit's hint
//! reproduces. Reviewers are counting stub executables; the repositories are
//! real git repositories.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::json;

use crate::approval::canned_result;
use crate::precommit::ADR;
use crate::support::cli::{bin, bounded, code, manifest_dir, stderr, stdout, write};
use crate::support::repo::{ScratchRepo, TIME_LIMIT, in_repo};

/// A stub `claude` in `<dir>/claude` that counts its runs in `<dir>/runs` and
/// prints `result`; with `fail_first`, its first run crashes (exit 3, no
/// output). Returns the directory (to put first on PATH).
pub(crate) fn counting_reviewer(dir: &Path, result: &str, fail_first: bool) -> PathBuf {
    let result_path = write(dir, "result.json", result);
    let runs = dir.join("runs");
    let script = write(
        dir,
        "claude",
        format!(
            "#!/bin/sh\nn=$(cat '{runs}' 2>/dev/null || echo 0)\nn=$((n + 1))\necho $n > '{runs}'\n{fail}cat '{result}'\n",
            runs = runs.display(),
            result = result_path.display(),
            fail = if fail_first {
                "if [ $n -eq 1 ]; then echo crashed >&2; exit 3; fi\n"
            } else {
                ""
            },
        ),
    );
    crate::support::make_executable(&script);
    dir.to_path_buf()
}

/// How often the stub in `dir` ran.
pub(crate) fn reviewer_runs(dir: &Path) -> u32 {
    std::fs::read_to_string(dir.join("runs")).map_or(0, |t| t.trim().parse().unwrap())
}

/// `helix-gate <args>` in `repo` with the stub directory first on PATH (the
/// seeds' files name no command, so the default `claude` is looked up there).
pub(crate) fn helix_with_stub(repo: &ScratchRepo, stub: &Path, args: &[&str]) -> Output {
    let path = std::env::join_paths(std::iter::once(stub.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    bounded(
        in_repo(bin(), repo.path()).env("PATH", path).args(args),
        TIME_LIMIT,
    )
}

fn approved() -> String {
    canned_result(
        &json!({"result": "approved", "confidence": 0.95, "findings": [], "recommendations": []}),
    )
}

fn seed(name: &str) -> String {
    std::fs::read_to_string(manifest_dir().join("tests/fixtures/seeds").join(name)).unwrap()
}

#[test]
fn the_seeds_approvals_files_work_as_written() {
    for name in [
        "approvals-freigabe-konzept.yaml",
        "approvals-adr-015.yaml",
        "approvals-on-rejection.yaml",
    ] {
        let repo = ScratchRepo::with_adr();
        repo.write("config/approvals.yaml", seed(name));
        let stub = counting_reviewer(&repo.base().join("stub"), &approved(), true);

        assert_eq!(code(&repo.helix(&["index", "--write"])), 0);
        let doctor = helix_with_stub(&repo, &stub, &["doctor"]);
        assert_eq!(
            code(&doctor),
            0,
            "{name}: {}{}",
            stdout(&doctor),
            stderr(&doctor)
        );
        let note = "has keys that only the HELIX orchestrator uses; accepted, no effect here: on_rejection.target_phase: consultant\n";
        assert_eq!(
            stderr(&doctor).contains(note),
            name == "approvals-on-rejection.yaml",
            "{name}: {}",
            stderr(&doctor)
        );

        // `retry_on_failure: true`: the first run crashes, the second decides.
        let out = helix_with_stub(&repo, &stub, &["approve", "--format", "json", ADR]);
        assert_eq!(code(&out), 0, "{name}: {}{}", stdout(&out), stderr(&out));
        assert_eq!(reviewer_runs(&stub), 2, "{name}");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["result"], "approved");
        assert!(
            (doc["agent_context"]["cost"].as_f64().unwrap() - 0.01).abs() < 1e-9,
            "the crashed run reported no cost: {doc}"
        );

        // `docs: enabled: false`, as in the seeds.
        repo.write("docs/guide.md", "# Guide\n");
        let out = helix_with_stub(
            &repo,
            &stub,
            &["approve", "--type", "docs", "docs/guide.md"],
        );
        assert_eq!(code(&out), 2, "{name}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("approval type `docs` is disabled"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn without_retry_on_failure_a_crashed_reviewer_runs_once() {
    let repo = ScratchRepo::with_adr();
    let stub = counting_reviewer(&repo.base().join("stub"), &approved(), true);
    let out = helix_with_stub(&repo, &stub, &["approve", ADR]);
    assert_eq!(code(&out), 2, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(reviewer_runs(&stub), 1);
}

#[test]
fn a_timeout_is_not_retried() {
    let repo = ScratchRepo::with_adr();
    repo.write(
        "config/approvals.yaml",
        "defaults: {timeout: 1, retry_on_failure: true}\n",
    );
    let stub = counting_reviewer(&repo.base().join("stub"), &approved(), false);
    // Sleep before answering: `exec` so the sleep is the process that is killed.
    let script = std::fs::read_to_string(stub.join("claude")).unwrap();
    write(
        &stub,
        "claude",
        script.replace("\ncat '", "\nexec sleep 30; cat '"),
    );
    let out = helix_with_stub(&repo, &stub, &["approve", ADR]);
    assert_eq!(code(&out), 2, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("timeout") || stderr(&out).contains("timed out"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert_eq!(reviewer_runs(&stub), 1);
}

#[test]
fn the_docs_type_reviews_with_its_own_instructions() {
    let repo = ScratchRepo::with_adr();
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  docs:\n    enabled: true\n",
    );
    repo.write("docs/guide.md", "# Guide\n\nRun `helix-gate validate`.\n");
    let stub = counting_reviewer(&repo.base().join("stub"), &approved(), false);
    let out = helix_with_stub(
        &repo,
        &stub,
        &[
            "approve",
            "--type",
            "docs",
            "--format",
            "json",
            "docs/guide.md",
        ],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(reviewer_runs(&stub), 1);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["approval_type"], "docs");
    assert_eq!(doc["files"], json!(["docs/guide.md"]));
    // The run folder holds the docs instructions and every docs check.
    let run = repo
        .join(".helix-gate/approvals")
        .join(doc["approval_id"].as_str().unwrap());
    let claude_md = std::fs::read_to_string(run.join("CLAUDE.md")).unwrap();
    assert!(
        claude_md.starts_with("# Approval: documentation review"),
        "{claude_md}"
    );
    let mut checks: Vec<String> = std::fs::read_dir(run.join("checks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    checks.sort();
    assert_eq!(checks, ["completeness.md", "consistency.md", "examples.md"]);
    // The same content again: the cache answers, no second run.
    let out = helix_with_stub(
        &repo,
        &stub,
        &["approve", "--type", "docs", "docs/guide.md"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(reviewer_runs(&stub), 1);
}

#[test]
fn a_broken_approvals_config_is_reproduced_by_the_command_the_hint_names() {
    let repo = ScratchRepo::with_adr();
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    retry_on_failur: true\n",
    );
    repo.write(ADR, crate::support::cli::good_adr() + "\nMore.\n");
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("unknown field `retry_on_failur`"), "{err}");
    assert!(
        err.contains("(`helix-gate doctor` shows the same error)"),
        "{err}"
    );
    let doctor = repo.helix(&["doctor"]);
    assert_eq!(code(&doctor), 2, "{}", stderr(&doctor));
    assert!(
        stderr(&doctor).contains("unknown field `retry_on_failur`"),
        "{}",
        stderr(&doctor)
    );
}

// ------------------------------------------------------------------ finalize and approval

/// A repository whose commits need an approved review (`required_on_commit`),
/// with the git hook installed, INDEX.md in step, and a draft in `output/`.
fn repo_with_draft(stub_result: &str) -> (ScratchRepo, PathBuf) {
    let repo = ScratchRepo::with_adr();
    repo.write(
        "config/approvals.yaml",
        "commit:\n  required_on_commit: true\n",
    );
    assert_eq!(code(&repo.helix(&["index", "--write"])), 0);
    let out = repo.helix(&["install", "git"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "setup"]);
    let draft = crate::support::cli::good_adr()
        .replace(
            "title: \"Cache parsed rules between hook calls\"",
            "title: \"Second decision\"",
        )
        .replace("adr_id: \"001\"", "adr_id: \"001\"  # from the template");
    repo.write("output/ADR-second.md", draft);
    let stub = counting_reviewer(&repo.base().join("stub"), stub_result, false);
    (repo, stub)
}

#[test]
fn a_finalized_approved_draft_commits_without_a_new_review() {
    let (repo, stub) = repo_with_draft(&approved());
    let out = helix_with_stub(&repo, &stub, &["approve", "output/ADR-second.md"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(reviewer_runs(&stub), 1);

    let out = helix_with_stub(&repo, &stub, &["finalize", "output/ADR-second.md"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out)
            .contains("ADR-002 finalized: output/ADR-second.md -> adr/002-second-decision.md"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("of the draft carried over to adr/002-second-decision.md (finalize changed only adr_id, the file name and INDEX.md)"),
        "{}",
        stderr(&out)
    );
    assert!(
        repo.read("adr/002-second-decision.md")
            .unwrap()
            .contains("adr_id: \"002\"")
    );

    // A real commit through the installed hook: the finalized content counts as
    // approved, and nobody started a reviewer for it.
    repo.git(&["add", "-A"]);
    let commit = repo.git_out(&["commit", "-q", "-m", "ADR-002"]);
    assert!(
        commit.status.success(),
        "{}{}",
        stdout(&commit),
        stderr(&commit)
    );
    assert_eq!(reviewer_runs(&stub), 1);

    // Control: a hand edit of adr_id is not finalize's and needs a review.
    repo.write(
        "adr/002-second-decision.md",
        repo.read("adr/002-second-decision.md")
            .unwrap()
            .replace("adr_id: \"002\"", "adr_id: \"003\""),
    );
    repo.git(&[
        "mv",
        "adr/002-second-decision.md",
        "adr/003-second-decision.md",
    ]);
    assert_eq!(code(&repo.helix(&["index", "--write"])), 0);
    repo.git(&["add", "-A"]);
    let commit = repo.git_out(&["commit", "-q", "-m", "renumbered by hand"]);
    assert!(!commit.status.success());
    assert!(
        stderr(&commit).contains("lacks an approved review of the staged content"),
        "{}",
        stderr(&commit)
    );
}

#[test]
fn a_rejected_draft_is_not_finalized_unless_forced() {
    let rejected = canned_result(&json!({"result": "rejected", "confidence": 0.9,
        "findings": [{"severity": "error", "check": "migration", "message": "no rollback"}],
        "recommendations": ["Add a rollback plan."]}));
    let (repo, stub) = repo_with_draft(&rejected);
    let out = helix_with_stub(&repo, &stub, &["approve", "output/ADR-second.md"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));

    for args in [
        &["finalize", "output/ADR-second.md"][..],
        &["finalize", "--dry-run", "output/ADR-second.md"],
    ] {
        let out = helix_with_stub(&repo, &stub, args);
        assert_eq!(code(&out), 1, "{args:?}: {}{}", stdout(&out), stderr(&out));
        let err = stderr(&out);
        assert!(
            err.starts_with("helix-gate: error: finalize refused: the latest review of this content of output/ADR-second.md is rejected (approval "),
            "{err}"
        );
        assert!(
            err.ends_with("; nothing was moved. Fix the findings and run `helix-gate approve output/ADR-second.md` again, or finalize anyway with --force\n"),
            "{err}"
        );
        assert!(repo.join("output/ADR-second.md").is_file());
    }

    // A changed draft has no verdict yet: finalize is not refused for the old one.
    let draft = repo.read("output/ADR-second.md").unwrap();
    repo.write(
        "output/ADR-second.md",
        draft.clone() + "\nRollback: revert the commit.\n",
    );
    let out = helix_with_stub(
        &repo,
        &stub,
        &["finalize", "--dry-run", "output/ADR-second.md"],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    repo.write("output/ADR-second.md", draft);

    let out = helix_with_stub(
        &repo,
        &stub,
        &["finalize", "--force", "output/ADR-second.md"],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("helix-gate: note: finalizing although the latest review of this content of output/ADR-second.md is rejected (approval "),
        "{}",
        stderr(&out)
    );
    assert!(!stderr(&out).contains("carried over"), "{}", stderr(&out));
    assert!(repo.join("adr/002-second-decision.md").is_file());
    assert_eq!(reviewer_runs(&stub), 1);
}

// ------------------------------------------------------------------ numbers: stats and --override

fn stub_env(repo: &ScratchRepo, stub: &Path, session: Option<&str>, args: &[&str]) -> Output {
    let path = std::env::join_paths(std::iter::once(stub.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let mut cmd = in_repo(bin(), repo.path());
    cmd.env("PATH", path).args(args);
    if let Some(session) = session {
        cmd.env("CLAUDE_CODE_SESSION_ID", session);
    }
    bounded(&mut cmd, TIME_LIMIT)
}

fn stats_json(repo: &ScratchRepo) -> serde_json::Value {
    let out = repo.helix(&["stats", "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn override_records_a_judgement_that_stats_counts_and_finalize_respects() {
    let rejected = canned_result(&json!({"result": "rejected", "confidence": 0.9,
        "findings": [{"severity": "error", "check": "conflicts", "message": "contradicts ADR-000"}],
        "recommendations": []}));
    let (repo, stub) = repo_with_draft(&rejected);
    let draft = "output/ADR-second.md";

    // Nothing reviewed yet: nothing to judge.
    let out = repo.helix(&[
        "approve",
        "--override",
        draft,
        "approved",
        "--reason",
        "fine",
    ]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no verdict of type `adr` is recorded for the current content of output/ADR-second.md; run `helix-gate approve output/ADR-second.md` first"),
        "{}",
        stderr(&out)
    );

    let out = stub_env(&repo, &stub, Some("session-a"), &["approve", draft]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let stats = stats_json(&repo);
    let reviewer = &stats["reviewer"];
    assert_eq!(reviewer["sessions"][0]["name"], "session-a", "{stats:#}");
    assert_eq!(reviewer["sessions"][0]["reviews"], 1);
    assert_eq!(reviewer["sessions"][0]["rejected"], 1);
    assert_eq!(reviewer["files"][0]["name"], draft);
    assert_eq!(reviewer["judgements"]["judged"], 0);

    // Usage: a judgement needs a reason, and is approved or rejected.
    let out = repo.helix(&["approve", "--override", draft, "approved"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--reason"), "{}", stderr(&out));
    let out = repo.helix(&["approve", "--override", draft, "maybe", "--reason", "x"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`approved` or `rejected`, not `maybe`"),
        "{}",
        stderr(&out)
    );
    let out = repo.helix(&["approve", "--override", draft, "approved", "--reason", "  "]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));

    // A person approves what the reviewer rejected: a false positive.
    let out = repo.helix(&[
        "approve",
        "--override",
        draft,
        "approved",
        "--reason",
        "ADR-000 was superseded last week",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("recorded: a person judged approved for output/ADR-second.md (approval "),
        "{text}"
    );
    assert!(
        text.contains(" said rejected): false positive; see `helix-gate stats`\n"),
        "{text}"
    );
    let judgements = &stats_json(&repo)["reviewer"]["judgements"];
    assert_eq!(judgements["false_positives"], 1, "{judgements:#}");
    assert_eq!(judgements["judged_rejections"], 1);
    assert_eq!(judgements["false_positive_rate"], 1.0);
    assert_eq!(judgements["false_negative_rate"], serde_json::Value::Null);
    let human = stdout(&repo.helix(&["stats"]));
    assert!(
        human.contains("  false positives (the reviewer did not approve, a person did): 1 of 1 judged rejections (100.0%, target < 5%: missed)\n"),
        "{human}"
    );

    // The person's judgement counts for finalize, without a new review.
    let out = stub_env(&repo, &stub, None, &["finalize", draft]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(reviewer_runs(&stub), 1);
}

/// An approvals history with lines of every shape, one of them written before
/// content hashes and sessions were recorded.
const HISTORY: &str = r#"{"event":"approval","approval_id":"a1","timestamp":"2026-11-01T10:00:00Z","approval_type":"adr","files":[{"path":"adr/001-a.md","run":1}],"result":"rejected","confidence":0.9,"stage":"reviewer","duration_seconds":42.0,"cost_usd":0.12,"tokens_used":900,"errors":1,"warnings":0}
{"event":"approval","approval_id":"a2","timestamp":"2026-11-01T10:05:00Z","approval_type":"adr","files":[{"path":"adr/001-a.md","run":2}],"result":"approved","confidence":0.95,"stage":"reviewer","duration_seconds":20.5,"cost_usd":0.08,"tokens_used":700,"errors":0,"warnings":0,"contents":["aa"],"session":"0b6f2a4e-session-one"}
{"event":"approval","approval_id":"a2","timestamp":"2026-11-01T10:06:00Z","approval_type":"adr","files":[{"path":"adr/001-a.md","run":3}],"result":"approved","confidence":0.95,"stage":"cache","duration_seconds":0.01,"cost_usd":0.0,"tokens_used":0,"errors":0,"warnings":0,"contents":["aa"],"session":"0b6f2a4e-session-one"}
{"event":"approval","approval_id":"a3","timestamp":"2026-11-01T11:00:00Z","approval_type":"adr","files":[{"path":"adr/002-b.md","run":1}],"result":"needs_revision","confidence":0.6,"stage":"reviewer","duration_seconds":75.0,"cost_usd":0.41,"tokens_used":2000,"errors":1,"warnings":2,"contents":["bb"],"session":"77c1d9e0-session-two"}
{"event":"approval","approval_id":"a4","timestamp":"2026-11-01T11:01:00Z","approval_type":"adr","files":[{"path":"adr/003-c.md","run":1}],"result":"rejected","confidence":1.0,"stage":"deterministic","duration_seconds":0.002,"cost_usd":0.0,"tokens_used":0,"errors":2,"warnings":0,"contents":["cc"],"session":"77c1d9e0-session-two"}
{"event":"escalation","timestamp":"2026-11-01T11:30:00Z","approval_type":"adr","files":["adr/002-b.md"],"attempts":3}
{"event":"judgement","timestamp":"2026-11-02T09:00:00Z","approval_type":"adr","file":"adr/002-b.md","content":"bb","approval_id":"a3","verdict":"needs_revision","judgement":"approved","reason":"the migration is in ADR-004"}
{"event":"judgement","timestamp":"2026-11-02T09:10:00Z","approval_type":"adr","file":"adr/001-a.md","content":"aa","approval_id":"a2","verdict":"approved","judgement":"approved","reason":"right"}
"#;

#[test]
fn stats_shows_numbers_per_file_and_session_beside_the_targets() {
    let repo = ScratchRepo::empty();
    repo.write(".helix-gate/approvals.jsonl", HISTORY);
    for (name, args) in [
        ("stats_reviewer_numbers_human", &["stats"][..]),
        (
            "stats_reviewer_numbers_json",
            &["stats", "--format", "json"],
        ),
    ] {
        let out = repo.helix(args);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        assert_eq!(stderr(&out), "");
        insta::assert_snapshot!(name, stdout(&out));
    }
}

/// The same with the real Claude Code client as the reviewer, against the fake
/// Messages API: the fake server sees the one review of the draft, and no
/// request for the finalized file, which commits with `required_on_commit`.
#[test]
fn e2e_a_finalized_draft_approved_by_claude_commits_without_a_new_request() {
    use crate::support::claude::require_claude;
    use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
    let Some(claude) = require_claude() else {
        return;
    };
    let repo = crate::approval::project();
    let command = serde_json::to_string(&claude.to_string_lossy()).unwrap();
    repo.write(
        "config/approvals.yaml",
        format!(
            "defaults:\n  command: {command}\n  timeout: 120\ncommit:\n  required_on_commit: true\n"
        ),
    );
    let git = |args: &[&str]| repo.git(args);
    git(&["add", "-A"]);
    git(&["commit", "-q", "--no-verify", "-m", "ADR-001"]);
    let draft = crate::support::cli::good_adr().replace(
        "title: \"Cache parsed rules between hook calls\"",
        "title: \"Second decision\"",
    );
    repo.write("output/ADR-second.md", draft);
    let api = FakeApi::start(|_: &RecordedRequest, _: &Conversation| {
        Turn::structured_output(crate::approval::approved(0.93))
    });
    let (status, doc) =
        crate::approval::approve_json(repo.path(), Some(&api), &["output/ADR-second.md"]);
    assert_eq!(status, 0, "{doc:#}");
    let requests = api.requests().len();
    assert!(requests >= 1);

    let helix = |args: &[&str]| repo.helix(args);
    assert_eq!(code(&helix(&["index", "--write"])), 0);
    let out = helix(&["finalize", "output/ADR-second.md"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("carried over to adr/002-second-decision.md"),
        "{}",
        stderr(&out)
    );
    git(&["add", "-A"]);
    let out = helix(&["pre-commit"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(api.requests().len(), requests, "no new review");
}

/// `args` (an `approve --override`) from inside an agent's session exits 2 and
/// names the variable that gave the session away.
fn assert_refused_in_agent_sessions(repo: &ScratchRepo, override_args: &[&str]) {
    for var in [
        "CLAUDECODE",
        "GEMINI_CLI",
        "CODEX_SANDBOX",
        "HELIX_GATE_CHILD",
    ] {
        let out = bounded(
            in_repo(bin(), repo.path())
                .env(var, "1")
                .args(override_args),
            TIME_LIMIT,
        );
        assert_eq!(code(&out), 2, "{var}: {}{}", stdout(&out), stderr(&out));
        assert!(
            stderr(&out).contains(&format!("{var} is set")) && stderr(&out).contains("a person"),
            "{}",
            stderr(&out)
        );
    }
}

/// Seed 001's `escalate`: a person decides. A person's `approve --override FILE
/// approved` after the reviewer refused counts as an approval of exactly that
/// content: for the commit with `required_on_commit`, for `approve` itself, and,
/// with `--out`, as a signed override result that `approval_passed` accepts. An
/// agent session may not record one; a later edit needs a review again.
#[test]
fn a_persons_override_approves_that_content_for_commit_gate_and_history() {
    let rejected = canned_result(&json!({"result": "rejected", "confidence": 0.9,
        "findings": [{"severity": "error", "check": "conflicts", "message": "contradicts ADR-000"}],
        "recommendations": []}));
    let (repo, stub) = repo_with_draft(&rejected);
    let draft = "output/ADR-second.md";
    // Its own number, so that only the approval can block its commit.
    let text = repo
        .read(draft)
        .unwrap()
        .replace(r#"adr_id: "001""#, r#"adr_id: "002""#);
    repo.write(draft, text);
    let out = stub_env(&repo, &stub, None, &["approve", draft]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    repo.git(&["add", draft]);
    let commit = repo.git_out(&["commit", "-q", "-m", "draft"]);
    assert!(!commit.status.success(), "{}", stderr(&commit));
    assert!(
        stderr(&commit).contains("approval-required"),
        "{}",
        stderr(&commit)
    );
    assert!(
        !stderr(&commit).contains("adr-id-duplicate"),
        "{}",
        stderr(&commit)
    );

    // From inside an agent's session (its Bash tool, a hook, the reviewer): refused.
    let override_args = [
        "approve",
        "--override",
        draft,
        "approved",
        "--reason",
        "ADR-000 was superseded",
    ];
    assert_refused_in_agent_sessions(&repo, &override_args);
    assert!(
        !repo
            .read(".helix-gate/approvals.jsonl")
            .unwrap()
            .contains("judgement")
    );

    // A person overrides, with a signed result for a phase gate.
    let result = "results/approval-result.json";
    let out = repo.helix(&[&override_args[..], &["--out", result]].concat());
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out).contains("a person's override approves this content of output/ADR-second.md"),
        "{}",
        stdout(&out)
    );
    let written: serde_json::Value = serde_json::from_str(&repo.read(result).unwrap()).unwrap();
    assert_eq!(written["result"], "approved", "{written:#}");
    assert_eq!(written["stage"], "override", "{written:#}");
    assert_eq!(written["override"]["reason"], "ADR-000 was superseded");
    assert_eq!(written["override"]["overridden_result"], "rejected");
    assert!(written["signature"]["sig"].is_string(), "{written:#}");
    let gate = [
        "gate",
        "approval_passed",
        "--result-file",
        result,
        "--files",
        draft,
    ];
    let out = repo.helix(&gate);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));

    // The commit through the installed hook, and `approve`, count it as approved.
    let out = stub_env(&repo, &stub, None, &["approve", draft]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(reviewer_runs(&stub), 1);
    let commit = repo.git_out(&["commit", "-q", "-m", "draft"]);
    assert!(commit.status.success(), "{}", stderr(&commit));

    // Shown as an override in the history, stats and the report.
    let history = repo.read(".helix-gate/approvals.jsonl").unwrap();
    assert!(history.contains(r#""override":true"#), "{history}");
    let stats = stats_json(&repo);
    assert_eq!(stats["approvals"]["overrides"], 1, "{stats:#}");
    let human = stdout(&repo.helix(&["stats"]));
    assert!(human.contains("person overrides 1"), "{human}");
    let out = repo.helix(&["report", "--out", "-"]);
    assert!(stdout(&out).contains("person override"), "{}", stderr(&out));

    // A later edit needs a review again: the result is stale, the commit refused.
    repo.write(
        draft,
        repo.read(draft).unwrap() + "\nEdited after the override.\n",
    );
    let out = repo.helix(&gate);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    repo.git(&["add", draft]);
    let commit = repo.git_out(&["commit", "-q", "-m", "edited"]);
    assert!(!commit.status.success(), "{}", stderr(&commit));
    assert!(
        stderr(&commit).contains("approval-required"),
        "{}",
        stderr(&commit)
    );
}

/// Point 4 end to end with the real Claude Code client against the fake Messages
/// API: after the reviewer refused the draft, the model's Bash tool tries `helix-gate
/// approve --override` and is refused (Claude Code sets `CLAUDECODE=1` for it), nothing
/// is recorded and the commit stays blocked; the person's own override then lets the
/// commit through the installed pre-commit hook.
#[test]
fn e2e_the_models_override_is_refused_and_the_persons_counts() {
    use crate::support::claude::{ClaudeRun, require_claude};
    use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, RequestKind, Turn};
    let Some(claude) = require_claude() else {
        return;
    };
    let rejected = canned_result(&json!({"result": "rejected", "confidence": 0.9,
        "findings": [{"severity": "error", "check": "conflicts", "message": "contradicts ADR-000"}],
        "recommendations": []}));
    let (repo, stub) = repo_with_draft(&rejected);
    let draft = "output/ADR-second.md";
    let text = repo
        .read(draft)
        .unwrap()
        .replace(r#"adr_id: "001""#, r#"adr_id: "002""#);
    repo.write(draft, text);
    let out = stub_env(&repo, &stub, None, &["approve", draft]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));

    let command =
        format!("helix-gate approve --override {draft} approved --reason 'the reviewer is wrong'");
    let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
        if conv.assistant_turns() == 0 {
            Turn::text("I approve it myself.").with_tool(
                "Bash",
                json!({"command": command, "description": "Override the review"}),
            )
        } else {
            Turn::text("The override was refused; a person has to decide.")
        }
    });
    let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Get the ADR approved")
        .path_prepend(Path::new(bin()).parent().unwrap())
        .env("HELIX_GATE_STATE_DIR", repo.state_dir())
        .run();
    outcome.assert_success();
    let results: Vec<_> = api
        .main_requests()
        .iter()
        .filter(|r| r.kind() == RequestKind::Main)
        .flat_map(RecordedRequest::tool_results)
        .collect();
    assert_eq!(results.len(), 1, "{}", outcome.describe());
    assert!(
        results[0]
            .content
            .contains("refused inside an agent's session (CLAUDECODE is set)"),
        "{:?}",
        results[0]
    );
    let history = repo.read(".helix-gate/approvals.jsonl").unwrap();
    assert!(!history.contains("judgement"), "{history}");
    repo.git(&["add", draft]);
    let commit = repo.git_out(&["commit", "-q", "-m", "draft"]);
    assert!(!commit.status.success(), "{}", stderr(&commit));

    // The person, in their own terminal.
    let out = repo.helix(&[
        "approve",
        "--override",
        draft,
        "approved",
        "--reason",
        "ADR-000 was superseded",
    ]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let commit = repo.git_out(&["commit", "-q", "-m", "draft"]);
    assert!(commit.status.success(), "{}", stderr(&commit));
    assert_eq!(reviewer_runs(&stub), 1);
}
