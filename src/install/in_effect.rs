//! What `doctor` shows first: the configuration in effect (the preset, where the
//! ADRs are, which configuration files exist and which are built-in) and whether
//! the git pre-commit hook is installed. Data only; `cli` prints it.

use std::path::Path;

use super::git;
use crate::agent::doctor::Line;
use crate::config::protected::APPROVALS_PATH;
use crate::config::settings::SETTINGS_PATH;
use crate::config::{Preset, RULES_PATH, Settings};

/// The configuration lines (facts, [`crate::agent::doctor::Level::Info`]).
pub fn settings_lines(root: &Path, settings: &Settings) -> Vec<Line> {
    let own = root.join(SETTINGS_PATH).is_file();
    let from = if crate::config::preset::cli_override().is_some() {
        "the --preset flag".to_owned()
    } else if own {
        SETTINGS_PATH.to_owned()
    } else {
        "the default".to_owned()
    };
    let adr = &settings.adr;
    let mut lines = vec![
        Line::info(format!("preset: {} (from {from})", settings.preset)),
        Line::info(format!("ADR directory: {}", adr.directory)),
        Line::info(format!("ADR globs: {}", adr.globs.join(", "))),
    ];
    if !adr.exclude.is_empty() {
        lines.push(Line::info(format!("excluded: {}", adr.exclude.join(", "))));
    }
    let rules_builtin = match settings.preset {
        Preset::Helix => "built-in config/adr-completeness-rules.yaml".to_owned(),
        p => format!("built-in preset {p} (config/presets/{p}.yaml)"),
    };
    for (path, builtin, what) in [
        (
            SETTINGS_PATH,
            format!("built-in settings of preset {}", settings.preset),
            if own {
                ""
            } else {
                "; `helix-gate init` writes it"
            },
        ),
        (RULES_PATH, rules_builtin, ""),
        (APPROVALS_PATH, "built-in approval types".to_owned(), ""),
    ] {
        lines.push(Line::info(
            if std::fs::symlink_metadata(root.join(path)).is_ok() {
                format!("{path}: in effect")
            } else {
                format!("{path}: does not exist, {builtin} in effect{what}")
            },
        ));
    }
    lines
}

/// Whether the git pre-commit hook of the repository at `root` is helix-gate's.
pub fn git_hook_line(root: &Path) -> Line {
    let Ok(dir) = crate::git::Repo::discover(root).and_then(|r| r.hooks_dir()) else {
        return Line::info("not a git repository: no pre-commit hook".to_owned());
    };
    let hook = dir.join(git::HOOK);
    let shown = crate::paths::display(root, &hook);
    match git::state(&dir) {
        git::State::Missing => Line::info(format!(
            "{shown}: not installed; `helix-gate install git` installs it (or use the pre-commit framework's entry)"
        )),
        git::State::Shim { chained } => Line::ok(if chained {
            format!("{shown}: installed (runs {} first)", git::LOCAL)
        } else {
            format!("{shown}: installed")
        }),
        git::State::Foreign => Line::info(format!(
            "{shown}: another hook, not helix-gate's (`helix-gate install git` keeps it as {} and runs it first)",
            git::LOCAL
        )),
    }
}
