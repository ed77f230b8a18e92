//! `helix-gate pre-commit` against hostile repositories: staged symbolic links that lead
//! elsewhere, forged objects, absurd paths, huge indexes and an index file outside the
//! repository. Each test names the situation; each situation has one defined outcome. Every
//! helix-gate run is killed after a time limit, so a hang fails the test instead of the suite.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::precommit::{ADR, adr_with_id, assert_blocked, assert_passes, broken_adr};
use crate::support::cli::{bin, bounded, code, stderr, stdout};
use crate::support::repo::{ScratchRepo, TIME_LIMIT, git_command, in_repo};

/// Create the symbolic link `path` -> `target` in the work tree and stage it (git stores the
/// target text, whether or not it leads anywhere).
fn stage_link(repo: &ScratchRepo, path: &str, target: &str) {
    let link = repo.join(path);
    std::fs::create_dir_all(link.parent().unwrap()).unwrap();
    symlink(target, &link).unwrap();
    repo.git(&["add", path]);
}

/// Lines of `text` that carry an error finding for `path`.
fn errors_for<'a>(text: &'a str, path: &str) -> Vec<&'a str> {
    text.lines()
        .filter(|l| l.starts_with(&format!("{path}:")) && l.contains(": error["))
        .collect()
}

// ------------------------------------------------------------------ staged symbolic links

#[test]
fn staged_symlink_adr_is_checked_by_the_file_it_leads_to() {
    let repo = ScratchRepo::with_adr();
    repo.write("notes/garbage.md", "just some notes\n");
    stage_link(&repo, "adr/002-notes.md", "../notes/garbage.md");
    repo.git(&["add", "-A"]);

    // `validate` follows the link in the work tree; pre-commit must find the same errors in
    // the commit-to-be instead of letting the link pass.
    let validate = repo.helix(&["validate", "adr/002-notes.md"]);
    assert_eq!(code(&validate), 1, "{}", stdout(&validate));
    let expected = errors_for(&stdout(&validate), "adr/002-notes.md").len();
    assert!(expected >= 5, "{}", stdout(&validate));
    let out = repo.pre_commit();
    assert_blocked(&out, "section-missing");
    let err = stderr(&out);
    assert_eq!(
        errors_for(&err, "adr/002-notes.md").len(),
        expected,
        "{err}"
    );
    assert!(!err.contains("staged-skipped"), "{err}");

    // What counts is the staged target: valid in the index, broken in the work tree, passes.
    repo.write("notes/garbage.md", adr_with_id("002"));
    repo.git(&["add", "-A"]);
    repo.write("notes/garbage.md", "broken again\n");
    let out = repo.pre_commit();
    assert_passes(&out);
    assert_eq!(stderr(&out), "");
}

#[test]
fn staged_symlink_adr_that_leads_out_of_the_commit_is_refused() {
    let repo = ScratchRepo::with_adr();
    repo.write("notes/unstaged.md", adr_with_id("008"));
    stage_link(&repo, "adr/003-escape.md", "../../../../../../etc/passwd");
    stage_link(&repo, "adr/004-absolute.md", "/etc/hostname");
    stage_link(&repo, "adr/005-dangling.md", "gone.md");
    stage_link(&repo, "adr/006-directory.md", "../src");
    stage_link(&repo, "adr/007-loop.md", "007-loop.md");
    stage_link(&repo, "adr/008-unstaged.md", "../notes/unstaged.md");
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    for (path, why) in [
        (
            "adr/003-escape.md",
            "points to `../../../../../../etc/passwd`, which leads out of the repository",
        ),
        (
            "adr/004-absolute.md",
            "points to the absolute path `/etc/hostname`, outside the commit",
        ),
        (
            "adr/005-dangling.md",
            "points to `adr/gone.md`, which the commit does not contain",
        ),
        ("adr/006-directory.md", "points to `src`, a directory"),
        (
            "adr/007-loop.md",
            "leads through more than 40 symbolic links (a loop?)",
        ),
        (
            "adr/008-unstaged.md",
            "points to `notes/unstaged.md`, which the commit does not contain",
        ),
    ] {
        assert!(
            err.contains(&format!(
                "{path}: error[staged-symlink] a symbolic link that {why}\n  hint: commit the ADR as a regular file (`git rm --cached {path}`"
            )),
            "{path}: {err}"
        );
    }
    assert!(!err.contains("root:"), "{err}");
    assert!(
        err.ends_with("helix-gate: commit blocked: 6 staged ADRs are symbolic links that lead to no file of the commit; commit the ADRs as regular files; emergency bypass: `git commit --no-verify`\n"),
        "{err}"
    );
    // No ADR was checked, so nothing to look up with `validate`.
    assert!(!err.contains("Details:"), "{err}");

    let out = bounded(
        in_repo(bin(), repo.path())
            .arg("pre-commit")
            .env("CLAUDECODE", "1"),
        TIME_LIMIT,
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).ends_with("Replace each symbolic link named above with the ADR file itself (or point it at an ADR file of the commit) and `git add` it, then retry the same commit.\n"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn unchanged_symlink_adr_is_checked_again_when_the_commit_changes_where_it_leads() {
    let repo = ScratchRepo::with_adr();
    repo.write("notes/seven.md", adr_with_id("007"));
    stage_link(&repo, "adr/007-seven.md", "../notes/seven.md");
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_passes(&out);
    assert_eq!(stderr(&out), "");
    repo.git(&["commit", "-q", "--no-verify", "-m", "link"]);

    // Only the target changes: the ADR at the link's path changes with it.
    repo.write("notes/seven.md", broken_adr().replace("\"001\"", "\"007\""));
    repo.git(&["add", "notes/seven.md"]);
    let out = repo.pre_commit();
    assert_blocked(&out, "section-missing");
    assert!(
        stderr(&out).contains("adr/007-seven.md:1: error[section-missing]"),
        "{}",
        stderr(&out)
    );

    // The target is removed from the commit: the link dangles.
    repo.git(&["rm", "-q", "--cached", "notes/seven.md"]);
    let out = repo.pre_commit();
    assert_blocked(&out, "staged-symlink");
    assert!(
        stderr(&out).contains("adr/007-seven.md: error[staged-symlink] a symbolic link that points to `notes/seven.md`, which the commit does not contain"),
        "{}",
        stderr(&out)
    );

    // A commit that leaves the chain alone does not re-check the link.
    repo.git(&["reset", "-q"]);
    repo.write("README.md", "readme\n");
    repo.git(&["add", "README.md"]);
    let out = repo.pre_commit();
    assert_passes(&out);
    assert_eq!(stderr(&out), "");
}

// ------------------------------------------------------------------ forged and absurd entries

/// A loose object under the made-up id `id` whose header announces a blob of `size` bytes
/// while only a few bytes follow: its header can be read, its content cannot. The zlib stream
/// is written by hand (one stored, non-final deflate block, no checksum) so the test needs no
/// compression crate.
fn forge_truncated_blob(repo: &ScratchRepo, id: &str, size: u64) {
    let mut data = format!("blob {size}\0").into_bytes();
    data.extend_from_slice(&[b'x'; 64]);
    let len = u16::try_from(data.len()).unwrap();
    let mut stream = vec![0x78, 0x01, 0x00];
    stream.extend_from_slice(&len.to_le_bytes());
    stream.extend_from_slice(&(!len).to_le_bytes());
    stream.extend_from_slice(&data);
    let dir = repo.join(".git/objects").join(&id[..2]);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(&id[2..]), stream).unwrap();
}

#[test]
fn oversized_staged_blob_is_refused_from_its_header_without_being_loaded() {
    let repo = ScratchRepo::with_adr();
    let id = "12".repeat(20);
    forge_truncated_blob(&repo, &id, 100_000_000);
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("100644,{id},adr/009-huge.md"),
    ]);
    let out = repo.pre_commit();
    assert_blocked(&out, "file-too-large");
    assert!(
        stderr(&out).contains("adr/009-huge.md: error[file-too-large] file is 100000000 bytes, the limit is 5242880 bytes"),
        "{}",
        stderr(&out)
    );

    // The control: with a limit above the announced size the blob is loaded, and it cannot
    // be, so the exit 1 above was decided from the header alone.
    repo.write(
        "config/helix-gate.yaml",
        "adr:\n  max_file_size: 1073741824\n",
    );
    let out = repo.pre_commit();
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot read the commit-to-be"),
        "{}",
        stderr(&out)
    );
}

/// A staged ADR path of exactly `len` bytes (components of at most 200 bytes).
fn long_path(len: usize) -> String {
    let name = "009-long.md";
    let mut path = "adr/".to_owned();
    while path.len() + 200 + name.len() < len {
        path.push_str(&"d".repeat(199));
        path.push('/');
    }
    let rest = len - path.len() - name.len() - 1;
    path.push_str(&"e".repeat(rest));
    path.push('/');
    path.push_str(name);
    assert_eq!(path.len(), len);
    path
}

/// Stage `content` at `path` without a work tree file (none could have such a path).
fn stage_blob(repo: &ScratchRepo, path: &str, content: &str) {
    let file = repo.base().join("blob-content");
    std::fs::write(&file, content).unwrap();
    let blob = repo.git(&["hash-object", "-w", file.to_str().unwrap()]);
    repo.git(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!("100644,{blob},{path}"),
    ]);
}

#[test]
fn absurdly_long_staged_adr_path_is_checked_or_blocks_but_never_passes() {
    let broken = broken_adr().replace("\"001\"", "\"009\"");
    // Far beyond PATH_MAX (4096): no work tree can hold the file, but the index can, and
    // the blob is all pre-commit reads. 6001 bytes: the index entry needs one padding byte.
    let repo = ScratchRepo::with_adr();
    let path = long_path(6001);
    stage_blob(&repo, &path, &broken);
    let out = repo.pre_commit();
    assert_blocked(&out, "section-missing");
    assert!(
        stderr(&out).contains(&format!("{path}:1: error[section-missing]")),
        "{}",
        stderr(&out)
    );

    // 6000 bytes: gix 0.90 misreads the padding after such a long path and cannot decode
    // the index. Whatever the decoder does, the commit must not pass: it is checked (exit 1)
    // or refused as an infrastructure failure (exit 2, not dressed up as an ADR finding).
    let repo = ScratchRepo::with_adr();
    stage_blob(&repo, &long_path(6000), &broken);
    let out = repo.pre_commit();
    let err = stderr(&out);
    match code(&out) {
        1 => assert!(err.contains("error[section-missing]"), "{err}"),
        2 => {
            assert!(err.contains("cannot read the commit-to-be"), "{err}");
            assert!(!err.contains("error["), "{err}");
        }
        other => panic!("exit {other}: {err}"),
    }
}

#[test]
fn dot_dot_like_path_components_are_checked_under_their_own_name() {
    let repo = ScratchRepo::with_adr();
    // git itself refuses a real `..` (or `.git`) component in the index.
    let refused = repo.git_out(&[
        "update-index",
        "--add",
        "--cacheinfo",
        &format!(
            "100644,{},adr/../../x.md",
            repo.git(&["rev-parse", "HEAD:src/lib.rs"])
        ),
    ]);
    assert!(!refused.status.success());
    // Names that only look like it are ordinary names: checked from the index, shown as
    // they are, nothing looked up above them.
    stage_blob(
        &repo,
        "adr/..hidden/002-x.md",
        &broken_adr().replace("\"001\"", "\"002\""),
    );
    stage_blob(&repo, "adr/003-..md", &adr_with_id("003"));
    let out = repo.pre_commit();
    assert_blocked(&out, "section-missing");
    let err = stderr(&out);
    assert!(
        err.contains("adr/..hidden/002-x.md:1: error[section-missing]"),
        "{err}"
    );
    assert!(!err.contains("adr/003-..md"), "{err}");
    assert!(
        err.ends_with("helix-gate: commit blocked: 1 staged ADR has errors (checked as staged, not as in the working tree). Details: `helix-gate validate adr/..hidden/002-x.md`; emergency bypass: `git commit --no-verify`\n"),
        "{err}"
    );
}

#[test]
fn index_with_100k_entries_and_many_adr_links_is_checked_quickly() {
    let repo = ScratchRepo::with_adr();
    let blob = repo.git(&["rev-parse", "HEAD:src/lib.rs"]);
    let link = {
        let file = repo.base().join("link-text");
        std::fs::write(&file, "../notes/x.md").unwrap();
        repo.git(&["hash-object", "-w", file.to_str().unwrap()])
    };
    let mut info = String::new();
    for i in 0..100_000 {
        let _ = writeln!(info, "100644 {blob}\tsrc/m{}/f{i}.rs", i % 500);
    }
    // Committed ADR links that this commit does not touch: each must stay cheap.
    for i in 0..2_000 {
        let _ = writeln!(info, "120000 {link}\tadr/links/{i:04}-x.md");
    }
    let mut child = git_command(repo.path())
        .args(["update-index", "--index-info"])
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(info.as_bytes())
        .unwrap();
    assert!(child.wait().unwrap().success());
    repo.write("notes/x.md", "x\n");
    repo.git(&["add", "notes/x.md"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "many"]);

    repo.write(ADR, broken_adr());
    repo.git(&["add", ADR]);
    let started = Instant::now();
    let out = repo.pre_commit();
    let took = started.elapsed();
    assert_blocked(&out, "section-missing");
    // Unoptimised build on a shared machine: generous, but far below a per-entry cost.
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert!(!stderr(&out).contains("adr/links/"), "{}", stderr(&out));
}

// ------------------------------------------------------------------ the environment git hands over

/// Every file below `dir` with its bytes and modification time.
fn snapshot(dir: &Path) -> BTreeMap<String, (Vec<u8>, std::time::SystemTime)> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = entry.metadata().unwrap();
        out.insert(
            entry.file_name().to_string_lossy().into_owned(),
            (
                std::fs::read(entry.path()).unwrap(),
                meta.modified().unwrap(),
            ),
        );
    }
    out
}

#[test]
fn git_index_file_outside_the_repository_is_read_and_never_written() {
    let repo = ScratchRepo::with_adr();
    let outside = tempfile::tempdir().unwrap();
    let index = outside.path().join("index");
    std::fs::copy(repo.join(".git/index"), &index).unwrap();
    // The broken ADR is staged only in the outside index; .git/index keeps the good one.
    repo.write(ADR, broken_adr());
    let staged = git_command(repo.path())
        .args(["add", ADR])
        .env("GIT_INDEX_FILE", &index)
        .output()
        .unwrap();
    assert!(staged.status.success(), "{}", stderr(&staged));
    let before = snapshot(outside.path());
    let own_index = std::fs::read(repo.join(".git/index")).unwrap();

    let out = bounded(
        in_repo(bin(), repo.path())
            .arg("pre-commit")
            .env("GIT_INDEX_FILE", &index),
        TIME_LIMIT,
    );
    assert_blocked(&out, "section-missing");
    assert_eq!(snapshot(outside.path()), before);
    assert_eq!(std::fs::read(repo.join(".git/index")).unwrap(), own_index);
    // Without it, .git/index (the good ADR) is what is checked.
    assert_passes(&repo.pre_commit());
}
