//! Claude Code's registration: `.claude/settings.json` (project),
//! `.claude/settings.local.json` (local) or `~/.claude/settings.json` (user),
//! in the shared shape of a hooks file (`crate::agent::hooks_file`), and the
//! plugin's `hooks/hooks.json`.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::event::EventKind;
use crate::agent::hooks_file::{
    self, Area, Scope, agent_hook_command, entries, home, hook_groups, is_ours, merge_into,
    prompt_context, registers_hook_for, stop_timeouts_in, uninstall_from,
};
use crate::agent::name::Agent;

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

pub fn settings_path(root: &Path, scope: Scope) -> anyhow::Result<PathBuf> {
    Ok(match scope {
        Scope::Project => root.join(".claude/settings.json"),
        Scope::Local => root.join(".claude/settings.local.json"),
        Scope::User => home()?.join(".claude/settings.json"),
    })
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

/// Whether the Claude Code settings `settings` register helix-gate's Claude
/// Code hook for any event: a command hook entry (`hooks.<event>[].hooks[]`)
/// whose `command` is [`parse_hook_command`](crate::agent::hooks_file::parse_hook_command) without `--agent` or with
/// `--agent claude`. A marker text or a look-alike entry is not enough.
pub fn registers_hook(settings: &Value) -> bool {
    registers_hook_for(settings, |agent| matches!(agent, None | Some("claude")))
}

/// The tools whose use helix-gate looks at: the write tools for the checks on
/// save, Bash because a shell command can write, move or delete an ADR or
/// helix-gate's own files just as well.
pub const TOOL_MATCHER: &str = "Write|Edit|MultiEdit|Bash";

/// The tools a Claude Code entry of `kind` fires for: the write tools and
/// Bash around a tool call, Bash alone after a failed one (a shell command
/// that fails may have written files all the same).
pub(super) fn matcher(kind: EventKind) -> Option<&'static str> {
    match kind {
        EventKind::PreToolUse | EventKind::PostToolUse => Some(TOOL_MATCHER),
        EventKind::PostToolUseFailure => Some("Bash"),
        _ => None,
    }
}

/// Our hook entries, by event.
pub fn our_hooks(
    command: &str,
    prompt_context: bool,
    stop_timeout_s: u64,
) -> Vec<(&'static str, Value)> {
    hook_groups(
        &entries(EventKind::name, matcher, prompt_context, stop_timeout_s),
        command,
    )
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

/// Register the hook in the settings file of `scope`, Stop with a timeout of
/// `stop_timeout_s` ([`stop_timeout_s`](crate::agent::hooks_file::stop_timeout_s)); returns that file.
/// At user scope the command carries [`USER_SCOPE_FLAG`](crate::agent::hooks_file::USER_SCOPE_FLAG): registered for every
/// session on the machine, the hook answers only in repositories with helix-gate's
/// settings file.
pub fn install(root: &Path, scope: Scope, stop_timeout_s: u64) -> anyhow::Result<PathBuf> {
    let prompt_context = prompt_context(root, scope)?;
    let path = settings_path(root, scope)?;
    let command = agent_hook_command(Agent::Claude, scope == Scope::User);
    install_into(
        &allowed_area(root, scope)?,
        &path,
        &command,
        prompt_context,
        stop_timeout_s,
    )?;
    Ok(path)
}

/// Remove helix-gate's hooks from the settings file of `scope`: that file and how many.
pub fn uninstall(root: &Path, scope: Scope) -> anyhow::Result<(PathBuf, usize)> {
    let path = settings_path(root, scope)?;
    let removed = uninstall_from(&allowed_area(root, scope)?, &path)?;
    Ok((path, removed))
}

/// Whether the session folder's own settings (`.claude/settings.json`,
/// `.claude/settings.local.json`, which Claude Code loads) register the hook.
pub(super) fn registered_in_project(project_dir: &Path) -> bool {
    [".claude/settings.json", ".claude/settings.local.json"]
        .iter()
        .any(|rel| hooks_file::file_registers(&project_dir.join(rel), registers_hook))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::hooks_file::{HOOK_ENTRIES, NO_REVIEW_STOP_TIMEOUT_S, stop_timeout_s};
    use std::time::Duration;

    #[test]
    fn the_plugin_registers_the_same_events_as_install() {
        let plugin: Value =
            serde_json::from_str(include_str!("../../../hooks/hooks.json")).unwrap();
        let plugin = plugin["hooks"].as_object().unwrap();
        let wanted = entries(EventKind::name, matcher, false, 0);
        assert_eq!(
            plugin.keys().map(String::as_str).collect::<Vec<_>>(),
            wanted.iter().map(|e| e.event).collect::<Vec<_>>()
        );
        for entry in wanted {
            let group = &plugin[entry.event][0];
            assert_eq!(group["matcher"].as_str(), entry.matcher, "{}", entry.event);
            let timeout = group["hooks"][0]["timeout"].as_u64();
            let fixed = HOOK_ENTRIES.iter().find(|e| e.kind == entry.kind).unwrap();
            match fixed.timeout_s {
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
}
