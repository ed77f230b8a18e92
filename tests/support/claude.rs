//! Harness for running the real Claude Code CLI against [`super::fake_api`].
//!
//! Why it exists: end-to-end hook tests need `claude -p` to run hermetically —
//! a scratch HOME, a scratch git repo as cwd, no credentials or settings leaking
//! in from the developer's own Claude Code session, only 127.0.0.1 as API — and
//! they must never hang: the client is killed (with its whole process group,
//! hooks included) when a timeout expires.
//!
//! The environment and arguments follow the setup of `claude-code-hooks.md`
//! (section 9): `ANTHROPIC_BASE_URL`, `ANTHROPIC_API_KEY=sk-test`,
//! `DISABLE_TELEMETRY=1`, `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`, and
//! `-p <prompt> --output-format json --permission-mode acceptEdits
//! --allowedTools Bash,Read,Write,Edit`.
//!
//! The client binary comes from `scripts/install-claude.sh` (or
//! `HELIX_GATE_CLAUDE_BIN`); tests call [`require_claude`] and return early
//! when it is missing, except under `CI` where that is a failure. Scratch git
//! repositories to run it in are [`super::repo::ScratchRepo`].

use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;
use tempfile::TempDir;

use super::cli::isolated;
use super::fake_api::{FakeApi, RecordedRequest};

/// Default time limit for one `claude` run.
pub(crate) const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);

// ---------------------------------------------------------------------------
// Locating the client
// ---------------------------------------------------------------------------

/// The `claude` executable: env `HELIX_GATE_CLAUDE_BIN`, else
/// `<crate>/.cache/claude-code/node_modules/.bin/claude` if it exists.
pub(crate) fn claude_bin() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("HELIX_GATE_CLAUDE_BIN")
        && !path.is_empty()
    {
        return Some(PathBuf::from(path));
    }
    let local =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(".cache/claude-code/node_modules/.bin/claude");
    local.exists().then_some(local)
}

/// [`claude_bin`], or: under `CI` a panic, elsewhere a note on stderr and
/// `None` (the test should `return` early).
pub(crate) fn require_claude() -> Option<PathBuf> {
    if let Some(bin) = claude_bin() {
        return Some(bin);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "claude CLI not found (CI is set): run scripts/install-claude.sh or set HELIX_GATE_CLAUDE_BIN"
    );
    eprintln!("skipped: claude not installed (run scripts/install-claude.sh)");
    None
}

// ---------------------------------------------------------------------------
// Running the client
// ---------------------------------------------------------------------------

/// The environment that points a `claude` (run directly, or as helix-gate's
/// reviewer) at the Messages API at `base_url`: a test key, telemetry and
/// non-essential traffic off.
pub(crate) fn api_env(base_url: &str) -> [(&'static str, String); 4] {
    [
        ("ANTHROPIC_BASE_URL", base_url.to_owned()),
        ("ANTHROPIC_API_KEY", "sk-test".to_owned()),
        ("DISABLE_TELEMETRY", "1".to_owned()),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1".to_owned()),
    ]
}

/// Builder for one `claude -p` run.
pub(crate) struct ClaudeRun {
    bin: PathBuf,
    base_url: String,
    cwd: PathBuf,
    prompt: String,
    home: Option<PathBuf>,
    args: Vec<OsString>,
    env: Vec<(OsString, OsString)>,
    env_remove: Vec<OsString>,
    path_prepend: Vec<PathBuf>,
    timeout: Duration,
}

/// What a run produced.
#[derive(Debug)]
pub(crate) struct ClaudeOutcome {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    /// stdout parsed as JSON (the `--output-format json` result object).
    pub result: Option<Value>,
    pub timed_out: bool,
    /// The HOME the client ran with (transcripts are under `.claude/projects`).
    pub home: PathBuf,
    /// Keeps a scratch HOME alive as long as the outcome.
    _home_dir: Option<TempDir>,
}

impl ClaudeRun {
    /// `claude -p <prompt>` in `repo` against `api`.
    pub(crate) fn new(
        bin: impl Into<PathBuf>,
        api: &FakeApi,
        repo: impl AsRef<Path>,
        prompt: impl Into<String>,
    ) -> Self {
        ClaudeRun::with_base_url(bin, api.base_url(), repo, prompt)
    }

    /// Same as [`ClaudeRun::new`] with an explicit `ANTHROPIC_BASE_URL`.
    pub(crate) fn with_base_url(
        bin: impl Into<PathBuf>,
        base_url: impl Into<String>,
        repo: impl AsRef<Path>,
        prompt: impl Into<String>,
    ) -> Self {
        ClaudeRun {
            bin: bin.into(),
            base_url: base_url.into(),
            cwd: repo.as_ref().to_path_buf(),
            prompt: prompt.into(),
            home: None,
            args: Vec::new(),
            env: Vec::new(),
            env_remove: Vec::new(),
            path_prepend: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
        }
    }

    /// Use this HOME instead of a fresh temp dir (e.g. to share `~/.claude`
    /// between runs, or to pre-seed user settings).
    pub(crate) fn home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    /// Extra argument appended after the standard ones.
    pub(crate) fn arg(mut self, arg: impl Into<OsString>) -> Self {
        self.args.push(arg.into());
        self
    }

    pub(crate) fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Extra environment variable (applied after the standard ones, so it can
    /// override them, e.g. `CLAUDE_CODE_STOP_HOOK_BLOCK_CAP`).
    pub(crate) fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.env.push((key.into(), value.into()));
        self
    }

    /// Remove an inherited environment variable.
    pub(crate) fn env_remove(mut self, key: impl Into<OsString>) -> Self {
        self.env_remove.push(key.into());
        self
    }

    /// Put `dir` in front of `PATH` (e.g. the directory of the helix-gate binary).
    pub(crate) fn path_prepend(mut self, dir: impl Into<PathBuf>) -> Self {
        self.path_prepend.push(dir.into());
        self
    }

    pub(crate) fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Runs the client to completion (or kills it at the timeout).
    pub(crate) fn run(self) -> ClaudeOutcome {
        let (home, home_dir) = if let Some(home) = &self.home {
            fs::create_dir_all(home).expect("create given HOME for claude");
            (home.clone(), None)
        } else {
            let dir = tempfile::Builder::new()
                .prefix("helix-gate-claude-home-")
                .tempdir()
                .expect("create scratch HOME for claude");
            (dir.path().to_path_buf(), Some(dir))
        };

        let mut child = self
            .command(&home)
            .spawn()
            .unwrap_or_else(|e| panic!("spawn {}: {e}", self.bin.display()));
        // The child leads its own process group (pgid == pid).
        let pid = child.id();
        let stdout_buf = Arc::new(Mutex::new(Vec::new()));
        let stderr_buf = Arc::new(Mutex::new(Vec::new()));
        let readers = [
            spawn_reader(
                child.stdout.take().expect("claude stdout pipe"),
                Arc::clone(&stdout_buf),
            ),
            spawn_reader(
                child.stderr.take().expect("claude stderr pipe"),
                Arc::clone(&stderr_buf),
            ),
        ];

        let deadline = Instant::now() + self.timeout;
        let mut timed_out = false;
        let status = loop {
            match child.try_wait().expect("wait for claude") {
                Some(status) => break status,
                None if Instant::now() >= deadline => {
                    timed_out = true;
                    kill_tree(pid);
                    break child.wait().expect("wait for killed claude");
                }
                None => thread::sleep(Duration::from_millis(50)),
            }
        };

        // Leftover group members (a hook's background process) can keep the
        // pipes open; give the readers a moment, then kill the group.
        let readers_done = |readers: &[thread::JoinHandle<()>]| {
            readers.iter().all(thread::JoinHandle::is_finished)
        };
        let grace = Instant::now() + Duration::from_secs(5);
        while !readers_done(&readers) && Instant::now() < grace {
            thread::sleep(Duration::from_millis(20));
        }
        if !readers_done(&readers) {
            // Leftovers of the client's own group only (its pid is reaped, so
            // only a still-existing group with that id is signalled).
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{pid}")])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
            let grace = Instant::now() + Duration::from_secs(5);
            while !readers_done(&readers) && Instant::now() < grace {
                thread::sleep(Duration::from_millis(20));
            }
        }
        // Readers still blocked here (a process outside the group holds the
        // pipe) are detached; we use what they read so far.

        let take = |buf: &Arc<Mutex<Vec<u8>>>| {
            let bytes = buf.lock().unwrap_or_else(PoisonError::into_inner).clone();
            String::from_utf8_lossy(&bytes).into_owned()
        };
        let stdout = take(&stdout_buf);
        let stderr = take(&stderr_buf);
        let result = parse_result(&stdout);
        ClaudeOutcome {
            status,
            stdout,
            stderr,
            result,
            timed_out,
            home,
            _home_dir: home_dir,
        }
    }

    /// The `claude -p` command, isolated from the developer's environment, with `home` as HOME.
    fn command(&self, home: &Path) -> Command {
        // Nothing from the developer's own Claude Code session may leak in, nor
        // helix-gate's per-user state: it goes under HOME.
        let mut cmd = isolated(&self.bin, &self.cwd);
        cmd.arg("-p")
            .arg(&self.prompt)
            .args([
                "--output-format",
                "json",
                "--permission-mode",
                "acceptEdits",
            ])
            .args(["--allowedTools", "Bash,Read,Write,Edit"])
            .args(&self.args);

        cmd.env("HOME", home).envs(api_env(&self.base_url));
        if !self.path_prepend.is_empty() {
            let mut paths = self.path_prepend.clone();
            if let Some(path) = std::env::var_os("PATH") {
                paths.extend(std::env::split_paths(&path));
            }
            cmd.env(
                "PATH",
                std::env::join_paths(paths).expect("join PATH entries"),
            );
        }
        for key in &self.env_remove {
            cmd.env_remove(key);
        }
        for (key, value) in &self.env {
            cmd.env(key, value);
        }
        cmd.stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        super::own_group(&mut cmd);
        cmd
    }
}

fn spawn_reader(
    mut pipe: impl Read + Send + 'static,
    buf: Arc<Mutex<Vec<u8>>>,
) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => buf
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .extend_from_slice(&chunk[..n]),
            }
        }
    })
}

/// Kills the client and everything it started. Claude Code runs each hook
/// with `setsid` (own session and process group), so killing the client's
/// group is not enough: stop the client first (no new hooks), collect its
/// descendants from `/proc` while they are still attached to it, then SIGKILL
/// the client's group, every process group led by a descendant, and every
/// descendant. `kill` is used instead of libc, which is not a dependency.
fn kill_tree(pid: u32) {
    let _ = Command::new("kill")
        .args(["-STOP", &pid.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let descendants = descendants_of(pid);
    let mut targets = vec![format!("-{pid}")];
    for (child, pgid) in &descendants {
        if descendants.iter().any(|(p, _)| p == pgid) {
            targets.push(format!("-{pgid}"));
        }
        targets.push(child.to_string());
    }
    targets.dedup();
    let _ = Command::new("kill")
        .arg("-KILL")
        .arg("--")
        .args(&targets)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}

/// `(pid, pgid)` of every descendant of `root`, read from `/proc/*/stat`
/// (empty where `/proc` is unavailable).
fn descendants_of(root: u32) -> Vec<(u32, u32)> {
    let table = super::procs::all();
    let mut out: Vec<(u32, u32)> = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for p in &table {
            if p.ppid == parent && !out.iter().any(|(pid, _)| *pid == p.pid) {
                out.push((p.pid, p.pgid));
                frontier.push(p.pid);
            }
        }
    }
    out
}

/// The result object: stdout as JSON, or else its last line that parses as a
/// JSON object with `"type": "result"`.
fn parse_result(stdout: &str) -> Option<Value> {
    if let Ok(value) = serde_json::from_str::<Value>(stdout.trim())
        && value.is_object()
    {
        return Some(value);
    }
    stdout
        .lines()
        .rev()
        .filter_map(|line| serde_json::from_str::<Value>(line.trim()).ok())
        .find(|v| v.get("type").and_then(Value::as_str) == Some("result"))
}

impl ClaudeOutcome {
    /// `result.result` (the final assistant text).
    pub(crate) fn result_text(&self) -> Option<&str> {
        self.result.as_ref()?.get("result")?.as_str()
    }

    /// A field of the result object, e.g. `outcome.field("terminal_reason")`.
    pub(crate) fn field(&self, name: &str) -> Option<&Value> {
        self.result.as_ref()?.get(name)
    }

    pub(crate) fn session_id(&self) -> Option<&str> {
        self.field("session_id")?.as_str()
    }

    /// Everything worth printing when an assertion fails.
    pub(crate) fn describe(&self) -> String {
        format!(
            "status: {:?}, timed_out: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status, self.timed_out, self.stdout, self.stderr
        )
    }

    /// Panics (with stdout/stderr) unless the run exited 0 in time with a
    /// parsed result object whose `is_error` is false.
    pub(crate) fn assert_success(&self) -> &Self {
        let ok = !self.timed_out
            && self.status.success()
            && self.field("is_error").and_then(Value::as_bool) == Some(false);
        assert!(ok, "claude run did not succeed\n{}", self.describe());
        self
    }
}

// ---------------------------------------------------------------------------
// Searching captured requests
// ---------------------------------------------------------------------------

/// Requests whose `messages` contain `text` anywhere.
pub(crate) fn requests_containing<'a>(
    requests: &'a [RecordedRequest],
    text: &str,
) -> Vec<&'a RecordedRequest> {
    requests.iter().filter(|r| r.contains(text)).collect()
}

/// Index (into `requests`) of the first request holding a message with `role`
/// one of whose text blocks starts with `prefix`.
pub(crate) fn first_request_with(
    requests: &[RecordedRequest],
    role: &str,
    prefix: &str,
) -> Option<usize> {
    requests
        .iter()
        .position(|r| r.blocks_of_role(role).iter().any(|t| t.starts_with(prefix)))
}

/// Distinct text blocks of messages with `role` that start with `prefix`,
/// over all requests, in order of first appearance. (Each request repeats
/// the conversation so far, so duplicates are folded.)
pub(crate) fn message_blocks_starting_with(
    requests: &[RecordedRequest],
    role: &str,
    prefix: &str,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for request in requests {
        for text in request.blocks_of_role(role) {
            if text.starts_with(prefix) && !out.contains(&text) {
                out.push(text);
            }
        }
    }
    out
}

/// System-role texts `<Event>:<Tool> hook blocking error from command: ...`,
/// e.g. `hook_blocking_errors(&reqs, "PostToolUse:Write")`.
pub(crate) fn hook_blocking_errors(
    requests: &[RecordedRequest],
    event_and_tool: &str,
) -> Vec<String> {
    let prefix = format!("{event_and_tool} hook blocking error from command:");
    // Several hook texts may share one block (joined by "\n\n"); split them.
    let mut out: Vec<String> = Vec::new();
    for block in message_blocks_starting_with(requests, "system", &prefix) {
        for part in block.split("\n\n") {
            let part = part.to_owned();
            if part.starts_with(&prefix) && !out.contains(&part) {
                out.push(part);
            }
        }
    }
    out
}

/// User-role texts `Stop hook feedback:\n...` (one per honoured Stop block).
/// Note: identical feedback from two blocks folds into one entry; count
/// requests with [`first_request_with`] / `requests.len()` when that matters.
pub(crate) fn stop_hook_feedback(requests: &[RecordedRequest]) -> Vec<String> {
    message_blocks_starting_with(requests, "user", "Stop hook feedback:\n")
}

/// `is_error` tool results, e.g. `PreToolUse:Write hook error: ...`, over all
/// requests (deduplicated by `tool_use_id`).
pub(crate) fn error_tool_results(requests: &[RecordedRequest]) -> Vec<super::fake_api::ToolResult> {
    let mut out: Vec<super::fake_api::ToolResult> = Vec::new();
    for request in requests {
        for result in request.tool_results() {
            if result.is_error && !out.iter().any(|r| r.tool_use_id == result.tool_use_id) {
                out.push(result);
            }
        }
    }
    out
}
