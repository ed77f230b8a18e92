//! `doctor --probe`: prove that each registration of the hook really blocks.
//!
//! `doctor` reads the registrations; this runs them. For every helix-gate
//! entry it finds (Claude Code's project, local and user settings, Codex's,
//! Gemini's and Copilot's project and user hooks files) it takes the exact
//! command of the entry for the agent's "after a tool" event and runs it the
//! way that agent does on this platform: through the agent's shell (Claude
//! Code: `/bin/sh -c`; Codex, Gemini and Copilot: `bash -c`), in the
//! session's folder, with the variables the agent sets (`CLAUDE_PROJECT_DIR`,
//! `GEMINI_PROJECT_DIR`, ...; Gemini's textual expansion of `$GEMINI_PROJECT_DIR`
//! in the command too), the event on stdin. The event is a synthetic write of
//! a broken ADR in a scratch folder: a temporary git repository with a copy of
//! the project's `config/`, so the hook judges it by the project's rules and
//! nothing outside the scratch folder is written (helix-gate's per-user state
//! goes there too, through `HELIX_GATE_STATE_DIR`). The git pre-commit shim is
//! run by `git commit` in the same scratch repository, with the broken ADR
//! staged.
//!
//! Each run is bounded ([`crate::process::run`]: the entry's timeout, at most
//! [`MAX_PROBE`]; the tree is killed at the deadline). What the agent makes of
//! the answer decides the outcome: helix-gate's hook always exits 0 with one
//! JSON object on stdout, so a block is exactly that object with the agent's
//! block decision. Anything else is named: the program was not found (wrong
//! path, not on PATH, an unquoted path with spaces), the shell could not parse
//! the command, a non-zero exit (which every agent takes as "go on"), an exit
//! 0 without output (fails open), stdout that is not one JSON object, a
//! timeout.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use anyhow::Context as _;
use serde::Serialize;
use serde_json::{Value, json};

use crate::agent::Agent;
use crate::agent::event::EventKind;
use crate::agent::hooks_file::{self, STATUS_MARKER};

/// The longest one probe may run, whatever the entry's timeout says.
pub const MAX_PROBE: Duration = Duration::from_secs(30);
/// The name of the broken ADR in the scratch folder (after its number).
const PROBE_SLUG: &str = "helix-gate-probe.md";

/// What one probe found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The agent would block the write with helix-gate's reason.
    Blocks,
    /// It should have blocked and did not: `why` says why.
    DoesNotBlock,
    /// It did not block, as intended (a user-scope hook in a repository that
    /// did not opt in).
    SilentAsIntended,
    /// It cannot be run here (another platform's shell, no such shell).
    CannotProbe,
}

/// One registration and what its run gave.
#[derive(Debug, Clone, Serialize)]
pub struct Probe {
    /// `Claude Code`, `Codex CLI`, ..., or `git`.
    pub target: String,
    /// `project`, `local`, `user`, or `pre-commit`.
    pub scope: String,
    /// The file the registration is in, as shown to people.
    pub file: String,
    /// The exact command of the entry (the hook file for git).
    pub command: String,
    /// How it was run: `/bin/sh -c`, `bash -c`, `git commit`.
    pub runner: String,
    pub outcome: Outcome,
    /// Why it does not block, or cannot be probed; `None` when it blocks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
    /// How long the run took.
    pub duration_ms: u64,
}

/// All probes of a repository.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// The broken ADR's path in the scratch folder (relative).
    pub adr: String,
    pub probes: Vec<Probe>,
}

impl Report {
    /// Whether a registration that should block does not.
    pub fn fails(&self) -> bool {
        self.probes
            .iter()
            .any(|p| p.outcome == Outcome::DoesNotBlock)
    }
}

/// One entry to run: the agent's file and the command in it.
struct Registration {
    agent: Agent,
    scope: &'static str,
    shown: String,
    /// `--scope user` in the command.
    user_scope: bool,
    entry: Result<Entry, String>,
}

/// The entry for the "after a tool" event.
struct Entry {
    command: String,
    timeout: Duration,
}

/// The scratch folder: a git repository with the project's configuration and
/// the broken ADR.
struct Scratch {
    _dir: tempfile::TempDir,
    repo: PathBuf,
    state: PathBuf,
    adr_rel: String,
}

/// Run every probe for the repository at `root`.
///
/// # Errors
/// The scratch folder cannot be made, or no broken ADR the configuration
/// takes for an ADR can be written.
pub fn run(root: &Path) -> anyhow::Result<Report> {
    let opted_in = root.join(crate::config::settings::SETTINGS_PATH).is_file();
    let scratch = Scratch::new(root)?;
    let mut probes = Vec::new();
    for (n, registration) in registrations(root).into_iter().enumerate() {
        probes.push(probe_agent(&scratch, &registration, opted_in, n));
    }
    if let Some(probe) = probe_git(root, &scratch) {
        probes.push(probe);
    }
    Ok(Report {
        adr: scratch.adr_rel.clone(),
        probes,
    })
}

/// The registrations of every agent at project (and local) and user scope, in
/// the hooks files each agent's backend names ([`crate::agent::Backend::hooks_files`]).
fn registrations(root: &Path) -> Vec<Registration> {
    let files = Agent::ALL.into_iter().flat_map(|agent| {
        agent
            .backend()
            .hooks_files(root)
            .into_iter()
            .map(move |file| {
                let scope = match file.scope {
                    hooks_file::Scope::Project => "project",
                    hooks_file::Scope::Local => "local",
                    hooks_file::Scope::User => "user",
                };
                (agent, scope, file.path, file.shown)
            })
    });
    let mut found = Vec::new();
    for (agent, scope, path, shown) in files {
        let Some(path) = path else { continue };
        let Some(hooks) = ours_in(&path, agent) else {
            continue;
        };
        let user_scope = hooks.iter().any(|h| {
            command_of(h, agent).is_some_and(|c| c.ends_with(hooks_file::USER_SCOPE_FLAG))
        });
        let entry = entry_of(agent, &path);
        found.push(Registration {
            agent,
            scope,
            shown,
            user_scope,
            entry,
        });
    }
    found
}

/// The command of a hook entry: `command`, or Copilot's `bash` (its
/// `powershell` on Windows).
fn command_of(hook: &Value, agent: Agent) -> Option<&str> {
    let key = match agent {
        Agent::Copilot => crate::agent::copilot::hooks::command_key(cfg!(windows)),
        _ => "command",
    };
    hook.get(key).and_then(Value::as_str)
}

/// Whether a hook entry is helix-gate's (its marker, or a command only
/// helix-gate's installers write).
fn is_ours(hook: &Value, agent: Agent) -> bool {
    hooks_file::is_ours(hook)
        || hook.get("comment").and_then(Value::as_str) == Some(STATUS_MARKER)
        || (agent == Agent::Copilot
            && ["bash", "powershell"].iter().any(|key| {
                hook.get(*key)
                    .and_then(Value::as_str)
                    .is_some_and(hooks_file::is_hook_command)
            }))
}

/// helix-gate's entries (each as `(event, matcher, hook)`) in the hooks file
/// at `path`; `None` when there are none (or no readable file).
fn entries_in(path: &Path, agent: Agent) -> Option<Vec<(String, Option<String>, Value)>> {
    let text = crate::fs::read::optional_text(path, crate::fs::read::CONFIG_LIMIT)
        .ok()
        .flatten()?;
    let file: Value = serde_json::from_str(&text).ok()?;
    let hooks = file.get("hooks")?.as_object()?;
    let mut found = Vec::new();
    for (event, list) in hooks {
        for item in list.as_array().into_iter().flatten() {
            if agent == Agent::Copilot {
                if is_ours(item, agent) {
                    found.push((event.clone(), None, item.clone()));
                }
                continue;
            }
            let matcher = item
                .get("matcher")
                .and_then(Value::as_str)
                .map(str::to_owned);
            for hook in item
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if is_ours(hook, agent) {
                    found.push((event.clone(), matcher.clone(), hook.clone()));
                }
            }
        }
    }
    (!found.is_empty()).then_some(found)
}

fn ours_in(path: &Path, agent: Agent) -> Option<Vec<Value>> {
    entries_in(path, agent).map(|e| e.into_iter().map(|(_, _, h)| h).collect())
}

/// The tool of the synthetic write, as the agent names it.
fn write_tool(agent: Agent) -> &'static str {
    match agent {
        Agent::Claude | Agent::Copilot => "Write",
        Agent::Codex => "apply_patch",
        Agent::Gemini => "write_file",
    }
}

/// Whether an entry's `matcher` fires for `tool` (absent, empty or `*`:
/// every tool; else a regular expression over the whole name, as the agents
/// match; one that is no regular expression is taken as `|`-separated names).
fn matcher_fires(matcher: Option<&str>, tool: &str) -> bool {
    let Some(matcher) = matcher
        .map(str::trim)
        .filter(|m| !m.is_empty() && *m != "*")
    else {
        return true;
    };
    match regex::Regex::new(&format!("^(?:{matcher})$")) {
        Ok(re) => re.is_match(tool),
        Err(_) => matcher.split('|').any(|m| m.trim() == tool),
    }
}

/// The entry of helix-gate's registration in `path` that runs after a write,
/// or why there is none to run.
fn entry_of(agent: Agent, path: &Path) -> Result<Entry, String> {
    let event = agent
        .backend()
        .event_name(EventKind::PostToolUse)
        .ok_or_else(|| format!("{} has no event after a tool", agent.backend().name()))?;
    let entries = entries_in(path, agent).unwrap_or_default();
    let tool = write_tool(agent);
    let mut for_event = entries.iter().filter(|(e, _, _)| e == event).peekable();
    if for_event.peek().is_none() {
        return Err(format!(
            "no helix-gate entry for {event}: writes are not checked when they happen"
        ));
    }
    let Some((_, _, hook)) = for_event
        .clone()
        .find(|(_, m, _)| matcher_fires(m.as_deref(), tool))
    else {
        let matchers: Vec<String> = for_event.filter_map(|(_, m, _)| m.clone()).collect();
        return Err(format!(
            "the {event} entry's matcher (`{}`) does not fire for {tool}",
            matchers.join("`, `")
        ));
    };
    if let Some(kind) = hook.get("type").and_then(Value::as_str)
        && kind != "command"
    {
        return Err(format!("cannot be probed: an entry of type `{kind}`"));
    }
    let Some(command) = command_of(hook, agent) else {
        return Err(format!(
            "the {event} entry has no command for this platform ({})",
            if agent == Agent::Copilot {
                if cfg!(windows) {
                    "`powershell`"
                } else {
                    "`bash`"
                }
            } else {
                "`command`"
            }
        ));
    };
    // Seconds, Gemini's in milliseconds, Copilot's as `timeoutSec`.
    let timeout = match agent {
        Agent::Gemini => hook
            .get("timeout")
            .and_then(Value::as_u64)
            .map(Duration::from_millis),
        Agent::Copilot => hook
            .get("timeoutSec")
            .and_then(Value::as_u64)
            .map(Duration::from_secs),
        _ => hook
            .get("timeout")
            .and_then(Value::as_u64)
            .map(Duration::from_secs),
    };
    Ok(Entry {
        command: command.to_owned(),
        timeout: timeout.unwrap_or(MAX_PROBE).min(MAX_PROBE),
    })
}

impl Scratch {
    /// A temporary git repository with the project's `config/` and a broken ADR
    /// that the project's configuration takes for an ADR and finds errors in.
    fn new(root: &Path) -> anyhow::Result<Scratch> {
        let dir = tempfile::Builder::new()
            .prefix("helix-gate-probe-")
            .tempdir()
            .context("cannot create the scratch folder")?;
        // The real path: agents report (and hooks receive) canonical paths.
        let base = dir
            .path()
            .canonicalize()
            .context("cannot resolve the scratch folder")?;
        let repo = base.join("repo");
        let state = base.join("state");
        std::fs::create_dir_all(&repo)?;
        std::fs::create_dir_all(&state)?;
        copy_tree(&root.join("config"), &repo.join("config"), 0)?;
        let init = run_quiet(git_command(&repo).args(["init", "-q"]));
        if !init {
            anyhow::bail!("`git init` failed in the scratch folder {}", repo.display());
        }
        let engine = crate::engine::Engine::load(&repo, None)
            .context("the configuration cannot be loaded in the scratch folder")?;
        let settings = &engine.settings.adr;
        let rel = format!(
            "{}/{:0width$}-{PROBE_SLUG}",
            settings.directory.trim_end_matches('/'),
            1,
            width = settings.number_width
        );
        if !engine.matcher().is_adr(&rel) {
            anyhow::bail!(
                "{rel} is not an ADR by this configuration (adr.globs): no write the hook checks can be made up"
            );
        }
        let path = repo.join(&rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        // A title and nothing else: a required section is missing in every
        // preset; an empty file is the fallback.
        for content in ["# 1. helix-gate probe\n", ""] {
            std::fs::write(&path, content)?;
            let broken = engine
                .check_file(&path)
                .is_ok_and(|checked| checked.report.has_errors());
            if broken {
                return Ok(Scratch {
                    _dir: dir,
                    repo,
                    state,
                    adr_rel: rel,
                });
            }
        }
        anyhow::bail!(
            "this configuration finds no error in a made-up broken ADR ({rel}): nothing to probe with"
        )
    }
}

/// Copy the regular files of `from` into `to` (a few levels deep; links are
/// not followed).
fn copy_tree(from: &Path, to: &Path, depth: usize) -> anyhow::Result<()> {
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    std::fs::create_dir_all(to)?;
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let target = to.join(entry.file_name());
        if kind.is_file() {
            std::fs::copy(entry.path(), &target)
                .with_context(|| format!("cannot copy {}", entry.path().display()))?;
        } else if kind.is_dir() && depth < 4 {
            copy_tree(&entry.path(), &target, depth + 1)?;
        }
    }
    Ok(())
}

/// The variables of this process that would make a probe differ from the
/// agent's run: another agent's session variables, helix-gate's own, and the
/// git variables that pin a repository.
fn clean_env(command: &mut Command) {
    for (key, _) in std::env::vars_os() {
        let name = key.to_string_lossy();
        let pinned_git = matches!(
            name.as_ref(),
            "GIT_DIR"
                | "GIT_WORK_TREE"
                | "GIT_INDEX_FILE"
                | "GIT_OBJECT_DIRECTORY"
                | "GIT_ALTERNATE_OBJECT_DIRECTORIES"
                | "GIT_COMMON_DIR"
                | "GIT_PREFIX"
                | "GIT_NAMESPACE"
        );
        if pinned_git
            || crate::env::AGENT_SESSION.contains(&name.as_ref())
            || name.starts_with("HELIX_GATE")
            || name == "AI_AGENT"
            || name == "XDG_STATE_HOME"
        {
            command.env_remove(&key);
        }
    }
}

fn git_command(repo: &Path) -> Command {
    let mut command = Command::new("git");
    clean_env(&mut command);
    command.current_dir(repo);
    command
}

/// Run a short helper command (git) bounded, and say whether it succeeded.
fn run_quiet(command: &mut Command) -> bool {
    let limits = crate::process::Limits {
        timeout: MAX_PROBE,
        stdout_cap: 64 * 1024,
        stderr_cap: 64 * 1024,
    };
    let command = std::mem::replace(command, Command::new("true"));
    crate::process::run(command, &limits, &mut |_| {})
        .is_ok_and(|f| f.status.is_some_and(|s| s.success()))
}

/// `value` quoted for bash where it needs to be (Gemini's `escapeShellArg`).
fn bash_quote(value: &str) -> String {
    if !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./".contains(c))
    {
        value.to_owned()
    } else {
        format!("'{}'", value.replace('\'', r"'\''"))
    }
}

/// The synthetic event: the agent's write of the broken ADR at `abs` (`rel`
/// in the repository at `repo`), in the agent's own payload shape.
fn event(agent: Agent, repo: &Path, rel: &str, abs: &Path, session: &str) -> Value {
    let content = "# 1. helix-gate probe\n";
    match agent {
        Agent::Claude => json!({
            "session_id": session, "transcript_path": "", "cwd": repo,
            "hook_event_name": "PostToolUse", "tool_name": "Write",
            "tool_input": {"file_path": abs, "content": content},
            "tool_response": {"type": "create", "filePath": abs, "content": content},
            "tool_use_id": "toolu_helix_gate_probe"
        }),
        Agent::Codex => json!({
            "session_id": session, "turn_id": session, "transcript_path": "", "cwd": repo,
            "hook_event_name": "PostToolUse", "model": "probe", "permission_mode": "default",
            "tool_name": "apply_patch",
            "tool_input": {"command": format!("*** Begin Patch\n*** Add File: {rel}\n+# 1. helix-gate probe\n*** End Patch\n")},
            "tool_response": format!("Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nA {rel}\n"),
            "tool_use_id": "call_helix_gate_probe"
        }),
        Agent::Gemini => json!({
            "session_id": session, "transcript_path": "", "cwd": repo,
            "hook_event_name": "AfterTool", "timestamp": "1970-01-01T00:00:00.000Z",
            "tool_name": "write_file",
            "tool_input": {"file_path": abs, "content": content},
            "tool_response": {"llmContent": format!("Successfully created and wrote to new file: {}", abs.display()),
                              "returnDisplay": {"fileName": rel, "filePath": abs, "originalContent": "", "newContent": content}}
        }),
        Agent::Copilot => json!({
            "hook_event_name": "PostToolUse", "session_id": session,
            "timestamp": "1970-01-01T00:00:00.000Z", "cwd": repo,
            "tool_name": "Write", "tool_input": {"path": abs, "file_text": content},
            "tool_result": {"result_type": "success", "text_result_for_llm": format!("Created file {}", abs.display())}
        }),
    }
}

/// How the agent runs a hook command here: the shell and its flag.
fn shell(agent: Agent) -> Result<(&'static str, &'static str), String> {
    if cfg!(windows) {
        return Err(match agent {
            Agent::Claude => "on Windows Claude Code runs hook commands through Git Bash (or PowerShell with `\"shell\": \"powershell\"`); probing them is not implemented on Windows".to_owned(),
            Agent::Codex | Agent::Gemini | Agent::Copilot => format!(
                "on Windows {} runs hook commands through PowerShell; probing them is not implemented on Windows",
                agent.backend().name()
            ),
        });
    }
    Ok(match agent {
        // Claude Code 2.1.329: node's `shell: true`, `/bin/sh -c` (claude-code-hooks.md 2.3).
        Agent::Claude => ("/bin/sh", "-c"),
        // Codex 0.169.0 (agent-hooks.md), Gemini 0.61.0 (`getShellConfiguration`),
        // Copilot (its `bash` command).
        Agent::Codex | Agent::Gemini | Agent::Copilot => ("bash", "-c"),
    })
}

/// Whether `program` is found on PATH.
fn on_path(program: &str) -> Option<PathBuf> {
    let paths = std::env::var_os(crate::env::PATH)?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}
/// The command that runs `text` through the agent's shell (`program` `flag`)
/// as the agent does: the event file on stdin, in the scratch repository, with
/// the agent's variables (and Gemini's expansion of them in the text).
fn agent_command(
    scratch: &Scratch,
    agent: Agent,
    text: &str,
    (program, flag): (&str, &str),
    event_file: &Path,
    session: &str,
) -> Command {
    let repo = scratch.repo.display().to_string();
    let mut command_text = text.to_owned();
    if agent == Agent::Gemini {
        // Gemini expands these in the command text itself, quoted for its shell.
        let quoted = bash_quote(&repo);
        for var in ["$GEMINI_PROJECT_DIR", "$GEMINI_CWD", "$CLAUDE_PROJECT_DIR"] {
            command_text = command_text.replace(var, &quoted);
        }
        command_text = command_text.replace("$GEMINI_SESSION_ID", &bash_quote(session));
    }
    // The agent's shell with the event on stdin: a constant wrapper that
    // redirects and execs it (the supervised child's own stdin is empty).
    let mut command = Command::new("/bin/sh");
    command.args([
        "-c",
        "exec \"$0\" \"$1\" \"$2\" < \"$3\"",
        program,
        flag,
        &command_text,
    ]);
    command.arg(event_file);
    clean_env(&mut command);
    command
        .current_dir(&scratch.repo)
        .env(crate::env::HELIX_GATE_STATE_DIR, &scratch.state);
    match agent {
        Agent::Claude => {
            command
                .env(crate::env::CLAUDE_PROJECT_DIR, &scratch.repo)
                .env(crate::env::CLAUDECODE, "1")
                .env(crate::env::CLAUDE_CODE_SESSION_ID, session);
        }
        Agent::Codex => {}
        Agent::Gemini => {
            command
                .env(crate::env::GEMINI_PROJECT_DIR, &scratch.repo)
                .env("GEMINI_CWD", &scratch.repo)
                .env("GEMINI_SESSION_ID", session)
                .env(crate::env::CLAUDE_PROJECT_DIR, &scratch.repo);
        }
        Agent::Copilot => {
            command
                .env(crate::env::COPILOT_PROJECT_DIR, &scratch.repo)
                .env(crate::env::CLAUDE_PROJECT_DIR, &scratch.repo);
        }
    }
    command
}

fn probe_agent(scratch: &Scratch, r: &Registration, opted_in: bool, n: usize) -> Probe {
    let backend = r.agent.backend();
    let mut probe = Probe {
        target: backend.name().to_owned(),
        scope: r.scope.to_owned(),
        file: r.shown.clone(),
        command: String::new(),
        runner: String::new(),
        outcome: Outcome::CannotProbe,
        why: None,
        duration_ms: 0,
    };
    let entry = match &r.entry {
        Ok(entry) => entry,
        Err(why) => {
            probe.outcome = Outcome::DoesNotBlock;
            probe.why = Some(why.clone());
            return probe;
        }
    };
    probe.command.clone_from(&entry.command);
    let (program, flag) = match shell(r.agent) {
        Ok(shell) => shell,
        Err(why) => {
            probe.why = Some(why);
            return probe;
        }
    };
    probe.runner = format!("{program} {flag}");
    if !program.contains('/') && on_path(program).is_none() {
        probe.why = Some(format!(
            "{} runs hook commands through `{program}`, which is not on PATH here",
            backend.name()
        ));
        return probe;
    }
    let session = format!("helix-gate-probe-{}-{n}", std::process::id());
    let abs = scratch.repo.join(&scratch.adr_rel);
    let payload = event(r.agent, &scratch.repo, &scratch.adr_rel, &abs, &session);
    let event_file = scratch.state.join(format!("event-{n}.json"));
    let line = payload.to_string() + "\n";
    if let Err(e) = std::fs::write(&event_file, line) {
        probe.why = Some(format!(
            "cannot write the event into the scratch folder: {e}"
        ));
        return probe;
    }
    let command = agent_command(
        scratch,
        r.agent,
        &entry.command,
        (program, flag),
        &event_file,
        &session,
    );
    let limits = crate::process::Limits {
        timeout: entry.timeout,
        stdout_cap: 1 << 20,
        stderr_cap: 64 * 1024,
    };
    let finished = match crate::process::run(command, &limits, &mut |_| {}) {
        Ok(finished) => finished,
        Err(e) => {
            probe.why = Some(format!("/bin/sh cannot be started: {e}"));
            return probe;
        }
    };
    probe.duration_ms = u64::try_from(finished.duration.as_millis()).unwrap_or(u64::MAX);
    let verdict = judge(r.agent, &entry.command, &finished, entry.timeout);
    match verdict {
        Ok(()) => probe.outcome = Outcome::Blocks,
        Err(why) if r.user_scope && !opted_in => {
            probe.outcome = Outcome::SilentAsIntended;
            probe.why = Some(format!(
                "this repository has no {} and a user-scope hook answers only where one opted in ({why})",
                crate::config::settings::SETTINGS_PATH
            ));
        }
        Err(why) => {
            probe.outcome = Outcome::DoesNotBlock;
            probe.why = Some(why);
        }
    }
    probe
}

/// Whether the answer blocks the write in `agent`'s hands; else why not.
fn judge(
    agent: Agent,
    command: &str,
    finished: &crate::process::Finished,
    timeout: Duration,
) -> Result<(), String> {
    let stdout = String::from_utf8_lossy(&finished.stdout);
    let stderr = String::from_utf8_lossy(&finished.stderr);
    let first_err = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| crate::text::escape_controls(l.trim()))
        .unwrap_or_default();
    if finished.timed_out {
        return Err(format!(
            "timed out after {} s: the agent cancels the hook and goes on (fails open)",
            timeout.as_secs()
        ));
    }
    let Some(status) = finished.status else {
        return Err("its exit status is unknown".to_owned());
    };
    match status.code() {
        Some(0) => {}
        Some(127) => return Err(not_found(command, &first_err)),
        Some(126) => {
            return Err(format!(
                "the program cannot be run (exit 126, not executable): {first_err}"
            ));
        }
        Some(2) if is_syntax_error(&stderr) => {
            return Err(format!(
                "quoting: the shell cannot parse the command (exit 2): {first_err}"
            ));
        }
        Some(code) => {
            return Err(format!(
                "exits {code}{}: {} (fails open){}",
                if code == 2 && agent != Agent::Copilot {
                    ", which the agent takes as a block, but without helix-gate's answer"
                } else {
                    ""
                },
                if code == 2 && agent != Agent::Copilot {
                    "its reason is whatever came on stderr"
                } else {
                    "the agent treats it as a non-blocking error and goes on"
                },
                if first_err.is_empty() {
                    String::new()
                } else {
                    format!("; stderr: {first_err}")
                }
            ));
        }
        None => {
            return Err(format!(
                "ended by a signal ({})",
                crate::process::describe_status(status)
            ));
        }
    }
    let text = stdout.trim();
    if text.is_empty() {
        return Err(format!(
            "exits 0 with no output: the agent goes on (fails open){}",
            if first_err.is_empty() {
                String::new()
            } else {
                format!("; stderr: {first_err}")
            }
        ));
    }
    let Ok(Value::Object(answer)) = serde_json::from_str::<Value>(text) else {
        return Err(
            "stdout is not one JSON object: the agent reads it as plain text and goes on"
                .to_owned(),
        );
    };
    let decision = answer.get("decision").and_then(Value::as_str);
    let blocks = match agent {
        Agent::Gemini => matches!(decision, Some("block" | "deny")),
        _ => decision == Some("block"),
    };
    if blocks {
        Ok(())
    } else {
        Err(format!(
            "answers without a block decision ({}): the broken ADR is let through",
            decision.map_or_else(
                || "no `decision`".to_owned(),
                |d| format!("`decision`: `{d}`")
            )
        ))
    }
}

/// Whether the shell said it cannot parse the command.
fn is_syntax_error(stderr: &str) -> bool {
    let lower = stderr.to_lowercase();
    [
        "syntax error",
        "unterminated",
        "unexpected eof",
        "unexpected end of file",
    ]
    .iter()
    .any(|s| lower.contains(s))
}

/// The program a command starts, as the shell splits it (`"..."` and `'...'`
/// quotes; enough to name it).
fn program_of(command: &str) -> String {
    let command = command.trim_start();
    let mut chars = command.chars();
    match chars.next() {
        Some(q @ ('"' | '\'')) => chars.take_while(|c| *c != q).collect(),
        _ => command
            .split(char::is_whitespace)
            .next()
            .unwrap_or_default()
            .to_owned(),
    }
}

/// Why the shell did not find the program (exit 127).
fn not_found(command: &str, first_err: &str) -> String {
    let program = program_of(command);
    let said = if first_err.is_empty() {
        String::new()
    } else {
        format!(" ({first_err})")
    };
    if program.contains('/') {
        // An unquoted path with spaces: the shell ran only its first word.
        if !command.trim_start().starts_with(['"', '\'']) {
            let words: Vec<&str> = command.split(' ').collect();
            for end in 2..=words.len() {
                let candidate = words[..end].join(" ");
                if Path::new(&candidate).is_file() {
                    return format!(
                        "quoting: `{candidate}` has a space and is not quoted, so the shell looks for `{program}`{said}"
                    );
                }
            }
        }
        if Path::new(&program).exists() {
            return format!("binary not found: `{program}` cannot be run{said}");
        }
        return format!("binary not found (wrong path): `{program}` does not exist{said}");
    }
    format!("binary not found: `{program}` is not on PATH{said}")
}

/// The git pre-commit probe: `git commit` in the scratch repository with the
/// broken ADR staged and helix-gate's shim (a copy of the installed one) as
/// its only hook; `None` when no shim is installed.
fn probe_git(root: &Path, scratch: &Scratch) -> Option<Probe> {
    use super::git::{HOOK, State, state};
    let dir = crate::git::Repo::discover(root)
        .and_then(|r| r.hooks_dir())
        .ok()?;
    if !matches!(state(&dir), State::Shim { .. }) {
        return None;
    }
    let hook = dir.join(HOOK);
    let mut probe = Probe {
        target: "git".to_owned(),
        scope: "pre-commit".to_owned(),
        file: crate::paths::display(root, &hook),
        command: hook.display().to_string(),
        runner: "git commit".to_owned(),
        outcome: Outcome::CannotProbe,
        why: None,
        duration_ms: 0,
    };
    // Only the shim: a chained pre-commit.local is another tool's, not run here.
    let hooks = scratch.state.join("hooks");
    let copied = std::fs::create_dir_all(&hooks)
        .and_then(|()| std::fs::copy(&hook, hooks.join(HOOK)).map(|_| ()));
    if let Err(e) = copied {
        probe.why = Some(format!("cannot copy the hook into the scratch folder: {e}"));
        return Some(probe);
    }
    if !run_quiet(git_command(&scratch.repo).args(["add", "-A"])) {
        probe.why = Some("`git add` failed in the scratch folder".to_owned());
        return Some(probe);
    }
    let mut command = git_command(&scratch.repo);
    command
        .arg("-c")
        .arg(format!("core.hooksPath={}", hooks.display()))
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "user.name=helix-gate probe",
            "-c",
            "user.email=probe@helix-gate.invalid",
            "commit",
            "-q",
            "-m",
            "helix-gate probe",
        ])
        .env(crate::env::HELIX_GATE_STATE_DIR, &scratch.state);
    let limits = crate::process::Limits {
        timeout: MAX_PROBE,
        stdout_cap: 64 * 1024,
        stderr_cap: 64 * 1024,
    };
    let finished = match crate::process::run(command, &limits, &mut |_| {}) {
        Ok(f) => f,
        Err(e) => {
            probe.why = Some(format!("git cannot be started: {e}"));
            return Some(probe);
        }
    };
    probe.duration_ms = u64::try_from(finished.duration.as_millis()).unwrap_or(u64::MAX);
    let stderr = String::from_utf8_lossy(&finished.stderr);
    let hint = stderr
        .lines()
        .find(|l| !l.trim().is_empty())
        .map(|l| crate::text::escape_controls(l.trim()))
        .unwrap_or_default();
    if finished.timed_out {
        probe.outcome = Outcome::DoesNotBlock;
        probe.why = Some(format!("timed out after {} s", MAX_PROBE.as_secs()));
    } else if finished.status.is_some_and(|s| s.success()) {
        probe.outcome = Outcome::DoesNotBlock;
        probe.why = Some(
            if stderr.contains("was ignored because it's not set as executable") {
                "the hook is not executable: git skips it".to_owned()
            } else {
                "git committed the broken ADR".to_owned()
            },
        );
    } else if stderr.contains("helix-gate is not on PATH") {
        // The shim fails closed when helix-gate is missing: every commit is
        // refused, checked or not.
        probe.outcome = Outcome::DoesNotBlock;
        probe.why = Some(format!(
            "it checks nothing and refuses every commit (fails closed): {hint}"
        ));
    } else {
        probe.outcome = Outcome::Blocks;
    }
    Some(probe)
}

/// The report in words, one line per probe.
pub fn human(report: &Report) -> String {
    let mut out = format!(
        "Probes: each registration run as its agent runs it, with a write of a broken ADR ({}) in a scratch copy of this repository's configuration:\n",
        report.adr
    );
    if report.probes.is_empty() {
        out.push_str(
            "  info: no registration of the hook and no pre-commit shim found: nothing to probe\n",
        );
    }
    for p in &report.probes {
        let (label, said) = match p.outcome {
            Outcome::Blocks => ("ok", "blocks as expected"),
            Outcome::DoesNotBlock => ("error", "does not block as expected"),
            Outcome::SilentAsIntended => ("info", "does not block here, as intended"),
            Outcome::CannotProbe => ("info", "cannot be probed here"),
        };
        let _ = write!(
            out,
            "  {label}: {} {} {}: {said}",
            p.target, p.scope, p.file
        );
        if let Some(why) = &p.why {
            let _ = write!(out, ": {why}");
        }
        if !p.command.is_empty() {
            let _ = write!(out, " [`{}`", p.command);
            if !p.runner.is_empty() {
                let _ = write!(out, " through {}", p.runner);
            }
            if p.duration_ms > 0 {
                let _ = write!(out, ", {} ms", p.duration_ms);
            }
            out.push(']');
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_fire_as_the_agents_match() {
        assert!(matcher_fires(None, "Write"));
        assert!(matcher_fires(Some("*"), "Write"));
        assert!(matcher_fires(Some("Write|Edit|MultiEdit|Bash"), "Write"));
        assert!(!matcher_fires(Some("Edit|Bash"), "Write"));
        assert!(!matcher_fires(Some("WriteX"), "Write"));
        assert!(matcher_fires(Some("write_file|replace"), "write_file"));
    }

    #[test]
    fn the_program_of_a_command_is_named() {
        assert_eq!(program_of("helix-gate hook"), "helix-gate");
        assert_eq!(program_of("\"/a b/helix-gate\" hook"), "/a b/helix-gate");
        assert_eq!(
            program_of("  /x/helix-gate hook --agent codex"),
            "/x/helix-gate"
        );
        assert!(not_found("/nonexistent/helix-gate hook", "").contains("wrong path"));
        assert!(not_found("nope-not-here hook", "").contains("not on PATH"));
        assert_eq!(bash_quote("/tmp/a"), "/tmp/a");
        assert_eq!(bash_quote("/tmp/a b'c"), r"'/tmp/a b'\''c'");
    }
}
