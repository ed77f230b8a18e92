//! The Stop hook's approval gate: the reviewers (cache first) for the ADRs that
//! passed every deterministic check, run in parallel within the Stop's one
//! deadline, then their verdicts counted against `on_rejection` in the session
//! state and turned into feedback, messages and decisions.

use std::path::Path;
use std::time::Instant;

use super::ctx::Context;
use super::policy::InfraError;
use super::ruling::{Ruling, session_id};
use super::{reviews, state};
use crate::agent::event::HookEvent;
use crate::agent::output::{EscalationKind, HookOutput, escalation_line};
use crate::approval::{self, Approval, NextStep, OnRejection};
use crate::decision_log::{Decision, Verdict};

/// The approval type the Stop gate asks for.
const APPROVAL_TYPE: &str = crate::approval::ADR_TYPE;

/// One ADR the reviewer (or its cache) gave a verdict on.
struct Review {
    rel: String,
    result: Approval,
}

/// Run the reviewers (cache first) on ADRs that passed every deterministic
/// check, several at once, within the Stop hook's one deadline ([`reviews`]).
/// `None` lets the stop proceed without a message of its own.
pub(super) fn approval_gate(
    event: &HookEvent,
    root: &Path,
    ctx: &Context,
    files: &[String],
    fail_closed: bool,
    decisions: &mut Vec<Decision>,
) -> Result<Option<Ruling>, InfraError> {
    let infra = |message: String| InfraError {
        message,
        fail_closed,
    };
    // The session's configuration: a change of config/approvals.yaml or
    // approvals/** during the session does not reach its reviews.
    let config_root = ctx.config_root();
    let settings = approval::settings(&config_root).map_err(|e| infra(format!("{e:#}")))?;
    let Some(kind) = settings.get(APPROVAL_TYPE).filter(|t| t.enabled) else {
        return Ok(None);
    };
    if let Some(ruling) = reviewer_not_run(ctx, &config_root, &settings, files, decisions) {
        return Ok(Some(ruling));
    }
    // One deadline for the whole Stop: Claude Code's timeout for this hook
    // minus a reserve; every reviewer must end before it.
    let window = reviews::StopWindow::find(root, &settings, event.agent);
    ctx.deadline.for_reviews(window.limit());
    let until = ctx
        .deadline
        .expires()
        .checked_sub(reviews::ANSWER_SLACK)
        .unwrap_or_else(Instant::now);
    // The reviews run without the session lock; a broken review does not stop
    // the others, and the verdicts that did arrive are counted and acted on.
    let (reviews, broken) = run_reviews(
        ctx,
        files,
        settings.max_parallel,
        until,
        &window,
        &config_root,
        &infra,
    );
    let counted = count_reviews(root, session_id(event), &reviews, &kind.on_rejection)
        .map_err(|e| infra(e.to_string()))?;
    let (mut messages, mut feedback) =
        act_on_reviews(root, &kind.on_rejection, &reviews, &counted, decisions);
    if let Some(err) = broken {
        if feedback.is_empty() {
            return Err(err);
        }
        // Real findings on other files still reach the model; the failure is
        // named as what it is, for the model and for the user.
        feedback.push(format!(
            "Also: helix-gate infrastructure error (not a problem in your files): {}",
            err.message
        ));
        messages.push(escalation_line(
            EscalationKind::Infrastructure,
            "-",
            &[],
            "1 failure",
            &format!(
                "infrastructure error (not a problem in your files), those reviews skipped: {}",
                err.message
            ),
        ));
    }
    if !feedback.is_empty() {
        let mut output = HookOutput::block(feedback.join("\n\n"));
        if !messages.is_empty() {
            output = output.with_message(messages.join("\n"));
        }
        return Ok(Some(Ruling {
            output: Some(output),
            decisions: std::mem::take(decisions),
        }));
    }
    decisions.push(Decision {
        verdict: Verdict::Allow,
        ..Decision::default()
    });
    Ok(Some(Ruling {
        output: Some(HookOutput::message(messages.join("\n"))),
        decisions: std::mem::take(decisions),
    }))
}

/// The Stop's answer when the reviewer the repository names may not run for
/// this session: without the person's consent (user scope), or when its program
/// changed during the session. Every file is logged as skipped, and the person
/// is told why; `None` when the reviewer may run.
fn reviewer_not_run(
    ctx: &Context,
    config_root: &Path,
    settings: &approval::ApprovalSettings,
    files: &[String],
    decisions: &mut Vec<Decision>,
) -> Option<Ruling> {
    let skip = |note: String, decisions: &mut Vec<Decision>| {
        for rel in files {
            decisions.push(Decision {
                target: rel.clone(),
                verdict: Verdict::Skip,
                note: Some(note.clone()),
                ..Decision::default()
            });
        }
    };
    // Registered for every session on the machine (user scope), the hook runs
    // a reviewer command the repository names only after the person consented.
    if ctx.user_scope()
        && let Some(problem) =
            approval::consent_problem_in(&ctx.root, config_root, settings, APPROVAL_TYPE)
    {
        skip(
            "no review: the repository's reviewer command needs the person's consent".to_owned(),
            decisions,
        );
        return Some(Ruling {
            output: Some(HookOutput::message(format!("helix-gate: {problem}."))),
            decisions: std::mem::take(decisions),
        });
    }
    // A reviewer program the repository names that changed during the session
    // (the model may have written it) is not run: its verdict would be the
    // session's own. The ADRs stay unreviewed, and the person is told.
    let changed = crate::config::protected::changed_programs(&ctx.root, config_root);
    if changed.is_empty() {
        return None;
    }
    let shown = crate::text::escape_controls(&changed.join(", ")).into_owned();
    skip(
        format!("no review: the reviewer program {shown} changed during this session"),
        decisions,
    );
    Some(Ruling {
        output: Some(HookOutput::message(format!(
            "helix-gate: the reviewer program {shown} changed during this session and was not run, so {} stay unreviewed. This session keeps the configuration it started with: restore the program (`git checkout -- {shown}`), or run `helix-gate trust` in {} to accept the new one.",
            crate::text::escape_controls(&files.join(", ")),
            crate::text::escape_controls(&ctx.root.display().to_string()),
        ))),
        decisions: std::mem::take(decisions),
    })
}

/// Review `files` ([`reviews::run_parallel`]): the reviews that gave a
/// verdict, and one infrastructure error naming every review that could not
/// (a setup problem, or a reviewer that broke: timeout, crash, no verdict, the
/// Stop deadline), never the model's fault.
fn run_reviews(
    ctx: &Context,
    files: &[String],
    max_parallel: usize,
    until: Instant,
    window: &reviews::StopWindow,
    config_root: &Path,
    infra: &impl Fn(String) -> InfraError,
) -> (Vec<Review>, Option<InfraError>) {
    let results = reviews::run_parallel(
        &ctx.root,
        files,
        APPROVAL_TYPE,
        max_parallel,
        until,
        config_root,
        ctx.user_scope(),
    );
    let mut done = Vec::new();
    let mut problems = Vec::new();
    for (rel, result) in files.iter().zip(results) {
        // Escaped: a file name may carry line breaks meant for the model.
        let shown = rel.escape_debug();
        match result {
            Err(e) => problems.push(format!("approval of {shown}: {e}")),
            Ok(result) => match &result.failure {
                Some(failure @ approval::RunnerError::Deadline { .. }) => problems.push(format!(
                    "the reviewer for {shown} could not finish within the Stop hook's deadline ({}) and was stopped ({failure}); no verdict, so it is not approved",
                    window.describe(&ctx.root)
                )),
                Some(failure) => problems.push(format!(
                    "the reviewer for {shown} failed ({}): {failure}",
                    failure.kind()
                )),
                None => done.push(Review {
                    rel: rel.clone(),
                    result,
                }),
            },
        }
    }
    let broken = (!problems.is_empty()).then(|| infra(problems.join("; ")));
    (done, broken)
}

/// How the second lock of a Stop counted one verdict.
struct Counted {
    /// Failed reviews of the file in this session (0 for an approval).
    failures: u32,
    /// The same verdict as the one counted last (the unchanged file, from the
    /// cache): not a new attempt.
    repeated: bool,
    /// What to do about a verdict that is not `approved`.
    step: NextStep,
}

/// The second and last lock of a Stop: an approved ADR's failed reviews start
/// over; a rejected one counts one more, also when it is the very verdict
/// counted last (same approval id: the unchanged file answered from the cache,
/// a refusal the model did not act on). A file whose retries are spent is marked escalated,
/// and no further review of it starts in this session. Takes no lock when
/// nothing was reviewed.
fn count_reviews(
    root: &Path,
    session: &str,
    reviews: &[Review],
    on_rejection: &OnRejection,
) -> Result<Vec<Counted>, state::StateError> {
    if reviews.is_empty() {
        return Ok(Vec::new());
    }
    let (counts, _) = state::update(root, session, |s| {
        reviews
            .iter()
            .map(|review| {
                let key = state::approval_key(&review.rel);
                if review.result.is_approved() {
                    s.reset(&key);
                    return Counted {
                        failures: 0,
                        repeated: false,
                        step: NextStep::Feedback,
                    };
                }
                let id = &review.result.document.approval_id;
                let target = s.target(&key);
                // The same verdict again (the unchanged file, from the cache)
                // counts like a failed revision: a refusal the model never acts
                // on escalates within `max_retries`, long before Claude Code's
                // own cap on Stop blocks.
                let repeated = target.attempts > 0 && target.verdict.as_ref() == Some(id);
                target.attempts += 1;
                target.verdict = Some(id.clone());
                let mut step = on_rejection.next_step(target.attempts - 1);
                if repeated && step == NextStep::Block {
                    // `action: fail` blocks a changed file again; an unchanged
                    // one would be blocked until Claude Code's cap ends the turn.
                    step = NextStep::Escalate;
                }
                if step == NextStep::Escalate {
                    target.escalated = true;
                }
                Counted {
                    failures: target.attempts,
                    repeated,
                    step,
                }
            })
            .collect()
    })?;
    Ok(counts)
}

/// What the verdicts lead to, by `on_rejection`: the user messages and the
/// feedback for the model (which blocks). An escalation is recorded in the
/// approval history, and its message says that no further review starts.
fn act_on_reviews(
    root: &Path,
    on_rejection: &OnRejection,
    reviews: &[Review],
    counted: &[Counted],
    decisions: &mut Vec<Decision>,
) -> (Vec<String>, Vec<String>) {
    let mut messages = Vec::new();
    let mut feedback = Vec::new();
    // One count from the first block to the escalation: `review N of M`.
    let max_reviews = on_rejection.max_reviews();
    for (Review { rel, result }, counted) in reviews.iter().zip(counted) {
        if result.is_approved() {
            messages.push(result.one_line());
            decisions.push(Decision {
                target: rel.clone(),
                verdict: Verdict::Approved,
                note: Some(result.one_line()),
                ..Decision::default()
            });
            continue;
        }
        let failures = counted.failures;
        let rules: Vec<String> = result.findings().iter().map(|f| f.rule.clone()).collect();
        match counted.step {
            NextStep::Feedback | NextStep::Block => {
                let text = result.feedback_for_attempt(failures);
                feedback.push(if counted.repeated {
                    format!(
                        "helix-gate: {rel} is unchanged since its last review; the same verdict applies (no new review), and an unchanged file counts as a failed revision: failed review {failures} of {max_reviews}; when review {max_reviews} fails, it is escalated to the user:\n\n{text}"
                    )
                } else {
                    text
                });
                decisions.push(Decision {
                    target: rel.clone(),
                    verdict: Verdict::Block,
                    rules,
                    attempt: failures,
                    retry_of: max_reviews,
                    note: Some(if counted.repeated {
                        format!("unchanged, same verdict again; {}", result.one_line())
                    } else {
                        result.one_line()
                    }),
                    ..Decision::default()
                });
            }
            NextStep::Escalate => {
                // The history record is bookkeeping for `stats`; failing to write
                // it must not change the decision.
                let _ = approval::record_escalation(
                    root,
                    APPROVAL_TYPE,
                    std::slice::from_ref(rel),
                    failures,
                    Some(&result.document.approval_id),
                );
                messages.push(escalation_line(
                    EscalationKind::Review,
                    rel,
                    &rules,
                    &format!("review {} of {max_reviews}", failures.min(max_reviews)),
                    &format!(
                        "approval still {}, escalated to you ({}); the Stop gate starts no further review of {rel} in this session; run `helix-gate approve {rel}` when it is ready",
                        result.verdict().as_str(),
                        result.one_line()
                    ),
                ));
                decisions.push(Decision {
                    target: rel.clone(),
                    verdict: Verdict::Escalate,
                    rules,
                    attempt: failures,
                    ..Decision::default()
                });
            }
        }
    }
    (messages, feedback)
}
