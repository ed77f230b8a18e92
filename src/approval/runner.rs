//! Starting the reviewer and getting a verdict out of it, or a typed reason why not.
//!
//! Two halves joined here: [`crate::process`] supervises the child (own
//! process group, capped output readers, the deadline, the kill of the whole
//! tree, the watchdog), and [`super::claude`] knows the `claude -p` argv and
//! its result JSON.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::claude::{self, Metering, RunnerError};
use super::settings::TypeSettings;
use super::verdict::ReviewerVerdict;
use crate::process;

/// What to start.
#[derive(Debug, Clone)]
pub struct Invocation {
    pub program: PathBuf,
    pub args: Vec<OsString>,
    pub cwd: PathBuf,
    pub timeout: Duration,
    /// `timeout` was shortened to meet the caller's deadline: running out of
    /// it is [`RunnerError::Deadline`], not the configured timeout.
    pub cut_by_deadline: bool,
    /// `max_budget_usd`, for the message when the cap is hit.
    pub budget: f64,
}

impl Invocation {
    /// The reviewer of an approval type (its `command`, `model`, `timeout` and
    /// `max_budget_usd`), started in `cwd` with `prompt`, its answer bound to
    /// `schema`. Its timeout is the type's, or what is left until `deadline`
    /// when that is less (then running out of it is a deadline, not a timeout).
    pub fn for_reviewer(
        type_settings: &TypeSettings,
        repo_root: &Path,
        cwd: PathBuf,
        prompt: &str,
        schema: &str,
        deadline: Option<Instant>,
    ) -> Invocation {
        let left = deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()));
        let (timeout, cut_by_deadline) = match left {
            Some(left) if left < type_settings.timeout => (left, true),
            _ => (type_settings.timeout, false),
        };
        Invocation {
            program: resolve_program(&type_settings.command, repo_root),
            args: claude::argv(&claude::ArgvSpec {
                prompt,
                schema,
                model: &type_settings.model,
                max_budget_usd: type_settings.max_budget_usd,
                repo_root,
            }),
            cwd,
            timeout,
            cut_by_deadline,
            budget: type_settings.max_budget_usd,
        }
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
    let raw = run_structured(invocation, tick);
    RunOutcome {
        verdict: raw.output.and_then(|output| {
            super::verdict::parse(&output).map_err(|e| RunnerError::InvalidVerdict { message: e.0 })
        }),
        metering: raw.metering,
        duration: raw.duration,
        stdout: raw.stdout,
        stderr: raw.stderr,
    }
}

/// The end of one reviewer run asked for another schema than the verdict's:
/// its `structured_output` as given (the caller validates it).
#[derive(Debug)]
pub struct StructuredOutcome {
    pub output: Result<serde_json::Value, RunnerError>,
    pub metering: Metering,
    pub duration: Duration,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// [`run`] for any `--json-schema`: the reviewer's `structured_output`.
pub fn run_structured(
    invocation: &Invocation,
    tick: &mut dyn FnMut(Duration),
) -> StructuredOutcome {
    let started = Instant::now();
    let command = claude::command(&invocation.program, &invocation.args, &invocation.cwd);
    let limits = process::Limits {
        timeout: invocation.timeout,
        stdout_cap: claude::STDOUT_CAP,
        stderr_cap: claude::STDERR_CAP,
    };
    let done = match process::run(command, &limits, tick) {
        Ok(done) => done,
        Err(e) => {
            let command = invocation.program.display().to_string();
            let error = if e.kind() == std::io::ErrorKind::NotFound {
                RunnerError::NotFound { command }
            } else {
                RunnerError::Spawn {
                    command,
                    message: e.to_string(),
                }
            };
            return StructuredOutcome {
                output: Err(error),
                metering: Metering::default(),
                duration: started.elapsed(),
                stdout: Vec::new(),
                stderr: Vec::new(),
            };
        }
    };
    let (output, metering) = if done.timed_out {
        // Whatever the reviewer reported before the kill still says what it cost.
        let parsed = claude::parse_result(&done.stdout).ok();
        let seconds = invocation.timeout.as_secs();
        (
            Err(if invocation.cut_by_deadline {
                RunnerError::Deadline { seconds }
            } else {
                RunnerError::Timeout { seconds }
            }),
            parsed.as_ref().map(claude::metering).unwrap_or_default(),
        )
    } else {
        claude::interpret_output(done.status, &done.stdout, &done.stderr, invocation.budget)
    };
    StructuredOutcome {
        output,
        metering,
        duration: done.duration,
        stdout: done.stdout,
        stderr: done.stderr,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reviewer_runs_for_its_timeout_or_until_the_deadline_if_sooner() {
        let mut settings = super::super::settings::from_layers(None, "test")
            .unwrap()
            .get("adr")
            .unwrap()
            .clone();
        settings.command = "scripts/fake.sh".to_owned();
        settings.timeout = Duration::from_secs(300);
        let root = Path::new("/repo");
        let reviewer = |deadline| {
            Invocation::for_reviewer(
                &settings,
                root,
                PathBuf::from("/repo/run"),
                "the task",
                "{}",
                deadline,
            )
        };
        let free = reviewer(None);
        assert_eq!(free.program, PathBuf::from("/repo/scripts/fake.sh"));
        assert_eq!(free.cwd, PathBuf::from("/repo/run"));
        assert_eq!(
            (free.timeout, free.cut_by_deadline),
            (settings.timeout, false)
        );
        assert_eq!(free.budget.to_bits(), settings.max_budget_usd.to_bits());
        assert_eq!(
            free.args,
            claude::argv(&claude::ArgvSpec {
                prompt: "the task",
                schema: "{}",
                model: &settings.model,
                max_budget_usd: settings.max_budget_usd,
                repo_root: root,
            })
        );
        let later = reviewer(Some(Instant::now() + Duration::from_secs(3600)));
        assert_eq!(
            (later.timeout, later.cut_by_deadline),
            (settings.timeout, false)
        );
        let sooner = reviewer(Some(Instant::now() + Duration::from_secs(60)));
        assert!(sooner.cut_by_deadline);
        assert!(
            sooner.timeout <= Duration::from_secs(60),
            "{:?}",
            sooner.timeout
        );
        assert!(
            sooner.timeout > Duration::from_secs(50),
            "{:?}",
            sooner.timeout
        );
        let past = reviewer(Some(Instant::now()));
        assert_eq!((past.timeout, past.cut_by_deadline), (Duration::ZERO, true));
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
}
