//! What one event led to (the answer and its log records), and the small
//! helpers every event's decision shares.

use crate::decision_log::{Decision, Verdict};
use crate::diagnostic::{FileReport, Severity};

use crate::agent::Agent;
use crate::agent::event::{EventKind, HookEvent};
use crate::agent::output::HookOutput;

/// What one event led to: the answer and the log records.
#[derive(Default)]
pub(super) struct Ruling {
    pub(super) output: Option<HookOutput>,
    pub(super) decisions: Vec<Decision>,
}

impl Ruling {
    /// Nothing to answer and nothing to log: the hook's no-op.
    pub(super) fn is_quiet(&self) -> bool {
        self.output.is_none() && self.decisions.is_empty()
    }
}

/// A call that only the person may allow: what it changes and what they can do.
pub(super) struct Asked<'a> {
    /// What the log names as the target.
    pub(super) target: &'a str,
    /// The answer's opening: what is changed, and that the model may not.
    pub(super) what: &'a str,
    /// What to tell the person, and what they can do ("what you wanted ... and why: ...").
    pub(super) tell: &'a str,
    /// What holds even when the person allows it.
    pub(super) after: Option<&'a str>,
    /// The log's note: what kind of change it was.
    pub(super) log: &'a str,
}

/// Put a call to the person: `ask` where the agent can ([`Agent::asks_person`]),
/// otherwise refused with the reason that tells the model to ask them. Every
/// guarded change (the configuration, an agent's registration, git's
/// pre-commit hook, helix-gate's per-user state) is answered here.
pub(super) fn ask_person(asked: &Asked<'_>, agent: Agent) -> Ruling {
    let Asked {
        target,
        what,
        tell,
        after,
        log,
    } = asked;
    if agent.asks_person() {
        let after = after.map_or_else(String::new, |a| format!(" Even when they allow it, {a}"));
        return Ruling {
            output: Some(HookOutput::ask(format!(
                "{what} Ask the user to make this change.{after}"
            ))),
            decisions: vec![Decision {
                target: (*target).to_owned(),
                verdict: Verdict::Block,
                note: Some(format!("{log}: the user is asked")),
                ..Decision::default()
            }],
        };
    }
    let after = after.map_or_else(String::new, |a| format!(" Even when they do, {a}"));
    Ruling {
        output: Some(HookOutput::deny(format!(
            "{what} {} cannot ask the user from a hook, so the change was refused. Tell the user {tell}.{after}",
            agent.name()
        ))),
        decisions: vec![Decision {
            target: (*target).to_owned(),
            verdict: Verdict::Block,
            note: Some(format!(
                "{log} refused ({} cannot ask the user)",
                agent.name()
            )),
            ..Decision::default()
        }],
    }
}

pub(super) fn session_id(event: &HookEvent) -> &str {
    event.session_id.as_deref().unwrap_or("unknown-session")
}

pub(super) fn count(report: &FileReport, severity: Severity) -> usize {
    report
        .findings
        .iter()
        .filter(|f| f.severity == severity)
        .count()
}

pub(super) fn rule_ids(report: &FileReport) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for f in report
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
    {
        if !ids.contains(&f.rule) {
            ids.push(f.rule.clone());
        }
    }
    ids
}

/// No answer, but a logged reason why the file was not checked.
pub(super) fn skipped(target: String, why: &str) -> Ruling {
    Ruling {
        output: None,
        decisions: vec![Decision {
            target,
            verdict: Verdict::Skip,
            note: Some(why.to_owned()),
            ..Decision::default()
        }],
    }
}

/// One answer for several checked files: a block when any blocks (all
/// reasons), else their context and messages together.
/// After a failed command (`PostToolUseFailure`) the findings go to the model
/// as context: its block is not one Claude Code was seen to act on.
pub(super) fn merge(rulings: Vec<Ruling>, event: &HookEvent) -> Ruling {
    let mut reasons = Vec::new();
    let mut contexts = Vec::new();
    let mut messages = Vec::new();
    let mut decisions = Vec::new();
    for ruling in rulings {
        decisions.extend(ruling.decisions);
        let Some(output) = ruling.output else {
            continue;
        };
        reasons.extend(output.reason);
        messages.extend(output.system_message);
        contexts.extend(output.hook_specific.and_then(|h| h.additional_context));
    }
    let failed = event.kind == EventKind::PostToolUseFailure;
    let output = if !reasons.is_empty() && !failed {
        Some(HookOutput::block(reasons.join("\n\n")))
    } else if !reasons.is_empty() || !contexts.is_empty() {
        reasons.extend(contexts);
        Some(HookOutput::context(
            &event.hook_event_name,
            &reasons.join("\n\n"),
        ))
    } else {
        None
    };
    let output = match (output, messages.is_empty()) {
        (Some(output), false) => Some(output.with_message(messages.join("\n"))),
        (None, false) => Some(HookOutput::message(messages.join("\n"))),
        (output, true) => output,
    };
    Ruling { output, decisions }
}
