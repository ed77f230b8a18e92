//! `next-number`, `finalize`, `index` and `doctor`: the ADR directory commands.

use std::fmt::Write as _;
use std::path::Path;

use super::terminal::{current_root, print, print_stderr, use_color};
use super::{ExitStatus, ReportFormat};
use crate::adr_dir::{self, IndexChange, finalize};
use crate::render;
use crate::text::{escape_controls, plural};

/// `helix-gate next-number`: print the next free ADR number.
pub(super) fn next_number() -> anyhow::Result<ExitStatus> {
    print(&format!("{}\n", adr_dir::next_number_id(&current_root())?))?;
    Ok(ExitStatus::Success)
}

/// `helix-gate new "<title>"`: exit 1 when the file exists already.
pub(super) fn new(title: &str, supersedes: &[String]) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir().unwrap_or_default();
    match adr_dir::new::run(&current_root(), &cwd, title, supersedes)? {
        adr_dir::new::Outcome::Exists { display } => {
            print_stderr(&format!(
                "helix-gate: error: {} already exists; nothing was written (edit it, or choose another title)\n",
                escape_controls(&display)
            ));
            Ok(ExitStatus::Failure)
        }
        adr_dir::new::Outcome::Skipped { display, reason } => {
            print_stderr(&format!(
                "helix-gate: error: {} would never be checked: {}; nothing was written (choose another title, or change adr.globs / adr.exclude)\n",
                escape_controls(&display),
                escape_controls(&reason)
            ));
            Ok(ExitStatus::Failure)
        }
        adr_dir::new::Outcome::Created {
            display,
            place,
            template,
            index,
            superseded,
            ..
        } => {
            let shown = escape_controls(&display);
            let mut out = match place {
                adr_dir::new::Place::Session(session) => format!(
                    "created {shown} (draft in session {}, template {template}; no number yet: `helix-gate finalize {shown}` assigns it)\n",
                    escape_controls(&session)
                ),
                adr_dir::new::Place::AdrDirectory(id) => {
                    format!("created {shown} (ADR-{id}, template {template})\n")
                }
            };
            if let Some(index) = index {
                let _ = writeln!(out, "added its row to {}", escape_controls(&index));
            }
            for old in &superseded {
                let _ = writeln!(
                    out,
                    "{} now names it in superseded_by (its status stays until the new ADR is accepted; then set it to Superseded)",
                    escape_controls(old)
                );
            }
            let _ = writeln!(
                out,
                "next: replace every <...> placeholder, then `helix-gate validate {shown}`"
            );
            print(&out)?;
            Ok(ExitStatus::Success)
        }
    }
}

/// `helix-gate finalize <draft> [--dry-run] [--force]`.
pub(super) fn finalize(draft: &Path, dry_run: bool, force: bool) -> anyhow::Result<ExitStatus> {
    let options = finalize::Options {
        dry_run,
        fault: None,
    };
    let done = crate::approval::finalize::run(&current_root(), draft, options, force)?;
    for note in &done.notes {
        print_stderr(&format!("helix-gate: note: {}\n", escape_controls(note)));
    }
    match done.finalization {
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
    let id = &plan.id;
    if dry_run {
        out.push_str("dry run: nothing was changed\n");
        if let Some(note) = &note {
            let _ = writeln!(out, "would assign a number: {note}");
        }
        if plan.adr_id_written {
            let _ = writeln!(out, "would move {draft} -> {target} (adr_id: \"{id}\")");
        } else {
            let _ = writeln!(out, "would move {draft} -> {target}");
        }
        let action = if plan.index_created {
            "would create"
        } else {
            "would add to"
        };
        if plan.index_kept {
            let _ = writeln!(out, "{action} {index}: {row}");
        }
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
        if plan.index_kept {
            let _ = writeln!(out, "{action} {index}: {row}");
        }
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

/// `helix-gate doctor [--format FORMAT]`.
/// The enabled approval types as the reviewer gets them: where `CLAUDE.md`,
/// each check and the skills come from (a repository folder that lacks
/// `CLAUDE.md` or `checks/` extends the built-in type).
fn approval_type_lines(root: &Path, approvals: &crate::approval::ApprovalSettings) -> String {
    let mut out = String::from("\nApproval types (enabled):\n");
    for settings in approvals.types.values().filter(|t| t.enabled) {
        match crate::approval::describe_instructions(root, settings) {
            Ok(line) => {
                let _ = writeln!(out, "  {}", escape_controls(&line));
            }
            Err(e) => {
                let _ = writeln!(out, "  error: {}", escape_controls(&e.to_string()));
            }
        }
    }
    out
}

pub(super) fn doctor(format: ReportFormat) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    adr_dir::governs::refresh_cache_if_used(&root);
    // The approvals config too, so that doctor reproduces the configuration error
    // pre-commit and the Stop gate stop on (exit 2), and names the seed keys that
    // are accepted but do nothing here.
    if let Ok(settings) = crate::config::Settings::load(&root) {
        super::terminal::print_settings_problems(&settings.problems);
    }
    let approvals = crate::approval::settings(&root)?;
    if !approvals.orchestrator_keys.is_empty() {
        print_stderr(&format!(
            "helix-gate: note: {} has keys that only the HELIX orchestrator uses; accepted, no effect here: {}\n",
            escape_controls(&approvals.origin),
            escape_controls(&approvals.orchestrator_keys.join(", "))
        ));
    }
    let adr_dir::Health {
        recovered,
        mut reports,
        read_errors,
        rules,
        detected,
    } = adr_dir::doctor(&root)?;
    match detected {
        Some(Some(found)) => print_stderr(&format!("{}\n", found.note())),
        Some(None) => print_stderr(&format!(
            "{}\n",
            crate::config::detect::nothing_found_note()
        )),
        None => {}
    }
    for note in recovered {
        print_stderr(&format!("helix-gate: note: {}\n", escape_controls(&note)));
    }
    reports.extend(crate::approval::stop_timeout::doctor_reports(&root));
    // Only SARIF documents rules.
    let rules = (format == ReportFormat::Sarif).then_some(&rules);
    let status = super::validate::finish(&reports, &read_errors, format, rules)?;
    // Human output only: the machine formats stay the list of reports.
    if format == ReportFormat::Human {
        super::install::print_registrations(&root)?;
        print(&super::trust::doctor_lines(&root, &approvals))?;
        print(&approval_type_lines(&root, &approvals))?;
    }
    Ok(status)
}

/// `helix-gate doctor --probe [--format human|json]`: exit 1 when a registration
/// that should block does not.
pub(super) fn doctor_probe(format: ReportFormat) -> anyhow::Result<ExitStatus> {
    if !matches!(format, ReportFormat::Human | ReportFormat::Json) {
        print_stderr(
            "helix-gate: error: `doctor --probe` writes human or json (--format human|json)\n",
        );
        return Ok(ExitStatus::Error);
    }
    let report = crate::install::probe::run(&current_root())?;
    if format == ReportFormat::Json {
        print(&format!("{}\n", serde_json::to_string_pretty(&report)?))?;
    } else {
        print(&crate::text::escape_controls_multiline(
            &crate::install::probe::human(&report),
        ))?;
    }
    Ok(if report.fails() {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// `helix-gate init [--preset NAME] [--force]`: exit 2 when the configuration exists.
pub(super) fn init(
    preset: Option<crate::config::Preset>,
    force: bool,
) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    match adr_dir::init::run(&root, preset, force)? {
        adr_dir::init::Outcome::Exists { display } => {
            print_stderr(&format!(
                "helix-gate: error: {} already exists; nothing was written (edit it, or `helix-gate init --force` to replace it)\n",
                escape_controls(&display)
            ));
            Ok(ExitStatus::Error)
        }
        adr_dir::init::Outcome::Written {
            display,
            preset,
            detected,
            found,
            replaced,
            ..
        } => {
            let verb = if replaced { "replaced" } else { "wrote" };
            let mut out = format!("{verb} {} (preset {preset}", escape_controls(&display));
            match (&found, detected) {
                (Some(found), true) => {
                    let _ = write!(
                        out,
                        ", detected from {} in {}/",
                        plural(found.files, "file"),
                        escape_controls(&found.directory)
                    );
                }
                (Some(found), false) => {
                    let _ = write!(out, ", ADRs in {}/", escape_controls(&found.directory));
                }
                (None, true) => out.push_str(", the default: no ADRs found"),
                (None, false) => {}
            }
            out.push_str(")\n\nnext steps:\n");
            for (command, what) in [
                ("helix-gate validate", "check the ADRs now"),
                (
                    "helix-gate install claude",
                    "gate Claude Code's writes to ADRs (codex, gemini, copilot too)",
                ),
                (
                    "helix-gate install git",
                    "check staged ADRs before every commit",
                ),
                (
                    "helix-gate doctor",
                    "see what is in effect and what is missing",
                ),
            ] {
                let _ = writeln!(out, "  {command:<27} {what}");
            }
            out.push_str(
                "  or, with the pre-commit framework, in .pre-commit-config.yaml:\n    - repo: <your helix-gate clone's URL>\n      rev: <tag>\n      hooks:\n        - id: helix-gate\n",
            );
            if preset != crate::config::Preset::Helix {
                out.push_str(
                    "          always_run: true  # its `files` pattern matches the helix layout only\n",
                );
            }
            print(&out)?;
            Ok(ExitStatus::Success)
        }
    }
}

/// `helix-gate list [--format human|json]`.
pub(super) fn list(format: super::Format) -> anyhow::Result<ExitStatus> {
    let listing = adr_dir::list::run(&current_root())?;
    if format == super::Format::Json {
        print(&format!("{}\n", serde_json::to_string_pretty(&listing)?))?;
        return Ok(ExitStatus::Success);
    }
    if listing.adrs.is_empty() {
        print(&format!(
            "no ADRs in {}/\n",
            escape_controls(&listing.directory)
        ))?;
        return Ok(ExitStatus::Success);
    }
    let shown = |value: &Option<String>| {
        value
            .as_deref()
            .map_or_else(|| "-".to_owned(), |v| escape_controls(v).into_owned())
    };
    let rows: Vec<[String; 4]> = listing
        .adrs
        .iter()
        .map(|adr| {
            [
                shown(&adr.number),
                shown(&adr.title),
                shown(&adr.status),
                escape_controls(&adr.path).into_owned(),
            ]
        })
        .collect();
    let header = ["NUMBER", "TITLE", "STATUS", "FILE"].map(str::to_owned);
    let mut widths = [0usize; 4];
    for row in std::iter::once(&header).chain(&rows) {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, width)) in row.iter().zip(widths).enumerate() {
            if i + 1 == row.len() {
                line.push_str(cell);
            } else {
                let pad = width - cell.chars().count();
                let _ = write!(line, "{cell}{}  ", " ".repeat(pad));
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    print(&out)?;
    Ok(ExitStatus::Success)
}

/// `helix-gate governs PATH... [--format human|json]`: per path, the ADRs that govern it.
pub(super) fn governs(
    paths: &[std::path::PathBuf],
    format: super::Format,
) -> anyhow::Result<ExitStatus> {
    let cwd = std::env::current_dir().unwrap_or_default();
    let governance = adr_dir::governs::run(&current_root(), &cwd, paths)?;
    if format == super::Format::Json {
        print(&format!("{}\n", serde_json::to_string_pretty(&governance)?))?;
        return Ok(ExitStatus::Success);
    }
    print(&governs_text(&governance))?;
    Ok(ExitStatus::Success)
}

/// `governs`' text: one block per path, one line per ADR and an indented line per link.
fn governs_text(governance: &adr_dir::governs::Governance) -> String {
    let mut out = String::new();
    for governed in &governance.paths {
        let path = escape_controls(&governed.path);
        if governed.adrs.is_empty() {
            let _ = writeln!(out, "{path}: no ADR governs it");
            continue;
        }
        let _ = writeln!(out, "{path}: {}", governed.force.as_str());
        for adr in &governed.adrs {
            let _ = writeln!(
                out,
                "  {:<8} {}  {} ({})  {}",
                adr.force.as_str(),
                escape_controls(&adr.id),
                escape_controls(adr.title.as_deref().unwrap_or("-")),
                escape_controls(adr.status.as_deref().unwrap_or("no status")),
                escape_controls(&adr.file),
            );
            for provenance in &adr.provenance {
                let _ = writeln!(
                    out,
                    "           via {}",
                    escape_controls(&provenance.to_string())
                );
            }
        }
    }
    out
}
