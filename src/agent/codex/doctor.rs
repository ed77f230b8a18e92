//! The Codex CLI part of `doctor`.

use std::path::Path;

use super::config::{CodexConfig, TRUSTED};
use super::hooks as codex;
use crate::agent::doctor::{Entry, Level, Line, not_registered, read_entry, user_line};

/// The Codex part of `doctor`: helix-gate's registrations in
/// `<repo>/.codex/hooks.json` and `$CODEX_HOME/hooks.json`, and whether Codex
/// will run them (the project trusted, the entries reviewed, per the user
/// `config.toml`). Codex loads a project's `.codex/hooks.json` for sessions
/// started anywhere in the repository, subfolders included.
pub(super) fn report(root: &Path, opted_in: bool) -> Vec<Line> {
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
