//! Real git repositories for tests, in temp dirs, driven by the git CLI.
//!
//! git runs [`isolated`] (no global or system configuration, none of the test process's
//! `GIT_*` or `CLAUDE*` variables: the suite may run inside a git hook or inside Claude
//! Code), with a fixed identity and fixed dates, no signing, `main` as the first branch. A
//! pre-commit shim that git runs finds the freshly built helix-gate first on `PATH` and
//! the test's state folder of the repository ([`state_dir`]).

use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::Value;
use tempfile::TempDir;

use super::cli::{bin, bounded, good_adr, isolated, path_with_bin};

/// Where [`ScratchRepo::with_adr`] commits the good fixture ADR.
pub(crate) const GOOD_ADR: &str = "adr/001-minimal-valid.md";

/// Longest a helix-gate run of [`in_repo`] may take here: a hang fails its test instead of
/// stalling the suite.
pub(crate) const TIME_LIMIT: Duration = Duration::from_secs(60);

/// The test's own folder for helix-gate's per-user state (the approval cache's signing
/// key, trust records, session baselines) for the repository at `root`: the same for every
/// call in one test, removed with the repository, never the developer's `~/.local/state`.
pub(crate) fn state_dir(root: &Path) -> PathBuf {
    root.join(".git/helix-gate-test-state")
}

/// `program` in `dir` as a git hook of the repository around `dir` runs it: [`isolated`],
/// the built helix-gate first on `PATH`, and that repository's [`state_dir`] (or `dir`'s,
/// outside any repository).
pub(crate) fn in_repo(program: impl AsRef<OsStr>, dir: &Path) -> Command {
    let root = dir
        .ancestors()
        .find(|d| d.join(".git").exists())
        .unwrap_or(dir);
    let mut cmd = isolated(program, dir);
    cmd.env("PATH", path_with_bin())
        .env("HELIX_GATE_STATE_DIR", state_dir(root));
    cmd
}

/// helix-gate with `args` in `dir` ([`in_repo`]), bounded in time.
pub(crate) fn helix_in(dir: &Path, args: &[&str]) -> Output {
    bounded(in_repo(bin(), dir).args(args), TIME_LIMIT)
}

/// `git` in `dir` ([`in_repo`]) with the fixed identity and dates, no signing, `main` as
/// the first branch.
pub(crate) fn git_command(dir: &Path) -> Command {
    let mut cmd = in_repo("git", dir);
    cmd.args([
        "-c",
        "commit.gpgsign=false",
        "-c",
        "init.defaultBranch=main",
    ])
    .env("GIT_AUTHOR_NAME", "Helix Test")
    .env("GIT_AUTHOR_EMAIL", "helix-test@example.invalid")
    .env("GIT_COMMITTER_NAME", "Helix Test")
    .env("GIT_COMMITTER_EMAIL", "helix-test@example.invalid")
    .env("GIT_AUTHOR_DATE", "2025-01-01T00:00:00Z")
    .env("GIT_COMMITTER_DATE", "2025-01-01T00:00:00Z");
    cmd
}

/// Runs git in `dir`, panicking with its output on failure; returns stdout, trimmed.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let out = git_command(dir)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("run git {args:?}: {e}"));
    assert!(
        out.status.success(),
        "git {args:?} failed in {}: {}\n{}",
        dir.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A git repository at `<temp dir>/repo` (all removed on drop; the rest of the temp dir,
/// [`ScratchRepo::base`], is room outside the repository), branch `main`, signing off, the
/// fixed identity also in its own configuration (for git run by Claude Code's Bash tool).
pub(crate) struct ScratchRepo {
    dir: TempDir,
    path: PathBuf,
}

impl ScratchRepo {
    /// A repository with no commit.
    pub(crate) fn empty() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("helix-gate-repo-")
            .tempdir()
            .expect("create scratch repo dir");
        // Canonical path: claude reports (and hooks receive) the real path.
        let base = dir
            .path()
            .canonicalize()
            .expect("canonicalize scratch repo dir");
        let path = base.join("repo");
        fs::create_dir(&path).expect("create the repository folder");
        git(&path, &["init", "-q", "-b", "main"]);
        git(&path, &["config", "commit.gpgsign", "false"]);
        git(&path, &["config", "tag.gpgsign", "false"]);
        git(&path, &["config", "user.name", "Helix Test"]);
        git(
            &path,
            &["config", "user.email", "helix-test@example.invalid"],
        );
        ScratchRepo { dir, path }
    }

    /// A repository with one commit holding `README.md`.
    pub(crate) fn new() -> Self {
        let repo = ScratchRepo::empty();
        repo.write("README.md", "# scratch\n");
        repo.commit_all("initial");
        repo
    }

    /// A repository with one commit holding the good fixture ADR at [`GOOD_ADR`] and the
    /// file it references (`src/lib.rs`).
    pub(crate) fn with_adr() -> Self {
        let repo = ScratchRepo::empty();
        repo.write("src/lib.rs", "");
        repo.write(GOOD_ADR, good_adr());
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "--no-verify", "-m", "base"]);
        repo
    }

    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// The temp dir around the repository: room for files outside it, removed with it.
    pub(crate) fn base(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical tempdir")
    }

    /// Absolute path of `rel` inside the repo.
    pub(crate) fn join(&self, rel: impl AsRef<Path>) -> PathBuf {
        self.path.join(rel)
    }

    /// This repository's [`state_dir`].
    pub(crate) fn state_dir(&self) -> PathBuf {
        state_dir(&self.path)
    }

    /// Writes a file (creating parent directories).
    pub(crate) fn write(&self, rel: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> PathBuf {
        let path = self.path.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent dirs in scratch repo");
        }
        fs::write(&path, contents).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        path
    }

    /// Writes an executable file (e.g. a hook script starting with `#!/bin/sh`).
    pub(crate) fn write_executable(
        &self,
        rel: impl AsRef<Path>,
        contents: impl AsRef<[u8]>,
    ) -> PathBuf {
        let path = self.write(rel, contents);
        super::make_executable(&path);
        path
    }

    /// Reads a file of the repo, `None` if it does not exist.
    pub(crate) fn read(&self, rel: impl AsRef<Path>) -> Option<String> {
        fs::read_to_string(self.path.join(rel)).ok()
    }

    /// Writes `<repo>/.claude/settings.json`.
    pub(crate) fn write_settings(&self, settings: &Value) -> PathBuf {
        let text = serde_json::to_string_pretty(settings).expect("serialize settings");
        self.write(".claude/settings.json", text)
    }

    /// `git add -A && git commit -m <message>`.
    pub(crate) fn commit_all(&self, message: &str) {
        self.git(&["add", "-A"]);
        self.git(&["commit", "-q", "--allow-empty", "-m", message]);
    }

    /// [`git`] in the repository: stdout, trimmed; a failure fails the test.
    pub(crate) fn git(&self, args: &[&str]) -> String {
        git(&self.path, args)
    }

    /// git in the repository, whatever its outcome.
    pub(crate) fn git_out(&self, args: &[&str]) -> Output {
        git_command(&self.path)
            .args(args)
            .output()
            .expect("run git")
    }

    /// The commit id of `HEAD`.
    pub(crate) fn head(&self) -> String {
        self.git(&["rev-parse", "HEAD"])
    }

    /// helix-gate with `args` in the repository ([`helix_in`]).
    pub(crate) fn helix(&self, args: &[&str]) -> Output {
        helix_in(&self.path, args)
    }

    /// `helix-gate pre-commit` in the repository ([`helix_in`]).
    pub(crate) fn pre_commit(&self) -> Output {
        self.helix(&["pre-commit"])
    }

    /// Keep the directory after the test (for debugging); returns its path.
    pub(crate) fn keep(self) -> PathBuf {
        let _ = self.dir.keep();
        self.path
    }
}

impl Default for ScratchRepo {
    fn default() -> Self {
        ScratchRepo::new()
    }
}
