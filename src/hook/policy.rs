//! The failure policy, in one place: an internal error (configuration, state,
//! an unreadable file, a field of the event the decision needs but cannot read,
//! the hook's own deadline, even a panic) is never shown as a rule violation. By
//! default the hook fails open with a `systemMessage` that names the
//! infrastructure error; `hook.fail_closed: true` makes it block instead, with a
//! reason that says it is an infrastructure error.

use super::ruling::Ruling;
use crate::agent::event::{EventKind, HookEvent};
use crate::agent::output::{EscalationKind, HookOutput, escalation_line};
use crate::config::Settings;
use crate::decision_log::{Decision, Verdict};

/// An internal failure: reported as such, never as a finding.
#[derive(Debug, Clone)]
pub(super) struct InfraError {
    pub(super) message: String,
    /// Whether the settings asked to fail closed (unknown when settings failed).
    pub(super) fail_closed: bool,
}

impl InfraError {
    pub(super) fn new(message: impl std::fmt::Display, settings: Option<&Settings>) -> Self {
        InfraError {
            message: message.to_string(),
            fail_closed: settings.is_some_and(|s| s.hook.fail_closed),
        }
    }
}

/// Apply the failure policy to an internal error.
pub(super) fn infrastructure(
    event: &HookEvent,
    err: &InfraError,
    notes: &mut Vec<String>,
) -> Ruling {
    notes.push(format!("infrastructure error: {}", err.message));
    let closed = |message: &str| {
        format!(
            "helix-gate infrastructure error (not a problem in your files): {message}. fail_closed is set, so this blocks until the tool works again."
        )
    };
    let output = if err.fail_closed
        && matches!(
            event.kind,
            EventKind::PostToolUse | EventKind::PostToolUseFailure | EventKind::Stop
        ) {
        HookOutput::block(closed(&err.message))
    } else if err.fail_closed && event.kind == EventKind::PreToolUse {
        HookOutput::deny(closed(&err.message))
    } else {
        // Fail-open: the check is skipped, which is an escalation to the person.
        HookOutput::message(escalation_line(
            EscalationKind::Infrastructure,
            "-",
            &[],
            "1 failure",
            &format!(
                "infrastructure error (not a problem in your files), check skipped (fail-open): {}",
                err.message
            ),
        ))
    };
    Ruling {
        output: Some(output),
        decisions: vec![Decision {
            verdict: Verdict::Error,
            note: Some(err.message.clone()),
            ..Decision::default()
        }],
    }
}

/// The session id, which the budget counts by; a broken one is an error.
pub(super) fn need_session(event: &HookEvent, settings: &Settings) -> Result<(), InfraError> {
    match event.broken("session_id") {
        Some(broken) => Err(InfraError::new(
            format!("{broken}; helix-gate needs it to count attempts per session"),
            Some(settings),
        )),
        None => Ok(()),
    }
}
