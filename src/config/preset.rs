//! Presets: the ADR formats helix-gate ships rules for (HELIX, MADR, Nygard).
//!
//! A preset selects configuration, never code paths in rules: its rules file
//! (`config/presets/<name>.yaml`, HELIX's is `config/adr-completeness-rules.yaml`)
//! and its settings defaults (where the ADRs live, how files are numbered). Rules
//! read the compiled [`super::RuleSet`] and never learn which preset produced it.

use std::sync::OnceLock;

use serde::Deserialize;

/// An ADR format with a shipped rules file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Preset {
    /// HELIX ADRs: front matter with `adr_id`, title, status, files; German sections.
    #[default]
    Helix,
    /// MADR 4 (and the MADR 2/3 variants with `* Status:` bullets).
    Madr,
    /// Michael Nygard's format as adr-tools writes it.
    Nygard,
}

impl Preset {
    pub const ALL: [Preset; 3] = [Preset::Helix, Preset::Madr, Preset::Nygard];

    pub fn name(self) -> &'static str {
        match self {
            Preset::Helix => "helix",
            Preset::Madr => "madr",
            Preset::Nygard => "nygard",
        }
    }

    pub fn parse(text: &str) -> Option<Preset> {
        Preset::ALL.into_iter().find(|p| p.name() == text.trim())
    }

    /// The preset's rules file, embedded; `None` for HELIX, whose rules are the
    /// default rules file (loaded through its faster JSON twin).
    pub fn rules_text(self) -> Option<&'static str> {
        match self {
            Preset::Helix => None,
            Preset::Madr => Some(include_str!("../../config/presets/madr.yaml")),
            Preset::Nygard => Some(include_str!("../../config/presets/nygard.yaml")),
        }
    }

    /// Settings this preset changes, merged over the built-in settings and under
    /// a repository's own `config/helix-gate.yaml` (whose `adr.directory` wins).
    pub fn settings_text(self) -> Option<&'static str> {
        match self {
            Preset::Helix => None,
            // MADR's own default folder; `docs/adr` is the other common one.
            Preset::Madr => Some(
                "adr:\n  directory: docs/decisions\n  number_width: 4\n  index: false\n  globs: [\"docs/decisions/**/*.md\", \"docs/adr/**/*.md\"]\n  exclude: [\"**/INDEX.md\", \"**/index.md\", \"**/README.md\", \"**/templates/**\", \"**/template.md\", \"**/*.template.md\", \"**/{adr,000,0000}-template.md\", \"**/*-{000,0000}-template.md\"]\nlifecycle:\n  transitions:\n    Proposed: [Accepted, Rejected, On hold]\n    Draft: [Proposed, Accepted, Rejected]\n    On hold: [Proposed, Accepted, Rejected]\n    Accepted: [Deprecated, Superseded]\n    Implemented: []\n  initial: [Proposed, Draft]\n",
            ),
            // adr-tools' default folder (`adr init` without an argument).
            Preset::Nygard => Some(
                "adr:\n  directory: doc/adr\n  number_width: 4\n  index: false\n  globs: [\"doc/adr/**/*.md\", \"docs/adr/**/*.md\", \"docs/architecture/decisions/**/*.md\"]\n  exclude: [\"**/INDEX.md\", \"**/README.md\", \"**/templates/**\", \"**/template.md\", \"**/*.template.md\", \"**/{adr,000,0000}-template.md\", \"**/*-{000,0000}-template.md\"]\nlifecycle:\n  transitions:\n    Proposed: [Accepted, Rejected]\n    Accepted: [Deprecated, Superseded]\n    Implemented: []\n  initial: [Proposed, Accepted]\n",
            ),
        }
    }
}

impl std::fmt::Display for Preset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

static CLI_OVERRIDE: OnceLock<Preset> = OnceLock::new();

/// Record the global `--preset` flag. Set once by the command line before any
/// command runs; every settings load then uses it instead of the `preset:` key.
/// A process-wide value rather than a parameter: the settings are loaded by every
/// entry point (hook, pre-commit, approval, ADR-directory commands), and the flag
/// must reach all of them the same way.
pub fn set_cli_override(preset: Preset) {
    let _ = CLI_OVERRIDE.set(preset);
}

/// The `--preset` flag, when given.
pub fn cli_override() -> Option<Preset> {
    CLI_OVERRIDE.get().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_rules_file_compiles() {
        for preset in Preset::ALL {
            if let Some(text) = preset.rules_text() {
                let rules = super::super::RuleSet::parse(text, preset.name()).unwrap();
                assert!(!rules.base.required_sections.is_empty(), "{preset}");
                assert!(!rules.document.front_matter_required, "{preset}");
            }
            assert_eq!(Preset::parse(preset.name()), Some(preset));
        }
    }

    #[test]
    fn status_vocabulary_is_per_preset() {
        let madr = super::super::RuleSet::parse(Preset::Madr.rules_text().unwrap(), "m")
            .unwrap()
            .document;
        assert!(madr.status_is_valid("superseded by ADR-0005"));
        assert!(madr.status_is_valid("Accepted"));
        assert!(!madr.status_is_valid("acceptedly"));
        assert!(!madr.status_is_valid("Implemented"));
        let helix = super::super::RuleSet::builtin().unwrap().document;
        assert!(helix.status_is_valid("implemented"));
        assert!(!helix.status_is_valid("Accepted by all"));
    }
}
