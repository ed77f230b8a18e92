//! The `claude -p` protocol: how the reviewer is started (argv, environment)
//! and how its result JSON becomes a verdict or a typed failure.
//!
//! Supervising the process (process group, deadline, capped output, kill) is
//! not Claude-specific and lives in [`crate::process`]; [`super::runner`]
//! joins the two.

use std::ffi::OsString;
use std::path::Path;
use std::process::{Command, ExitStatus};

use serde_json::Value;

use super::verdict::{self, ReviewerVerdict};
use crate::env;
use crate::process::describe_status;
use crate::text::{truncate, truncate_start};

/// Cap on the reviewer's stdout (the result JSON is a few KB).
pub const STDOUT_CAP: usize = 16 * 1024 * 1024;
/// Cap on the reviewer's stderr (kept for error messages).
pub const STDERR_CAP: usize = 256 * 1024;

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
    /// Stopped by the caller's deadline before its own timeout (the Stop hook
    /// must answer before Claude Code's hook timeout).
    #[error(
        "reviewer stopped after {seconds} s at the Stop hook's deadline, before its own timeout; its process group was killed"
    )]
    Deadline { seconds: u64 },
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
            RunnerError::Deadline { .. } => "deadline",
            RunnerError::Exit { .. } => "exit-status",
            RunnerError::InvalidJson { .. } => "invalid-json",
            RunnerError::Budget { .. } => "budget",
            RunnerError::ReviewerError { .. } => "reviewer-error",
            RunnerError::NoStructuredOutput => "no-structured-output",
            RunnerError::InvalidVerdict { .. } => "invalid-verdict",
        }
    }
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

/// The reviewer's command: `program` with `args`, started in `cwd` (the run
/// folder) with `HELIX_GATE_CHILD=1`, so `helix-gate hook` is a no-op inside
/// it and a reviewer can never trigger another review.
pub fn command(program: &Path, args: &[OsString], cwd: &Path) -> Command {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(cwd)
        .env(env::HELIX_GATE_CHILD, "1");
    cmd
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

/// The result object: stdout as one JSON object, or else its last line that
/// parses as an object with `"type": "result"`.
pub fn parse_result(stdout: &[u8]) -> Result<Value, String> {
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
                truncate(trimmed, 120)
            ));
        }
    }
    Err(format!(
        "expected a JSON object; output starts with {:?}",
        truncate(trimmed, 120)
    ))
}

pub fn metering(result: &Value) -> Metering {
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
pub fn interpret(
    status: Option<ExitStatus>,
    stdout: &[u8],
    stderr: &[u8],
    budget: f64,
) -> (Result<ReviewerVerdict, RunnerError>, Metering) {
    let (output, meter) = interpret_output(status, stdout, stderr, budget);
    let verdict = output.and_then(|output| {
        verdict::parse(&output).map_err(|e| RunnerError::InvalidVerdict { message: e.0 })
    });
    (verdict, meter)
}

/// Map exit status + output to the reviewer's `structured_output` (whatever
/// schema it was asked for) or the infrastructure failure.
pub fn interpret_output(
    status: Option<ExitStatus>,
    stdout: &[u8],
    stderr: &[u8],
    budget: f64,
) -> (Result<Value, RunnerError>, Metering) {
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
                format!(": {}", truncate_start(err, 300))
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
        format!(": {}", truncate(&errors, 300))
    };
    let is_error = value.get("is_error").and_then(Value::as_bool) == Some(true);
    let error = match subtype {
        "error_max_budget_usd" => Some(RunnerError::Budget { cap: budget }),
        // Claude Code gave up after repeated StructuredOutput calls that did not match the schema.
        "error_max_structured_output_retries" => Some(RunnerError::InvalidVerdict {
            message: truncate(&errors, 300),
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
    match value.get("structured_output").filter(|v| !v.is_null()) {
        Some(output) => (Ok(output.clone()), meter),
        None => (Err(RunnerError::NoStructuredOutput), meter),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The status of a child that exited with `code`.
    fn exited(code: u8) -> ExitStatus {
        #[cfg(unix)]
        {
            use std::os::unix::process::ExitStatusExt as _;
            ExitStatus::from_raw(i32::from(code) << 8)
        }
        #[cfg(windows)]
        {
            use std::os::windows::process::ExitStatusExt as _;
            ExitStatus::from_raw(u32::from(code))
        }
    }

    fn ok_status() -> ExitStatus {
        exited(0)
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
    fn interpretation_of_outputs() {
        let verdict = r#","structured_output":{"result":"approved","confidence":0.9,"findings":[],"recommendations":[]}"#;
        let (v, m) = interpret(Some(ok_status()), &result(verdict), b"", 0.3);
        assert!(v.is_ok(), "{v:?}");
        assert_eq!(m.tokens_used, 125);
        assert_eq!(m.model.as_deref(), Some("claude-x"));

        let (v, _) = interpret(Some(ok_status()), &result(""), b"", 0.3);
        assert_eq!(v.unwrap_err(), RunnerError::NoStructuredOutput);

        let (v, _) = interpret(
            Some(ok_status()),
            &result(r#","structured_output":{"result":"yes"}"#),
            b"",
            0.3,
        );
        assert_eq!(v.unwrap_err().kind(), "invalid-verdict");

        let (v, _) = interpret(Some(ok_status()), b"garbage", b"", 0.3);
        assert_eq!(v.unwrap_err().kind(), "invalid-json");

        let (v, _) = interpret(Some(ok_status()), b"", b"", 0.3);
        assert_eq!(v.unwrap_err().kind(), "invalid-json");

        let (v, _) = interpret(Some(exited(3)), b"", b"boom\n", 0.3);
        let err = v.unwrap_err();
        assert_eq!(err.kind(), "exit-status");
        assert!(err.to_string().contains("exit code 3: boom"), "{err}");

        let budget = br#"{"type":"result","subtype":"error_max_budget_usd","is_error":true,"errors":["Reached maximum budget ($0.3)"]}"#;
        let (v, _) = interpret(Some(exited(1)), budget, b"", 0.3);
        assert_eq!(v.unwrap_err().kind(), "budget");

        let retries = br#"{"type":"result","subtype":"error_max_structured_output_retries","is_error":true,"errors":["Failed to provide valid structured output after 5 attempts"]}"#;
        let (v, _) = interpret(Some(exited(1)), retries, b"", 0.3);
        let err = v.unwrap_err();
        assert_eq!(err.kind(), "invalid-verdict");
        assert!(err.to_string().contains("after 5 attempts"), "{err}");

        let during = br#"{"type":"result","subtype":"error_during_execution","is_error":true}"#;
        let (v, _) = interpret(Some(ok_status()), during, b"", 0.3);
        assert_eq!(v.unwrap_err().kind(), "reviewer-error");

        // Log lines before the result line are tolerated.
        let mut lines = b"starting\n".to_vec();
        lines.extend(result(verdict));
        assert!(interpret(Some(ok_status()), &lines, b"", 0.3).0.is_ok());
    }

    #[test]
    fn the_reviewer_cannot_review_again() {
        let cmd = command(Path::new("claude"), &[], Path::new("/run"));
        assert!(
            cmd.get_envs()
                .any(|(k, v)| k == env::HELIX_GATE_CHILD && v == Some("1".as_ref()))
        );
        assert_eq!(cmd.get_current_dir(), Some(Path::new("/run")));
    }
}
