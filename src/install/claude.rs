//! Register the hook in Claude Code settings, merging with whatever is there.
//!
//! Every other key and hook is preserved (key order too); a settings file that
//! is not valid JSON is refused, never overwritten.
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
//! for user settings (`~/.claude`, a dotfiles checkout). A link elsewhere is
//! refused, with the reason.

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, bail};
use serde_json::{Map, Value, json};

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

/// Our Stop hooks' `timeout`s in the project, local and user settings files,
/// as (file, seconds). Files that cannot be read and entries without a
/// timeout are left out: this is for the hook's deadline and for `doctor`,
/// never a reason to fail.
pub fn installed_stop_timeouts(root: &Path) -> Vec<(PathBuf, u64)> {
    let mut found = Vec::new();
    for scope in [Scope::Project, Scope::Local, Scope::User] {
        if let Ok(path) = settings_path(root, scope) {
            found.extend(stop_timeouts_in(&path, is_ours));
        }
    }
    found
}

/// The Stop hooks' `timeout`s in a plugin's `hooks/hooks.json` (every Stop
/// entry there: the plugin folder is helix-gate's own when the hook runs as
/// its plugin hook), as (file, seconds).
pub fn plugin_stop_timeouts(plugin_root: &Path) -> Vec<(PathBuf, u64)> {
    stop_timeouts_in(&plugin_root.join("hooks/hooks.json"), |_| true)
}

/// The `timeout`s of the Stop hook entries in the settings file `path` that
/// `pick` accepts.
fn stop_timeouts_in(path: &Path, pick: fn(&Value) -> bool) -> Vec<(PathBuf, u64)> {
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

/// The settings file for a scope.
/// Which Claude Code settings file: project (.claude/settings.json), local
/// (.claude/settings.local.json) or user (~/.claude/settings.json).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Project,
    Local,
    User,
}

pub fn settings_path(root: &Path, scope: Scope) -> anyhow::Result<PathBuf> {
    Ok(match scope {
        Scope::Project => root.join(".claude/settings.json"),
        Scope::Local => root.join(".claude/settings.local.json"),
        Scope::User => home()?.join(".claude/settings.json"),
    })
}

pub(super) fn home() -> anyhow::Result<PathBuf> {
    let home = crate::env::var(crate::env::HOME)
        .context("HOME is not set; cannot find ~/.claude/settings.json")?;
    Ok(PathBuf::from(home))
}

/// An agent's folder of user configuration: the environment variable `var` when
/// set (`CODEX_HOME`, `COPILOT_HOME`), else `folder` in the home directory.
pub(super) fn agent_home(var: &str, folder: &str) -> anyhow::Result<PathBuf> {
    match crate::env::var(var) {
        Some(dir) => Ok(crate::paths::absolute(Path::new(&dir))),
        None => Ok(home()?.join(folder)),
    }
}

/// The folder the settings file of `scope`, and the file a symbolic link there
/// points to, must stay in: the project, or the home directory for user settings.
fn allowed_area(root: &Path, scope: Scope) -> anyhow::Result<Area> {
    Ok(match scope {
        Scope::Project | Scope::Local => Area {
            dir: root.to_path_buf(),
            name: "the project",
        },
        Scope::User => Area {
            dir: home()?,
            name: "your home directory",
        },
    })
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
    pub(super) fn check<T>(&self, path: &Path, result: std::io::Result<T>) -> anyhow::Result<T> {
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
/// (quoted). The command text appears in the feedback the model reads, so short is better.
pub fn hook_command() -> String {
    let exe = std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok());
    let on_path = std::env::var_os(crate::env::PATH).and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("helix-gate"))
            .find(|candidate| candidate.is_file())
            .and_then(|p| p.canonicalize().ok())
    });
    match exe {
        Some(exe) if on_path.as_ref() != Some(&exe) => format!("\"{}\" hook", exe.display()),
        _ => "helix-gate hook".to_owned(),
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

/// The agents and scopes a hook command may name (`helix-gate hook --help`).
const AGENTS: [&str; 4] = ["claude", "codex", "gemini", "copilot"];
const SCOPES: [&str; 3] = ["project", "local", "user"];

/// `command` taken apart when it runs helix-gate's hook in the forms
/// [`hook_command`] and the installers write: `helix-gate hook`, or
/// `"<absolute path to helix-gate>" hook`, each optionally followed by
/// ` --agent claude|codex|gemini|copilot` and then ` --scope project|local|user`. Exact: a
/// wrapper script, another subcommand, other arguments or a relative path are
/// not helix-gate's hook.
pub fn parse_hook_command(command: &str) -> Option<HookCommand<'_>> {
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
    let (command, agent) = strip(command, " --agent ", &AGENTS);
    let parsed = HookCommand { agent, scope };
    if command == "helix-gate hook" {
        return Some(parsed);
    }
    let exe = command
        .strip_suffix(" hook")
        .and_then(|c| c.strip_prefix('"'))
        .and_then(|c| c.strip_suffix('"'))?;
    let exe = Path::new(exe);
    (!exe.as_os_str().to_string_lossy().contains('"')
        && exe.is_absolute()
        && exe
            .file_name()
            .is_some_and(|n| n == "helix-gate" || n == "helix-gate.exe"))
    .then_some(parsed)
}

/// Whether `command` runs helix-gate's hook ([`parse_hook_command`]), for any agent.
pub fn is_hook_command(command: &str) -> bool {
    parse_hook_command(command).is_some()
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

/// Whether the Claude Code settings `settings` register helix-gate's Claude
/// Code hook for any event: a command hook entry (`hooks.<event>[].hooks[]`)
/// whose `command` is [`parse_hook_command`] without `--agent` or with
/// `--agent claude`. A marker text or a look-alike entry is not enough.
pub fn registers_hook(settings: &Value) -> bool {
    registers_hook_for(settings, |agent| matches!(agent, None | Some("claude")))
}

pub(super) fn read_settings(path: &Path) -> anyhow::Result<Map<String, Value>> {
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

pub(super) fn write_settings(
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
pub(super) fn remove_ours(hooks: &mut Map<String, Value>) -> usize {
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

/// One event helix-gate registers: the one list `install claude` writes and
/// the plugin's `hooks/hooks.json` carries (a test holds them equal).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookEntry {
    pub event: &'static str,
    /// The tools the entry fires for (`None`: every occurrence of the event).
    pub matcher: Option<&'static str>,
    /// Seconds; `None` for Stop, whose timeout follows the reviews.
    pub timeout_s: Option<u64>,
    /// Only with `hook.prompt_context` (the summary before every prompt).
    pub prompt_context_only: bool,
}

/// The tools whose use helix-gate looks at: the write tools for the checks on
/// save, Bash because a shell command can write, move or delete an ADR or
/// helix-gate's own files just as well.
pub const TOOL_MATCHER: &str = "Write|Edit|MultiEdit|Bash";

/// Every hook helix-gate registers, in order.
pub const HOOK_ENTRIES: [HookEntry; 6] = [
    // Denies writes into helix-gate's own files before they happen.
    HookEntry {
        event: "PreToolUse",
        matcher: Some(TOOL_MATCHER),
        timeout_s: Some(10),
        prompt_context_only: false,
    },
    HookEntry {
        event: "PostToolUse",
        matcher: Some(TOOL_MATCHER),
        timeout_s: Some(30),
        prompt_context_only: false,
    },
    // A shell command that fails may have written files all the same.
    HookEntry {
        event: "PostToolUseFailure",
        matcher: Some("Bash"),
        timeout_s: Some(30),
        prompt_context_only: false,
    },
    HookEntry {
        event: "Stop",
        matcher: None,
        timeout_s: None,
        prompt_context_only: false,
    },
    HookEntry {
        event: "SessionStart",
        matcher: None,
        timeout_s: Some(10),
        prompt_context_only: false,
    },
    HookEntry {
        event: "UserPromptSubmit",
        matcher: None,
        timeout_s: Some(10),
        prompt_context_only: true,
    },
];

/// Our hook entries, by event.
pub fn our_hooks(
    command: &str,
    prompt_context: bool,
    stop_timeout_s: u64,
) -> Vec<(&'static str, Value)> {
    hook_groups(&HOOK_ENTRIES, command, prompt_context, stop_timeout_s)
}

/// The hook groups (event, group) for `entries`, each with one command hook
/// running `command` and marked with [`STATUS_MARKER`].
pub(crate) fn hook_groups(
    entries: &[HookEntry],
    command: &str,
    prompt_context: bool,
    stop_timeout_s: u64,
) -> Vec<(&'static str, Value)> {
    let hook = |timeout: u64| json!({"type": "command", "command": command, "timeout": timeout, "statusMessage": STATUS_MARKER});
    entries
        .iter()
        .filter(|e| prompt_context || !e.prompt_context_only)
        .map(|e| {
            let timeout = e.timeout_s.unwrap_or(stop_timeout_s);
            let group = match e.matcher {
                Some(matcher) => json!({"matcher": matcher, "hooks": [hook(timeout)]}),
                None => json!({"hooks": [hook(timeout)]}),
            };
            (e.event, group)
        })
        .collect()
}

/// Merge our hooks into the settings at `path`, which must stay inside `area`
/// (idempotent).
pub fn install_into(
    area: &Area,
    path: &Path,
    command: &str,
    prompt_context: bool,
    stop_timeout_s: u64,
) -> anyhow::Result<()> {
    merge_into(
        area,
        path,
        our_hooks(command, prompt_context, stop_timeout_s),
    )
    .map(drop)
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

/// Register the hook in the settings file of `scope`, Stop with a timeout of
/// `stop_timeout_s` ([`stop_timeout_s`]); returns that file.
/// At user scope the command carries [`USER_SCOPE_FLAG`]: registered for every
/// session on the machine, the hook answers only in repositories with helix-gate's
/// settings file.
pub fn install(root: &Path, scope: Scope, stop_timeout_s: u64) -> anyhow::Result<PathBuf> {
    let prompt_context = prompt_context(root, scope)?;
    let path = settings_path(root, scope)?;
    let mut command = hook_command();
    if scope == Scope::User {
        command.push_str(USER_SCOPE_FLAG);
    }
    install_into(
        &allowed_area(root, scope)?,
        &path,
        &command,
        prompt_context,
        stop_timeout_s,
    )?;
    Ok(path)
}

/// Whether [`install`] registers `UserPromptSubmit` (`hook.prompt_context`):
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

/// Remove helix-gate's hooks from the settings file of `scope`: that file and how many.
pub fn uninstall(root: &Path, scope: Scope) -> anyhow::Result<(PathBuf, usize)> {
    let path = settings_path(root, scope)?;
    let removed = uninstall_from(&allowed_area(root, scope)?, &path)?;
    Ok((path, removed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plugin_registers_the_same_events_as_install() {
        let plugin: Value = serde_json::from_str(include_str!("../../hooks/hooks.json")).unwrap();
        let plugin = plugin["hooks"].as_object().unwrap();
        let wanted: Vec<&HookEntry> = HOOK_ENTRIES
            .iter()
            .filter(|e| !e.prompt_context_only)
            .collect();
        assert_eq!(
            plugin.keys().map(String::as_str).collect::<Vec<_>>(),
            wanted.iter().map(|e| e.event).collect::<Vec<_>>()
        );
        for entry in wanted {
            let group = &plugin[entry.event][0];
            assert_eq!(group["matcher"].as_str(), entry.matcher, "{}", entry.event);
            let timeout = group["hooks"][0]["timeout"].as_u64();
            match entry.timeout_s {
                Some(t) => assert_eq!(timeout, Some(t), "{}", entry.event),
                None => assert!(timeout.is_some()),
            }
        }
    }

    #[test]
    fn merge_preserves_foreign_keys_and_hooks_and_is_idempotent() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude/settings.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let original = r#"{"model": "opus", "permissions": {"allow": ["Bash(ls)"]}, "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./lint.sh"}]}]}}"#;
        std::fs::write(&path, original).unwrap();
        install_into(&area(dir.path()), &path, "helix-gate hook", false, 360).unwrap();
        install_into(&area(dir.path()), &path, "helix-gate hook", false, 360).unwrap();
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "permissions", "hooks"]);
        let post = v["hooks"]["PostToolUse"].as_array().unwrap();
        assert_eq!(post.len(), 2, "{post:?}");
        assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], TOOL_MATCHER);
        assert_eq!(post[1]["matcher"], TOOL_MATCHER);
        assert_eq!(v["hooks"]["Stop"][0]["hooks"][0]["timeout"], 360);
        assert!(v["hooks"].get("UserPromptSubmit").is_none());
        assert_eq!(uninstall_from(&area(dir.path()), &path).unwrap(), 5);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(v, serde_json::from_str::<Value>(original).unwrap());
    }

    #[test]
    fn stop_timeout_follows_the_longest_review_and_is_found_again() {
        assert_eq!(stop_timeout_s(Some(Duration::from_secs(900))), 960);
        assert_eq!(stop_timeout_s(None), NO_REVIEW_STOP_TIMEOUT_S);
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".claude/settings.local.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./mine.sh", "timeout": 5}]}]}}"#,
        )
        .unwrap();
        install_into(&area(dir.path()), &path, "helix-gate hook", false, 960).unwrap();
        let found: Vec<_> = installed_stop_timeouts(dir.path())
            .into_iter()
            .filter(|(p, _)| p.starts_with(dir.path()))
            .collect();
        assert_eq!(found, [(path, 960)], "only our entry counts");
        // The plugin form: this repository's own hooks/hooks.json.
        let plugin = Path::new(env!("CARGO_MANIFEST_DIR"));
        assert_eq!(
            plugin_stop_timeouts(plugin),
            [(plugin.join("hooks/hooks.json"), 360)]
        );
    }

    #[test]
    fn invalid_settings_are_refused_and_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(&path, "{ not json").unwrap();
        let err =
            install_into(&area(dir.path()), &path, "helix-gate hook", false, 300).unwrap_err();
        assert!(err.to_string().contains("not valid JSON"), "{err}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{ not json");
        std::fs::write(&path, "[1]").unwrap();
        assert!(install_into(&area(dir.path()), &path, "helix-gate hook", false, 300).is_err());
    }

    fn area(dir: &Path) -> Area {
        Area {
            dir: dir.to_path_buf(),
            name: "the project",
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
