//! Where helix-gate's Claude Code hook is registered, and whether the sessions
//! started in the configured session folders (`sessions.paths`) load it: the
//! Claude Code part of `doctor`.
//!
//! Claude Code 2.1.329 makes the folder a session was started in its project and
//! loads only that folder's `.claude/settings.json` and `.claude/settings.local.json`,
//! the user's `~/.claude/settings.json` and `--settings FILE`
//! (claude-code-hooks.md, section 2.4). So a registration at the repository root
//! reaches only sessions started at the root; a session in `projects/sessions/s1`
//! needs the user registration (this repository opted in), its own folder's
//! settings, or `--settings` (which no file shows, so it is not reported).

use std::path::{Path, PathBuf};

use super::hooks as claude;
use crate::agent::doctor::{Entry, Line, MAX_LISTED, matching_folders, read_entry};
use crate::agent::hooks_file::Scope;

/// One settings file and what it holds.
#[derive(Debug, Clone)]
pub struct Registration {
    pub scope: Scope,
    pub path: PathBuf,
    pub entry: Entry,
}

/// The hook's registrations (project, local, user) for the repository at `root`
/// and, for every glob of `session_paths`, whether sessions started there load
/// it. `opted_in`: the repository has helix-gate's settings file.
pub fn report(root: &Path, session_paths: &[String], opted_in: bool) -> Vec<Line> {
    let mut lines = Vec::new();
    let registrations: Vec<Registration> = [Scope::Project, Scope::Local, Scope::User]
        .into_iter()
        .filter_map(|scope| {
            let path = claude::settings_path(root, scope).ok()?;
            let entry = read_entry(&path);
            Some(Registration { scope, path, entry })
        })
        .collect();
    for r in &registrations {
        lines.push(describe(r, opted_in));
    }
    let user = registrations
        .iter()
        .find(|r| r.scope == Scope::User)
        .map(|r| &r.entry);
    let at_root = registrations
        .iter()
        .any(|r| r.scope != Scope::User && r.entry.is_registered());
    let user_reaches = match user {
        Some(Entry::Registered { user_scope, .. }) => !*user_scope || opted_in,
        _ => false,
    };
    if !at_root && !user_reaches {
        lines.push(Line::warning(
            "sessions at the repository root do not load the hook: run `helix-gate install claude` (this repository) or `helix-gate install claude --scope user` (every session)".to_owned(),
        ));
    }
    if session_paths.is_empty() {
        lines.push(Line::info(
            "no session folders configured (sessions.paths in config/helix-gate.yaml); sessions started below the repository root load only the user registration or their own folder's settings".to_owned(),
        ));
    }
    for pattern in session_paths {
        lines.extend(session_lines(root, pattern, user_reaches));
    }
    lines
}

fn scope_name(scope: Scope) -> &'static str {
    match scope {
        Scope::Project => "project",
        Scope::Local => "local",
        Scope::User => "user",
    }
}

/// The settings file as its scope names it: `.claude/settings.json` (relative to
/// the repository), `~/.claude/settings.json`.
fn shown(scope: Scope) -> &'static str {
    match scope {
        Scope::Project => ".claude/settings.json",
        Scope::Local => ".claude/settings.local.json",
        Scope::User => "~/.claude/settings.json",
    }
}

fn describe(r: &Registration, opted_in: bool) -> Line {
    let name = scope_name(r.scope);
    let path = shown(r.scope);
    match &r.entry {
        Entry::NoFile => Line::info(format!("{name}: {path} does not exist (not registered)")),
        Entry::NotRegistered => Line::info(format!("{name}: {path}: not registered")),
        Entry::Unreadable(why) => Line::warning(format!("{name}: {path}: {why}")),
        Entry::Registered { events, user_scope } => {
            let events = events.join(", ");
            if r.scope != Scope::User {
                Line::ok(format!(
                    "{name}: {path}: registered ({events}); reaches sessions started at the repository root only"
                ))
            } else if !user_scope {
                Line::warning(format!(
                    "{name}: {path}: registered ({events}) without `--scope user`: it checks every repository on this machine with the default rules; run `helix-gate install claude --scope user` again"
                ))
            } else if opted_in {
                Line::ok(format!(
                    "{name}: {path}: registered ({events}) for every session; this repository opted in (config/helix-gate.yaml)"
                ))
            } else {
                Line::warning(format!(
                    "{name}: {path}: registered ({events}) for every session, but this repository has no config/helix-gate.yaml, so the hook does nothing here (create the file to opt in)"
                ))
            }
        }
    }
}

/// Whether a session started in `folder` (relative to `root`) loads the hook,
/// and from where.
fn reached_by(root: &Path, folder: &str, user_reaches: bool) -> Vec<String> {
    let mut by = Vec::new();
    let dir = root.join(folder);
    for rel in [".claude/settings.json", ".claude/settings.local.json"] {
        if read_entry(&dir.join(rel)).is_registered() {
            by.push(format!("its own {rel}"));
        }
    }
    if user_reaches {
        by.push("the user settings".to_owned());
    }
    by
}

/// The lines for one `sessions.paths` glob.
fn session_lines(root: &Path, pattern: &str, user_reaches: bool) -> Vec<Line> {
    let folders = match matching_folders(root, pattern) {
        Ok(folders) => folders,
        Err(e) => {
            return vec![Line::warning(format!(
                "sessions.paths `{pattern}`: bad glob: {e}"
            ))];
        }
    };
    let ways = "run `helix-gate install claude --scope user`, or have the orchestrator copy the repository's .claude/settings.json into each session folder's .claude/, or start claude with `--settings FILE`";
    if folders.is_empty() {
        return vec![if user_reaches {
            Line::ok(format!(
                "sessions in `{pattern}` (no such folder yet) would load the hook from the user settings"
            ))
        } else {
            // Not a warning: `sessions.paths` has a default (the HELIX layout), and a
            // repository without such folders has nothing that misses the hook yet.
            Line::info(format!(
                "no folder matches `{pattern}` yet; sessions started there would NOT load the hook: {ways}"
            ))
        }];
    }
    let mut lines = Vec::new();
    let mut missing = 0;
    for folder in &folders {
        let by = reached_by(root, folder, user_reaches);
        if by.is_empty() {
            missing += 1;
        }
        if lines.len() < MAX_LISTED {
            lines.push(if by.is_empty() {
                Line::warning(format!(
                    "session folder {folder}/ (`{pattern}`): would NOT load the hook"
                ))
            } else {
                Line::ok(format!(
                    "session folder {folder}/ (`{pattern}`): loads the hook from {}",
                    by.join(" and ")
                ))
            });
        }
    }
    if folders.len() > MAX_LISTED {
        lines.push(Line::info(format!(
            "... {} more folder(s) match `{pattern}`",
            folders.len() - MAX_LISTED
        )));
    }
    if missing > 0 {
        lines.push(Line::warning(format!(
            "{missing} of {} session folder(s) in `{pattern}` would not load the hook: {ways}",
            folders.len()
        )));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::doctor::Level;
    use crate::agent::hooks_file;

    fn ours(command: &str) -> String {
        format!(
            r#"{{"model": "x", "hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "{command}", "statusMessage": "{}"}}]}}]}}}}"#,
            hooks_file::STATUS_MARKER
        )
    }

    #[test]
    fn reads_what_a_settings_file_registers() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        assert_eq!(read_entry(&path), Entry::NoFile);
        std::fs::write(
            &path,
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "./x.sh"}]}]}}"#,
        )
        .unwrap();
        assert_eq!(read_entry(&path), Entry::NotRegistered);
        std::fs::write(&path, ours("helix-gate hook --scope user")).unwrap();
        assert_eq!(
            read_entry(&path),
            Entry::Registered {
                events: vec!["Stop".into()],
                user_scope: true
            }
        );
        std::fs::write(&path, "{ no").unwrap();
        assert!(matches!(read_entry(&path), Entry::Unreadable(_)));
    }

    #[test]
    fn session_folders_are_found_by_glob_and_checked_for_their_own_settings() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for s in ["s1", "s2"] {
            std::fs::create_dir_all(root.join("projects/sessions").join(s).join("output")).unwrap();
        }
        assert_eq!(
            matching_folders(root, "projects/sessions/*").unwrap(),
            ["projects/sessions/s1", "projects/sessions/s2"]
        );
        std::fs::create_dir_all(root.join("projects/sessions/s1/.claude")).unwrap();
        std::fs::write(
            root.join("projects/sessions/s1/.claude/settings.json"),
            ours("helix-gate hook"),
        )
        .unwrap();
        let lines = session_lines(root, "projects/sessions/*", false);
        let texts: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        assert!(
            texts[0].contains("s1/") && texts[0].contains("its own .claude/settings.json"),
            "{texts:?}"
        );
        assert_eq!(lines[1].level, Level::Warning, "{texts:?}");
        assert!(texts[2].contains("1 of 2 session folder(s)"), "{texts:?}");
        // With the user registration every folder is reached.
        let lines = session_lines(root, "projects/sessions/*", true);
        assert!(lines.iter().all(|l| l.level == Level::Ok), "{lines:?}");
        // No folder yet: what a new session there would do.
        let lines = session_lines(root, "other/*", false);
        assert_eq!(lines.len(), 1);
        assert!(lines[0].text.contains("would NOT load"), "{lines:?}");
        assert_eq!(lines[0].level, Level::Info, "{lines:?}");
    }
}
