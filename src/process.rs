//! Supervision of one child process: started by argv (never a shell), bounded
//! in time and output, and killed with everything it started.
//!
//! The child runs in a process group of its own. Its stdout and stderr are
//! read on threads (so a full pipe can never block it), each into a buffer
//! with a size cap. The wait is bounded by a deadline; when it passes, the
//! whole tree is killed with SIGKILL and reaped, so nothing keeps running.
//!
//! **Nothing the child started outlives the run**, whether the child answered
//! or timed out. A descendant can leave the child's group (`setsid`) and its
//! tree (a double fork: the middle process exits and the grandchild is
//! re-parented). It is found anyway:
//! - every supervised process gets [`env::HELIX_GATE_SUPERVISION`] set to a
//!   token of this one run, which descendants inherit; every process that
//!   carries the token (`/proc/<pid>/environ`) belongs to the run;
//! - on Linux, helix-gate is a child subreaper while it supervises a child
//!   (`prctl(PR_SET_CHILD_SUBREAPER)`), so an orphaned descendant is
//!   re-parented to helix-gate instead of init. One that also emptied its
//!   environment is still recognised: a child helix-gate did not start itself
//!   (outside helix-gate's own process group, without any run's token);
//! - the descendants (by parent pid) of everything found, and the group.
//!
//! Everything found is stopped first (SIGSTOP, so it cannot fork any more),
//! the search repeats until it finds nothing new, then all of it is killed with
//! SIGKILL, and the adopted orphans are reaped. Where there is no `/proc`,
//! only the group is killed.
//!
//! A small watchdog (`sh -c 'read -r _; kill -KILL 0'`, a constant script
//! without arguments) joins the child's process group and waits on a pipe
//! from helix-gate. When helix-gate ends for any reason (Ctrl-C on a terminal,
//! SIGKILL from a hook timeout) or is done with the child, the pipe closes and
//! the watchdog kills the group. Without it, a child in its own group would
//! survive a Ctrl-C of its parent.
//!
//! Signals are sent through rustix (`kill(2)`, `waitpid(2)` and `prctl(2)` as
//! safe functions), so the library has no unsafe code (`unsafe_code = "deny"`;
//! the binary's C entry point is the one exception, in src/main.rs).

use std::io::Read;
#[cfg(unix)]
use std::os::unix::process::CommandExt as _;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

#[cfg(unix)]
use rustix::process::{Pid, Signal};

use crate::env;

/// How long the output readers may take after the child exited.
const READER_GRACE: Duration = Duration::from_secs(2);
/// How long a child killed with `SIGKILL` may take to be reaped before it is left to its
/// waiter thread (a process in uninterruptible I/O ignores even SIGKILL).
const REAP_AFTER_KILL: Duration = Duration::from_secs(10);
/// How long the watchdog may take to kill the group and exit.
#[cfg(unix)]
const WATCHDOG_EXIT: Duration = Duration::from_secs(5);
/// How long killed orphans adopted by helix-gate may take to become reapable.
#[cfg(unix)]
const REAP_ORPHANS: Duration = Duration::from_secs(2);
/// Rounds of "stop what is new, look again" before the kill; each round
/// stops every process found, so a tree converges after its depth in rounds.
#[cfg(unix)]
const SWEEP_ROUNDS: usize = 32;

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

/// Held while a supervised child is spawned and while adopted orphans are
/// collected, so a child that another thread is starting (forked, not yet
/// carrying its token) is never taken for an orphan.
static SPAWN_LOCK: Mutex<()> = Mutex::new(());

/// Start `command` under supervision and wait for it, at most until the
/// deadline. Its stdin is `/dev/null`, its stdout and stderr are captured and
/// it gets a process group of its own and this run's supervision token
/// (whatever `command` said about those); program, arguments, working
/// directory and the rest of the environment are the caller's. `tick` is
/// called about once a second with the elapsed time while it runs. When it
/// returns, no process the child started is left running.
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
    let token = new_token();
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env(env::HELIX_GATE_SUPERVISION, &token);
    #[cfg(unix)]
    command.process_group(0);
    // Before the spawn, so that no orphan of the child can go to init.
    let _reaper = Subreaper::acquire();
    let spawning = SPAWN_LOCK.lock().unwrap_or_else(PoisonError::into_inner);
    let mut child = command.spawn()?;
    // From here on the tree is killed however this function is left.
    let mut group = Group::join(&child, token);
    drop(spawning);

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

    // The child is gone; whatever it left behind (in its group, or escaped
    // from it) is killed now, before its pipes are drained.
    group.sweep();
    drop(group);
    let grace = Instant::now() + READER_GRACE;
    while !readers.iter().all(JoinHandle::is_finished) && Instant::now() < grace {
        thread::sleep(Duration::from_millis(5));
    }
    // Readers still blocked (a process out of reach holds a pipe) are
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

/// A token unique to one supervised run (this process, a counter, the clock).
fn new_token() -> String {
    static RUNS: AtomicU32 = AtomicU32::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{}-{}-{nanos:x}",
        std::process::id(),
        RUNS.fetch_add(1, Ordering::Relaxed)
    )
}

/// helix-gate as a child subreaper while at least one child is supervised
/// (Linux; elsewhere nothing). Orphans of the child's tree are then
/// re-parented to helix-gate, where [`sweep`] finds and reaps them, instead of
/// to init, where nothing would.
struct Subreaper;

/// Supervised runs in progress (the attribute is per process, the runs may
/// be on several threads).
static SUBREAPER_USERS: Mutex<usize> = Mutex::new(0);

impl Subreaper {
    fn acquire() -> Subreaper {
        let mut users = SUBREAPER_USERS
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if *users == 0 {
            set_subreaper(true);
        }
        *users += 1;
        Subreaper
    }
}

impl Drop for Subreaper {
    fn drop(&mut self) {
        let mut users = SUBREAPER_USERS
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        *users = users.saturating_sub(1);
        if *users == 0 {
            set_subreaper(false);
        }
    }
}

/// Best effort: without it (an old kernel, a sandbox that forbids prctl),
/// the token and the group still find the descendants.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn set_subreaper(on: bool) {
    let _ = rustix::process::set_child_subreaper(on.then(rustix::process::getpid));
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn set_subreaper(_on: bool) {}

/// The child's process group, its watchdog and its run's token. Dropping it
/// kills the group; dropped before the child ended (a panic in `tick`), it
/// kills the whole tree first.
#[cfg(unix)]
struct Group {
    pgid: u32,
    token: String,
    /// A member of the group that kills the group when its stdin (a pipe from
    /// helix-gate) closes; `None` when it could not be started.
    watchdog: Option<Child>,
    /// The child exited or was killed after the deadline.
    child_ended: bool,
}

#[cfg(unix)]
impl Group {
    fn join(child: &Child, token: String) -> Self {
        let pgid = child.id();
        let watchdog = Command::new("sh")
            .args(["-c", "read -r _; kill -KILL 0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            // The run's token: another run's sweep never takes it for an orphan.
            .env(env::HELIX_GATE_SUPERVISION, &token)
            // `pgid` is the child's pid, a `pid_t` that std hands out as u32: the
            // bit-for-bit cast gives the kernel's value back.
            .process_group(pgid.cast_signed())
            .spawn()
            .ok();
        Group {
            pgid,
            token,
            watchdog,
            child_ended: false,
        }
    }

    fn watchdog_pid(&self) -> Option<u32> {
        self.watchdog.as_ref().map(Child::id)
    }

    /// Kill the child (still running: its pid is the group's id) with its
    /// whole tree, then release the watchdog.
    fn kill_tree(&mut self) {
        sweep(self.pgid, &self.token, Some(self.pgid), self.watchdog_pid());
        drop(self.watchdog.as_mut().and_then(|w| w.stdin.take()));
    }

    /// After the child ended: kill whatever it left behind.
    fn sweep(&mut self) {
        sweep(self.pgid, &self.token, None, self.watchdog_pid());
    }
}

#[cfg(unix)]
impl Drop for Group {
    /// Close the watchdog's pipe (it kills the group, itself included) and
    /// reap it.
    fn drop(&mut self) {
        if !self.child_ended {
            self.kill_tree();
        }
        if let Some(mut w) = self.watchdog.take() {
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
    }
}

#[cfg(unix)]
/// One line of the process table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Proc {
    pid: u32,
    ppid: u32,
    pgid: u32,
}

#[cfg(unix)]
/// Stop, collect and kill everything that belongs to the run with `token`
/// and process group `pgid`: see the module documentation. `leader` is the
/// child while it still runs (it is reaped by its waiter, not here);
/// `watchdog` is left to its owner too.
fn sweep(pgid: u32, token: &str, leader: Option<u32>, watchdog: Option<u32>) {
    // The group's id is safe to use while a member that helix-gate has not
    // reaped exists (the running leader, or the watchdog): until then the
    // kernel cannot give the id to anyone else. Without either, the members
    // are found by their token.
    let group = (leader.is_some() || watchdog.is_some()).then_some(pgid);
    // Stop the group at once: nothing in it can fork while the rest is collected.
    if let Some(pgid) = group {
        signal_group(pgid, Signal::STOP);
    }
    let me = std::process::id();
    let own_group = rustix::process::getpgrp().as_raw_pid().cast_unsigned();
    let mut found: Vec<Proc> = Vec::new();
    for _ in 0..SWEEP_ROUNDS {
        let adopting = SPAWN_LOCK.lock().unwrap_or_else(PoisonError::into_inner);
        let table = process_table();
        let mut new: Vec<Proc> = table
            .iter()
            .filter(|p| !found.iter().any(|f| f.pid == p.pid))
            .filter(|p| {
                Some(p.pid) == leader
                    || Some(p.pgid) == group
                    || carries_token(p.pid, Some(token))
                    || is_adopted_orphan(p, me, own_group, watchdog)
            })
            .copied()
            .collect();
        drop(adopting);
        // Their descendants, by parent pid.
        let mut i = 0;
        while i < new.len() {
            let parent = new[i].pid;
            for p in &table {
                if p.ppid == parent
                    && !found.iter().any(|f| f.pid == p.pid)
                    && !new.iter().any(|n| n.pid == p.pid)
                {
                    new.push(*p);
                }
            }
            i += 1;
        }
        if new.is_empty() {
            break;
        }
        for p in &new {
            signal(p.pid, Signal::STOP);
        }
        found.extend(new);
    }
    if let Some(pgid) = group {
        signal_group(pgid, Signal::KILL);
    }
    for p in &found {
        signal(p.pid, Signal::KILL);
    }
    // Orphans re-parented to helix-gate are its children now: reap them, so
    // no zombie is left while helix-gate runs on (the Stop gate reviews
    // several files in one process).
    let adopted: Vec<u32> = found
        .iter()
        .filter(|p| p.ppid == me && Some(p.pid) != leader && Some(p.pid) != watchdog)
        .map(|p| p.pid)
        .collect();
    reap(&adopted);
}

#[cfg(unix)]
/// A child of helix-gate that helix-gate did not start: outside helix-gate's
/// own process group (children it starts without a group of their own share
/// it) and without any run's token (every supervised child and watchdog has
/// one). With the subreaper set, that is an orphan of a supervised tree that
/// emptied its environment.
fn is_adopted_orphan(p: &Proc, me: u32, own_group: u32, watchdog: Option<u32>) -> bool {
    p.ppid == me && Some(p.pid) != watchdog && p.pgid != own_group && !carries_token(p.pid, None)
}

#[cfg(unix)]
/// Whether the environment of `pid` holds the supervision variable (with
/// exactly `token`, when given). False where it cannot be read.
fn carries_token(pid: u32, token: Option<&str>) -> bool {
    let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    let name = env::HELIX_GATE_SUPERVISION.as_bytes();
    environ.split(|&b| b == 0).any(|entry| {
        entry
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix(b"="))
            .is_some_and(|value| token.is_none_or(|t| value == t.as_bytes()))
    })
}

#[cfg(unix)]
/// Wait (bounded) for the killed `pids`, children of helix-gate, to end, and
/// reap them.
fn reap(pids: &[u32]) {
    let deadline = Instant::now() + REAP_ORPHANS;
    let mut left: Vec<u32> = pids.to_vec();
    while !left.is_empty() {
        left.retain(|&pid| {
            let Some(pid) = to_pid(pid) else {
                return false;
            };
            // Some: reaped; Err: not (or no longer) our child. Both are done.
            matches!(
                rustix::process::waitpid(Some(pid), rustix::process::WaitOptions::NOHANG),
                Ok(None)
            )
        });
        if left.is_empty() || Instant::now() >= deadline {
            break;
        }
        thread::sleep(Duration::from_millis(2));
    }
}

#[cfg(unix)]
/// A pid that may be signalled: never 0, init, or helix-gate itself.
fn to_pid(pid: u32) -> Option<Pid> {
    if pid <= 1 || pid == std::process::id() {
        return None;
    }
    Pid::from_raw(i32::try_from(pid).ok()?)
}

#[cfg(unix)]
fn signal(pid: u32, sig: Signal) {
    if let Some(pid) = to_pid(pid) {
        let _ = rustix::process::kill_process(pid, sig);
    }
}

#[cfg(unix)]
/// Signal the group `pgid`; never helix-gate's own group (or "every process",
/// which is what group 1 would mean to `kill(2)`).
fn signal_group(pgid: u32, sig: Signal) {
    let own = rustix::process::getpgrp().as_raw_pid().cast_unsigned();
    if pgid == own {
        return;
    }
    if let Some(pgid) = to_pid(pgid) {
        let _ = rustix::process::kill_process_group(pgid, sig);
    }
}

#[cfg(unix)]
/// `(pid, ppid, pgid)` of every live process from `/proc/*/stat` (empty where
/// `/proc` is unavailable). Zombies are left out: they run nothing.
fn process_table() -> Vec<Proc> {
    let mut table = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return table;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some((state, ppid, pgid)) = std::fs::read_to_string(entry.path().join("stat"))
            .ok()
            .as_deref()
            .and_then(parse_stat)
            && state != 'Z'
        {
            table.push(Proc { pid, ppid, pgid });
        }
    }
    table
}

#[cfg(unix)]
/// `(state, ppid, pgid)` from a `/proc/<pid>/stat` line: `pid (comm) state ppid pgrp ...`.
/// `comm` may contain spaces and `)`, so the fields are counted from the last `)`.
fn parse_stat(stat: &str) -> Option<(char, u32, u32)> {
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    Some((
        state,
        fields.next()?.parse().ok()?,
        fields.next()?.parse().ok()?,
    ))
}

/// `exit code 3`, `signal 9`: how a status reads in an error message.
pub fn describe_status(status: ExitStatus) -> String {
    #[cfg(unix)]
    let signal = {
        use std::os::unix::process::ExitStatusExt as _;
        status.signal()
    };
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    match (status.code(), signal) {
        (Some(code), _) => format!("exit code {code}"),
        (None, Some(signal)) => format!("signal {signal}"),
        _ => status.to_string(),
    }
}

/// Windows: the child and everything it starts run in a Job Object that kills
/// them all when it is terminated or its last handle closes (helix-gate ending
/// for any reason closes it, as the watchdog does on Unix). A process the
/// child starts before it joins the job (the few microseconds between spawn
/// and assignment) is outside it; where no job can be made (a job without
/// nesting rights), `taskkill /T` kills the child's tree by parent id.
#[cfg(windows)]
struct Group {
    pid: u32,
    job: Option<job::Job>,
    child_ended: bool,
}

#[cfg(windows)]
impl Group {
    fn join(child: &Child, _token: String) -> Self {
        Group {
            pid: child.id(),
            job: job::Job::assign(child).ok(),
            child_ended: false,
        }
    }

    fn kill_tree(&mut self) {
        match &self.job {
            Some(job) => job.terminate(),
            None if !self.child_ended => {
                let _ = Command::new("taskkill")
                    .args(["/F", "/T", "/PID", &self.pid.to_string()])
                    .stdin(Stdio::null())
                    .stdout(Stdio::null())
                    .stderr(Stdio::null())
                    .status();
            }
            None => {}
        }
    }

    fn sweep(&mut self) {
        self.kill_tree();
    }
}

#[cfg(windows)]
impl Drop for Group {
    fn drop(&mut self) {
        self.kill_tree();
    }
}

#[cfg(windows)]
#[expect(
    unsafe_code,
    reason = "Job Objects have no safe binding: four calls to kernel32 on a handle owned here"
)]
mod job {
    use std::os::windows::io::AsRawHandle as _;

    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
        SetInformationJobObject, TerminateJobObject,
    };

    /// A Job Object that kills its processes when its handle closes.
    pub(super) struct Job(HANDLE);

    impl Job {
        /// A new job with `child` in it.
        pub(super) fn assign(child: &std::process::Child) -> std::io::Result<Job> {
            // SAFETY: no security attributes and no name: both may be null.
            let handle = unsafe { CreateJobObjectW(std::ptr::null(), std::ptr::null()) };
            if handle.is_null() {
                return Err(std::io::Error::last_os_error());
            }
            let job = Job(handle);
            // SAFETY: a plain C struct, all zeroes is its empty value.
            let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = unsafe { std::mem::zeroed() };
            info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
            let size = u32::try_from(size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>())
                .unwrap_or(u32::MAX);
            // SAFETY: `job.0` is a job handle owned here; `info` lives across the call
            // and `size` is its size.
            let set = unsafe {
                SetInformationJobObject(
                    job.0,
                    JobObjectExtendedLimitInformation,
                    (&raw const info).cast(),
                    size,
                )
            };
            if set == 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: both handles are open: the job's (owned here) and the child's
            // (owned by `child`, borrowed for the call).
            if unsafe { AssignProcessToJobObject(job.0, child.as_raw_handle()) } == 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(job)
        }

        /// Kill every process in the job.
        pub(super) fn terminate(&self) {
            // SAFETY: `self.0` is a job handle owned here.
            unsafe { TerminateJobObject(self.0, 1) };
        }
    }

    impl Drop for Job {
        fn drop(&mut self) {
            // SAFETY: closed once, here; the kill-on-close limit ends what is left.
            unsafe { CloseHandle(self.0) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(unix)]
    use std::os::unix::process::ExitStatusExt as _;
    #[cfg(unix)]
    use std::path::Path;

    fn limits(timeout: Duration) -> Limits {
        Limits {
            timeout,
            stdout_cap: 4,
            stderr_cap: 1024,
        }
    }

    #[test]
    #[cfg(unix)]
    fn stat_parsing() {
        assert_eq!(
            parse_stat("123 (a b) c) S 45 67 67 0 -1"),
            Some(('S', 45, 67))
        );
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    #[cfg(unix)]
    fn status_descriptions() {
        assert_eq!(describe_status(ExitStatus::from_raw(3 << 8)), "exit code 3");
        assert_eq!(describe_status(ExitStatus::from_raw(9)), "signal 9");
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs a unix shell (sh)")]
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

    #[cfg(unix)]
    /// Whether `pid` is a live process (not a zombie).
    fn alive(pid: u32) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .as_deref()
            .and_then(parse_stat)
            .is_some_and(|(state, _, _)| state != 'Z')
    }

    #[cfg(unix)]
    /// Run `script` (sh) whose escaping descendant prints its pid first.
    fn escaped_pid(script: &str, timeout: Duration) -> (Finished, u32) {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", script]);
        let done = run(cmd, &limits_with_room(timeout), &mut |_| {}).unwrap();
        let text = String::from_utf8_lossy(&done.stdout).into_owned();
        let pid = text
            .lines()
            .next()
            .and_then(|l| l.trim().parse().ok())
            .unwrap_or_else(|| panic!("no pid in {text:?}"));
        (done, pid)
    }

    #[cfg(unix)]
    fn limits_with_room(timeout: Duration) -> Limits {
        Limits {
            timeout,
            stdout_cap: 1024,
            stderr_cap: 1024,
        }
    }

    #[test]
    #[cfg(unix)]
    fn a_descendant_in_a_session_of_its_own_dies_when_the_child_answers() {
        if !Path::new("/proc/self/environ").exists() {
            return;
        }
        let started = Instant::now();
        let (done, pid) = escaped_pid(
            "setsid sh -c 'echo $$; exec sleep 1000' & sleep 0.3; echo answer",
            Duration::from_secs(30),
        );
        assert!(!done.timed_out);
        assert!(String::from_utf8_lossy(&done.stdout).contains("answer"));
        assert!(!alive(pid), "pid {pid} survived");
        // Its pipe was closed by the kill, not by the readers' grace period.
        assert!(started.elapsed() < READER_GRACE + Duration::from_secs(1));
    }

    #[test]
    #[cfg(unix)]
    fn a_double_forked_grandchild_dies_with_a_child_that_timed_out() {
        if !Path::new("/proc/self/environ").exists() {
            return;
        }
        let (done, pid) = escaped_pid(
            "(setsid sh -c 'echo $$; exec sleep 1000' &); exec sleep 1000",
            // Room for the grandchild to print its pid on a loaded machine (all unit
            // tests run at once): with 0.8 s it was sometimes killed before it could.
            Duration::from_secs(3),
        );
        assert!(done.timed_out);
        assert!(!alive(pid), "pid {pid} survived");
    }

    #[test]
    #[cfg(any(target_os = "linux", target_os = "android"))]
    fn an_orphan_without_environment_is_adopted_and_killed() {
        // `env -i` drops the token: only the subreaper keeps the orphan in reach.
        let (done, pid) = escaped_pid(
            "env -i /usr/bin/setsid /bin/sh -c 'echo $$; exec /bin/sleep 1000' & sleep 0.3; echo answer",
            Duration::from_secs(30),
        );
        assert!(!done.timed_out);
        assert!(!alive(pid), "pid {pid} survived");
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs a unix shell (sh)")]
    fn the_deadline_kills_the_child() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "exec sleep 30"]);
        let started = Instant::now();
        let done = run(cmd, &limits(Duration::from_millis(500)), &mut |_| {}).unwrap();
        assert!(done.timed_out);
        assert!(started.elapsed() < Duration::from_secs(20));
    }

    /// Windows: the child's tree is in a Job Object, killed at the deadline.
    #[test]
    #[cfg(windows)]
    fn the_deadline_kills_the_child_and_its_children() {
        let mut cmd = Command::new("cmd");
        cmd.args(["/C", "ping -n 60 127.0.0.1 > NUL"]);
        let started = Instant::now();
        let done = run(cmd, &limits(Duration::from_millis(500)), &mut |_| {}).unwrap();
        assert!(done.timed_out);
        assert!(started.elapsed() < Duration::from_secs(20));
    }
}
