//! The ADR directory commands the HELIX consultant runs around writing an ADR: the next free
//! number, finalizing a draft into the ADR directory, keeping `INDEX.md` in step
//! with the ADRs, and a repository-wide doctor.
//!
//! They replace the seed's `adr_tool next-number`/`finalize` and the hand-edited
//! INDEX.md row, which is where numbers collided and the index drifted. Every
//! command finds the repository root from the current directory, so it works
//! from `projects/sessions/<id>/` too.

pub mod atomic;
pub mod catalog;
pub mod doctor;
pub mod finalize;
pub mod index_table;
pub mod lock;
pub mod slug;

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use crate::cli::{self, ExitStatus, Format};
use crate::diagnostic::FileReport;
use crate::engine::Engine;
use crate::render;

/// A repository's engine and its ADR directory, which must exist.
pub struct Workspace {
    pub engine: Engine,
    /// The ADR directory (absolute).
    pub dir: PathBuf,
}

impl Workspace {
    /// Load the settings of the repository at `root` and check its ADR directory.
    pub fn open(root: &Path) -> anyhow::Result<Workspace> {
        let engine = Engine::load(root, None)?;
        let dir = crate::paths::absolute(&root.join(&engine.settings.adr.directory));
        if dir.exists() && !dir.is_dir() {
            bail!(
                "the ADR directory {} is not a directory (set adr.directory in config/helix-gate.yaml)",
                crate::paths::display(root, &dir)
            );
        }
        if !dir.is_dir() {
            bail!(
                "no ADR directory: {} does not exist in the repository at {} (create it, or set adr.directory in config/helix-gate.yaml)",
                crate::paths::display(root, &dir),
                root.display()
            );
        }
        Ok(Workspace { engine, dir })
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
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// `helix-gate next-number`: print the next free ADR number.
pub fn next_number() -> anyhow::Result<ExitStatus> {
    let ws = Workspace::open(&cli::current_root())?;
    let catalog = catalog::Catalog::load(&ws.engine, &ws.dir)?;
    cli::print(&format!(
        "{}\n",
        catalog::format_number(catalog.next_number()?)
    ))?;
    Ok(ExitStatus::Success)
}

/// `helix-gate finalize <draft> [--dry-run]`.
pub fn finalize(draft: &Path, dry_run: bool) -> anyhow::Result<ExitStatus> {
    let ws = Workspace::open(&cli::current_root())?;
    let options = finalize::Options {
        dry_run,
        fault: None,
    };
    match finalize::run(&ws, draft, options)? {
        finalize::Outcome::Refused { report, reason } => {
            if let Some(report) = report {
                cli::print(&render::human(&[report], cli::use_color()))?;
            }
            eprintln!("helix-gate: error: finalize refused: {reason}");
            Ok(ExitStatus::Failure)
        }
        finalize::Outcome::DryRun(plan) => {
            cli::print(&describe(&plan, true))?;
            Ok(ExitStatus::Success)
        }
        finalize::Outcome::Finalized(plan) => {
            cli::print(&describe(&plan, false))?;
            Ok(ExitStatus::Success)
        }
    }
}

fn describe(plan: &finalize::Plan, dry_run: bool) -> String {
    let mut out = String::new();
    if !plan.report.findings.is_empty() {
        out.push_str(&render::human(
            std::slice::from_ref(&plan.report),
            cli::use_color(),
        ));
    }
    let id = catalog::format_number(plan.number);
    let index_action = if plan.index_created {
        "created"
    } else {
        "added to"
    };
    if dry_run {
        out.push_str("dry run: nothing was changed\n");
        if let Some(note) = &plan.number_note {
            out.push_str(&format!("would assign a number: {note}\n"));
        }
        out.push_str(&format!(
            "would move {} -> {} (adr_id: \"{id}\")\n",
            plan.draft_display, plan.target_display
        ));
        let action = if plan.index_created {
            "would create"
        } else {
            "would add to"
        };
        out.push_str(&format!("{action} {}: {}\n", plan.index_display, plan.row));
    } else {
        if let Some(note) = &plan.number_note {
            out.push_str(&format!("number: {note}\n"));
        }
        out.push_str(&format!(
            "ADR-{id} finalized: {} -> {} (status {})\n",
            plan.draft_display, plan.target_display, plan.status
        ));
        out.push_str(&format!(
            "{index_action} {}: {}\n",
            plan.index_display, plan.row
        ));
    }
    out
}

/// `helix-gate index [--check | --write]` (no flag: `--check`).
pub fn index(_check: bool, write: bool) -> anyhow::Result<ExitStatus> {
    let ws = Workspace::open(&cli::current_root())?;
    if write {
        index_write(&ws)
    } else {
        index_check(&ws)
    }
}

fn index_check(ws: &Workspace) -> anyhow::Result<ExitStatus> {
    let catalog = catalog::Catalog::load(&ws.engine, &ws.dir)?;
    let path = ws.index_path();
    let text = read_optional(&path)?;
    let mut report = FileReport {
        path: ws.display(&path),
        findings: index_table::check(text.as_deref(), &catalog),
    };
    if report.findings.is_empty() {
        cli::print(&format!(
            "{}: in step with the {} ADR{} of {}/\n",
            report.path,
            catalog.entries.len(),
            if catalog.entries.len() == 1 { "" } else { "s" },
            ws.display(&ws.dir)
        ))?;
        return Ok(ExitStatus::Success);
    }
    report.sort();
    cli::print(&render::human(&[report], cli::use_color()))?;
    Ok(ExitStatus::Failure)
}

fn index_write(ws: &Workspace) -> anyhow::Result<ExitStatus> {
    let _lock = lock::Lock::acquire(&ws.dir)?;
    let catalog = catalog::Catalog::load(&ws.engine, &ws.dir)?;
    let path = ws.index_path();
    let text = read_optional(&path)?;
    let new = index_table::rewrite(text.as_deref(), &catalog);
    let shown = ws.display(&path);
    if text.as_deref() == Some(new.as_str()) {
        cli::print(&format!("{shown}: already up to date\n"))?;
        return Ok(ExitStatus::Success);
    }
    atomic::replace(&path, new.as_bytes())?;
    cli::print(&format!(
        "{shown}: {} with {} row{}\n",
        if text.is_some() {
            "rewrote the table"
        } else {
            "created"
        },
        catalog.entries.len(),
        if catalog.entries.len() == 1 { "" } else { "s" }
    ))?;
    Ok(ExitStatus::Success)
}

/// `helix-gate doctor [--format human|json]`.
pub fn doctor(format: Format) -> anyhow::Result<ExitStatus> {
    let ws = Workspace::open(&cli::current_root())?;
    let (reports, read_errors) = doctor::run(&ws)?;
    cli::finish(&reports, &read_errors, format)
}
