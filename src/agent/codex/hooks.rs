//! Register the hook for Codex CLI (`helix-gate install codex`), in
//! `<repo>/.codex/hooks.json` (project) or `$CODEX_HOME/hooks.json` (user,
//! `CODEX_HOME` default `~/.codex`).
//!
//! The file has Claude Code's layout (`{"hooks": {"<Event>": [{"matcher",
//! "hooks": [{"type": "command", ...}]}]}}`, `timeout` in seconds), so the
//! merge is `hooks_file::merge_into`'s: only helix-gate's entries (marked with
//! [`hooks_file::STATUS_MARKER`]) are replaced, everything else is kept, a malformed file
//! is refused untouched, and installing twice changes nothing.
//!
//! Codex runs such a hook only after two gates, both silent when closed
//! (`../shared/agent-hooks.md`, observed with 0.169.0):
//! - **project trust**: `<repo>/.codex/` is ignored unless the user
//!   `config.toml` has `[projects."<repo>"] trust_level = "trusted"` (what
//!   `codex exec --trust` or the TUI's prompt writes);
//! - **hook review**: a hook runs only when the user `config.toml` has
//!   `[hooks.state."<hooks.json>:<event>:<group>:<handler>"] trusted_hash`
//!   equal to the SHA-256 of the hook's normalized definition ([`trust_hash`]);
//!   a changed command needs a new review.
//!
//! Neither is done for the person unless asked: `--trust-hooks` records the
//! reviews of helix-gate's own entries, `--trust-project` the project's trust
//! ([`super::config`]). Otherwise `install` says what is missing.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use sha2::{Digest as _, Sha256};

use crate::agent::event::EventKind;
use crate::agent::hooks_file::{self, Area};
use crate::agent::name::Agent;

/// The project hooks file, relative to the repository root.
pub const PROJECT_HOOKS: &str = ".codex/hooks.json";

/// Where the hook is registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// `<repo>/.codex/hooks.json`: Codex loads it for every session in the
    /// repository (also one started in a subfolder), once the project is trusted.
    Project,
    /// `$CODEX_HOME/hooks.json`: every Codex session on the machine; the command
    /// carries `--scope user`, so only repositories that opted in are checked.
    User,
}

/// The tools helix-gate looks at in Codex: its one editing tool, and shell
/// commands (which Codex reports as `Bash`).
pub const TOOL_MATCHER: &str = "apply_patch|Bash";

/// The tools a Codex entry of `kind` fires for: [`TOOL_MATCHER`] around a
/// tool call. Codex has no `PostToolUseFailure`: a failing command fires
/// `PostToolUse`.
pub(super) fn matcher(kind: EventKind) -> Option<&'static str> {
    matches!(kind, EventKind::PreToolUse | EventKind::PostToolUse).then_some(TOOL_MATCHER)
}

/// Codex's folder of user configuration: `$CODEX_HOME`, else `~/.codex`.
pub fn codex_home() -> anyhow::Result<PathBuf> {
    hooks_file::agent_home(crate::env::CODEX_HOME, ".codex")
}

/// The user `config.toml` (project trust, hook reviews).
pub fn user_config() -> anyhow::Result<PathBuf> {
    Ok(codex_home()?.join("config.toml"))
}

/// The hooks file of `scope`.
pub fn hooks_path(root: &Path, scope: Scope) -> anyhow::Result<PathBuf> {
    Ok(match scope {
        Scope::Project => root.join(PROJECT_HOOKS),
        Scope::User => codex_home()?.join("hooks.json"),
    })
}

/// Where the files of `scope` may be written: the project, or Codex's home
/// folder (the user's `config.toml` lives there too).
pub(super) fn allowed_area(root: &Path, scope: Scope) -> anyhow::Result<Area> {
    Ok(match scope {
        Scope::Project => Area {
            dir: root.to_path_buf(),
            name: "the project",
        },
        Scope::User => user_area()?,
    })
}

/// Codex's home folder, where the user `config.toml` is written.
pub fn user_area() -> anyhow::Result<Area> {
    Ok(Area {
        dir: codex_home()?,
        name: "Codex's home folder (CODEX_HOME, default ~/.codex)",
    })
}

/// The command Codex runs: the Claude Code command with `--agent codex` (and
/// `--scope user` at user scope).
pub fn hook_command(scope: Scope) -> String {
    hooks_file::agent_hook_command(Agent::Codex, scope == Scope::User)
}

/// Whether a Codex hooks file registers helix-gate's Codex hook for any event:
/// a command hook whose command is helix-gate's with `--agent codex`.
pub fn registers_hook(hooks_file: &Value) -> bool {
    hooks_file::registers_hook_for(hooks_file, |agent| agent == Some("codex"))
}

/// One of helix-gate's entries in a hooks file, with what Codex's review of it
/// must record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookReview {
    /// The event, as in the file (`PreToolUse`).
    pub event: String,
    /// Codex's key: `<hooks file>:<event_snake>:<group>:<handler>`.
    pub key: String,
    /// `sha256:<hex>` of the entry's normalized definition ([`trust_hash`]).
    pub hash: String,
}

/// What `install` did.
#[derive(Debug, Clone)]
pub struct Installed {
    pub path: PathBuf,
    /// Every helix-gate entry in the file as written, with its review key and hash.
    pub reviews: Vec<HookReview>,
}

/// Register the hook in the hooks file of `scope`, Stop with a timeout of
/// `stop_timeout_s` ([`hooks_file::stop_timeout_s`]).
pub fn install(root: &Path, scope: Scope, stop_timeout_s: u64) -> anyhow::Result<Installed> {
    let path = hooks_path(root, scope)?;
    let prompt_context = hooks_file::prompt_context(
        root,
        match scope {
            Scope::Project => hooks_file::Scope::Project,
            Scope::User => hooks_file::Scope::User,
        },
    )?;
    let entries = hooks_file::hook_groups(
        &hooks_file::entries(
            super::wire::event_name,
            matcher,
            prompt_context,
            stop_timeout_s,
        ),
        &hook_command(scope),
    );
    let area = allowed_area(root, scope)?;
    if scope == Scope::User {
        // `CODEX_HOME` (`~/.codex`) exists only once Codex ran; it is the place to write.
        std::fs::create_dir_all(&area.dir)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", area.dir.display()))?;
    }
    let written = hooks_file::merge_into(&area, &path, entries)?;
    Ok(Installed {
        reviews: reviews(&key_path(&path), &written),
        path,
    })
}

/// Remove helix-gate's entries from the hooks file of `scope`: the file, how
/// many were removed, and their reviews as they were (to be forgotten too).
pub fn uninstall(root: &Path, scope: Scope) -> anyhow::Result<(PathBuf, usize, Vec<HookReview>)> {
    let path = hooks_path(root, scope)?;
    let before = installed_reviews(&path);
    let removed = hooks_file::uninstall_from(&allowed_area(root, scope)?, &path)?;
    Ok((path, removed, if removed > 0 { before } else { Vec::new() }))
}

/// helix-gate's entries in the hooks file at `path` now, with their review keys
/// and hashes (none when the file is missing or unreadable).
pub fn installed_reviews(path: &Path) -> Vec<HookReview> {
    hooks_file::read_settings(path)
        .map(|file| reviews(&key_path(path), &file))
        .unwrap_or_default()
}

/// The path Codex puts in a review key: the hooks file's absolute path, through
/// the real location of its folder (Codex resolves the project the same way).
fn key_path(path: &Path) -> PathBuf {
    let absolute = crate::paths::absolute(path);
    match (absolute.parent(), absolute.file_name()) {
        (Some(dir), Some(name)) => {
            std::fs::canonicalize(dir).map_or_else(|_| absolute.clone(), |dir| dir.join(name))
        }
        _ => absolute,
    }
}

/// The reviews of helix-gate's entries in `file` (the hooks file at `path`).
fn reviews(path: &Path, file: &Map<String, Value>) -> Vec<HookReview> {
    let Some(events) = file.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for (event, groups) in events {
        let Some(snake) = event_snake(event) else {
            continue;
        };
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            for (h, hook) in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .enumerate()
            {
                if !hooks_file::is_ours(hook) {
                    continue;
                }
                found.push(HookReview {
                    event: event.clone(),
                    key: format!("{}:{snake}:{g}:{h}", path.display()),
                    hash: trust_hash(snake, matcher, hook),
                });
            }
        }
    }
    found
}

/// Codex's name of an event in review keys and hashes.
fn event_snake(event: &str) -> Option<&'static str> {
    Some(match event {
        "PreToolUse" => "pre_tool_use",
        "PostToolUse" => "post_tool_use",
        "Stop" => "stop",
        "SessionStart" => "session_start",
        "UserPromptSubmit" => "user_prompt_submit",
        "SubagentStop" => "subagent_stop",
        "PermissionRequest" => "permission_request",
        _ => return None,
    })
}

/// The hash Codex's review records for one command hook: `sha256:` and the hex
/// SHA-256 of the compact JSON, keys sorted at every level, of
/// `{"event_name", "matcher" (when set; never for Stop), "hooks": [{"type",
/// "command", "timeout" (600 when unset), "async" (false when unset),
/// "statusMessage" (when set)}]}` (Codex's `version_for_toml` of the hook's
/// normalized identity; verified against 0.169.0's `hooks/list`).
pub fn trust_hash(event_snake: &str, matcher: Option<&str>, hook: &Value) -> String {
    let mut handler = Map::new();
    handler.insert("type".into(), Value::from("command"));
    for key in ["command", "commandWindows", "statusMessage"] {
        if let Some(value) = hook.get(key).filter(|v| !v.is_null()) {
            handler.insert(key.into(), value.clone());
        }
    }
    handler.insert(
        "timeout".into(),
        hook.get("timeout")
            .cloned()
            .unwrap_or_else(|| Value::from(600)),
    );
    handler.insert(
        "async".into(),
        hook.get("async").cloned().unwrap_or(Value::Bool(false)),
    );
    let mut identity = Map::new();
    identity.insert("event_name".into(), Value::from(event_snake));
    if let Some(matcher) = matcher.filter(|_| event_snake != "stop") {
        identity.insert("matcher".into(), Value::from(matcher));
    }
    identity.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
    let text = serde_json::to_string(&sorted(&Value::Object(identity))).unwrap_or_default();
    format!(
        "sha256:{}",
        crate::text::hex(&Sha256::digest(text.as_bytes()))
    )
}

/// `value` with the keys of every object in sorted order (`serde_json` keeps
/// insertion order in this crate).
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// helix-gate's Stop hooks' `timeout`s in the project and user hooks files, as
/// (file, seconds), for the Stop deadline and for `doctor`.
pub fn installed_stop_timeouts(root: &Path) -> Vec<(PathBuf, u64)> {
    let mut found = Vec::new();
    for scope in [Scope::Project, Scope::User] {
        let Ok(path) = hooks_path(root, scope) else {
            continue;
        };
        let Ok(file) = hooks_file::read_settings(&path) else {
            continue;
        };
        let stops = file
            .get("hooks")
            .and_then(|h| h.get("Stop"))
            .and_then(Value::as_array);
        for group in stops.into_iter().flatten() {
            let hooks = group.get("hooks").and_then(Value::as_array);
            for hook in hooks
                .into_iter()
                .flatten()
                .filter(|h| hooks_file::is_ours(h))
            {
                if let Some(timeout) = hook.get("timeout").and_then(Value::as_u64) {
                    found.push((path.clone(), timeout));
                }
            }
        }
    }
    found
}

/// Whether a `.codex/hooks.json` from the working directory up to the
/// repository root (Codex loads each) registers the hook.
pub(super) fn registered_in_project(root: &Path, project_dir: &Path) -> bool {
    project_dir
        .ancestors()
        .take_while(|dir| dir.starts_with(root))
        .chain(std::iter::once(root))
        .any(|dir| hooks_file::file_registers(&dir.join(PROJECT_HOOKS), registers_hook))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_review_hash_is_codexs() {
        // Hashes Codex 0.169.0 reported in `hooks/list` (`currentHash`) for these
        // entries of /tmp/cx/run2/repo/.codex/hooks.json.
        let hook = |timeout: u64| json!({"type": "command", "command": "/tmp/cx/run2/ans.sh", "timeout": timeout, "statusMessage": "helix-gate: ADR gate"});
        assert_eq!(
            trust_hash("pre_tool_use", Some("apply_patch|Bash"), &hook(10)),
            "sha256:1d48edd8b5162381511c82dec9204b95d2a7d53bf36357e01e69b4134ec714eb"
        );
        assert_eq!(
            trust_hash("post_tool_use", Some("apply_patch|Bash"), &hook(30)),
            "sha256:92e85d9bcdf91fee57a5bbb2dc3662c646622967a7667f27fb93c5a1f34f6a26"
        );
        assert_eq!(
            trust_hash("stop", None, &hook(90)),
            "sha256:5eebd9b7230c62a40ff95e8fffa85ce1bb7693fabebfcc7a7c72aacc6a5f2280"
        );
        // Without statusMessage and timeout: Codex's defaults (600 s) are hashed.
        let bare = json!({"type": "command", "command": "x"});
        assert_eq!(
            trust_hash("stop", None, &bare),
            trust_hash(
                "stop",
                None,
                &json!({"type": "command", "command": "x", "timeout": 600, "async": false})
            )
        );
    }

    #[test]
    fn install_merges_reports_reviews_and_uninstall_removes_only_ours() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join(".codex")).unwrap();
        let foreign = json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./mine.sh"}]}]}, "other": 1});
        std::fs::write(root.join(PROJECT_HOOKS), foreign.to_string()).unwrap();
        let first = install(&root, Scope::Project, 90).unwrap();
        let second = install(&root, Scope::Project, 90).unwrap();
        assert_eq!(first.reviews, second.reviews, "idempotent");
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(PROJECT_HOOKS)).unwrap())
                .unwrap();
        assert_eq!(file["other"], 1);
        assert_eq!(file["hooks"]["Stop"][0]["hooks"][0]["command"], "./mine.sh");
        assert_eq!(file["hooks"]["PreToolUse"][0]["matcher"], TOOL_MATCHER);
        assert!(file["hooks"].get("PostToolUseFailure").is_none());
        let command = file["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
            .as_str()
            .unwrap();
        assert!(command.ends_with(" hook --agent codex"), "{command}");
        let events: Vec<&str> = first.reviews.iter().map(|r| r.event.as_str()).collect();
        assert_eq!(
            events,
            ["Stop", "PreToolUse", "PostToolUse", "SessionStart"]
        );
        // Our Stop entry is the second group: the foreign one keeps index 0.
        assert_eq!(
            first.reviews[0].key,
            format!("{}:stop:1:0", root.join(PROJECT_HOOKS).display())
        );
        assert_eq!(installed_stop_timeouts(&root)[0].1, 90);
        let (_, removed, forgotten) = uninstall(&root, Scope::Project).unwrap();
        assert_eq!((removed, forgotten.len()), (4, 4));
        let file: Value =
            serde_json::from_str(&std::fs::read_to_string(root.join(PROJECT_HOOKS)).unwrap())
                .unwrap();
        assert_eq!(file, foreign);
    }

    #[test]
    fn a_malformed_hooks_file_is_refused_untouched() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".codex")).unwrap();
        for bad in [
            "{ nope",
            "[1]",
            r#"{"hooks": []}"#,
            r#"{"hooks": {"Stop": {}}}"#,
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
    fn only_a_codex_hook_command_registers_for_codex() {
        let file = |command: &str| json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": command}]}]}});
        assert!(registers_hook(&file("helix-gate hook --agent codex")));
        assert!(registers_hook(&file(
            "\"/opt/bin/helix-gate\" hook --agent codex --scope user"
        )));
        assert!(!registers_hook(&file("helix-gate hook")));
        assert!(!registers_hook(&file(
            "helix-gate hook --agent codex; true"
        )));
        assert!(!crate::agent::claude::hooks::registers_hook(&file(
            "helix-gate hook --agent codex"
        )));
        assert!(crate::agent::claude::hooks::registers_hook(&file(
            "helix-gate hook --agent claude"
        )));
    }
}
