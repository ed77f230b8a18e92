//! GitHub Copilot CLI (`@github/copilot`, pinned 1.0.102): its room. The wire
//! is `wire` (the shared envelope with `tool_input.path`, the final answer
//! read from its transcript at Stop; answers in the fields Copilot reads), the
//! registration [`hooks`] (helix-gate's own `.github/hooks/helix-gate.json`).

pub mod doctor;
pub mod hooks;
mod wire;

use std::path::{Path, PathBuf};

use super::backend::{Backend, Done, HooksFile, InstallRequest};
use super::doctor::Line;
use super::event::{DecodeError, EventKind, HookEvent, Transcript};
use super::hooks_file::Scope;
use super::output::HookOutput;

/// Copilot CLI's backend.
pub(super) struct Copilot;

impl Backend for Copilot {
    fn name(&self) -> &'static str {
        "Copilot CLI"
    }

    fn description(&self) -> &'static str {
        "GitHub Copilot CLI"
    }

    fn decode(&self, bytes: &[u8]) -> Result<HookEvent, DecodeError> {
        wire::decode(bytes)
    }

    fn encode(&self, output: &HookOutput, kind: Option<EventKind>) -> String {
        wire::encode(output, kind)
    }

    /// Claude Code's names, `SubagentStop` aside (Copilot has none registered).
    fn event_name(&self, kind: EventKind) -> Option<&'static str> {
        wire::event_name(kind)
    }

    /// Copilot CLI 1.0.102 turns `ask` into a deny when nobody watches
    /// (autopilot, `-p`): refused, with the reason that says what the person
    /// can do.
    fn asks_person(&self) -> bool {
        false
    }

    /// `COPILOT_PROJECT_DIR` (Copilot sets `CLAUDE_PROJECT_DIR` too).
    fn project_dir_var(&self) -> Option<&'static str> {
        Some(crate::env::COPILOT_PROJECT_DIR)
    }

    fn answer_in_transcript(&self, transcript: &Transcript) -> Result<String, &'static str> {
        wire::final_answer(transcript)
    }

    /// No matcher: Copilot runs tool hooks for every tool; the hook settles
    /// the others at once.
    fn matcher(&self, _kind: EventKind) -> Option<&'static str> {
        None
    }

    fn home(&self) -> anyhow::Result<PathBuf> {
        hooks::copilot_home()
    }

    fn registered_in_project(&self, root: &Path, _project_dir: &Path) -> bool {
        hooks::registered_in_project(root)
    }

    fn installed_stop_timeouts(&self, root: &Path) -> Vec<(PathBuf, u64)> {
        hooks::installed_stop_timeouts(root)
    }

    fn home_var(&self) -> Option<&'static str> {
        Some(crate::env::COPILOT_HOME)
    }

    fn registration_paths(&self) -> &'static [&'static str] {
        &[hooks::PROJECT_HOOKS, ".copilot/hooks/helix-gate.json"]
    }

    fn hooks_files(&self, root: &Path) -> Vec<HooksFile> {
        vec![
            HooksFile {
                scope: Scope::Project,
                path: hooks::hooks_path(root, hooks::Scope::Project).ok(),
                shown: hooks::PROJECT_HOOKS.to_owned(),
            },
            HooksFile {
                scope: Scope::User,
                path: hooks::hooks_path(root, hooks::Scope::User).ok(),
                shown: "~/.copilot/hooks/helix-gate.json".to_owned(),
            },
        ]
    }

    fn user_hooks_file(&self, root: &Path) -> anyhow::Result<PathBuf> {
        hooks::hooks_path(root, hooks::Scope::User)
    }

    fn install(&self, request: &InstallRequest<'_>) -> anyhow::Result<Done> {
        let scope = own_scope(request.scope)?;
        let stop_timeout = request.stop_timeout_s;
        let (path, events) = hooks::install(request.root, scope, stop_timeout)?;
        let mut text = format!(
            "helix-gate hook registered for Copilot CLI in {} ({}; every tool, Copilot has no matcher for them)\nStop timeout: {stop_timeout} s ({})\n",
            path.display(),
            events.join(", "),
            request.stop_source
        );
        let mut notes = Vec::new();
        if scope == hooks::Scope::Project {
            text.push_str("Before Copilot runs it: Copilot loads a repository's .github/hooks/ once the folder is trusted (its prompt at startup); `copilot -p` loads them only in a trusted folder or with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true.\n");
        } else {
            notes.push("helix-gate: note: registered for every Copilot CLI session on this machine; it checks only repositories that have config/helix-gate.yaml (an empty file is enough) and does nothing elsewhere\n".to_owned());
        }
        Ok(Done {
            path,
            text,
            notes,
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

/// Copilot's scope of `scope`: it has no local hooks file.
fn own_scope(scope: Scope) -> anyhow::Result<hooks::Scope> {
    match scope {
        Scope::Project => Ok(hooks::Scope::Project),
        Scope::User => Ok(hooks::Scope::User),
        Scope::Local => anyhow::bail!(
            "Copilot CLI has no local hooks file: use --scope project (.github/hooks/) or --scope user (~/.copilot/hooks/)"
        ),
    }
}
