//! Layout detection: where a repository without configuration keeps its ADRs, and
//! which format they are written in.
//!
//! A repository with neither `config/helix-gate.yaml`, a rules file of its own, nor
//! `--preset` would otherwise be checked with the HELIX defaults (`adr/**/*.md`),
//! which find nothing in a MADR or Nygard repository: `0 files checked` and a green
//! check forever. `validate`, `pre-commit` and `doctor` ask here first, and `init`
//! writes what they found ([`detect`]; with `--preset`, [`detect_for`]: the same walk
//! and vote). The hook never does: its no-op path must stay free of directory walks.

use std::path::Path;

use super::preset::Preset;
use super::settings::{SETTINGS_PATH, Settings, SettingsError};

/// The folders the presets know, in the order they are looked at.
pub const FOLDERS: [&str; 6] = [
    "docs/decisions",
    "doc/adr",
    "docs/architecture/decisions",
    "docs/adr",
    "adr",
    "doc/decisions",
];

/// Markdown files in an ADR folder that are never ADRs.
const NOT_ADRS: [&str; 4] = ["readme.md", "index.md", "template.md", "adr-template.md"];

/// Files read per folder to tell the format: enough for a majority, cheap in a
/// folder with hundreds of ADRs.
const SAMPLE: usize = 25;

/// What was found in a repository without configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detected {
    pub preset: Preset,
    /// Repository-relative folder, `/`-separated.
    pub folder: String,
    /// Markdown files in it (not counting README, index and templates).
    pub files: usize,
}

impl Detected {
    /// The settings that check the detected folder with the detected preset.
    pub fn settings(&self) -> Result<Settings, SettingsError> {
        let folder = &self.folder;
        if self.is_default() {
            return Ok(Settings::builtin());
        }
        // HELIX names single ADRs `ADR-*.md` anywhere; the defaults keep finding them.
        let anywhere = if self.preset == Preset::Helix {
            ", \"**/ADR-*.md\""
        } else {
            ""
        };
        let overlay = format!(
            "preset: {}\nadr:\n  directory: {folder}\n  globs: [\"{folder}/**/*.md\"{anywhere}]\n",
            self.preset
        );
        Settings::from_layers_with(Some(&overlay), "detected layout", None)
    }

    /// Whether the detected layout is the built-in one (HELIX ADRs in `adr/`), which
    /// the defaults check anyway.
    pub fn is_default(&self) -> bool {
        self.preset == Preset::Helix && self.folder == "adr"
    }

    /// The one line that says what was detected.
    pub fn note(&self) -> String {
        format!(
            "helix-gate: no configuration; detected {} ADRs in {} ({} file{}); run helix-gate init to keep this",
            self.preset,
            self.folder,
            self.files,
            if self.files == 1 { "" } else { "s" }
        )
    }
}

/// The line for a repository without configuration where no ADR folder was found.
pub fn nothing_found_note() -> String {
    format!(
        "helix-gate: no configuration and no ADRs found; looked in {} (and for **/ADR-*.md); run helix-gate init or pass --preset",
        FOLDERS.join(", ")
    )
}

/// True when nothing configures the repository at `root`: no settings file, no
/// rules file and no `--preset`.
pub fn unconfigured(root: &Path) -> bool {
    super::preset::cli_override().is_none()
        && std::fs::symlink_metadata(root.join(SETTINGS_PATH)).is_err()
        && std::fs::symlink_metadata(root.join(super::RULES_PATH)).is_err()
}

/// The first of [`FOLDERS`] below `root` with Markdown files, and the format most
/// of them are written in (the folder's usual format when none tells).
pub fn detect(root: &Path) -> Option<Detected> {
    FOLDERS.iter().find_map(|folder| {
        let (files, shape) = survey(root, folder)?;
        Some(Detected {
            preset: shape.unwrap_or_else(|| folder_default(folder)),
            folder: (*folder).to_owned(),
            files,
        })
    })
}

/// [`detect`] for a format the user named (`init --preset X`): the first folder with
/// Markdown files whose shape is not another format's, `preset`'s own folder first
/// (`adr`, `docs/decisions`, `doc/adr`), then [`FOLDERS`] in their order.
pub fn detect_for(root: &Path, preset: Preset) -> Option<Detected> {
    let own = own_folder(preset);
    std::iter::once(own)
        .chain(FOLDERS.into_iter().filter(|folder| *folder != own))
        .find_map(|folder| {
            let (files, shape) = survey(root, folder)?;
            shape.is_none_or(|s| s == preset).then(|| Detected {
                preset,
                folder: folder.to_owned(),
                files,
            })
        })
}

/// The one walk and the one vote: how many Markdown files `folder` holds (none:
/// `None`), and the format most of the first [`SAMPLE`] (sorted) are written in, if
/// any of them tells.
fn survey(root: &Path, folder: &str) -> Option<(usize, Option<Preset>)> {
    let mut files = Vec::new();
    markdown_files(&root.join(folder), &mut files, 0);
    if files.is_empty() {
        return None;
    }
    files.sort();
    let mut votes = [0usize; 3];
    for file in files.iter().take(SAMPLE) {
        let Ok(text) = crate::fs::read::optional_text(file, 1 << 20) else {
            continue;
        };
        if let Some(preset) = text.as_deref().and_then(shape) {
            votes[Preset::ALL.iter().position(|p| *p == preset).unwrap_or(0)] += 1;
        }
    }
    let best = votes.iter().copied().max().unwrap_or(0);
    let shape = (best > 0).then(|| Preset::ALL[votes.iter().position(|v| *v == best).unwrap_or(0)]);
    Some((files.len(), shape))
}

/// The folder a preset keeps its ADRs in by default (its settings' `adr.directory`).
pub fn own_folder(preset: Preset) -> &'static str {
    match preset {
        Preset::Helix => "adr",
        Preset::Madr => "docs/decisions",
        Preset::Nygard => "doc/adr",
    }
}

/// Whether a repository-relative path is named like an ADR: a numbered `NNN-*.md` in one
/// of [`FOLDERS`] (or below one), or `ADR-*.md` anywhere. The hook tells the model when
/// such a file lies outside the configured globs instead of passing it in silence.
pub fn looks_like_adr(rel: &str) -> bool {
    let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
    let lower = name.to_ascii_lowercase();
    let Some(stem) = lower.strip_suffix(".md") else {
        return false;
    };
    if stem.starts_with("adr-") {
        return true;
    }
    let digits = stem.chars().take_while(char::is_ascii_digit).count();
    let numbered = digits > 0 && stem[digits..].starts_with('-');
    numbered
        && FOLDERS.iter().any(|folder| {
            dir == *folder || (dir.starts_with(folder) && dir[folder.len()..].starts_with('/'))
        })
}

/// The format a folder is named after by its tools' defaults.
fn folder_default(folder: &str) -> Preset {
    match folder {
        "docs/decisions" | "doc/decisions" => Preset::Madr,
        "adr" => Preset::Helix,
        _ => Preset::Nygard,
    }
}

fn markdown_files(dir: &Path, out: &mut Vec<std::path::PathBuf>, depth: u8) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name().to_string_lossy().to_lowercase();
        if kind.is_dir() && depth < 3 && name != "templates" && !name.starts_with('.') {
            markdown_files(&path, out, depth + 1);
        } else if kind.is_file()
            && path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"))
            && !NOT_ADRS.contains(&name.as_str())
            && !name.ends_with(".template.md")
            && !name.ends_with("-template.md")
        {
            out.push(path);
        }
    }
}

/// The format a document's own shape tells, if any: HELIX has front matter with
/// `adr_id`; Nygard a numbered title (`# 1. Title`) with `## Status` and
/// `## Context`; MADR `## Context and Problem Statement`, `## Decision Outcome` or
/// front matter with `status`.
pub fn shape(text: &str) -> Option<Preset> {
    let adr = crate::adr::Adr::parse(text);
    let front = adr.front_matter();
    if front.is_some_and(|f| f.adr_id.valid().is_some()) {
        return Some(Preset::Helix);
    }
    let has = |key: &str| adr.sections.iter().any(|s| s.level == 2 && s.key == key);
    if has("context and problem statement") || has("decision outcome") {
        return Some(Preset::Madr);
    }
    let numbered_title = adr.sections.iter().find(|s| s.level == 1).is_some_and(|s| {
        let title = s.title.trim_start();
        let digits = title.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && title[digits..].starts_with('.')
    });
    if has("status") && has("context") && (numbered_title || has("consequences")) {
        return Some(Preset::Nygard);
    }
    if front.is_some_and(|f| f.status.valid().is_some()) {
        return Some(Preset::Madr);
    }
    None
}

/// The preset most of `texts` are shaped for, when that is not `current` and more
/// than half of them are: the hint for a repository checked with the wrong preset.
pub fn better_preset<'a>(
    texts: impl IntoIterator<Item = &'a str>,
    current: Preset,
) -> Option<Preset> {
    let mut votes = [0usize; 3];
    let mut total = 0;
    for text in texts {
        total += 1;
        if let Some(preset) = shape(text) {
            votes[Preset::ALL.iter().position(|p| *p == preset).unwrap_or(0)] += 1;
        }
    }
    Preset::ALL
        .into_iter()
        .zip(votes)
        .find(|(preset, count)| *preset != current && *count * 2 > total)
        .map(|(preset, _)| preset)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MADR: &str = "---\nstatus: accepted\n---\n# Use X\n\n## Context and Problem Statement\n\nWhy.\n\n## Decision Outcome\n\nX.\n";
    const NYGARD: &str = "# 2. Use Y\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nC.\n\n## Decision\n\nD.\n\n## Consequences\n\nE.\n";
    const HELIX: &str =
        "---\nadr_id: \"001\"\ntitle: T\nstatus: proposed\n---\n# T\n\n## Kontext\n\nK.\n";

    #[test]
    fn the_shape_tells_the_format() {
        assert_eq!(shape(MADR), Some(Preset::Madr));
        assert_eq!(shape(NYGARD), Some(Preset::Nygard));
        assert_eq!(shape(HELIX), Some(Preset::Helix));
        assert_eq!(shape("# Notes\n\nnothing\n"), None);
    }

    #[test]
    fn detection_finds_the_first_known_folder_and_its_format() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(detect(dir.path()), None);
        std::fs::create_dir_all(dir.path().join("docs/adr")).unwrap();
        std::fs::write(dir.path().join("docs/adr/0001-use-y.md"), NYGARD).unwrap();
        std::fs::write(dir.path().join("docs/adr/0002-use-z.md"), NYGARD).unwrap();
        std::fs::write(dir.path().join("docs/adr/README.md"), "# ADRs\n").unwrap();
        let found = detect(dir.path()).unwrap();
        assert_eq!(
            (found.preset, found.folder.as_str(), found.files),
            (Preset::Nygard, "docs/adr", 2)
        );
        let settings = found.settings().unwrap();
        assert_eq!(settings.preset, Preset::Nygard);
        assert!(settings.matcher().is_adr("docs/adr/0001-use-y.md"));
    }

    #[test]
    fn detection_for_a_named_preset_skips_folders_of_another_format() {
        let dir = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        assert_eq!(detect_for(dir.path(), Preset::Madr), None);
        write("docs/decisions/0001-use-x.md", MADR);
        write("docs/adr/0001-use-y.md", NYGARD);
        write("docs/adr/sub/0002-use-z.md", NYGARD);
        write("adr/notes.md", "# Notes\n\nnothing that tells\n");
        let found = |preset| detect_for(dir.path(), preset).map(|d| (d.preset, d.folder, d.files));
        // The preset's own folder first, one walk (subfolders count), one vote.
        assert_eq!(
            found(Preset::Madr),
            Some((Preset::Madr, "docs/decisions".into(), 1))
        );
        assert_eq!(
            found(Preset::Nygard),
            Some((Preset::Nygard, "docs/adr".into(), 2))
        );
        // A folder whose files tell no format fits any preset.
        assert_eq!(found(Preset::Helix), Some((Preset::Helix, "adr".into(), 1)));
        // Without a preset the first folder wins, with the format its files tell.
        assert_eq!(detect(dir.path()).map(|d| d.preset), Some(Preset::Madr));
    }

    #[test]
    fn each_presets_own_folder_is_its_settings_directory() {
        for preset in Preset::ALL {
            let settings = crate::config::Settings::from_layers_with(
                Some(&format!("preset: {preset}\n")),
                "t",
                None,
            )
            .unwrap();
            assert_eq!(settings.adr.directory, own_folder(preset), "{preset}");
        }
    }

    #[test]
    fn adr_like_names() {
        for rel in [
            "docs/adr/001-x.md",
            "docs/decisions/0007-use-y.md",
            "adr/sub/12-z.md",
            "notes/ADR-7.md",
            "ADR-cache.md",
        ] {
            assert!(looks_like_adr(rel), "{rel}");
        }
        for rel in [
            "docs/adr/README.md",
            "notes/001-x.md",
            "docs/adr/001-x.txt",
            "docs/adrx/001-x.md",
            "docs/adr/v1-x.md",
        ] {
            assert!(!looks_like_adr(rel), "{rel}");
        }
    }

    #[test]
    fn the_hint_names_the_preset_most_files_fit() {
        assert_eq!(
            better_preset([MADR, MADR, HELIX], Preset::Helix),
            Some(Preset::Madr)
        );
        assert_eq!(better_preset([MADR, HELIX, HELIX], Preset::Helix), None);
        assert_eq!(better_preset([MADR, MADR], Preset::Madr), None);
    }
}
