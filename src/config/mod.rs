//! Configuration: the rules file and the settings file, both embedded as defaults, and a
//! HELIX project's phase plan ([`plan`]).

pub mod detect;
pub mod pattern;
pub mod plan;
pub mod preset;
pub mod protected;
pub mod rules_file;
pub mod settings;
pub mod trust;

use std::path::{Path, PathBuf};

use sha2::Digest as _;

pub use preset::Preset;
pub use rules_file::{RuleSet, RulesFileError};
pub use settings::{AdrMatcher, Settings, SettingsError};

/// Repository-relative location of a repository's own rules file.
pub const RULES_PATH: &str = "config/adr-completeness-rules.yaml";

/// [`load_rules_for`] with the preset of the repository's settings (or `--preset`).
pub fn load_rules(root: &Path, explicit: Option<&Path>) -> anyhow::Result<RuleSet> {
    load_rules_for(root, explicit, Settings::load(root)?.preset)
}

/// Beside the rules file of a configuration snapshot (a session's copy outside the
/// work tree, never a repository): the same rules as JSON, with the SHA-256 of the
/// YAML they were made from. Parsing the YAML was a fifth of a hook call on an ADR;
/// the JSON takes a tenth of that. Written by [`write_rules_twin`].
pub const RULES_TWIN: &str = "config/.adr-completeness-rules.parsed.json";

/// Write the [`RULES_TWIN`] of the rules file `yaml` into the snapshot at `dir`, if
/// the rules load (a twin never stands for rules that would fail) and their YAML
/// converts to JSON. Best effort: without a twin the YAML is read.
pub fn write_rules_twin(dir: &Path, yaml: &[u8]) -> std::io::Result<()> {
    let Ok(text) = std::str::from_utf8(yaml) else {
        return Ok(());
    };
    if RuleSet::parse(text, "snapshot").is_err() {
        return Ok(());
    }
    let Ok(value) = crate::yaml::parse_value(text) else {
        return Ok(());
    };
    let Ok(json) = serde_json::to_vec(&serde_json::json!({
        "sha256": crate::text::hex(&sha2::Sha256::digest(yaml)),
        "rules": value,
    })) else {
        return Ok(());
    };
    crate::fs::atomic::write_with(
        dir,
        &dir.join(RULES_TWIN),
        &json,
        crate::fs::atomic::Options::FAST,
    )
}

/// The rules of a configuration snapshot at `config_root`: from its [`RULES_TWIN`]
/// when that was made from exactly the YAML there, else as [`load_rules_for`].
pub fn load_rules_snapshot(config_root: &Path, preset: Preset) -> anyhow::Result<RuleSet> {
    #[derive(serde::Deserialize)]
    struct Twin<'a> {
        sha256: &'a str,
        rules: &'a serde_json::value::RawValue,
    }
    let path = config_root.join(RULES_PATH);
    let twin = || -> Option<RuleSet> {
        let yaml = crate::fs::read::optional_text(&path, crate::fs::read::CONFIG_LIMIT).ok()??;
        let twin = crate::fs::read::optional_text(
            &config_root.join(RULES_TWIN),
            crate::fs::read::CONFIG_LIMIT,
        )
        .ok()??;
        let twin: Twin<'_> = serde_json::from_str(&twin).ok()?;
        (twin.sha256 == crate::text::hex(&sha2::Sha256::digest(yaml.as_bytes())))
            .then(|| RuleSet::from_json(twin.rules.get(), &path.display().to_string()).ok())?
    };
    match twin() {
        Some(rules) => Ok(rules),
        None => load_rules_for(config_root, None, preset),
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(rules: &RuleSet) -> Vec<String> {
        rules.contextual.iter().map(|r| r.id.clone()).collect()
    }

    /// A snapshot's rules come from its JSON twin exactly when the twin was made
    /// from the YAML beside it; otherwise the YAML is read.
    #[test]
    fn a_snapshot_reads_its_rules_twin_only_for_the_same_yaml() {
        let dir = tempfile::tempdir().unwrap();
        let yaml = rules_file::DEFAULT_RULES.as_bytes();
        std::fs::create_dir_all(dir.path().join("config")).unwrap();
        std::fs::write(dir.path().join(RULES_PATH), yaml).unwrap();
        write_rules_twin(dir.path(), yaml).unwrap();
        let from_yaml = load_rules_for(dir.path(), None, Preset::Helix).unwrap();
        let from_twin = load_rules_snapshot(dir.path(), Preset::Helix).unwrap();
        assert!(!ids(&from_yaml).is_empty());
        assert_eq!(ids(&from_twin), ids(&from_yaml));

        // The twin is what is read: one rule taken out of it shows.
        let twin_path = dir.path().join(RULES_TWIN);
        let mut twin: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&twin_path).unwrap()).unwrap();
        let rules = twin["rules"]["contextual_rules"].as_array_mut().unwrap();
        let removed = rules.remove(0)["id"].as_str().unwrap().to_owned();
        std::fs::write(&twin_path, serde_json::to_vec(&twin).unwrap()).unwrap();
        let trimmed = ids(&load_rules_snapshot(dir.path(), Preset::Helix).unwrap());
        assert!(!trimmed.contains(&removed), "{removed} still there");

        // Another YAML: the twin no longer matches, and the YAML decides.
        let mut changed = yaml.to_vec();
        changed.extend_from_slice(b"\n# changed\n");
        std::fs::write(dir.path().join(RULES_PATH), &changed).unwrap();
        assert_eq!(
            ids(&load_rules_snapshot(dir.path(), Preset::Helix).unwrap()),
            ids(&from_yaml)
        );
    }

    /// Rules that do not load get no twin, so the error is the YAML's own.
    #[test]
    fn broken_rules_get_no_twin() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("config")).unwrap();
        let yaml = b"contextual_rules: [{id: x, nonsense: 1}]\n";
        std::fs::write(dir.path().join(RULES_PATH), yaml).unwrap();
        write_rules_twin(dir.path(), yaml).unwrap();
        assert!(!dir.path().join(RULES_TWIN).exists());
        assert!(load_rules_snapshot(dir.path(), Preset::Helix).is_err());
    }
}
