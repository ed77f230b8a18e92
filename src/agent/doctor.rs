//! The shared part of `doctor`'s report on the agents' registrations: its
//! lines, the reading of a hooks file in the Claude Code layout, the lines
//! every agent words alike (a registration lost since `install`, a user-scope
//! registration), and the session folders (`sessions.paths`) found by glob.
//! Each agent's own report is its room's (`super::NAME::doctor`), asked
//! through `Backend::doctor`.

use std::path::Path;

use serde_json::Value;

use super::hooks_file::{self, USER_SCOPE_FLAG};

/// How far below a glob's literal prefix session folders are looked for, and how
/// many folders are visited at most: `doctor` must stay quick in a large tree.
pub(crate) const MAX_DEPTH: usize = 6;
pub(crate) const MAX_VISITED: usize = 5_000;
/// Session folders listed one by one per glob; the rest are counted.
pub(crate) const MAX_LISTED: usize = 10;

/// How an agent reads helix-gate's events in one of its hooks files, and
/// whether their command carries `--scope user` (`None`: no file or no
/// entry; `Err`: unreadable).
pub(crate) type EventsOf = fn(&Path) -> Result<Option<(Vec<String>, bool)>, String>;

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
    pub(crate) fn warning(text: String) -> Line {
        Line {
            level: Level::Warning,
            text,
        }
    }
}

/// The events helix-gate is registered for in one hooks file (joined for a line)
/// and whether that registration is user-scoped; `None` with the line that says
/// why not (nothing registered, or a file that cannot be read) added to `lines`.
pub(crate) fn registered(
    path: &Path,
    name: &str,
    shown: &str,
    agent: &str,
    lines: &mut Vec<Line>,
    events_of: EventsOf,
) -> Option<(String, bool)> {
    match events_of(path) {
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

/// What the line of a registration that `install` wrote and that is gone says.
pub(crate) const LOST: &str = "not registered any more";

/// The `doctor` line of a hooks file (`path`, `shown` as `name`) without
/// helix-gate's hook: fine, unless `install` registered it there (its
/// [`super::record`]) and it was removed or rewritten since.
pub(crate) fn not_registered(path: &Path, name: &str, shown: &str, agent: &str) -> Line {
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
pub(crate) fn user_line(
    head: &str,
    agent: &str,
    reach: &str,
    user_scope: bool,
    opted_in: bool,
) -> Line {
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
pub(crate) fn matching_folders(root: &Path, pattern: &str) -> Result<Vec<String>, String> {
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

/// What one hooks file in the Claude Code layout (Claude Code's settings,
/// Codex's `hooks.json`) says about the hook.
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
    pub fn is_registered(&self) -> bool {
        matches!(self, Entry::Registered { .. })
    }
}

/// What the settings file at `path` holds.
pub fn read_entry(path: &Path) -> Entry {
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
