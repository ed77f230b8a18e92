//! The Copilot CLI part of `doctor`.

use std::path::Path;

use super::hooks as copilot;
use crate::agent::doctor::{LOST, Line, registered, user_line};

/// The Copilot CLI part of `doctor`: helix-gate's registrations in
/// `<repo>/.github/hooks/helix-gate.json` and `~/.copilot/hooks/helix-gate.json`.
pub(super) fn report(root: &Path, opted_in: bool) -> Vec<Line> {
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
        let Some((events, user_scope)) = registered(
            &path,
            name,
            shown,
            "copilot",
            &mut lines,
            copilot::registered_events,
        ) else {
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
