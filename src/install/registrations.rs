//! Where helix-gate's Claude Code hook is registered, and whether the sessions
//! started in the configured session folders (`sessions.paths`) load it: the
//! part of `doctor` about reaching sessions. And the same for Codex CLI
//! ([`codex_report`]): its registrations, and the two gates Codex keeps closed
//! until the person opens them (project trust, hook review).
//!
//! Claude Code 2.1.329 makes the folder a session was started in its project and
//! loads only that folder's `.claude/settings.json` and `.claude/settings.local.json`,
//! the user's `~/.claude/settings.json` and `--settings FILE`
//! (claude-code-hooks.md, section 2.4). So a registration at the repository root
//! reaches only sessions started at the root; a session in `projects/sessions/s1`
//! needs the user registration (this repository opted in), its own folder's
//! settings, or `--settings` (which no file shows, so it is not reported).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::agent::claude::hooks as claude;
use crate::agent::codex::config::{CodexConfig, TRUSTED};
use crate::agent::codex::hooks as codex;
use crate::agent::copilot::hooks as copilot;
use crate::agent::gemini::hooks as gemini;
use crate::agent::hooks_file::{self, Scope, USER_SCOPE_FLAG};

/// How far below a glob's literal prefix session folders are looked for, and how
/// many folders are visited at most: `doctor` must stay quick in a large tree.
const MAX_DEPTH: usize = 6;
const MAX_VISITED: usize = 5_000;
/// Session folders listed one by one per glob; the rest are counted.
const MAX_LISTED: usize = 10;

/// What one Claude Code settings file says about the hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// No such file.
    NoFile,
    /// The file has no helix-gate hook.
    NotRegistered,
    /// helix-gate's hook for these events; `user_scope`: its command carries
    /// `--scope user` (answers only in repositories that opted in).
    Registered {
        events: Vec<String>,
        user_scope: bool,
    },
    /// The file cannot be read or is not a JSON object.
    Unreadable(String),
}

impl Entry {
    fn is_registered(&self) -> bool {
        matches!(self, Entry::Registered { .. })
    }
}

/// One settings file and what it holds.
#[derive(Debug, Clone)]
pub struct Registration {
    pub scope: Scope,
    pub path: PathBuf,
    pub entry: Entry,
}

/// Whether a line is fine or needs attention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Ok,
    /// A fact, neither good nor bad (e.g. an agent the hook is not registered for).
    Info,
    Warning,
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    pub level: Level,
    pub text: String,
}

impl Line {
    pub(crate) fn ok(text: String) -> Line {
        Line {
            level: Level::Ok,
            text,
        }
    }
    pub(crate) fn info(text: String) -> Line {
        Line {
            level: Level::Info,
            text,
        }
    }
    fn warning(text: String) -> Line {
        Line {
            level: Level::Warning,
            text,
        }
    }
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

/// What the settings file at `path` holds.
fn read_entry(path: &Path) -> Entry {
    let text = match crate::fs::read::optional_text(path, crate::fs::read::CONFIG_LIMIT) {
        Ok(Some(text)) => text,
        Ok(None) => return Entry::NoFile,
        Err(e) => return Entry::Unreadable(format!("cannot read it: {e}")),
    };
    if text.trim().is_empty() {
        return Entry::NotRegistered;
    }
    let Ok(Value::Object(settings)) = serde_json::from_str::<Value>(&text) else {
        return Entry::Unreadable("not a JSON object; Claude Code may ignore it".to_owned());
    };
    let mut events = Vec::new();
    let mut user_scope = false;
    let Some(hooks) = settings.get("hooks").and_then(Value::as_object) else {
        return Entry::NotRegistered;
    };
    for (event, groups) in hooks {
        let ours = groups
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|g| g.get("hooks").and_then(Value::as_array))
            .flatten()
            .filter(|h| hooks_file::is_ours(h))
            .collect::<Vec<_>>();
        if ours.is_empty() {
            continue;
        }
        user_scope |= ours.iter().any(|h| {
            h.get("command")
                .and_then(Value::as_str)
                .is_some_and(|c| c.ends_with(USER_SCOPE_FLAG))
        });
        events.push(event.clone());
    }
    if events.is_empty() {
        Entry::NotRegistered
    } else {
        Entry::Registered { events, user_scope }
    }
}

/// The Codex part of `doctor`: helix-gate's registrations in
/// `<repo>/.codex/hooks.json` and `$CODEX_HOME/hooks.json`, and whether Codex
/// will run them (the project trusted, the entries reviewed, per the user
/// `config.toml`). Codex loads a project's `.codex/hooks.json` for sessions
/// started anywhere in the repository, subfolders included.
pub fn codex_report(root: &Path, opted_in: bool) -> Vec<Line> {
    let mut lines = Vec::new();
    let config = CodexConfig::load();
    if let Err(e) = &config {
        lines.push(Line::warning(format!(
            "Codex's config.toml cannot be read, so project trust and hook reviews are unknown: {e:#}"
        )));
    }
    let config = config.ok();
    let mut any = false;
    for scope in [codex::Scope::Project, codex::Scope::User] {
        let Ok(path) = codex::hooks_path(root, scope) else {
            continue;
        };
        let (name, shown) = match scope {
            codex::Scope::Project => ("project", codex::PROJECT_HOOKS.to_owned()),
            codex::Scope::User => ("user", "$CODEX_HOME/hooks.json".to_owned()),
        };
        let entry = read_entry(&path);
        let Entry::Registered { events, user_scope } = entry else {
            lines.push(match entry {
                Entry::Unreadable(why) => Line::warning(format!("{name}: {shown}: {why}")),
                _ => not_registered(&path, name, &shown, "codex"),
            });
            continue;
        };
        any = true;
        let events = events.join(", ");
        lines.push(match scope {
            codex::Scope::Project => Line::ok(format!(
                "{name}: {shown}: registered ({events}); reaches every Codex session in this repository, subfolders included"
            )),
            codex::Scope::User => user_line(
                &format!("{name}: {shown}: registered ({events})"),
                "codex",
                "every Codex session",
                user_scope,
                opted_in,
            ),
        });
        let Some(config) = &config else {
            continue;
        };
        if scope == codex::Scope::Project {
            let key = crate::agent::codex::config::project_key(root);
            lines.push(match config.project_trust(root).as_deref() {
                Some(TRUSTED) => Line::ok(format!(
                    "{name}: the project is trusted in {} ([projects.\"{key}\"])",
                    config.path.display()
                )),
                other => Line::warning(format!(
                    "{name}: Codex ignores {shown} until the project is trusted ({}): add `[projects.\"{key}\"] trust_level = \"trusted\"` to {}, run `codex exec --trust` once, or `helix-gate install codex --trust-project`",
                    other.map_or_else(|| "no entry".to_owned(), |t| format!("trust_level = \"{t}\"")),
                    config.path.display()
                )),
            });
        }
        let reviews = codex::installed_reviews(&path);
        let missing: Vec<&str> = reviews
            .iter()
            .filter(|r| !config.is_reviewed(r))
            .map(|r| r.event.as_str())
            .collect();
        lines.push(if missing.is_empty() {
            Line::ok(format!(
                "{name}: all {} helix-gate hook(s) are reviewed in Codex's config.toml",
                reviews.len()
            ))
        } else {
            Line::warning(format!(
                "{name}: {} of {} helix-gate hook(s) are not reviewed in Codex's config.toml ({}): `codex exec` skips them silently and the Codex TUI asks at startup; review them there, or run `helix-gate install codex{} --trust-hooks`",
                missing.len(),
                reviews.len(),
                missing.join(", "),
                if scope == codex::Scope::User { " --scope user" } else { "" }
            ))
        });
    }
    if !any && lines.iter().all(|l| l.level != Level::Warning) {
        // Nothing registered and nothing wrong: one line says it.
        return vec![Line::info(format!(
            "not registered ({}, $CODEX_HOME/hooks.json); `helix-gate install codex` registers it",
            codex::PROJECT_HOOKS
        ))];
    }
    lines
}

/// The events helix-gate is registered for in one hooks file (joined for a line)
/// and whether that registration is user-scoped; `None` with the line that says
/// why not (nothing registered, or a file that cannot be read) added to `lines`.
fn registered(
    path: &Path,
    name: &str,
    shown: &str,
    agent: &str,
    lines: &mut Vec<Line>,
) -> Option<(String, bool)> {
    let found = match agent {
        "gemini" => gemini::registered_events(path),
        _ => copilot::registered_events(path),
    };
    match found {
        Ok(Some((events, user_scope))) => Some((events.join(", "), user_scope)),
        Ok(None) => {
            lines.push(not_registered(path, name, shown, agent));
            None
        }
        Err(why) => {
            lines.push(Line::warning(format!("{name}: {shown}: {why}")));
            None
        }
    }
}

/// The Gemini CLI part of `doctor`: helix-gate's registrations in
/// `<repo>/.gemini/settings.json` and `~/.gemini/settings.json`, and whether
/// Gemini trusts the repository (it ignores an untrusted folder's settings).
/// Gemini loads a project's `.gemini/settings.json` only for sessions started
/// in that very folder.
pub fn gemini_report(root: &Path, opted_in: bool) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut any = false;
    for scope in [gemini::Scope::Project, gemini::Scope::User] {
        let Ok(path) = gemini::settings_path(root, scope) else {
            continue;
        };
        let (name, shown) = match scope {
            gemini::Scope::Project => ("project", gemini::PROJECT_SETTINGS),
            gemini::Scope::User => ("user", "~/.gemini/settings.json"),
        };
        let Some((events, user_scope)) = registered(&path, name, shown, "gemini", &mut lines)
        else {
            continue;
        };
        any = true;
        lines.push(match scope {
            gemini::Scope::Project => match gemini::folder_trusted(root) {
                Some(true) => Line::ok(format!(
                    "{name}: {shown}: registered ({events}); reaches Gemini sessions started at the repository root (not in subfolders: they load only their own .gemini/settings.json and the user's); the folder is trusted"
                )),
                trusted => Line::warning(format!(
                    "{name}: {shown}: registered ({events}), but Gemini ignores it until the folder is trusted ({}): accept the trust prompt at startup, add `\"{}\": \"TRUST_FOLDER\"` to {}, or set GEMINI_CLI_TRUST_WORKSPACE=true",
                    if trusted == Some(false) { "marked not trusted" } else { "no entry" },
                    root.display(),
                    gemini::trusted_folders_path().map_or_else(|_| "~/.gemini/trustedFolders.json".to_owned(), |p| p.display().to_string())
                )),
            },
            gemini::Scope::User => user_line(
                &format!("{name}: {shown}: registered ({events})"),
                "gemini",
                "every Gemini session, session folders included",
                user_scope,
                opted_in,
            ),
        });
    }
    if !any && !lines.iter().any(|l| l.text.contains(LOST)) {
        return vec![Line::info(format!(
            "not registered ({}, ~/.gemini/settings.json); `helix-gate install gemini` registers it",
            gemini::PROJECT_SETTINGS
        ))];
    }
    lines
}

/// The Copilot CLI part of `doctor`: helix-gate's registrations in
/// `<repo>/.github/hooks/helix-gate.json` and `~/.copilot/hooks/helix-gate.json`.
pub fn copilot_report(root: &Path, opted_in: bool) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut any = false;
    for scope in [copilot::Scope::Project, copilot::Scope::User] {
        let Ok(path) = copilot::hooks_path(root, scope) else {
            continue;
        };
        let (name, shown) = match scope {
            copilot::Scope::Project => ("project", copilot::PROJECT_HOOKS),
            copilot::Scope::User => ("user", "~/.copilot/hooks/helix-gate.json"),
        };
        let Some((events, user_scope)) = registered(&path, name, shown, "copilot", &mut lines)
        else {
            continue;
        };
        any = true;
        lines.push(match scope {
            copilot::Scope::Project => Line::ok(format!(
                "{name}: {shown}: registered ({events}); Copilot loads it once the folder is trusted (`copilot -p`: trusted, or GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true)"
            )),
            copilot::Scope::User => user_line(
                &format!("{name}: {shown}: registered ({events})"),
                "copilot",
                "every Copilot session",
                user_scope,
                opted_in,
            ),
        });
    }
    if !any && !lines.iter().any(|l| l.text.contains(LOST)) {
        return vec![Line::info(format!(
            "not registered ({}, ~/.copilot/hooks/helix-gate.json); `helix-gate install copilot` registers it",
            copilot::PROJECT_HOOKS
        ))];
    }
    lines
}

/// What the line of a registration that `install` wrote and that is gone says.
const LOST: &str = "not registered any more";

/// The `doctor` line of a hooks file (`path`, `shown` as `name`) without
/// helix-gate's hook: fine, unless `install` registered it there (its
/// [`super::record`]) and it was removed or rewritten since.
fn not_registered(path: &Path, name: &str, shown: &str, agent: &str) -> Line {
    if !super::record::was_registered(path) {
        return Line::info(format!("{name}: {shown}: not registered"));
    }
    let scope = if name == "user" { " --scope user" } else { "" };
    Line::warning(format!(
        "{name}: {shown}: {LOST}, though `helix-gate install {agent}{scope}` registered it there (helix-gate's record in its state folder): it was removed or rewritten since, and the sessions it reached are not gated; run `helix-gate install {agent}{scope}` again, or `helix-gate uninstall {agent}{scope}` if it was meant"
    ))
}

/// The `doctor` line of an agent's user-scope registration (`head` says where and
/// which events): written without `--scope user`, or reaching `reach` in a
/// repository that opted in or not.
fn user_line(head: &str, agent: &str, reach: &str, user_scope: bool, opted_in: bool) -> Line {
    if !user_scope {
        Line::warning(format!(
            "{head} without `--scope user`: it checks every repository on this machine with the default rules; run `helix-gate install {agent} --scope user` again"
        ))
    } else if opted_in {
        Line::ok(format!(
            "{head} for {reach}; this repository opted in (config/helix-gate.yaml)"
        ))
    } else {
        Line::warning(format!(
            "{head} for {reach}, but this repository has no config/helix-gate.yaml, so the hook does nothing here (create the file to opt in)"
        ))
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

/// The first existing folder that one of the `sessions.paths` patterns matches (a bad
/// glob matches nothing here; `doctor` reports it): `install` warns about sessions in
/// subdirectories only where there are any.
pub fn first_session_folder(root: &Path, session_paths: &[String]) -> Option<String> {
    session_paths
        .iter()
        .find_map(|pattern| matching_folders(root, pattern).ok()?.into_iter().next())
}

/// The folders below `root` that `pattern` matches (relative, `/` separated,
/// sorted), looked for below the pattern's literal prefix within [`MAX_DEPTH`]
/// levels; hidden folders (`.git`, `.helix-gate`) are skipped.
fn matching_folders(root: &Path, pattern: &str) -> Result<Vec<String>, String> {
    let glob = globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| e.to_string())?
        .compile_matcher();
    let prefix: Vec<&str> = pattern
        .split('/')
        .take_while(|part| !part.contains(['*', '?', '[', '{']))
        .collect();
    let start = prefix.join("/");
    let mut found = Vec::new();
    let mut visited = 0;
    let mut pending = vec![(start, 0usize)];
    while let Some((rel, depth)) = pending.pop() {
        let dir = if rel.is_empty() {
            root.to_path_buf()
        } else {
            root.join(&rel)
        };
        if !dir.is_dir() {
            continue;
        }
        if !rel.is_empty() && glob.is_match(&rel) {
            found.push(rel.clone());
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            visited += 1;
            if visited > MAX_VISITED {
                break;
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            // Not followed through symbolic links: a link may lead anywhere.
            if name.starts_with('.') || !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            pending.push((child, depth + 1));
        }
    }
    found.sort();
    found.dedup();
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

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
