//! `init`: write `config/helix-gate.yaml` for the ADRs a repository already has.
//!
//! The first thing a new user runs. It finds the ADRs as `validate`, pre-commit and
//! `doctor` do without configuration ([`crate::config::detect`]: the folders the formats
//! keep their ADRs in, the format told by the files' shape; with `--preset`, the first
//! of those folders whose files are not another format's), and writes the `preset:`
//! and, when the folder is not the preset's own default, `adr.directory` and
//! `adr.globs`. An existing configuration is never replaced without `force`.

use std::fmt::Write as _;
use std::path::Path;

use crate::config::Preset;
use crate::config::detect::{Detected, own_folder};
use crate::config::settings::SETTINGS_PATH;

/// Where the ADRs were found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The folder, relative to the repository root, `/` separated.
    pub directory: String,
    /// Markdown files in it (not counting INDEX.md, README.md and templates).
    pub files: usize,
}

/// What `init` did.
#[derive(Debug)]
pub enum Outcome {
    /// The configuration file exists and `force` was not given; nothing was written.
    Exists { display: String },
    /// The file was written (`replaced`: over an existing one).
    Written {
        display: String,
        preset: Preset,
        /// `preset` came from the files, not from the `--preset` flag.
        detected: bool,
        found: Option<Found>,
        replaced: bool,
        text: String,
    },
}

/// Write the configuration of the repository at `root`: for `preset`, or for the
/// format its ADRs are in (HELIX when none are found).
pub fn run(root: &Path, preset: Option<Preset>, force: bool) -> anyhow::Result<Outcome> {
    let path = root.join(SETTINGS_PATH);
    let display = SETTINGS_PATH.to_owned();
    let exists = path.exists() || path.symlink_metadata().is_ok();
    if exists && !force {
        return Ok(Outcome::Exists { display });
    }
    let (chosen, found) = match preset {
        Some(preset) => (preset, find_for(root, preset)),
        None => match detect(root) {
            Some((preset, found)) => (preset, Some(found)),
            None => (Preset::Helix, None),
        },
    };
    let text = config_text(chosen, found.as_ref());
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| anyhow::anyhow!("cannot create {}: {e}", parent.display()))?;
    }
    crate::fs::atomic::write(root, &path, text.as_bytes())
        .map_err(|e| anyhow::anyhow!("cannot write {display}: {e}"))?;
    Ok(Outcome::Written {
        display,
        preset: chosen,
        detected: preset.is_none(),
        found,
        replaced: exists,
        text,
    })
}

/// The format and folder of the repository's ADRs, as `validate`, pre-commit and
/// `doctor` detect them without configuration ([`crate::config::detect::detect`]): the
/// configuration `init` writes keeps exactly what they checked.
pub fn detect(root: &Path) -> Option<(Preset, Found)> {
    crate::config::detect::detect(root).map(|d| (d.preset, found(d)))
}

/// The folder of `preset`'s ADRs ([`crate::config::detect::detect_for`]).
fn find_for(root: &Path, preset: Preset) -> Option<Found> {
    crate::config::detect::detect_for(root, preset).map(found)
}

fn found(detected: Detected) -> Found {
    Found {
        directory: detected.folder,
        files: detected.files,
    }
}

/// The configuration file's text.
pub fn config_text(preset: Preset, found: Option<&Found>) -> String {
    let mut text = format!(
        "# helix-gate configuration, written by `helix-gate init`. Every key and its\n# default: the book's Configuration chapter.\npreset: {preset}\n"
    );
    if let Some(found) = found.filter(|f| f.directory != own_folder(preset)) {
        let dir = &found.directory;
        let _ = write!(
            text,
            "adr:\n  # Where `new` and `finalize` put ADRs, and which files are ADRs.\n  directory: {dir}\n  globs: [\"{dir}/**/*.md\"]\n"
        );
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_written_only_when_it_is_not_the_presets_own() {
        let own = Found {
            directory: "docs/decisions".to_owned(),
            files: 1,
        };
        let other = Found {
            directory: "docs/adr".to_owned(),
            files: 1,
        };
        assert!(!config_text(Preset::Madr, Some(&own)).contains("adr:"));
        let text = config_text(Preset::Madr, Some(&other));
        assert!(text.contains("  directory: docs/adr\n"), "{text}");
        let settings = crate::config::Settings::from_layers_with(Some(&text), "t", None).unwrap();
        assert_eq!(settings.preset, Preset::Madr);
        assert_eq!(settings.adr.directory, "docs/adr");
        assert_eq!(settings.adr.globs, ["docs/adr/**/*.md"]);
    }
}
