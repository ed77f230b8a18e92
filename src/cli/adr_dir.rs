//! `next-number`, `finalize`, `index` and `doctor`: the ADR directory commands.

use std::fmt::Write as _;
use std::path::Path;

use super::terminal::{current_root, print, print_stderr, use_color};
use super::{ExitStatus, Format};
use crate::adr_dir::{self, IndexChange, catalog, finalize};
use crate::render;
use crate::text::{escape_controls, plural};

/// `helix-gate next-number`: print the next free ADR number.
pub(super) fn next_number() -> anyhow::Result<ExitStatus> {
    let number = adr_dir::next_number(&current_root())?;
    print(&format!("{}\n", catalog::format_number(number)))?;
    Ok(ExitStatus::Success)
}

/// `helix-gate finalize <draft> [--dry-run]`.
pub(super) fn finalize(draft: &Path, dry_run: bool) -> anyhow::Result<ExitStatus> {
    let options = finalize::Options {
        dry_run,
        fault: None,
    };
    match finalize::run_in(&current_root(), draft, options)? {
        finalize::Finalization::Refused { report, reason } => {
            if let Some(report) = report {
                print(&render::human(&[report], use_color()))?;
            }
            print_stderr(&format!(
                "helix-gate: error: finalize refused: {}\n",
                escape_controls(&reason)
            ));
            Ok(ExitStatus::Failure)
        }
        finalize::Finalization::DryRun(plan) => {
            print(&describe(&plan, true))?;
            Ok(ExitStatus::Success)
        }
        finalize::Finalization::Finalized(plan) => {
            print(&describe(&plan, false))?;
            Ok(ExitStatus::Success)
        }
    }
}

/// What finalize did or would do. Paths, the status and the INDEX.md row come from the draft:
/// shown with control characters escaped.
fn describe(plan: &finalize::Plan, dry_run: bool) -> String {
    let mut out = String::new();
    let draft = escape_controls(&plan.draft_display);
    let target = escape_controls(&plan.target_display);
    let index = escape_controls(&plan.index_display);
    let row = escape_controls(&plan.row);
    let note = plan.number_note.as_deref().map(escape_controls);
    if !plan.report.findings.is_empty() {
        out.push_str(&render::human(
            std::slice::from_ref(&plan.report),
            use_color(),
        ));
    }
    let id = catalog::format_number(plan.number);
    if dry_run {
        out.push_str("dry run: nothing was changed\n");
        if let Some(note) = &note {
            let _ = writeln!(out, "would assign a number: {note}");
        }
        let _ = writeln!(out, "would move {draft} -> {target} (adr_id: \"{id}\")");
        let action = if plan.index_created {
            "would create"
        } else {
            "would add to"
        };
        let _ = writeln!(out, "{action} {index}: {row}");
    } else {
        if let Some(note) = &note {
            let _ = writeln!(out, "number: {note}");
        }
        let _ = writeln!(
            out,
            "ADR-{id} finalized: {draft} -> {target} (status {})",
            escape_controls(&plan.status)
        );
        let action = if plan.index_created {
            "created"
        } else {
            "added to"
        };
        let _ = writeln!(out, "{action} {index}: {row}");
    }
    out
}

/// `helix-gate index [--check | --write]` (no flag: `--check`).
pub(super) fn index(_check: bool, write: bool) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    if write {
        let done = adr_dir::index_write(&root)?;
        let shown = escape_controls(&done.path_display);
        print(&match done.change {
            IndexChange::Unchanged => format!("{shown}: already up to date\n"),
            IndexChange::Rewrote => {
                format!(
                    "{shown}: rewrote the table with {}\n",
                    plural(done.rows, "row")
                )
            }
            IndexChange::Created => format!("{shown}: created with {}\n", plural(done.rows, "row")),
        })?;
        return Ok(ExitStatus::Success);
    }
    let check = adr_dir::index_check(&root)?;
    if check.report.findings.is_empty() {
        print(&format!(
            "{}: in step with the {} of {}/\n",
            escape_controls(&check.report.path),
            plural(check.adrs, "ADR"),
            escape_controls(&check.dir_display)
        ))?;
        return Ok(ExitStatus::Success);
    }
    print(&render::human(&[check.report], use_color()))?;
    Ok(ExitStatus::Failure)
}

/// `helix-gate doctor [--format human|json]`.
pub(super) fn doctor(format: Format) -> anyhow::Result<ExitStatus> {
    let (reports, read_errors) = adr_dir::doctor(&current_root())?;
    let status = super::validate::finish(&reports, &read_errors, format)?;
    // Human output only: the JSON output stays the list of reports.
    if format == Format::Human {
        super::install::print_registrations(&current_root())?;
    }
    Ok(status)
}
