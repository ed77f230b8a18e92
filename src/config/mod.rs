//! Configuration: the rules file and the settings file, both embedded as defaults.

pub mod pattern;
pub mod rules_file;
pub mod settings;

use std::path::{Path, PathBuf};

pub use rules_file::{RuleSet, RulesFileError};
pub use settings::{AdrMatcher, Settings, SettingsError};

/// Repository-relative location of a repository's own rules file.
pub const RULES_PATH: &str = "config/adr-completeness-rules.yaml";

/// Load the rules: `explicit` (from `--rules`) wins, then `<root>/config/adr-completeness-rules.yaml`, then the embedded default.
pub fn load_rules(root: &Path, explicit: Option<&Path>) -> anyhow::Result<RuleSet> {
    let path: Option<PathBuf> = match explicit {
        Some(p) => Some(p.to_path_buf()),
        None => Some(root.join(RULES_PATH)).filter(|p| p.is_file()),
    };
    match path {
        Some(path) => {
            let text = std::fs::read_to_string(&path)
                .map_err(|e| anyhow::anyhow!("cannot read rules file {}: {e}", path.display()))?;
            Ok(RuleSet::parse(&text, &path.display().to_string())?)
        }
        None => Ok(RuleSet::builtin()?),
    }
}
