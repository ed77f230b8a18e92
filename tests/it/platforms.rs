//! The binary on the other C libraries it can be built for. `main` is the C entry point
//! (`src/main.rs`), so std's start-up code does not run: on glibc std still finds the
//! arguments (glibc hands them to an initialiser std registers), on musl it does not, and
//! the binary reads `argv` itself. This builds it for `x86_64-unknown-linux-musl` (a debug
//! build, in a target directory of its own under the suite's, so it never waits for the
//! outer cargo's lock) and runs it with arguments: `--version`, `validate` on an ADR with a
//! known finding, and `hook --agent codex` on a no-op event.
//!
//! The musl target is installed by `scripts/test.sh` (`rustup target add`); without it the
//! test is skipped with a note, and fails under `CI`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::support::agents::{MISSING, bad};
use crate::support::cli::{bin, bounded, isolated, manifest_dir};
use crate::support::repo::{ScratchRepo, in_repo};

const MUSL: &str = "x86_64-unknown-linux-musl";

/// A debug build of every dependency for another target, on a busy 2-core machine: only a
/// hang reaches this.
const BUILD_LIMIT: Duration = Duration::from_secs(30 * 60);
const RUN_LIMIT: Duration = Duration::from_secs(60);

/// Whether rustc has the standard library for `target` (what `rustup target add` installs).
fn has_target(target: &str) -> bool {
    let out = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .expect("rustc --print sysroot");
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    Path::new(&sysroot)
        .join("lib/rustlib")
        .join(target)
        .join("lib")
        .is_dir()
}

/// The suite's target directory (the test binary's `helix-gate` is `<it>/debug/...`).
fn target_dir() -> PathBuf {
    Path::new(bin())
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .to_path_buf()
}

/// `helix-gate` built for `target`, or `None` (with a note; a panic under `CI`) when its
/// standard library is not installed.
fn build_for(target: &str) -> Option<PathBuf> {
    if !has_target(target) {
        assert!(
            std::env::var_os("CI").is_none(),
            "the Rust target {target} is not installed (CI is set): run scripts/test.sh or `rustup target add {target}`"
        );
        eprintln!(
            "skipped: the Rust target {target} is not installed (`rustup target add {target}`)"
        );
        return None;
    }
    let dir = target_dir().join("platforms");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let out = bounded(
        isolated(&cargo, manifest_dir())
            .args([
                "build",
                "--locked",
                "--quiet",
                "--bin",
                "helix-gate",
                "--target",
                target,
            ])
            .env("CARGO_TARGET_DIR", &dir)
            // The outer build's flags (say, a linker script for glibc) are not this one's.
            .env_remove("RUSTFLAGS")
            .env_remove("CARGO_ENCODED_RUSTFLAGS"),
        BUILD_LIMIT,
    );
    assert!(
        out.status.success(),
        "cargo build --target {target}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(dir.join(target).join("debug/helix-gate"))
}

#[test]
fn a_musl_build_reads_its_arguments() {
    let Some(musl) = build_for(MUSL) else {
        return;
    };
    let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();

    let repo = ScratchRepo::with_adr();
    let out = bounded(in_repo(&musl, repo.path()).arg("--version"), RUN_LIMIT);
    assert_eq!(
        (text(&out.stdout), out.status.code()),
        (
            format!("helix-gate {}\n", env!("CARGO_PKG_VERSION")),
            Some(0)
        ),
        "{}",
        text(&out.stderr)
    );

    repo.write("adr/002-bad.md", bad("002"));
    let out = bounded(
        in_repo(&musl, repo.path()).args(["validate", "adr"]),
        RUN_LIMIT,
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("adr/002-bad.md") && text(&out.stdout).contains(MISSING),
        "{}",
        text(&out.stdout)
    );

    // Codex's PostToolUse of a patch that adds a file that is no ADR: the no-op, no answer.
    let event = serde_json::json!({"session_id": "s", "turn_id": "t",
        "cwd": repo.path(), "hook_event_name": "PostToolUse", "tool_name": "apply_patch",
        "tool_input": {"command": "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"},
        "tool_response": "Exit code: 0", "tool_use_id": "c1"});
    let mut hook = in_repo(&musl, repo.path());
    hook.args(["hook", "--agent", "codex"]);
    let out = crate::support::agents::with_stdin(&mut hook, &format!("{event}\n"));
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), String::new()),
        "{}",
        text(&out.stderr)
    );
}
