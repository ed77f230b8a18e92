//! Configuration: the rules file and the settings file, both embedded as defaults.

pub mod pattern;
pub mod preset;
pub mod protected;
pub mod rules_file;
pub mod settings;
pub mod trust;

use std::path::{Path, PathBuf};

pub use preset::Preset;
pub use rules_file::{RuleSet, RulesFileError};
pub use settings::{AdrMatcher, Settings, SettingsError};

/// Repository-relative location of a repository's own rules file.
pub const RULES_PATH: &str = "config/adr-completeness-rules.yaml";

/// [`load_rules_for`] with the preset of the repository's settings (or `--preset`).
pub fn load_rules(root: &Path, explicit: Option<&Path>) -> anyhow::Result<RuleSet> {
    load_rules_for(root, explicit, Settings::load(root)?.preset)
}

/// Load the rules: `explicit` (from `--rules`) wins, then `<root>/config/adr-completeness-rules.yaml`
/// (which replaces the preset's rules whole), then the preset's embedded rules file.
pub fn load_rules_for(
    root: &Path,
    explicit: Option<&Path>,
    preset: Preset,
) -> anyhow::Result<RuleSet> {
    let path: Option<PathBuf> = match explicit {
        Some(p) => Some(p.to_path_buf()),
        // Present is anything at the path, so a FIFO or a link to a device is refused
        // when read instead of silently replaced by the built-in rules.
        None => Some(root.join(RULES_PATH)).filter(|p| std::fs::symlink_metadata(p).is_ok()),
    };
    match path {
        Some(path) => {
            let text = crate::fs::read::optional_text(&path, crate::fs::read::CONFIG_LIMIT)
                .and_then(|text| {
                    text.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
                })
                .map_err(|e| anyhow::anyhow!("cannot read rules file {}: {e}", path.display()))?;
            Ok(RuleSet::parse(&text, &path.display().to_string())?)
        }
        None => match preset.rules_text() {
            Some(text) => Ok(RuleSet::parse(
                text,
                &format!("built-in preset {preset} (config/presets/{preset}.yaml)"),
            )?),
            None => Ok(RuleSet::builtin()?),
        },
    }
}
