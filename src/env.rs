//! Every environment variable helix-gate reads, in one place: their names, and
//! [`var`] / [`is_set`] to read them. git's own `GIT_*` variables are read where
//! git's environment is modelled ([`crate::git::GitEnv`]).

/// Disables colour in terminal output (<https://no-color.org>).
pub const NO_COLOR: &str = "NO_COLOR";
/// Project root given to hooks by Claude Code (does not follow the model's `cd`).
pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";
/// The plugin's folder, given by Claude Code to a plugin's hooks only (the
/// Stop hook reads its `hooks/hooks.json` for the timeout it runs under).
pub const CLAUDE_PLUGIN_ROOT: &str = "CLAUDE_PLUGIN_ROOT";
/// Set to `1` by Claude Code in hooks and in the model's Bash commands.
pub const CLAUDECODE: &str = "CLAUDECODE";
/// The Claude Code session a hook or a model's Bash command runs in (same as
/// the hook payload's `session_id`); approvals record it for `stats`.
pub const CLAUDE_CODE_SESSION_ID: &str = "CLAUDE_CODE_SESSION_ID";
/// Codex CLI's folder of user configuration (`config.toml`, `hooks.json`);
/// `~/.codex` when unset. `install codex --scope user` writes there.
pub const CODEX_HOME: &str = "CODEX_HOME";
/// The folder a Gemini CLI session was started in, given by Gemini CLI to its
/// hooks (it is the event's `cwd` too; Gemini also sets `CLAUDE_PROJECT_DIR`
/// to it, for compatibility).
pub const GEMINI_PROJECT_DIR: &str = "GEMINI_PROJECT_DIR";
/// `true` makes Gemini CLI trust every folder (its folder-trust check loads a
/// project's `.gemini/settings.json`, hooks included, only when trusted).
pub const GEMINI_CLI_TRUST_WORKSPACE: &str = "GEMINI_CLI_TRUST_WORKSPACE";
/// The project folder Copilot CLI gives its hooks (also as `CLAUDE_PROJECT_DIR`).
pub const COPILOT_PROJECT_DIR: &str = "COPILOT_PROJECT_DIR";
/// Copilot CLI's folder of user configuration; `~/.copilot` when unset (its
/// user hooks are `$COPILOT_HOME/hooks/*.json`).
pub const COPILOT_HOME: &str = "COPILOT_HOME";
/// Gemini CLI's home folder in place of `HOME` (its user settings are
/// `$GEMINI_CLI_HOME/.gemini/settings.json`).
pub const GEMINI_CLI_HOME: &str = "GEMINI_CLI_HOME";
/// Set by helix-gate for its reviewer child: `helix-gate hook` is then a no-op,
/// so a reviewer can never trigger another review.
pub const HELIX_GATE_CHILD: &str = "HELIX_GATE_CHILD";

/// Set to `1` by Gemini CLI in the commands its shell tool runs.
pub const GEMINI_CLI: &str = "GEMINI_CLI";
/// Set by Codex CLI in the commands it runs inside its sandbox (`seatbelt`, ...).
pub const CODEX_SANDBOX: &str = "CODEX_SANDBOX";
/// Set to `1` by Codex CLI in the commands it runs without network access.
pub const CODEX_SANDBOX_NETWORK_DISABLED: &str = "CODEX_SANDBOX_NETWORK_DISABLED";
/// The Codex CLI thread a command of its shell tool runs in.
pub const CODEX_THREAD_ID: &str = "CODEX_THREAD_ID";
/// Set by GitHub Copilot CLI in the commands its shell tool runs.
pub const COPILOT_CLI: &str = "COPILOT_CLI";

/// The variables that say a process runs inside an AI agent's session: its
/// model's shell commands, its hooks, or helix-gate's reviewer. Agents set
/// them for their tools and hooks; a person's terminal has none of them.
pub const AGENT_SESSION: &[&str] = &[
    CLAUDECODE,
    CLAUDE_CODE_SESSION_ID,
    CLAUDE_PROJECT_DIR,
    GEMINI_CLI,
    GEMINI_PROJECT_DIR,
    CODEX_SANDBOX,
    CODEX_SANDBOX_NETWORK_DISABLED,
    CODEX_THREAD_ID,
    COPILOT_CLI,
    COPILOT_PROJECT_DIR,
    HELIX_GATE_CHILD,
];

/// The first of [`AGENT_SESSION`] that is set: this process runs inside an
/// agent's session. A hint, not a proof: a model that unsets them all looks
/// like a person's terminal.
pub fn agent_session() -> Option<&'static str> {
    AGENT_SESSION.iter().copied().find(|name| is_set(name))
}

/// Overrides the folder of helix-gate's per-user state (the approval cache's
/// signing key); must be absolute. For tests and unusual setups.
pub const HELIX_GATE_STATE_DIR: &str = "HELIX_GATE_STATE_DIR";
/// The XDG base directory for state (<https://specifications.freedesktop.org/basedir-spec/>).
pub const XDG_STATE_HOME: &str = "XDG_STATE_HOME";
/// The user's home folder (the state folder's last fallback, `~/.claude`).
pub const HOME: &str = "HOME";
/// The user's login name (`helix-gate key export` names the key file after it).
pub const USER: &str = "USER";
/// The user's login name where `USER` is not set.
pub const LOGNAME: &str = "LOGNAME";
/// GitHub Actions: the server, the `owner/name` of the repository and the commit
/// of the run, from which `check --format markdown` links each ADR to its file.
pub const GITHUB_SERVER_URL: &str = "GITHUB_SERVER_URL";
pub const GITHUB_REPOSITORY: &str = "GITHUB_REPOSITORY";
pub const GITHUB_SHA: &str = "GITHUB_SHA";
/// Where programs are found (`install` finds `helix-gate` on it).
pub const PATH: &str = "PATH";
/// Set by helix-gate on each process it supervises (the reviewer) to a token
/// of that one run. Descendants inherit it, so those that left the reviewer's
/// process group and tree are still found, and killed, when the run ends.
pub const HELIX_GATE_SUPERVISION: &str = "HELIX_GATE_SUPERVISION";

/// helix-gate's per-user state folder, outside every work tree (the approval
/// cache's signing key, session baselines, trust records):
/// `$HELIX_GATE_STATE_DIR`, else `$XDG_STATE_HOME/helix-gate`, else
/// `$HOME/.local/state/helix-gate`, on Windows else `%LOCALAPPDATA%\helix-gate`
/// (the profile's folder only its user, SYSTEM and Administrators may read).
/// A relative value is ignored (the XDG rule):
/// it would resolve against the current directory, which is usually the work tree.
pub fn state_dir() -> Option<std::path::PathBuf> {
    let absolute = |name: &str| {
        var(name)
            .map(std::path::PathBuf::from)
            .filter(|p| p.is_absolute())
    };
    absolute(HELIX_GATE_STATE_DIR)
        .or_else(|| absolute(XDG_STATE_HOME).map(|p| p.join("helix-gate")))
        .or_else(|| absolute(HOME).map(|p| p.join(".local/state/helix-gate")))
        .or_else(|| {
            cfg!(windows)
                .then(|| absolute(LOCALAPPDATA).map(|p| p.join("helix-gate")))
                .flatten()
        })
}

/// Windows: the user's local application data folder (`C:\Users\<name>\AppData\Local`).
pub const LOCALAPPDATA: &str = "LOCALAPPDATA";

/// The value of `name` when set and not empty.
pub fn var(name: &str) -> Option<String> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(|v| v.to_string_lossy().into_owned())
}

/// Whether `name` is set to anything but empty.
pub fn is_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}
