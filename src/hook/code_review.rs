//! At Stop: the `llm_review` rules of the binding ADRs over the code this
//! session changed, decided by the reviewer ([`crate::approval::decision_review`]).
//!
//! - Only when no deterministic error is left (the caller's condition): the
//!   reviewer never sees code or ADRs that are known to fail.
//! - Only rules of **binding** ADRs (Accepted, Implemented). A proposed ADR's
//!   `llm_review` rules are not reviewed: a pending decision warns, and a
//!   model call for a warning is not worth its cost.
//! - Only files the session changed: differing from `HEAD`, and changed since
//!   the session found them (their digest at `SessionStart`) or written by it.
//! - `conflicts` blocks the Stop with the reviewer's reason, charged against the
//!   rule's own budget (target `llm_review:ADR-014/rule`), and escalates to the
//!   person when it is spent, as any Stop block does; `unclear` is told to the
//!   person; `consistent` passes. A rule already escalated in the session is not
//!   reviewed again.
//! - The same change under the same rules is reviewed once (the review's cache).

use std::path::{Path, PathBuf};

use super::budget::{self, Failing};
use super::ctx::Context;
use super::governed;
use super::policy::InfraError;
use super::ruling::session_id;
use super::{changes, reviews, state};
use crate::adr_dir::governs::{self, Force, Index};
use crate::agent::event::HookEvent;
use crate::agent::output::HookOutput;
use crate::approval::decision_review::{
    self, DIFF_LIMIT, ReviewError, Rule, RuleVerdict, unified_diff,
};
use crate::config::Settings;
use crate::decision_log::{Decision, Verdict};
use crate::rules::enforcement::Kind;

/// The largest ADR handed to the reviewer.
const ADR_LIMIT: u64 = 1 << 20;

/// The budget target of one `llm_review` rule.
fn target(rule: &str) -> String {
    format!("llm_review:{rule}")
}

/// The `llm_review` rules of binding ADRs that cover `rel` (none for an ADR).
fn rules_for(index: &Index, rel: &str) -> Vec<Rule> {
    let mut out = Vec::new();
    index.each_rule_covering(
        rel,
        |adr, compiled| {
            adr.force == Force::Binding && matches!(compiled.rule.kind, Kind::LlmReview { .. })
        },
        |adr, compiled| {
            if let Kind::LlmReview { check } = &compiled.rule.kind {
                out.push(Rule {
                    id: crate::adr_dir::enforce::rule_id(adr.id, &compiled.rule.id),
                    adr_file: adr.file.to_owned(),
                    check: check.clone(),
                    why: compiled.rule.why.clone(),
                });
            }
        },
    );
    out
}

/// Whether a binding ADR's `llm_review` rule covers `rel` (for the files the
/// session finds changed at its start).
pub(super) fn reviewed(index: &Index, rel: &str) -> bool {
    !rules_for(index, rel).is_empty()
}

/// What the session changed under `llm_review` rules: `(path, HEAD's text,
/// text now)`, sorted by path, with the rules that cover them.
struct Changed {
    files: Vec<(String, Option<String>, String)>,
    rules: Vec<Rule>,
}

fn changed(root: &Path, index: &Index, session: &state::SessionState) -> Changed {
    let mut files = Vec::new();
    let mut rules: Vec<Rule> = Vec::new();
    let mut paths = changes::differ_from_head(root, |rel| reviewed(index, rel));
    paths.sort();
    for rel in paths {
        let path = root.join(&rel);
        if !crate::fs::confine::inside(root, &path) {
            continue;
        }
        let Ok(bytes) = crate::fs::read::read_limited(&path, governed::CODE_LIMIT) else {
            continue;
        };
        let found_so = session.code.get(&rel) == Some(&governed::digest(&bytes));
        if found_so && !session.code_touched.contains(&rel) {
            // As the session found it: not its doing.
            continue;
        }
        for rule in rules_for(index, &rel) {
            let escalated = session
                .targets
                .get(&target(&rule.id))
                .is_some_and(|t| t.escalated);
            if !escalated && !rules.iter().any(|r| r.id == rule.id) {
                rules.push(rule);
            }
        }
        let now = String::from_utf8_lossy(&bytes).into_owned();
        files.push((rel.clone(), governed::head_text(root, &rel), now));
    }
    Changed { files, rules }
}

/// The diff of `files`, cut at [`DIFF_LIMIT`] with a line that says so.
fn diff_of(files: &[(String, Option<String>, String)]) -> String {
    let mut diff = String::new();
    for (rel, before, after) in files {
        diff.push_str(&unified_diff(rel, before.as_deref(), Some(after)));
        if diff.len() > DIFF_LIMIT {
            diff.truncate(crate::text::prefix(&diff, DIFF_LIMIT).len());
            diff.push_str(
                "\n[helix-gate: the diff is cut here; read the changed files in the repository]\n",
            );
            break;
        }
    }
    diff
}

/// The session folders and last answer the budget's escalation needs.
pub(super) struct StopScope<'a> {
    pub session: &'a [PathBuf],
    pub last: &'a str,
}

/// Review the session's change under the `llm_review` rules of the binding
/// ADRs that govern it. `None`: nothing to review, or every rule consistent.
pub(super) fn at_stop(
    event: &HookEvent,
    ctx: &Context,
    settings: &Settings,
    scope: &StopScope<'_>,
    decisions: &mut Vec<Decision>,
    notes: &mut Vec<String>,
) -> Result<Option<HookOutput>, InfraError> {
    let root = ctx.root.as_path();
    if !governed::may_govern(root) {
        return Ok(None);
    }
    let Some(index) = governs::cached_index(root) else {
        return Ok(None);
    };
    let infra = |message: String| InfraError::new(message, Some(settings));
    let (Changed { files, rules }, note) =
        state::update(root, session_id(event), |s| changed(root, &index, s))
            .map_err(|e| infra(e.to_string()))?;
    notes.extend(note);
    if rules.is_empty() || files.is_empty() {
        return Ok(None);
    }
    let request = request(root, &files, rules).map_err(infra)?;
    let config_root = ctx.config_root();
    let until = deadline(event, ctx, &config_root).map_err(infra)?;
    let options = decision_review::Options {
        config_root: &config_root,
        deadline: Some(until),
        require_consent: ctx.user_scope(),
    };
    let shown = crate::text::escape_controls(
        &request
            .rules
            .iter()
            .map(|r| r.id.as_str())
            .collect::<Vec<_>>()
            .join(", "),
    )
    .into_owned();
    let review = match decision_review::review(root, &request, &options) {
        Ok(review) => review,
        Err(e @ (ReviewError::NotTrusted { .. } | ReviewError::ProgramChanged(_))) => {
            return Ok(Some(not_run(&request, &shown, &e, decisions)));
        }
        Err(e) => {
            return Err(infra(format!(
                "the llm_review rules {shown} could not be reviewed: {e}"
            )));
        }
    };
    notes.push(format!(
        "llm_review of {} rule(s) over {} file(s){}",
        review.judgements.len(),
        files.len(),
        if review.cached {
            " (cached verdicts)".to_owned()
        } else {
            format!(
                " (reviewer run {}, ${:.4})",
                review.run.as_deref().unwrap_or("-"),
                review.cost_usd
            )
        }
    ));
    let Sorted {
        mut failing,
        passing,
        unclear,
    } = sort(&request, &review, decisions);
    let budget_size = settings.hook.budget;
    let ((), note) = state::update(root, session_id(event), |s| {
        budget::charge_all(s, &passing, &mut failing, budget_size);
    })
    .map_err(|e| infra(e.to_string()))?;
    notes.extend(note);
    let mut output = budget::decide(
        root,
        scope.session,
        settings,
        &failing,
        scope.last,
        decisions,
        notes,
    );
    if !unclear.is_empty() {
        let line = format!(
            "helix-gate: the reviewer could not decide whether the change keeps {}; have a look yourself.",
            unclear.join("; ")
        );
        output = Some(match output {
            Some(out) => out.add_message(line),
            None => HookOutput::message(line),
        });
    }
    Ok(output)
}

/// What the reviewer gets: the diff of `files`, the rules, their ADRs' texts.
fn request(
    root: &Path,
    files: &[(String, Option<String>, String)],
    rules: Vec<Rule>,
) -> Result<decision_review::Request, String> {
    let mut adrs: Vec<(String, Vec<u8>)> = Vec::new();
    for rule in &rules {
        if adrs.iter().any(|(rel, _)| *rel == rule.adr_file) {
            continue;
        }
        let bytes = crate::fs::read::read_limited(&root.join(&rule.adr_file), ADR_LIMIT)
            .map_err(|e| format!("cannot read {}: {e}", rule.adr_file))?;
        adrs.push((rule.adr_file.clone(), bytes));
    }
    Ok(decision_review::Request {
        diff: diff_of(files),
        rules,
        adrs,
    })
}

/// The reviewer the repository names may not run for this session (no consent,
/// or its program changed): every rule logged as skipped, the person told.
fn not_run(
    request: &decision_review::Request,
    shown: &str,
    error: &ReviewError,
    decisions: &mut Vec<Decision>,
) -> HookOutput {
    for rule in &request.rules {
        decisions.push(Decision {
            target: rule.id.clone(),
            verdict: Verdict::Skip,
            note: Some(format!("llm_review not run: {error}")),
            ..Decision::default()
        });
    }
    HookOutput::message(format!(
        "helix-gate: the llm_review rules {shown} were not reviewed: {error}."
    ))
}

/// The verdicts, sorted for the budget: conflicts fail, the others pass (an
/// `unclear` one is also told to the person); each passing one is logged.
struct Sorted {
    failing: Vec<Failing>,
    passing: Vec<String>,
    unclear: Vec<String>,
}

fn sort(
    request: &decision_review::Request,
    review: &decision_review::Review,
    decisions: &mut Vec<Decision>,
) -> Sorted {
    let mut failing = Vec::new();
    let mut passing = Vec::new();
    let mut unclear = Vec::new();
    for judged in &review.judgements {
        let Some(rule) = request.rules.iter().find(|r| r.id == judged.rule) else {
            continue;
        };
        let reason = crate::text::escape_controls(&judged.reason).into_owned();
        match judged.verdict {
            RuleVerdict::Conflicts => failing.push(Failing::new(
                target(&rule.id),
                conflict_text(rule, &reason),
                vec![rule.id.clone()],
            )),
            RuleVerdict::Consistent | RuleVerdict::Unclear => {
                passing.push(target(&rule.id));
                if judged.verdict == RuleVerdict::Unclear {
                    unclear.push(format!("{}: {reason}", rule.id));
                }
                // Targeted at the rule, not naming it as a finding (`report`
                // counts a decision's `rules` as findings).
                decisions.push(Decision {
                    target: rule.id.clone(),
                    verdict: Verdict::Allow,
                    note: Some(format!("llm_review {}: {reason}", judged.verdict.as_str())),
                    ..Decision::default()
                });
            }
        }
    }
    Sorted {
        failing,
        passing,
        unclear,
    }
}

/// When the reviewer must end: the Stop's one deadline, as for the ADR reviewer.
fn deadline(
    event: &HookEvent,
    ctx: &Context,
    config_root: &Path,
) -> Result<std::time::Instant, String> {
    let root = ctx.root.as_path();
    let approvals = crate::approval::settings(config_root).map_err(|e| format!("{e:#}"))?;
    let window = reviews::StopWindow::find(root, &approvals, event.agent);
    ctx.deadline.for_reviews(window.limit());
    Ok(ctx
        .deadline
        .expires()
        .checked_sub(reviews::ANSWER_SLACK)
        .unwrap_or_else(std::time::Instant::now))
}

/// The block text of a conflict, for the model.
fn conflict_text(rule: &Rule, reason: &str) -> String {
    format!(
        "{} (llm_review of {}): the reviewer finds that your change conflicts with this accepted decision.\n  Check: {}\n  Why: {}\n  Reviewer: {reason}\n  Fix: change the code so that it keeps the decision. If the decision itself should change, do not edit the accepted ADR: tell the person, who can supersede it with a new one.",
        rule.id,
        rule.adr_file,
        rule.check.trim(),
        rule.why.trim()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_diff_is_cut_and_says_so() {
        let big = "x\n".repeat(DIFF_LIMIT);
        let files = vec![
            ("a.py".to_owned(), None, big.clone()),
            ("b.py".to_owned(), None, big),
        ];
        let diff = diff_of(&files);
        assert!(diff.len() < DIFF_LIMIT + 200, "{}", diff.len());
        assert!(diff.ends_with("read the changed files in the repository]\n"));
        assert!(!diff.contains("b/b.py"));
    }

    #[test]
    fn a_conflict_names_the_rule_its_adr_and_the_reason() {
        let rule = Rule {
            id: "ADR-014/retries".into(),
            adr_file: "docs/adr/0014-retries.md".into(),
            check: "Retries go through the gateway.".into(),
            why: "One retry policy.".into(),
        };
        let text = conflict_text(&rule, "src/x.py:3 loops over requests.get");
        assert!(text.starts_with(
            "ADR-014/retries (llm_review of docs/adr/0014-retries.md): the reviewer finds"
        ));
        assert!(text.contains("Reviewer: src/x.py:3 loops over requests.get"));
    }
}
