//! Running the real `helix-gate` binary and writing test repositories.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

pub(crate) fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_helix-gate")
}

pub(crate) fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Run helix-gate in `cwd` with `args`, no stdin, colour off.
pub(crate) fn run(cwd: &Path, args: &[&str]) -> Output {
    Command::new(bin())
        .args(args)
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("CLAUDE_PROJECT_DIR")
        .env_remove("HELIX_GATE_CHILD")
        .stdin(Stdio::null())
        .output()
        .expect("run helix-gate")
}

pub(crate) fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

pub(crate) fn code(out: &Output) -> i32 {
    out.status.code().unwrap_or(-1)
}

/// A temporary directory that looks like a repository root (has `.git`).
pub(crate) fn scratch_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join(".git")).expect(".git");
    dir
}

pub(crate) fn write(root: &Path, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = root.join(rel);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(&path, content).expect("write");
    path
}

/// A stub reviewer in `root`: `fake/result.json` holds `result` (what
/// `claude -p --output-format json` would print), and the executable
/// `fake/reviewer.sh` runs the shell lines `before`, then prints it. Returns the
/// script's path; `fake/reviewer.sh` is the repository-relative command.
pub(crate) fn fake_reviewer(root: &Path, result: &str, before: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let result_path = write(root, "fake/result.json", result);
    let script = write(
        root,
        "fake/reviewer.sh",
        format!("#!/bin/sh\n{before}cat '{}'\n", result_path.display()),
    );
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    script
}

/// The passing fixture ADR (references src/lib.rs, so scratch repos create it).
pub(crate) fn good_adr() -> String {
    std::fs::read_to_string(manifest_dir().join("tests/fixtures/good/001-minimal-valid.md"))
        .expect("fixture")
}
