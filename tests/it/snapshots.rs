//! Snapshot tests (insta) that pin the full text of every user-visible output: what
//! `validate`, `rules`/`explain`, the ADR-directory commands, `pre-commit`, the Claude Code
//! hook, `approve`, `log` and `stats` print, with their exit codes.
//!
//! The other test modules assert the parts that matter for behaviour; these tests exist so
//! that a refactor which moves renderers and printing around provably keeps every byte.
//! Each snapshot is one command's transcript (exit code, stdout, stderr). Inputs are fixed
//! and run in temp dirs or temp git repositories; what still varies from run to run (the
//! temp dir, times, durations, approval run ids) is replaced by insta filters.
//!
//! Snapshots are generated, never edited: `INSTA_UPDATE=always cargo test --test it
//! snapshots`, then read the changed `.snap` files before committing them.

use std::fmt::Write as _;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};

use crate::support::cli::{
    bin, code, good_adr, isolated, manifest_dir, scratch_repo, stderr, stdout, write,
};
use crate::support::hook::Hook;
use crate::support::repo::ScratchRepo;

// ------------------------------------------------------------------ harness

/// helix-gate in `cwd` with an environment that cannot change its output ([`isolated`]).
fn helix(cwd: &Path, args: &[&str]) -> Command {
    let mut cmd = isolated(bin(), cwd);
    cmd.args(args);
    cmd
}

fn run(cwd: &Path, args: &[&str]) -> Output {
    helix(cwd, args).output().expect("run helix-gate")
}

/// Exit code, stdout and stderr as one snapshot text. A stream that does not end with a
/// newline is marked, because insta trims the end of a snapshot.
fn transcript(out: &Output) -> String {
    let mut text = format!("exit: {}\n", code(out));
    section(&mut text, "stdout", &stdout(out));
    section(&mut text, "stderr", &stderr(out));
    text
}

fn section(text: &mut String, name: &str, body: &str) {
    if body.is_empty() {
        let _ = writeln!(text, "--- {name}: empty");
        return;
    }
    let _ = write!(text, "--- {name}\n{body}");
    if !body.ends_with('\n') {
        text.push_str("\n[no newline at end]\n");
    }
}

/// The filters for outputs produced under `root`: the temp dir and every value that
/// depends on the clock or the process.
fn settings(root: &Path) -> insta::Settings {
    let mut settings = insta::Settings::clone_current();
    let mut roots = vec![root.to_path_buf()];
    if let Ok(canonical) = root.canonicalize() {
        roots.push(canonical);
    }
    // Longest first, so a root that contains the other is replaced whole.
    roots.sort_by_key(|r| std::cmp::Reverse(r.as_os_str().len()));
    roots.dedup();
    for r in &roots {
        settings.add_filter(&regex::escape(&r.to_string_lossy()), "[ROOT]");
    }
    // Approval run ids: `<UTC time>-<pid>-<counter><nanos>`.
    settings.add_filter(r"\d{8}T\d{6}Z-[0-9a-f]+-[0-9a-f]{8}", "[RUN_ID]");
    settings.add_filter(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z", "[TIME]");
    // Measured durations (JSON fields and their human forms).
    settings.add_filter(
        r#""(duration_us|p50_us|p95_us)": ?\d+"#,
        r#""$1": "[DURATION]""#,
    );
    settings.add_filter(
        r#""(duration_seconds|median_duration_seconds|p50_duration_seconds|p95_duration_seconds)": ?[0-9][0-9.eE+-]*"#,
        r#""$1": "[DURATION]""#,
    );
    settings.add_filter(r"p(50|95) \d+\.\d\d ms", "p$1 [DURATION] ms");
    settings.add_filter(r"\b\d+\.\d s\b", "[DURATION] s");
    settings
}

/// Assert the snapshot `name` with the filters for `root`.
fn check(name: &str, root: &Path, text: &str) {
    settings(root).bind(|| insta::assert_snapshot!(name, text));
}

/// Run helix-gate in `root` and check the transcript against the snapshot `name`.
pub(crate) fn check_run(name: &str, root: &Path, args: &[&str]) -> Output {
    let out = run(root, args);
    check(name, root, &transcript(&out));
    out
}

/// [`check_run`] with an empty temporary HOME: `doctor` reports the hook's
/// registration in `~/.claude/settings.json` and `~/.codex/`, which must not be
/// the developer's.
fn check_run_home(name: &str, root: &Path, args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    let out = helix(root, args).env("HOME", home.path()).output().unwrap();
    check(name, root, &transcript(&out));
    out
}

// ------------------------------------------------------------------ inputs

/// The good fixture with its "Dokumentation" section renamed: one error.
fn bad_adr() -> String {
    good_adr().replace("## Dokumentation", "## Notizen")
}

/// The good fixture without its checked acceptance criterion: one warning.
fn warning_adr() -> String {
    good_adr().replace(
        "- [x] The benchmark script reports the median latency of both paths\n",
        "",
    )
}

/// The good fixture with another `adr_id` and title.
fn adr(id: &str, title: &str) -> String {
    good_adr()
        .replace("adr_id: \"001\"", &format!("adr_id: \"{id}\""))
        .replace(
            "title: \"Cache parsed rules between hook calls\"",
            &format!("title: \"{title}\""),
        )
}

/// A draft as the consultant writes it: no `adr_id` yet.
fn draft(title: &str) -> String {
    adr("001", title).replace("adr_id: \"001\"\n", "")
}

/// A scratch repository (not git) holding copies of the fixtures and examples under their
/// own paths, plus the files some of them reference, so the output does not depend on
/// this repository's tree or configuration.
fn fixture_repo() -> tempfile::TempDir {
    let repo = scratch_repo();
    let src = manifest_dir();
    for rel in [
        "tests/fixtures/good/001-minimal-valid.md",
        "tests/fixtures/seeds/015-approval-validation-system.md",
        "tests/fixtures/seeds/025-sub-agent-verifikation.md",
        "examples/adr/001-lazy-rule-loading.md",
        "examples/adr/002-adr-014-case.md",
    ] {
        let text = std::fs::read(src.join(rel)).expect("fixture");
        write(repo.path(), rel, text);
    }
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "README.md", "# readme\n");
    // files.create of ADR-015 names it: a files-create-exists warning.
    write(repo.path(), "approvals/README.md", "# approvals\n");
    repo
}

/// A scratch repository with `src/lib.rs` and an empty `adr/`.
fn adr_repo() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    std::fs::create_dir(repo.path().join("adr")).expect("adr/");
    repo
}

const INDEX: &str = "# ADR Index\n\nAll decisions.\n\n| Nr | Titel | Status | Beschreibung |\n|----|-------|--------|--------------|\n| 001 | [First](001-first.md) | Accepted | the first one |\n\nLegend: Proposed, Accepted.\n";

// ------------------------------------------------------------------ validate

#[test]
fn validate_fixtures_human_and_json() {
    let repo = fixture_repo();
    let args = ["validate", "tests/fixtures", "examples"];
    let out = check_run("validate_fixtures_human", repo.path(), &args);
    assert_eq!(code(&out), 1);
    let out = check_run(
        "validate_fixtures_json",
        repo.path(),
        &[&args[..], &["--format", "json"]].concat(),
    );
    assert_eq!(code(&out), 1);
}

#[test]
fn validate_clean_file_human_and_json() {
    let repo = fixture_repo();
    let file = "tests/fixtures/good/001-minimal-valid.md";
    check_run("validate_clean_human", repo.path(), &["validate", file]);
    check_run(
        "validate_clean_json",
        repo.path(),
        &["validate", file, "--format", "json"],
    );
}

#[test]
fn validate_warnings_and_infos_only_human_and_json() {
    let repo = adr_repo();
    write(repo.path(), "adr/001-minimal-valid.md", warning_adr());
    write(
        repo.path(),
        "concept.md",
        "# Konzept\n## Context\nx\n## Entscheidung\ny\n## Risiken\nkeine\n## Zusammenfassung\nz\n",
    );
    let args = [
        "validate",
        "adr/001-minimal-valid.md",
        "--concept",
        "concept.md",
    ];
    check_run("validate_warnings_infos_human", repo.path(), &args);
    check_run(
        "validate_warnings_infos_json",
        repo.path(),
        &[&args[..], &["--format", "json"]].concat(),
    );
}

#[test]
fn validate_unreadable_contents_human() {
    let repo = scratch_repo();
    write(
        repo.path(),
        "adr/001-latin1.md",
        b"---\nadr_id: 1\n---\n## Kontext \xe4\xf6\xfc\n".as_slice(),
    );
    write(repo.path(), "adr/002-binary.md", b"\0\x01binary".as_slice());
    write(repo.path(), "adr/003-empty.md", "");
    write(repo.path(), "adr/004-list.md", "---\n- a\n- b\n---\n# x\n");
    write(
        repo.path(),
        "adr/005-unclosed.md",
        "---\nadr_id: 1\n## Kontext\n",
    );
    write(repo.path(), "adr/006-no-front-matter.md", "# Title only\n");
    check_run(
        "validate_unreadable_human",
        repo.path(),
        &["validate", "adr"],
    );
}

#[test]
fn validate_errors_on_stderr() {
    let repo = fixture_repo();
    let out = check_run(
        "validate_missing_path",
        repo.path(),
        &["validate", "no/such/file.md"],
    );
    assert_eq!(code(&out), 2);
    write(
        repo.path(),
        "bad-rules.yaml",
        "contextual_rules:\n  - id: broken\n    when: {change_scope: major}\n    require: {content_patterns: [{pattern: '(x'}]}\n    message: m\n",
    );
    let out = check_run(
        "validate_bad_rules_file",
        repo.path(),
        &[
            "validate",
            "tests/fixtures/good/001-minimal-valid.md",
            "--rules",
            "bad-rules.yaml",
        ],
    );
    assert_eq!(code(&out), 2);
}

// ------------------------------------------------------------------ rules and explain

#[test]
fn rules_and_explain() {
    let repo = scratch_repo();
    check_run("rules", repo.path(), &["rules"]);
    check_run(
        "explain_builtin_rule",
        repo.path(),
        &["explain", "files-path-absolute"],
    );
    check_run(
        "explain_contextual_rule",
        repo.path(),
        &["explain", "major-needs-migration"],
    );
    check_run(
        "explain_unknown_rule",
        repo.path(),
        &["explain", "no-such-rule"],
    );
}

#[test]
fn rules_from_the_repository_rules_file() {
    let repo = scratch_repo();
    write(
        repo.path(),
        "config/adr-completeness-rules.yaml",
        "base_rules:\n  required_sections: [Kontext, Sicherheit]\ncontextual_rules:\n  - id: security-needs-threats\n    name: Security changes need a threat model\n    when: {component_type: SECURITY}\n    require: {sections: [{name: Bedrohungen}]}\n    severity: warning\n    message: Sicherheitsänderungen brauchen ein Bedrohungsmodell\n    hint: add \"## Bedrohungen\"\n",
    );
    check_run("rules_repository_file", repo.path(), &["rules"]);
    check_run(
        "explain_repository_rule",
        repo.path(),
        &["explain", "security-needs-threats"],
    );
}

// ------------------------------------------------------------------ ADR directory

#[test]
fn next_number() {
    let repo = adr_repo();
    check_run("next_number_empty", repo.path(), &["next-number"]);
    write(repo.path(), "adr/001-first.md", adr("001", "First"));
    write(repo.path(), "adr/003-third.md", adr("005", "Third"));
    check_run("next_number_taken", repo.path(), &["next-number"]);
    let no_dir = scratch_repo();
    check_run(
        "next_number_no_adr_directory",
        no_dir.path(),
        &["next-number"],
    );
}

#[test]
fn finalize_dry_run_then_real() {
    let repo = adr_repo();
    write(repo.path(), "adr/INDEX.md", INDEX);
    write(repo.path(), "adr/001-first.md", adr("001", "First"));
    write(
        repo.path(),
        "output/ADR-cache.md",
        draft("Cache parsed rules")
            .replace("title:", "adr_id: \"001\"  # from the template\ntitle:"),
    );
    let out = check_run(
        "finalize_dry_run",
        repo.path(),
        &["finalize", "--dry-run", "output/ADR-cache.md"],
    );
    assert_eq!(code(&out), 0);
    let out = check_run(
        "finalize",
        repo.path(),
        &["finalize", "output/ADR-cache.md"],
    );
    assert_eq!(code(&out), 0);
    check_run(
        "finalize_draft_gone",
        repo.path(),
        &["finalize", "output/ADR-cache.md"],
    );
    write(
        repo.path(),
        "output/ADR-bad.md",
        draft("Broken")
            .replace("status: Proposed", "status: Draft")
            .replace("## Kontext", "## Background"),
    );
    let out = check_run(
        "finalize_refused",
        repo.path(),
        &["finalize", "output/ADR-bad.md"],
    );
    assert_eq!(code(&out), 1);
}

#[test]
fn index_check_drifted_write_then_in_step() {
    let repo = adr_repo();
    write(repo.path(), "adr/001-first.md", adr("001", "First"));
    write(
        repo.path(),
        "adr/002-second.md",
        adr("002", "Second").replace("status: Proposed", "status: Accepted"),
    );
    write(repo.path(), "adr/003-third.md", adr("003", "Third"));
    let index = "# Index\n\nIntro.\n\n| Nr | Title | Status | Summary | Owner |\n|---|---|---|---|---|\n\
| 001 | [First](001-first.md) | Proposed | kept summary | ana |\n\
| 002 | [Second, old title](002-second.md) | Proposed | two | bo |\n\
| 004 | [Gone](004-gone.md) | Proposed | deleted | cy |\n\
| 005 | Only a number | Proposed | | |\n\
| 001 | [First again](001-first.md) | Proposed | | |\n\nOutro.\n";
    write(repo.path(), "adr/INDEX.md", index);
    let out = check_run("index_check_drifted", repo.path(), &["index", "--check"]);
    assert_eq!(code(&out), 1);
    let out = check_run("index_write", repo.path(), &["index", "--write"]);
    assert_eq!(code(&out), 0);
    let out = check_run("index_check_in_step", repo.path(), &["index", "--check"]);
    assert_eq!(code(&out), 0);
    check_run("index_write_unchanged", repo.path(), &["index", "--write"]);
}

#[test]
fn index_missing_check_and_write() {
    let repo = adr_repo();
    write(repo.path(), "adr/001-first.md", adr("001", "First"));
    check_run("index_check_missing", repo.path(), &["index", "--check"]);
    check_run("index_write_creates", repo.path(), &["index", "--write"]);
}

#[test]
fn doctor_human_and_json() {
    let repo = adr_repo();
    write(repo.path(), "adr/001-first.md", adr("001", "First"));
    write(
        repo.path(),
        "adr/002-second.md",
        adr("001", "Second")
            .replace("status: Proposed", "status: Superseded")
            .replace(
                "depends_on: []",
                "depends_on: [\"009\"]\nsupersedes: [\"008\"]",
            ),
    );
    write(repo.path(), "adr/005-fifth.md", adr("005", "Fifth"));
    write(repo.path(), "adr/ADR-loose.md", adr("006", "Loose"));
    write(repo.path(), "adr/INDEX.md", INDEX);
    let out = check_run_home("doctor_human", repo.path(), &["doctor"]);
    assert_eq!(code(&out), 1);
    let out = check_run("doctor_json", repo.path(), &["doctor", "--format", "json"]);
    assert_eq!(code(&out), 1);
}

#[test]
fn doctor_healthy_human_and_json() {
    let repo = adr_repo();
    write(repo.path(), "adr/001-first.md", adr("001", "First"));
    write(repo.path(), "adr/002-second.md", adr("002", "Second"));
    assert_eq!(code(&run(repo.path(), &["index", "--write"])), 0);
    check_run_home("doctor_healthy_human", repo.path(), &["doctor"]);
    check_run(
        "doctor_healthy_json",
        repo.path(),
        &["doctor", "--format", "json"],
    );
}

// ------------------------------------------------------------------ pre-commit

const ADR: &str = "adr/001-minimal-valid.md";

/// A git repository with one commit holding the good ADR and the file it references.
fn git_repo() -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write(ADR, good_adr());
    repo.commit_all("base");
    repo
}

fn pre_commit(repo: &ScratchRepo) -> Output {
    run(repo.path(), &["pre-commit"])
}

#[test]
fn pre_commit_clean_errors_and_warnings() {
    let repo = git_repo();
    repo.write(ADR, good_adr() + "\nMore context.\n");
    repo.git(&["add", "-A"]);
    let out = pre_commit(&repo);
    assert_eq!(code(&out), 0);
    check("pre_commit_clean", repo.path(), &transcript(&out));

    repo.write(ADR, bad_adr());
    repo.write("adr/002-süße Entscheidung.md", adr("002", "Zweite"));
    repo.git(&["add", "-A"]);
    let out = pre_commit(&repo);
    assert_eq!(code(&out), 1);
    check("pre_commit_errors", repo.path(), &transcript(&out));

    // What Claude Code sees when its Bash tool runs `git commit`.
    let out = helix(repo.path(), &["pre-commit"])
        .env("CLAUDECODE", "1")
        .output()
        .expect("run helix-gate");
    assert_eq!(code(&out), 1);
    check(
        "pre_commit_errors_claude_code",
        repo.path(),
        &transcript(&out),
    );

    repo.write(ADR, warning_adr());
    repo.write("adr/002-süße Entscheidung.md", adr("001", "Zweite"));
    repo.git(&["add", "-A"]);
    let out = pre_commit(&repo);
    check(
        "pre_commit_duplicate_and_warning",
        repo.path(),
        &transcript(&out),
    );
}

#[test]
fn pre_commit_merge_in_progress_and_unresolved_conflict() {
    let repo = git_repo();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write(
        "adr/002-feature.md",
        bad_adr().replace("\"001\"", "\"002\""),
    );
    repo.write(ADR, good_adr().replace("Every hook call", "Each hook call"));
    repo.commit_all("feature");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("README.md", "main side\n");
    repo.commit_all("main");
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "feature"]);
    let out = pre_commit(&repo);
    assert_eq!(code(&out), 1);
    check(
        "pre_commit_merge_in_progress",
        repo.path(),
        &transcript(&out),
    );
    repo.git(&["merge", "--abort"]);

    repo.write(ADR, good_adr().replace("Every hook call", "All hook calls"));
    repo.commit_all("main again");
    let merge = crate::support::repo::git_command(repo.path())
        .args(["merge", "-q", "feature"])
        .output()
        .expect("git merge");
    assert!(!merge.status.success(), "the merge must conflict");
    let out = pre_commit(&repo);
    assert_eq!(code(&out), 1);
    check(
        "pre_commit_unresolved_conflict",
        repo.path(),
        &transcript(&out),
    );
}

#[test]
fn pre_commit_required_approval_missing() {
    let repo = git_repo();
    repo.write(
        "config/approvals.yaml",
        "commit:\n  required_on_commit: true\n",
    );
    repo.write(ADR, good_adr() + "\nMore.\n");
    repo.git(&["add", "-A"]);
    let out = pre_commit(&repo);
    assert_eq!(code(&out), 1);
    check("pre_commit_unapproved", repo.path(), &transcript(&out));
}

#[test]
#[cfg(unix)]
fn pre_commit_skipped_entries_and_infrastructure_error() {
    let repo = git_repo();
    let head = repo.git(&["rev-parse", "HEAD"]);
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{},adr/003-vendored.md", head.trim()),
    ]);
    std::os::unix::fs::symlink("001-minimal-valid.md", repo.join("adr/004-link.md"))
        .expect("symlink");
    repo.git(&["add", "adr/004-link.md"]);
    let out = pre_commit(&repo);
    // The submodule is skipped; the link is checked as the file it leads to (a second ADR 001).
    assert_eq!(code(&out), 1);
    check("pre_commit_skipped_entries", repo.path(), &transcript(&out));

    repo.write("config/helix-gate.yaml", "adr: {globs: ['[']}\n");
    let out = pre_commit(&repo);
    assert_eq!(code(&out), 2);
    check("pre_commit_invalid_config", repo.path(), &transcript(&out));
}

// ------------------------------------------------------------------ hook

/// Turns the reviewer off: the hook snapshots are about the deterministic gate.
const NO_APPROVAL: &str = "approvals:\n  adr:\n    enabled: false\n";

fn hook_project() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "config/approvals.yaml", NO_APPROVAL);
    repo
}

/// The hook's answer to `stdin` in `root` (as `CLAUDE_PROJECT_DIR`): exit code, the one JSON
/// object of stdout shown pretty (after checking that stdout is exactly its compact form on
/// one line, so nothing is lost by showing it pretty), and stderr.
fn hook_transcript(root: &Path, stdin: &[u8]) -> String {
    let run = Hook::new(root).stdin(stdin);
    let raw = run.stdout;
    let mut text = format!("exit: {}\n", run.code);
    if raw.is_empty() {
        text.push_str("--- stdout: empty\n");
    } else {
        let answer: Value = serde_json::from_str(&raw).expect("stdout is one JSON object");
        assert_eq!(
            raw,
            format!("{answer}\n"),
            "stdout must be one compact JSON line"
        );
        text.push_str("--- stdout (one JSON line, shown pretty)\n");
        text.push_str(&serde_json::to_string_pretty(&answer).expect("pretty"));
        text.push('\n');
    }
    section(&mut text, "stderr", &run.stderr);
    text
}

fn check_hook(name: &str, root: &Path, event: &Value) {
    let text = hook_transcript(root, format!("{event}\n").as_bytes());
    check(name, root, &text);
}

fn post_write(root: &Path, session: &str, rel: &str) -> Value {
    json!({"session_id": session, "transcript_path": "t", "cwd": root, "hook_event_name": "PostToolUse",
           "tool_name": "Write", "tool_input": {"file_path": root.join(rel), "content": "…"},
           "tool_response": {"type": "create"}, "tool_use_id": "toolu_1", "duration_ms": 3})
}

fn stop(session: &str, last: &str) -> Value {
    json!({"session_id": session, "hook_event_name": "Stop", "stop_hook_active": false,
           "last_assistant_message": last, "background_tasks": [], "session_crons": []})
}

#[test]
fn hook_post_tool_use_answers() {
    let root = hook_project();
    let dir = root.path();
    write(dir, "adr/001-x.md", bad_adr());
    check_hook(
        "hook_post_tool_use_bad_adr",
        dir,
        &post_write(dir, "s", "adr/001-x.md"),
    );
    write(dir, "adr/001-x.md", warning_adr());
    check_hook(
        "hook_post_tool_use_warnings",
        dir,
        &post_write(dir, "s", "adr/001-x.md"),
    );
    write(dir, "adr/001-x.md", good_adr());
    check_hook(
        "hook_post_tool_use_good_adr",
        dir,
        &post_write(dir, "s", "adr/001-x.md"),
    );
    write(dir, "src/main.rs", "fn main() {}\n");
    check_hook(
        "hook_post_tool_use_non_adr",
        dir,
        &post_write(dir, "s", "src/main.rs"),
    );
}

#[test]
fn hook_budget_spent_escalates() {
    let root = hook_project();
    let dir = root.path();
    write(dir, "adr/001-x.md", bad_adr());
    for _ in 0..3 {
        hook_transcript(
            dir,
            post_write(dir, "s", "adr/001-x.md").to_string().as_bytes(),
        );
    }
    check_hook(
        "hook_budget_spent_escalation",
        dir,
        &post_write(dir, "s", "adr/001-x.md"),
    );
    check_hook(
        "hook_budget_spent_again",
        dir,
        &post_write(dir, "s", "adr/001-x.md"),
    );
}

#[test]
fn hook_stop_answers() {
    let root = hook_project();
    let dir = root.path();
    write(dir, "adr/001-x.md", good_adr());
    hook_transcript(
        dir,
        post_write(dir, "s", "adr/001-x.md").to_string().as_bytes(),
    );
    write(dir, "adr/001-x.md", bad_adr());
    check_hook("hook_stop_touched_bad_adr", dir, &stop("s", "done"));

    write(dir, "adr/001-x.md", good_adr());
    write(
        dir,
        "config/helix-gate.yaml",
        "step_marker: {enabled: true, paths: []}\n",
    );
    write(dir, "output/response.md", "Antwort an den User.\n");
    check_hook(
        "hook_stop_step_marker_present",
        dir,
        &stop("s", "Answer.\n\n<!-- STEP: what -->"),
    );
    check_hook(
        "hook_stop_step_marker_not_at_end",
        dir,
        &stop("s", "<!-- STEP: what -->\nAnswer after the marker."),
    );
    check_hook(
        "hook_stop_step_marker_missing",
        dir,
        &stop("s", "Was meinst du?"),
    );
    hook_transcript(dir, stop("s", "Was meinst du?").to_string().as_bytes());
    check_hook(
        "hook_stop_step_marker_fallback",
        dir,
        &stop("s", "Was meinst du?"),
    );
}

#[test]
fn hook_session_start_context() {
    let root = hook_project();
    check_hook(
        "hook_session_start",
        root.path(),
        &json!({"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"}),
    );
}

#[test]
fn hook_malformed_stdin_and_infrastructure_errors() {
    let root = hook_project();
    let dir = root.path();
    let text = hook_transcript(dir, b"not json\n");
    check("hook_malformed_stdin", dir, &text);
    let text = hook_transcript(dir, b"");
    check("hook_empty_stdin", dir, &text);

    write(dir, "adr/001-x.md", bad_adr());
    write(dir, "config/helix-gate.yaml", "hook: {budgett: 3}\n");
    check_hook(
        "hook_invalid_config_fails_open",
        dir,
        &post_write(dir, "s", "adr/001-x.md"),
    );
    write(dir, "config/helix-gate.yaml", "hook: {fail_closed: true}\n");
    // A file where the state directory should be.
    let _ = std::fs::remove_dir_all(dir.join(".helix-gate"));
    write(dir, ".helix-gate", "not a directory");
    check_hook(
        "hook_state_unusable_fails_closed",
        dir,
        &post_write(dir, "s", "adr/001-x.md"),
    );
}

// ------------------------------------------------------------------ log and stats

#[test]
fn log_and_stats_after_hook_decisions() {
    let root = hook_project();
    let dir = root.path();
    write(dir, "adr/001-x.md", bad_adr());
    hook_transcript(
        dir,
        post_write(dir, "s", "adr/001-x.md").to_string().as_bytes(),
    );
    write(dir, "adr/001-x.md", warning_adr());
    hook_transcript(
        dir,
        post_write(dir, "s", "adr/001-x.md").to_string().as_bytes(),
    );
    write(dir, "adr/001-x.md", good_adr());
    hook_transcript(
        dir,
        post_write(dir, "session-two", "adr/001-x.md")
            .to_string()
            .as_bytes(),
    );
    check_run("log_tail_default", dir, &["log", "--tail"]);
    check_run("log_tail_1", dir, &["log", "--tail", "1"]);
    check_run("stats_hook_human", dir, &["stats"]);
    check_run("stats_hook_json", dir, &["stats", "--format", "json"]);
}

#[test]
fn log_and_stats_without_any_decision() {
    let root = hook_project();
    check_run("log_empty", root.path(), &["log"]);
    check_run("stats_empty_human", root.path(), &["stats"]);
}

// ------------------------------------------------------------------ approve

const APPROVE_ADR: &str = "adr/001-cache-rules.md";

/// A git repository with a passing ADR and a stub reviewer that prints the canned
/// `claude -p --output-format json` result in `fake/result.json`.
fn approve_project() -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "pub fn rules_are_loaded_lazily() {}\n");
    repo.write(APPROVE_ADR, good_adr());
    repo.write_executable(
        "fake/reviewer.sh",
        format!(
            "#!/bin/sh\ncat '{}'\n",
            repo.join("fake/result.json").display()
        ),
    );
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\n  timeout: 30\n",
    );
    repo
}

fn reviewer_says(repo: &ScratchRepo, structured: &Value) {
    let result = json!({"type": "result", "subtype": "success", "is_error": false,
        "total_cost_usd": 0.01, "usage": {"input_tokens": 10, "output_tokens": 5},
        "modelUsage": {"claude-fake": {}}, "structured_output": structured});
    repo.write("fake/result.json", result.to_string());
}

fn approve(repo: &ScratchRepo, name: &str, args: &[&str]) -> Output {
    // A scratch HOME: nothing of the developer's own setup leaks in.
    let home = tempfile::tempdir().expect("home");
    let out = helix(repo.path(), &[&["approve"][..], args].concat())
        .env("HOME", home.path())
        // The cache's signing key: one per repository, kept in its .git.
        .env("HELIX_GATE_STATE_DIR", repo.state_dir())
        .output()
        .expect("run helix-gate approve");
    check(name, repo.path(), &transcript(&out));
    out
}

#[test]
fn approve_approved_then_cached_human_and_json() {
    let repo = approve_project();
    reviewer_says(
        &repo,
        &json!({"result": "approved", "confidence": 0.9, "findings": [
            {"severity": "info", "check": "acceptance", "message": "criteria are checkable"}
        ], "recommendations": [], "summary": "Small, clear ADR."}),
    );
    let out = approve(&repo, "approve_approved_human", &[APPROVE_ADR]);
    assert_eq!(code(&out), 0);
    let out = approve(
        &repo,
        "approve_approved_json",
        &["--no-cache", "--format", "json", APPROVE_ADR],
    );
    assert_eq!(code(&out), 0);
    approve(&repo, "approve_cached_human", &[APPROVE_ADR]);
    approve(
        &repo,
        "approve_cached_json",
        &["--format", "json", APPROVE_ADR],
    );
    check_run("stats_approvals_human", repo.path(), &["stats"]);
    check_run(
        "stats_approvals_json",
        repo.path(),
        &["stats", "--format", "json"],
    );
}

#[test]
fn approve_rejected_human_and_json() {
    let repo = approve_project();
    reviewer_says(
        &repo,
        &json!({"result": "rejected", "confidence": 0.9, "findings": [
            {"severity": "error", "check": "conflicts", "message": "contradicts ADR-000 without superseding it", "location": "adr/001-cache-rules.md#Entscheidung"},
            {"severity": "warning", "check": "acceptance", "message": "criterion 3 is already done"}
        ], "recommendations": ["Supersede ADR-000 explicitly."], "summary": "Conflicts with ADR-000."}),
    );
    let out = approve(&repo, "approve_rejected_human", &[APPROVE_ADR]);
    assert_eq!(code(&out), 1);
    let out = approve(
        &repo,
        "approve_rejected_json",
        // The rejection above is cached now; this snapshot is of a reviewer run.
        &["--no-cache", "--format", "json", APPROVE_ADR],
    );
    assert_eq!(code(&out), 1);
}

#[test]
fn approve_needs_revision_below_required_confidence() {
    let repo = approve_project();
    reviewer_says(
        &repo,
        &json!({"result": "approved", "confidence": 0.5, "findings": [], "recommendations": []}),
    );
    approve(&repo, "approve_low_confidence_human", &[APPROVE_ADR]);
}

#[test]
fn approve_deterministic_rejection_and_infrastructure_failure() {
    let repo = approve_project();
    repo.write("adr/002-bad.md", bad_adr().replace("\"001\"", "\"002\""));
    let out = approve(
        &repo,
        "approve_deterministic_rejection_human",
        &["adr/002-bad.md"],
    );
    assert_eq!(code(&out), 1);
    approve(
        &repo,
        "approve_deterministic_rejection_json",
        &["--format", "json", "adr/002-bad.md"],
    );

    repo.write_executable(
        "fake/reviewer.sh",
        "#!/bin/sh\necho 'reviewer blew up' >&2\nexit 3\n",
    );
    let out = approve(&repo, "approve_reviewer_crash_human", &[APPROVE_ADR]);
    assert_eq!(code(&out), 2);
    approve(
        &repo,
        "approve_reviewer_crash_json",
        &["--format", "json", APPROVE_ADR],
    );
    approve(&repo, "approve_missing_file", &["adr/missing.md"]);
}

// ------------------------------------------------------------------ install and uninstall

/// `PATH` with only the built helix-gate's directory and the system's: whether
/// `helix-gate` is on PATH changes what install prints and writes.
fn bin_and_system_path() -> std::ffi::OsString {
    let dir = Path::new(bin()).parent().expect("bin dir").to_path_buf();
    std::env::join_paths([dir, "/usr/bin".into(), "/bin".into()]).expect("PATH")
}

/// `helix-gate <args>` with `bin_and_system_path`, plus what it left in `file` (if anything).
fn install_transcript(repo: &ScratchRepo, args: &[&str], file: &str) -> String {
    let home = tempfile::tempdir().expect("home");
    let out = helix(repo.path(), args)
        .env("PATH", bin_and_system_path())
        .env("HOME", home.path())
        .output()
        .expect("run helix-gate");
    let mut text = transcript(&out);
    match std::fs::read_to_string(repo.join(file)) {
        Ok(content) => section(&mut text, file, &content),
        Err(_) => {
            let _ = writeln!(text, "--- {file}: does not exist");
        }
    }
    text
}

#[test]
fn install_and_uninstall_git() {
    let repo = ScratchRepo::new();
    let hook = ".git/hooks/pre-commit";
    for (name, args) in [
        ("install_git", &["install", "git"][..]),
        ("install_git_again", &["install", "git"]),
        ("uninstall_git", &["uninstall", "git"]),
        ("uninstall_git_again", &["uninstall", "git"]),
    ] {
        check(name, repo.path(), &install_transcript(&repo, args, hook));
    }
}

#[test]
fn install_and_uninstall_claude() {
    let repo = ScratchRepo::new();
    let settings = ".claude/settings.json";
    repo.write(
        settings,
        "{\n  \"permissions\": {\"allow\": [\"Bash(ls)\"]},\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"echo mine\"}]}]}\n}\n",
    );
    for (name, args) in [
        ("install_claude", &["install", "claude"][..]),
        ("install_claude_again", &["install", "claude"]),
        ("uninstall_claude", &["uninstall", "claude"]),
    ] {
        check(
            name,
            repo.path(),
            &install_transcript(&repo, args, settings),
        );
    }
    repo.write(settings, "{ broken");
    check(
        "install_claude_invalid_settings",
        repo.path(),
        &install_transcript(&repo, &["install", "claude"], settings),
    );
}
