//! Codex CLI (`OpenAI`'s `@openai/codex`, pinned 0.169.0): its room. The wire
//! is `wire` (the shared envelope, and `apply_patch`'s paths read from the
//! patch; answers kept to Codex's closed output schemas), the registration
//! [`hooks`] (`.codex/hooks.json`, `$CODEX_HOME/hooks.json`), and [`config`]
//! the two gates of Codex's `config.toml` (project trust, hook reviews).

pub mod config;
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
use config::{CodexConfig, TRUSTED, project_key};

/// Codex CLI's backend.
pub(super) struct Codex;

impl Backend for Codex {
    fn name(&self) -> &'static str {
        "Codex CLI"
    }

    fn description(&self) -> &'static str {
        "`OpenAI`'s Codex CLI"
    }

    fn decode(&self, bytes: &[u8]) -> Result<HookEvent, DecodeError> {
        wire::decode(bytes)
    }

    fn encode(&self, output: &HookOutput, kind: Option<EventKind>) -> String {
        wire::encode(output, kind)
    }

    /// Claude Code's names; Codex has no `PostToolUseFailure`.
    fn event_name(&self, kind: EventKind) -> Option<&'static str> {
        wire::event_name(kind)
    }

    /// Codex 0.169.0 rejects `permissionDecision: ask` as unsupported and then
    /// runs the tool: the call is refused instead.
    fn asks_person(&self) -> bool {
        false
    }

    /// None: Codex's project is the event's `cwd` (and a `CLAUDE_PROJECT_DIR`
    /// inherited from a Claude Code session that started Codex must not
    /// redirect it).
    fn project_dir_var(&self) -> Option<&'static str> {
        None
    }

    fn matcher(&self, kind: EventKind) -> Option<&'static str> {
        hooks::matcher(kind)
    }

    fn home(&self) -> anyhow::Result<PathBuf> {
        hooks::codex_home()
    }

    fn registered_in_project(&self, root: &Path, project_dir: &Path) -> bool {
        hooks::registered_in_project(root, project_dir)
    }

    fn installed_stop_timeouts(&self, root: &Path) -> Vec<(PathBuf, u64)> {
        hooks::installed_stop_timeouts(root)
    }

    fn home_var(&self) -> Option<&'static str> {
        Some(crate::env::CODEX_HOME)
    }

    fn registration_paths(&self) -> &'static [&'static str] {
        &[hooks::PROJECT_HOOKS]
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
                shown: "$CODEX_HOME/hooks.json".to_owned(),
            },
        ]
    }

    fn user_hooks_file(&self, root: &Path) -> anyhow::Result<PathBuf> {
        hooks::hooks_path(root, hooks::Scope::User)
    }

    fn trust_gates(&self) -> bool {
        true
    }

    fn install(&self, request: &InstallRequest<'_>) -> anyhow::Result<Done> {
        install(request)
    }

    fn uninstall(&self, root: &Path, scope: Scope) -> anyhow::Result<Done> {
        let (path, removed, reviews) = hooks::uninstall(root, own_scope(scope)?)?;
        let mut text = format!(
            "removed {removed} helix-gate hook(s) from {}\n",
            path.display()
        );
        if !reviews.is_empty() {
            // Only the reviews of the entries just removed (their key and hash).
            let mut config = CodexConfig::load()?;
            let forgotten = config.forget_reviews(&reviews);
            if forgotten > 0 {
                config.save(&hooks::user_area()?)?;
                let _ = writeln!(
                    text,
                    "removed Codex's review of {forgotten} of them from {}",
                    config.path.display()
                );
            }
        }
        Ok(Done {
            path,
            text,
            notes: Vec::new(),
            record: true,
        })
    }

    fn doctor(&self, root: &Path, _session_paths: &[String], opted_in: bool) -> Vec<Line> {
        doctor::report(root, opted_in)
    }
}

/// Codex's scope of `scope`: it has no local settings file.
fn own_scope(scope: Scope) -> anyhow::Result<hooks::Scope> {
    match scope {
        Scope::Project => Ok(hooks::Scope::Project),
        Scope::User => Ok(hooks::Scope::User),
        Scope::Local => anyhow::bail!(
            "Codex CLI has no local settings file: use --scope project (.codex/hooks.json) or --scope user ($CODEX_HOME/hooks.json)"
        ),
    }
}

/// `install codex`: register the hook, then record what was asked for and say
/// what Codex still needs before it runs the hook.
fn install(request: &InstallRequest<'_>) -> anyhow::Result<Done> {
    let root = request.root;
    let scope = own_scope(request.scope)?;
    let stop_timeout = request.stop_timeout_s;
    let installed = hooks::install(root, scope, stop_timeout)?;
    let events: Vec<&str> = installed.reviews.iter().map(|r| r.event.as_str()).collect();
    let mut text = format!(
        "helix-gate hook registered for Codex CLI in {} ({}; PreToolUse and PostToolUse on {})\nStop timeout: {stop_timeout} s ({})\n",
        installed.path.display(),
        events.join(", "),
        hooks::TOOL_MATCHER,
        request.stop_source
    );
    let mut config = CodexConfig::load()?;
    let mut changed = false;
    if request.trust_hooks {
        let added = config.record_reviews(&installed.reviews)?;
        changed |= added > 0;
        let _ = writeln!(
            text,
            "recorded Codex's review of {added} helix-gate hook(s) in {} (--trust-hooks)",
            config.path.display()
        );
    }
    if request.trust_project && config.trust_project(root)? {
        changed = true;
        let _ = writeln!(
            text,
            "marked {} trusted in {} (--trust-project)",
            project_key(root),
            config.path.display()
        );
    }
    if changed {
        config.save(&hooks::user_area()?)?;
    }
    // What Codex still needs: both gates skip hooks without a word.
    let mut needs = Vec::new();
    if scope == hooks::Scope::Project && config.project_trust(root).as_deref() != Some(TRUSTED) {
        needs.push(format!(
            "- trust this project: Codex ignores .codex/ in an untrusted project. Add to {}:\n    [projects.\"{}\"]\n    trust_level = \"trusted\"\n  or run `codex exec --trust` once here (or `helix-gate install codex --trust-project`)",
            config.path.display(),
            project_key(root)
        ));
    }
    let unreviewed = installed
        .reviews
        .iter()
        .filter(|r| !config.is_reviewed(r))
        .count();
    if unreviewed > 0 {
        needs.push(format!(
            "- review the hooks: Codex runs a hook only after the person reviewed it ({unreviewed} of {} not reviewed). The Codex TUI asks at startup (\"Hooks need review\"); `codex exec` skips them silently. Or record the review with `helix-gate install codex{} --trust-hooks`, which writes their `trusted_hash` into [hooks.state.\"{}:...\"] of {}. A changed command (a new helix-gate path) needs a new review",
            installed.reviews.len(),
            if scope == hooks::Scope::User { " --scope user" } else { "" },
            installed.path.display(),
            config.path.display()
        ));
    }
    if needs.is_empty() {
        text.push_str(if scope == hooks::Scope::Project {
            "Codex will run the hook: the project is trusted and every entry is reviewed.\n"
        } else {
            "Codex will run the hook: every entry is reviewed (hooks in Codex's home folder need no project trust).\n"
        });
    } else {
        let _ = writeln!(text, "Before Codex runs it:\n{}", needs.join("\n"));
    }
    let mut notes = Vec::new();
    if scope == hooks::Scope::User {
        notes.push("helix-gate: note: registered for every Codex session on this machine; it checks only repositories that have config/helix-gate.yaml (an empty file is enough) and does nothing elsewhere\n".to_owned());
    }
    Ok(Done {
        path: installed.path,
        text,
        notes,
        record: true,
    })
}
