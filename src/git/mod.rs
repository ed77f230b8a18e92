//! Git access layer for `helix-gate pre-commit`.
//!
//! The pre-commit gate must validate ADR files exactly as they will be committed, which is the
//! content of the *index* git is about to turn into a tree — not the working tree, which may hold
//! unstaged edits, and not necessarily `.git/index` either: `git commit -a` and
//! `git commit <paths>` hand hooks a temporary index through `GIT_INDEX_FILE`. This module
//! hides gix behind a small API that
//!
//! * finds the repository the way git does for hooks ([`Repo::discover`] honours `GIT_DIR`,
//!   `GIT_WORK_TREE`, `GIT_INDEX_FILE`, `GIT_COMMON_DIR`, `GIT_CEILING_DIRECTORIES`, linked
//!   worktrees, bare repositories), with the environment captured in a [`GitEnv`] value so tests
//!   never touch the process environment;
//! * lists what the commit changes ([`StagedIndex::changed`], [`StagedIndex::deleted`]) by
//!   comparing index entries with the flattened `HEAD` tree (path → id, mode): no work tree walk,
//!   no content diff, so it stays fast on repositories with thousands of files;
//! * reads staged blobs with a size limit checked on the object header *before* the object is
//!   decompressed ([`StagedIndex::read_blob`]);
//! * locates the hooks directory like git ([`Repo::hooks_dir`]) for the installer.
//!
//! # What git exports to a pre-commit hook
//!
//! Verified with git 2.47.3 (`/usr/local/bin/git`, first on `PATH`) and git 2.39.5
//! (`/usr/bin/git`), which behave identically. The hook always starts in the work tree root
//! (`GIT_PREFIX` holds the subdirectory `git commit` was run from), and `GIT_WORK_TREE` is never
//! set by git itself:
//!
//! | invocation                          | `GIT_DIR`                      | `GIT_INDEX_FILE`                                  |
//! |-------------------------------------|--------------------------------|---------------------------------------------------|
//! | `git commit`                        | unset                          | `.git/index` (**relative** to the work tree root) |
//! | `git commit -a` / `--include <p>`   | unset                          | `<abs>/.git/index.lock`                           |
//! | `git commit <paths>` (`--only`)     | unset                          | `<abs>/.git/next-index-<pid>.lock` (HEAD + paths) |
//! | any of them in a linked worktree    | `<abs>/.git/worktrees/<name>`  | absolute, inside `.git/worktrees/<name>/`         |
//!
//! Relative values in [`GitEnv`] are therefore resolved against [`GitEnv::cwd`], which is the
//! work tree root inside hooks.

mod env;
mod error;
mod repo;
mod staged;
mod tree;

pub use env::GitEnv;
pub use error::GitError;
pub use repo::Repo;
pub use staged::{
    ChangeStatus, EntryKind, LinkError, LinkResolution, MAX_LINK_HOPS, StagedEntry, StagedIndex,
};
pub use tree::TreeFiles;

/// The index of the work tree a folder is in, read once, to ask of many paths
/// whether git tracks them though the work tree may lack them (sparse checkout,
/// skip-worktree). Open it only when a path is missing from the work tree.
pub struct Tracked {
    /// The folder's place in the work tree (`""` at its root, else ending in `/`).
    prefix: String,
    index: gix::index::File,
}

impl Tracked {
    /// `None` when `root` is in no repository or the index cannot be read.
    pub fn open(root: &std::path::Path) -> Option<Tracked> {
        let repo = Repo::discover(root).ok()?;
        let work_tree = repo.work_tree()?;
        let canonical =
            |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
        let mut prefix = String::new();
        for part in canonical(root)
            .strip_prefix(canonical(work_tree))
            .ok()?
            .components()
        {
            prefix.push_str(&part.as_os_str().to_string_lossy());
            prefix.push('/');
        }
        Some(Tracked {
            prefix,
            index: repo.index().ok()?,
        })
    }

    /// Whether git tracks `rel` (relative to the folder it was opened for).
    pub fn tracks(&self, rel: &str) -> bool {
        repo::index_tracks(&self.index, &format!("{}{rel}", self.prefix))
    }

    /// Whether any tracked file below the folder satisfies `matches` (given its
    /// path relative to the folder).
    pub fn any(&self, matches: &dyn Fn(&str) -> bool) -> bool {
        self.index.entries().iter().any(|entry| {
            let path = entry.path(&self.index);
            std::str::from_utf8(path)
                .ok()
                .and_then(|p| p.strip_prefix(self.prefix.as_str()))
                .is_some_and(matches)
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use std::fmt::Write as _;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output};

    // ---------------------------------------------------------------- harness

    /// A throw-away repository driven by the real git CLI, fully isolated from the user's
    /// configuration and from any `GIT_*` variables of the test process (e.g. when the test
    /// suite itself runs inside a git hook).
    struct Fixture {
        tmp: tempfile::TempDir,
        root: PathBuf,
    }

    fn git_command(dir: &Path) -> Command {
        let mut cmd = Command::new("git");
        for (key, _) in std::env::vars_os() {
            if key.to_string_lossy().starts_with("GIT_") {
                cmd.env_remove(key);
            }
        }
        cmd.current_dir(dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "Helix Test")
            .env("GIT_AUTHOR_EMAIL", "helix@example.invalid")
            .env("GIT_AUTHOR_DATE", "1577836800 +0000")
            .env("GIT_COMMITTER_NAME", "Helix Test")
            .env("GIT_COMMITTER_EMAIL", "helix@example.invalid")
            .env("GIT_COMMITTER_DATE", "1577836800 +0000")
            .args([
                "-c",
                "commit.gpgsign=false",
                "-c",
                "init.defaultBranch=main",
            ]);
        cmd
    }

    fn run(dir: &Path, args: &[&str]) -> Output {
        git_command(dir)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("spawning git {args:?}: {e}"))
    }

    /// Run git, panic on failure, return trimmed stdout.
    fn git(dir: &Path, args: &[&str]) -> String {
        let out = run(dir, args);
        assert!(
            out.status.success(),
            "git {args:?} in {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    impl Fixture {
        fn new() -> Fixture {
            let tmp = tempfile::tempdir().unwrap();
            let base = tmp.path().canonicalize().unwrap();
            let root = base.join("repo");
            git(&base, &["init", "-q", "repo"]);
            Fixture { tmp, root }
        }

        fn base(&self) -> PathBuf {
            self.tmp.path().canonicalize().unwrap()
        }

        fn git(&self, args: &[&str]) -> String {
            git(&self.root, args)
        }

        fn write(&self, rel: &str, content: &str) {
            let path = self.root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }

        fn commit_all(&self, msg: &str) {
            self.git(&["add", "-A"]);
            self.git(&["commit", "-q", "-m", msg]);
        }

        fn open(&self) -> Repo {
            Repo::discover_with(&self.root, &GitEnv::default()).unwrap()
        }

        fn staged(&self) -> StagedIndex {
            self.open().staged_index().unwrap()
        }
    }

    fn changed_paths(staged: &StagedIndex) -> Vec<(String, ChangeStatus)> {
        staged
            .changed()
            .into_iter()
            .map(|e| (e.path, e.status))
            .collect()
    }

    fn entry<'a>(entries: &'a [StagedEntry], path: &str) -> &'a StagedEntry {
        entries
            .iter()
            .find(|e| e.path == path)
            .unwrap_or_else(|| panic!("{path} not in {entries:?}"))
    }

    fn read(staged: &StagedIndex, path: &str) -> String {
        let changed = staged.changed();
        let bytes = staged.read_blob(entry(&changed, path), 1 << 20).unwrap();
        String::from_utf8(bytes).unwrap()
    }

    use ChangeStatus::{Added, Modified};

    // ---------------------------------------------------------------- staged content

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn first_commit_on_unborn_head_reports_everything_added() {
        let fx = Fixture::new();
        fx.write("adr/001-first.md", "# First\n");
        fx.write("README.md", "hi\n");
        fx.git(&["add", "-A"]);
        let staged = fx.staged();
        assert_eq!(
            changed_paths(&staged),
            vec![
                ("README.md".into(), Added),
                ("adr/001-first.md".into(), Added)
            ]
        );
        assert!(staged.deleted().is_empty());
        assert!(!staged.has_conflicts());
        assert_eq!(read(&staged, "adr/001-first.md"), "# First\n");
        assert_eq!(
            staged.paths().collect::<Vec<_>>(),
            ["README.md", "adr/001-first.md"]
        );
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn fresh_repository_without_index_is_empty() {
        let fx = Fixture::new();
        let staged = fx.staged();
        assert!(staged.changed().is_empty());
        assert!(staged.deleted().is_empty());
        assert_eq!(staged.paths().count(), 0);
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn modified_and_staged_file_is_modified_unchanged_files_are_not_listed() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "v1\n");
        fx.write("adr/002.md", "same\n");
        fx.commit_all("init");
        fx.write("adr/001.md", "v2\n");
        fx.git(&["add", "adr/001.md"]);
        let staged = fx.staged();
        assert_eq!(
            changed_paths(&staged),
            vec![("adr/001.md".into(), Modified)]
        );
        assert_eq!(read(&staged, "adr/001.md"), "v2\n");
        assert!(staged.contains_path("adr/002.md"));
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn partial_staging_work_tree_ahead_of_index_reads_index_content() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "line1\n");
        fx.commit_all("init");
        fx.write("adr/001.md", "line1\nstaged\n");
        fx.git(&["add", "adr/001.md"]);
        fx.write("adr/001.md", "line1\nstaged\nunstaged edit\n");
        let staged = fx.staged();
        assert_eq!(
            changed_paths(&staged),
            vec![("adr/001.md".into(), Modified)]
        );
        assert_eq!(read(&staged, "adr/001.md"), "line1\nstaged\n");
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn partial_staging_index_ahead_of_work_tree_reads_index_content() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "v1\n");
        fx.write("adr/002.md", "v1\n");
        fx.commit_all("init");
        // Stage a change, then revert the work tree to the HEAD content.
        fx.write("adr/001.md", "staged only\n");
        fx.git(&["add", "adr/001.md"]);
        fx.write("adr/001.md", "v1\n");
        // A work-tree-only change is not part of the commit.
        fx.write("adr/002.md", "unstaged only\n");
        let staged = fx.staged();
        assert_eq!(
            changed_paths(&staged),
            vec![("adr/001.md".into(), Modified)]
        );
        assert_eq!(read(&staged, "adr/001.md"), "staged only\n");
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn git_mv_reports_new_path_as_added_and_old_path_as_deleted() {
        let fx = Fixture::new();
        fx.write("adr/001-old.md", "content\n");
        fx.commit_all("init");
        fx.git(&["mv", "adr/001-old.md", "adr/001-new.md"]);
        let staged = fx.staged();
        assert_eq!(
            changed_paths(&staged),
            vec![("adr/001-new.md".into(), Added)]
        );
        assert_eq!(staged.deleted(), ["adr/001-old.md"]);
        assert!(!staged.contains_path("adr/001-old.md"));
        assert!(staged.contains_path("adr/001-new.md"));
        assert_eq!(read(&staged, "adr/001-new.md"), "content\n");
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn git_rm_reports_deleted_only() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "a\n");
        fx.write("adr/002.md", "b\n");
        fx.commit_all("init");
        fx.git(&["rm", "-q", "adr/002.md"]);
        let staged = fx.staged();
        assert!(staged.changed().is_empty());
        assert_eq!(staged.deleted(), ["adr/002.md"]);
        assert!(!staged.contains_path("adr/002.md"));
        assert!(staged.contains_path("adr/001.md"));
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn file_removed_from_index_but_still_on_disk_is_not_in_the_commit() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "a\n");
        fx.commit_all("init");
        fx.git(&["rm", "-q", "--cached", "adr/001.md"]);
        assert!(fx.root.join("adr/001.md").is_file());
        let staged = fx.staged();
        assert!(!staged.contains_path("adr/001.md"));
        assert_eq!(staged.deleted(), ["adr/001.md"]);
        assert!(staged.changed().is_empty());
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn file_on_disk_but_never_added_is_not_in_the_commit() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "a\n");
        fx.commit_all("init");
        fx.write("adr/untracked.md", "x\n");
        let staged = fx.staged();
        assert!(!staged.contains_path("adr/untracked.md"));
        assert!(staged.changed().is_empty());
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn intent_to_add_entries_are_not_part_of_the_commit() {
        let fx = Fixture::new();
        fx.write("a.md", "a\n");
        fx.commit_all("init");
        fx.write("adr/later.md", "not yet\n");
        fx.git(&["add", "-N", "adr/later.md"]);
        let staged = fx.staged();
        assert!(staged.changed().is_empty());
        assert!(!staged.contains_path("adr/later.md"));
        assert!(staged.deleted().is_empty());
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn paths_with_spaces_and_non_ascii_are_returned_verbatim() {
        let fx = Fixture::new();
        fx.write("README.md", "x\n");
        fx.commit_all("init");
        fx.write("adr/001 über.md", "# Über\n");
        fx.write("adr/002 日本語 name.md", "jp\n");
        fx.git(&["add", "-A"]);
        let staged = fx.staged();
        assert_eq!(
            changed_paths(&staged),
            vec![
                ("adr/001 über.md".into(), Added),
                ("adr/002 日本語 name.md".into(), Added)
            ]
        );
        assert_eq!(read(&staged, "adr/001 über.md"), "# Über\n");
        assert!(staged.contains_path("adr/001 über.md"));
    }

    #[cfg(unix)]
    #[test]
    fn non_utf8_path_is_converted_lossily_and_still_readable() {
        use std::os::unix::ffi::OsStrExt;
        let fx = Fixture::new();
        let name = std::ffi::OsStr::from_bytes(b"adr/bad-\xff.md");
        std::fs::create_dir_all(fx.root.join("adr")).unwrap();
        std::fs::write(fx.root.join(name), "bytes\n").unwrap();
        fx.git(&["add", "-A"]);
        let staged = fx.staged();
        assert_eq!(
            changed_paths(&staged),
            vec![("adr/bad-\u{FFFD}.md".into(), Added)]
        );
        assert_eq!(read(&staged, "adr/bad-\u{FFFD}.md"), "bytes\n");
    }

    #[cfg(unix)]
    #[test]
    fn executable_symlink_and_mode_only_changes() {
        use std::os::unix::fs::PermissionsExt;
        let fx = Fixture::new();
        fx.write("tool.sh", "#!/bin/sh\n");
        fx.write("adr/001.md", "x\n");
        fx.commit_all("init");
        std::fs::set_permissions(
            fx.root.join("tool.sh"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        std::os::unix::fs::symlink("001.md", fx.root.join("adr/link.md")).unwrap();
        fx.git(&["add", "-A"]);
        let staged = fx.staged();
        let changed = staged.changed();
        assert_eq!(
            changed_paths(&staged),
            vec![("adr/link.md".into(), Added), ("tool.sh".into(), Modified)]
        );
        assert_eq!(entry(&changed, "tool.sh").kind, EntryKind::Executable);
        assert_eq!(entry(&changed, "adr/link.md").kind, EntryKind::Symlink);
        assert_eq!(read(&staged, "adr/link.md"), "001.md");
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn submodule_entry_is_reported_and_never_read_as_blob() {
        let fx = Fixture::new();
        fx.write("a.md", "a\n");
        fx.commit_all("init");
        let head = fx.git(&["rev-parse", "HEAD"]);
        fx.git(&[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("160000,{head},sub"),
        ]);
        let staged = fx.staged();
        let changed = staged.changed();
        let sub = entry(&changed, "sub");
        assert_eq!(sub.kind, EntryKind::Submodule);
        assert_eq!(sub.status, Added);
        assert_eq!(sub.id.to_string(), head);
        assert!(matches!(
            staged.read_blob(sub, u64::MAX),
            Err(GitError::NotABlob { ref path, .. }) if path == "sub"
        ));
        assert!(staged.contains_path("sub"));
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn blob_over_limit_is_refused_blob_at_limit_is_returned() {
        let fx = Fixture::new();
        fx.write("adr/big.md", &"x".repeat(1000));
        fx.git(&["add", "-A"]);
        let staged = fx.staged();
        let changed = staged.changed();
        let big = entry(&changed, "adr/big.md");
        match staged.read_blob(big, 999) {
            Err(GitError::BlobTooLarge { path, size, limit }) => {
                assert_eq!((path.as_str(), size, limit), ("adr/big.md", 1000, 999));
            }
            other => panic!("expected BlobTooLarge, got {other:?}"),
        }
        assert_eq!(staged.read_blob(big, 1000).unwrap().len(), 1000);
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn blob_over_limit_is_refused_when_packed_and_deltified() {
        let fx = Fixture::new();
        let base = (0..2000).fold(String::new(), |mut base, i| {
            let _ = writeln!(base, "line {i}");
            base
        });
        fx.write("adr/big.md", &base);
        fx.commit_all("one");
        fx.write("adr/big.md", &format!("{base}one more line\n"));
        fx.commit_all("two");
        fx.git(&["repack", "-adq"]);
        fx.git(&["prune-packed"]);
        fx.write("adr/big.md", &format!("{base}one more line\n\n"));
        fx.git(&["add", "-A"]);
        fx.git(&["repack", "-adq"]);
        fx.git(&["prune-packed"]);
        let staged = fx.staged();
        let changed = staged.changed();
        let big = entry(&changed, "adr/big.md");
        let size = base.len() as u64 + 15;
        assert!(matches!(
            staged.read_blob(big, 100),
            Err(GitError::BlobTooLarge { size: s, .. }) if s == size
        ));
        assert_eq!(staged.read_blob(big, size).unwrap().len() as u64, size);
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn split_index_is_read_through_the_shared_index() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "v1\n");
        fx.write("adr/002.md", "v1\n");
        fx.commit_all("init");
        fx.git(&["config", "core.splitIndex", "true"]);
        fx.git(&["update-index", "--split-index"]);
        fx.write("adr/002.md", "v2\n");
        fx.write("adr/003.md", "new\n");
        fx.git(&["add", "-A"]);
        let shared = std::fs::read_dir(fx.root.join(".git"))
            .unwrap()
            .filter(|e| {
                let name = e.as_ref().unwrap().file_name();
                name.to_string_lossy().starts_with("sharedindex.")
            })
            .count();
        assert!(shared > 0, "git did not write a shared index");
        let staged = fx.staged();
        assert_eq!(
            changed_paths(&staged),
            vec![
                ("adr/002.md".into(), Modified),
                ("adr/003.md".into(), Added)
            ]
        );
        assert_eq!(staged.paths().count(), 3);
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn sparse_index_directories_are_neither_changed_nor_deleted() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "v1\n");
        fx.write("other/deep/x.md", "x\n");
        fx.write("other/y.md", "y\n");
        fx.commit_all("init");
        fx.git(&["sparse-checkout", "set", "--cone", "--sparse-index", "adr"]);
        let ls = fx.git(&["ls-files", "--sparse"]);
        assert!(
            ls.lines().any(|l| l == "other/"),
            "no sparse directory entry: {ls}"
        );
        fx.write("adr/001.md", "v2\n");
        fx.git(&["add", "adr/001.md"]);
        let staged = fx.staged();
        assert_eq!(
            changed_paths(&staged),
            vec![("adr/001.md".into(), Modified)]
        );
        assert!(staged.deleted().is_empty());
        assert!(staged.contains_path("other/deep/x.md"));
        assert!(!staged.contains_path("other/"));
    }

    // ---------------------------------------------------------------- GIT_INDEX_FILE

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn git_index_file_absolute_points_at_a_temporary_index() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "v1\n");
        fx.commit_all("init");
        let tmp_index = fx.base().join("tmp-index");
        fx.write("adr/001.md", "only in temporary index\n");
        let out = git_command(&fx.root)
            .env("GIT_INDEX_FILE", &tmp_index)
            .args(["read-tree", "HEAD"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let out = git_command(&fx.root)
            .env("GIT_INDEX_FILE", &tmp_index)
            .args(["add", "adr/001.md"])
            .output()
            .unwrap();
        assert!(out.status.success());

        // The regular index is untouched ...
        assert!(fx.staged().changed().is_empty());
        // ... the temporary one holds the change.
        let env = GitEnv {
            index_file: Some(tmp_index.clone()),
            ..GitEnv::default()
        };
        let repo = Repo::discover_with(&fx.root, &env).unwrap();
        assert_eq!(repo.index_path(), tmp_index);
        let staged = repo.staged_index().unwrap();
        assert_eq!(
            changed_paths(&staged),
            vec![("adr/001.md".into(), Modified)]
        );
        assert_eq!(read(&staged, "adr/001.md"), "only in temporary index\n");
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn git_index_file_relative_is_resolved_against_cwd() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "v1\n");
        fx.commit_all("init");
        fx.write("adr/001.md", "v2\n");
        fx.git(&["add", "-A"]);
        std::fs::create_dir_all(fx.root.join("adr/sub")).unwrap();
        // As in a plain `git commit` hook: `.git/index`, cwd = work tree root, even when the
        // discovery starts further down.
        let env = GitEnv {
            index_file: Some(".git/index".into()),
            cwd: Some(fx.root.clone()),
            ..GitEnv::default()
        };
        let repo = Repo::discover_with(&fx.root.join("adr/sub"), &env).unwrap();
        assert_eq!(repo.index_path(), fx.root.join(".git/index"));
        assert_eq!(repo.work_tree(), Some(fx.root.as_path()));
        assert_eq!(
            changed_paths(&repo.staged_index().unwrap()),
            vec![("adr/001.md".into(), Modified)]
        );
        // Without `cwd`, `start` is the anchor.
        let env = GitEnv {
            index_file: Some(".git/index".into()),
            ..GitEnv::default()
        };
        let repo = Repo::discover_with(&fx.root, &env).unwrap();
        assert_eq!(repo.index_path(), fx.root.join(".git/index"));
    }

    /// Installs a pre-commit hook that records its environment and a copy of the index it was
    /// given, then aborts the commit; feeds what git really exported back into `GitEnv`.
    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn hook_environment_of_real_git_commits_is_understood() {
        let fx = Fixture::new();
        fx.write("a.md", "a1\n");
        fx.write("b.md", "b1\n");
        fx.write("sub/c.md", "c1\n");
        fx.commit_all("init");
        let cap = fx.base().join("captured");
        std::fs::create_dir_all(&cap).unwrap();
        let hook = fx.root.join(".git/hooks/pre-commit");
        std::fs::write(
            &hook,
            format!(
                "#!/bin/sh\n\
                 {{ echo \"PWD=$(pwd)\"; env | grep '^GIT_'; }} > '{cap}/'\"$HELIX_LABEL\".env\n\
                 cp \"$GIT_INDEX_FILE\" '{cap}/'\"$HELIX_LABEL\".index\n\
                 exit 1\n",
                cap = cap.display()
            ),
        )
        .unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        // a.md: work tree only; b.md: staged.
        fx.write("a.md", "a2\n");
        fx.write("b.md", "b2\n");
        fx.git(&["add", "b.md"]);

        let commit = |dir: &Path, label: &str, extra: &[&str]| -> (GitEnv, PathBuf) {
            let out = git_command(dir)
                .env("HELIX_LABEL", label)
                .args(["commit", "-q", "-m", label])
                .args(extra)
                .output()
                .unwrap();
            assert!(!out.status.success(), "hook must abort the commit");
            let text = std::fs::read_to_string(cap.join(format!("{label}.env"))).unwrap();
            let var = |name: &str| {
                text.lines()
                    .find_map(|l| l.strip_prefix(&format!("{name}=")))
                    .map(PathBuf::from)
            };
            let env = GitEnv {
                git_dir: var("GIT_DIR"),
                work_tree: var("GIT_WORK_TREE"),
                common_dir: var("GIT_COMMON_DIR"),
                index_file: var("GIT_INDEX_FILE"),
                cwd: var("PWD"),
                ..GitEnv::default()
            };
            (env, cap.join(format!("{label}.index")))
        };
        let changed_in = |env: &GitEnv, start: &Path| {
            let repo = Repo::discover_with(start, env).unwrap();
            changed_paths(&repo.staged_index().unwrap())
        };

        // Plain `git commit` from a subdirectory: relative `.git/index`, cwd = root, no GIT_DIR.
        let (env, _) = commit(&fx.root.join("sub"), "plain", &[]);
        assert_eq!(env.index_file.as_deref(), Some(Path::new(".git/index")));
        assert_eq!(env.git_dir, None);
        assert_eq!(env.cwd.as_deref(), Some(fx.root.as_path()));
        let start = env.cwd.clone().unwrap();
        assert_eq!(changed_in(&env, &start), vec![("b.md".into(), Modified)]);

        // `git commit -a`: absolute index.lock (gone after the abort; use the hook's copy).
        let (mut env, copy) = commit(&fx.root, "all", &["-a"]);
        let index = env.index_file.clone().unwrap();
        assert!(
            index.is_absolute() && index.ends_with(".git/index.lock"),
            "{index:?}"
        );
        env.index_file = Some(copy);
        assert_eq!(
            changed_in(&env, &start),
            vec![("a.md".into(), Modified), ("b.md".into(), Modified)]
        );

        // `git commit a.md`: absolute next-index-<pid>.lock holding HEAD + a.md only.
        let (mut env, copy) = commit(&fx.root.join("sub"), "only", &["--", "../a.md"]);
        let index = env.index_file.clone().unwrap();
        let name = index.file_name().unwrap().to_string_lossy().into_owned();
        assert!(index.is_absolute() && name.starts_with("next-index-"));
        assert!(index.extension().is_some_and(|e| e == "lock"));
        env.index_file = Some(copy);
        assert_eq!(changed_in(&env, &start), vec![("a.md".into(), Modified)]);

        // Linked worktree: absolute GIT_DIR and GIT_INDEX_FILE, cwd = worktree root.
        let wt = fx.base().join("wt");
        fx.git(&["worktree", "add", "-q", wt.to_str().unwrap()]);
        std::fs::write(wt.join("a.md"), "wt\n").unwrap();
        git(&wt, &["add", "a.md"]);
        let (env, _) = commit(&wt, "worktree", &[]);
        assert_eq!(
            env.git_dir.as_deref(),
            Some(fx.root.join(".git/worktrees/wt").as_path())
        );
        assert_eq!(
            env.index_file.as_deref(),
            Some(fx.root.join(".git/worktrees/wt/index").as_path())
        );
        assert_eq!(env.cwd.as_deref(), Some(wt.as_path()));
        let repo = Repo::discover_with(&wt, &env).unwrap();
        assert_eq!(repo.work_tree(), Some(wt.as_path()));
        assert_eq!(repo.common_dir(), fx.root.join(".git"));
        assert_eq!(repo.hooks_dir().unwrap(), fx.root.join(".git/hooks"));
        assert_eq!(changed_in(&env, &wt), vec![("a.md".into(), Modified)]);
    }

    // ---------------------------------------------------------------- discovery

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn discovery_from_a_subdirectory_finds_the_root() {
        let fx = Fixture::new();
        fx.write("adr/deep/001.md", "x\n");
        let repo = Repo::discover_with(&fx.root.join("adr/deep"), &GitEnv::default()).unwrap();
        assert_eq!(repo.work_tree(), Some(fx.root.as_path()));
        assert_eq!(repo.git_dir(), fx.root.join(".git"));
        assert_eq!(repo.common_dir(), fx.root.join(".git"));
        assert_eq!(repo.index_path(), fx.root.join(".git/index"));
        assert!(!repo.merge_in_progress());
    }

    #[test]
    fn git_env_from_process_captures_cwd_and_enables_global_config() {
        let env = GitEnv::from_process();
        assert!(env.load_global_config);
        assert_eq!(env.cwd, std::env::current_dir().ok());
        assert!(!GitEnv::default().load_global_config);
    }

    #[test]
    fn not_a_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let base = tmp.path().canonicalize().unwrap();
        let start = base.join("a/b");
        std::fs::create_dir_all(&start).unwrap();
        // The ceiling keeps discovery from wandering above the temp dir.
        let env = GitEnv {
            ceiling_directories: vec![base.clone()],
            ..GitEnv::default()
        };
        match Repo::discover_with(&start, &env) {
            Err(GitError::NotARepository { path }) => assert_eq!(path, start),
            other => panic!("expected NotARepository, got {other:?}"),
        }
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn git_dir_env_pointing_nowhere_is_not_a_repository() {
        let fx = Fixture::new();
        let env = GitEnv {
            git_dir: Some(fx.base().join("nope")),
            ..GitEnv::default()
        };
        assert!(matches!(
            Repo::discover_with(&fx.root, &env),
            Err(GitError::NotARepository { .. })
        ));
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn ceiling_directories_stop_discovery() {
        let fx = Fixture::new();
        let inner = fx.root.join("inner/dir");
        std::fs::create_dir_all(&inner).unwrap();
        assert!(Repo::discover_with(&inner, &GitEnv::default()).is_ok());
        let env = GitEnv {
            ceiling_directories: vec![fx.root.join("inner")],
            ..GitEnv::default()
        };
        assert!(matches!(
            Repo::discover_with(&inner, &env),
            Err(GitError::NotARepository { .. })
        ));
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn bare_repository_opens_without_work_tree_and_has_no_staged_index() {
        let fx = Fixture::new();
        fx.write("a.md", "a\n");
        fx.commit_all("init");
        let bare = fx.base().join("bare.git");
        git(&fx.base(), &["clone", "-q", "--bare", "repo", "bare.git"]);
        for env in [
            GitEnv::default(),
            GitEnv {
                git_dir: Some(bare.clone()),
                ..GitEnv::default()
            },
        ] {
            let repo = Repo::discover_with(&bare, &env).unwrap();
            assert_eq!(repo.work_tree(), None);
            assert_eq!(repo.git_dir(), bare);
            assert_eq!(repo.hooks_dir().unwrap(), bare.join("hooks"));
            assert!(matches!(repo.staged_index(), Err(GitError::Bare)));
        }
        // Relative core.hooksPath in a bare repository is relative to the git dir.
        git(&bare, &["config", "core.hooksPath", "my-hooks"]);
        let repo = Repo::discover_with(&bare, &GitEnv::default()).unwrap();
        assert_eq!(repo.hooks_dir().unwrap(), bare.join("my-hooks"));
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn explicit_git_dir_and_work_tree_like_a_separate_git_dir_setup() {
        let fx = Fixture::new();
        let gd = fx.base().join("store.git");
        let wt = fx.base().join("checkout");
        std::fs::create_dir_all(&wt).unwrap();
        git(&fx.base(), &["init", "-q", "--bare", "store.git"]);
        std::fs::write(wt.join("x.md"), "x\n").unwrap();
        let out = git_command(&wt)
            .env("GIT_DIR", &gd)
            .env("GIT_WORK_TREE", &wt)
            .args(["add", "x.md"])
            .output()
            .unwrap();
        assert!(out.status.success());
        // GIT_WORK_TREE wins over core.bare=true, as in git.
        let env = GitEnv {
            git_dir: Some(gd.clone()),
            work_tree: Some(wt.clone()),
            ..GitEnv::default()
        };
        let repo = Repo::discover_with(&fx.root, &env).unwrap();
        assert_eq!(repo.git_dir(), gd);
        assert_eq!(repo.work_tree(), Some(wt.as_path()));
        assert_eq!(
            changed_paths(&repo.staged_index().unwrap()),
            vec![("x.md".into(), Added)]
        );
        // Relative GIT_DIR / GIT_WORK_TREE are anchored at cwd.
        let env = GitEnv {
            git_dir: Some("store.git".into()),
            work_tree: Some("checkout".into()),
            cwd: Some(fx.base()),
            ..GitEnv::default()
        };
        let repo = Repo::discover_with(&fx.base(), &env).unwrap();
        assert_eq!(repo.work_tree(), Some(wt.as_path()));
        // GIT_DIR alone on a non-bare repository: the cwd is the work tree, like git.
        let env = GitEnv {
            git_dir: Some(fx.root.join(".git")),
            cwd: Some(fx.root.clone()),
            ..GitEnv::default()
        };
        let repo = Repo::discover_with(&fx.root, &env).unwrap();
        assert_eq!(repo.work_tree(), Some(fx.root.as_path()));
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn linked_worktree_has_its_own_index_and_shares_hooks() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "v1\n");
        fx.commit_all("init");
        let wt = fx.base().join("linked wt");
        fx.git(&[
            "worktree",
            "add",
            "-q",
            "-b",
            "feature",
            wt.to_str().unwrap(),
        ]);
        std::fs::write(wt.join("adr/001.md"), "in worktree\n").unwrap();
        git(&wt, &["add", "-A"]);

        // git sanitises the worktree name ("linked wt" -> "linked-wt" in git 2.47).
        let wt_git_dir = PathBuf::from(git(&wt, &["rev-parse", "--absolute-git-dir"]));
        assert_eq!(
            wt_git_dir.parent(),
            Some(fx.root.join(".git/worktrees").as_path())
        );
        let repo = Repo::discover_with(&wt.join("adr"), &GitEnv::default()).unwrap();
        assert_eq!(repo.work_tree(), Some(wt.as_path()));
        assert_eq!(repo.git_dir(), wt_git_dir);
        assert_eq!(repo.common_dir(), fx.root.join(".git"));
        assert_eq!(repo.index_path(), wt_git_dir.join("index"));
        assert_eq!(repo.hooks_dir().unwrap(), fx.root.join(".git/hooks"));
        let staged = repo.staged_index().unwrap();
        assert_eq!(
            changed_paths(&staged),
            vec![("adr/001.md".into(), Modified)]
        );
        assert_eq!(read(&staged, "adr/001.md"), "in worktree\n");
        // The main worktree's index is unaffected.
        assert!(fx.staged().changed().is_empty());

        // Relative core.hooksPath resolves against *this* worktree's root, like git.
        fx.git(&["config", "core.hooksPath", ".githooks"]);
        let repo = Repo::discover_with(&wt, &GitEnv::default()).unwrap();
        assert_eq!(repo.hooks_dir().unwrap(), wt.join(".githooks"));
        // Worktree-local configuration (extensions.worktreeConfig) is honoured.
        fx.git(&["config", "extensions.worktreeConfig", "true"]);
        git(
            &wt,
            &["config", "--worktree", "core.hooksPath", "/opt/wt-hooks"],
        );
        let repo = Repo::discover_with(&wt, &GitEnv::default()).unwrap();
        assert_eq!(repo.hooks_dir().unwrap(), PathBuf::from("/opt/wt-hooks"));
        assert_eq!(fx.open().hooks_dir().unwrap(), fx.root.join(".githooks"));
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn linked_worktree_of_a_bare_repository_via_hook_environment() {
        let fx = Fixture::new();
        fx.write("a.md", "a\n");
        fx.commit_all("init");
        let bare = fx.base().join("b.git");
        git(&fx.base(), &["clone", "-q", "--bare", "repo", "b.git"]);
        let wt = fx.base().join("wt");
        git(&bare, &["worktree", "add", "-q", wt.to_str().unwrap()]);
        std::fs::write(wt.join("a.md"), "changed\n").unwrap();
        git(&wt, &["add", "a.md"]);
        // core.bare=true is inherited from the common config; git ignores it in linked worktrees.
        let env = GitEnv {
            git_dir: Some(bare.join("worktrees/wt")),
            index_file: Some(bare.join("worktrees/wt/index")),
            cwd: Some(wt.clone()),
            ..GitEnv::default()
        };
        let repo = Repo::discover_with(&wt, &env).unwrap();
        assert_eq!(repo.work_tree(), Some(wt.as_path()));
        assert_eq!(repo.common_dir(), bare);
        assert_eq!(repo.hooks_dir().unwrap(), bare.join("hooks"));
        assert_eq!(
            changed_paths(&repo.staged_index().unwrap()),
            vec![("a.md".into(), Modified)]
        );
        // Discovery (no env) agrees.
        let repo = Repo::discover_with(&wt, &GitEnv::default()).unwrap();
        assert_eq!(repo.work_tree(), Some(wt.as_path()));
        assert_eq!(repo.git_dir(), bare.join("worktrees/wt"));
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn git_common_dir_must_match_the_resolved_one() {
        let fx = Fixture::new();
        fx.write("a.md", "a\n");
        fx.commit_all("init");
        let wt = fx.base().join("wt");
        fx.git(&["worktree", "add", "-q", wt.to_str().unwrap()]);
        let env = GitEnv {
            git_dir: Some(fx.root.join(".git/worktrees/wt")),
            common_dir: Some(fx.root.join(".git")),
            cwd: Some(wt.clone()),
            ..GitEnv::default()
        };
        let repo = Repo::discover_with(&wt, &env).unwrap();
        assert_eq!(repo.common_dir(), fx.root.join(".git"));
        let env = GitEnv {
            common_dir: Some(fx.base()),
            ..env
        };
        assert!(matches!(
            Repo::discover_with(&wt, &env),
            Err(GitError::Open(_))
        ));
    }

    // ---------------------------------------------------------------- hooks, merges

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn hooks_dir_default_relative_and_absolute() {
        let fx = Fixture::new();
        let sub = fx.root.join("sub");
        std::fs::create_dir_all(&sub).unwrap();
        assert_eq!(fx.open().hooks_dir().unwrap(), fx.root.join(".git/hooks"));
        fx.git(&["config", "core.hooksPath", ".githooks"]);
        // Relative to the work tree root, not to the directory discovery started from.
        let repo = Repo::discover_with(&sub, &GitEnv::default()).unwrap();
        assert_eq!(repo.hooks_dir().unwrap(), fx.root.join(".githooks"));
        fx.git(&["config", "core.hooksPath", "/srv/shared hooks"]);
        assert_eq!(
            fx.open().hooks_dir().unwrap(),
            PathBuf::from("/srv/shared hooks")
        );
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn merge_in_progress_and_conflicts_are_exposed() {
        let fx = Fixture::new();
        fx.write("adr/001.md", "base\n");
        fx.write("adr/002.md", "base\n");
        fx.commit_all("base");
        fx.git(&["checkout", "-q", "-b", "feature"]);
        fx.write("adr/001.md", "theirs\n");
        fx.write("adr/003.md", "new on feature\n");
        fx.commit_all("feature");
        fx.git(&["checkout", "-q", "main"]);
        fx.write("adr/001.md", "ours\n");
        fx.commit_all("main");
        let out = run(&fx.root, &["merge", "-q", "feature"]);
        assert!(!out.status.success(), "merge must conflict");

        let repo = fx.open();
        assert!(repo.merge_in_progress());
        let staged = repo.staged_index().unwrap();
        assert!(staged.has_conflicts());
        assert_eq!(staged.conflicted_paths(), ["adr/001.md"]);
        assert_eq!(changed_paths(&staged), vec![("adr/003.md".into(), Added)]);
        assert!(staged.deleted().is_empty());
        assert!(staged.contains_path("adr/001.md"));

        fx.write("adr/001.md", "resolved\n");
        fx.git(&["add", "adr/001.md"]);
        let staged = fx.staged();
        assert!(!staged.has_conflicts());
        assert_eq!(
            changed_paths(&staged),
            vec![
                ("adr/001.md".into(), Modified),
                ("adr/003.md".into(), Added)
            ]
        );
        assert!(fx.open().merge_in_progress());
        fx.git(&["commit", "-q", "--no-edit"]);
        assert!(!fx.open().merge_in_progress());
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn detached_head_compares_against_the_detached_commit() {
        let fx = Fixture::new();
        fx.write("a.md", "1\n");
        fx.commit_all("one");
        fx.write("a.md", "2\n");
        fx.commit_all("two");
        fx.git(&["checkout", "-q", "--detach", "HEAD~1"]);
        assert!(fx.staged().changed().is_empty());
        fx.write("a.md", "3\n");
        fx.git(&["add", "a.md"]);
        assert_eq!(changed_paths(&fx.staged()), vec![("a.md".into(), Modified)]);
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn many_files_are_compared_without_touching_the_work_tree() {
        let fx = Fixture::new();
        for i in 0..1500 {
            fx.write(&format!("dir{}/file{i}.md", i % 37), &format!("{i}\n"));
        }
        fx.commit_all("many");
        fx.write("dir3/file3.md", "changed\n");
        fx.git(&["add", "dir3/file3.md"]);
        // Deleting the work tree files must not matter: only index and objects are read.
        for i in 0..1500 {
            let _ = std::fs::remove_file(fx.root.join(format!("dir{}/file{i}.md", i % 37)));
        }
        let started = std::time::Instant::now();
        let staged = fx.staged();
        let elapsed = started.elapsed();
        assert_eq!(
            changed_paths(&staged),
            vec![("dir3/file3.md".into(), Modified)]
        );
        assert_eq!(staged.paths().count(), 1500);
        assert!(staged.deleted().is_empty());
        assert_eq!(read(&staged, "dir3/file3.md"), "changed\n");
        assert!(elapsed.as_secs() < 5, "took {elapsed:?}");
    }

    // ---------------------------------------------------------------- staged symbolic links

    /// Stage a symbolic link `path` -> `target` without touching the work tree (so targets
    /// that leave the repository need no real file).
    fn stage_link(fx: &Fixture, path: &str, target: &str) {
        let file = fx.base().join("link-target");
        std::fs::write(&file, target).unwrap();
        let blob = fx.git(&["hash-object", "-w", file.to_str().unwrap()]);
        fx.git(&[
            "update-index",
            "--add",
            "--cacheinfo",
            &format!("120000,{blob},{path}"),
        ]);
    }

    fn resolve(staged: &StagedIndex, path: &str) -> Result<String, LinkError> {
        let entries: Vec<StagedEntry> = staged
            .changed()
            .into_iter()
            .chain(staged.unchanged().iter().cloned())
            .collect();
        let link = entry(&entries, path);
        staged
            .resolve_link(link)
            .unwrap()
            .target
            .map(|e| e.path.clone())
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn staged_links_are_followed_inside_the_index_like_a_checkout() {
        let fx = Fixture::new();
        fx.write("adr/001-a.md", "a\n");
        fx.write("docs/x.md", "x\n");
        fx.write("docs/sub/y.md", "y\n");
        fx.commit_all("base");
        stage_link(&fx, "adr/002-b.md", "001-a.md");
        stage_link(&fx, "adr/003-c.md", "./../docs//x.md");
        // Through a linked directory, then `..` from where that link leads (docs/sub/..).
        stage_link(&fx, "adr/sub", "../docs/sub");
        stage_link(&fx, "adr/004-d.md", "sub/../x.md");
        // A chain: 005 -> 002 -> 001.
        stage_link(&fx, "adr/005-e.md", "002-b.md");
        let staged = fx.staged();
        assert_eq!(resolve(&staged, "adr/002-b.md").unwrap(), "adr/001-a.md");
        assert_eq!(resolve(&staged, "adr/003-c.md").unwrap(), "docs/x.md");
        assert_eq!(resolve(&staged, "adr/004-d.md").unwrap(), "docs/x.md");
        assert_eq!(resolve(&staged, "adr/005-e.md").unwrap(), "adr/001-a.md");
        let link = staged
            .changed()
            .into_iter()
            .find(|e| e.path == "adr/004-d.md")
            .unwrap();
        let looked_up = staged.resolve_link(&link).unwrap().looked_up;
        assert_eq!(
            looked_up,
            ["adr/004-d.md", "adr/sub", "docs", "docs/sub", "docs/x.md"]
        );
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn staged_links_that_leave_the_commit_are_refused() {
        let fx = Fixture::new();
        fx.write("adr/001-a.md", "a\n");
        fx.write("docs/x.md", "x\n");
        fx.commit_all("base");
        stage_link(&fx, "adr/010.md", "/etc/passwd");
        stage_link(&fx, "adr/011.md", "../../outside.md");
        stage_link(&fx, "adr/012.md", "../docs/../../x.md");
        stage_link(&fx, "adr/013.md", "gone.md");
        stage_link(&fx, "adr/014.md", "../docs");
        stage_link(&fx, "adr/015.md", "..");
        stage_link(&fx, "adr/016.md", "016.md");
        stage_link(&fx, "adr/017.md", "018.md");
        stage_link(&fx, "adr/018.md", "017.md");
        stage_link(&fx, "adr/019.md", "001-a.md/x");
        stage_link(&fx, "adr/020.md", &"a/".repeat(2100));
        let staged = fx.staged();
        assert_eq!(
            resolve(&staged, "adr/010.md"),
            Err(LinkError::Absolute {
                target: "/etc/passwd".into()
            })
        );
        assert!(matches!(
            resolve(&staged, "adr/011.md"),
            Err(LinkError::Escapes { .. })
        ));
        assert!(matches!(
            resolve(&staged, "adr/012.md"),
            Err(LinkError::Escapes { .. })
        ));
        assert_eq!(
            resolve(&staged, "adr/013.md"),
            Err(LinkError::Missing {
                path: "adr/gone.md".into()
            })
        );
        assert_eq!(
            resolve(&staged, "adr/014.md"),
            Err(LinkError::Directory {
                path: "docs".into()
            })
        );
        assert_eq!(
            resolve(&staged, "adr/015.md"),
            Err(LinkError::Directory { path: ".".into() })
        );
        assert_eq!(resolve(&staged, "adr/016.md"), Err(LinkError::TooManyLinks));
        assert_eq!(resolve(&staged, "adr/017.md"), Err(LinkError::TooManyLinks));
        assert!(matches!(
            resolve(&staged, "adr/019.md"),
            Err(LinkError::Missing { .. })
        ));
        assert_eq!(
            resolve(&staged, "adr/020.md"),
            Err(LinkError::TooLong { size: 4200 })
        );
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn touches_names_what_the_commit_changes() {
        let fx = Fixture::new();
        fx.write("a.md", "a\n");
        fx.write("b.md", "b\n");
        fx.write("c.md", "c\n");
        fx.commit_all("base");
        fx.write("a.md", "changed\n");
        fx.git(&["add", "a.md"]);
        fx.git(&["rm", "-q", "--cached", "b.md"]);
        let staged = fx.staged();
        assert!(staged.touches("a.md"));
        assert!(staged.touches("b.md"));
        assert!(!staged.touches("c.md"));
        assert!(!staged.touches("d.md"));
    }
}
