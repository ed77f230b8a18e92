//! Where an event happens: the repository it belongs to and the session's folder.
//!
//! Claude Code makes the folder a session was started in its project: a session
//! started in `<repo>/projects/sessions/s1` gets `CLAUDE_PROJECT_DIR` and `cwd`
//! there, not at the repository root (claude-code-hooks.md, section 2.4). So the
//! hook keeps two places apart:
//! - the **repository root**, the enclosing git work tree of the project folder
//!   (`CLAUDE_PROJECT_DIR`, else the event's `cwd`): configuration, ADR globs,
//!   `files.*` paths, INDEX, `.helix-gate/` and confinement are relative to it.
//!   Outside git the project folder itself is the root.
//! - the **session folder**, the event's `cwd` (else `CLAUDE_PROJECT_DIR`):
//!   STEP-marker scoping and its fallback file are relative to it.
//!
//! Codex CLI sets no project variable (`../shared/agent-hooks.md`): there the
//! project folder is the event's `cwd`, and the repository root its enclosing
//! git work tree, the same walk. Gemini CLI sets `GEMINI_PROJECT_DIR` (the
//! folder it was started in, also the event's `cwd`).
//!
//! Registered in the user settings, the hook runs in every session on the
//! machine; there it only works in repositories that opted in by having
//! helix-gate's settings file, and is a silent no-op everywhere else. Finding
//! that out costs a walk up the directory tree (`stat` per level) and one more
//! `stat`: no configuration is parsed and no git library opened.

use std::path::{Path, PathBuf};

use crate::agent::Agent;
use crate::agent::event::HookEvent;
use crate::env;

/// Where the hook was registered, as its command line says
/// (`helix-gate hook --scope user` for the user settings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Registration {
    /// The repository's own settings (project or local), `--settings FILE`, a
    /// plugin: the repository asked for the hook, the embedded defaults apply
    /// when it has no settings file.
    #[default]
    Repository,
    /// `~/.claude/settings.json`: only repositories that opted in are checked.
    User,
}

/// The folder the agent made the session's project: the agent's project
/// variable (Claude Code's `CLAUDE_PROJECT_DIR`, constant for the session; Codex
/// sets none), else the event's `cwd`, else the process's working directory
/// (which the agents set to the session's).
pub fn project_dir(agent: Agent, event: Option<&HookEvent>) -> PathBuf {
    if let Some(dir) = agent.project_dir_var().and_then(env::var) {
        return crate::paths::absolute(Path::new(&dir));
    }
    event
        .and_then(|e| e.cwd.as_deref())
        .map_or_else(current_dir, |cwd| crate::paths::absolute(Path::new(cwd)))
}

/// The session's working directory: the event's `cwd`, else the agent's project
/// variable, else the process's working directory.
pub fn session_dir(event: &HookEvent) -> PathBuf {
    if let Some(cwd) = event.cwd.as_deref().filter(|c| !c.is_empty()) {
        return crate::paths::absolute(Path::new(cwd));
    }
    event
        .agent
        .project_dir_var()
        .and_then(env::var)
        .map_or_else(current_dir, |dir| crate::paths::absolute(Path::new(&dir)))
}

/// The session's folders, most specific first: its working directory
/// ([`session_dir`]) and the folder it was started in ([`project_dir`]), once
/// each. The model's `cd` moves the first; the second stays.
pub fn session_folders(event: &HookEvent) -> Vec<PathBuf> {
    let mut folders = vec![session_dir(event)];
    let started = project_dir(event.agent, Some(event));
    if !folders.contains(&started) {
        folders.push(started);
    }
    folders
}

fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_default()
}

/// The repository root for `project_dir`: its enclosing git work tree, or the
/// folder itself outside git.
pub fn repository_root(project_dir: &Path) -> PathBuf {
    crate::paths::find_root(project_dir)
}

/// Whether the repository at `root` asked for helix-gate: it has helix-gate's
/// settings file (an empty one is enough: the defaults apply). Anything at that
/// path counts (a dangling link, a folder, a FIFO; never opened here), so a
/// broken settings file is reported instead of silencing the hook.
pub fn opted_in(root: &Path) -> bool {
    std::fs::symlink_metadata(root.join(crate::config::settings::SETTINGS_PATH)).is_ok()
}

/// Whether `agent`'s hook registered as `registration` stays silent for the
/// repository at `root`, whose session's project folder is `project_dir`: a
/// user-scope hook in a repository that did not opt in, or whose project
/// registers helix-gate itself for the same agent (that registration answers;
/// two would count every attempt twice, because the agents merge only
/// identical command lines).
pub fn stays_silent(
    registration: Registration,
    agent: Agent,
    root: &Path,
    project_dir: &Path,
) -> bool {
    registration == Registration::User
        && (!opted_in(root) || registered_in_project(agent, root, project_dir))
}

/// Whether the hook answering this event (registered as `registration`) is
/// registered where the session runs: at user scope, or in the project's own
/// settings for `agent` ([`registered_in_project`]). A hook run by hand or
/// from a `--settings` file is not.
pub fn registered_here(
    registration: Registration,
    agent: Agent,
    root: &Path,
    project_dir: &Path,
) -> bool {
    registration == Registration::User || registered_in_project(agent, root, project_dir)
}

/// Whether the project's own hooks files register `agent`'s helix-gate hook
/// (its backend knows which files the agent loads:
/// [`crate::agent::Backend::registered_in_project`]).
fn registered_in_project(agent: Agent, root: &Path, project_dir: &Path) -> bool {
    agent.backend().registered_in_project(root, project_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn git_init(dir: &Path) {
        std::fs::create_dir_all(dir.join(".git")).unwrap();
    }

    #[test]
    fn a_session_below_the_root_belongs_to_the_enclosing_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let session = repo.join("projects/sessions/s1");
        std::fs::create_dir_all(&session).unwrap();
        git_init(&repo);
        assert_eq!(repository_root(&session), repo);
        assert_eq!(repository_root(&repo), repo);
    }

    #[test]
    fn a_nested_repository_is_its_own_root() {
        let tmp = tempfile::tempdir().unwrap();
        let outer = tmp.path().join("outer");
        let inner = outer.join("vendor/inner");
        std::fs::create_dir_all(inner.join("sub")).unwrap();
        git_init(&outer);
        git_init(&inner);
        assert_eq!(repository_root(&inner.join("sub")), inner);
        assert_eq!(repository_root(&outer.join("vendor")), outer);
    }

    #[test]
    fn a_linked_worktree_with_a_git_file_is_a_root() {
        let tmp = tempfile::tempdir().unwrap();
        let worktree = tmp.path().join("wt");
        std::fs::create_dir_all(worktree.join("projects/sessions/s1")).unwrap();
        let gitdir = tmp.path().join("main/.git/worktrees/wt");
        std::fs::create_dir_all(&gitdir).unwrap();
        std::fs::write(
            worktree.join(".git"),
            format!("gitdir: {}\n", gitdir.display()),
        )
        .unwrap();
        assert_eq!(
            repository_root(&worktree.join("projects/sessions/s1")),
            worktree
        );
    }

    #[test]
    #[cfg(unix)]
    fn a_symlinked_session_folder_finds_the_repository_it_leads_into() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path().join("repo");
        let session = repo.join("projects/sessions/s1");
        std::fs::create_dir_all(&session).unwrap();
        git_init(&repo);
        let real_repo = repo.canonicalize().unwrap();
        // A link to the session folder: no `.git` above the link itself.
        let outside = tempfile::tempdir().unwrap();
        let link = outside.path().join("s1");
        std::os::unix::fs::symlink(&session, &link).unwrap();
        assert_eq!(repository_root(&link), real_repo);
        // A file written through the link is still inside the repository.
        assert_eq!(
            crate::paths::relative_to_real(&real_repo, &link.join("adr/001-x.md")).as_deref(),
            Some("projects/sessions/s1/adr/001-x.md")
        );
        // A link to the repository itself keeps the path as written.
        let alias = outside.path().join("alias");
        std::os::unix::fs::symlink(&repo, &alias).unwrap();
        assert_eq!(repository_root(&alias.join("projects")), alias);
    }

    #[test]
    fn outside_any_repository_the_project_folder_is_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("plain/dir");
        std::fs::create_dir_all(&dir).unwrap();
        // The temp folder is not inside a git work tree on any sane machine.
        if tmp.path().ancestors().any(|a| a.join(".git").exists()) {
            return;
        }
        assert_eq!(repository_root(&dir), dir);
    }

    #[test]
    fn user_scope_is_silent_without_opt_in_or_with_a_project_registration() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path();
        let session = repo.join("projects/sessions/s1");
        std::fs::create_dir_all(&session).unwrap();
        assert!(stays_silent(
            Registration::User,
            Agent::Claude,
            repo,
            &session
        ));
        assert!(!stays_silent(
            Registration::Repository,
            Agent::Claude,
            repo,
            &session
        ));
        std::fs::create_dir_all(repo.join("config")).unwrap();
        std::fs::write(repo.join(crate::config::settings::SETTINGS_PATH), "").unwrap();
        assert!(!stays_silent(
            Registration::User,
            Agent::Claude,
            repo,
            &session
        ));
        std::fs::create_dir_all(session.join(".claude")).unwrap();
        std::fs::write(
            session.join(".claude/settings.json"),
            format!(
                r#"{{"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "helix-gate hook", "statusMessage": "{}"}}]}}]}}}}"#,
                crate::agent::hooks_file::STATUS_MARKER
            ),
        )
        .unwrap();
        assert!(stays_silent(
            Registration::User,
            Agent::Claude,
            repo,
            &session
        ));
    }

    #[test]
    fn a_codex_registration_in_the_repository_silences_only_the_codex_user_hook() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path();
        let session = repo.join("projects/sessions/s1");
        std::fs::create_dir_all(&session).unwrap();
        std::fs::create_dir_all(repo.join("config")).unwrap();
        std::fs::write(repo.join(crate::config::settings::SETTINGS_PATH), "").unwrap();
        assert!(!stays_silent(
            Registration::User,
            Agent::Codex,
            repo,
            &session
        ));
        // Codex loads `.codex/hooks.json` from the working directory up to the root.
        std::fs::create_dir_all(repo.join(".codex")).unwrap();
        std::fs::write(
            repo.join(".codex/hooks.json"),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "helix-gate hook --agent codex"}]}]}}"#,
        )
        .unwrap();
        assert!(stays_silent(
            Registration::User,
            Agent::Codex,
            repo,
            &session
        ));
        assert!(!stays_silent(
            Registration::User,
            Agent::Claude,
            repo,
            &session
        ));
        // A Claude Code registration is not one for Codex.
        std::fs::write(
            repo.join(".codex/hooks.json"),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "helix-gate hook"}]}]}}"#,
        )
        .unwrap();
        assert!(!stays_silent(
            Registration::User,
            Agent::Codex,
            repo,
            &session
        ));
    }

    /// Settings whose Stop entry has `command` and the status marker.
    fn stop_entry(command: &str) -> String {
        serde_json::json!({"hooks": {"Stop": [{"hooks": [{
            "type": "command",
            "command": command,
            "statusMessage": crate::agent::hooks_file::STATUS_MARKER,
        }]}]}})
        .to_string()
    }

    #[test]
    fn only_a_real_registration_silences_the_user_scope_hook() {
        let tmp = tempfile::tempdir().unwrap();
        let repo = tmp.path();
        let session = repo.join("projects/sessions/s1");
        std::fs::create_dir_all(session.join(".claude")).unwrap();
        std::fs::create_dir_all(repo.join("config")).unwrap();
        std::fs::write(repo.join(crate::config::settings::SETTINGS_PATH), "").unwrap();
        let settings = session.join(".claude/settings.json");
        let fakes = [
            stop_entry("true"),
            stop_entry("./evil.sh hook"),
            stop_entry("helix-gate hook; true"),
            stop_entry("\"relative/helix-gate\" hook"),
            stop_entry("helix-gate validate"),
            // The marker as plain text, not as an entry.
            format!(
                r#"{{"note": "{}", "hooks": {{}}}}"#,
                crate::agent::hooks_file::STATUS_MARKER
            ),
            // A command hook's fields in the wrong place.
            r#"{"hooks": {"Stop": [{"type": "command", "command": "helix-gate hook"}]}}"#
                .to_owned(),
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "command": "helix-gate hook"}]}]}}"#
                .to_owned(),
            format!("not json {}", crate::agent::hooks_file::STATUS_MARKER),
        ];
        for fake in &fakes {
            std::fs::write(&settings, fake).unwrap();
            assert!(
                !stays_silent(Registration::User, Agent::Claude, repo, &session),
                "a fake entry silenced the hook: {fake}"
            );
        }
        for real in [
            "helix-gate hook",
            "helix-gate hook --scope user",
            "\"/opt/bin/helix-gate\" hook",
            "\"/opt/bin/helix-gate\" hook --scope project",
        ] {
            std::fs::write(&settings, stop_entry(real)).unwrap();
            assert!(
                stays_silent(Registration::User, Agent::Claude, repo, &session),
                "{real}"
            );
        }
        // Any event counts, and the local settings file too.
        std::fs::remove_file(&settings).unwrap();
        std::fs::write(
            session.join(".claude/settings.local.json"),
            r#"{"hooks": {"PostToolUse": [{"matcher": "Write", "hooks": [{"type": "command", "command": "helix-gate hook"}]}]}}"#,
        )
        .unwrap();
        assert!(stays_silent(
            Registration::User,
            Agent::Claude,
            repo,
            &session
        ));
    }
}
