//! Stop: every ADR this session changed must pass as it is on disk now, the
//! last answer (or the answer file written this turn) must end with a STEP
//! marker where that check is required, and only then the reviewer sees the
//! ADRs that pass (`approval_gate`), also when a spent budget releases the turn.

use std::path::Path;

use super::approval_gate::approval_gate;
use super::budget::{self, Failing};
use super::ctx::Context;
use super::finalized;
use super::policy::{InfraError, need_session};
use super::ruling::{Ruling, count, rule_ids, session_id};
use super::{STEP_TARGET, changes, project, state, step_marker};
use crate::agent::event::{BrokenField, HookEvent};
use crate::agent::output::{EscalationKind, HookOutput, escalation_line};
use crate::config::{AdrMatcher, Settings};
use crate::decision_log::{Decision, Verdict};
use crate::diagnostic::Severity;
use crate::render::feedback;

/// The deterministic half of the Stop gate, decided under one session lock.
pub(super) struct StopChecks {
    /// The ADRs this session touched.
    touched: Vec<String>,
    /// Targets that pass now (their budgets were reset).
    passing: Vec<String>,
    /// Targets that fail now, charged against their budgets.
    failing: Vec<Failing>,
    /// Touched ADRs whose review was escalated earlier in this session: the
    /// Stop gate starts no further review of them.
    escalated_reviews: Vec<String>,
    /// The step of a valid STEP marker (where the marker is required).
    step: Option<String>,
}

/// Stop: every ADR this session touched must pass as it is on disk now, and the
/// last answer must end with a STEP marker when that check is enabled; then the
/// reviewer sees the ADRs that pass.
///
/// The session lock is taken twice at most: once for the deterministic half
/// (read the touched ADRs, check them, count the attempts: one critical
/// section, so a parallel hook cannot slip in between the read and the count)
/// and once after the reviewer to count its rejections. The reviewer may run
/// for minutes and is never run under the lock: a parallel hook of the session
/// would time out waiting for it.
///
/// A broken `background_tasks` counts as none (the checks run: the stricter
/// side); a broken `last_assistant_message` matters only to the STEP check.
pub(super) fn stop(
    event: &HookEvent,
    root: &Path,
    ctx: &Context,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    if event
        .background_tasks
        .as_ref()
        .is_some_and(|t| !t.is_empty())
    {
        return Ok(Ruling {
            output: None,
            decisions: vec![Decision {
                verdict: Verdict::Allow,
                note: Some("background tasks still running; not blocking".into()),
                ..Decision::default()
            }],
        });
    }
    let mut settings = ctx.settings()?;
    let session = project::session_folders(event);
    // From here on `enabled` means: required of this session (step_marker.paths).
    settings.step_marker.enabled = step_marker::required_in(&settings.step_marker, root, &session);
    need_session(event, &settings)?;
    let (last, broken_last) = crate::agent::final_answer(event, settings.step_marker.enabled);
    let checks = deterministic_gate(event, ctx, &settings, &last, broken_last.as_ref(), notes)?;
    let mut decisions = Vec::new();
    // Outside the session lock: the dashboard's status file follows the marker.
    if let Some(step) = &checks.step {
        step_marker::record_status(
            root,
            &session,
            &settings.step_marker,
            step,
            &mut decisions,
            notes,
        );
    }
    // A block ends here. An escalation (a spent budget releases the turn) is for
    // the user, and the review of the session's ADRs still runs: no ADR leaves
    // the session unreviewed without the person being told.
    let escalation = match budget::decide(
        root,
        &session,
        &settings,
        &checks.failing,
        &last,
        &mut decisions,
        notes,
    ) {
        Some(output) if output.decision.is_some() => {
            return Ok(Ruling {
                output: Some(output),
                decisions,
            });
        }
        other => other,
    };
    // A marker the answer file gave does not need the chat reply.
    if let Some(broken) = broken_last.filter(|_| checks.step.is_none()) {
        return Err(InfraError::new(
            format!("{broken}; the STEP marker check needs it"),
            Some(&settings),
        ));
    }
    // No deterministic error left at all (none escalated either): the reviewer
    // decides the `llm_review` rules of the accepted ADRs over the session's code.
    // A conflict blocks here; what it tells the person comes with the answer.
    let mut code_message = None;
    if checks.failing.is_empty() {
        let scope = super::code_review::StopScope {
            session: &session,
            last: &last,
        };
        match super::code_review::at_stop(event, ctx, &settings, &scope, &mut decisions, notes)? {
            Some(output) if output.decision.is_some() => {
                return Ok(Ruling {
                    output: Some(output),
                    decisions,
                });
            }
            Some(output) => code_message = output.system_message,
            None => {}
        }
    }
    let mut ruling =
        after_deterministic(event, root, ctx, &settings, &checks, escalation, decisions)?;
    if let Some(message) = code_message {
        ruling.output = Some(match ruling.output {
            Some(output) => output.add_message(message),
            None => HookOutput::message(message),
        });
    }
    Ok(ruling)
}

/// The Stop after its deterministic half and the code review: the ADR reviewer
/// (cache first) on the ADRs that pass, the escalation, or the turn may end.
fn after_deterministic(
    event: &HookEvent,
    root: &Path,
    ctx: &Context,
    settings: &Settings,
    checks: &StopChecks,
    escalation: Option<HookOutput>,
    mut decisions: Vec<Decision>,
) -> Result<Ruling, InfraError> {
    // Deterministic checks all pass: the independent reviewer, last and only now.
    // Only ADRs that pass every deterministic check now (an escalated, still failing
    // ADR is a person's business, never the reviewer's).
    let reviewable = reviewable(root, settings, checks, &mut decisions);
    if !reviewable.is_empty() {
        match approval_gate(
            event,
            root,
            ctx,
            &reviewable,
            settings.hook.fail_closed,
            &mut decisions,
        ) {
            Ok(Some(mut outcome)) => {
                if let Some(escalation) = escalation {
                    outcome.output = Some(after_escalation(escalation, outcome.output));
                }
                return Ok(outcome);
            }
            Ok(None) => {}
            Err(e) if escalation.is_some() && !e.fail_closed => {
                return Ok(not_reviewed(escalation, &reviewable, &e, decisions));
            }
            Err(e) => return Err(e),
        }
    }
    if let Some(output) = escalation {
        return Ok(Ruling {
            output: Some(output),
            decisions,
        });
    }
    if !checks.touched.is_empty() || settings.step_marker.enabled {
        decisions.push(Decision {
            verdict: Verdict::Allow,
            ..Decision::default()
        });
    }
    Ok(Ruling {
        output: None,
        decisions,
    })
}

/// The touched ADRs the reviewer sees: those that pass every deterministic check
/// now and whose review was not escalated earlier in the session (that one is
/// logged as skipped).
fn reviewable(
    root: &Path,
    settings: &Settings,
    checks: &StopChecks,
    decisions: &mut Vec<Decision>,
) -> Vec<String> {
    let adrs = settings.matcher();
    checks
        .touched
        .iter()
        .filter(|rel| {
            adrs.is_adr(rel) && checks.passing.contains(rel) && root.join(rel.as_str()).is_file()
        })
        .filter(|rel| {
            let escalated = checks.escalated_reviews.contains(rel);
            if escalated {
                decisions.push(Decision {
                    target: (*rel).clone(),
                    verdict: Verdict::Skip,
                    note: Some(
                        "review escalated to the user earlier in this session; no further review"
                            .to_owned(),
                    ),
                    ..Decision::default()
                });
            }
            !escalated
        })
        .cloned()
        .collect()
}

/// The escalation message first, then what the review gave (its verdicts for
/// the user, or its block).
fn after_escalation(escalation: HookOutput, review: Option<HookOutput>) -> HookOutput {
    let Some(review) = review else {
        return escalation;
    };
    let first = escalation.system_message.unwrap_or_default();
    let message = match review.system_message.as_deref() {
        Some(then) if !then.is_empty() => format!("{first}\n{then}"),
        _ => first,
    };
    HookOutput {
        system_message: (!message.is_empty()).then_some(message),
        ..review
    }
}

/// A turn the budget released whose ADRs the reviewer could not review (fail
/// open): the escalation, and one more escalation line that says they stay
/// unreviewed and why; each file logged as skipped.
fn not_reviewed(
    escalation: Option<HookOutput>,
    files: &[String],
    error: &InfraError,
    mut decisions: Vec<Decision>,
) -> Ruling {
    let shown = crate::text::escape_controls(&files.join(", ")).into_owned();
    for rel in files {
        decisions.push(Decision {
            target: rel.clone(),
            verdict: Verdict::Skip,
            note: Some(format!("not reviewed: {}", error.message)),
            ..Decision::default()
        });
    }
    let line = escalation_line(
        EscalationKind::Infrastructure,
        &shown,
        &[],
        "1 failure",
        &format!(
            "not reviewed: the reviewer could not run ({}); run `helix-gate approve {}` yourself",
            error.message,
            files.join(" ")
        ),
    );
    let output = match escalation {
        Some(escalation) => escalation.add_message(line),
        None => HookOutput::message(line),
    };
    Ruling {
        output: Some(output),
        decisions,
    }
}

/// Under one acquisition of the session lock: the touched ADRs, their checks as
/// they are on disk now, the STEP marker, and the attempt counts (passing
/// targets start over, failing ones are charged). Only deterministic, local
/// work happens while the lock is held.
pub(super) fn deterministic_gate(
    event: &HookEvent,
    ctx: &Context,
    settings: &Settings,
    last: &str,
    broken_last: Option<&BrokenField>,
    notes: &mut Vec<String>,
) -> Result<StopChecks, InfraError> {
    let root = ctx.root.as_path();
    let state_error = |e: state::StateError| InfraError::new(e.to_string(), Some(settings));
    let mut session = state::lock(root, session_id(event)).map_err(state_error)?;
    notes.extend(session.note.take());
    // A draft finalized during the session is checked where finalize put it.
    let adrs = settings
        .adr_matcher()
        .map_err(|e| InfraError::new(e, Some(settings)))?;
    notes.extend(finalized::follow(root, &adrs, &mut session.state.touched));
    let mut touched = session.state.touched.clone();
    // However they changed (a Bash heredoc, `sed -i`, `cp`, a linked folder):
    // every ADR and phase plan whose content differs from the session's start.
    for rel in changed_files(ctx, &adrs, notes) {
        if !touched.contains(&rel) {
            touched.push(rel);
        }
    }
    let escalated_reviews = touched
        .iter()
        .filter(|rel| {
            session
                .state
                .targets
                .get(&state::approval_key(rel))
                .is_some_and(|t| t.escalated)
        })
        .cloned()
        .collect();
    let (mut failing, mut passing) = check_touched(ctx, settings, &touched, notes)?;
    // Code under the rules of ADRs that the session changed, as it is now.
    let (code_failing, code_passing) = super::governed::at_stop(root, &mut session.state, notes);
    failing.extend(code_failing);
    passing.extend(code_passing);
    let marker = &settings.step_marker;
    let mut step = None;
    // The answer file written this turn is the answer: its marker counts (and is
    // the step recorded) before the chat reply's.
    let answer_file = if marker.enabled {
        step_marker::answer_file_marker(
            root,
            session.state.answer.as_ref(),
            event.prompt_id.as_deref(),
            &marker.steps,
        )
    } else {
        None
    };
    if let Some((file, Ok(found))) = &answer_file {
        notes.push(format!(
            "STEP marker `{found}` taken from {file} (written this turn)"
        ));
        step = Some(found.clone());
        passing.push(STEP_TARGET.to_owned());
    } else if marker.enabled && broken_last.is_none() {
        // Without a readable last answer the marker is neither passed nor charged.
        match step_marker::check(last, &marker.steps) {
            Ok(found) => {
                step = Some(found);
                passing.push(STEP_TARGET.to_owned());
            }
            Err(problem) => {
                let mut text = step_marker::feedback(&problem, &marker.steps);
                if let Some((file, Err(_))) = &answer_file {
                    text = format!(
                        "{text}\n{file}, which you wrote this turn, does not end with a valid STEP marker either: ending that file with the marker line also counts."
                    );
                }
                failing.push(Failing::new(
                    STEP_TARGET.to_owned(),
                    text,
                    vec![STEP_TARGET.to_owned()],
                ));
            }
        }
    }
    budget::charge_all(
        &mut session.state,
        &passing,
        &mut failing,
        settings.hook.budget,
    );
    session.save().map_err(state_error)?;
    Ok(StopChecks {
        touched,
        passing,
        failing,
        escalated_reviews,
        step,
    })
}

/// The deterministic checks of the touched ADRs as they are on disk now: the
/// failing ones with their feedback, and the passing ones (a deleted ADR passes).
/// A touched ADR that now leads out of the project (replaced by a symlink after
/// `PostToolUse` checked it) is not read: it fails with a label, and nothing of
/// what it points to is quoted.
pub(super) fn check_touched(
    ctx: &Context,
    settings: &Settings,
    touched: &[String],
    notes: &mut Vec<String>,
) -> Result<(Vec<Failing>, Vec<String>), InfraError> {
    let mut failing = Vec::new();
    let mut passing = Vec::new();
    if touched.is_empty() {
        return Ok((failing, passing));
    }
    let root = ctx.root.as_path();
    let engine = ctx.load_engine(settings.clone())?;
    for rel in touched {
        let path = root.join(rel);
        if !crate::fs::confine::inside(root, &path) {
            notes.push(format!("{rel} now points outside the project; not read"));
            failing.push(Failing::new(
                rel.clone(),
                format!(
                    "{rel}: now leads outside the project (a symbolic link, or a path that leaves it). helix-gate reads no file outside the project, so this ADR cannot be checked. Put the ADR itself (a regular file) back at {rel}."
                ),
                Vec::new(),
            ));
            continue;
        }
        match engine.check_file(&path) {
            Ok(checked) => {
                // The lifecycle against HEAD too, as for a write: an accepted
                // Decision rewritten, or a status moved where it may not go, is
                // still there at the end of the turn however it was made.
                let mut report = checked.report;
                report.findings.extend(super::tool_use::lifecycle(
                    root,
                    rel,
                    checked.adr.as_ref(),
                    &engine.settings,
                ));
                engine.retain_selected(&path, &mut report.findings);
                report.sort();
                if report.has_errors() {
                    failing.push(
                        Failing::new(
                            rel.clone(),
                            format!("{}:\n{}", rel, feedback::describe(&report)),
                            rule_ids(&report),
                        )
                        .with_failures(count(&report, Severity::Error)),
                    );
                } else {
                    passing.push(rel.clone());
                }
            }
            Err(e) if e.cause.kind() == std::io::ErrorKind::NotFound => {
                passing.push(rel.clone());
            }
            Err(e) => return Err(InfraError::new(e.to_string(), Some(settings))),
        }
    }
    Ok((failing, passing))
}

/// The ADRs and phase plans whose content differs from the session's baseline
/// (and, when the baseline had to be taken again late, every one that differs
/// from `HEAD`).
fn changed_files(ctx: &Context, adrs: &AdrMatcher, notes: &mut Vec<String>) -> Vec<String> {
    let (root, config) = (ctx.root.as_path(), ctx.config());
    let Some(record) = config.record() else {
        return Vec::new();
    };
    let mut changed = changes::changed_since_start(root, record, adrs);
    if record.origin == super::store::Origin::Recovered {
        let head = changes::changed_since_head(root, adrs);
        if !head.is_empty() {
            notes.push(format!(
                "baseline recovered late: also checking {} file(s) that differ from HEAD",
                head.len()
            ));
        }
        for rel in head {
            if !changed.contains(&rel) {
                changed.push(rel);
            }
        }
    }
    changed
}
