//! Running the real `helix-gate` binary (and the other programs tests start) in an
//! isolated environment, and writing test directories.

use std::ffi::{OsStr, OsString};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub(crate) fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_helix-gate")
}

pub(crate) fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `program` in `cwd` with nothing of the session the suite runs in: none of the test
/// process's `CLAUDE*` or `ANTHROPIC*` variables (the suite may run inside Claude Code, whose
/// `CLAUDECODE` switches pre-commit to its compact form), `AI_AGENT`, `HELIX_GATE*` (a
/// reviewer's `HELIX_GATE_CHILD` makes the hook a no-op), `GIT_*` (the suite may run inside
/// a git hook), the other agents' `CODEX*`, `GEMINI*`, `OPENAI*` or `XDG_STATE_HOME`; git reads
/// no global or system configuration;
/// `NO_COLOR=1`; stdin is `/dev/null`. `HOME` and `PATH` are inherited: a test that needs
/// its own sets them on the returned command, like every variable it means to pass.
pub(crate) fn isolated(program: impl AsRef<OsStr>, cwd: impl AsRef<Path>) -> Command {
    let mut cmd = Command::new(program);
    for (key, _) in std::env::vars_os() {
        let name = key.to_string_lossy();
        if name.starts_with("CLAUDE")
            || name.starts_with("ANTHROPIC")
            || name == "AI_AGENT"
            || name.starts_with("HELIX_GATE")
            || name.starts_with("GIT_")
            || name.starts_with("CODEX")
            || name.starts_with("GEMINI")
            || name.starts_with("OPENAI")
            || name == "XDG_STATE_HOME"
        {
            cmd.env_remove(&key);
        }
    }
    cmd.current_dir(cwd)
        .env("NO_COLOR", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .stdin(Stdio::null());
    cmd
}

/// `PATH` with the directory of the built helix-gate first (where `install` and the
/// installed shims look for `helix-gate`).
pub(crate) fn path_with_bin() -> OsString {
    let dir = Path::new(bin()).parent().expect("bin dir").to_path_buf();
    let mut dirs = vec![dir];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).expect("PATH")
}

/// Run `cmd` (stdin as configured) with stdout and stderr read on threads of their own, so
/// a full pipe never stalls it; kill it and fail the test when it still runs after `limit`.
pub(crate) fn bounded(cmd: &mut Command, limit: Duration) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {cmd:?}: {e}"));
    let out = drain(child.stdout.take());
    let err = drain(child.stderr.take());
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} still ran after {limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Output {
        status,
        stdout: out.join().expect("stdout reader"),
        stderr: err.join().expect("stderr reader"),
    }
}

/// Everything `pipe` delivers until it closes, read on a thread of its own.
pub(crate) fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// Run helix-gate in `cwd` with `args`, [`isolated`].
pub(crate) fn run(cwd: &Path, args: &[&str]) -> Output {
    isolated(bin(), cwd)
        .args(args)
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
    let result_path = write(root, "fake/result.json", result);
    let script = write(
        root,
        "fake/reviewer.sh",
        format!("#!/bin/sh\n{before}cat '{}'\n", result_path.display()),
    );
    super::make_executable(&script);
    script
}

/// The passing fixture ADR (references src/lib.rs, so scratch repos create it).
pub(crate) fn good_adr() -> String {
    std::fs::read_to_string(manifest_dir().join("tests/fixtures/good/001-minimal-valid.md"))
        .expect("fixture")
}

/// What one run of an agent's client (`codex exec`, `gemini -p`, `copilot -p`)
/// produced.
#[derive(Debug)]
pub(crate) struct ClientRun {
    /// What ran, for messages.
    pub what: &'static str,
    pub status: Option<std::process::ExitStatus>,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
}

impl ClientRun {
    pub(crate) fn describe(&self) -> String {
        format!(
            "status: {:?}, timed_out: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status, self.timed_out, self.stdout, self.stderr
        )
    }

    /// Panics (with the output) unless the run exited 0 in time.
    pub(crate) fn assert_success(&self) -> &Self {
        assert!(
            !self.timed_out && self.status.is_some_and(|s| s.success()),
            "{} did not succeed\n{}",
            self.what,
            self.describe()
        );
        self
    }
}

/// Run an agent's client: stdin closed, in a process group of its own, stdout
/// and stderr read on threads of their own; after `limit` the whole group (the
/// client, its native binary and the hooks it runs) is killed and the run
/// reported as timed out.
pub(crate) fn run_client(cmd: &mut Command, what: &'static str, limit: Duration) -> ClientRun {
    let mut child = super::own_group(
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped()),
    )
    .spawn()
    .unwrap_or_else(|e| panic!("spawn {what}: {e}"));
    // Read with a bound: a hook that escaped the group may hold a pipe open.
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            let _ = tx.send(String::from_utf8_lossy(&bytes).into_owned());
        });
        rx
    };
    let stdout = reader(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let stderr = reader(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
    );
    let deadline = Instant::now() + limit;
    let (status, timed_out) = loop {
        match child.try_wait() {
            Ok(Some(status)) => break (Some(status), false),
            Ok(None) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(25));
            }
            _ => {
                kill_group(child.id());
                break (child.wait().ok(), true);
            }
        }
    };
    let collect = |rx: std::sync::mpsc::Receiver<String>| {
        rx.recv_timeout(Duration::from_secs(5)).unwrap_or_default()
    };
    ClientRun {
        what,
        status,
        stdout: collect(stdout),
        stderr: collect(stderr),
        timed_out,
    }
}

/// Kill the process group `pid` leads (a client run by [`run_client`], its
/// native binary and the hooks it runs).
pub(crate) fn kill_group(pid: u32) {
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pid}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}
