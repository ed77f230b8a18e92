//! `init`: write `config/helix-gate.yaml` for the ADRs a repository already has.
//!
//! The first thing a new user runs. It looks in the folders the three formats
//! keep their ADRs in (HELIX `adr/`, MADR `docs/decisions/`, adr-tools
//! `doc/adr/`, and the common `docs/adr/`, `docs/architecture/decisions/`),
//! tells the format from the files' shape, and writes the `preset:` and, when
//! the folder is not the preset's own default, `adr.directory` and `adr.globs`.
//! An existing configuration is never replaced without `force`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::config::Preset;
use crate::config::settings::SETTINGS_PATH;

/// Folders looked in, in this order; the format a folder's name suggests when
/// its files do not tell.
const CANDIDATES: [(&str, Preset); 6] = [
    ("adr", Preset::Helix),
    ("docs/decisions", Preset::Madr),
    ("doc/adr", Preset::Nygard),
    ("docs/adr", Preset::Madr),
    ("docs/architecture/decisions", Preset::Nygard),
    ("doc/decisions", Preset::Madr),
];

/// How many files of a folder are read to tell its format.
const SAMPLE: usize = 20;

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
    crate::config::detect::detect(root).map(|d| {
        (
            d.preset,
            Found {
                directory: d.folder,
                files: d.files,
            },
        )
    })
}

/// The folder of `preset`'s ADRs: the first candidate with Markdown files whose
/// shape is not another format's.
fn find_for(root: &Path, preset: Preset) -> Option<Found> {
    CANDIDATES.iter().find_map(|&(dir, _)| {
        let files = markdown_files(&root.join(dir));
        if files.is_empty() || shape_of(&files).is_some_and(|p| p != preset) {
            return None;
        }
        Some(Found {
            directory: dir.to_owned(),
            files: files.len(),
        })
    })
}

/// The Markdown files directly in `dir` that could be ADRs, sorted.
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "md"))
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().to_lowercase())
                .unwrap_or_default();
            name != "index.md" && name != "readme.md" && !name.contains("template")
        })
        .collect();
    files.sort();
    files
}

/// The format most of `files` (the first [`SAMPLE`]) are written in, if any tells.
fn shape_of(files: &[PathBuf]) -> Option<Preset> {
    let mut votes = [0usize; 3];
    for path in files.iter().take(SAMPLE) {
        let Ok(text) = crate::fs::read::optional_text(path, crate::fs::read::CONFIG_LIMIT) else {
            continue;
        };
        if let Some(preset) = text.as_deref().and_then(shape) {
            votes[Preset::ALL.iter().position(|p| *p == preset).unwrap_or(0)] += 1;
        }
    }
    let (best, &count) = votes.iter().enumerate().max_by_key(|(_, n)| **n)?;
    (count > 0).then(|| Preset::ALL[best])
}

/// The format one ADR's text is written in (the detection's own test).
fn shape(text: &str) -> Option<Preset> {
    crate::config::detect::shape(text)
}

/// The folder `preset` keeps its ADRs in when nothing is configured.
fn default_directory(preset: Preset) -> &'static str {
    match preset {
        Preset::Helix => "adr",
        Preset::Madr => "docs/decisions",
        Preset::Nygard => "doc/adr",
    }
}

/// The configuration file's text.
pub fn config_text(preset: Preset, found: Option<&Found>) -> String {
    let mut text = format!(
        "# helix-gate configuration, written by `helix-gate init`. Every key and its\n# default: the book's Configuration chapter.\npreset: {preset}\n"
    );
    if let Some(found) = found.filter(|f| f.directory != default_directory(preset)) {
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
    fn shape_tells_the_three_formats_apart() {
        assert_eq!(
            shape("---\nadr_id: \"001\"\ntitle: x\n---\n# x\n"),
            Some(Preset::Helix)
        );
        assert_eq!(
            shape("---\nstatus: accepted\n---\n# T\n\n## Context and Problem Statement\n\nx\n"),
            Some(Preset::Madr)
        );
        assert_eq!(
            shape(
                "# 1. T\n\nDate: x\n\n## Status\n\nAccepted\n\n## Context\n\n## Decision\n\n## Consequences\n"
            ),
            Some(Preset::Nygard)
        );
        assert_eq!(shape("# Notes\n\nnothing\n"), None);
    }

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
