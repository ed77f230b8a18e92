//! The Gemini CLI part of `doctor`.

use std::path::Path;

use super::hooks as gemini;
use crate::agent::doctor::{LOST, Line, registered, user_line};

/// The Gemini CLI part of `doctor`: helix-gate's registrations in
/// `<repo>/.gemini/settings.json` and `~/.gemini/settings.json`, and whether
/// Gemini trusts the repository (it ignores an untrusted folder's settings).
/// Gemini loads a project's `.gemini/settings.json` only for sessions started
/// in that very folder.
pub(super) fn report(root: &Path, opted_in: bool) -> Vec<Line> {
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
        let Some((events, user_scope)) = registered(
            &path,
            name,
            shown,
            "gemini",
            &mut lines,
            gemini::registered_events,
        ) else {
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
