//! Claude Code hook (`helix-gate hook`): decode one event from stdin, decide, and
//! return the [`Answer`]: at most one JSON object for stdout and notes for stderr.
//! Nothing here prints; `cli::hook` writes the answer.
//!
//! The failure policy lives here, in one place: an internal error (config, state,
//! an unreadable file, even a panic) is never shown as a rule violation. By
//! default the hook fails open with a `systemMessage` that names the
//! infrastructure error; `hook.fail_closed: true` makes it block instead, with a
//! reason that says it is an infrastructure error.

pub mod event;
pub mod output;
pub mod state;
pub mod step_marker;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::approval::{self, Approval, ApproveOptions, NextStep, OnRejection};
use crate::config::Settings;
use crate::decision_log::{self, Decision, Verdict};
use crate::diagnostic::{FileReport, Severity};
use crate::engine::Engine;
use crate::env;
use crate::fs::append::Missing;
use crate::render::feedback;
use event::HookEvent;
use output::HookOutput;
use state::SessionState;

/// Tools whose `PostToolUse` concerns a written file.
const WRITE_TOOLS: [&str; 3] = ["Write", "Edit", "MultiEdit"];
/// Budget key of the STEP marker; also the rule id in decisions.
const STEP_TARGET: &str = crate::rules::gate::STEP_MARKER.id;

/// An internal failure: reported as such, never as a finding.
#[derive(Debug)]
struct InfraError {
    message: String,
    /// Whether the settings asked to fail closed (unknown when settings failed).
    fail_closed: bool,
}

impl InfraError {
    fn new(message: impl Into<String>, settings: Option<&Settings>) -> Self {
        InfraError {
            message: message.into(),
            fail_closed: settings.is_some_and(|s| s.hook.fail_closed),
        }
    }
}

/// What one event led to: the answer and the log records.
#[derive(Default)]
struct Ruling {
    output: Option<HookOutput>,
    decisions: Vec<Decision>,
}

/// The hook's answer to one event, for the caller to print: at most one JSON
/// line for stdout (`None`: proceed with nothing to say) and notes for the
/// person reading stderr (infrastructure errors, a replaced state file, a
/// decision log that cannot be written).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Answer {
    pub stdout: Option<String>,
    /// One line each, without the `helix-gate hook:` prefix the printer adds.
    pub notes: Vec<String>,
}

/// Run the hook on the event on stdin. Never fails and never panics out: every
/// failure becomes an explicit, labelled decision in the answer.
pub fn run() -> Answer {
    // Inside a reviewer started by helix-gate the hook does nothing, so a
    // review can never trigger another review.
    if env::is_set(env::HELIX_GATE_CHILD) {
        return Answer::default();
    }
    let started = Instant::now();
    let event = match event::read_stdin().and_then(|bytes| event::decode(&bytes)) {
        Ok(event) => event,
        Err(err) => {
            // Without an event we cannot tell which decision would apply: fail open, loudly.
            return Answer {
                stdout: Some(
                    HookOutput::message(format!(
                        "helix-gate: infrastructure error, hook skipped: {err}"
                    ))
                    .to_json_line(),
                ),
                notes: vec![err.to_string()],
            };
        }
    };
    let root = project_root(&event);
    let mut notes = Vec::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handle(&event, &root, &mut notes)
    }));
    let outcome = match result {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(err)) => infrastructure(&event, &err, &mut notes),
        Err(_) => infrastructure(
            &event,
            &InfraError::new("internal panic (see stderr)", None),
            &mut notes,
        ),
    };
    let elapsed = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    for mut decision in outcome.decisions {
        decision.duration_us = elapsed;
        decision.time = crate::clock::now_rfc3339();
        decision.session = event.session_id.clone().unwrap_or_default();
        decision.event.clone_from(&event.hook_event_name);
        if let Err(e) = decision_log::append(&root, &decision) {
            notes.push(format!("cannot write the decision log: {e}"));
        }
    }
    Answer {
        stdout: outcome.output.map(|output| output.to_json_line()),
        notes,
    }
}

/// `CLAUDE_PROJECT_DIR` (constant for the session), else the repository around the payload's cwd.
fn project_root(event: &HookEvent) -> PathBuf {
    if let Some(dir) = env::var(env::CLAUDE_PROJECT_DIR) {
        return crate::paths::absolute(Path::new(&dir));
    }
    let cwd = event.cwd.as_deref().map_or_else(
        || std::env::current_dir().unwrap_or_default(),
        PathBuf::from,
    );
    crate::paths::find_root(&cwd)
}

/// Apply the failure policy to an internal error.
fn infrastructure(event: &HookEvent, err: &InfraError, notes: &mut Vec<String>) -> Ruling {
    notes.push(format!("infrastructure error: {}", err.message));
    let blocking_event = matches!(event.hook_event_name.as_str(), "PostToolUse" | "Stop");
    let output = if err.fail_closed && blocking_event {
        HookOutput::block(format!(
            "helix-gate infrastructure error (not a problem in your files): {}. fail_closed is set, so this blocks until the tool works again.",
            err.message
        ))
    } else {
        HookOutput::message(format!(
            "helix-gate: infrastructure error, check skipped: {}",
            err.message
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

fn handle(event: &HookEvent, root: &Path, notes: &mut Vec<String>) -> Result<Ruling, InfraError> {
    match event.hook_event_name.as_str() {
        "PostToolUse"
            if event
                .tool_name
                .as_deref()
                .is_some_and(|t| WRITE_TOOLS.contains(&t)) =>
        {
            post_tool_use(event, root, notes)
        }
        "Stop" => stop(event, root, notes),
        "SessionStart" => session_context(event, root, |s| s.hook.session_start_context),
        "UserPromptSubmit" => session_context(event, root, |s| s.hook.prompt_context),
        // SubagentStop (agent_type "" is /compact) is never blocked; the main Stop gate
        // checks the session's ADRs. Every other event concerns nothing here.
        _ => Ok(Ruling::default()),
    }
}

fn load_settings(root: &Path) -> Result<Settings, InfraError> {
    Settings::load(root).map_err(|e| InfraError::new(e.to_string(), None))
}

fn load_engine(root: &Path, settings: Settings) -> Result<Engine, InfraError> {
    let fail_closed = settings.hook.fail_closed;
    Engine::with_settings(root, settings, None).map_err(|e| InfraError {
        message: format!("{e:#}"),
        fail_closed,
    })
}

fn session_id(event: &HookEvent) -> &str {
    event.session_id.as_deref().unwrap_or("unknown-session")
}

fn count(report: &FileReport, severity: Severity) -> usize {
    report
        .findings
        .iter()
        .filter(|f| f.severity == severity)
        .count()
}

fn rule_ids(report: &FileReport) -> Vec<String> {
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
fn skipped(target: String, why: &str) -> Ruling {
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

// ------------------------------------------------------------------ PostToolUse

/// `PostToolUse` on Write/Edit/MultiEdit: validate the written ADR, count the
/// attempt under the session lock (one acquisition), answer.
fn post_tool_use(
    event: &HookEvent,
    root: &Path,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    let Some((path, rel)) = written_file(event, root) else {
        return Ok(Ruling::default());
    };
    // The no-op path: with the default settings every ADR glob ends in `.md`, so any
    // other file is dismissed before a configuration file is even opened.
    let own_settings = root.join(crate::config::settings::SETTINGS_PATH).exists();
    if !own_settings && !rel.to_ascii_lowercase().ends_with(".md") {
        return Ok(Ruling::default());
    }
    let settings = load_settings(root)?;
    let matcher = settings
        .adr_matcher()
        .map_err(|e| InfraError::new(e, Some(&settings)))?;
    if !matcher.is_adr(&rel) {
        return Ok(Ruling::default());
    }
    // A symlink that leads out of the project is not followed.
    if let (Ok(real), Ok(real_root)) = (path.canonicalize(), root.canonicalize())
        && !real.starts_with(&real_root)
    {
        notes.push(format!("{rel} points outside the project; not read"));
        return Ok(skipped(rel, "symlink leads outside the project"));
    }
    let budget = settings.hook.budget;
    let engine = load_engine(root, settings)?;
    engine.set_matcher(matcher);
    let report = match engine.check_file(&path) {
        Ok(checked) => checked.report,
        Err(e) if e.cause.kind() == std::io::ErrorKind::NotFound => {
            // Deleted between the tool call and the hook: nothing to check.
            return Ok(skipped(rel, "file no longer exists"));
        }
        Err(e) => return Err(InfraError::new(e.to_string(), Some(&engine.settings))),
    };
    let errors = count(&report, Severity::Error);
    let ((attempt, newly_escalated), note) =
        count_write(root, session_id(event), &rel, errors, budget)
            .map_err(|e| InfraError::new(e.to_string(), Some(&engine.settings)))?;
    notes.extend(note.clone());
    let decision = Decision {
        target: rel.clone(),
        rules: rule_ids(&report),
        attempt,
        note,
        ..Decision::default()
    };
    Ok(post_tool_use_answer(
        &rel,
        &report,
        decision,
        budget,
        newly_escalated,
    ))
}

/// The file a Write/Edit names (absolute) and its path inside the project; `None`
/// without a path or outside the project (not ours, and never read).
fn written_file(event: &HookEvent, root: &Path) -> Option<(PathBuf, String)> {
    let path = Path::new(event.file_path()?);
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        Path::new(event.cwd.as_deref().unwrap_or(".")).join(path)
    };
    let rel = crate::paths::relative_to(root, &path)?;
    Some((path, rel))
}

/// The one lock of a `PostToolUse`: the ADR joins the session's touched ADRs; a
/// clean one starts its budget over (attempt 0), a failing one is charged.
fn count_write(
    root: &Path,
    session: &str,
    rel: &str,
    errors: usize,
    budget: u32,
) -> Result<((u32, bool), Option<String>), state::StateError> {
    state::update(root, session, |s| {
        s.touch(rel);
        if errors == 0 {
            s.reset(rel);
            return (0, false);
        }
        s.target(rel).charge(budget)
    })
}

/// Block within the budget, then escalate (the user is told once), warnings as
/// context, silence for a clean ADR. `decision` carries the counted attempt.
fn post_tool_use_answer(
    rel: &str,
    report: &FileReport,
    mut decision: Decision,
    budget: u32,
    newly_escalated: bool,
) -> Ruling {
    let errors = count(report, Severity::Error);
    let warnings = count(report, Severity::Warning);
    let attempt = decision.attempt;
    let output = if errors > 0 && attempt <= budget {
        decision.verdict = Verdict::Block;
        Some(HookOutput::block(feedback::adr_block(
            report, attempt, budget,
        )))
    } else if errors > 0 {
        decision.verdict = Verdict::Escalate;
        let context = format!(
            "helix-gate: the retry budget ({budget} attempts) for {rel} is spent; helix-gate no longer blocks, and a person will review it. It still fails:\n{}",
            feedback::describe(report)
        );
        let out = HookOutput::context("PostToolUse", &context);
        Some(if newly_escalated {
            out.with_message(format!(
                "helix-gate: {rel} still fails {errors} check(s) after {budget} attempts; escalated to you (run `helix-gate validate {rel}`)."
            ))
        } else {
            out
        })
    } else if warnings > 0 {
        decision.verdict = Verdict::Warn;
        Some(HookOutput::context(
            "PostToolUse",
            &feedback::adr_warnings(report),
        ))
    } else {
        decision.verdict = Verdict::Pass;
        None
    };
    Ruling {
        output,
        decisions: vec![decision],
    }
}

// ------------------------------------------------------------------ Stop

/// A target that failed at Stop and what to do about it.
struct Failing {
    target: String,
    text: String,
    rules: Vec<String>,
    /// Filled in by [`charge`]: the attempt number (`budget + 1` once spent)
    /// and whether this Stop spent the budget.
    attempt: u32,
    first_escalation: bool,
}

impl Failing {
    fn new(target: String, text: String, rules: Vec<String>) -> Self {
        Failing {
            target,
            text,
            rules,
            attempt: 0,
            first_escalation: false,
        }
    }
}

/// The deterministic half of the Stop gate, decided under one session lock.
struct StopChecks {
    /// The ADRs this session touched.
    touched: Vec<String>,
    /// Targets that pass now (their budgets were reset).
    passing: Vec<String>,
    /// Targets that fail now, charged against their budgets.
    failing: Vec<Failing>,
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
fn stop(event: &HookEvent, root: &Path, notes: &mut Vec<String>) -> Result<Ruling, InfraError> {
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
    let settings = load_settings(root)?;
    let last = event.last_assistant_message.as_deref().unwrap_or("");
    let checks = deterministic_gate(event, root, &settings, last, notes)?;
    let mut decisions = Vec::new();
    if let Some(output) = budget_decision(root, &settings, &checks.failing, last, &mut decisions) {
        return Ok(Ruling {
            output: Some(output),
            decisions,
        });
    }
    // Deterministic checks all pass: the independent reviewer, last and only now.
    // Only ADRs that pass every deterministic check now (an escalated, still failing
    // ADR is a person's business, never the reviewer's).
    let reviewable: Vec<String> = checks
        .touched
        .iter()
        .filter(|rel| checks.passing.contains(rel) && root.join(rel.as_str()).is_file())
        .cloned()
        .collect();
    if !reviewable.is_empty()
        && let Some(outcome) = approval_gate(
            event,
            root,
            &reviewable,
            settings.hook.fail_closed,
            &mut decisions,
        )?
    {
        return Ok(outcome);
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

/// Under one acquisition of the session lock: the touched ADRs, their checks as
/// they are on disk now, the STEP marker, and the attempt counts (passing
/// targets start over, failing ones are charged). Only deterministic, local
/// work happens while the lock is held.
fn deterministic_gate(
    event: &HookEvent,
    root: &Path,
    settings: &Settings,
    last: &str,
    notes: &mut Vec<String>,
) -> Result<StopChecks, InfraError> {
    let state_error = |e: state::StateError| InfraError::new(e.to_string(), Some(settings));
    let mut session = state::lock(root, session_id(event)).map_err(state_error)?;
    notes.extend(session.note.take());
    let touched = session.state.touched.clone();
    let (mut failing, mut passing) = check_touched(root, settings, &touched)?;
    let marker = &settings.step_marker;
    if marker.enabled {
        match step_marker::check(last, &marker.steps) {
            Ok(_) => passing.push(STEP_TARGET.to_owned()),
            Err(problem) => failing.push(Failing::new(
                STEP_TARGET.to_owned(),
                step_marker::feedback(&problem, &marker.steps),
                vec![STEP_TARGET.to_owned()],
            )),
        }
    }
    charge(
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
    })
}

/// The deterministic checks of the touched ADRs as they are on disk now: the
/// failing ones with their feedback, and the passing ones (a deleted ADR passes).
fn check_touched(
    root: &Path,
    settings: &Settings,
    touched: &[String],
) -> Result<(Vec<Failing>, Vec<String>), InfraError> {
    let mut failing = Vec::new();
    let mut passing = Vec::new();
    if touched.is_empty() {
        return Ok((failing, passing));
    }
    let engine = load_engine(root, settings.clone())?;
    for rel in touched {
        match engine.check_file(&root.join(rel)) {
            Ok(checked) if checked.report.has_errors() => failing.push(Failing::new(
                rel.clone(),
                format!("{}:\n{}", rel, feedback::describe(&checked.report)),
                rule_ids(&checked.report),
            )),
            Ok(_) => passing.push(rel.clone()),
            Err(e) if e.cause.kind() == std::io::ErrorKind::NotFound => {
                passing.push(rel.clone());
            }
            Err(e) => return Err(InfraError::new(e.to_string(), Some(settings))),
        }
    }
    Ok((failing, passing))
}

/// Passing targets start over; every failing target is charged one attempt.
fn charge(state: &mut SessionState, passing: &[String], failing: &mut [Failing], budget: u32) {
    for key in passing {
        state.reset(key);
    }
    for f in failing {
        (f.attempt, f.first_escalation) = state.target(&f.target).charge(budget);
    }
}

/// The budget decision over the failing targets: block while any target has
/// attempts left, else tell the user about targets that just spent their budget
/// (the STEP marker falls back to the seed's heuristic). `None` lets the Stop go
/// on to the reviewer; `decisions` gets one record per target either way.
fn budget_decision(
    root: &Path,
    settings: &Settings,
    failing: &[Failing],
    last: &str,
    decisions: &mut Vec<Decision>,
) -> Option<HookOutput> {
    let budget = settings.hook.budget;
    let mut block_text = Vec::new();
    let mut escalated_text = Vec::new();
    for f in failing {
        let attempt = f.attempt;
        let verdict = if attempt <= budget {
            block_text.push(format!("[attempt {attempt}/{budget}] {}", f.text));
            Verdict::Block
        } else {
            if f.first_escalation {
                escalated_text.push(f.target.clone());
                if f.target == STEP_TARGET {
                    let applied = step_fallback(root, &settings.step_marker.fallback_file, last);
                    decisions.push(Decision {
                        target: STEP_TARGET.into(),
                        verdict: Verdict::Fallback,
                        note: Some(applied),
                        ..Decision::default()
                    });
                }
            }
            Verdict::Escalate
        };
        decisions.push(Decision {
            target: f.target.clone(),
            verdict,
            rules: f.rules.clone(),
            attempt,
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
        return Some(HookOutput::message(format!(
            "helix-gate: retry budget ({budget}) spent, escalated to you: {} still fail(s). See `helix-gate log --tail` and `helix-gate validate`.",
            escalated_text.join(", ")
        )));
    }
    None
}

// ------------------------------------------------------------------ approval gate

/// The approval type the Stop gate asks for.
const APPROVAL_TYPE: &str = crate::approval::ADR_TYPE;

/// One ADR the reviewer (or its cache) gave a verdict on.
struct Review {
    rel: String,
    result: Approval,
}

/// Run the reviewer (cache first) on ADRs that passed every deterministic check.
/// `None` lets the stop proceed without a message of its own.
fn approval_gate(
    event: &HookEvent,
    root: &Path,
    files: &[String],
    fail_closed: bool,
    decisions: &mut Vec<Decision>,
) -> Result<Option<Ruling>, InfraError> {
    let infra = |message: String| InfraError {
        message,
        fail_closed,
    };
    let settings = approval::settings(root).map_err(|e| infra(format!("{e:#}")))?;
    let Some(kind) = settings.get(APPROVAL_TYPE).filter(|t| t.enabled) else {
        return Ok(None);
    };
    // The reviews run without the session lock; a broken reviewer stops the
    // round, but the verdicts before it are still counted and acted on.
    let (reviews, broken) = run_reviews(root, files, &infra);
    let failed_reviews =
        count_reviews(root, session_id(event), &reviews).map_err(|e| infra(e.to_string()))?;
    let (messages, feedback) = act_on_reviews(
        root,
        &kind.on_rejection,
        &reviews,
        &failed_reviews,
        decisions,
    );
    if let Some(err) = broken {
        return Err(err);
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

/// Review `files` one by one, up to the first that cannot be reviewed (a setup
/// problem, or a reviewer that broke: timeout, crash, no verdict), which is an
/// infrastructure error, never the model's fault.
fn run_reviews(
    root: &Path,
    files: &[String],
    infra: &impl Fn(String) -> InfraError,
) -> (Vec<Review>, Option<InfraError>) {
    let options = ApproveOptions {
        no_cache: false,
        progress: false,
    };
    let mut reviews = Vec::new();
    for rel in files {
        let result = match approval::approve(root, &[root.join(rel)], APPROVAL_TYPE, &options) {
            Ok(result) => result,
            // Escaped: a file name may carry line breaks meant for the model.
            Err(e) => {
                let rel = rel.escape_debug();
                return (reviews, Some(infra(format!("approval of {rel}: {e:#}"))));
            }
        };
        if let Some(failure) = &result.failure {
            let err = infra(format!(
                "the reviewer for {rel} failed ({}): {failure}",
                failure.kind()
            ));
            return (reviews, Some(err));
        }
        reviews.push(Review {
            rel: rel.clone(),
            result,
        });
    }
    (reviews, None)
}

/// The second and last lock of a Stop: an approved ADR's failed reviews start
/// over, a rejected one counts one more. Returns the count per review (0 for an
/// approval); takes no lock when nothing was reviewed.
fn count_reviews(
    root: &Path,
    session: &str,
    reviews: &[Review],
) -> Result<Vec<u32>, state::StateError> {
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
                    0
                } else {
                    let target = s.target(&key);
                    target.attempts += 1;
                    target.attempts
                }
            })
            .collect()
    })?;
    Ok(counts)
}

/// What the verdicts lead to, by `on_rejection`: the user messages and the
/// feedback for the model (which blocks). An escalation is recorded in the
/// approval history.
fn act_on_reviews(
    root: &Path,
    on_rejection: &OnRejection,
    reviews: &[Review],
    failed_reviews: &[u32],
    decisions: &mut Vec<Decision>,
) -> (Vec<String>, Vec<String>) {
    let mut messages = Vec::new();
    let mut feedback = Vec::new();
    for (Review { rel, result }, &failures) in reviews.iter().zip(failed_reviews) {
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
        let rules: Vec<String> = result.findings().iter().map(|f| f.rule.clone()).collect();
        match on_rejection.next_step(failures - 1) {
            NextStep::Feedback | NextStep::Block => {
                feedback.push(result.feedback_for_attempt(failures));
                decisions.push(Decision {
                    target: rel.clone(),
                    verdict: Verdict::Block,
                    rules,
                    attempt: failures,
                    note: Some(result.one_line()),
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
                messages.push(format!(
                    "helix-gate: approval of {rel} still {} after {failures} review(s); escalated to you ({})",
                    result.verdict().as_str(),
                    result.one_line()
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

/// The STEP marker fallback: append the seed's heuristic marker to the response
/// file when it exists. Returns what was done, for the log.
fn step_fallback(root: &Path, fallback_file: &str, last: &str) -> String {
    let step = step_marker::heuristic_step(last);
    let crate::rules::file_refs::PathCheck::Relative(rel) =
        crate::rules::file_refs::classify(fallback_file)
    else {
        return format!("fallback file `{fallback_file}` is not a path inside the project");
    };
    let path = root.join(&rel);
    if !path.is_file() {
        return format!("no {rel}; marker <!-- STEP: {step} --> not written");
    }
    let marker = format!("\n\n<!-- STEP: {step} -->\n");
    let result = crate::fs::append::append(&path, marker.as_bytes(), Missing::Fail);
    match result {
        Ok(()) => format!("appended <!-- STEP: {step} --> to {rel}"),
        Err(e) => format!("cannot append to {rel}: {e}"),
    }
}

/// `SessionStart` / `UserPromptSubmit`: a short summary of the rules, so fewer mistakes happen.
fn session_context(
    event: &HookEvent,
    root: &Path,
    enabled: impl Fn(&Settings) -> bool,
) -> Result<Ruling, InfraError> {
    let settings = load_settings(root)?;
    if event.hook_event_name == "SessionStart" {
        state::prune(root, settings.hook.state_retention_days);
    }
    if !enabled(&settings) {
        return Ok(Ruling::default());
    }
    let rules = crate::config::load_rules(root, None)
        .map_err(|e| InfraError::new(format!("{e:#}"), Some(&settings)))?;
    let mut text = format!(
        "helix-gate checks every ADR you write ({}) when you save it and before you finish:\n\
- front matter between --- lines with adr_id, title, status ({}) and files: {{create, modify, docs}} lists\n\
- files paths relative to the repository root (no /home/..., ~ or ..); every files.modify path must exist\n\
- ## sections: {} (at least {} characters each)\n\
- {}: at least {} checkbox items (- [ ] ...)\n",
        settings.adr.globs.join(", "),
        crate::rules::front_matter::STATUSES.join("|"),
        rules.base.required_sections.join(", "),
        rules.base.min_section_length,
        rules.base.acceptance_section,
        rules.base.min_acceptance_criteria,
    );
    for rule in rules
        .contextual
        .iter()
        .filter(|r| r.severity == Severity::Error)
    {
        let _ = writeln!(text, "- {} ({})", rule.message, rule.id);
    }
    if settings.step_marker.enabled {
        let _ = writeln!(
            text,
            "End EVERY answer with a STEP marker as its last line: {}",
            step_marker::format_hint(&settings.step_marker.steps)
        );
    }
    text.push_str("Run `helix-gate validate <file>` to check an ADR yourself.");
    Ok(Ruling {
        output: Some(HookOutput::context(&event.hook_event_name, &text)),
        decisions: Vec::new(),
    })
}
