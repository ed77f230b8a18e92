//! Driving `helix-gate hook` through stdin the way Claude Code does, bounded in time.

use std::ffi::OsStr;
use std::io::Write as _;
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::cli::{bin, drain, isolated};

/// How long a hook run may take unless the test sets its own [`Hook::limit`]: far above
/// any hook call of the suite (a Stop with real reviews included), so only a hang hits it.
pub(crate) const HOOK_LIMIT: Duration = Duration::from_secs(300);

/// `helix-gate hook` for the project at `project`: that folder as working directory and as
/// `CLAUDE_PROJECT_DIR`, the environment [`isolated`], killed (and the test failed) after
/// [`HOOK_LIMIT`] or the test's own [`Hook::limit`].
pub(crate) struct Hook {
    cmd: Command,
    limit: Duration,
}

/// What one hook run did.
#[derive(Debug)]
pub(crate) struct HookRun {
    pub(crate) code: i32,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
    /// From the start to the hook's exit.
    pub(crate) took: Duration,
}

impl Hook {
    pub(crate) fn new(project: impl AsRef<Path>) -> Hook {
        let project = project.as_ref();
        let mut cmd = isolated(bin(), project);
        cmd.arg("hook").env("CLAUDE_PROJECT_DIR", project);
        Hook {
            cmd,
            limit: HOOK_LIMIT,
        }
    }

    /// Arguments after `hook`, e.g. `--scope user`.
    pub(crate) fn args(mut self, args: &[&str]) -> Hook {
        self.cmd.args(args);
        self
    }

    /// One more environment variable (set after the isolation, so it may be one of those).
    pub(crate) fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Hook {
        self.cmd.env(key, value);
        self
    }

    /// More environment variables, as [`Hook::env`].
    pub(crate) fn envs<K, V>(mut self, vars: impl IntoIterator<Item = (K, V)>) -> Hook
    where
        K: AsRef<OsStr>,
        V: AsRef<OsStr>,
    {
        self.cmd.envs(vars);
        self
    }

    /// Kill the hook and fail the test when it still runs after `limit`.
    pub(crate) fn limit(mut self, limit: Duration) -> Hook {
        self.limit = limit;
        self
    }

    /// Run with `event` as one JSON line on stdin.
    pub(crate) fn event(self, event: &Value) -> HookRun {
        self.stdin(format!("{event}\n"))
    }

    /// Run with `bytes` on stdin (the hook may stop reading early: a closed pipe is fine).
    pub(crate) fn stdin(self, bytes: impl Into<Vec<u8>>) -> HookRun {
        let bytes = bytes.into();
        self.feed(move |mut stdin| {
            let _ = stdin.write_all(&bytes);
        })
    }

    /// Run with `feed` writing stdin on a thread of its own; stdin closes when `feed` drops
    /// it. The thread is never joined: a trickle may outlive the hook.
    pub(crate) fn feed(self, feed: impl FnOnce(ChildStdin) + Send + 'static) -> HookRun {
        let Hook { mut cmd, limit } = self;
        let started = Instant::now();
        let mut child = spawn(&mut cmd);
        let stdin = child.stdin.take().expect("stdin");
        std::thread::spawn(move || feed(stdin));
        let out = drain(child.stdout.take());
        let err = drain(child.stderr.take());
        let status = loop {
            if let Some(status) = child.try_wait().expect("wait for the hook") {
                break status;
            }
            if started.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                panic!("the hook ran longer than {limit:?}: {cmd:?}");
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        let took = started.elapsed();
        let text = |bytes: Vec<u8>| String::from_utf8_lossy(&bytes).into_owned();
        HookRun {
            code: status.code().unwrap_or(-1),
            stdout: text(out.join().expect("stdout reader")),
            stderr: text(err.join().expect("stderr reader")),
            took,
        }
    }

    /// Start it with stdin, stdout and stderr piped, for a test that drives stdin itself
    /// (and bounds the run itself).
    pub(crate) fn spawn(mut self) -> Child {
        spawn(&mut self.cmd)
    }
}

fn spawn(cmd: &mut Command) -> Child {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn helix-gate hook")
}

impl HookRun {
    /// The answer under the hook contract: exit 0, and stdout either nothing (`None`) or
    /// exactly one JSON object on one line.
    pub(crate) fn answer(&self) -> Option<Value> {
        assert_eq!(self.code, 0, "the hook must exit 0: {}", self.stderr);
        if self.stdout.is_empty() {
            return None;
        }
        assert_eq!(
            self.stdout.lines().count(),
            1,
            "stdout must be one JSON line: {:?}",
            self.stdout
        );
        let answer: Value = serde_json::from_str(self.stdout.trim())
            .unwrap_or_else(|e| panic!("stdout is no JSON ({e}): {:?}", self.stdout));
        assert!(answer.is_object(), "stdout must be a JSON object: {answer}");
        Some(answer)
    }
}

/// The answer ([`HookRun::answer`]) of the hook in `project` to `event`.
pub(crate) fn hook(project: impl AsRef<Path>, event: &Value) -> Option<Value> {
    Hook::new(project).event(event).answer()
}
