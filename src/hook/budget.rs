//! How a failing try (a save of an ADR, an answer without its STEP marker) was
//! counted against the retry budget, in words for the model (the block reason), the
//! user (the escalation message) and the decision log.
//!
//! The budget counts failures to improve, not saves: a save that lowers the number
//! of failing checks is free, so a model fixing one finding per edit is never cut
//! off; the hard cap of twice the budget still ends a loop that never gets there.

use super::state::{Charge, Escalation, Why};

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
