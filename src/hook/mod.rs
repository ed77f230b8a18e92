//! The agent hook (`helix-gate hook [--agent claude|codex|gemini|copilot]`): decode one event
//! from stdin, decide, and return the [`Answer`]: at most one JSON object for
//! stdout and notes for stderr. Nothing here prints; `cli::hook` writes the answer.
//!
//! This file keeps only what every event shares: reading stdin, the deadline,
//! dispatch by [`EventKind`] and the decision log. Every handler gets the one
//! value built per event, [`ctx::Context`] (agent, registration, event, root,
//! deadline; the session's configuration and the settings on first use): the
//! hook keeps no process globals. The agent's wire format is
//! [`crate::agent`]'s business: its decoder makes the one [`HookEvent`], its encoder
//! writes the one [`HookOutput`]. Each event's decision is
//! in its own file: the tool-use checks ([`tool_use`], and [`apply_patch`] for
//! Codex's patches), the Stop gate
//! ([`stop`], with the reviewers in [`approval_gate`]), the session context
//! ([`context`]); the failure policy is [`policy`], the retry budget
//! [`budget`], the session file [`state`].
//!
//! The hook never reads through a symlink that leads out of the project, and
//! refuses the session's writes into helix-gate's own files.

mod answer;
mod apply_patch;
mod approval_gate;
pub mod baseline;
mod bash;
pub mod budget;
mod changes;
mod code_review;
mod context;
mod ctx;
pub mod deadline;
mod finalized;
mod governed;
mod guarded;
mod policy;
pub mod project;
mod retry;
pub mod reviews;
mod ruling;
mod shell;
pub mod state;
mod stdin;
pub mod step_marker;
mod stop;
mod store;
mod tool;
mod tool_use;

use std::path::Path;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

pub use crate::agent::Agent;
use crate::agent::{event, output};
use crate::decision_log::{self, Decision};
use crate::env;
use ctx::Context;
use deadline::Deadline;
use event::{EventKind, HookEvent};
use output::HookOutput;
use policy::{InfraError, infrastructure};
use ruling::Ruling;
use tool::Tool;

/// Budget key of the STEP marker; also the rule id in decisions.
const STEP_TARGET: &str = crate::rules::gate::STEP_MARKER.id;
/// How long writing the decision log may take once the answer is ready or the
/// deadline has passed: the answer is never held back for the log.
const LOG_GRACE: Duration = Duration::from_millis(500);
/// How often the watchdog looks at the deadline again (it can move when the
/// settings are read).
const WATCH_SLICE: Duration = Duration::from_millis(100);

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

/// Prints an answer the watchdog gives in place of the deciding thread, and
/// ends the process (the caller's printer: only `cli` prints).
pub type Late = fn(&Answer) -> !;

/// Run the Claude Code hook on the event on stdin. Never fails, never panics
/// out and never overruns its deadline: every failure becomes an explicit,
/// labelled decision in the answer.
pub fn run(late: Late) -> Answer {
    run_registered(project::Registration::Repository, Agent::Claude, late)
}

/// [`run`] for `agent`'s hook registered as `registration`: registered for
/// every session on the machine, it answers only in repositories that opted in.
/// The decision is made on this thread; when the deadline passes first, a
/// watchdog thread answers in its place through `late`.
pub fn run_registered(registration: project::Registration, agent: Agent, late: Late) -> Answer {
    // Inside a reviewer started by helix-gate the hook does nothing, so a
    // review can never trigger another review.
    if env::is_set(env::HELIX_GATE_CHILD) {
        return Answer::default();
    }
    let deadline = Deadline::new(Instant::now());
    let stdin_until = deadline.started() + event::STDIN_TIMEOUT;
    let event = match stdin::read_stdin(stdin_until).and_then(|bytes| agent.decode(&bytes)) {
        Ok(event) => event,
        Err(_) if silent_without_event(registration, agent) => return Answer::default(),
        Err(err) => {
            // Without an event we cannot tell which decision would apply: fail open, loudly.
            return Answer {
                stdout: Some(agent.encode(
                    &HookOutput::message(output::escalation_line(
                        output::EscalationKind::Infrastructure,
                        "-",
                        &[],
                        "1 failure",
                        &format!(
                            "infrastructure error (not a problem in your files), hook skipped (fail-open): {err}"
                        ),
                    )),
                    None,
                )),
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
    let project_dir = project::project_dir(agent, Some(&event));
    let root = project::repository_root(&project_dir);
    if project::stays_silent(registration, agent, &root, &project_dir) {
        return Answer::default();
    }
    // The common no-op, settled from the paths alone: no watchdog thread, no
    // configuration (a thread costs a no-op ~15 %).
    // The event's context: only what is known already; the rest on first use.
    let ctx = Arc::new(Context::new(agent, registration, event, root, deadline));
    let early = route(&ctx);
    if matches!(early, Early::Quiet) {
        return Answer {
            stdout: None,
            notes,
        };
    }
    // Decided here, watched from a thread that sleeps until the deadline: the
    // decision waits for no other thread to be scheduled, nor the answer for
    // this one to wake (a deciding thread watched from here cost a governed
    // write 0.3 ms more on a VM). No thread to spare: decided without a watch.
    let watch = Watch::start(&ctx, agent, notes.clone(), late);
    let (output, decided_notes, decisions, elapsed) = decide(&ctx, early);
    notes.extend(decided_notes);
    let stdout = output.map(|output| agent.encode(&output, Some(ctx.event.kind)));
    if let Some(watch) = &watch {
        watch.ruled(Answer {
            stdout: stdout.clone(),
            notes: notes.clone(),
        });
    }
    notes.extend(log_decisions(&ctx.root, &ctx.event, decisions, elapsed));
    if let Some(watch) = watch {
        watch.done();
    }
    Answer { stdout, notes }
}

/// Where the decision stands, as the watchdog sees it.
enum Turn {
    Deciding,
    /// The answer is ready; the decision log is being written, until the instant given.
    Ruled(Answer, Instant),
    /// The deciding thread answered and logged.
    Done,
    /// The watchdog answered in its place.
    Late,
}

/// The deciding thread's side of the watchdog ([`watchdog`]).
struct Watch {
    ctx: Arc<Context>,
    turn: Arc<Mutex<Turn>>,
    /// Wakes the watchdog when the turn changes; dropped when done.
    tx: mpsc::Sender<()>,
}

impl Watch {
    fn start(ctx: &Arc<Context>, agent: Agent, notes: Vec<String>, late: Late) -> Option<Watch> {
        let turn = Arc::new(Mutex::new(Turn::Deciding));
        let (tx, rx) = mpsc::channel();
        let (watched_ctx, watched) = (Arc::clone(ctx), Arc::clone(&turn));
        std::thread::Builder::new()
            .name("helix-gate-watch".to_owned())
            .spawn(move || watchdog(&watched_ctx, agent, &watched, &rx, notes, late))
            .ok()?;
        Some(Watch {
            ctx: Arc::clone(ctx),
            turn,
            tx,
        })
    }

    /// The answer is ready: the watchdog now waits for the log, at most
    /// [`LOG_GRACE`] past the deadline (or past now, if later). Never returns
    /// when the watchdog answered already.
    fn ruled(&self, answer: Answer) {
        let mut turn = lock(&self.turn);
        if !matches!(*turn, Turn::Deciding) {
            drop(turn);
            wait_for_the_end();
        }
        let until = self.ctx.deadline.expires().max(Instant::now()) + LOG_GRACE;
        *turn = Turn::Ruled(answer, until);
        drop(turn);
        let _ = self.tx.send(());
    }

    /// Answered and logged: the watchdog ends. Never returns when it answered
    /// already (the log took longer than its grace).
    fn done(self) {
        let mut turn = lock(&self.turn);
        if !matches!(*turn, Turn::Ruled(..)) {
            drop(turn);
            wait_for_the_end();
        }
        *turn = Turn::Done;
    }
}

fn lock(turn: &Mutex<Turn>) -> std::sync::MutexGuard<'_, Turn> {
    turn.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The watchdog answered, and its printer ends the process: nothing left to do here.
fn wait_for_the_end() -> ! {
    loop {
        std::thread::park();
    }
}

/// Sleep until the deadline (which may move while waiting: the settings set it)
/// and, when the deciding thread has not ruled by then, give the failure
/// policy's answer in its place; once it has ruled, wait for its log until the
/// grace ends, then give its answer without the log.
fn watchdog(
    ctx: &Arc<Context>,
    agent: Agent,
    turn: &Mutex<Turn>,
    rx: &mpsc::Receiver<()>,
    mut notes: Vec<String>,
    late: Late,
) {
    loop {
        let until = match &*lock(turn) {
            Turn::Deciding => ctx.deadline.expires(),
            Turn::Ruled(_, until) => *until,
            Turn::Done | Turn::Late => return,
        };
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            let mut current = lock(turn);
            match std::mem::replace(&mut *current, Turn::Late) {
                Turn::Deciding => {
                    drop(current);
                    let output = too_late(ctx, &mut notes);
                    late(&Answer {
                        stdout: output.map(|output| agent.encode(&output, Some(ctx.event.kind))),
                        notes,
                    });
                }
                Turn::Ruled(mut answer, until) if Instant::now() >= until => {
                    drop(current);
                    answer
                        .notes
                        .push("the decision log was not written in time".to_owned());
                    late(&answer);
                }
                // Ruled meanwhile, or done: look again.
                other => *current = other,
            }
            continue;
        }
        match rx.recv_timeout(left.min(WATCH_SLICE)) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Timeout) => {}
            Err(mpsc::RecvTimeoutError::Disconnected) => return,
        }
    }
}

/// The deadline passed without a decision: the failure policy's answer, labelled,
/// and its log line (written within [`LOG_GRACE`] or not at all).
fn too_late(ctx: &Arc<Context>, notes: &mut Vec<String>) -> Option<HookOutput> {
    let deadline = &ctx.deadline;
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
    let ruling = infrastructure(&ctx.event, &err, notes);
    let (log_tx, log_rx) = mpsc::channel();
    let (ctx, started) = (Arc::clone(ctx), deadline.started());
    let decisions = ruling.decisions;
    std::thread::spawn(move || {
        let _ = log_tx.send(log_decisions(
            &ctx.root,
            &ctx.event,
            decisions,
            started.elapsed(),
        ));
    });
    match log_rx.recv_timeout(LOG_GRACE) {
        Ok(log_notes) => notes.extend(log_notes),
        Err(_) => notes.push("the decision log was not written in time".to_owned()),
    }
    ruling.output
}

/// Decide on the event: the answer, notes, the decisions to log and how long it took.
fn decide(
    ctx: &Context,
    early: Early,
) -> (Option<HookOutput>, Vec<String>, Vec<Decision>, Duration) {
    let (event, root, deadline) = (&ctx.event, ctx.root.as_path(), &ctx.deadline);
    let mut notes = Vec::new();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handle(ctx, early, &mut notes)
    }));
    let ruling = match result {
        Ok(Ok(mut ruling)) => {
            retry::add_lines(event, root, ctx, &mut ruling);
            ruling
        }
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
    let mut ruling = ruling;
    if let Some(config) = ctx.config_if_opened() {
        notes.extend(config.note.clone());
    }
    if let Some(message) = ctx.take_message() {
        ruling.output = Some(match ruling.output.take() {
            Some(output) => output.add_message(message),
            None => HookOutput::message(message),
        });
    }
    (
        ruling.output,
        notes,
        ruling.decisions,
        deadline.started().elapsed(),
    )
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
fn silent_without_event(registration: project::Registration, agent: Agent) -> bool {
    if registration == project::Registration::Repository {
        return false;
    }
    let dir = project::project_dir(agent, None);
    project::stays_silent(registration, agent, &project::repository_root(&dir), &dir)
}

/// What an event's kind and its tool settle before the watchdog starts (never
/// opening a file: only a handful of `lstat`s on the written path, which the
/// tool has just written), and what is left to decide under its watch. A write
/// is screened once.
enum Early {
    /// Nothing to answer and nothing to log: a tool the hook does not check, or
    /// a write of a file that cannot be an ADR.
    Quiet,
    /// The answer already known: a `PreToolUse` refusal or question, a write into
    /// `.helix-gate/`.
    Ruled(Ruling),
    /// Decided under the watchdog: everything else, a broken field included.
    Later(Handler),
}

/// A decision made under the watchdog.
type Handler = Box<dyn FnOnce(&Context, &mut Vec<String>) -> Result<Ruling, InfraError> + Send>;

fn later(
    handler: impl FnOnce(&Context, &mut Vec<String>) -> Result<Ruling, InfraError> + Send + 'static,
) -> Early {
    Early::Later(Box::new(handler))
}

/// The one dispatch: the event's kind and its typed tool decide which handler
/// answers, and whether this thread can settle it at once.
fn route(ctx: &Context) -> Early {
    use EventKind::{
        Other, PostToolUse, PostToolUseFailure, PreToolUse, SessionStart, Stop, SubagentStop,
        UserPromptSubmit,
    };
    let (event, root) = (&ctx.event, ctx.root.as_path());
    // A field of the tool's input that cannot be read: the deciding thread
    // decides (it applies the failure policy where the field is needed).
    let broken = ["tool_input", "tool_input.file_path", "cwd"]
        .iter()
        .any(|field| event.broken(field).is_some());
    let ruled = |ruling: Ruling| {
        if ruling.is_quiet() {
            Early::Quiet
        } else {
            Early::Ruled(ruling)
        }
    };
    match (event.kind, &ctx.tool) {
        (Stop, _) => later(|ctx, notes| stop::stop(&ctx.event, &ctx.root, ctx, notes)),
        (SessionStart, _) => later(|ctx, _| {
            context::session_context(&ctx.event, &ctx.root, ctx, |s| s.hook.session_start_context)
        }),
        (UserPromptSubmit, _) => later(|ctx, _| {
            context::session_context(&ctx.event, &ctx.root, ctx, |s| s.hook.prompt_context)
        }),
        // SubagentStop (agent_type "" is /compact) is never blocked; the main Stop gate
        // checks the session's ADRs. Every other event concerns nothing here.
        (SubagentStop | Other, _) | (PreToolUse | PostToolUse | PostToolUseFailure, Tool::None) => {
            Early::Quiet
        }
        (_, Tool::Unreadable(problem)) => {
            let problem = problem.clone();
            later(move |ctx, _| Err(ctx.needed(problem)))
        }
        // A Codex patch names its files in its text: the deciding thread reads them.
        (PreToolUse, Tool::Patch) => later(|ctx, _| match &ctx.event.patch {
            Some(patch) => apply_patch::pre_tool_use(&ctx.event, patch, ctx),
            None => Ok(Ruling::default()),
        }),
        (_, Tool::Patch) => later(|ctx, notes| match &ctx.event.patch {
            Some(patch) => apply_patch::post_tool_use(&ctx.event, patch, &ctx.root, ctx, notes),
            None => Ok(Ruling::default()),
        }),
        (PreToolUse, Tool::Shell) => later(|ctx, _| Ok(bash::pre_tool_use(ctx))),
        (_, Tool::Shell) => {
            later(|ctx, notes| bash::post_tool_use(&ctx.event, &ctx.root, ctx, notes))
        }
        (_, Tool::Other) if broken => later(|_, _| Ok(Ruling::default())),
        (_, Tool::Other) => Early::Quiet,
        (_, Tool::Write(Err(problem))) => {
            let problem = problem.clone();
            later(move |ctx, _| Err(ctx.needed(problem)))
        }
        (PreToolUse, Tool::Write(Ok(path))) if broken => {
            let path = path.clone();
            later(move |ctx, _| Ok(tool_use::pre_write(ctx, &path)))
        }
        (PreToolUse, Tool::Write(Ok(path))) => {
            let ruling = tool_use::pre_write(ctx, path);
            if ruling.is_quiet() && tool_use::may_accept(event, path) {
                // A write that may make an ADR Accepted: refused, else as below.
                let path = path.clone();
                return later(move |ctx, _| {
                    let refused = tool_use::pre_accept(ctx, &path)?;
                    if refused.is_quiet() && governed::may_govern(&ctx.root) {
                        Ok(governed::pre_context(ctx, &path))
                    } else {
                        Ok(refused)
                    }
                });
            }
            // The decisions that govern the file, for the model (one `stat` when none can).
            if ruling.is_quiet() && governed::may_govern(root) {
                let path = path.clone();
                later(move |ctx, _| Ok(governed::pre_context(ctx, &path)))
            } else {
                ruled(ruling)
            }
        }
        (_, Tool::Write(Ok(path))) if broken => {
            let path = path.clone();
            later(move |ctx, notes| tool_use::post_write(&ctx.event, &ctx.root, &path, ctx, notes))
        }
        (_, Tool::Write(Ok(path))) => match tool_use::screen(root, path.clone()) {
            tool_use::Screened::Settled(ruling) => ruled(ruling),
            tool_use::Screened::Check { written, rel } => later(move |ctx, notes| {
                tool_use::post_check(&ctx.event, &ctx.root, &written, rel, ctx, notes)
            }),
        },
    }
}

fn handle(ctx: &Context, early: Early, notes: &mut Vec<String>) -> Result<Ruling, InfraError> {
    match early {
        Early::Quiet => Ok(Ruling::default()),
        Early::Ruled(ruling) => Ok(ruling),
        Early::Later(handler) => handler(ctx, notes),
    }
}
