//! The answer to a checked save, ADR or code alike: the budget charged under the
//! session's lock, then a block within the budget, the escalation when it is
//! spent, warnings as context, silence for a clean file.

use std::path::Path;

use super::budget;
use super::ruling::{Ruling, count, rule_ids};
use super::state;
use crate::agent::output::{EscalationKind, HookOutput, escalation_line};
use crate::decision_log::{Decision, Verdict};
use crate::diagnostic::{FileReport, Severity};
use crate::render::feedback;

/// What a checked file is, for the wording of its feedback.
#[derive(Clone, Copy)]
pub(super) enum Shape<'a> {
    /// An ADR or a phase plan: the checks of the rules file.
    Adr,
    /// A file under the rules of ADRs ([`super::governed`]): the rules that judged it.
    Code(&'a [String]),
}

/// The decision record and answer of a checked save: the charge (if it failed) and
/// the state note go into the log, the answer follows the budget.
pub(super) fn charged_answer(
    rel: &str,
    report: &FileReport,
    charge: Option<&budget::Charge>,
    note: Option<String>,
    budget: u32,
) -> Ruling {
    charged_answer_as(rel, report, charge, note, budget, Shape::Adr)
}

/// [`charged_answer`] for a file of any [`Shape`].
pub(super) fn charged_answer_as(
    rel: &str,
    report: &FileReport,
    charge: Option<&budget::Charge>,
    note: Option<String>,
    budget: u32,
    shape: Shape<'_>,
) -> Ruling {
    let budget_note = charge.map(|c| budget::log_note(c, budget));
    let decision = Decision {
        target: rel.to_owned(),
        rules: rule_ids(report),
        attempt: charge.map_or(0, |c| c.attempt),
        note: match (note, budget_note) {
            (Some(a), Some(b)) => Some(format!("{a}; {b}")),
            (a, b) => a.or(b),
        },
        ..Decision::default()
    };
    post_tool_use_answer(rel, report, decision, budget, charge, shape)
}

/// The one lock of a `PostToolUse`: the ADR joins the session's touched ADRs
/// (`touch`; a phase plan never does); a clean one starts its budget over (no
/// charge), a failing one is charged.
pub(super) fn count_write(
    root: &Path,
    session: &str,
    rel: &str,
    errors: usize,
    budget: u32,
    touch: bool,
) -> Result<(Option<budget::Charge>, Option<String>), state::StateError> {
    state::update(root, session, |s| {
        if touch {
            s.touch(rel);
        }
        if errors == 0 {
            s.reset(rel);
            return None;
        }
        let failures = u32::try_from(errors).unwrap_or(u32::MAX);
        Some(s.target(rel).charge(budget, failures))
    })
}

/// Block within the budget, then escalate (the user is told once), warnings as
/// context, silence for a clean ADR. `decision` carries the counted attempt.
pub(super) fn post_tool_use_answer(
    rel: &str,
    report: &FileReport,
    mut decision: Decision,
    budget: u32,
    charge: Option<&budget::Charge>,
    shape: Shape<'_>,
) -> Ruling {
    let errors = count(report, Severity::Error);
    let block = |attempt| match shape {
        Shape::Adr => feedback::adr_block(report, attempt, budget),
        Shape::Code(rules) => feedback::code_block(report, rules, attempt, budget),
    };
    let describe = || match shape {
        Shape::Adr => feedback::describe(report),
        Shape::Code(rules) => feedback::describe_code(report, rules),
    };
    let warnings_text = || match shape {
        Shape::Adr => feedback::adr_warnings(report),
        Shape::Code(rules) => feedback::code_warnings(report, rules),
    };
    let validate = match shape {
        Shape::Adr => format!("run `helix-gate validate {rel}`"),
        Shape::Code(_) => format!("run `helix-gate governs {rel}` for its decisions"),
    };
    let warnings = count(report, Severity::Warning);
    let output = if let Some(charge) = charge.filter(|c| c.escalation.is_none()) {
        decision.verdict = Verdict::Block;
        decision.retry_of = budget;
        Some(HookOutput::block(format!(
            "{}{}",
            block(charge.attempt),
            budget::explain(charge, budget)
        )))
    } else if let Some(charge) = charge {
        decision.verdict = Verdict::Escalate;
        let why = budget::escalation(charge, budget);
        let context = format!(
            "helix-gate: the retry budget for {rel} is spent ({why}); helix-gate no longer blocks, and a person will review it. It still fails:\n{}",
            describe()
        );
        let out = HookOutput::context("PostToolUse", &context);
        Some(if charge.first_escalation {
            out.with_message(escalation_line(
                EscalationKind::Budget,
                rel,
                &decision.rules,
                &format!("attempt {}/{budget}", charge.attempt),
                &format!(
                    "still fails {errors} check(s), escalated to you ({why}); helix-gate no longer blocks it in this session; {validate}"
                ),
            ))
        } else {
            out
        })
    } else if warnings > 0 {
        decision.verdict = Verdict::Warn;
        Some(HookOutput::context("PostToolUse", &warnings_text()))
    } else {
        decision.verdict = Verdict::Pass;
        None
    };
    Ruling {
        output,
        decisions: vec![decision],
    }
}
