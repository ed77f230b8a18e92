//! What the Stop hook's timeout must be for the approval settings, and
//! `doctor`'s check of the timeouts actually installed.
//!
//! `install claude` and `install codex` register the Stop hook with [`needed_s`]; the hook keeps
//! its one deadline below the timeout it finds installed (`hook::reviews`).
//! A timeout installed before `timeout` was raised in config/approvals.yaml
//! leaves reviews too little time: [`doctor_reports`] says so.

use std::path::Path;

use crate::agent::claude::hooks as installed;
use crate::agent::hooks_file;
use crate::diagnostic::{FileReport, Finding, Severity};

use super::settings;

/// Where a Stop hook entry was registered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Registered {
    /// A Claude Code settings file (`install claude`).
    Claude,
    /// A Codex hooks file (`install codex`).
    Codex,
    /// The Claude Code plugin's `hooks/hooks.json` (a fixed timeout).
    Plugin,
}

/// The Stop timeout (seconds) the approval settings of `root` need; `None`
/// when they cannot be read (the configuration error is reported elsewhere).
pub fn needed_s(root: &Path) -> Option<u64> {
    let settings = settings::load(root).ok()?;
    Some(hooks_file::stop_timeout_s(
        settings.longest_enabled_timeout(),
    ))
}

/// One report per settings file (Claude Code's, Codex's hooks files) whose
/// helix-gate Stop hook has a timeout
/// below [`needed_s`] (warnings, rule `stop-timeout`); with `CLAUDE_PLUGIN_ROOT`
/// set (doctor run as, or pointed at, the Claude Code plugin), also the
/// plugin's `hooks/hooks.json`.
pub fn doctor_reports(root: &Path) -> Vec<FileReport> {
    let plugin = crate::env::var(crate::env::CLAUDE_PLUGIN_ROOT);
    doctor_reports_with(root, plugin.as_deref().map(Path::new))
}

/// [`doctor_reports`] with the plugin folder given.
pub fn doctor_reports_with(root: &Path, plugin_root: Option<&Path>) -> Vec<FileReport> {
    let Some(needed) = needed_s(root) else {
        return Vec::new();
    };
    let settings_files = installed::installed_stop_timeouts(root)
        .into_iter()
        .map(|(file, seconds)| (file, seconds, Registered::Claude));
    let codex_files = crate::agent::codex::hooks::installed_stop_timeouts(root)
        .into_iter()
        .map(|(file, seconds)| (file, seconds, Registered::Codex));
    let plugin_files = plugin_root
        .map(installed::plugin_stop_timeouts)
        .unwrap_or_default()
        .into_iter()
        .map(|(file, seconds)| (file, seconds, Registered::Plugin));
    settings_files
        .chain(codex_files)
        .chain(plugin_files)
        .filter(|(_, seconds, _)| *seconds < needed)
        .map(|(file, seconds, registered)| {
            let path = crate::paths::display(root, &file);
            let margin = hooks_file::STOP_TIMEOUT_MARGIN_S;
            let install = if registered == Registered::Codex {
                "codex"
            } else {
                "claude"
            };
            let (message, hint) = if registered == Registered::Plugin {
                (
                    format!(
                        "the helix-gate plugin's Stop hook has a fixed timeout of {seconds} s (its hooks/hooks.json), but config/approvals.yaml needs {needed} s (the longest enabled approval timeout plus {margin} s); reviews that need longer are stopped at the hook's deadline"
                    ),
                    format!(
                        "keep every enabled approval `timeout` in config/approvals.yaml at or below {} s, or register the hooks with `helix-gate install claude` instead of the plugin (its Stop timeout follows the config)",
                        seconds.saturating_sub(margin)
                    ),
                )
            } else {
                (
                    format!(
                        "helix-gate's Stop hook has a timeout of {seconds} s, but config/approvals.yaml needs {needed} s (the longest enabled approval timeout plus {margin} s); reviews that need longer are stopped at the hook's deadline"
                    ),
                    format!("run `helix-gate install {install}` again (same --scope) to set the Stop timeout from config/approvals.yaml"),
                )
            };
            FileReport {
                path: path.clone(),
                findings: vec![
                    Finding::new(crate::rules::gate::STOP_TIMEOUT.id, Severity::Warning, message)
                        .in_file(path)
                        .hint(hint),
                ],
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeout_below_the_config_is_reported_once_per_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("config")).unwrap();
        std::fs::write(
            root.join("config/approvals.yaml"),
            "approvals: {adr: {timeout: 900}}\n",
        )
        .unwrap();
        assert_eq!(needed_s(root), Some(960));
        let marker = hooks_file::STATUS_MARKER;
        std::fs::create_dir_all(root.join(".claude")).unwrap();
        std::fs::write(
            root.join(".claude/settings.json"),
            format!(r#"{{"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "helix-gate hook", "timeout": 360, "statusMessage": "{marker}"}}]}}]}}}}"#),
        )
        .unwrap();
        let reports: Vec<_> = doctor_reports(root)
            .into_iter()
            .filter(|r| r.path.starts_with(".claude/"))
            .collect();
        assert_eq!(reports.len(), 1, "{reports:?}");
        assert_eq!(reports[0].path, ".claude/settings.json");
        let finding = &reports[0].findings[0];
        assert_eq!(finding.rule, "stop-timeout");
        assert!(finding.message.contains("360 s") && finding.message.contains("960 s"));
        // A Codex registration is checked the same way.
        std::fs::create_dir_all(root.join(".codex")).unwrap();
        std::fs::write(
            root.join(".codex/hooks.json"),
            format!(r#"{{"hooks": {{"Stop": [{{"hooks": [{{"type": "command", "command": "helix-gate hook --agent codex", "timeout": 90, "statusMessage": "{marker}"}}]}}]}}}}"#),
        )
        .unwrap();
        let codex: Vec<_> = doctor_reports(root)
            .into_iter()
            .filter(|r| r.path == ".codex/hooks.json")
            .collect();
        assert_eq!(codex.len(), 1, "{codex:?}");
        assert!(
            codex[0].findings[0]
                .hint
                .as_deref()
                .is_some_and(|h| h.contains("helix-gate install codex"))
        );
        std::fs::write(root.join("config/approvals.yaml"), "").unwrap();
        assert!(
            doctor_reports(root)
                .iter()
                .all(|r| !r.path.starts_with(".claude/")),
            "360 s is enough for the default 300 s"
        );
    }
}
