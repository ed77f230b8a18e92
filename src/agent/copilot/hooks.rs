//! Register the hook for GitHub Copilot CLI (`helix-gate install copilot`), in
//! helix-gate's own hooks file: `<repo>/.github/hooks/helix-gate.json`
//! (project) or `$COPILOT_HOME/hooks/helix-gate.json` (user, default
//! `~/.copilot/hooks/`).
//!
//! Copilot loads every `*.json` there: `{"version": 1, "hooks": {"<Event>":
//! [{"type": "command", "bash": "...", "timeoutSec": N}]}}`, the entries listed
//! directly under the event (no matcher groups), `timeoutSec` in seconds.
//! helix-gate registers the Pascal-case event names, for which Copilot sends
//! Claude Code's payload shape ([`crate::hook::Agent::Copilot`]). The file is
//! helix-gate's, but merged all the same: other keys and entries are kept, a
//! file that is not a JSON object, or whose `version` is not 1, is refused
//! untouched, installing twice changes nothing; uninstall removes the file
//! once nothing else is left in it. Entries are known as ours by their
//! `comment` ([`hooks_file::STATUS_MARKER`]) or their command.
//!
//! Copilot 1.0.102 loads a repository's hooks in `copilot -p` only when the
//! folder is trusted or `GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true`;
//! interactively, once the person trusted the folder.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use serde_json::{Map, Value, json};

use crate::agent::hooks_file::{self, Area, Shell};
use crate::agent::name::Agent;

/// The project hooks file, relative to the repository root.
pub const PROJECT_HOOKS: &str = ".github/hooks/helix-gate.json";
/// The folder of project hooks files.
pub const PROJECT_HOOKS_DIR: &str = ".github/hooks";

/// Where the hook is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Project,
    /// Every Copilot session on the machine; `--scope user` in the command.
    User,
}

/// Copilot's folder of user configuration: `$COPILOT_HOME`, else `~/.copilot`.
pub fn copilot_home() -> anyhow::Result<PathBuf> {
    hooks_file::agent_home(crate::env::COPILOT_HOME, ".copilot")
}

/// The hooks file of `scope`.
pub fn hooks_path(root: &Path, scope: Scope) -> anyhow::Result<PathBuf> {
    Ok(match scope {
        Scope::Project => root.join(PROJECT_HOOKS),
        Scope::User => copilot_home()?.join("hooks/helix-gate.json"),
    })
}

fn allowed_area(root: &Path, scope: Scope) -> anyhow::Result<Area> {
    Ok(match scope {
        Scope::Project => Area {
            dir: root.to_path_buf(),
            name: "the project",
        },
        Scope::User => Area {
            dir: copilot_home()?,
            name: "Copilot's home folder (COPILOT_HOME, default ~/.copilot)",
        },
    })
}

/// The command Copilot runs with `bash` (Linux, macOS): the Claude Code command
/// with `--agent copilot`.
pub fn hook_command(scope: Scope) -> String {
    hooks_file::agent_hook_command_in(Agent::Copilot, scope == Scope::User, Shell::Posix)
}

/// The command Copilot runs with PowerShell on Windows: the same, a full path
/// behind PowerShell's call operator (`& "C:\...\helix-gate.exe" hook ...`).
pub fn powershell_command(scope: Scope) -> String {
    hooks_file::agent_hook_command_in(Agent::Copilot, scope == Scope::User, Shell::PowerShell)
}

/// The key of an entry's command that Copilot runs on Windows (`windows`) or
/// elsewhere: `powershell` or `bash` (Copilot 1.0.102 refuses an entry with
/// neither: "Neither 'bash' nor 'powershell' specified in hook command configuration").
pub fn command_key(windows: bool) -> &'static str {
    if windows { "powershell" } else { "bash" }
}

/// Whether an entry of a Copilot hooks file is one of ours.
fn is_ours(entry: &Value) -> bool {
    entry.get("comment").and_then(Value::as_str) == Some(hooks_file::STATUS_MARKER)
        || ["bash", "powershell"].iter().any(|key| {
            entry
                .get(*key)
                .and_then(Value::as_str)
                .is_some_and(hooks_file::is_hook_command)
        })
}

/// Whether a Copilot hooks file registers helix-gate's Copilot hook: an entry
/// whose command for this platform ([`command_key`]) is helix-gate's with
/// `--agent copilot`.
pub fn registers_hook(file: &Value) -> bool {
    registers_hook_on(file, crate::paths::WINDOWS)
}

/// [`registers_hook`] for the platform `windows` says.
pub fn registers_hook_on(file: &Value, windows: bool) -> bool {
    entries(file).any(|(_, entry)| {
        entry.get("type").and_then(Value::as_str) == Some("command")
            && entry
                .get(command_key(windows))
                .and_then(Value::as_str)
                .and_then(|c| hooks_file::parse_hook_command_on(c, windows))
                .is_some_and(|c| c.agent == Some("copilot"))
    })
}

/// Every (event, entry) of a hooks file.
fn entries(file: &Value) -> impl Iterator<Item = (&String, &Value)> {
    file.get("hooks")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .flat_map(|(event, list)| {
            list.as_array()
                .into_iter()
                .flatten()
                .map(move |entry| (event, entry))
        })
}

/// The file at `path` with `ours` (event, entry) in place of helix-gate's
/// entries; refused when it is not Copilot's format.
fn merged(path: &Path, ours: Vec<(&'static str, Value)>) -> anyhow::Result<Map<String, Value>> {
    let mut file = hooks_file::read_settings(path)?;
    match file.get("version") {
        None => {
            file.insert("version".into(), Value::from(1));
        }
        Some(v) if v.as_u64() == Some(1) => {}
        Some(v) => bail!(
            "{} has \"version\": {v}, not 1; refusing to change it",
            path.display()
        ),
    }
    let hooks = file
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(hooks) = hooks.as_object_mut() else {
        bail!(
            "`hooks` in {} is not an object; refusing to change it",
            path.display()
        );
    };
    if let Some((event, _)) = hooks.iter().find(|(_, list)| !list.is_array()) {
        bail!(
            "`hooks.{event}` in {} is not a list; refusing to change it",
            path.display()
        );
    }
    for list in hooks.values_mut() {
        if let Some(list) = list.as_array_mut() {
            list.retain(|entry| !is_ours(entry));
        }
    }
    hooks.retain(|_, list| list.as_array().is_none_or(|l| !l.is_empty()));
    for (event, entry) in ours {
        if let Some(list) = hooks
            .entry(event)
            .or_insert_with(|| Value::Array(Vec::new()))
            .as_array_mut()
        {
            list.push(entry);
        }
    }
    Ok(file)
}

/// Register the hook in the hooks file of `scope`, `Stop` with a timeout of
/// `stop_timeout_s`; returns the file and the events written.
pub fn install(
    root: &Path,
    scope: Scope,
    stop_timeout_s: u64,
) -> anyhow::Result<(PathBuf, Vec<&'static str>)> {
    let path = hooks_path(root, scope)?;
    let area = allowed_area(root, scope)?;
    if scope == Scope::User {
        // Copilot's home folder exists only once Copilot ran; it is the place to write.
        std::fs::create_dir_all(&area.dir)
            .with_context(|| format!("cannot create {}", area.dir.display()))?;
    }
    area.check(&path, crate::fs::confine::resolve(&area.dir, &path))?;
    let prompt_context = hooks_file::prompt_context(
        root,
        match scope {
            Scope::Project => hooks_file::Scope::Project,
            Scope::User => hooks_file::Scope::User,
        },
    )?;
    let command = hook_command(scope);
    let powershell = powershell_command(scope);
    // No matcher: Copilot runs tool hooks for every tool; the hook settles
    // the others at once. Both commands on every platform: a project's file
    // serves teammates on Linux, macOS (`bash`) and Windows (`powershell`).
    let ours: Vec<(&'static str, Value)> = hooks_file::entries(
        super::wire::event_name,
        |_| None,
        prompt_context,
        stop_timeout_s,
    )
    .iter()
    .map(|e| {
            let timeout = e.timeout_s;
            (
                e.event,
                json!({"type": "command", "bash": command, "powershell": powershell, "timeoutSec": timeout, "comment": hooks_file::STATUS_MARKER}),
            )
        })
        .collect();
    let events = ours.iter().map(|(event, _)| *event).collect();
    let file = merged(&path, ours)?;
    hooks_file::write_settings(&area, &path, &file)?;
    Ok((path, events))
}

/// Remove helix-gate's entries from the hooks file of `scope` (the file itself
/// when nothing else is left in it).
pub fn uninstall(root: &Path, scope: Scope) -> anyhow::Result<(PathBuf, usize)> {
    let path = hooks_path(root, scope)?;
    if !path.exists() {
        return Ok((path, 0));
    }
    let area = allowed_area(root, scope)?;
    area.check(&path, crate::fs::confine::resolve(&area.dir, &path))?;
    let before = hooks_file::read_settings(&path)?;
    let removed = entries(&Value::Object(before.clone()))
        .filter(|(_, entry)| is_ours(entry))
        .count();
    if removed == 0 {
        return Ok((path, 0));
    }
    let file = merged(&path, Vec::new())?;
    let empty = file
        .get("hooks")
        .and_then(Value::as_object)
        .is_none_or(Map::is_empty)
        && file.keys().all(|k| k == "version" || k == "hooks");
    if empty {
        area.check(&path, std::fs::remove_file(&path))?;
    } else {
        hooks_file::write_settings(&area, &path, &file)?;
    }
    Ok((path, removed))
}

/// helix-gate's events in the hooks file at `path` and whether their command
/// carries `--scope user` (`None`: no file or no entry; `Err`: unreadable).
pub fn registered_events(path: &Path) -> Result<Option<(Vec<String>, bool)>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let file = Value::Object(hooks_file::read_settings(path).map_err(|e| format!("{e:#}"))?);
    let mut events: Vec<String> = Vec::new();
    let mut user_scope = false;
    for (event, entry) in entries(&file).filter(|(_, entry)| is_ours(entry)) {
        if !events.contains(event) {
            events.push(event.clone());
        }
        user_scope |= entry
            .get(command_key(crate::paths::WINDOWS))
            .and_then(Value::as_str)
            .is_some_and(|c| c.ends_with(hooks_file::USER_SCOPE_FLAG));
    }
    Ok((!events.is_empty()).then_some((events, user_scope)))
}

/// helix-gate's `Stop` timeouts in the project and user hooks files, for the
/// Stop deadline.
pub fn installed_stop_timeouts(root: &Path) -> Vec<(PathBuf, u64)> {
    let mut found = Vec::new();
    for scope in [Scope::Project, Scope::User] {
        let Ok(path) = hooks_path(root, scope) else {
            continue;
        };
        let Ok(file) = hooks_file::read_settings(&path) else {
            continue;
        };
        let file = Value::Object(file);
        for (event, entry) in entries(&file) {
            if event == "Stop"
                && is_ours(entry)
                && let Some(seconds) = entry.get("timeoutSec").and_then(Value::as_u64)
            {
                found.push((path.clone(), seconds));
            }
        }
    }
    found
}

/// Whether any `.github/hooks/*.json` of the repository (Copilot loads
/// every one) registers the hook.
pub(super) fn registered_in_project(root: &Path) -> bool {
    std::fs::read_dir(root.join(PROJECT_HOOKS_DIR))
        .into_iter()
        .flatten()
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .any(|path| hooks_file::file_registers(&path, registers_hook))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_merges_and_uninstall_removes_only_ours_then_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let (path, events) = install(root, Scope::Project, 90).unwrap();
        assert_eq!(
            events,
            [
                "PreToolUse",
                "PostToolUse",
                "PostToolUseFailure",
                "Stop",
                "SessionStart"
            ]
        );
        let once = std::fs::read_to_string(&path).unwrap();
        install(root, Scope::Project, 90).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), once, "idempotent");
        let file: Value = serde_json::from_str(&once).unwrap();
        assert_eq!(file["version"], 1);
        let stop = &file["hooks"]["Stop"][0];
        assert_eq!(
            (stop["timeoutSec"].as_u64(), stop["type"].as_str()),
            (Some(90), Some("command"))
        );
        assert!(
            stop["bash"]
                .as_str()
                .unwrap()
                .ends_with(" hook --agent copilot")
        );
        // PowerShell's command for Windows beside it, the same binary behind `&`
        // when it is a path.
        let (bash, powershell) = (
            stop["bash"].as_str().unwrap(),
            stop["powershell"].as_str().unwrap(),
        );
        assert!(
            powershell == bash || powershell == format!("& {bash}"),
            "{powershell}"
        );
        // Copilot on Windows runs `powershell`, elsewhere `bash`.
        let exe = r"C:\Tools\helix-gate.exe";
        let windows_file = json!({"version": 1, "hooks": {"Stop": [{"type": "command",
            "bash": format!("{} --agent copilot", hooks_file::command_text(Some(exe), Shell::Posix)),
            "powershell": format!("{} --agent copilot", hooks_file::command_text(Some(exe), Shell::PowerShell))}]}});
        assert!(registers_hook_on(&windows_file, true));
        let mut bash_only = windows_file.clone();
        bash_only["hooks"]["Stop"][0]
            .as_object_mut()
            .unwrap()
            .remove("powershell");
        assert!(
            !registers_hook_on(&bash_only, true),
            "without `powershell` Copilot on Windows runs nothing"
        );
        assert_eq!(installed_stop_timeouts(root), [(path.clone(), 90)]);
        assert_eq!(registered_events(&path).unwrap().unwrap().0.len(), 5);
        // Someone else's entry in the same file is kept.
        let mut with_foreign = file.clone();
        with_foreign["hooks"]["Stop"]
            .as_array_mut()
            .unwrap()
            .push(json!({"type": "command", "bash": "./mine.sh"}));
        std::fs::write(&path, with_foreign.to_string()).unwrap();
        let (_, removed) = uninstall(root, Scope::Project).unwrap();
        assert_eq!(removed, 5);
        let left: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            left,
            json!({"version": 1, "hooks": {"Stop": [{"type": "command", "bash": "./mine.sh"}]}})
        );
        std::fs::write(&path, "").unwrap();
        install(root, Scope::Project, 90).unwrap();
        uninstall(root, Scope::Project).unwrap();
        assert!(!path.exists(), "nothing else was in it");
    }

    #[test]
    fn a_malformed_or_foreign_version_file_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(PROJECT_HOOKS_DIR)).unwrap();
        for bad in [
            "{ nope",
            "[1]",
            r#"{"version": 2, "hooks": {}}"#,
            r#"{"version": 1, "hooks": []}"#,
            r#"{"version": 1, "hooks": {"Stop": {}}}"#,
        ] {
            std::fs::write(root.join(PROJECT_HOOKS), bad).unwrap();
            assert!(install(root, Scope::Project, 90).is_err(), "{bad}");
            assert_eq!(
                std::fs::read_to_string(root.join(PROJECT_HOOKS)).unwrap(),
                bad
            );
        }
    }

    #[test]
    fn only_a_copilot_hook_command_registers_for_copilot() {
        // The command under both keys, as install writes it: Copilot runs one per platform.
        let file = |command: &str| json!({"version": 1, "hooks": {"Stop": [{"type": "command", "bash": command, "powershell": command}]}});
        assert!(registers_hook(&file("helix-gate hook --agent copilot")));
        assert!(registers_hook(&file(
            "\"/opt/bin/helix-gate\" hook --agent copilot --scope user"
        )));
        assert!(!registers_hook(&file("helix-gate hook")));
        assert!(!registers_hook(&file(
            "helix-gate hook --agent copilot; true"
        )));
    }
}
