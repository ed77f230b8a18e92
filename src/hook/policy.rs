//! The failure policy, in one place: an internal error (configuration, state,
//! an unreadable file, a field of the event the decision needs but cannot read,
//! the hook's own deadline, even a panic) is never shown as a rule violation. By
//! default the hook fails open with a `systemMessage` that names the
//! infrastructure error; `hook.fail_closed: true` makes it block instead, with a
//! reason that says it is an infrastructure error.

use super::baseline;
use super::ctx::Context;
use super::ruling::Ruling;
use crate::agent::event::{EventKind, HookEvent};
use crate::agent::output::{EscalationKind, HookOutput, escalation_line};
use crate::config::Settings;
use crate::decision_log::{Decision, Verdict};
use crate::engine::Engine;

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

/// The settings; they also set the deadline and the failure policy it applies.
/// They come from the session's copy of the configuration ([`baseline`]): a
/// change during the session does not reach them. When they cannot be loaded,
/// the last configuration that could decides whether to fail closed.
///
/// A value mistake (out of range, wrong type) does not fail the load: that key
/// falls back to the repository's last good configuration (the last one a
/// session started with that loaded without a fallback), else to the built-in
/// value, and the person is told at the session's start and at each Stop.
///
/// Called once per event, by [`Context::settings`], which keeps what it returns.
pub(super) fn load_settings(ctx: &Context) -> Result<Settings, InfraError> {
    let config = ctx.config();
    let mut settings = Settings::load(&config.config_root).map_err(|e| InfraError {
        message: e.to_string(),
        fail_closed: baseline::last_good_fail_closed(config),
    })?;
    if !settings.problems.is_empty() {
        if let Some(good) = baseline::last_good_settings(config) {
            settings.fall_back_to(&good, "last good");
        }
        let lines: Vec<String> = settings.problems.iter().map(ToString::to_string).collect();
        ctx.tell_at_start_and_stop(&format!(
            "helix-gate: settings value(s) fell back, the gate stays on: {}",
            lines.join("; ")
        ));
    }
    ctx.deadline.apply(&settings);
    Ok(settings)
}

/// A field the decision needs is broken or missing: an infrastructure error
/// under the repository's failure policy (read for it, when it can be), never a
/// silent pass. A future payload change must not switch the gate off unseen.
pub(super) fn needed(ctx: &Context, problem: impl std::fmt::Display) -> InfraError {
    let settings = ctx.settings().ok();
    InfraError::new(
        format!("{problem}; helix-gate needs it to decide"),
        settings.as_ref(),
    )
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

pub(super) fn load_engine(ctx: &Context, settings: Settings) -> Result<Engine, InfraError> {
    let fail_closed = settings.hook.fail_closed;
    Engine::with_config(&ctx.root, &ctx.config_root(), settings).map_err(|e| InfraError {
        message: format!("{e:#}"),
        fail_closed,
    })
}
