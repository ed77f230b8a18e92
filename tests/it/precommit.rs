//! `helix-gate pre-commit` and `helix-gate install|uninstall git` on real git repositories.
//!
//! Every repository is a [`ScratchRepo`]: a temp dir driven by the git CLI with isolated
//! configuration, a fixed identity and fixed dates, no signing, and none of the test
//! process's own `GIT_*` or `CLAUDECODE` variables (the suite may run inside a git hook or
//! inside Claude Code). When git runs the installed shim, the freshly built helix-gate is
//! first on `PATH`.

use std::process::Output;

use crate::support::cli::{
    bin, code, good_adr, manifest_dir, path_with_bin, stderr, stdout, write,
};
use crate::support::hook::Hook;
use crate::support::repo::{GOOD_ADR, ScratchRepo, git, git_command, helix_in, in_repo};

pub(crate) const ADR: &str = GOOD_ADR;
const MARKER: &str = "# helix-gate pre-commit shim";

/// The installed pre-commit hook of `repo`.
fn installed_hook(repo: &ScratchRepo) -> std::path::PathBuf {
    repo.join(".git/hooks/pre-commit")
}

/// The good ADR with its "Kontext" section renamed: an error (section-missing).
pub(crate) fn broken_adr() -> String {
    good_adr().replace("## Kontext", "## Kontxt")
}

/// The good ADR with one acceptance criterion fewer: only a warning.
fn warning_adr() -> String {
    let adr = good_adr();
    let line = adr
        .lines()
        .find(|l| l.contains("parses the rules file exactly once"))
        .expect("criterion line");
    adr.replace(&format!("{line}\n"), "")
}

/// The good ADR with another id.
pub(crate) fn adr_with_id(id: &str) -> String {
    good_adr().replace("adr_id: \"001\"", &format!("adr_id: \"{id}\""))
}

pub(crate) fn assert_blocked(out: &Output, rule: &str) {
    let err = stderr(out);
    assert_eq!(code(out), 1, "expected exit 1\n{err}");
    assert!(err.contains(&format!("error[{rule}]")), "{err}");
}

pub(crate) fn assert_passes(out: &Output) {
    assert_eq!(code(out), 0, "expected exit 0\n{}", stderr(out));
}

// ------------------------------------------------------------------ what is checked

#[test]
fn partial_staging_checks_the_staged_version_both_ways() {
    let repo = ScratchRepo::with_adr();
    // Staged version broken, working tree fixed: blocked.
    repo.write(ADR, broken_adr());
    repo.git(&["add", ADR]);
    repo.write(ADR, good_adr() + "\nMore context.\n");
    let out = repo.pre_commit();
    assert_blocked(&out, "section-missing");
    let err = stderr(&out);
    assert!(err.contains("adr/001-minimal-valid.md:1: error[section-missing] required section \"Kontext\" is missing"), "{err}");
    assert!(
        err.ends_with("Details: `helix-gate validate adr/001-minimal-valid.md`; emergency bypass: `git commit --no-verify`\n"),
        "{err}"
    );
    assert!(stdout(&out).is_empty());

    // Staged version fixed, working tree broken: passes, silently.
    repo.git(&["add", ADR]);
    repo.write(ADR, broken_adr());
    let out = repo.pre_commit();
    assert_passes(&out);
    assert_eq!(stderr(&out), "");
    // Nothing was touched: the broken working tree copy is still there.
    assert_eq!(repo.read(ADR), Some(broken_adr()));
}

#[test]
fn nothing_staged_or_no_adr_staged_passes_silently() {
    let repo = ScratchRepo::with_adr();
    let out = repo.pre_commit();
    assert_passes(&out);
    assert_eq!(stderr(&out), "");
    repo.write("src/lib.rs", "pub fn f() {}\n");
    repo.write("adr/INDEX.md", "not an ADR\n");
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_passes(&out);
    assert_eq!(stderr(&out), "");
}

#[test]
fn warnings_do_not_block() {
    let repo = ScratchRepo::with_adr();
    repo.write(ADR, warning_adr());
    repo.git(&["add", ADR]);
    let out = repo.pre_commit();
    assert_passes(&out);
    let err = stderr(&out);
    assert!(err.contains("warning[acceptance-criteria-min]"), "{err}");
    assert!(!err.contains("commit blocked"), "{err}");
}

#[test]
fn first_commit_in_an_empty_repository() {
    let repo = ScratchRepo::empty();
    assert_passes(&repo.pre_commit());
    repo.write("src/lib.rs", "");
    repo.write(ADR, broken_adr());
    repo.git(&["add", "-A"]);
    assert_blocked(&repo.pre_commit(), "section-missing");

    repo.write(ADR, good_adr());
    repo.git(&["add", "-A"]);
    assert_passes(&repo.pre_commit());
    assert_passes(&repo.helix(&["install", "git"]));
    repo.git(&["commit", "-q", "-m", "first"]);
    assert_eq!(repo.git(&["rev-list", "--count", "HEAD"]), "1");
}

#[test]
fn renamed_adr_is_checked_under_its_new_name() {
    let repo = ScratchRepo::with_adr();
    repo.git(&["mv", ADR, "adr/001-renamed.md"]);
    assert_passes(&repo.pre_commit());
    // The new name's number no longer matches adr_id "001" (a warning), and reported under the
    // new name.
    repo.git(&["mv", "adr/001-renamed.md", "adr/002-renamed.md"]);
    let out = repo.pre_commit();
    assert_passes(&out);
    assert!(
        stderr(&out).contains("adr/002-renamed.md:2: warning[adr-id-file-name-mismatch]"),
        "{}",
        stderr(&out)
    );
    // Renamed and broken in the same commit: blocked.
    repo.write("adr/002-renamed.md", broken_adr());
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_blocked(&out, "section-missing");
    assert!(
        stderr(&out).contains("adr/002-renamed.md:1: error[section-missing]"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn copied_adr_is_a_duplicate_of_the_committed_one() {
    let repo = ScratchRepo::with_adr();
    repo.write("adr/001-copy.md", good_adr());
    repo.git(&["add", "-A"]);
    // Twice: the second run takes the committed ADR's id from the cache in the git dir.
    for _ in 0..2 {
        let out = repo.pre_commit();
        assert_blocked(&out, "adr-id-duplicate");
        let err = stderr(&out);
        assert!(
            err.contains("adr/001-copy.md:2: error[adr-id-duplicate] adr_id 001 is also used by adr/001-minimal-valid.md"),
            "{err}"
        );
        // The committed ADR is not part of this commit's report.
        assert!(!err.contains("adr/001-minimal-valid.md:"), "{err}");
        assert!(err.contains("1 file checked"), "{err}");
    }
    assert!(repo.join(".git/helix-gate/adr-ids").is_file());

    std::fs::remove_file(repo.join("adr/001-copy.md")).unwrap();
    repo.write("adr/002-copy.md", adr_with_id("002"));
    repo.git(&["add", "-A"]);
    assert_passes(&repo.pre_commit());
}

#[test]
fn depends_on_knows_the_committed_adrs() {
    let repo = ScratchRepo::with_adr();
    let new = "adr/002-next.md";
    for _ in 0..2 {
        repo.write(
            new,
            adr_with_id("002").replace("depends_on: []", "depends_on: [\"001\"]"),
        );
        repo.git(&["add", "-A"]);
        let out = repo.pre_commit();
        assert_passes(&out);
        assert_eq!(stderr(&out), "");

        repo.write(
            new,
            adr_with_id("002").replace("depends_on: []", "depends_on: [\"009\"]"),
        );
        repo.git(&["add", "-A"]);
        let out = repo.pre_commit();
        assert_passes(&out);
        assert!(
            stderr(&out).contains("adr/002-next.md:16: warning[depends-on-unknown] depends_on: no ADR with number `009`"),
            "{}",
            stderr(&out)
        );
    }
}

#[test]
fn files_modify_is_checked_against_the_index() {
    let repo = ScratchRepo::with_adr();
    // Removed from the index, still on disk: missing for the commit-to-be.
    repo.git(&["rm", "-q", "--cached", "src/lib.rs"]);
    repo.write(ADR, good_adr() + "\nMore.\n");
    repo.git(&["add", ADR]);
    let out = repo.pre_commit();
    assert_blocked(&out, "files-modify-missing");
    let err = stderr(&out);
    assert!(
        err.contains("files.modify: `src/lib.rs` exists in the working tree but is not staged\n  hint: stage it with `git add`"),
        "{err}"
    );

    // Gone from the disk too: it does not exist at all.
    std::fs::remove_file(repo.join("src/lib.rs")).unwrap();
    let out = repo.pre_commit();
    assert_blocked(&out, "files-modify-missing");
    assert!(
        stderr(&out).contains("files.modify: `src/lib.rs` does not exist"),
        "{}",
        stderr(&out)
    );

    // Only in the index, deleted on disk: exists for the commit-to-be.
    repo.write("src/lib.rs", "");
    repo.git(&["add", "src/lib.rs"]);
    std::fs::remove_file(repo.join("src/lib.rs")).unwrap();
    assert_passes(&repo.pre_commit());
}

#[test]
fn required_approval_blocks_an_unreviewed_adr() {
    let repo = ScratchRepo::with_adr();
    repo.write(
        "config/approvals.yaml",
        "commit:\n  required_on_commit: true\n",
    );
    repo.write(ADR, good_adr() + "\nMore.\n");
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_blocked(&out, "approval-required");
    let err = stderr(&out);
    assert!(
        err.contains("adr/001-minimal-valid.md: error[approval-required] no approved review of the staged content (commit.required_on_commit in config/approvals.yaml)"),
        "{err}"
    );
    assert!(
        err.contains("`helix-gate approve adr/001-minimal-valid.md`"),
        "{err}"
    );
    // The blocked line names what blocks: a missing review, not errors to look up.
    assert!(
        err.ends_with("helix-gate: commit blocked: 1 staged ADR lacks an approved review of the staged content; `helix-gate approve adr/001-minimal-valid.md`; emergency bypass: `git commit --no-verify`\n"),
        "{err}"
    );
    assert!(!err.contains("helix-gate validate"), "{err}");
    // Claude Code is told the fix and the next step.
    let out = in_repo(bin(), repo.path())
        .arg("pre-commit")
        .env("CLAUDECODE", "1")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "helix-gate blocked this commit: 1 error in 1 staged ADR (checked as staged in the index, not the working tree).\n\
- adr/001-minimal-valid.md [approval-required] no approved review of the staged content (commit.required_on_commit in config/approvals.yaml). \
Fix: with that content in the working tree, run `helix-gate approve adr/001-minimal-valid.md`, then commit again\n\
Run the `helix-gate approve` named above for each ADR without an approved review (its staged content must be in the working tree), then retry the same commit.\n"
    );

    // Once that exact content is approved (a stub reviewer here), the commit passes;
    // pre-commit itself never starts a reviewer.
    let verdict = serde_json::json!({"type": "result", "subtype": "success", "is_error": false,
        "total_cost_usd": 0.01, "usage": {"input_tokens": 10, "output_tokens": 5},
        "structured_output": {"result": "approved", "confidence": 0.95, "findings": [], "recommendations": []}});
    crate::support::cli::fake_reviewer(repo.path(), &verdict.to_string(), "");
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\ncommit:\n  required_on_commit: true\n",
    );
    let approve = helix_in(repo.path(), &["approve", ADR]);
    assert_eq!(
        code(&approve),
        0,
        "{}{}",
        stdout(&approve),
        stderr(&approve)
    );
    repo.git(&["add", "-A"]);
    assert_passes(&repo.pre_commit());
    // Any change to the staged content needs a new approval.
    repo.write(ADR, good_adr() + "\nMore, changed.\n");
    repo.git(&["add", "-A"]);
    assert_eq!(code(&repo.pre_commit()), 1);

    // An ADR with errors is reported for its errors only: no review is asked for yet.
    repo.write(ADR, broken_adr());
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_blocked(&out, "section-missing");
    assert!(
        !stderr(&out).contains("approved review"),
        "{}",
        stderr(&out)
    );

    // Not required: passes.
    repo.write(
        "config/approvals.yaml",
        "commit:\n  required_on_commit: false\n",
    );
    repo.write(ADR, good_adr() + "\nMore.\n");
    repo.git(&["add", "-A"]);
    assert_passes(&repo.pre_commit());
}

// ------------------------------------------------------------------ bad input and odd states

#[test]
fn not_a_git_repository_is_an_infrastructure_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().canonicalize().unwrap();
    let out = in_repo(bin(), &dir)
        .arg("pre-commit")
        .env("GIT_CEILING_DIRECTORIES", dir.parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.starts_with("helix-gate pre-commit: error: not inside a git repository"),
        "{err}"
    );
    assert!(!err.contains("error["), "{err}");
}

#[test]
fn bare_repository_is_an_infrastructure_error() {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    git(&base, &["init", "-q", "--bare", "bare.git"]);
    let out = helix_in(&base.join("bare.git"), &["pre-commit"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("this is a bare repository"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn invalid_configuration_is_an_infrastructure_error() {
    let repo = ScratchRepo::with_adr();
    repo.write("config/helix-gate.yaml", "adr: {globs: ['[']}\n");
    let out = repo.pre_commit();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot load the helix-gate configuration"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn merge_in_progress_still_checks_the_staged_adrs_and_says_so() {
    let repo = ScratchRepo::with_adr();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write(
        "adr/002-feature.md",
        broken_adr().replace("\"001\"", "\"002\""),
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "feature"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write("README.md", "main side\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "main"]);
    repo.git(&["merge", "-q", "--no-ff", "--no-commit", "feature"]);
    assert!(repo.join(".git/MERGE_HEAD").is_file());

    let out = repo.pre_commit();
    assert_blocked(&out, "section-missing");
    let err = stderr(&out);
    assert!(
        err.starts_with(
            "helix-gate: merge in progress (MERGE_HEAD): checking the 1 staged ADR of the merge result\n"
        ),
        "{err}"
    );
    assert!(err.contains("adr/002-feature.md:"), "{err}");

    repo.write("adr/002-feature.md", adr_with_id("002"));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_passes(&out);
    assert!(
        stderr(&out).contains("merge in progress"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn unresolved_conflict_in_an_adr_blocks() {
    let repo = ScratchRepo::with_adr();
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write(ADR, good_adr().replace("Every hook call", "Each hook call"));
    repo.git(&["commit", "-q", "--no-verify", "-am", "feature"]);
    repo.git(&["checkout", "-q", "main"]);
    repo.write(ADR, good_adr().replace("Every hook call", "All hook calls"));
    repo.git(&["commit", "-q", "--no-verify", "-am", "main"]);
    assert!(!repo.git_out(&["merge", "-q", "feature"]).status.success());

    let out = repo.pre_commit();
    assert_blocked(&out, "staged-conflict");
    let err = stderr(&out);
    assert!(
        err.contains("adr/001-minimal-valid.md: error[staged-conflict] unresolved merge conflicts in the index\n  hint: resolve them, then `git add adr/001-minimal-valid.md`"),
        "{err}"
    );
    assert!(
        err.contains("commit blocked: 1 staged ADR has unresolved merge conflicts"),
        "{err}"
    );
}

#[test]
fn binary_and_non_utf8_staged_adrs_are_findings() {
    let repo = ScratchRepo::with_adr();
    repo.write("adr/002-binary.md", b"\x00\x01\x02binary".as_slice());
    repo.write(
        "adr/003-latin1.md",
        b"---\nadr_id: \"003\"\ntitle: \"Gr\xfc\xdfe\"\n---\n".as_slice(),
    );
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("adr/002-binary.md: error[file-binary]"),
        "{err}"
    );
    assert!(
        err.contains("adr/003-latin1.md:3: error[file-not-utf8] invalid UTF-8 at byte"),
        "{err}"
    );
}

#[test]
fn deleted_adr_has_nothing_to_check() {
    let repo = ScratchRepo::with_adr();
    repo.git(&["rm", "-q", ADR]);
    let out = repo.pre_commit();
    assert_passes(&out);
    assert_eq!(stderr(&out), "");
}

#[test]
fn unreadable_committed_adr_is_a_note_and_does_not_block() {
    let repo = ScratchRepo::with_adr();
    repo.write("adr/002-other.md", adr_with_id("002"));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "two"]);
    // As in a partial clone without the blob: the committed ADR cannot be read.
    let blob = repo.git(&["rev-parse", "HEAD:adr/002-other.md"]);
    std::fs::remove_file(
        repo.path()
            .join(".git/objects")
            .join(&blob[..2])
            .join(&blob[2..]),
    )
    .unwrap();
    repo.write("adr/003-new.md", adr_with_id("003"));
    repo.git(&["add", "adr/003-new.md"]);
    let out = repo.pre_commit();
    assert_passes(&out);
    assert_eq!(
        stderr(&out),
        "helix-gate: info[committed-adr-unreadable] 1 committed ADR(s) could not be read; \
they were left out of the duplicate adr_id check\n"
    );
}

#[test]
fn huge_staged_blob_is_file_too_large() {
    let repo = ScratchRepo::with_adr();
    repo.write("config/helix-gate.yaml", "adr:\n  max_file_size: 2000\n");
    repo.write("adr/002-huge.md", "x".repeat(5000));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_blocked(&out, "file-too-large");
    assert!(
        stderr(&out).contains(
            "adr/002-huge.md: error[file-too-large] file is 5000 bytes, the limit is 2000 bytes"
        ),
        "{}",
        stderr(&out)
    );
}

#[test]
fn file_names_with_spaces_and_non_ascii_characters() {
    let repo = ScratchRepo::with_adr();
    let name = "adr/002-süße Entscheidung.md";
    repo.write(name, adr_with_id("002"));
    repo.git(&["add", "-A"]);
    assert_passes(&repo.pre_commit());

    repo.write(name, broken_adr().replace("\"001\"", "\"002\""));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_blocked(&out, "section-missing");
    let err = stderr(&out);
    assert!(
        err.contains("adr/002-süße Entscheidung.md:1: error[section-missing]"),
        "{err}"
    );
    assert!(
        err.contains("`helix-gate validate 'adr/002-süße Entscheidung.md'`"),
        "{err}"
    );
}

#[test]
fn submodule_named_like_an_adr_is_skipped_with_a_note() {
    let repo = ScratchRepo::with_adr();
    let commit = repo.head();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("160000,{commit},adr/003-vendored.md"),
    ]);
    let out = repo.pre_commit();
    assert_passes(&out);
    assert_eq!(
        stderr(&out),
        "adr/003-vendored.md: info[staged-skipped] not checked: a submodule entry, not a file\n"
    );
    // Symbolic links are followed instead: see `hostile_precommit`.
}

// ------------------------------------------------------------------ the installed hook

#[test]
fn installed_hook_blocks_a_real_commit_end_to_end() {
    let repo = ScratchRepo::with_adr();
    let out = repo.helix(&["install", "git"]);
    assert_passes(&out);
    assert!(
        stdout(&out).starts_with("installed the helix-gate pre-commit hook: "),
        "{}",
        stdout(&out)
    );
    let before = repo.head();
    repo.write(ADR, broken_adr());
    repo.git(&["add", ADR]);
    let out = repo.git_out(&["commit", "-q", "-m", "broken"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("error[section-missing]"), "{err}");
    assert!(err.contains("git commit --no-verify"), "{err}");
    assert_eq!(repo.head(), before);

    // The emergency bypass works, and a fixed ADR commits normally.
    repo.git(&["commit", "-q", "--no-verify", "-m", "bypass"]);
    assert_ne!(repo.head(), before);
    repo.write(ADR, good_adr());
    repo.git(&["add", ADR]);
    repo.git(&["commit", "-q", "-m", "fixed"]);
}

#[test]
fn claude_code_gets_compact_fix_oriented_output() {
    let repo = ScratchRepo::with_adr();
    assert_passes(&repo.helix(&["install", "git"]));
    repo.write(ADR, broken_adr());
    repo.git(&["add", ADR]);
    let out = git_command(repo.path())
        .args(["commit", "-q", "-m", "from claude"])
        .env("CLAUDECODE", "1")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert_eq!(
        stderr(&out),
        "helix-gate blocked this commit: 1 error in 1 staged ADR (checked as staged in the index, not the working tree).\n\
- adr/001-minimal-valid.md:1 [section-missing] required section \"Kontext\" is missing. Fix: add \"## Kontext\" with its content\n\
Fix these errors in the files, stage them again with `git add`, then retry the same commit.\n"
    );
}

#[test]
fn commit_all_checks_the_temporary_index() {
    let repo = ScratchRepo::with_adr();
    assert_passes(&repo.helix(&["install", "git"]));
    repo.write(ADR, broken_adr());
    repo.write("README.md", "readme\n");
    repo.git(&["add", "README.md"]);
    let before = repo.head();
    // `commit -a` stages the broken working tree copy into a temporary index: blocked.
    let out = repo.git_out(&["commit", "-q", "-a", "-m", "all"]);
    assert_blocked(&out, "section-missing");
    assert_eq!(repo.head(), before);
    // A plain commit takes the real index, where the ADR is unchanged: passes.
    repo.git(&["commit", "-q", "-m", "readme only"]);
    assert_ne!(repo.head(), before);
}

#[test]
fn commit_with_paths_checks_the_temporary_index() {
    let repo = ScratchRepo::with_adr();
    assert_passes(&repo.helix(&["install", "git"]));
    // Broken version staged, fixed version in the working tree: `git commit <path>` commits
    // the working tree copy, so it passes.
    repo.write(ADR, broken_adr());
    repo.git(&["add", ADR]);
    repo.write(ADR, good_adr() + "\nMore.\n");
    repo.git(&["commit", "-q", "-m", "paths", ADR]);

    // Good version staged, broken working tree copy: blocked.
    repo.write(ADR, good_adr());
    repo.git(&["add", ADR]);
    repo.write(ADR, broken_adr());
    let before = repo.head();
    let out = repo.git_out(&["commit", "-q", "-m", "paths", ADR]);
    assert_blocked(&out, "section-missing");
    assert_eq!(repo.head(), before);
}

#[test]
fn core_hooks_path_is_respected() {
    let repo = ScratchRepo::with_adr();
    repo.git(&["config", "core.hooksPath", ".githooks"]);
    let out = repo.helix(&["install", "git"]);
    assert_passes(&out);
    let shim = repo.join(".githooks/pre-commit");
    assert!(std::fs::read_to_string(&shim).unwrap().contains(MARKER));
    assert!(!installed_hook(&repo).exists());
    repo.write(ADR, broken_adr());
    repo.git(&["add", ADR]);
    assert_blocked(
        &repo.git_out(&["commit", "-q", "-m", "x"]),
        "section-missing",
    );
}

#[test]
fn linked_worktree_uses_the_common_hooks_and_its_own_index() {
    let repo = ScratchRepo::with_adr();
    let wt = repo.base().join("wt");
    repo.git(&["worktree", "add", "-q", "-b", "wt", wt.to_str().unwrap()]);
    let out = helix_in(&wt, &["install", "git"]);
    assert_passes(&out);
    assert!(installed_hook(&repo).is_file(), "{}", stdout(&out));

    write(&wt, ADR, broken_adr());
    git(&wt, &["add", ADR]);
    // The main worktree's index is untouched, so only the linked worktree's commit fails.
    assert_passes(&repo.pre_commit());
    let out = git_command(&wt)
        .args(["commit", "-q", "-m", "wt"])
        .output()
        .unwrap();
    assert_blocked(&out, "section-missing");

    write(&wt, ADR, good_adr() + "\nMore.\n");
    git(&wt, &["add", ADR]);
    git(&wt, &["commit", "-q", "-m", "wt fixed"]);
}

#[test]
fn git_dir_selects_the_repository_to_install_into() {
    let repo = ScratchRepo::with_adr();
    let out = in_repo(bin(), &repo.base())
        .args(["install", "git"])
        .env("GIT_DIR", repo.join(".git"))
        .output()
        .unwrap();
    assert_passes(&out);
    assert!(installed_hook(&repo).is_file(), "{}", stdout(&out));
}

#[test]
fn foreign_hook_is_chained_and_restored() {
    let repo = ScratchRepo::with_adr();
    let foreign = "#!/bin/sh\necho 'foreign hook ran' >&2\nexit 0\n";
    repo.write(".git/hooks/pre-commit", foreign);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(
            installed_hook(&repo),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
    }
    let out = repo.helix(&["install", "git"]);
    assert_passes(&out);
    assert!(
        stdout(&out).contains("the existing hook was kept as pre-commit.local"),
        "{}",
        stdout(&out)
    );
    let local = repo.join(".git/hooks/pre-commit.local");
    assert_eq!(std::fs::read_to_string(&local).unwrap(), foreign);

    // Both run: the foreign hook first, then helix-gate.
    repo.write(ADR, broken_adr());
    repo.git(&["add", ADR]);
    let out = repo.git_out(&["commit", "-q", "-m", "x"]);
    assert_blocked(&out, "section-missing");
    assert!(
        stderr(&out).starts_with("foreign hook ran\n"),
        "{}",
        stderr(&out)
    );

    // A failing foreign hook blocks even a good commit.
    repo.write(ADR, good_adr() + "\nMore.\n");
    repo.git(&["add", ADR]);
    std::fs::write(&local, "#!/bin/sh\necho 'foreign says no' >&2\nexit 3\n").unwrap();
    let out = repo.git_out(&["commit", "-q", "-m", "x"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("foreign says no"), "{}", stderr(&out));

    // Uninstall puts the foreign hook back, byte for byte.
    std::fs::write(&local, foreign).unwrap();
    let out = repo.helix(&["uninstall", "git"]);
    assert_passes(&out);
    assert!(
        stdout(&out).contains("restored the previous hook"),
        "{}",
        stdout(&out)
    );
    assert_eq!(
        std::fs::read_to_string(installed_hook(&repo)).unwrap(),
        foreign
    );
    assert!(!local.exists());
    let out = repo.helix(&["uninstall", "git"]);
    assert_passes(&out);
    assert!(stdout(&out).contains("is not helix-gate's hook: left unchanged"));
    assert_eq!(
        std::fs::read_to_string(installed_hook(&repo)).unwrap(),
        foreign
    );
}

#[test]
fn installing_twice_changes_nothing() {
    let repo = ScratchRepo::with_adr();
    assert_passes(&repo.helix(&["install", "git"]));
    let first = std::fs::read(installed_hook(&repo)).unwrap();
    let out = repo.helix(&["install", "git"]);
    assert_passes(&out);
    assert!(
        stdout(&out).contains("already installed"),
        "{}",
        stdout(&out)
    );
    assert_eq!(std::fs::read(installed_hook(&repo)).unwrap(), first);
    assert!(!repo.join(".git/hooks/pre-commit.local").exists());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(installed_hook(&repo))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o111, 0o111, "{mode:o}");
    }

    let out = repo.helix(&["uninstall", "git"]);
    assert!(stdout(&out).starts_with("removed the helix-gate pre-commit hook"));
    assert!(!installed_hook(&repo).exists());
    let out = repo.helix(&["uninstall", "git"]);
    assert!(stdout(&out).contains("nothing to do"), "{}", stdout(&out));
}

#[test]
fn shim_fails_closed_when_helix_gate_is_not_on_path() {
    let repo = ScratchRepo::with_adr();
    assert_passes(&repo.helix(&["install", "git"]));
    repo.write(ADR, good_adr() + "\nMore.\n");
    repo.git(&["add", ADR]);
    let out = git_command(repo.path())
        .args(["commit", "-q", "-m", "x"])
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .output()
        .unwrap();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("helix-gate is not on PATH"),
        "{}",
        stderr(&out)
    );
}

/// A staged phase plan is checked as on save: duplicate ids, unknown
/// `depends_on`, unknown gate types and absolute paths block the commit; a good
/// plan passes, and a plan that is not staged is not read.
#[test]
fn a_staged_phase_plan_is_checked_like_on_save() {
    let repo = ScratchRepo::with_adr();
    let plan = "projects/sessions/s1/output/phases.yaml";
    repo.write(plan, crate::phases::GOOD_PLAN);
    repo.git(&["add", plan]);
    assert_passes(&repo.pre_commit());
    repo.git(&["commit", "-qm", "plan", "--no-verify"]);
    repo.write(plan, crate::phases::BAD_PLAN);
    // Not staged: the commit-to-be still holds the good plan.
    assert_passes(&repo.pre_commit());
    repo.git(&["add", plan]);
    let out = repo.pre_commit();
    assert_blocked(&out, "phase-id-duplicate");
    assert!(stderr(&out).contains(plan), "{}", stderr(&out));
}

/// Seed 004's phases template, committed with its `<...>` gaps, is blocked.
#[test]
fn a_staged_phase_plan_with_template_placeholders_is_blocked() {
    let repo = ScratchRepo::with_adr();
    let plan = "projects/sessions/s1/output/phases.yaml";
    let template = std::fs::read_to_string(
        manifest_dir().join("tests/fixtures/seeds/004-phases-template.yaml"),
    )
    .unwrap();
    repo.write(plan, template);
    repo.git(&["add", plan]);
    assert_blocked(&repo.pre_commit(), "phase-placeholder");
}

/// INDEX.md drift that `finalize` or `index --write` would have prevented: with an
/// INDEX.md in the commit, an ADR the commit adds needs its row, and a changed
/// title needs its row changed too; rows of untouched ADRs are not this
/// commit's business, and a repository without INDEX.md is not asked for one.
#[test]
fn index_drift_of_the_adrs_a_commit_touches_blocks_it() {
    let repo = ScratchRepo::with_adr();
    let second = "adr/002-second.md";
    let second_adr = good_adr()
        .replace("adr_id: \"001\"", "adr_id: \"002\"")
        .replacen("title: ", "title: Second ", 1);
    // No INDEX.md: nothing to drift from.
    repo.write(second, &second_adr);
    repo.git(&["add", second]);
    assert_passes(&repo.pre_commit());
    repo.git(&["reset", "-q"]);
    std::fs::remove_file(repo.base().join("repo").join(second)).unwrap();
    // INDEX.md lists 001 (written by the tool itself).
    let out = repo.helix(&["index", "--write"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "index", "--no-verify"]);
    assert_passes(&repo.pre_commit());
    // A new ADR without its row.
    repo.write(second, &second_adr);
    repo.git(&["add", second]);
    let out = repo.pre_commit();
    assert_blocked(&out, "index-row-missing");
    assert!(stderr(&out).contains("index --write"), "{}", stderr(&out));
    // With its row (staged too), it passes.
    let out = repo.helix(&["index", "--write"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.git(&["add", "adr/INDEX.md"]);
    assert_passes(&repo.pre_commit());
    repo.git(&["commit", "-qm", "second", "--no-verify"]);
    // A changed title without its row changed.
    repo.write(
        second,
        second_adr.replacen("title: Second ", "title: Renamed ", 1),
    );
    repo.git(&["add", second]);
    assert_blocked(&repo.pre_commit(), "index-row-mismatch");
}

/// INDEX both ways: a staged INDEX.md row must name an ADR of the commit's tree
/// (the index), not merely one of the work tree; a commit that adds a row for an
/// ADR that does not exist, or one not staged, or that removes an ADR and keeps its
/// row, is refused.
#[test]
fn an_index_row_for_an_adr_the_commit_lacks_blocks_it() {
    let repo = ScratchRepo::with_adr();
    let out = repo.helix(&["index", "--write"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-qm", "index", "--no-verify"]);
    let index = repo.read("adr/INDEX.md").unwrap();
    // A row for an ADR that exists nowhere.
    repo.write(
        "adr/INDEX.md",
        format!("{index}| 002 | [Ghost](002-ghost.md) | Proposed | none |\n"),
    );
    repo.git(&["add", "adr/INDEX.md"]);
    let out = repo.pre_commit();
    assert_blocked(&out, "index-row-dangling");
    assert!(stderr(&out).contains("002-ghost.md"), "{}", stderr(&out));
    // The ADR is in the work tree, but not in the commit.
    let second = "adr/002-second.md";
    repo.write(
        second,
        good_adr()
            .replace("adr_id: \"001\"", "adr_id: \"002\"")
            .replacen("title: ", "title: Second ", 1),
    );
    let out = repo.helix(&["index", "--write"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.git(&["add", "adr/INDEX.md"]);
    let out = repo.pre_commit();
    assert_blocked(&out, "index-row-dangling");
    assert!(stderr(&out).contains("not staged"), "{}", stderr(&out));
    repo.git(&["add", second]);
    assert_passes(&repo.pre_commit());
    repo.git(&["commit", "-qm", "second", "--no-verify"]);
    // Removing the ADR from the commit (it stays on disk) but keeping its row.
    repo.git(&["rm", "-q", "--cached", second]);
    assert_blocked(&repo.pre_commit(), "index-row-dangling");
}

#[test]
fn a_tracked_file_outside_the_sparse_checkout_exists_for_validate() {
    let repo = ScratchRepo::with_adr();
    repo.git(&["sparse-checkout", "set", "--no-cone", "adr/"]);
    assert!(
        !repo.join("src/lib.rs").exists(),
        "the sparse checkout removed it"
    );
    let out = repo.helix(&["validate", ADR]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(code(&repo.pre_commit()), 0);
    // A path git does not track is still missing.
    let missing = good_adr().replace("src/lib.rs", "src/gone.rs");
    repo.write(
        "adr/002-gone.md",
        missing.replace("adr_id: \"001\"", "adr_id: \"002\""),
    );
    let out = repo.helix(&["validate", "adr/002-gone.md"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("files-modify-missing"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_skip_worktree_file_exists_for_validate() {
    let repo = ScratchRepo::with_adr();
    repo.git(&["update-index", "--skip-worktree", "src/lib.rs"]);
    std::fs::remove_file(repo.join("src/lib.rs")).unwrap();
    let out = repo.helix(&["validate", ADR]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

/// A Git LFS pointer for `content` (what `git lfs` stages instead of the file).
fn lfs_pointer_of(content: &str) -> String {
    use sha2::Digest as _;
    let oid = helix_gate::text::hex(&sha2::Sha256::digest(content.as_bytes()));
    format!(
        "version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize {}\n",
        content.len()
    )
}

/// Stage `blob` at `rel` without touching the work tree (as the LFS clean filter does).
fn stage_blob(repo: &ScratchRepo, rel: &str, blob: &str) {
    repo.write(".lfs-blob", blob);
    let id = repo.git(&["hash-object", "-w", ".lfs-blob"]);
    std::fs::remove_file(repo.join(".lfs-blob")).unwrap();
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("100644,{},{rel}", id.trim()),
    ]);
}

#[test]
fn an_adr_tracked_by_git_lfs_is_checked_by_its_content_or_named_a_pointer() {
    let repo = ScratchRepo::with_adr();
    let rel = "adr/002-lfs.md";
    let content = good_adr()
        .replace("adr_id: \"001\"", "adr_id: \"002\"")
        .replace(
            "Cache parsed rules between hook calls",
            "Keep large files in LFS",
        );
    let pointer = lfs_pointer_of(&content);
    // The work tree holds the smudged content the staged pointer names: it is checked.
    repo.write(rel, &content);
    stage_blob(&repo, rel, &pointer);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));

    // The work tree differs from what the pointer names: the pointer is reported, alone.
    repo.write(rel, content.replace("LFS", "LFS, edited"));
    let out = repo.pre_commit();
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(code(&out), 1, "{text}");
    assert!(text.contains("error[file-lfs-pointer]"), "{text}");
    assert!(text.contains("git lfs pull"), "{text}");
    assert!(!text.contains("front-matter"), "{text}");

    // validate (and the hook) on a pointer checked out without git-lfs.
    repo.write(rel, &pointer);
    let out = repo.helix(&["validate", rel]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    assert!(text.contains("error[file-lfs-pointer]"), "{text}");
    assert_eq!(text.matches("error[").count(), 1, "{text}");
}

#[test]
fn the_hook_finds_a_tracked_file_outside_the_sparse_checkout() {
    let repo = ScratchRepo::with_adr();
    repo.git(&["sparse-checkout", "set", "--no-cone", "adr/"]);
    assert!(!repo.join("src/lib.rs").exists());
    repo.write("config/helix-gate.yaml", "");
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    let event = serde_json::json!({"session_id": "s", "transcript_path": "t", "cwd": repo.path(),
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": repo.join(ADR), "content": "…"},
        "tool_response": {"type": "create"}, "tool_use_id": "toolu_1", "duration_ms": 3});
    let run = Hook::new(repo.path())
        .env("PATH", path_with_bin())
        .env("HELIX_GATE_STATE_DIR", repo.state_dir())
        .event(&event);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        !run.stdout.contains("files-modify-missing"),
        "{}",
        run.stdout
    );
    assert_eq!(run.stdout, "", "a clean ADR gets no answer");
}

// ------------------------------------------------------------------ file arguments

/// `pre-commit FILE...` (the pre-commit framework, `pass_filenames`): the named ADRs are
/// checked from the work tree, files that are not ADRs are left alone.
#[test]
fn file_arguments_check_those_files_from_the_work_tree() {
    let repo = ScratchRepo::with_adr();
    repo.write(
        "adr/002-broken.md",
        broken_adr().replace("\"001\"", "\"002\""),
    );
    repo.write("notes/todo.md", "# not an ADR\n");
    repo.commit_all("more");
    // Nothing staged: the commit check has nothing to do, the named files are checked.
    assert_passes(&repo.pre_commit());
    let out = repo.helix(&["pre-commit", GOOD_ADR, "adr/002-broken.md", "notes/todo.md"]);
    assert_blocked(&out, "section-missing");
    let err = stderr(&out);
    assert!(err.contains("adr/002-broken.md"), "{err}");
    assert!(!err.contains("todo.md"), "{err}");
    assert_passes(&repo.helix(&["pre-commit", GOOD_ADR, "notes/todo.md"]));
    // The work tree, not the index: an unstaged break shows.
    repo.write(GOOD_ADR, broken_adr());
    assert_blocked(&repo.helix(&["pre-commit", GOOD_ADR]), "section-missing");
}

/// `pre-commit FILE...` checks what a commit checks: a named ADR against every other ADR
/// of the repository (a reused `adr_id` is an error, a `depends_on` on an unnamed ADR is
/// known), and `commit.required_on_commit`'s approval.
#[test]
fn file_arguments_get_the_checks_across_files_and_the_required_approval() {
    let repo = ScratchRepo::with_adr();
    repo.write("adr/002-second.md", adr_with_id("002"));
    repo.commit_all("two");
    // Reuses 001, which is not named: the duplicate is found all the same.
    repo.write("adr/003-copy.md", adr_with_id("001"));
    assert_blocked(
        &repo.helix(&["pre-commit", "adr/003-copy.md"]),
        "adr-id-duplicate",
    );
    // depends_on an ADR that exists but is not named: no finding.
    repo.write(
        "adr/003-copy.md",
        adr_with_id("003").replace("depends_on: []", "depends_on: [\"002\"]")
            + "\nBuilds on ADR-002.\n",
    );
    let out = repo.helix(&["pre-commit", "adr/003-copy.md"]);
    assert_passes(&out);
    assert!(
        !stderr(&out).contains("depends-on-unknown"),
        "{}",
        stderr(&out)
    );
    // A named ADR never meets itself: all of them named (as --all-files does) pass.
    assert_passes(&repo.helix(&[
        "pre-commit",
        GOOD_ADR,
        "adr/002-second.md",
        "adr/003-copy.md",
    ]));
    // required_on_commit: no approved review of the content, as at a commit.
    repo.write(
        "config/approvals.yaml",
        "commit:\n  required_on_commit: true\n",
    );
    let out = repo.helix(&["pre-commit", "adr/003-copy.md"]);
    assert_blocked(&out, "approval-required");
    assert!(
        stderr(&out).contains("`helix-gate approve adr/003-copy.md`"),
        "{}",
        stderr(&out)
    );
}

/// The manifest lets the pre-commit framework pass the file names, so `pre-commit run
/// --all-files` checks every ADR, and selects Markdown files and phase plans.
#[test]
fn the_pre_commit_manifest_passes_file_names() {
    let text = std::fs::read_to_string(manifest_dir().join(".pre-commit-hooks.yaml")).unwrap();
    assert!(!text.contains("pass_filenames: false"), "{text}");
    assert_eq!(
        text.matches("files: '\\.md$|(^|/)phases\\.yaml$'").count(),
        2,
        "{text}"
    );
}

/// A MADR repository without configuration: a commit checks its staged ADRs by the
/// detected layout, and says so.
#[test]
fn an_unconfigured_madr_repository_is_checked_at_commit() {
    let repo = ScratchRepo::new();
    repo.write(
        "docs/decisions/0001-use-kafka.md",
        "# Use Kafka\n\n## Context and Problem Statement\n\nWhy.\n\n## Decision Outcome\n\nKafka.\n",
    );
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_blocked(&out, "section-missing");
    let err = stderr(&out);
    assert!(
        err.contains("detected madr ADRs in docs/decisions (1 file)"),
        "{err}"
    );
}

/// `pre-commit FILE...` (`pre-commit run --all-files`) in a repository without
/// configuration and without ADRs: it passes, and says where it looked.
#[test]
fn an_unconfigured_repository_without_adrs_says_where_it_looked() {
    let repo = ScratchRepo::new();
    repo.write("notes/plan.md", "# Plan\n");
    let out = repo.helix(&["pre-commit", "notes/plan.md", "README.md"]);
    assert_passes(&out);
    assert!(
        stderr(&out).contains("no ADRs found; looked in docs/decisions"),
        "{}",
        stderr(&out)
    );
}
