//! Starting the reviewer and getting a verdict out of it, or a typed reason why not.
//!
//! The reviewer is one child process (argv vector, never a shell) in its own
//! process group, with the run folder as working directory and
//! `HELIX_GATE_CHILD=1` in its environment. Its stdout and stderr are read on
//! threads (so a full pipe can never block it), each with a size cap. The wait
//! is bounded by the type's timeout; when it expires the whole process group is
//! killed with SIGKILL and reaped, so nothing keeps running.
//!
//! A small watchdog (`sh -c 'read -r _; kill -KILL 0'`, a constant script
//! without arguments) joins the reviewer's process group and waits on a pipe
//! from helix-gate. When helix-gate ends for any reason (Ctrl-C on a terminal,
//! SIGKILL from a hook timeout) or is done with the run, the pipe closes and the
//! watchdog kills the group. Without it, a reviewer in its own group would
//! survive a Ctrl-C of its parent.

use std::ffi::OsString;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use std::os::unix::process::CommandExt as _;

use serde_json::Value;

use super::verdict::{self, ReviewerVerdict};
use crate::env;

/// Cap on the reviewer's stdout (the result JSON is a few KB).
const STDOUT_CAP: usize = 16 * 1024 * 1024;
/// Cap on the reviewer's stderr (kept for error messages).
const STDERR_CAP: usize = 256 * 1024;
/// How long the output readers may take after the reviewer exited.
const READER_GRACE: Duration = Duration::from_secs(2);

/// Tools the reviewer may use: read-only.
pub const ALLOWED_TOOLS: &str = "Read,Grep,Glob";
/// Tools denied explicitly (on top of `--tools` offering only the allowed ones).
pub const DISALLOWED_TOOLS: &str =
    "Bash,Edit,Write,MultiEdit,NotebookEdit,WebFetch,WebSearch,Agent,Task,KillShell,BashOutput";

/// Why a reviewer run produced no usable verdict. Each variant is an
/// infrastructure failure, never a judgement of the reviewed file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunnerError {
    #[error(
        "reviewer command `{command}` not found (install Claude Code, or set `command` in config/approvals.yaml)"
    )]
    NotFound { command: String },
    #[error("cannot start reviewer command `{command}`: {message}")]
    Spawn { command: String, message: String },
    #[error("reviewer timed out after {seconds} s; its process group was killed")]
    Timeout { seconds: u64 },
    #[error("reviewer exited with {status}{detail}")]
    Exit { status: String, detail: String },
    #[error("reviewer output is not a result JSON object: {message}")]
    InvalidJson { message: String },
    #[error("reviewer stopped at the cost cap of ${cap:.2} (max_budget_usd) without a verdict")]
    Budget { cap: f64 },
    #[error("reviewer run ended with error `{subtype}`{detail}")]
    ReviewerError { subtype: String, detail: String },
    #[error("reviewer ended without a verdict: it never made a valid StructuredOutput call")]
    NoStructuredOutput,
    #[error("reviewer's verdict does not match the verdict schema: {message}")]
    InvalidVerdict { message: String },
}

impl RunnerError {
    /// Stable short name, recorded as `infrastructure_failure`.
    pub fn kind(&self) -> &'static str {
        match self {
            RunnerError::NotFound { .. } => "missing-command",
            RunnerError::Spawn { .. } => "spawn",
            RunnerError::Timeout { .. } => "timeout",
            RunnerError::Exit { .. } => "exit-status",
            RunnerError::InvalidJson { .. } => "invalid-json",
            RunnerError::Budget { .. } => "budget",
            RunnerError::ReviewerError { .. } => "reviewer-error",
            RunnerError::NoStructuredOutput => "no-structured-output",
            RunnerError::InvalidVerdict { .. } => "invalid-verdict",
        }
    }
}

/// What to start.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub timeout: Duration,
    /// `max_budget_usd`, for the message when the cap is hit.
    pub budget: f64,
}

/// The parameters of the reviewer's argv.
pub struct ArgvSpec<'a> {
    pub prompt: &'a str,
    pub schema: &'a str,
    pub model: &'a str,
    pub max_budget_usd: f64,
    pub repo_root: &'a Path,
}

/// The reviewer's arguments (after the program name).
pub fn argv(spec: &ArgvSpec<'_>) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::with_capacity(28);
    let mut push = |a: &str| args.push(OsString::from(a));
    push("-p");
    push(spec.prompt);
    push("--output-format");
    push("json");
    push("--json-schema");
    push(spec.schema);
    push("--model");
    push(spec.model);
    push("--max-budget-usd");
    push(&format_budget(spec.max_budget_usd));
    push("--tools");
    push(ALLOWED_TOOLS);
    push("--allowedTools");
    push(ALLOWED_TOOLS);
    push("--disallowedTools");
    push(DISALLOWED_TOOLS);
    push("--permission-mode");
    push("dontAsk");
    push("--settings");
    push(r#"{"disableAllHooks":true}"#);
    push("--strict-mcp-config");
    push("--no-session-persistence");
    push("--add-dir");
    args.push(spec.repo_root.as_os_str().to_owned());
    args
}

/// `0.3` → `0.30`, `1.234` → `1.234`.
fn format_budget(budget: f64) -> String {
    let text = format!("{budget:.4}");
    let trimmed = text.trim_end_matches('0');
    if trimmed.ends_with('.') {
        format!("{trimmed}00")
    } else if trimmed.split('.').nth(1).is_some_and(|d| d.len() == 1) {
        format!("{trimmed}0")
    } else {
        trimmed.to_owned()
    }
}

/// Resolve the configured command: a bare name is looked up on PATH by the
/// OS; a relative path with a `/` is taken relative to the repository root
/// (not to the run folder the reviewer starts in).
pub fn resolve_program(command: &str, repo_root: &Path) -> PathBuf {
    let path = Path::new(command);
    if path.is_relative() && command.contains('/') {
        repo_root.join(path)
    } else {
        path.to_path_buf()
    }
}

/// Usage and cost of a run, as far as the reviewer reported them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metering {
    /// Model that answered (first key of `modelUsage`), if reported.
    pub model: Option<String>,
    pub cost_usd: f64,
    /// Input (incl. cache reads/writes) + output tokens of the whole run.
    pub tokens_used: u64,
}

/// The end of one reviewer run.
#[derive(Debug)]
pub struct RunOutcome {
    pub verdict: Result<ReviewerVerdict, RunnerError>,
    pub metering: Metering,
    pub duration: Duration,
    /// Raw output, kept for `output/reviewer.json` and `output/reviewer.stderr`.
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// Start the reviewer, wait (bounded) and interpret its output. `tick` is
/// called about once a second with the elapsed time while it runs.
pub fn run(invocation: &Invocation, tick: &mut dyn FnMut(Duration)) -> RunOutcome {
    let started = Instant::now();
    let command_name = invocation.program.display().to_string();
    let mut cmd = Command::new(&invocation.program);
    cmd.args(&invocation.args)
        .current_dir(&invocation.cwd)
        .env(env::HELIX_GATE_CHILD, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => {
            let error = if e.kind() == std::io::ErrorKind::NotFound {
                RunnerError::NotFound {
                    command: command_name,
                }
            } else {
                RunnerError::Spawn {
                    command: command_name,
                    message: e.to_string(),
                }
            };
            return RunOutcome {
                verdict: Err(error),
                metering: Metering::default(),
                duration: started.elapsed(),
                stdout: Vec::new(),
                stderr: Vec::new(),
            };
        }
    };
    let pgid = child.id();
    let mut watchdog = spawn_watchdog(pgid);

    let stdout_buf = Arc::new(Mutex::new(Vec::new()));
    let stderr_buf = Arc::new(Mutex::new(Vec::new()));
    let mut readers = Vec::with_capacity(2);
    if let Some(pipe) = child.stdout.take() {
        readers.push(spawn_reader(pipe, Arc::clone(&stdout_buf), STDOUT_CAP));
    }
    if let Some(pipe) = child.stderr.take() {
        readers.push(spawn_reader(pipe, Arc::clone(&stderr_buf), STDERR_CAP));
    }

    // The waiter owns the child; the main thread waits on the channel with a
    // deadline, so the reaction to the exit is immediate (no polling).
    let (tx, rx) = mpsc::channel();
    let waiter = thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let deadline = started + invocation.timeout;
    let mut timed_out = false;
    let mut reaped = true;
    let status: Option<ExitStatus> = loop {
        let now = Instant::now();
        if now >= deadline {
            timed_out = true;
            kill_group_tree(pgid);
            drop(watchdog.as_mut().and_then(|w| w.stdin.take()));
            // SIGKILL cannot be ignored: the wait returns promptly.
            match rx.recv_timeout(Duration::from_secs(10)) {
                Ok(result) => break result.ok(),
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    reaped = false;
                    break None;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => break None,
            }
        }
        let slice = (deadline - now).min(Duration::from_secs(1));
        match rx.recv_timeout(slice) {
            Ok(result) => break result.ok(),
            Err(mpsc::RecvTimeoutError::Timeout) => tick(started.elapsed()),
            Err(mpsc::RecvTimeoutError::Disconnected) => break None,
        }
    };
    let duration = started.elapsed();
    if reaped {
        let _ = waiter.join();
    }
    // else: a process that survives SIGKILL for 10 s (uninterruptible I/O) is
    // left to its waiter thread, which reaps it whenever it ends.

    // Done with the group: the watchdog kills whatever the reviewer left behind.
    finish_watchdog(watchdog.take(), pgid);
    let grace = Instant::now() + READER_GRACE;
    while !readers.iter().all(JoinHandle::is_finished) && Instant::now() < grace {
        thread::sleep(Duration::from_millis(5));
    }
    // Readers still blocked (a process outside the group holds a pipe) are
    // detached; what they read so far is used.
    let take = |buf: &Arc<Mutex<Vec<u8>>>| {
        std::mem::take(&mut *buf.lock().unwrap_or_else(|p| p.into_inner()))
    };
    let stdout = take(&stdout_buf);
    let stderr = take(&stderr_buf);

    let (verdict, metering) = if timed_out {
        let parsed = parse_result(&stdout).ok();
        (
            Err(RunnerError::Timeout {
                seconds: invocation.timeout.as_secs(),
            }),
            parsed.as_ref().map(metering).unwrap_or_default(),
        )
    } else {
        interpret(status, &stdout, &stderr, invocation.budget)
    };
    RunOutcome {
        verdict,
        metering,
        duration,
        stdout,
        stderr,
    }
}

fn spawn_reader<R: Read + Send + 'static>(
    mut pipe: R,
    buf: Arc<Mutex<Vec<u8>>>,
    cap: usize,
) -> JoinHandle<()> {
    thread::spawn(move || {
        let mut chunk = [0u8; 16 * 1024];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let mut buf = buf.lock().unwrap_or_else(|p| p.into_inner());
                    // Past the cap, keep draining (so the child never blocks) but drop the bytes.
                    let room = cap.saturating_sub(buf.len());
                    buf.extend_from_slice(&chunk[..n.min(room)]);
                }
            }
        }
    })
}

/// The watchdog: a member of the reviewer's process group that kills the
/// group when its stdin (a pipe from helix-gate) closes.
fn spawn_watchdog(pgid: u32) -> Option<Child> {
    Command::new("sh")
        .args(["-c", "read -r _; kill -KILL 0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(pgid as i32)
        .spawn()
        .ok()
}

/// Close the watchdog's pipe (it kills the group, itself included) and reap
/// it; without a watchdog, kill the group directly.
fn finish_watchdog(watchdog: Option<Child>, pgid: u32) {
    match watchdog {
        Some(mut w) => {
            let stdin: Option<ChildStdin> = w.stdin.take();
            drop(stdin);
            let deadline = Instant::now() + Duration::from_secs(5);
            loop {
                match w.try_wait() {
                    Ok(Some(_)) | Err(_) => break,
                    Ok(None) if Instant::now() >= deadline => {
                        let _ = w.kill();
                        let _ = w.wait();
                        break;
                    }
                    Ok(None) => thread::sleep(Duration::from_millis(1)),
                }
            }
        }
        None => kill(&[format!("-{pgid}")]),
    }
}

/// SIGKILL the reviewer's group, and (where `/proc` exists) any descendant
/// that moved to a group or session of its own. The leader is stopped first
/// so it cannot start anything new while its descendants are collected.
fn kill_group_tree(pgid: u32) {
    kill_signal("-STOP", &[pgid.to_string()]);
    let descendants = descendants_of(pgid);
    let mut targets = vec![format!("-{pgid}")];
    for (pid, group) in &descendants {
        if *group != pgid && descendants.iter().any(|(p, _)| p == group) {
            targets.push(format!("-{group}"));
        }
        targets.push(pid.to_string());
    }
    targets.dedup();
    kill(&targets);
}

fn kill(targets: &[String]) {
    kill_signal("-KILL", targets);
}

/// `kill <signal> -- <targets>`; falls back to the shell's builtin `kill` where
/// no `kill` executable exists (targets are arguments, never part of the script).
fn kill_signal(signal: &str, targets: &[String]) {
    let status = Command::new("kill")
        .arg(signal)
        .arg("--")
        .args(targets)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    if let Err(e) = status
        && e.kind() == std::io::ErrorKind::NotFound
    {
        let _ = Command::new("sh")
            .args(["-c", &format!("kill {signal} \"$@\""), "sh"])
            .args(targets)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
    }
}

/// `(pid, pgid)` of every descendant of `root` from `/proc/*/stat` (empty
/// where `/proc` is unavailable).
fn descendants_of(root: u32) -> Vec<(u32, u32)> {
    let mut table: Vec<(u32, u32, u32)> = Vec::new();
    if let Ok(entries) = std::fs::read_dir("/proc") {
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<u32>().ok())
            else {
                continue;
            };
            if let Some((ppid, pgid)) = std::fs::read_to_string(entry.path().join("stat"))
                .ok()
                .as_deref()
                .and_then(parse_stat)
            {
                table.push((pid, ppid, pgid));
            }
        }
    }
    let mut out: Vec<(u32, u32)> = Vec::new();
    let mut frontier = vec![root];
    while let Some(parent) = frontier.pop() {
        for &(pid, ppid, pgid) in &table {
            if ppid == parent && !out.iter().any(|(p, _)| *p == pid) {
                out.push((pid, pgid));
                frontier.push(pid);
            }
        }
    }
    out
}

/// `(ppid, pgid)` from a `/proc/<pid>/stat` line: `pid (comm) state ppid pgrp ...`.
fn parse_stat(stat: &str) -> Option<(u32, u32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(1);
    Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
}

/// The result object: stdout as one JSON object, or else its last line that
/// parses as an object with `"type": "result"`.
fn parse_result(stdout: &[u8]) -> Result<Value, String> {
    if stdout.len() >= STDOUT_CAP {
        return Err(format!("output exceeds {} MiB", STDOUT_CAP / 1024 / 1024));
    }
    let text = String::from_utf8_lossy(stdout);
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err("no output".to_owned());
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(value) if value.is_object() => return Ok(value),
        Ok(_) => {}
        Err(e) => {
            if let Some(v) = trimmed
                .lines()
                .rev()
                .filter_map(|line| serde_json::from_str::<Value>(line.trim()).ok())
                .find(|v| v.get("type").and_then(Value::as_str) == Some("result"))
            {
                return Ok(v);
            }
            return Err(format!(
                "{e}; output starts with {:?}",
                excerpt(trimmed, 120)
            ));
        }
    }
    Err(format!(
        "expected a JSON object; output starts with {:?}",
        excerpt(trimmed, 120)
    ))
}

fn metering(result: &Value) -> Metering {
    let usage = result.get("usage");
    let tokens = |key: &str| {
        usage
            .and_then(|u| u.get(key))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    Metering {
        model: result
            .get("modelUsage")
            .and_then(Value::as_object)
            .and_then(|m| m.keys().next().cloned()),
        cost_usd: result
            .get("total_cost_usd")
            .and_then(Value::as_f64)
            .filter(|c| c.is_finite() && *c >= 0.0)
            .unwrap_or(0.0),
        tokens_used: tokens("input_tokens")
            .saturating_add(tokens("cache_creation_input_tokens"))
            .saturating_add(tokens("cache_read_input_tokens"))
            .saturating_add(tokens("output_tokens")),
    }
}

/// Map exit status + output to a verdict or the infrastructure failure.
fn interpret(
    status: Option<ExitStatus>,
    stdout: &[u8],
    stderr: &[u8],
    budget: f64,
) -> (Result<ReviewerVerdict, RunnerError>, Metering) {
    let success = status.is_some_and(|s| s.success());
    let exit_error = |detail: String| RunnerError::Exit {
        status: match status {
            Some(s) => describe_status(s),
            None => "an unknown status".to_owned(),
        },
        detail,
    };
    let value = match parse_result(stdout) {
        Ok(value) => value,
        Err(message) if success => {
            return (
                Err(RunnerError::InvalidJson { message }),
                Metering::default(),
            );
        }
        Err(_) => {
            let err = String::from_utf8_lossy(stderr);
            let err = err.trim();
            let detail = if err.is_empty() {
                String::new()
            } else {
                format!(": {}", tail(err, 300))
            };
            return (Err(exit_error(detail)), Metering::default());
        }
    };
    let meter = metering(&value);
    let subtype = value.get("subtype").and_then(Value::as_str).unwrap_or("");
    let errors = value
        .get("errors")
        .filter(|e| !e.is_null())
        .map(|e| match e {
            Value::Array(items) => items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join("; "),
            other => other.to_string(),
        })
        .unwrap_or_default();
    let detail = if errors.is_empty() {
        String::new()
    } else {
        format!(": {}", excerpt(&errors, 300))
    };
    let is_error = value.get("is_error").and_then(Value::as_bool) == Some(true);
    let error = match subtype {
        "error_max_budget_usd" => Some(RunnerError::Budget { cap: budget }),
        // Claude Code gave up after repeated StructuredOutput calls that did not match the schema.
        "error_max_structured_output_retries" => Some(RunnerError::InvalidVerdict {
            message: excerpt(&errors, 300),
        }),
        _ if is_error => Some(RunnerError::ReviewerError {
            subtype: if subtype.is_empty() {
                "unknown".to_owned()
            } else {
                subtype.to_owned()
            },
            detail,
        }),
        _ if !success => Some(exit_error(String::new())),
        _ => None,
    };
    if let Some(error) = error {
        return (Err(error), meter);
    }
    // Claude Code omits the key when the model never made a valid call.
    let Some(output) = value.get("structured_output").filter(|v| !v.is_null()) else {
        return (Err(RunnerError::NoStructuredOutput), meter);
    };
    let verdict = verdict::parse(output).map_err(|e| RunnerError::InvalidVerdict { message: e.0 });
    (verdict, meter)
}

fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        _ => status.to_string(),
    }
}

/// At most `max` characters from the start.
fn excerpt(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_owned(),
    }
}

/// At most `max` characters from the end.
fn tail(text: &str, max: usize) -> String {
    let count = text.chars().count();
    if count <= max {
        return text.to_owned();
    }
    let skip = count - max;
    let start = text.char_indices().nth(skip).map_or(0, |(i, _)| i);
    format!("…{}", &text[start..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt as _;

    fn ok_status() -> Option<ExitStatus> {
        Some(ExitStatus::from_raw(0))
    }

    fn result(extra: &str) -> Vec<u8> {
        format!(
            r#"{{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.01,"usage":{{"input_tokens":100,"output_tokens":20,"cache_read_input_tokens":5}},"modelUsage":{{"claude-x":{{}}}}{extra}}}"#
        )
        .into_bytes()
    }

    #[test]
    fn argv_is_read_only_and_never_skips_permissions() {
        let args = argv(&ArgvSpec {
            prompt: "review",
            schema: "{}",
            model: "sonnet",
            max_budget_usd: 0.3,
            repo_root: Path::new("/repo"),
        });
        let args: Vec<String> = args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(!args.iter().any(|a| a.contains("dangerously")), "{args:?}");
        assert!(!args.iter().any(|a| a == "bypassPermissions"), "{args:?}");
        let after = |flag: &str| {
            let i = args.iter().position(|a| a == flag).unwrap();
            args[i + 1].clone()
        };
        assert_eq!(after("--tools"), "Read,Grep,Glob");
        assert_eq!(after("--max-budget-usd"), "0.30");
        assert_eq!(after("--settings"), r#"{"disableAllHooks":true}"#);
        assert_eq!(after("--add-dir"), "/repo");
        assert_eq!(after("--permission-mode"), "dontAsk");
    }

    #[test]
    fn budget_formatting() {
        assert_eq!(format_budget(0.3), "0.30");
        assert_eq!(format_budget(1.0), "1.00");
        assert_eq!(format_budget(0.125), "0.125");
    }

    #[test]
    fn relative_commands_resolve_against_the_root() {
        let root = Path::new("/repo");
        assert_eq!(resolve_program("claude", root), PathBuf::from("claude"));
        assert_eq!(
            resolve_program("scripts/fake.sh", root),
            PathBuf::from("/repo/scripts/fake.sh")
        );
        assert_eq!(resolve_program("/bin/x", root), PathBuf::from("/bin/x"));
    }

    #[test]
    fn interpretation_of_outputs() {
        let verdict = r#","structured_output":{"result":"approved","confidence":0.9,"findings":[],"recommendations":[]}"#;
        let (v, m) = interpret(ok_status(), &result(verdict), b"", 0.3);
        assert!(v.is_ok(), "{v:?}");
        assert_eq!(m.tokens_used, 125);
        assert_eq!(m.model.as_deref(), Some("claude-x"));

        let (v, _) = interpret(ok_status(), &result(""), b"", 0.3);
        assert_eq!(v.unwrap_err(), RunnerError::NoStructuredOutput);

        let (v, _) = interpret(
            ok_status(),
            &result(r#","structured_output":{"result":"yes"}"#),
            b"",
            0.3,
        );
        assert_eq!(v.unwrap_err().kind(), "invalid-verdict");

        let (v, _) = interpret(ok_status(), b"garbage", b"", 0.3);
        assert_eq!(v.unwrap_err().kind(), "invalid-json");

        let (v, _) = interpret(ok_status(), b"", b"", 0.3);
        assert_eq!(v.unwrap_err().kind(), "invalid-json");

        let (v, _) = interpret(Some(ExitStatus::from_raw(3 << 8)), b"", b"boom\n", 0.3);
        let err = v.unwrap_err();
        assert_eq!(err.kind(), "exit-status");
        assert!(err.to_string().contains("exit code 3: boom"), "{err}");

        let budget = br#"{"type":"result","subtype":"error_max_budget_usd","is_error":true,"errors":["Reached maximum budget ($0.3)"]}"#;
        let (v, _) = interpret(Some(ExitStatus::from_raw(1 << 8)), budget, b"", 0.3);
        assert_eq!(v.unwrap_err().kind(), "budget");

        let retries = br#"{"type":"result","subtype":"error_max_structured_output_retries","is_error":true,"errors":["Failed to provide valid structured output after 5 attempts"]}"#;
        let (v, _) = interpret(Some(ExitStatus::from_raw(1 << 8)), retries, b"", 0.3);
        let err = v.unwrap_err();
        assert_eq!(err.kind(), "invalid-verdict");
        assert!(err.to_string().contains("after 5 attempts"), "{err}");

        let during = br#"{"type":"result","subtype":"error_during_execution","is_error":true}"#;
        let (v, _) = interpret(ok_status(), during, b"", 0.3);
        assert_eq!(v.unwrap_err().kind(), "reviewer-error");

        // Log lines before the result line are tolerated.
        let mut lines = b"starting\n".to_vec();
        lines.extend(result(verdict));
        assert!(interpret(ok_status(), &lines, b"", 0.3).0.is_ok());
    }

    #[test]
    fn stat_parsing() {
        assert_eq!(parse_stat("123 (a b) c) S 45 67 67 0 -1"), Some((45, 67)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn excerpts() {
        assert_eq!(excerpt("abcdef", 3), "abc…");
        assert_eq!(tail("abcdef", 3), "…def");
        assert_eq!(tail("äöü", 5), "äöü");
    }
}
