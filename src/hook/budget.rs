//! How a failing try (a save of an ADR, an answer without its STEP marker) was
//! counted against the retry budget, in words for the model (the block reason), the
//! user (the escalation message) and the decision log.
//!
//! The budget counts failures to improve, not saves: a save that lowers the number
//! of failing checks is free, so a model fixing one finding per edit is never cut
//! off; the hard cap of twice the budget still ends a loop that never gets there.
//!
//! The whole rule is here: how a failing try is charged ([`Target::charge`]),
//! what a Stop's failing targets lead to ([`decide`]), and how it is put in words.

use std::path::{Path, PathBuf};

use super::state::{SessionState, Target};
use super::{STEP_TARGET, step_marker};
use crate::agent::output::{EscalationKind, HookOutput, escalation_line};
use crate::config::Settings;
use crate::decision_log::{Decision, Verdict};

/// The failing tries a target may have before it escalates, improving or not.
pub fn hard_cap(budget: u32) -> u32 {
    budget.saturating_mul(2)
}

/// Why the try counted or not, a clause (no attempt number).
fn reason(why: Why) -> String {
    match why {
        Why::First => "the first failure".to_owned(),
        Why::Improved { from, to } => {
            format!("failing checks went down from {from} to {to}")
        }
        Why::NotImproved { from, to } if to == from => {
            format!("still {to} failing check(s), no fewer than before")
        }
        Why::NotImproved { from, to } => {
            format!("failing checks went up from {from} to {to}")
        }
    }
}

/// The budget line of a block reason: which attempt this was and why it counted or not.
pub fn explain(charge: &Charge, budget: u32) -> String {
    let cap = hard_cap(budget);
    if charge.counted {
        format!(
            "Budget: attempt {}/{budget} used ({}); a try with fewer failing checks does not use one up (try {} of at most {cap}).",
            charge.attempt,
            reason(charge.why),
            charge.tries
        )
    } else {
        format!(
            "Budget: this try did not use up an attempt ({}); attempts used: {}/{budget}, try {} of at most {cap}.",
            reason(charge.why),
            charge.attempt,
            charge.tries
        )
    }
}

/// Why a target escalated, for the user and the log.
pub fn escalation(charge: &Charge, budget: u32) -> String {
    match charge.escalation {
        Some(Escalation::HardCap) => format!(
            "hard cap reached: {} failing tries, at most {} = twice the budget of {budget}",
            charge.tries,
            hard_cap(budget)
        ),
        _ => format!(
            "all {budget} attempts used without fewer failing checks, {} failing tries",
            charge.tries
        ),
    }
}

/// The decision log's note for a charged try.
pub fn log_note(charge: &Charge, budget: u32) -> String {
    if charge.escalation.is_some() {
        return format!("escalated: {}", escalation(charge, budget));
    }
    let counted = if charge.counted {
        "counted"
    } else {
        "not counted"
    };
    format!(
        "try {} of at most {}: {counted} ({})",
        charge.tries,
        hard_cap(budget),
        reason(charge.why)
    )
}

/// Why a failing save did or did not use up an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// The target's first failure since it last passed.
    First,
    /// Fewer checks fail than at the previous failing save: not counted.
    Improved { from: u32, to: u32 },
    /// As many or more checks fail than before: counted.
    NotImproved { from: u32, to: u32 },
}

/// Why the target escalated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Escalation {
    /// `budget` attempts were used without the failures going down.
    BudgetSpent,
    /// More than twice the budget of failing saves, improving or not.
    HardCap,
}

/// What one failing save cost.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charge {
    /// Attempts used up so far; `budget` once escalated (by the spent budget or the hard
    /// cap), so the log and every message agree and no count passes its budget.
    pub attempt: u32,
    /// Failing saves since the target last passed, this one included.
    pub tries: u32,
    /// Whether this save used up an attempt.
    pub counted: bool,
    pub why: Why,
    /// Set once the target no longer blocks.
    pub escalation: Option<Escalation>,
    /// This save spent the budget (tell the user once).
    pub first_escalation: bool,
}

impl Target {
    /// Count one failing save with `failures` failing checks against `budget`: a save
    /// that lowers the number of failing checks does not use up an attempt, but no
    /// target fails more than `2 * budget` times before it escalates.
    pub fn charge(&mut self, budget: u32, failures: u32) -> Charge {
        let previous = self.last_failures.replace(failures);
        self.tries = self.tries.saturating_add(1);
        let why = match previous {
            None => Why::First,
            Some(from) if failures < from => Why::Improved { from, to: failures },
            Some(from) => Why::NotImproved { from, to: failures },
        };
        let hard_cap = self.tries > budget.saturating_mul(2);
        let counted = !matches!(why, Why::Improved { .. });
        let escalation = if hard_cap {
            Some(Escalation::HardCap)
        } else if self.escalated || (counted && self.attempts >= budget) {
            Some(Escalation::BudgetSpent)
        } else {
            None
        };
        if escalation.is_none() && counted {
            self.attempts += 1;
        }
        let first_escalation = escalation.is_some() && !self.escalated;
        if escalation.is_some() {
            self.escalated = true;
        }
        Charge {
            attempt: if escalation.is_some() {
                budget
            } else {
                self.attempts
            },
            tries: self.tries,
            counted: counted && escalation.is_none(),
            why,
            escalation,
            first_escalation,
        }
    }
}

/// A target that failed at Stop and what to do about it.
pub(super) struct Failing {
    target: String,
    text: String,
    rules: Vec<String>,
    /// How many checks fail (1 for the STEP marker); a Stop with fewer than the
    /// target's last failure does not use up an attempt.
    failures: u32,
    /// Filled in by [`charge`]: the attempt number (`budget` once spent),
    /// why it counted or not, and whether this Stop spent the budget.
    charge: Option<Charge>,
}

impl Failing {
    pub(super) fn new(target: String, text: String, rules: Vec<String>) -> Self {
        Failing {
            target,
            text,
            rules,
            failures: 1,
            charge: None,
        }
    }

    pub(super) fn with_failures(mut self, failures: usize) -> Self {
        self.failures = u32::try_from(failures).unwrap_or(u32::MAX);
        self
    }
}

/// Passing targets start over; every failing target is charged one attempt.
pub(super) fn charge_all(
    state: &mut SessionState,
    passing: &[String],
    failing: &mut [Failing],
    budget: u32,
) {
    for key in passing {
        state.reset(key);
    }
    for f in failing {
        f.charge = Some(state.target(&f.target).charge(budget, f.failures));
    }
}

/// The budget decision over the failing targets: block while any target has
/// attempts left, else tell the user about targets that just spent their budget
/// (the STEP marker falls back to the seed's heuristic). `None` lets the Stop go
/// on to the reviewer; `decisions` gets one record per target either way.
pub(super) fn decide(
    root: &Path,
    session_folders: &[PathBuf],
    settings: &Settings,
    failing: &[Failing],
    last: &str,
    decisions: &mut Vec<Decision>,
    notes: &mut Vec<String>,
) -> Option<HookOutput> {
    let budget = settings.hook.budget;
    let mut block_text = Vec::new();
    let mut escalated_text = Vec::new();
    for f in failing {
        let Some(charge) = f.charge else { continue };
        let attempt = charge.attempt;
        let verdict = if charge.escalation.is_none() {
            let gap = if f.text.ends_with('\n') { "" } else { "\n" };
            block_text.push(format!(
                "[attempt {attempt}/{budget}] {}{gap}{}",
                f.text,
                explain(&charge, budget)
            ));
            Verdict::Block
        } else {
            if charge.first_escalation {
                // "attempt 3/3", as the log record says: an escalated charge is the budget.
                let attempts = format!("attempt {attempt}/{budget}");
                let why = escalation(&charge, budget);
                if f.target == STEP_TARGET {
                    let (step, applied) =
                        step_marker::fallback(root, session_folders, &settings.step_marker, last);
                    escalated_text.push(escalation_line(
                        EscalationKind::StepMarker,
                        &settings.step_marker.fallback_file,
                        &f.rules,
                        &attempts,
                        &format!("fallback applied ({why}): {applied}"),
                    ));
                    decisions.push(Decision {
                        target: STEP_TARGET.into(),
                        verdict: Verdict::Fallback,
                        note: Some(applied),
                        ..Decision::default()
                    });
                    step_marker::record_status(
                        root,
                        session_folders,
                        &settings.step_marker,
                        &step,
                        decisions,
                        notes,
                    );
                } else {
                    escalated_text.push(escalation_line(
                        EscalationKind::Budget,
                        &f.target,
                        &f.rules,
                        &attempts,
                        &format!(
                            "still fails, escalated to you ({why}); helix-gate no longer blocks it in this session; see `helix-gate log --tail` and `helix-gate validate`"
                        ),
                    ));
                }
            }
            Verdict::Escalate
        };
        decisions.push(Decision {
            target: f.target.clone(),
            verdict,
            rules: f.rules.clone(),
            attempt,
            note: Some(log_note(&charge, budget)),
            retry_of: if verdict == Verdict::Block { budget } else { 0 },
            ..Decision::default()
        });
    }
    if !block_text.is_empty() {
        return Some(HookOutput::block(format!(
            "helix-gate: not done yet. Fix these before you finish:\n\n{}",
            block_text.join("\n")
        )));
    }
    if !escalated_text.is_empty() {
        // At Stop, additionalContext would make the model continue (it counts like a
        // block), so the escalation goes to the user only and the turn ends.
        // One line per escalation ([`escalation_line`]).
        return Some(HookOutput::message(escalated_text.join("\n")));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn short(c: Charge) -> (u32, bool, bool) {
        (c.attempt, c.counted, c.first_escalation)
    }

    #[test]
    fn charge_counts_to_the_budget_then_escalates_once() {
        let mut t = Target::default();
        assert_eq!(
            (short(t.charge(2, 1)), short(t.charge(2, 1))),
            ((1, true, false), (2, true, false))
        );
        let spent = t.charge(2, 1);
        assert_eq!(
            (short(spent), spent.escalation),
            ((2, false, true), Some(Escalation::BudgetSpent))
        );
        assert_eq!(short(t.charge(2, 1)), (2, false, false));
    }

    #[test]
    fn fewer_failures_are_free_until_the_hard_cap() {
        let mut t = Target::default();
        let first = t.charge(3, 9);
        assert_eq!(
            (first.attempt, first.counted, first.why),
            (1, true, Why::First)
        );
        for (failures, tries) in [(8, 2), (7, 3), (6, 4), (5, 5), (4, 6)] {
            let c = t.charge(3, failures);
            assert_eq!(
                (c.attempt, c.counted, c.tries, c.escalation),
                (1, false, tries, None)
            );
            assert_eq!(
                c.why,
                Why::Improved {
                    from: failures + 1,
                    to: failures
                }
            );
        }
        let capped = t.charge(3, 3);
        assert_eq!(
            (capped.attempt, capped.first_escalation, capped.escalation),
            (3, true, Some(Escalation::HardCap))
        );
        // More failures than before count again.
        let mut t = Target::default();
        t.charge(3, 2);
        let worse = t.charge(3, 5);
        assert_eq!(
            (worse.attempt, worse.counted, worse.why),
            (2, true, Why::NotImproved { from: 2, to: 5 })
        );
    }
}
