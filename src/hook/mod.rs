//! Claude Code hook (`helix-gate hook`): decode one event from stdin, decide, and
//! return the [`Answer`]: at most one JSON object for stdout and notes for stderr.
//! Nothing here prints; `cli::hook` writes the answer.
//!
//! The failure policy lives here, in one place: an internal error (config, state,
//! an unreadable file, a field of the event the decision needs but cannot read,
//! the hook's own deadline, even a panic) is never shown as a rule violation. By
//! default the hook fails open with a `systemMessage` that names the
//! infrastructure error; `hook.fail_closed: true` makes it block instead, with a
//! reason that says it is an infrastructure error.
//!
//! The hook never reads through a symlink that leads out of the project, and
//! refuses the session's writes into `.helix-gate/`, helix-gate's own records
//! (`PreToolUse` denies them; `PostToolUse` blocks where `PreToolUse` is not
//! registered).

mod approval_gate;
pub mod budget;
pub mod deadline;
pub mod event;
mod finalized;
pub mod output;
mod phases;
pub mod project;
pub mod reviews;
pub mod state;
pub mod step_marker;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use crate::config::Settings;
use crate::decision_log::{self, Decision, Verdict};
use crate::diagnostic::{FileReport, Severity};
use crate::engine::Engine;
use crate::env;
use crate::fs::data_dir;
use crate::paths;
use crate::render::feedback;
use approval_gate::approval_gate;
use deadline::Deadline;
use event::{BrokenField, HookEvent};
use output::HookOutput;
use state::SessionState;

/// Tools whose `PostToolUse` concerns a written file.
const WRITE_TOOLS: [&str; 3] = ["Write", "Edit", "MultiEdit"];
/// Budget key of the STEP marker; also the rule id in decisions.
const STEP_TARGET: &str = crate::rules::gate::STEP_MARKER.id;
/// How long writing the decision log may take once the answer is ready or the
/// deadline has passed: the answer is never held back for the log.
const LOG_GRACE: Duration = Duration::from_millis(500);
/// How often the watching thread looks at the deadline again (it can move
/// when the settings are read).
const WATCH_SLICE: Duration = Duration::from_millis(100);

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

/// What the deciding thread reports: first the answer, then how logging went.
enum Report {
    Ruled {
        output: Option<HookOutput>,
        notes: Vec<String>,
    },
    Logged(Vec<String>),
}

/// Run the hook on the event on stdin. Never fails, never panics out and never
/// overruns its deadline: every failure becomes an explicit, labelled decision
/// in the answer.
pub fn run() -> Answer {
    run_registered(project::Registration::Repository)
}

/// [`run`] for a hook registered as `registration`: registered for every
/// session on the machine, it answers only in repositories that opted in.
pub fn run_registered(registration: project::Registration) -> Answer {
    // Inside a reviewer started by helix-gate the hook does nothing, so a
    // review can never trigger another review.
    if env::is_set(env::HELIX_GATE_CHILD) {
        return Answer::default();
    }
    let deadline = Arc::new(Deadline::new(Instant::now()));
    let stdin_until = deadline.started() + event::STDIN_TIMEOUT;
    let event = match event::read_stdin(stdin_until).and_then(|bytes| event::decode(&bytes)) {
        Ok(event) => Arc::new(event),
        Err(_) if silent_without_event(registration) => return Answer::default(),
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
    let mut notes: Vec<String> = event
        .broken
        .iter()
        .map(|b| format!("{b}; ignored unless a decision needs it"))
        .collect();
    // The repository around the session's project folder: a session started below
    // the root still finds it (one walk up, shared with the user-scope opt-in check).
    let project_dir = project::project_dir(Some(&event));
    let root = project::repository_root(&project_dir);
    if project::stays_silent(registration, &root, &project_dir) {
        return Answer::default();
    }
    let (tx, rx) = mpsc::channel();
    let spawned = {
        let (event, root, deadline, tx) = (
            Arc::clone(&event),
            root.clone(),
            Arc::clone(&deadline),
            tx.clone(),
        );
        std::thread::Builder::new()
            .name("helix-gate-hook".to_owned())
            .spawn(move || decide(&event, &root, &deadline, &tx))
    };
    if spawned.is_err() {
        // No thread to spare: decide on this one, without a watch.
        decide(&event, &root, &deadline, &tx);
    }
    drop(tx);
    let output = if let Watched::Ruled(output, worker_notes) = watch(&rx, &deadline) {
        notes.extend(worker_notes);
        let until = deadline.expires().max(Instant::now()) + LOG_GRACE;
        match rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            Ok(Report::Logged(log_notes)) => notes.extend(log_notes),
            Ok(Report::Ruled { .. }) | Err(mpsc::RecvTimeoutError::Disconnected) => {}
            Err(mpsc::RecvTimeoutError::Timeout) => {
                notes.push("the decision log was not written in time".to_owned());
            }
        }
        output
    } else {
        // Late, or (never seen: the panic is caught) the deciding thread ended without an answer.
        too_late(&event, &root, &deadline, &mut notes)
    };
    Answer {
        stdout: output.map(|output| output.to_json_line()),
        notes,
    }
}

/// The deadline passed without a decision: the failure policy's answer, labelled,
/// and its log line (written within [`LOG_GRACE`] or not at all).
fn too_late(
    event: &Arc<HookEvent>,
    root: &Path,
    deadline: &Deadline,
    notes: &mut Vec<String>,
) -> Option<HookOutput> {
    let what = if deadline.reviewing() {
        "at Stop with reviews: the Stop hook's installed timeout minus a reserve"
    } else {
        "hook.deadline_ms"
    };
    let err = InfraError {
        message: format!(
            "no decision within the hook's deadline of {} ms ({what}); something it waited for (a file, the session lock, the reviewer) did not answer in time",
            deadline.limit().as_millis()
        ),
        fail_closed: deadline.fail_closed(),
    };
    let ruling = infrastructure(event, &err, notes);
    let (log_tx, log_rx) = mpsc::channel();
    let (event, root, started) = (Arc::clone(event), root.to_path_buf(), deadline.started());
    let decisions = ruling.decisions;
    std::thread::spawn(move || {
        let _ = log_tx.send(log_decisions(&root, &event, decisions, started.elapsed()));
    });
    match log_rx.recv_timeout(LOG_GRACE) {
        Ok(log_notes) => notes.extend(log_notes),
        Err(_) => notes.push("the decision log was not written in time".to_owned()),
    }
    ruling.output
}

/// How waiting for the decision ended.
enum Watched {
    Ruled(Option<HookOutput>, Vec<String>),
    /// The deadline passed first, or the deciding thread ended without an answer.
    Late,
}

/// Wait for the answer until the deadline (which may move while waiting).
fn watch(rx: &mpsc::Receiver<Report>, deadline: &Deadline) -> Watched {
    loop {
        let left = deadline.expires().saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Watched::Late;
        }
        match rx.recv_timeout(left.min(WATCH_SLICE)) {
            Ok(Report::Ruled { output, notes }) => return Watched::Ruled(output, notes),
            Ok(Report::Logged(_)) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return Watched::Late,
        }
    }
}

/// Decide on the event (on the deciding thread), report the answer, then log.
fn decide(event: &HookEvent, root: &Path, deadline: &Deadline, tx: &mpsc::Sender<Report>) {
    let mut notes = Vec::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handle(event, root, deadline, &mut notes)
    }));
    let ruling = match result {
        Ok(Ok(ruling)) => ruling,
        Ok(Err(err)) => infrastructure(event, &err, &mut notes),
        Err(_) => infrastructure(
            event,
            &InfraError {
                message: "internal panic (see stderr)".to_owned(),
                fail_closed: deadline.fail_closed(),
            },
            &mut notes,
        ),
    };
    let elapsed = deadline.started().elapsed();
    // The watcher may be gone (deadline passed): nothing left to tell.
    let _ = tx.send(Report::Ruled {
        output: ruling.output,
        notes,
    });
    let _ = tx.send(Report::Logged(log_decisions(
        root,
        event,
        ruling.decisions,
        elapsed,
    )));
}

/// Append the decisions to the log; returns notes about failures.
fn log_decisions(
    root: &Path,
    event: &HookEvent,
    decisions: Vec<Decision>,
    elapsed: Duration,
) -> Vec<String> {
    let mut notes = Vec::new();
    let elapsed = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
    for mut decision in decisions {
        decision.duration_us = elapsed;
        decision.time = crate::clock::now_rfc3339();
        decision.session = event.session_id.clone().unwrap_or_default();
        decision.event.clone_from(&event.hook_event_name);
        if let Err(e) = decision_log::append(root, &decision) {
            notes.push(format!("cannot write the decision log: {e}"));
        }
    }
    notes
}

/// Whether a hook whose event could not be read has nothing to do here at all (see
/// [`project::stays_silent`]): no answer, no note, no state and no log.
fn silent_without_event(registration: project::Registration) -> bool {
    if registration == project::Registration::Repository {
        return false;
    }
    let dir = project::project_dir(None);
    project::stays_silent(registration, &project::repository_root(&dir), &dir)
}

/// Apply the failure policy to an internal error.
fn infrastructure(event: &HookEvent, err: &InfraError, notes: &mut Vec<String>) -> Ruling {
    notes.push(format!("infrastructure error: {}", err.message));
    let closed = |message: &str| {
        format!(
            "helix-gate infrastructure error (not a problem in your files): {message}. fail_closed is set, so this blocks until the tool works again."
        )
    };
    let output =
        if err.fail_closed && matches!(event.hook_event_name.as_str(), "PostToolUse" | "Stop") {
            HookOutput::block(closed(&err.message))
        } else if err.fail_closed && event.hook_event_name == "PreToolUse" {
            HookOutput::deny(closed(&err.message))
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

fn handle(
    event: &HookEvent,
    root: &Path,
    deadline: &Deadline,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    match event.hook_event_name.as_str() {
        name @ ("PreToolUse" | "PostToolUse") => {
            if let Some(broken) = event.broken("tool_name") {
                return Err(needed(root, deadline, broken));
            }
            if !event
                .tool_name
                .as_deref()
                .is_some_and(|t| WRITE_TOOLS.contains(&t))
            {
                return Ok(Ruling::default());
            }
            if name == "PreToolUse" {
                pre_tool_use(event, root, deadline)
            } else {
                post_tool_use(event, root, deadline, notes)
            }
        }
        "Stop" => stop(event, root, deadline, notes),
        "SessionStart" => session_context(event, root, deadline, |s| s.hook.session_start_context),
        "UserPromptSubmit" => session_context(event, root, deadline, |s| s.hook.prompt_context),
        // SubagentStop (agent_type "" is /compact) is never blocked; the main Stop gate
        // checks the session's ADRs. Every other event concerns nothing here.
        _ => Ok(Ruling::default()),
    }
}

/// The settings; they also set the deadline and the failure policy it applies.
fn load_settings(root: &Path, deadline: &Deadline) -> Result<Settings, InfraError> {
    let settings = Settings::load(root).map_err(|e| InfraError::new(e.to_string(), None))?;
    deadline.apply(&settings);
    Ok(settings)
}

/// A field the decision needs is broken or missing: an infrastructure error
/// under the repository's failure policy (read for it, when it can be), never a
/// silent pass. A future payload change must not switch the gate off unseen.
fn needed(root: &Path, deadline: &Deadline, problem: impl std::fmt::Display) -> InfraError {
    let settings = load_settings(root, deadline).ok();
    InfraError::new(
        format!("{problem}; helix-gate needs it to decide"),
        settings.as_ref(),
    )
}

/// The session id, which the budget counts by; a broken one is an error.
fn need_session(event: &HookEvent, settings: &Settings) -> Result<(), InfraError> {
    match event.broken("session_id") {
        Some(broken) => Err(InfraError::new(
            format!("{broken}; helix-gate needs it to count attempts per session"),
            Some(settings),
        )),
        None => Ok(()),
    }
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

// ------------------------------------------------------------------ the written file

/// The file a Write/Edit names, absolute. Claude Code always sends one for these
/// tools, so a missing or broken path means the payload changed and the gate
/// would not see the write: an infrastructure error, not a pass.
fn named_file(event: &HookEvent, root: &Path, deadline: &Deadline) -> Result<PathBuf, InfraError> {
    if let Some(broken) = event
        .broken("tool_input")
        .or_else(|| event.broken("tool_input.file_path"))
    {
        return Err(needed(root, deadline, broken));
    }
    let Some(path) = event.file_path() else {
        return Err(needed(
            root,
            deadline,
            format!(
                "the {} event of {} has no tool_input.file_path",
                event.hook_event_name,
                event.tool_name.as_deref().unwrap_or("a write tool")
            ),
        ));
    };
    let path = Path::new(path);
    if path.is_absolute() {
        return Ok(path.to_path_buf());
    }
    if let Some(broken) = event.broken("cwd") {
        return Err(needed(root, deadline, broken));
    }
    Ok(Path::new(event.cwd.as_deref().unwrap_or(".")).join(path))
}

/// Whether `path` lies in a `.helix-gate/` folder, as written or at its real
/// location (a symlink into the folder, or out of it, counts where it leads).
fn in_data_dir(path: &Path) -> bool {
    let named = |p: &Path| p.components().any(|c| c.as_os_str() == data_dir::DIR);
    named(&paths::absolute(path))
        || crate::fs::confine::real_location(path).is_some_and(|real| named(&real))
}

/// `path` as the model and the log see it: inside the project relative to it.
fn shown(root: &Path, path: &Path) -> String {
    paths::relative_to_real(root, path).unwrap_or_else(|| path.display().to_string())
}

/// What `.helix-gate/` holds, for the answers that refuse writes into it.
const DATA_DIR_WHY: &str = "helix-gate's own records (session state, decision log, approval history and cache). The session may not change them: the gate's records come from helix-gate alone";

/// `PreToolUse` on Write/Edit/MultiEdit: deny a write into `.helix-gate/`;
/// anything else proceeds without a word (and without a log line).
fn pre_tool_use(event: &HookEvent, root: &Path, deadline: &Deadline) -> Result<Ruling, InfraError> {
    let path = named_file(event, root, deadline)?;
    if !in_data_dir(&path) {
        return Ok(Ruling::default());
    }
    let target = shown(root, &path);
    Ok(Ruling {
        output: Some(HookOutput::deny(format!(
            "helix-gate: {target} is inside {}/, {DATA_DIR_WHY}. The write was refused; leave the folder alone and ask the user if something there must change.",
            data_dir::DIR
        ))),
        decisions: vec![Decision {
            target,
            verdict: Verdict::Block,
            note: Some(format!("write into {}/ refused", data_dir::DIR)),
            ..Decision::default()
        }],
    })
}

// ------------------------------------------------------------------ PostToolUse

/// `PostToolUse` on Write/Edit/MultiEdit: validate the written ADR, count the
/// attempt under the session lock (one acquisition), answer.
fn post_tool_use(
    event: &HookEvent,
    root: &Path,
    deadline: &Deadline,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    let path = named_file(event, root, deadline)?;
    if in_data_dir(&path) {
        // PreToolUse would have denied it; without it registered, the least is to say so.
        let target = shown(root, &path);
        return Ok(Ruling {
            output: Some(HookOutput::block(format!(
                "helix-gate: you wrote {target}, inside {}/, {DATA_DIR_WHY}. Do not write there again, and tell the user which file you changed so they can restore it.",
                data_dir::DIR
            ))),
            decisions: vec![Decision {
                target,
                verdict: Verdict::Block,
                note: Some(format!("write into {}/ reported", data_dir::DIR)),
                ..Decision::default()
            }],
        });
    }
    // Outside the project: not ours, and never read.
    let Some(rel) = paths::relative_to_real(root, &path) else {
        return Ok(Ruling::default());
    };
    if phases::is_plan(&rel) {
        return phases::post_tool_use(event, root, &path, rel, deadline, notes);
    }
    // The no-op path: with the default settings every ADR glob ends in `.md`, so any
    // other file is dismissed before a configuration file is even opened.
    let own_settings = root.join(crate::config::settings::SETTINGS_PATH).exists();
    if !own_settings && !rel.to_ascii_lowercase().ends_with(".md") {
        return Ok(Ruling::default());
    }
    let settings = load_settings(root, deadline)?;
    let matcher = settings
        .adr_matcher()
        .map_err(|e| InfraError::new(e, Some(&settings)))?;
    if !matcher.is_adr(&rel) {
        return Ok(Ruling::default());
    }
    need_session(event, &settings)?;
    // A symlink that leads out of the project is not followed.
    if !crate::fs::confine::inside(root, &path) {
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
    let (charge, note) = count_write(root, session_id(event), &rel, errors, budget)
        .map_err(|e| InfraError::new(e.to_string(), Some(&engine.settings)))?;
    notes.extend(note.clone());
    Ok(charged_answer(&rel, &report, charge.as_ref(), note, budget))
}

/// The decision record and answer of a checked save: the charge (if it failed) and
/// the state note go into the log, the answer follows the budget.
fn charged_answer(
    rel: &str,
    report: &FileReport,
    charge: Option<&state::Charge>,
    note: Option<String>,
    budget: u32,
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
    post_tool_use_answer(rel, report, decision, budget, charge)
}

/// The one lock of a `PostToolUse`: the ADR joins the session's touched ADRs; a
/// clean one starts its budget over (no charge), a failing one is charged.
fn count_write(
    root: &Path,
    session: &str,
    rel: &str,
    errors: usize,
    budget: u32,
) -> Result<(Option<state::Charge>, Option<String>), state::StateError> {
    state::update(root, session, |s| {
        s.touch(rel);
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
fn post_tool_use_answer(
    rel: &str,
    report: &FileReport,
    mut decision: Decision,
    budget: u32,
    charge: Option<&state::Charge>,
) -> Ruling {
    let errors = count(report, Severity::Error);
    let warnings = count(report, Severity::Warning);
    let output = if let Some(charge) = charge.filter(|c| c.escalation.is_none()) {
        decision.verdict = Verdict::Block;
        Some(HookOutput::block(format!(
            "{}{}",
            feedback::adr_block(report, charge.attempt, budget),
            budget::explain(charge, budget)
        )))
    } else if let Some(charge) = charge {
        decision.verdict = Verdict::Escalate;
        let why = budget::escalation(charge, budget);
        let context = format!(
            "helix-gate: the retry budget for {rel} is spent ({why}); helix-gate no longer blocks, and a person will review it. It still fails:\n{}",
            feedback::describe(report)
        );
        let out = HookOutput::context("PostToolUse", &context);
        Some(if charge.first_escalation {
            out.with_message(format!(
                "helix-gate: {rel} still fails {errors} check(s); escalated to you ({why}; run `helix-gate validate {rel}`)."
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
    /// How many checks fail (1 for the STEP marker); a Stop with fewer than the
    /// target's last failure does not use up an attempt.
    failures: u32,
    /// Filled in by [`charge`]: the attempt number (`budget + 1` once spent),
    /// why it counted or not, and whether this Stop spent the budget.
    charge: Option<state::Charge>,
}

impl Failing {
    fn new(target: String, text: String, rules: Vec<String>) -> Self {
        Failing {
            target,
            text,
            rules,
            failures: 1,
            charge: None,
        }
    }

    fn with_failures(mut self, failures: usize) -> Self {
        self.failures = u32::try_from(failures).unwrap_or(u32::MAX);
        self
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
    /// Touched ADRs whose review was escalated earlier in this session: the
    /// Stop gate starts no further review of them.
    escalated_reviews: Vec<String>,
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
fn stop(
    event: &HookEvent,
    root: &Path,
    deadline: &Deadline,
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
    let mut settings = load_settings(root, deadline)?;
    let session = project::session_folders(event);
    // From here on `enabled` means: required of this session (step_marker.paths).
    settings.step_marker.enabled = step_marker::required_in(&settings.step_marker, root, &session);
    need_session(event, &settings)?;
    let broken_last = event
        .broken("last_assistant_message")
        .filter(|_| settings.step_marker.enabled);
    let last = event.last_assistant_message.as_deref().unwrap_or("");
    let checks = deterministic_gate(event, root, &settings, last, broken_last, notes)?;
    let mut decisions = Vec::new();
    if let Some(output) = budget_decision(
        root,
        &session,
        &settings,
        &checks.failing,
        last,
        &mut decisions,
    ) {
        return Ok(Ruling {
            output: Some(output),
            decisions,
        });
    }
    if let Some(broken) = broken_last {
        return Err(InfraError::new(
            format!("{broken}; the STEP marker check needs it"),
            Some(&settings),
        ));
    }
    // Deterministic checks all pass: the independent reviewer, last and only now.
    // Only ADRs that pass every deterministic check now (an escalated, still failing
    // ADR is a person's business, never the reviewer's).
    let reviewable: Vec<String> = checks
        .touched
        .iter()
        .filter(|rel| checks.passing.contains(rel) && root.join(rel.as_str()).is_file())
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
        .collect();
    if !reviewable.is_empty()
        && let Some(outcome) = approval_gate(
            event,
            root,
            deadline,
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
    broken_last: Option<&BrokenField>,
    notes: &mut Vec<String>,
) -> Result<StopChecks, InfraError> {
    let state_error = |e: state::StateError| InfraError::new(e.to_string(), Some(settings));
    let mut session = state::lock(root, session_id(event)).map_err(state_error)?;
    notes.extend(session.note.take());
    // A draft finalized during the session is checked where finalize put it.
    let adrs = settings
        .adr_matcher()
        .map_err(|e| InfraError::new(e, Some(settings)))?;
    notes.extend(finalized::follow(root, &adrs, &mut session.state.touched));
    let touched = session.state.touched.clone();
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
    let (mut failing, mut passing) = check_touched(root, settings, &touched, notes)?;
    let marker = &settings.step_marker;
    // Without a readable last answer the marker is neither passed nor charged.
    if marker.enabled && broken_last.is_none() {
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
        escalated_reviews,
    })
}

/// The deterministic checks of the touched ADRs as they are on disk now: the
/// failing ones with their feedback, and the passing ones (a deleted ADR passes).
/// A touched ADR that now leads out of the project (replaced by a symlink after
/// `PostToolUse` checked it) is not read: it fails with a label, and nothing of
/// what it points to is quoted.
fn check_touched(
    root: &Path,
    settings: &Settings,
    touched: &[String],
    notes: &mut Vec<String>,
) -> Result<(Vec<Failing>, Vec<String>), InfraError> {
    let mut failing = Vec::new();
    let mut passing = Vec::new();
    if touched.is_empty() {
        return Ok((failing, passing));
    }
    let engine = load_engine(root, settings.clone())?;
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
            Ok(checked) if checked.report.has_errors() => failing.push(
                Failing::new(
                    rel.clone(),
                    format!("{}:\n{}", rel, feedback::describe(&checked.report)),
                    rule_ids(&checked.report),
                )
                .with_failures(count(&checked.report, Severity::Error)),
            ),
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
        f.charge = Some(state.target(&f.target).charge(budget, f.failures));
    }
}

/// The budget decision over the failing targets: block while any target has
/// attempts left, else tell the user about targets that just spent their budget
/// (the STEP marker falls back to the seed's heuristic). `None` lets the Stop go
/// on to the reviewer; `decisions` gets one record per target either way.
fn budget_decision(
    root: &Path,
    session_folders: &[PathBuf],
    settings: &Settings,
    failing: &[Failing],
    last: &str,
    decisions: &mut Vec<Decision>,
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
                budget::explain(&charge, budget)
            ));
            Verdict::Block
        } else {
            if charge.first_escalation {
                escalated_text.push(format!(
                    "{} ({})",
                    f.target,
                    budget::escalation(&charge, budget)
                ));
                if f.target == STEP_TARGET {
                    let applied = step_marker::fallback(
                        root,
                        session_folders,
                        &settings.step_marker.fallback_file,
                        last,
                    );
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
            note: Some(budget::log_note(&charge, budget)),
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

/// `SessionStart` / `UserPromptSubmit`: a short summary of the rules, so fewer mistakes happen.
fn session_context(
    event: &HookEvent,
    root: &Path,
    deadline: &Deadline,
    enabled: impl Fn(&Settings) -> bool,
) -> Result<Ruling, InfraError> {
    let mut settings = load_settings(root, deadline)?;
    settings.step_marker.enabled = step_marker::required_in(
        &settings.step_marker,
        root,
        &project::session_folders(event),
    );
    if event.hook_event_name == "SessionStart" {
        state::prune(root, settings.hook.state_retention_days);
    }
    if !enabled(&settings) {
        return Ok(Ruling::default());
    }
    let rules = crate::config::load_rules(root, None)
        .map_err(|e| InfraError::new(format!("{e:#}"), Some(&settings)))?;
    // The preset's rules file decides what the summary names (rules::document::brief).
    // madr and nygard set no minimum length; "at least 0 characters" would be noise.
    let length = match rules.base.min_section_length {
        0 => String::new(),
        n => format!(" (at least {n} characters each)"),
    };
    let mut text = format!(
        "helix-gate checks every ADR you write ({}) when you save it and before you finish:\n\
{}- ## sections: {}{length}\n{}\
- no template placeholder left: replace every <...> gap of the template, brackets included (template-placeholder)\n\
- `helix-gate new \"<title>\"` writes a new ADR from the {} template that passes once its gaps are filled\n",
        settings.adr.globs.join(", "),
        crate::rules::document::brief(&rules),
        rules.base.required_sections.join(", "),
        crate::rules::document::criteria_brief(&rules),
        settings.new.template_name(settings.preset),
    );
    for rule in rules
        .contextual
        .iter()
        .filter(|r| r.severity == Severity::Error)
    {
        match &rule.hint {
            Some(hint) => {
                let _ = writeln!(text, "- {} ({}): {hint}", rule.message, rule.id);
            }
            None => {
                let _ = writeln!(text, "- {} ({})", rule.message, rule.id);
            }
        }
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
