//! Claude Code, the default agent: its room. Its envelope is the one the
//! shared decoder reads (`super::event`), its answer the one `HookOutput`
//! writes; the registration is [`hooks`] (`.claude/settings.json`,
//! `.claude/settings.local.json`, `~/.claude/settings.json`, and the plugin's
//! `hooks/hooks.json`).

pub mod doctor;
pub mod hooks;

use std::path::{Path, PathBuf};

use super::backend::{Backend, Done, HooksFile, InstallRequest};
use super::doctor::Line;
use super::event::{self, DecodeError, EventKind, HookEvent};
use super::hooks_file::Scope;
use super::output::HookOutput;

/// Claude Code's backend.
pub(super) struct Claude;

impl Backend for Claude {
    fn name(&self) -> &'static str {
        "Claude Code"
    }

    fn description(&self) -> &'static str {
        "Claude Code"
    }

    fn decode(&self, bytes: &[u8]) -> Result<HookEvent, DecodeError> {
        event::decode(bytes)
    }

    fn encode(&self, output: &HookOutput, _kind: Option<EventKind>) -> String {
        output.to_json_line()
    }

    fn event_name(&self, kind: EventKind) -> Option<&'static str> {
        kind.name()
    }

    fn asks_person(&self) -> bool {
        true
    }

    fn project_dir_var(&self) -> Option<&'static str> {
        Some(crate::env::CLAUDE_PROJECT_DIR)
    }

    fn matcher(&self, kind: EventKind) -> Option<&'static str> {
        hooks::matcher(kind)
    }

    fn home(&self) -> anyhow::Result<PathBuf> {
        Ok(super::hooks_file::home()?.join(".claude"))
    }

    fn registered_in_project(&self, _root: &Path, project_dir: &Path) -> bool {
        hooks::registered_in_project(project_dir)
    }

    /// The settings files', and the plugin's when the hook runs as helix-gate's
    /// plugin hook (`CLAUDE_PLUGIN_ROOT`).
    fn installed_stop_timeouts(&self, root: &Path) -> Vec<(PathBuf, u64)> {
        let mut found = hooks::installed_stop_timeouts(root);
        if let Some(plugin) = crate::env::var(crate::env::CLAUDE_PLUGIN_ROOT) {
            found.extend(hooks::plugin_stop_timeouts(Path::new(&plugin)));
        }
        found
    }

    fn home_var(&self) -> Option<&'static str> {
        None
    }

    fn registration_paths(&self) -> &'static [&'static str] {
        &[".claude/settings.json", ".claude/settings.local.json"]
    }

    fn hooks_files(&self, root: &Path) -> Vec<HooksFile> {
        let [project, local] = self.registration_paths() else {
            unreachable!("Claude Code has a project and a local settings file")
        };
        [
            (Scope::Project, *project),
            (Scope::Local, *local),
            (Scope::User, "~/.claude/settings.json"),
        ]
        .into_iter()
        .map(|(scope, shown)| HooksFile {
            scope,
            path: hooks::settings_path(root, scope).ok(),
            shown: shown.to_owned(),
        })
        .collect()
    }

    fn user_hooks_file(&self, root: &Path) -> anyhow::Result<PathBuf> {
        hooks::settings_path(root, super::hooks_file::Scope::User)
    }

    fn install(&self, request: &InstallRequest<'_>) -> anyhow::Result<Done> {
        let root = request.root;
        let path = hooks::install(root, request.scope, request.stop_timeout_s)?;
        let mut text = format!(
            "helix-gate hook registered in {} (PreToolUse and PostToolUse on Write|Edit|MultiEdit, Stop, SessionStart)\nStop timeout: {} s ({}, {})\n",
            path.display(),
            request.stop_timeout_s,
            request.stop_why.as_deref().unwrap_or_default(),
            request.stop_source
        );
        let mut notes = Vec::new();
        if request.scope == Scope::User {
            text.push_str(&user_scope_prompt_context(root)?);
            notes.push("helix-gate: note: registered for every Claude Code session on this machine; it checks only repositories that have config/helix-gate.yaml (an empty file is enough) and does nothing elsewhere\n".to_owned());
        } else if let Some(folder) = &request.session_folder {
            // Only where session folders exist: elsewhere the warning names a
            // problem the repository does not have.
            notes.push(format!(
                "helix-gate: warning: Claude Code sessions started in a subdirectory of this repository (e.g. {}/) are their own project and do not load this file, so the hook will not run in them. To reach them: `helix-gate install claude --scope user` (every session; repositories opt in with config/helix-gate.yaml), a .claude/settings.json written into the session folder, or `claude --settings FILE`. See `helix-gate doctor`.\n",
                crate::text::escape_controls(folder)
            ));
        }
        Ok(Done {
            path,
            text,
            notes,
            record: false,
        })
    }

    fn uninstall(&self, root: &Path, scope: Scope) -> anyhow::Result<Done> {
        let (path, removed) = hooks::uninstall(root, scope)?;
        Ok(Done {
            text: format!(
                "removed {removed} helix-gate hook(s) from {}\n",
                path.display()
            ),
            path,
            notes: Vec::new(),
            record: false,
        })
    }

    fn doctor(&self, root: &Path, session_paths: &[String], opted_in: bool) -> Vec<Line> {
        doctor::report(root, session_paths, opted_in)
    }
}

/// The line `install claude --scope user` adds: `hook.prompt_context` is the
/// built-in default there, whatever this repository's config says.
fn user_scope_prompt_context(root: &Path) -> anyhow::Result<String> {
    use std::fmt::Write as _;
    let registered = super::hooks_file::prompt_context(root, Scope::User)?;
    let here = crate::config::Settings::load(root)
        .map(|settings| settings.hook.prompt_context)
        .ok();
    let mut text = format!(
        "UserPromptSubmit: {} (user scope uses the built-in hook.prompt_context: {registered}, not this repository's config/helix-gate.yaml",
        if registered {
            "registered"
        } else {
            "not registered"
        }
    );
    if here.is_some_and(|here| here != registered) {
        let _ = write!(
            text,
            ", whose hook.prompt_context: {} applies only to `helix-gate install claude` at project or local scope",
            !registered
        );
    }
    text.push_str(")\n");
    Ok(text)
}
