//! Supervision of one child process: started by argv (never a shell), bounded
//! in time and output, and killed with everything it started.
//!
//! The child runs in a process group of its own. Its stdout and stderr are
//! read on threads (so a full pipe can never block it), each into a buffer
//! with a size cap. The wait is bounded by a deadline; when it passes, the
//! whole tree is killed with SIGKILL (the group, and any descendant found
//! through `/proc` that moved to a group of its own) and reaped, so nothing
//! keeps running.
//!
//! A small watchdog (`sh -c 'read -r _; kill -KILL 0'`, a constant script
//! without arguments) joins the child's process group and waits on a pipe
//! from helix-gate. When helix-gate ends for any reason (Ctrl-C on a terminal,
//! SIGKILL from a hook timeout) or is done with the child, the pipe closes and
//! the watchdog kills the group. Without it, a child in its own group would
//! survive a Ctrl-C of its parent.
//!
//! Signals are sent with the `kill` executable (or the shell's builtin where
//! there is none): the crate forbids `unsafe`, so there is no `libc::kill`.

use std::io::Read;
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// How long the output readers may take after the child exited.
const READER_GRACE: Duration = Duration::from_secs(2);
/// How long a child killed with `SIGKILL` may take to be reaped before it is left to its
/// waiter thread (a process in uninterruptible I/O ignores even SIGKILL).
const REAP_AFTER_KILL: Duration = Duration::from_secs(10);
/// How long the watchdog may take to kill the group and exit.
const WATCHDOG_EXIT: Duration = Duration::from_secs(5);

/// Bounds of one supervised run.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Measured from just before the spawn.
    pub timeout: Duration,
    /// Bytes of stdout kept; the rest is read and dropped.
    pub stdout_cap: usize,
    /// Bytes of stderr kept; the rest is read and dropped.
    pub stderr_cap: usize,
}

/// The end of a supervised run that did start.
#[derive(Debug)]
pub struct Finished {
    /// `None` when the wait failed, or after a timeout when the killed child
    /// could not be reaped in time.
    pub status: Option<ExitStatus>,
    /// The deadline passed and the tree was killed.
    pub timed_out: bool,
    /// From just before the spawn to the child's end (or the kill).
    pub duration: Duration,
    /// At most [`Limits::stdout_cap`] bytes.
    pub stdout: Vec<u8>,
    /// At most [`Limits::stderr_cap`] bytes.
    pub stderr: Vec<u8>,
}

/// Start `command` under supervision and wait for it, at most until the
/// deadline. Its stdin is `/dev/null`, its stdout and stderr are captured and
/// it gets a process group of its own (whatever `command` said about those);
/// program, arguments, working directory and environment are the caller's.
/// `tick` is called about once a second with the elapsed time while it runs.
///
/// # Errors
/// The spawn's error (for example `NotFound` for a missing program); once the
/// child started, every outcome is a [`Finished`].
pub fn run(
    mut command: Command,
    limits: &Limits,
    tick: &mut dyn FnMut(Duration),
) -> std::io::Result<Finished> {
    let started = Instant::now();
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = command.spawn()?;
    // From here on the group is killed however this function is left.
    let mut group = Group::join(child.id());

    let stdout_buf = Arc::new(Mutex::new(Vec::new()));
    let stderr_buf = Arc::new(Mutex::new(Vec::new()));
    let mut readers = Vec::with_capacity(2);
    if let Some(pipe) = child.stdout.take() {
        readers.push(spawn_reader(
            pipe,
            Arc::clone(&stdout_buf),
            limits.stdout_cap,
        ));
    }
    if let Some(pipe) = child.stderr.take() {
        readers.push(spawn_reader(
            pipe,
            Arc::clone(&stderr_buf),
            limits.stderr_cap,
        ));
    }

    // The waiter owns the child; this thread waits on the channel with a
    // deadline, so the reaction to the exit is immediate (no polling).
    let (tx, rx) = mpsc::channel();
    let waiter = thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let deadline = started + limits.timeout;
    let mut timed_out = false;
    let mut reaped = true;
    let status: Option<ExitStatus> = loop {
        let now = Instant::now();
        if now >= deadline {
            timed_out = true;
            group.kill_tree();
            // SIGKILL cannot be ignored: the wait returns promptly.
            match rx.recv_timeout(REAP_AFTER_KILL) {
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
    group.child_ended = true;
    if reaped {
        let _ = waiter.join();
    }
    // else: a process that survives SIGKILL for 10 s (uninterruptible I/O) is
    // left to its waiter thread, which reaps it whenever it ends.

    // Done with the group: the watchdog kills whatever the child left behind.
    drop(group);
    let grace = Instant::now() + READER_GRACE;
    while !readers.iter().all(JoinHandle::is_finished) && Instant::now() < grace {
        thread::sleep(Duration::from_millis(5));
    }
    // Readers still blocked (a process outside the group holds a pipe) are
    // detached; what they read so far is used.
    let take = |buf: &Arc<Mutex<Vec<u8>>>| {
        std::mem::take(&mut *buf.lock().unwrap_or_else(PoisonError::into_inner))
    };
    Ok(Finished {
        status,
        timed_out,
        duration,
        stdout: take(&stdout_buf),
        stderr: take(&stderr_buf),
    })
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
                    let mut buf = buf.lock().unwrap_or_else(PoisonError::into_inner);
                    // Past the cap, keep draining (so the child never blocks) but drop the bytes.
                    let room = cap.saturating_sub(buf.len());
                    buf.extend_from_slice(&chunk[..n.min(room)]);
                }
            }
        }
    })
}

/// The child's process group and its watchdog. Dropping it kills the group;
/// dropped before the child ended (a panic in `tick`), it kills the whole
/// tree first.
struct Group {
    pgid: u32,
    /// A member of the group that kills the group when its stdin (a pipe from
    /// helix-gate) closes; `None` when it could not be started.
    watchdog: Option<Child>,
    /// The child exited or was killed after the deadline.
    child_ended: bool,
}

impl Group {
    fn join(pgid: u32) -> Self {
        let watchdog = Command::new("sh")
            .args(["-c", "read -r _; kill -KILL 0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // `pgid` is the child's pid, a `pid_t` that std hands out as u32: the
            // bit-for-bit cast gives the kernel's value back.
            .process_group(pgid.cast_signed())
            .spawn()
            .ok();
        Group {
            pgid,
            watchdog,
            child_ended: false,
        }
    }

    /// SIGKILL the group, and (where `/proc` exists) any descendant that moved
    /// to a group or session of its own, then release the watchdog.
    fn kill_tree(&mut self) {
        kill_group_tree(self.pgid);
        drop(self.watchdog.as_mut().and_then(|w| w.stdin.take()));
    }
}

impl Drop for Group {
    /// Close the watchdog's pipe (it kills the group, itself included) and
    /// reap it; without a watchdog, kill the group directly.
    fn drop(&mut self) {
        if !self.child_ended {
            self.kill_tree();
        }
        match self.watchdog.take() {
            Some(mut w) => {
                drop(w.stdin.take());
                let deadline = Instant::now() + WATCHDOG_EXIT;
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
            None => kill(&[format!("-{}", self.pgid)]),
        }
    }
}

/// SIGKILL the group `pgid`, and (where `/proc` exists) any descendant of its
/// leader that moved to a group or session of its own. The leader is stopped
/// first so it cannot start anything new while its descendants are collected.
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
/// `comm` may contain spaces and `)`, so the fields are counted from the last `)`.
fn parse_stat(stat: &str) -> Option<(u32, u32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(1);
    Some((fields.next()?.parse().ok()?, fields.next()?.parse().ok()?))
}

/// `exit code 3`, `signal 9`: how a status reads in an error message.
pub fn describe_status(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt as _;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        _ => status.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::ExitStatusExt as _;

    fn limits(timeout: Duration) -> Limits {
        Limits {
            timeout,
            stdout_cap: 4,
            stderr_cap: 1024,
        }
    }

    #[test]
    fn stat_parsing() {
        assert_eq!(parse_stat("123 (a b) c) S 45 67 67 0 -1"), Some((45, 67)));
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn status_descriptions() {
        assert_eq!(describe_status(ExitStatus::from_raw(3 << 8)), "exit code 3");
        assert_eq!(describe_status(ExitStatus::from_raw(9)), "signal 9");
    }

    #[test]
    fn output_is_captured_up_to_the_cap() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "printf 'abcdefgh'; printf 'err' >&2; exit 3"]);
        let done = run(cmd, &limits(Duration::from_secs(30)), &mut |_| {}).unwrap();
        assert!(!done.timed_out);
        assert_eq!(done.status.and_then(|s| s.code()), Some(3));
        assert_eq!(done.stdout, b"abcd");
        assert_eq!(done.stderr, b"err");
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let cmd = Command::new("/nonexistent/helix-gate-test-program");
        let err = run(cmd, &limits(Duration::from_secs(1)), &mut |_| {}).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn the_deadline_kills_the_child() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "exec sleep 30"]);
        let started = Instant::now();
        let done = run(cmd, &limits(Duration::from_millis(500)), &mut |_| {}).unwrap();
        assert!(done.timed_out);
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}
