//! Gemini CLI (Google's `@google/gemini-cli`, pinned 0.61.0): its room. The
//! wire is `wire` (its own event and tool names mapped onto the one event;
//! answers in `DefaultHookOutput`'s fields), the registration [`hooks`]
//! (`.gemini/settings.json`, timeouts in milliseconds; folder trust).

pub mod doctor;
pub mod hooks;
mod wire;

use std::path::{Path, PathBuf};

use super::backend::{Backend, Done, HooksFile, InstallRequest};
use super::doctor::Line;
use std::fmt::Write as _;

use super::event::{DecodeError, EventKind, HookEvent};
use super::hooks_file::Scope;
use super::output::HookOutput;

/// Gemini CLI's backend.
pub(super) struct Gemini;

impl Backend for Gemini {
    fn name(&self) -> &'static str {
        "Gemini CLI"
    }

    fn description(&self) -> &'static str {
        "Google's Gemini CLI"
    }

    fn decode(&self, bytes: &[u8]) -> Result<HookEvent, DecodeError> {
        wire::decode(bytes)
    }

    fn encode(&self, output: &HookOutput, kind: Option<EventKind>) -> String {
        wire::encode(output, kind)
    }

    /// Gemini's own names; its `AfterTool` fires after a failed tool too, so
    /// there is no `PostToolUseFailure` of its own.
    fn event_name(&self, kind: EventKind) -> Option<&'static str> {
        wire::event_name(kind)
    }

    /// Gemini CLI 0.61.0 has `decision: "ask"` (it forces its confirmation
    /// prompt), but a headless `gemini -p` has nobody to answer it: refused,
    /// the same way in every mode.
    fn asks_person(&self) -> bool {
        false
    }

    /// `GEMINI_PROJECT_DIR` (Gemini sets `CLAUDE_PROJECT_DIR` too, which is not
    /// read for it).
    fn project_dir_var(&self) -> Option<&'static str> {
        Some(crate::env::GEMINI_PROJECT_DIR)
    }

    fn matcher(&self, kind: EventKind) -> Option<&'static str> {
        hooks::matcher(kind)
    }

    fn home(&self) -> anyhow::Result<PathBuf> {
        hooks::gemini_home()
    }

    fn registered_in_project(&self, _root: &Path, project_dir: &Path) -> bool {
        hooks::registered_in_project(project_dir)
    }

    fn installed_stop_timeouts(&self, root: &Path) -> Vec<(PathBuf, u64)> {
        hooks::installed_stop_timeouts(root)
    }

    fn home_var(&self) -> Option<&'static str> {
        Some(crate::env::GEMINI_CLI_HOME)
    }

    fn registration_paths(&self) -> &'static [&'static str] {
        &[hooks::PROJECT_SETTINGS]
    }

    fn hooks_files(&self, root: &Path) -> Vec<HooksFile> {
        vec![
            HooksFile {
                scope: Scope::Project,
                path: hooks::settings_path(root, hooks::Scope::Project).ok(),
                shown: hooks::PROJECT_SETTINGS.to_owned(),
            },
            HooksFile {
                scope: Scope::User,
                path: hooks::settings_path(root, hooks::Scope::User).ok(),
                shown: "~/.gemini/settings.json".to_owned(),
            },
        ]
    }

    fn user_hooks_file(&self, root: &Path) -> anyhow::Result<PathBuf> {
        hooks::settings_path(root, hooks::Scope::User)
    }

    fn install(&self, request: &InstallRequest<'_>) -> anyhow::Result<Done> {
        let root = request.root;
        let scope = own_scope(request.scope)?;
        let stop_timeout = request.stop_timeout_s;
        let (path, events) = hooks::install(root, scope, stop_timeout)?;
        let mut text = format!(
            "helix-gate hook registered for Gemini CLI in {} ({}; BeforeTool and AfterTool on {})\nAfterAgent timeout: {} ms ({})\n",
            path.display(),
            events.join(", "),
            hooks::TOOL_MATCHER,
            stop_timeout * 1000,
            request.stop_source
        );
        let note = if scope == hooks::Scope::Project {
            if hooks::folder_trusted(root) != Some(true) {
                let _ = writeln!(
                    text,
                    "Before Gemini runs it:\n- trust this folder: Gemini ignores .gemini/settings.json (hooks included) in a folder it does not trust. Accept the prompt when `gemini` starts here, or add `\"{}\": \"TRUST_FOLDER\"` to {}, or run it with GEMINI_CLI_TRUST_WORKSPACE=true. (`gemini --skip-trust` runs but ignores this file.)",
                    root.display(),
                    hooks::trusted_folders_path()?.display()
                );
            }
            "helix-gate: warning: Gemini CLI sessions started in a subdirectory of this repository (e.g. projects/sessions/<id>/) load only that folder's .gemini/settings.json and the user's, so the hook will not run in them. To reach them: `helix-gate install gemini --scope user` (every session; repositories opt in with config/helix-gate.yaml). See `helix-gate doctor`.\n"
        } else {
            "helix-gate: note: registered for every Gemini CLI session on this machine; it checks only repositories that have config/helix-gate.yaml (an empty file is enough) and does nothing elsewhere\n"
        };
        Ok(Done {
            path,
            text,
            notes: vec![note.to_owned()],
            record: true,
        })
    }

    fn uninstall(&self, root: &Path, scope: Scope) -> anyhow::Result<Done> {
        let (path, removed) = hooks::uninstall(root, own_scope(scope)?)?;
        Ok(Done {
            text: format!(
                "removed {removed} helix-gate hook(s) from {}\n",
                path.display()
            ),
            path,
            notes: Vec::new(),
            record: true,
        })
    }

    fn doctor(&self, root: &Path, _session_paths: &[String], opted_in: bool) -> Vec<Line> {
        doctor::report(root, opted_in)
    }
}

/// Gemini's scope of `scope`: it has no local settings file.
fn own_scope(scope: Scope) -> anyhow::Result<hooks::Scope> {
    match scope {
        Scope::Project => Ok(hooks::Scope::Project),
        Scope::User => Ok(hooks::Scope::User),
        Scope::Local => anyhow::bail!(
            "Gemini CLI has no local settings file: use --scope project (.gemini/settings.json) or --scope user (~/.gemini/settings.json)"
        ),
    }
}
