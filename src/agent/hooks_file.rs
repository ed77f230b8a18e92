//! The shared shape of a hooks file, written once for every agent: reading
//! and writing it (merging with whatever is there), knowing helix-gate's
//! entries in it, the one table of hook entries ([`HOOK_ENTRIES`]) over the
//! typed event kind, and the Stop timeout that follows the reviews.
//!
//! Every other key and hook is preserved (key order too); a file that is not
//! valid JSON is refused, never overwritten.
//!
//! Our entries are recognised exactly, never by a substring: an entry is ours when
//! its `statusMessage` is [`STATUS_MARKER`] (a field Claude Code 2.1.329 knows for
//! command hooks: the spinner text while the hook runs), or when its command is one
//! of the exact forms earlier versions wrote without the marker (`helix-gate hook`,
//! or the binary's absolute path in double quotes followed by ` hook`). Another
//! tool's hook whose command merely mentions helix-gate is left alone.
//!
//! The file is replaced atomically and keeps its permissions (a 0600
//! `settings.local.json` holding API keys stays 0600). A symbolic link (dotfiles)
//! stays a link and is written through, when the file it points to is in the
//! allowed place: inside the project for project and local settings (a cloned
//! repository must not make `install` write elsewhere), inside the home directory
//! (or the agent's) for user settings. A link elsewhere is refused, with the reason.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, bail};
use serde_json::{Map, Value, json};

use super::event::EventKind;
use super::name::Agent;

/// Stop must outlive the longest reviewer run (the largest enabled approval
/// timeout, default 300 s) plus the deterministic checks before it, the
/// session lock after it and the answer: this much on top.
pub const STOP_TIMEOUT_MARGIN_S: u64 = 60;
/// The Stop timeout when no approval type is enabled: the deterministic
/// checks only (`hook.deadline_ms` is at most 60 s) plus room to answer.
pub const NO_REVIEW_STOP_TIMEOUT_S: u64 = 90;

/// The Stop timeout (seconds) `install claude` registers when the longest
/// enabled review may take `longest_review` (`None`: no type enabled). The
/// Stop hook keeps its own deadline below the timeout it finds installed.
pub fn stop_timeout_s(longest_review: Option<Duration>) -> u64 {
    longest_review.map_or(NO_REVIEW_STOP_TIMEOUT_S, |t| {
        t.as_secs() + STOP_TIMEOUT_MARGIN_S
    })
}

/// The `timeout`s of the Stop hook entries in the settings file `path` that
/// `pick` accepts.
pub(crate) fn stop_timeouts_in(path: &Path, pick: fn(&Value) -> bool) -> Vec<(PathBuf, u64)> {
    let Ok(settings) = read_settings(path) else {
        return Vec::new();
    };
    let groups = settings
        .get("hooks")
        .and_then(|h| h.get("Stop"))
        .and_then(Value::as_array);
    let mut found = Vec::new();
    for group in groups.into_iter().flatten() {
        let hooks = group.get("hooks").and_then(Value::as_array);
        for hook in hooks.into_iter().flatten().filter(|h| pick(h)) {
            if let Some(timeout) = hook.get("timeout").and_then(Value::as_u64) {
                found.push((path.to_path_buf(), timeout));
            }
        }
    }
    found
}

/// Which hooks file: the project's, the local one (Claude Code's
/// .claude/settings.local.json; no other agent has one) or the user's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Project,
    Local,
    User,
}

pub(crate) fn home() -> anyhow::Result<PathBuf> {
    let home = crate::env::var(crate::env::HOME)
        .context("HOME is not set; cannot find ~/.claude/settings.json")?;
    Ok(PathBuf::from(home))
}

/// An agent's folder of user configuration: the environment variable `var` when
/// set (`CODEX_HOME`, `COPILOT_HOME`), else `folder` in the home directory.
pub(crate) fn agent_home(var: &str, folder: &str) -> anyhow::Result<PathBuf> {
    match crate::env::var(var) {
        Some(dir) => Ok(crate::paths::absolute(Path::new(&dir))),
        None => Ok(home()?.join(folder)),
    }
}

/// Where a settings file may be written, and how to name that place.
#[derive(Debug, Clone)]
pub struct Area {
    pub dir: PathBuf,
    pub name: &'static str,
}

impl Area {
    /// `result` of a write of `path` inside the area, with a refusal that says
    /// what was not done and why.
    pub(crate) fn check<T>(&self, path: &Path, result: std::io::Result<T>) -> anyhow::Result<T> {
        let shown = |p: &Path| crate::paths::display(&self.dir, &self.dir.join(p));
        result.map_err(|e| match crate::fs::confine::escape(&e) {
            Some(crate::fs::confine::Escape::Link { link, target, .. }) => anyhow::anyhow!(
                "`{}` leaves {} through a symbolic link (`{}` -> `{}`); not written. \
Settings are written through a link only to a file inside {} ({}): edit the file it points to by hand, or replace the link with a copy",
                shown(path),
                self.name,
                shown(link),
                target.display(),
                self.name,
                self.dir.display()
            ),
            _ => anyhow::Error::new(e).context(format!("cannot write {}", path.display())),
        })
    }
}

/// The `statusMessage` of our hook entries: what Claude Code shows while the hook
/// runs, and the mark by which install and uninstall know an entry is ours.
pub const STATUS_MARKER: &str = "helix-gate: ADR gate";

/// `helix-gate hook` when that name on PATH is this binary, else the absolute path
/// (quoted) for a POSIX shell ([`Shell::Posix`]). The command text appears in the
/// feedback the model reads, so short is better.
pub fn hook_command() -> String {
    hook_command_for(Shell::Posix)
}

/// The shell that runs a registered command, for its quoting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shell {
    /// `sh`, `bash`, Git Bash on Windows, and cmd: `"<path>" hook`.
    Posix,
    /// PowerShell, which reads a leading quoted path as a string: `& "<path>" hook`.
    PowerShell,
}

/// [`hook_command`] quoted for `shell`.
pub fn hook_command_for(shell: Shell) -> String {
    command_text(this_binary_off_path().as_deref(), shell)
}

/// This binary's absolute path when `helix-gate` on PATH is not this binary
/// (`None`: the bare name runs it). Without Windows' `\\?\` prefix.
fn this_binary_off_path() -> Option<String> {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok())?;
    let name = if cfg!(windows) {
        "helix-gate.exe"
    } else {
        "helix-gate"
    };
    let on_path = std::env::var_os(crate::env::PATH).and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
            .and_then(|p| p.canonicalize().ok())
    });
    (on_path.as_ref() != Some(&exe)).then(|| dunce::simplified(&exe).display().to_string())
}

/// The command that runs helix-gate's hook from the binary at `exe` (`None`: the
/// name on PATH) in `shell`. A pure function of its arguments, so the Windows
/// forms are tested everywhere.
pub fn command_text(exe: Option<&str>, shell: Shell) -> String {
    match (exe, shell) {
        (None, _) => "helix-gate hook".to_owned(),
        (Some(exe), Shell::Posix) => format!("\"{exe}\" hook"),
        (Some(exe), Shell::PowerShell) => format!("& \"{exe}\" hook"),
    }
}

/// The shell `agent` runs a hook command with on Windows (`windows`) or elsewhere:
/// Gemini CLI uses PowerShell on Windows (`-NoProfile -NonInteractive -Command`,
/// its `getShellConfiguration`); Claude Code uses Git Bash there; Codex's is not
/// verified and gets the form Git Bash and cmd run. Copilot's entries carry both
/// (`bash` and `powershell`: [`crate::agent::copilot::hooks`]).
pub fn agent_shell(agent: Agent, windows: bool) -> Shell {
    match agent {
        Agent::Gemini if windows => Shell::PowerShell,
        _ => Shell::Posix,
    }
}

/// Whether a hook entry is one of ours: it carries [`STATUS_MARKER`], or its
/// command is exactly one an earlier version wrote ([`is_hook_command`]).
pub fn is_ours(hook: &Value) -> bool {
    // Gemini CLI's entries carry the marker as `description` (it has no `statusMessage`).
    ["statusMessage", "description"]
        .iter()
        .any(|key| hook.get(*key).and_then(Value::as_str) == Some(STATUS_MARKER))
        || hook
            .get("command")
            .and_then(Value::as_str)
            .is_some_and(is_hook_command)
}

/// A command that runs helix-gate's hook, taken apart ([`parse_hook_command`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookCommand<'a> {
    /// `--agent NAME` (`None`: the default, Claude Code).
    pub agent: Option<&'a str>,
    /// `--scope NAME`.
    pub scope: Option<&'a str>,
}

/// The scopes a hook command may name (`helix-gate hook --help`).
const SCOPES: [&str; 3] = ["project", "local", "user"];

/// `command` taken apart when it runs helix-gate's hook in the forms
/// [`hook_command`] and the installers write: `helix-gate hook`, or
/// `"<absolute path to helix-gate>" hook` (PowerShell's `& "<path>" hook`), each
/// optionally followed by ` --agent claude|codex|gemini|copilot` and then
/// ` --scope project|local|user`. Exact: a wrapper script, another subcommand,
/// other arguments or a relative path are not helix-gate's hook. On Windows the
/// path may be a drive's (`C:\...`), a share's or Git Bash's (`/c/...`).
pub fn parse_hook_command(command: &str) -> Option<HookCommand<'_>> {
    parse_hook_command_on(command, crate::paths::WINDOWS)
}

/// [`parse_hook_command`] for the platform `windows` says.
pub fn parse_hook_command_on(command: &str, windows: bool) -> Option<HookCommand<'_>> {
    fn strip<'a>(
        command: &'a str,
        flag: &str,
        values: &[&'static str],
    ) -> (&'a str, Option<&'a str>) {
        values
            .iter()
            .find_map(|value| {
                let rest = command.strip_suffix(value)?.strip_suffix(flag)?;
                Some((rest, Some(&command[rest.len() + flag.len()..])))
            })
            .unwrap_or((command, None))
    }
    let (command, scope) = strip(command, " --scope ", &SCOPES);
    let (command, agent) = strip(command, " --agent ", &Agent::ALL.map(Agent::cli_name));
    let parsed = HookCommand { agent, scope };
    if command == "helix-gate hook" {
        return Some(parsed);
    }
    let command = command.strip_suffix(" hook")?;
    let command = command.strip_prefix("& ").unwrap_or(command);
    let exe = command
        .strip_prefix('"')
        .and_then(|c| c.strip_suffix('"'))?;
    (!exe.contains('"') && is_helix_gate_path(exe, windows)).then_some(parsed)
}

/// Whether `exe` is an absolute path whose last name is helix-gate's binary: on
/// Unix `/...`; on Windows (`windows`) also `C:\...`, `C:/...` and `\\server\...`,
/// with `\` separating names, in any case.
fn is_helix_gate_path(exe: &str, windows: bool) -> bool {
    if !windows {
        let path = Path::new(exe);
        return exe.starts_with('/')
            && path
                .file_name()
                .is_some_and(|n| n == "helix-gate" || n == "helix-gate.exe");
    }
    let bytes = exe.as_bytes();
    let drive = bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/');
    let absolute = drive || exe.starts_with('/') || exe.starts_with(r"\\");
    let name = exe.rsplit(['/', '\\']).next().unwrap_or(exe);
    absolute
        && ["helix-gate", "helix-gate.exe"]
            .iter()
            .any(|ours| crate::paths::same_name(name, ours, true))
}

/// Whether `command` runs helix-gate's hook ([`parse_hook_command`]), for any agent.
pub fn is_hook_command(command: &str) -> bool {
    parse_hook_command(command).is_some()
}

/// Whether the JSON file at `path` is a hooks file that `registers` accepts
/// (a file that cannot be read or parsed registers nothing).
pub fn file_registers(path: &Path, registers: fn(&Value) -> bool) -> bool {
    crate::fs::read::optional_text(path, crate::fs::read::CONFIG_LIMIT)
        .ok()
        .flatten()
        .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        .is_some_and(|settings| registers(&settings))
}

/// Whether a hooks file in the Claude Code layout (`hooks.<event>[].hooks[]`,
/// which Codex shares) has a command hook entry whose command runs helix-gate's
/// hook for an agent `agent` accepts.
pub fn registers_hook_for(settings: &Value, agent: impl Fn(Option<&str>) -> bool) -> bool {
    let Some(events) = settings.get("hooks").and_then(Value::as_object) else {
        return false;
    };
    events
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(Value::as_array))
        .flatten()
        .any(|hook| {
            hook.get("type").and_then(Value::as_str) == Some("command")
                && hook
                    .get("command")
                    .and_then(Value::as_str)
                    .and_then(parse_hook_command)
                    .is_some_and(|c| agent(c.agent))
        })
}

pub(crate) fn read_settings(path: &Path) -> anyhow::Result<Map<String, Value>> {
    let text = match crate::fs::read::optional_text(path, crate::fs::read::CONFIG_LIMIT) {
        Ok(Some(text)) => text,
        Ok(None) => return Ok(Map::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    if text.trim().is_empty() {
        return Ok(Map::new());
    }
    match serde_json::from_str::<Value>(&text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => bail!(
            "{} is not a JSON object; refusing to change it",
            path.display()
        ),
        Err(e) => bail!(
            "{} is not valid JSON ({e}); refusing to change it. Fix or move the file and run the command again",
            path.display()
        ),
    }
}

pub(crate) fn write_settings(
    area: &Area,
    path: &Path,
    settings: &Map<String, Value>,
) -> anyhow::Result<()> {
    if let Some(dir) = path.parent() {
        area.check(dir, crate::fs::confine::create_dir_all(&area.dir, dir))?;
    }
    let text = serde_json::to_string_pretty(settings)? + "\n";
    // The user's settings: synced, and a private (0600) file stays private; a
    // symlinked file is replaced at its target, so the link stays.
    area.check(
        path,
        crate::fs::atomic::write(&area.dir, path, text.as_bytes()),
    )
}

/// Remove our entries from a `hooks` object; returns how many were removed.
pub(crate) fn remove_ours(hooks: &mut Map<String, Value>) -> usize {
    let mut removed = 0;
    for groups in hooks.values_mut() {
        let Some(groups) = groups.as_array_mut() else {
            continue;
        };
        for group in groups.iter_mut() {
            if let Some(list) = group.get_mut("hooks").and_then(Value::as_array_mut) {
                let before = list.len();
                list.retain(|h| !is_ours(h));
                removed += before - list.len();
            }
        }
        groups.retain(|g| {
            g.get("hooks")
                .and_then(Value::as_array)
                .is_none_or(|l| !l.is_empty())
        });
    }
    hooks.retain(|_, groups| groups.as_array().is_none_or(|g| !g.is_empty()));
    removed
}

/// One event helix-gate registers, for every agent: the one table each
/// agent's installer writes, in that agent's event names and tool matchers
/// (`Backend::event_name`, `Backend::matcher`; an agent without the event
/// leaves it out). The plugin's `hooks/hooks.json` carries Claude Code's
/// form of it (a test holds them equal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEntry {
    pub kind: EventKind,
    /// Seconds; `None` for Stop, whose timeout follows the reviews.
    pub timeout_s: Option<u64>,
    /// Only with `hook.prompt_context` (the summary before every prompt).
    pub prompt_context_only: bool,
}

/// Every hook helix-gate registers, in order.
pub const HOOK_ENTRIES: [HookEntry; 6] = [
    HookEntry {
        kind: EventKind::PreToolUse,
        timeout_s: Some(10),
        prompt_context_only: false,
    },
    HookEntry {
        kind: EventKind::PostToolUse,
        timeout_s: Some(30),
        prompt_context_only: false,
    },
    // A shell command that fails may have written files all the same.
    HookEntry {
        kind: EventKind::PostToolUseFailure,
        timeout_s: Some(30),
        prompt_context_only: false,
    },
    HookEntry {
        kind: EventKind::Stop,
        timeout_s: None,
        prompt_context_only: false,
    },
    HookEntry {
        kind: EventKind::SessionStart,
        timeout_s: Some(10),
        prompt_context_only: false,
    },
    HookEntry {
        kind: EventKind::UserPromptSubmit,
        timeout_s: Some(10),
        prompt_context_only: true,
    },
];

/// One entry as an agent registers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub kind: EventKind,
    /// The agent's name of the event.
    pub event: &'static str,
    /// The tools the entry fires for (`None`: every occurrence of the event).
    pub matcher: Option<&'static str>,
    /// Seconds.
    pub timeout_s: u64,
}

/// [`HOOK_ENTRIES`] in an agent's names (`event_name`) and matchers
/// (`matcher`), without the events it lacks, `UserPromptSubmit` only with
/// `prompt_context`, and Stop's timeout `stop_timeout_s`.
pub fn entries(
    event_name: impl Fn(EventKind) -> Option<&'static str>,
    matcher: impl Fn(EventKind) -> Option<&'static str>,
    prompt_context: bool,
    stop_timeout_s: u64,
) -> Vec<Entry> {
    HOOK_ENTRIES
        .iter()
        .filter(|e| prompt_context || !e.prompt_context_only)
        .filter_map(|e| {
            Some(Entry {
                kind: e.kind,
                event: event_name(e.kind)?,
                matcher: matcher(e.kind),
                timeout_s: e.timeout_s.unwrap_or(stop_timeout_s),
            })
        })
        .collect()
}

/// The hook groups (event, group) of the Claude Code layout for `entries`,
/// each with one command hook running `command` and marked with
/// [`STATUS_MARKER`].
pub fn hook_groups(entries: &[Entry], command: &str) -> Vec<(&'static str, Value)> {
    let hook = |timeout: u64| json!({"type": "command", "command": command, "timeout": timeout, "statusMessage": STATUS_MARKER});
    entries
        .iter()
        .map(|e| {
            let group = match e.matcher {
                Some(matcher) => json!({"matcher": matcher, "hooks": [hook(e.timeout_s)]}),
                None => json!({"hooks": [hook(e.timeout_s)]}),
            };
            (e.event, group)
        })
        .collect()
}

/// The command an agent's hooks file runs: [`hook_command`] with `--agent
/// NAME` (none for Claude Code, the default) and [`USER_SCOPE_FLAG`] at user
/// scope.
pub fn agent_hook_command(agent: Agent, user_scope: bool) -> String {
    agent_hook_command_in(agent, user_scope, agent_shell(agent, cfg!(windows)))
}

/// [`agent_hook_command`] quoted for `shell`.
pub fn agent_hook_command_in(agent: Agent, user_scope: bool, shell: Shell) -> String {
    let mut command = hook_command_for(shell);
    if agent != Agent::Claude {
        command.push_str(" --agent ");
        command.push_str(agent.cli_name());
    }
    if user_scope {
        command.push_str(USER_SCOPE_FLAG);
    }
    command
}

/// Replace our entries in the hooks file at `path` (inside `area`; the Claude
/// Code layout, which Codex's `hooks.json` shares) by `entries` (event, group),
/// keeping everything else; returns the file as written. A file that is not a
/// JSON object, or whose `hooks` is malformed, is refused untouched.
pub(crate) fn merge_into(
    area: &Area,
    path: &Path,
    entries: Vec<(&'static str, Value)>,
) -> anyhow::Result<Map<String, Value>> {
    // Before reading: a link out of the area is refused for what it is.
    area.check(path, crate::fs::confine::resolve(&area.dir, path))?;
    let mut settings = read_settings(path)?;
    let hooks = settings
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        bail!(
            "`hooks` in {} is not an object; refusing to change it",
            path.display()
        );
    };
    if let Some((event, _)) = entries
        .iter()
        .find(|(event, _)| hooks.get(*event).is_some_and(|g| !g.is_array()))
    {
        bail!(
            "`hooks.{event}` in {} is not a list; refusing to change it",
            path.display()
        );
    }
    remove_ours(hooks);
    for (event, entry) in entries {
        let groups = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Some(groups) = groups.as_array_mut() {
            groups.push(entry);
        }
    }
    write_settings(area, path, &settings)?;
    Ok(settings)
}

/// Remove our hooks from the settings at `path` (inside `area`); returns how many
/// were removed.
pub fn uninstall_from(area: &Area, path: &Path) -> anyhow::Result<usize> {
    if !path.exists() {
        return Ok(0);
    }
    area.check(path, crate::fs::confine::resolve(&area.dir, path))?;
    let mut settings = read_settings(path)?;
    let mut removed = 0;
    if let Some(hooks) = settings.get_mut("hooks").and_then(Value::as_object_mut) {
        removed = remove_ours(hooks);
        if hooks.is_empty() {
            settings.remove("hooks");
        }
    }
    if removed > 0 {
        write_settings(area, path, &settings)?;
    }
    Ok(removed)
}

/// What the user-scope command line adds: the hook then works only in
/// repositories that opted in (see `hook::project`).
pub const USER_SCOPE_FLAG: &str = " --scope user";

/// Whether an agent's `install` registers `UserPromptSubmit` (`hook.prompt_context`):
/// at project and local scope as the repository's config/helix-gate.yaml says;
/// at user scope as the built-in defaults say, because that registration
/// serves every session on the machine, not only the repository it was run in.
pub fn prompt_context(root: &Path, scope: Scope) -> anyhow::Result<bool> {
    Ok(if scope == Scope::User {
        crate::config::Settings::builtin().hook.prompt_context
    } else {
        crate::config::Settings::load(root)?.hook.prompt_context
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_is_quoted_for_the_shell_that_runs_it() {
        let exe = r"C:\Users\a\AppData\Local\Programs\helix-gate\helix-gate.exe";
        assert_eq!(
            command_text(Some(exe), Shell::Posix),
            format!("\"{exe}\" hook")
        );
        assert_eq!(
            command_text(Some(exe), Shell::PowerShell),
            format!("& \"{exe}\" hook")
        );
        for shell in [Shell::Posix, Shell::PowerShell] {
            assert_eq!(command_text(None, shell), "helix-gate hook");
        }
        // Gemini CLI runs hooks with PowerShell on Windows, Claude Code with Git Bash.
        assert_eq!(agent_shell(Agent::Gemini, true), Shell::PowerShell);
        assert_eq!(agent_shell(Agent::Gemini, false), Shell::Posix);
        assert_eq!(agent_shell(Agent::Claude, true), Shell::Posix);
        // Every form written is recognised as ours where it is written.
        for shell in [Shell::Posix, Shell::PowerShell] {
            let command = format!(
                "{} --agent gemini --scope user",
                command_text(Some(exe), shell)
            );
            let parsed = parse_hook_command_on(&command, true).unwrap();
            assert_eq!((parsed.agent, parsed.scope), (Some("gemini"), Some("user")));
        }
    }

    #[test]
    fn windows_paths_of_the_binary_are_recognised_on_windows_only() {
        for command in [
            r#""C:\Tools\helix-gate.exe" hook"#,
            r#"& "C:\Tools\HELIX-GATE.EXE" hook"#,
            r#""c:/tools/helix-gate" hook"#,
            r#""\\srv\share\helix-gate.exe" hook"#,
            r#""/c/Tools/helix-gate.exe" hook"#,
        ] {
            assert!(parse_hook_command_on(command, true).is_some(), "{command}");
        }
        for command in [
            r#""C:\Tools\helix-gate.exe" hook"#,
            r#""c:/tools/helix-gate" hook"#,
        ] {
            assert!(parse_hook_command_on(command, false).is_none(), "{command}");
        }
        for foreign in [
            r#""Tools\helix-gate.exe" hook"#,
            r#""C:\Tools\helix-gate-wrapper.exe" hook"#,
            r#"& "C:\Tools\helix-gate.exe" hook; evil"#,
            r#"&& "C:\Tools\helix-gate.exe" hook"#,
        ] {
            assert!(parse_hook_command_on(foreign, true).is_none(), "{foreign}");
        }
    }

    #[test]
    fn recognises_our_entries_only() {
        let entry = |command: &str| json!({"type": "command", "command": command});
        assert!(is_ours(&entry("helix-gate hook")));
        assert!(is_ours(&entry("\"/opt/x/helix-gate\" hook")));
        assert!(is_ours(&entry("helix-gate hook --scope user")));
        assert!(is_ours(&entry("\"/opt/x/helix-gate\" hook --scope user")));
        let marked =
            json!({"type": "command", "command": "/x/y hook", "statusMessage": STATUS_MARKER});
        assert!(is_ours(&marked));
        for foreign in [
            "./lint.sh",
            "helix-gate validate",
            "my-helix-gate-wrapper.sh hook",
            "\"/opt/helix-gate-tools/lint\" hook",
            "\"relative/helix-gate\" hook",
            "helix-gate hook --other",
            "helix-gate hook --scope user; ./evil.sh",
            "helix-gate hook --scope",
            "true",
            "${CLAUDE_PLUGIN_ROOT}/hooks/helix-gate.sh hook",
            " helix-gate hook",
        ] {
            assert!(!is_ours(&entry(foreign)), "{foreign}");
        }
        assert!(!is_ours(
            &json!({"command": "x", "statusMessage": "helix-gate"})
        ));
    }
}
