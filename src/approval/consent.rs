//! Consent before a repository's own reviewer runs.
//!
//! The built-in reviewer is the Claude Code CLI (`claude`, the default of the
//! embedded `config/approvals.yaml`). Any other `command` is a program the
//! repository chose, and helix-gate signs what it approves with the user's key:
//! where the repository did not ask for helix-gate itself (the user-scope hook
//! reaches every repository that ships `config/helix-gate.yaml`), such a program
//! runs only after the person ran `helix-gate trust` for the configuration as it
//! is now ([`crate::config::trust`]).

use std::path::Path;

use crate::config::protected::Snapshot;
use crate::config::trust::{self, TrustState};
use crate::text::escape_controls;

use super::settings::ApprovalSettings;

/// The reviewer command of the embedded `config/approvals.yaml`; a test keeps
/// them equal. Only this command runs without consent.
pub const DEFAULT_COMMAND: &str = "claude";

/// Why the reviewer of type `kind` may not run in the repository at `root`
/// without consent: `Some(message)` when its effective `command` is not
/// [`DEFAULT_COMMAND`] and the repository's configuration as it is now is not
/// trusted. `None` for the default command, an unknown type, or a trusted
/// configuration.
pub fn consent_problem(root: &Path, settings: &ApprovalSettings, kind: &str) -> Option<String> {
    consent_problem_in(root, root, settings, kind)
}

/// [`consent_problem`] for settings read from `config_root` (the session's
/// copy of the configuration): that configuration is the one that must have
/// been trusted.
pub fn consent_problem_in(
    root: &Path,
    config_root: &Path,
    settings: &ApprovalSettings,
    kind: &str,
) -> Option<String> {
    let command = &settings.get(kind)?.command;
    if command == DEFAULT_COMMAND {
        return None;
    }
    let digest = Snapshot::read(config_root).digest();
    let why = match trust::state(root, &digest) {
        TrustState::Trusted { .. } => return None,
        TrustState::Untrusted => "this repository's configuration is not trusted".to_owned(),
        TrustState::Changed { trusted_at } => format!(
            "this repository's configuration changed since you trusted it at {}",
            escape_controls(&trusted_at)
        ),
    };
    Some(format!(
        "the reviewer command `{}` of approval type `{}` comes from this repository's config/approvals.yaml and was not run: {why}. \
To consent, read config/approvals.yaml and approvals/, then run `helix-gate trust` in {} (a changed configuration asks again)",
        escape_controls(command),
        escape_controls(kind),
        escape_controls(&root.display().to_string()),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_command_is_the_embedded_one_and_needs_no_consent() {
        let settings = super::super::settings::from_layers(None, "none").unwrap();
        for kind in settings.type_names() {
            assert_eq!(settings.get(kind).unwrap().command, DEFAULT_COMMAND);
        }
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(consent_problem(dir.path(), &settings, "adr"), None);
        assert_eq!(consent_problem(dir.path(), &settings, "no-such-type"), None);
    }

    #[test]
    fn a_repository_command_without_consent_is_named_escaped() {
        let settings = super::super::settings::from_layers(
            Some("defaults:\n  command: \"./evil\\e[31m.sh\"\n"),
            "x",
        )
        .unwrap();
        // A fresh folder has no record in any state folder.
        let dir = tempfile::tempdir().unwrap();
        let message = consent_problem(dir.path(), &settings, "adr").unwrap();
        assert!(message.contains("`./evil\\x1b[31m.sh`"), "{message}");
        assert!(message.contains("was not run"), "{message}");
        assert!(message.contains("helix-gate trust"), "{message}");
    }
}
