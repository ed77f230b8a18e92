//! Register the hook for Gemini CLI (`helix-gate install gemini`), in
//! `<repo>/.gemini/settings.json` (project) or `~/.gemini/settings.json` (user;
//! `$GEMINI_CLI_HOME/.gemini/settings.json` when that is set).
//!
//! Gemini's settings file holds all of Gemini's settings; its `hooks` object
//! has Claude Code's layout (`{"<Event>": [{"matcher", "hooks": [{"type":
//! "command", "command", "timeout"}]}]}`) with Gemini's event names and
//! `timeout` in **milliseconds** (default 60 000). So the merge is
//! `hooks_file::merge_into`'s: only helix-gate's entries (known by their command)
//! are replaced, every other key and hook is kept, a file that is not a JSON
//! object (Gemini also accepts comments: such a file is refused too) is refused
//! untouched, and installing twice changes nothing.
//!
//! Gemini CLI 0.61.0 loads the project file only from the folder it was started
//! in (no walk up to the repository root), and only when that folder is trusted
//! (folder trust, on by default: `~/.gemini/trustedFolders.json`, the prompt at
//! startup, or `GEMINI_CLI_TRUST_WORKSPACE=true`); in a trusted folder the hooks
//! run without a further review.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::agent::event::EventKind;
use crate::agent::hooks_file::{self, Area};
use crate::agent::name::Agent;

/// The project settings file, relative to the folder Gemini is started in.
pub const PROJECT_SETTINGS: &str = ".gemini/settings.json";

/// Where the hook is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `<repo>/.gemini/settings.json`: sessions started at the repository root.
    Project,
    /// `~/.gemini/settings.json`: every Gemini session on the machine; the
    /// command carries `--scope user`, so only repositories that opted in are checked.
    User,
}

/// Gemini's tools helix-gate looks at: its two editing tools and its shell
/// (a regular expression, as Gemini matches tool names).
pub const TOOL_MATCHER: &str = "write_file|replace|run_shell_command";

/// The tools a Gemini entry of `kind` fires for: [`TOOL_MATCHER`] around a
/// tool call. Gemini fires `AfterTool` also after a failed tool: there is no
/// `PostToolUseFailure`. (Timeouts are seconds in the table, written in
/// milliseconds.)
pub(super) fn matcher(kind: EventKind) -> Option<&'static str> {
    matches!(kind, EventKind::PreToolUse | EventKind::PostToolUse).then_some(TOOL_MATCHER)
}

/// The `name` of helix-gate's hook entries (Gemini shows it in `/hooks`).
pub const HOOK_NAME: &str = "helix-gate";

/// Gemini's home folder: `$GEMINI_CLI_HOME`, else `HOME`.
pub fn gemini_home() -> anyhow::Result<PathBuf> {
    if let Some(dir) = crate::env::var(crate::env::GEMINI_CLI_HOME) {
        return Ok(crate::paths::absolute(Path::new(&dir)));
    }
    hooks_file::home()
}

/// The settings file of `scope`.
pub fn settings_path(root: &Path, scope: Scope) -> anyhow::Result<PathBuf> {
    Ok(match scope {
        Scope::Project => root.join(PROJECT_SETTINGS),
        Scope::User => gemini_home()?.join(".gemini/settings.json"),
    })
}

/// Gemini's list of trusted folders.
pub fn trusted_folders_path() -> anyhow::Result<PathBuf> {
    Ok(gemini_home()?.join(".gemini/trustedFolders.json"))
}

fn allowed_area(root: &Path, scope: Scope) -> anyhow::Result<Area> {
    Ok(match scope {
        Scope::Project => Area {
            dir: root.to_path_buf(),
            name: "the project",
        },
        Scope::User => Area {
            dir: gemini_home()?,
            name: "Gemini's home folder (GEMINI_CLI_HOME, default your home directory)",
        },
    })
}

/// The command Gemini runs: the Claude Code command with `--agent gemini` (and
/// `--scope user` at user scope).
pub fn hook_command(scope: Scope) -> String {
    hooks_file::agent_hook_command(Agent::Gemini, scope == Scope::User)
}

/// Whether a Gemini settings file registers helix-gate's Gemini hook.
pub fn registers_hook(settings: &Value) -> bool {
    hooks_file::registers_hook_for(settings, |agent| agent == Some("gemini"))
}

/// The hook groups for Gemini: `timeout` in milliseconds, a `name`, and
/// [`hooks_file::STATUS_MARKER`] as `description` (Gemini has no `statusMessage`),
/// which marks the entry as ours.
fn hook_groups(
    command: &str,
    prompt_context: bool,
    stop_timeout_s: u64,
) -> Vec<(&'static str, Value)> {
    hooks_file::entries(
        super::wire::event_name,
        matcher,
        prompt_context,
        stop_timeout_s,
    )
    .iter()
    .map(|e| {
            let ms = e.timeout_s.saturating_mul(1000);
            let hook = json!({"name": HOOK_NAME, "type": "command", "command": command, "timeout": ms, "description": hooks_file::STATUS_MARKER});
            let group = match e.matcher {
                Some(matcher) => json!({"matcher": matcher, "hooks": [hook]}),
                None => json!({"hooks": [hook]}),
            };
            (e.event, group)
        })
        .collect()
}

/// Register the hook in the settings file of `scope`, `AfterAgent` with a
/// timeout of `stop_timeout_s` seconds; returns the file and the events written.
pub fn install(
    root: &Path,
    scope: Scope,
    stop_timeout_s: u64,
) -> anyhow::Result<(PathBuf, Vec<&'static str>)> {
    let path = settings_path(root, scope)?;
    let prompt_context = hooks_file::prompt_context(
        root,
        match scope {
            Scope::Project => hooks_file::Scope::Project,
            Scope::User => hooks_file::Scope::User,
        },
    )?;
    let groups = hook_groups(&hook_command(scope), prompt_context, stop_timeout_s);
    let events = groups.iter().map(|(event, _)| *event).collect();
    hooks_file::merge_into(&allowed_area(root, scope)?, &path, groups)?;
    Ok((path, events))
}

/// Remove helix-gate's entries from the settings file of `scope`.
pub fn uninstall(root: &Path, scope: Scope) -> anyhow::Result<(PathBuf, usize)> {
    let path = settings_path(root, scope)?;
    let removed = hooks_file::uninstall_from(&allowed_area(root, scope)?, &path)?;
    Ok((path, removed))
}

/// helix-gate's events registered in the settings file at `path`, and whether
/// their command carries `--scope user` (`None`: no such file or no entry;
/// `Err`: unreadable).
pub fn registered_events(path: &Path) -> Result<Option<(Vec<String>, bool)>, String> {
    if !path.exists() {
        return Ok(None);
    }
    let settings = hooks_file::read_settings(path).map_err(|e| format!("{e:#}"))?;
    let Some(events) = settings.get("hooks").and_then(Value::as_object) else {
        return Ok(None);
    };
    let mut found = Vec::new();
    let mut user_scope = false;
    for (event, groups) in events {
        let ours: Vec<&Value> = groups
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter(|h| hooks_file::is_ours(h))
            .collect();
        if !ours.is_empty() {
            found.push(event.clone());
            user_scope |= ours.iter().any(|h| {
                h.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|c| c.ends_with(hooks_file::USER_SCOPE_FLAG))
            });
        }
    }
    Ok((!found.is_empty()).then_some((found, user_scope)))
}

/// helix-gate's `AfterAgent` hooks' timeouts in the project and user settings,
/// as (file, whole seconds), for the Stop deadline.
pub fn installed_stop_timeouts(root: &Path) -> Vec<(PathBuf, u64)> {
    let mut found = Vec::new();
    for scope in [Scope::Project, Scope::User] {
        let Ok(path) = settings_path(root, scope) else {
            continue;
        };
        let Ok(file) = hooks_file::read_settings(&path) else {
            continue;
        };
        let stops = file
            .get("hooks")
            .and_then(|h| h.get("AfterAgent"))
            .and_then(Value::as_array);
        for group in stops.into_iter().flatten() {
            let hooks = group.get("hooks").and_then(Value::as_array);
            for hook in hooks
                .into_iter()
                .flatten()
                .filter(|h| hooks_file::is_ours(h))
            {
                if let Some(ms) = hook.get("timeout").and_then(Value::as_u64) {
                    found.push((path.clone(), ms / 1000));
                }
            }
        }
    }
    found
}

/// Whether Gemini CLI trusts the folder `dir` (so it loads its
/// `.gemini/settings.json`), as far as the environment and
/// `trustedFolders.json` say: `None` when neither decides (Gemini then asks at
/// startup in its interactive mode).
pub fn folder_trusted(dir: &Path) -> Option<bool> {
    match crate::env::var(crate::env::GEMINI_CLI_TRUST_WORKSPACE).as_deref() {
        Some("true") => return Some(true),
        Some("false") => return Some(false),
        _ => {}
    }
    let path = trusted_folders_path().ok()?;
    let text = crate::fs::read::optional_text(&path, crate::fs::read::CONFIG_LIMIT)
        .ok()
        .flatten()?;
    let folders: serde_json::Map<String, Value> = serde_json::from_str(&text).ok()?;
    // The most specific rule that covers `dir` decides.
    folders
        .iter()
        .filter_map(|(folder, level)| {
            let folder = Path::new(folder);
            let (scope, trusted) = match level.as_str()? {
                "TRUST_FOLDER" => (folder, true),
                "TRUST_PARENT" => (folder.parent()?, true),
                "DO_NOT_TRUST" => (folder, false),
                _ => return None,
            };
            dir.starts_with(scope)
                .then(|| (scope.components().count(), trusted))
        })
        .max_by_key(|(depth, _)| *depth)
        .map(|(_, trusted)| trusted)
}

/// Whether the `.gemini/settings.json` of the folder Gemini was started in
/// (the only one it loads) registers the hook.
pub(super) fn registered_in_project(project_dir: &Path) -> bool {
    hooks_file::file_registers(&project_dir.join(PROJECT_SETTINGS), registers_hook)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_merges_in_milliseconds_and_uninstall_removes_only_ours() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".gemini")).unwrap();
        let foreign = json!({
            "general": {"vimMode": true},
            "hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": "./mine.sh", "timeout": 5000}]}]}
        });
        std::fs::write(root.join(PROJECT_SETTINGS), foreign.to_string()).unwrap();
        let (_, events) = install(root, Scope::Project, 90).unwrap();
        let once = std::fs::read_to_string(root.join(PROJECT_SETTINGS)).unwrap();
        install(root, Scope::Project, 90).unwrap();
        assert_eq!(
            std::fs::read_to_string(root.join(PROJECT_SETTINGS)).unwrap(),
            once,
            "idempotent"
        );
        assert_eq!(
            events,
            ["BeforeTool", "AfterTool", "AfterAgent", "SessionStart"]
        );
        let file: Value = serde_json::from_str(&once).unwrap();
        assert_eq!(file["general"]["vimMode"], true);
        assert_eq!(
            file["hooks"]["AfterAgent"][0]["hooks"][0]["command"],
            "./mine.sh"
        );
        let ours = &file["hooks"]["AfterAgent"][1]["hooks"][0];
        assert_eq!(
            (ours["timeout"].as_u64(), ours["name"].as_str()),
            (Some(90_000), Some(HOOK_NAME))
        );
        assert!(
            ours["command"]
                .as_str()
                .unwrap()
                .ends_with(" hook --agent gemini")
        );
        assert_eq!(file["hooks"]["BeforeTool"][0]["matcher"], TOOL_MATCHER);
        assert_eq!(
            file["hooks"]["BeforeTool"][0]["hooks"][0]["timeout"],
            10_000
        );
        let entry = |command: &str| json!({"hooks": {"AfterAgent": [{"hooks": [{"type": "command", "command": command}]}]}});
        assert!(registers_hook(&entry(
            "helix-gate hook --agent gemini --scope user"
        )));
        assert!(!registers_hook(&entry("helix-gate hook --agent codex")));
        assert!(!crate::agent::claude::hooks::registers_hook(&entry(
            "helix-gate hook --agent gemini"
        )));
        assert_eq!(installed_stop_timeouts(root)[0].1, 90);
        assert_eq!(
            registered_events(&root.join(PROJECT_SETTINGS))
                .unwrap()
                .unwrap()
                .0
                .len(),
            4
        );
        let (_, removed) = uninstall(root, Scope::Project).unwrap();
        assert_eq!(removed, 4);
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(PROJECT_SETTINGS)).unwrap())
                .unwrap();
        assert_eq!(file, foreign);
    }

    #[test]
    fn a_malformed_settings_file_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".gemini")).unwrap();
        for bad in [
            "{ nope",
            "[1]",
            "// a comment Gemini would accept\n{}",
            r#"{"hooks": []}"#,
            r#"{"hooks": {"AfterAgent": {}}}"#,
        ] {
            std::fs::write(root.join(PROJECT_SETTINGS), bad).unwrap();
            assert!(install(root, Scope::Project, 90).is_err(), "{bad}");
            assert_eq!(
                std::fs::read_to_string(root.join(PROJECT_SETTINGS)).unwrap(),
                bad
            );
        }
    }
}
