//! Claude Code hook (`helix-gate hook`): decode one event from stdin, decide, and
//! answer with at most one JSON object on stdout.
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

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::config::Settings;
use crate::decision_log::{self, Decision, Verdict};
use crate::diagnostic::{FileReport, Severity};
use crate::engine::Engine;
use crate::env;
use crate::render::feedback;
use event::HookEvent;
use output::HookOutput;
use step_marker::MarkerProblem;

/// Tools whose PostToolUse concerns a written file.
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
struct Outcome {
    output: Option<HookOutput>,
    decisions: Vec<Decision>,
}

/// Run the hook on the event on stdin: the one JSON object to answer with on
/// stdout, or None for "proceed" with nothing to say. Never fails and never
/// panics out: every failure becomes an explicit, labelled decision.
pub fn run() -> Option<String> {
    // Inside a reviewer started by helix-gate the hook does nothing, so a
    // review can never trigger another review.
    if env::is_set(env::HELIX_GATE_CHILD) {
        return None;
    }
    let started = Instant::now();
    let event = match event::read_stdin().and_then(|bytes| event::decode(&bytes)) {
        Ok(event) => event,
        Err(err) => {
            // Without an event we cannot tell which decision would apply: fail open, loudly.
            eprintln!("helix-gate hook: {err}");
            return Some(
                HookOutput::message(format!(
                    "helix-gate: infrastructure error, hook skipped: {err}"
                ))
                .to_json_line(),
            );
        }
    };
    let root = project_root(&event);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle(&event, &root)));
    let outcome = match result {
        Ok(Ok(outcome)) => outcome,
        Ok(Err(err)) => infrastructure(&event, &err),
        Err(_) => infrastructure(
            &event,
            &InfraError::new("internal panic (see stderr)", None),
        ),
    };
    let elapsed = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    for mut decision in outcome.decisions {
        decision.duration_us = elapsed;
        decision.time = crate::clock::now_rfc3339();
        decision.session = event.session_id.clone().unwrap_or_default();
        decision.event.clone_from(&event.hook_event_name);
        if let Err(e) = decision_log::append(&root, &decision) {
            eprintln!("helix-gate hook: cannot write the decision log: {e}");
        }
    }
    outcome.output.map(|output| output.to_json_line())
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
fn infrastructure(event: &HookEvent, err: &InfraError) -> Outcome {
    eprintln!("helix-gate hook: infrastructure error: {}", err.message);
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
    Outcome {
        output: Some(output),
        decisions: vec![Decision {
            verdict: Verdict::Error,
            note: Some(err.message.clone()),
            ..Decision::default()
        }],
    }
}

fn handle(event: &HookEvent, root: &Path) -> Result<Outcome, InfraError> {
    match event.hook_event_name.as_str() {
        "PostToolUse"
            if event
                .tool_name
                .as_deref()
                .is_some_and(|t| WRITE_TOOLS.contains(&t)) =>
        {
            post_tool_use(event, root)
        }
        "Stop" => stop(event, root),
        "SessionStart" => session_context(event, root, |s| s.hook.session_start_context),
        "UserPromptSubmit" => session_context(event, root, |s| s.hook.prompt_context),
        // SubagentStop (agent_type "" is /compact) is never blocked; the main Stop gate
        // checks the session's ADRs. Every other event concerns nothing here.
        _ => Ok(Outcome::default()),
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
fn skipped(target: String, why: &str) -> Outcome {
    Outcome {
        output: None,
        decisions: vec![Decision {
            target,
            verdict: Verdict::Skip,
            note: Some(why.to_owned()),
            ..Decision::default()
        }],
    }
}

/// PostToolUse on Write/Edit/MultiEdit: validate the written ADR.
fn post_tool_use(event: &HookEvent, root: &Path) -> Result<Outcome, InfraError> {
    let Some(file_path) = event.file_path() else {
        return Ok(Outcome::default());
    };
    let path = Path::new(file_path);
    let path = if path.is_absolute() {
        path.to_path_buf()
    } else {
        Path::new(event.cwd.as_deref().unwrap_or(".")).join(path)
    };
    // Outside the project: not ours, and never read.
    let Some(rel) = crate::paths::relative_to(root, &path) else {
        return Ok(Outcome::default());
    };
    // The no-op path: with the default settings every ADR glob ends in `.md`, so any
    // other file is dismissed before a configuration file is even opened.
    let own_settings = root.join(crate::config::settings::SETTINGS_PATH).exists();
    if !own_settings && !rel.to_ascii_lowercase().ends_with(".md") {
        return Ok(Outcome::default());
    }
    let settings = load_settings(root)?;
    let matcher = settings
        .adr_matcher()
        .map_err(|e| InfraError::new(e, Some(&settings)))?;
    if !matcher.is_adr(&rel) {
        return Ok(Outcome::default());
    }
    // A symlink that leads out of the project is not followed.
    if let (Ok(real), Ok(real_root)) = (path.canonicalize(), root.canonicalize())
        && !real.starts_with(&real_root)
    {
        eprintln!("helix-gate hook: {rel} points outside the project; not read");
        return Ok(skipped(rel, "symlink leads outside the project"));
    }
    let budget = settings.hook.budget;
    let engine = load_engine(root, settings)?;
    engine.set_matcher(matcher);
    let checked = match engine.check_file(&path) {
        Ok(checked) => checked,
        Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => {
            // Deleted between the tool call and the hook: nothing to check.
            return Ok(skipped(rel, "file no longer exists"));
        }
        Err(e) => return Err(InfraError::new(e.to_string(), Some(&engine.settings))),
    };
    let report = checked.report;
    let errors = count(&report, Severity::Error);
    let warnings = count(&report, Severity::Warning);
    let (attempt, newly_escalated, note) = state::update(root, session_id(event), |s| {
        s.touch(&rel);
        if errors == 0 {
            s.reset(&rel);
            return (0, false);
        }
        s.target(&rel).charge(budget)
    })
    .map(|((attempt, escalated), note)| (attempt, escalated, note))
    .map_err(|e| InfraError::new(e.to_string(), Some(&engine.settings)))?;
    if let Some(note) = &note {
        eprintln!("helix-gate hook: {note}");
    }
    let mut decision = Decision {
        target: rel.clone(),
        rules: rule_ids(&report),
        attempt,
        note,
        ..Decision::default()
    };
    let output = if errors > 0 && attempt <= budget {
        decision.verdict = Verdict::Block;
        Some(HookOutput::block(feedback::adr_block(
            &report, attempt, budget,
        )))
    } else if errors > 0 {
        decision.verdict = Verdict::Escalate;
        let context = format!(
            "helix-gate: the retry budget ({budget} attempts) for {rel} is spent; helix-gate no longer blocks, and a person will review it. It still fails:\n{}",
            feedback::describe(&report)
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
            &feedback::adr_warnings(&report),
        ))
    } else {
        decision.verdict = Verdict::Pass;
        None
    };
    Ok(Outcome {
        output,
        decisions: vec![decision],
    })
}

/// A target that failed at Stop and what to do about it.
struct Failing {
    target: String,
    text: String,
    rules: Vec<String>,
}

/// Stop: every ADR this session touched must pass as it is on disk now, and the
/// last answer must end with a STEP marker when that check is enabled.
fn stop(event: &HookEvent, root: &Path) -> Result<Outcome, InfraError> {
    if event
        .background_tasks
        .as_ref()
        .is_some_and(|t| !t.is_empty())
    {
        return Ok(Outcome {
            output: None,
            decisions: vec![Decision {
                verdict: Verdict::Allow,
                note: Some("background tasks still running; not blocking".into()),
                ..Decision::default()
            }],
        });
    }
    let settings = load_settings(root)?;
    let budget = settings.hook.budget;
    let marker = settings.step_marker.clone();
    let (touched, note) = state::update(root, session_id(event), |s| s.touched.clone())
        .map_err(|e| InfraError::new(e.to_string(), Some(&settings)))?;
    if let Some(note) = &note {
        eprintln!("helix-gate hook: {note}");
    }
    let mut failing = Vec::new();
    let mut passing = Vec::new();
    if !touched.is_empty() {
        let engine = load_engine(root, settings.clone())?;
        for rel in &touched {
            let path = root.join(rel);
            match engine.check_file(&path) {
                Ok(checked) if checked.report.has_errors() => failing.push(Failing {
                    target: rel.clone(),
                    rules: rule_ids(&checked.report),
                    text: format!("{}:\n{}", rel, feedback::describe(&checked.report)),
                }),
                Ok(_) => passing.push(rel.clone()),
                Err(e) if e.source.kind() == std::io::ErrorKind::NotFound => {
                    passing.push(rel.clone());
                }
                Err(e) => return Err(InfraError::new(e.to_string(), Some(&settings))),
            }
        }
    }
    let last = event.last_assistant_message.as_deref().unwrap_or("");
    if marker.enabled {
        match step_marker::check(last, &marker.steps) {
            Ok(_) => passing.push(STEP_TARGET.to_owned()),
            Err(problem) => {
                let format = step_marker::format_hint(&marker.steps);
                let what = match &problem {
                    MarkerProblem::Missing => {
                        "Your last answer does not end with a STEP marker.".to_owned()
                    }
                    MarkerProblem::NotAtEnd => {
                        "Your last answer has a STEP marker, but not at its very end.".to_owned()
                    }
                    MarkerProblem::UnknownStep(step) => {
                        format!("Your last answer ends with the unknown step `{step}`.")
                    }
                };
                failing.push(Failing {
                    target: STEP_TARGET.to_owned(),
                    rules: vec![STEP_TARGET.to_owned()],
                    text: format!(
                        "{what} Repeat your answer (unchanged) and end it with exactly one line in this format, choosing one step:\n{format}\nExample: <!-- STEP: {} -->",
                        marker.steps.first().map_or("done", String::as_str)
                    ),
                });
            }
        }
    }
    // Count attempts per failing target under the session lock.
    let keys: Vec<String> = failing.iter().map(|f| f.target.clone()).collect();
    let (attempts, _) = state::update(root, session_id(event), |s| {
        for key in &passing {
            s.reset(key);
        }
        keys.iter()
            .map(|key| s.target(key).charge(budget))
            .collect::<Vec<_>>()
    })
    .map_err(|e| InfraError::new(e.to_string(), Some(&settings)))?;
    let mut decisions = Vec::new();
    let mut block_text = Vec::new();
    let mut escalated_text = Vec::new();
    for (f, (attempt, first_escalation)) in failing.iter().zip(attempts) {
        if attempt <= budget {
            block_text.push(format!("[attempt {attempt}/{budget}] {}", f.text));
            decisions.push(Decision {
                target: f.target.clone(),
                verdict: Verdict::Block,
                rules: f.rules.clone(),
                attempt,
                ..Decision::default()
            });
        } else {
            if first_escalation {
                escalated_text.push(f.target.clone());
                if f.target == STEP_TARGET {
                    let applied = step_fallback(root, &marker.fallback_file, last);
                    decisions.push(Decision {
                        target: STEP_TARGET.into(),
                        verdict: Verdict::Fallback,
                        note: Some(applied),
                        ..Decision::default()
                    });
                }
            }
            decisions.push(Decision {
                target: f.target.clone(),
                verdict: Verdict::Escalate,
                rules: f.rules.clone(),
                attempt,
                ..Decision::default()
            });
        }
    }
    if !block_text.is_empty() {
        let reason = format!(
            "helix-gate: not done yet. Fix these before you finish:\n\n{}",
            block_text.join("\n")
        );
        return Ok(Outcome {
            output: Some(HookOutput::block(reason)),
            decisions,
        });
    }
    if !escalated_text.is_empty() {
        // At Stop, additionalContext would make the model continue (it counts like a
        // block), so the escalation goes to the user only and the turn ends.
        return Ok(Outcome {
            output: Some(HookOutput::message(format!(
                "helix-gate: retry budget ({budget}) spent, escalated to you: {} still fail(s). See `helix-gate log --tail` and `helix-gate validate`.",
                escalated_text.join(", ")
            ))),
            decisions,
        });
    }
    // Deterministic checks all pass: the independent reviewer, last and only now.
    // Only ADRs that pass every deterministic check now (an escalated, still failing
    // ADR is a person's business, never the reviewer's).
    let reviewable: Vec<String> = touched
        .iter()
        .filter(|rel| passing.contains(rel) && root.join(rel.as_str()).is_file())
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
    if !touched.is_empty() || marker.enabled {
        decisions.push(Decision {
            verdict: Verdict::Allow,
            ..Decision::default()
        });
    }
    Ok(Outcome {
        output: None,
        decisions,
    })
}

/// The approval type the Stop gate asks for.
const APPROVAL_TYPE: &str = "adr";

/// Run the reviewer (cache first) on ADRs that passed every deterministic check.
/// `None` lets the stop proceed without a message of its own.
fn approval_gate(
    event: &HookEvent,
    root: &Path,
    files: &[String],
    fail_closed: bool,
    decisions: &mut Vec<Decision>,
) -> Result<Option<Outcome>, InfraError> {
    use crate::approval::{self, ApproveOptions, NextStep};
    let infra = |message: String| InfraError {
        message,
        fail_closed,
    };
    let settings = approval::settings(root).map_err(|e| infra(format!("{e:#}")))?;
    let Some(kind) = settings.get(APPROVAL_TYPE).filter(|t| t.enabled) else {
        return Ok(None);
    };
    let on_rejection = kind.on_rejection.clone();
    let mut messages = Vec::new();
    let mut feedback = Vec::new();
    for rel in files {
        let options = ApproveOptions {
            no_cache: false,
            progress: false,
        };
        let result = approval::approve(root, &[root.join(rel)], APPROVAL_TYPE, &options)
            .map_err(|e| infra(format!("approval of {rel}: {e:#}")))?;
        let key = format!("approval:{rel}");
        if let Some(failure) = &result.failure {
            // The reviewer broke (timeout, crash, no verdict): not the model's fault.
            return Err(infra(format!(
                "the reviewer for {rel} failed ({}): {failure}",
                failure.kind()
            )));
        }
        if result.is_approved() {
            state::update(root, session_id(event), |s| s.reset(&key))
                .map_err(|e| infra(e.to_string()))?;
            messages.push(result.one_line());
            decisions.push(Decision {
                target: rel.clone(),
                verdict: Verdict::Approved,
                note: Some(result.one_line()),
                ..Decision::default()
            });
            continue;
        }
        let (failures, _) = state::update(root, session_id(event), |s| {
            let target = s.target(&key);
            target.attempts += 1;
            target.attempts
        })
        .map_err(|e| infra(e.to_string()))?;
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
    if !feedback.is_empty() {
        let mut output = HookOutput::block(feedback.join("\n\n"));
        if !messages.is_empty() {
            output = output.with_message(messages.join("\n"));
        }
        return Ok(Some(Outcome {
            output: Some(output),
            decisions: std::mem::take(decisions),
        }));
    }
    decisions.push(Decision {
        verdict: Verdict::Allow,
        ..Decision::default()
    });
    Ok(Some(Outcome {
        output: Some(HookOutput::message(messages.join("\n"))),
        decisions: std::mem::take(decisions),
    }))
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
    let result = std::fs::OpenOptions::new()
        .append(true)
        .open(&path)
        .and_then(|mut f| write!(f, "\n\n<!-- STEP: {step} -->\n"));
    match result {
        Ok(()) => format!("appended <!-- STEP: {step} --> to {rel}"),
        Err(e) => format!("cannot append to {rel}: {e}"),
    }
}

/// SessionStart / UserPromptSubmit: a short summary of the rules, so fewer mistakes happen.
fn session_context(
    event: &HookEvent,
    root: &Path,
    enabled: impl Fn(&Settings) -> bool,
) -> Result<Outcome, InfraError> {
    let settings = load_settings(root)?;
    if event.hook_event_name == "SessionStart" {
        state::prune(root, settings.hook.state_retention_days);
    }
    if !enabled(&settings) {
        return Ok(Outcome::default());
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
        text.push_str(&format!("- {} ({})\n", rule.message, rule.id));
    }
    if settings.step_marker.enabled {
        text.push_str(&format!(
            "End EVERY answer with a STEP marker as its last line: {}\n",
            step_marker::format_hint(&settings.step_marker.steps)
        ));
    }
    text.push_str("Run `helix-gate validate <file>` to check an ADR yourself.");
    Ok(Outcome {
        output: Some(HookOutput::context(&event.hook_event_name, &text)),
        decisions: Vec::new(),
    })
}
