//! The ADR directory commands the HELIX consultant runs around writing an ADR: the next free
//! number, finalizing a draft into the ADR directory, keeping `INDEX.md` in step
//! with the ADRs, and a repository-wide doctor.
//!
//! They replace the seed's `adr_tool next-number`/`finalize` and the hand-edited
//! INDEX.md row, which is where numbers collided and the index drifted. Every
//! command finds the repository root from the current directory, so it works
//! from `projects/sessions/<id>/` too.

pub mod acceptance;
pub mod catalog;
pub mod check;
pub mod concept_path;
pub mod doctor;
pub mod enforce;
pub mod finalize;
pub mod governs;
pub mod index_table;
pub mod init;
pub mod journal;
pub mod list;
pub mod lock;
pub mod markers;
pub mod moves;
pub mod new;
pub mod overrides;
pub mod slug;
pub mod supersede;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use crate::config::detect::{self, Detected};
use crate::diagnostic::FileReport;
use crate::engine::{Engine, ReadError};

/// A repository's engine and its ADR directory, which must exist.
pub struct Workspace {
    pub engine: Engine,
    /// The ADR directory (absolute).
    pub dir: PathBuf,
    /// helix-gate's per-user state folder ([`crate::env::state_dir`]), where
    /// finalize keeps the witness of its intent ([`journal`]); None when there
    /// is none (HOME unset).
    pub state_dir: Option<PathBuf>,
}

impl Workspace {
    /// Load the settings of the repository at `root` and check its ADR directory.
    pub fn open(root: &Path) -> anyhow::Result<Workspace> {
        let ws = Workspace::of(Engine::load(root, None)?);
        ws.check_dir()?;
        Ok(ws)
    }

    /// The engine's repository and its ADR directory (`adr.directory`), which may not
    /// exist yet ([`Workspace::check_dir`]).
    pub fn of(engine: Engine) -> Workspace {
        let dir = crate::paths::absolute(&engine.root.join(&engine.settings.adr.directory));
        Workspace {
            engine,
            dir,
            state_dir: crate::env::state_dir(),
        }
    }

    /// The same workspace with `state_dir` as its per-user state folder (tests
    /// give each repository its own).
    #[must_use]
    pub fn with_state_dir(self, state_dir: Option<PathBuf>) -> Workspace {
        Workspace { state_dir, ..self }
    }

    /// `Err` unless the ADR directory is a directory.
    pub fn check_dir(&self) -> anyhow::Result<()> {
        let root = &self.engine.root;
        let dir = &self.dir;
        if dir.exists() && !dir.is_dir() {
            bail!(
                "the ADR directory {} is not a directory (set adr.directory in config/helix-gate.yaml)",
                crate::paths::display(root, dir)
            );
        }
        if !dir.is_dir() {
            bail!(
                "no ADR directory: {} does not exist in the repository at {} (create it, or set adr.directory in config/helix-gate.yaml)",
                crate::paths::display(root, dir),
                root.display()
            );
        }
        Ok(())
    }

    pub fn index_path(&self) -> PathBuf {
        self.dir.join(index_table::INDEX_FILE)
    }

    fn display(&self, path: &Path) -> String {
        crate::paths::display(&self.engine.root, path)
    }
}

/// The text of `path`, or None when it does not exist.
pub fn read_optional(path: &Path) -> anyhow::Result<Option<String>> {
    crate::fs::read::optional_text(path, crate::fs::read::CONFIG_LIMIT)
        .with_context(|| format!("cannot read {}", path.display()))
}

/// The next free ADR number of the repository at `root`.
pub fn next_number(root: &Path) -> anyhow::Result<u32> {
    let ws = Workspace::open(root)?;
    let catalog = catalog::Catalog::load(&ws.engine, &ws.dir)?;
    catalog.next_number()
}

/// The next free ADR number of the repository at `root`, padded to `adr.number_width`.
pub fn next_number_id(root: &Path) -> anyhow::Result<String> {
    let ws = Workspace::open(root)?;
    let catalog = catalog::Catalog::load(&ws.engine, &ws.dir)?;
    Ok(catalog::format_number_width(
        catalog.next_number()?,
        ws.engine.settings.adr.number_width,
    ))
}

/// What `index --check` found.
#[derive(Debug)]
pub struct IndexCheck {
    /// INDEX.md's findings (sorted); empty when it is in step.
    pub report: FileReport,
    /// How many ADRs the directory holds.
    pub adrs: usize,
    /// The ADR directory as shown to the user.
    pub dir_display: String,
}

/// Compare INDEX.md with the ADRs of the directory.
pub fn index_check(root: &Path) -> anyhow::Result<IndexCheck> {
    let ws = Workspace::open(root)?;
    let catalog = catalog::Catalog::load(&ws.engine, &ws.dir)?;
    let path = ws.index_path();
    let text = read_optional(&path)?;
    let mut report = FileReport {
        path: ws.display(&path),
        findings: index_table::check(text.as_deref(), &catalog),
    };
    report.sort();
    Ok(IndexCheck {
        report,
        adrs: catalog.entries.len(),
        dir_display: ws.display(&ws.dir),
    })
}

/// What `index --write` did to INDEX.md.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexChange {
    Unchanged,
    Rewrote,
    Created,
}

/// The result of `index --write`.
#[derive(Debug)]
pub struct IndexWrite {
    /// INDEX.md as shown to the user.
    pub path_display: String,
    pub change: IndexChange,
    /// Rows in the table.
    pub rows: usize,
}

/// Regenerate INDEX.md's table rows under the ADR directory lock.
pub fn index_write(root: &Path) -> anyhow::Result<IndexWrite> {
    let ws = Workspace::open(root)?;
    let _lock = lock::Lock::acquire(root, &ws.dir)?;
    let catalog = catalog::Catalog::load(&ws.engine, &ws.dir)?;
    let path = ws.index_path();
    let text = read_optional(&path)?;
    let new = index_table::rewrite(text.as_deref(), &catalog);
    let path_display = ws.display(&path);
    let rows = catalog.entries.len();
    if text.as_deref() == Some(new.as_str()) {
        return Ok(IndexWrite {
            path_display,
            change: IndexChange::Unchanged,
            rows,
        });
    }
    crate::fs::atomic::write(root, &path, new.as_bytes())?;
    Ok(IndexWrite {
        path_display,
        change: if text.is_some() {
            IndexChange::Rewrote
        } else {
            IndexChange::Created
        },
        rows,
    })
}

/// Finish or undo a finalize that was interrupted and remove the temporary files
/// it left in the ADR directory ([`journal::recover`]), under the ADR directory
/// lock; what was done. Nothing when there is no ADR directory.
pub fn recover_in(ws: &Workspace) -> anyhow::Result<Vec<String>> {
    // The lock (a file among the ADRs) is taken only when there is something to do.
    if !ws.dir.is_dir() || !journal::pending(ws) {
        return Ok(Vec::new());
    }
    let _lock = lock::Lock::acquire(&ws.engine.root, &ws.dir)?;
    Ok(journal::recover(ws))
}

/// What [`doctor`] found.
pub struct Health {
    /// What finishing or undoing an interrupted finalize did ([`recover_in`]); best
    /// effort: why it could not look, when a read-only checkout or a held lock
    /// stopped it.
    pub recovered: Vec<String>,
    /// Every file's findings.
    pub reports: Vec<FileReport>,
    /// The files that could not be read.
    pub read_errors: Vec<ReadError>,
    /// The rules the files were checked with (SARIF documents them).
    pub rules: crate::config::rules_file::RuleSet,
    /// Without configuration: the layout detected and checked, or `None` when no known
    /// ADR folder was found.
    pub detected: Option<Option<Detected>>,
}

/// Repository-wide ADR health, with the settings and rules loaded once: an
/// interrupted finalize completed or undone first, then every file's findings.
///
/// A missing ADR directory is a finding (`adr-directory-missing`), not an
/// error: doctor's other checks still run and report.
pub fn doctor(root: &Path) -> anyhow::Result<Health> {
    // Without configuration the repository's own layout is checked, as `validate` does.
    // HELIX ADRs in `adr/` are the defaults: nothing to say or change.
    let detected = detect::unconfigured(root)
        .then(|| detect::detect(root))
        .and_then(|found| match found {
            Some(found) if found.is_default() => None,
            other => Some(other),
        });
    let engine = match detected.as_ref().and_then(Option::as_ref) {
        Some(found) => Engine::with_settings(root, found.settings()?, None)?,
        None => Engine::load(root, None)?,
    };
    let ws = Workspace::of(engine);
    let recovered = recover_in(&ws)
        .unwrap_or_else(|e| vec![format!("did not check for an interrupted finalize: {e:#}")]);
    let (reports, read_errors) = if ws.dir.is_dir() {
        doctor::run(&ws)?
    } else {
        (vec![doctor::missing_directory(root, &ws.dir)], Vec::new())
    };
    Ok(Health {
        recovered,
        reports,
        read_errors,
        rules: ws.engine.rules,
        detected,
    })
}
