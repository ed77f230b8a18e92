//! What an agent is to helix-gate: one [`Backend`] per agent, one module each
//! (`super::claude`, `super::codex`, ...), picked by
//! [`Agent::backend`](super::Agent::backend).

use std::path::{Path, PathBuf};

use super::doctor::Line;
use super::event::{DecodeError, EventKind, HookEvent, Transcript};
use super::hooks_file::Scope;
use super::output::HookOutput;

/// What `install NAME` is asked to do.
#[derive(Debug, Clone)]
pub struct InstallRequest<'a> {
    /// The repository.
    pub root: &'a Path,
    pub scope: Scope,
    /// The Stop hook's timeout (seconds), why that long (`None`: no reason
    /// to give beyond its source), and where the reviews' timeouts come from.
    pub stop_timeout_s: u64,
    pub stop_why: Option<String>,
    pub stop_source: &'static str,
    /// The first existing session folder of the repository, if any.
    pub session_folder: Option<String>,
    /// `--trust-hooks`, `--trust-project` (only where [`Backend::trust_gates`]).
    pub trust_hooks: bool,
    pub trust_project: bool,
}

/// What `install` or `uninstall` did, for the person: the file, the summary
/// for stdout and the notes for stderr (without the `helix-gate: ` prefix's
/// line end: each note is one line).
#[derive(Debug, Clone)]
pub struct Done {
    pub path: PathBuf,
    pub text: String,
    pub notes: Vec<String>,
    /// Whether the file goes into (or out of) `doctor`'s record of
    /// registrations.
    pub record: bool,
}

/// One of an agent's hooks files: the scope `install` writes it for, where it
/// is (`None`: its folder cannot be found, no home directory) and how people
/// are shown it.
#[derive(Debug, Clone)]
pub struct HooksFile {
    pub scope: Scope,
    pub path: Option<PathBuf>,
    pub shown: String,
}

/// One agent: its wire (decode, encode, event names), its registration (the
/// tool matchers of its entries, its hooks files) and what it can do.
pub trait Backend: Sync {
    /// The agent's name for people (messages, `doctor`).
    fn name(&self) -> &'static str;

    /// The agent as the command line's help describes it (`--agent`).
    fn description(&self) -> &'static str;

    /// Decode one event from the raw bytes on stdin into the one event.
    fn decode(&self, bytes: &[u8]) -> Result<HookEvent, DecodeError>;

    /// The one line for stdout that answers an event of `kind` (`None`: the
    /// event could not be decoded) with `output`, in a form the agent accepts.
    fn encode(&self, output: &HookOutput, kind: Option<EventKind>) -> String;

    /// The agent's name of the event helix-gate decides as `kind` (`None`:
    /// the agent has no such event).
    fn event_name(&self, kind: EventKind) -> Option<&'static str>;

    /// Whether a `PreToolUse` hook can put a tool call to the person (else the
    /// call is refused, with the reason that says what the person can do).
    fn asks_person(&self) -> bool;

    /// The environment variable in which the agent names the session's project
    /// folder, if it sets one.
    fn project_dir_var(&self) -> Option<&'static str>;

    /// The session's final answer read from the agent's transcript, for an
    /// agent whose Stop does not carry it (`Err`: what was found instead).
    fn answer_in_transcript(&self, _transcript: &Transcript) -> Result<String, &'static str> {
        Err("a transcript this agent does not write")
    }

    /// The tools the agent's entry of `kind` fires for (`None`: every
    /// occurrence of the event). With [`event_name`](Backend::event_name) it
    /// puts the one table of entries (`super::hooks_file::HOOK_ENTRIES`) into
    /// the agent's words.
    fn matcher(&self, kind: EventKind) -> Option<&'static str>;

    /// The agent's folder of user configuration (`~/.claude`, `$CODEX_HOME`,
    /// ...).
    fn home(&self) -> anyhow::Result<PathBuf>;

    /// Whether the hooks files the agent loads for a session in `project_dir`
    /// (inside the repository at `root`) register helix-gate's hook for this
    /// agent: an entry whose command really runs it. The marker text alone,
    /// or an entry that carries it with another command, is not a
    /// registration: a repository could ship one to silence the user-scope hook.
    fn registered_in_project(&self, root: &Path, project_dir: &Path) -> bool;

    /// helix-gate's Stop hooks' timeouts the agent would apply, as (file,
    /// seconds): the hook keeps its deadline below the shortest.
    fn installed_stop_timeouts(&self, root: &Path) -> Vec<(PathBuf, u64)>;

    /// The environment variable that moves the agent's folder of user
    /// configuration, if there is one (`CODEX_HOME`).
    fn home_var(&self) -> Option<&'static str>;

    /// Where the agent's registrations lie, relative to a project (or home)
    /// folder: a file whose path ends so is one, also in a session folder.
    fn registration_paths(&self) -> &'static [&'static str];

    /// The agent's hooks file at user scope (where `install --scope user`
    /// writes).
    fn user_hooks_file(&self, root: &Path) -> anyhow::Result<PathBuf>;

    /// Every hooks file `install` writes for the agent, project (and local)
    /// scope first, then user scope (`doctor --probe` runs what they register).
    fn hooks_files(&self, root: &Path) -> Vec<HooksFile>;

    /// Whether `install` takes `--trust-hooks` and `--trust-project` (the
    /// gates of Codex's `config.toml`).
    fn trust_gates(&self) -> bool {
        false
    }

    /// Register helix-gate's hook (`install NAME`) and say what the agent
    /// still needs before it runs it.
    fn install(&self, request: &InstallRequest<'_>) -> anyhow::Result<Done>;

    /// Remove helix-gate's hook entries of `scope` (`uninstall NAME`).
    fn uninstall(&self, root: &Path, scope: Scope) -> anyhow::Result<Done>;

    /// The agent's part of `doctor`: where helix-gate's hook is registered for
    /// it and whether it will run there. `session_paths`: the repository's
    /// session folders (globs); `opted_in`: the repository has helix-gate's
    /// settings file.
    fn doctor(&self, root: &Path, session_paths: &[String], opted_in: bool) -> Vec<Line>;
}
