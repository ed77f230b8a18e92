//! `validate`, `rules` and `explain`: check ADR files by hand or in CI, and
//! document every rule.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use super::terminal::{current_root, print, use_color};
use super::{ExitStatus, ReportFormat};
use crate::config::{Preset, RuleSet, detect};
use crate::diagnostic::FileReport;
use crate::engine::{Engine, read_limited};
use crate::text::escape_controls;
use crate::{render, rules};

pub(super) fn validate(
    paths: &[PathBuf],
    format: ReportFormat,
    rules_file: Option<&Path>,
    concept: Option<&Path>,
) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    // Without configuration the repository's own layout decides, never a silent
    // `0 files checked` of a folder the defaults do not know.
    let unconfigured = rules_file.is_none() && detect::unconfigured(&root);
    // HELIX ADRs in `adr/` are the defaults: nothing to say or change.
    let detected = (unconfigured && paths.is_empty())
        .then(|| detect::detect(&root))
        .flatten()
        .filter(|found| !found.is_default());
    let engine = match &detected {
        Some(found) => {
            eprintln!("{}", found.note());
            Engine::with_settings(&root, found.settings()?, None)?
        }
        None => Engine::load(&root, rules_file)?,
    };
    super::terminal::print_settings_problems(&engine.settings.problems);
    let mut files = Vec::new();
    let mut across = paths.is_empty();
    if paths.is_empty() {
        files = engine.repository_adrs()?;
        if unconfigured && files.is_empty() {
            eprintln!("{}", detect::nothing_found_note());
        }
    }
    for path in paths {
        let meta =
            std::fs::metadata(path).with_context(|| format!("cannot read {}", path.display()))?;
        if meta.is_dir() {
            across = true;
            files.extend(engine.directory_adrs(path)?);
        } else {
            files.push(path.clone());
        }
    }
    if concept.is_some() && files.len() != 1 {
        bail!(
            "--concept compares one ADR with one concept; {} files were given",
            files.len()
        );
    }
    let (mut reports, read_errors) = engine.check_files(&files, across);
    if !across {
        // Files by name: supersession with the repository's other ADRs, as warnings.
        for (file, finding) in crate::engine::supersession_of_files(&engine, &files) {
            let shown = crate::paths::display(&engine.root, &file);
            if let Some(report) = reports.iter_mut().find(|r| r.path == shown) {
                report.findings.push(finding);
                engine.retain_selected(&file, &mut report.findings);
                report.sort();
            }
        }
    }
    if across && rules_file.is_none() {
        // The whole directory was read: the governing index's cache follows it.
        crate::adr_dir::governs::refresh_cache_if_used(&root);
    }
    // A phase plan's checks that need the project, as `gate --phase` runs them.
    for file in files.iter().filter(|f| crate::config::plan::is_plan(f)) {
        let shown = crate::paths::display(&engine.root, file);
        if let Some(report) = reports
            .iter_mut()
            .find(|r| r.path == shown && !r.has_errors())
        {
            let more = crate::gate::plan_project_findings(&root, file).map_err(|e| {
                anyhow::anyhow!("cannot check {}: {e}", escape_controls(&report.path))
            })?;
            report.findings.extend(more);
            engine.retain_selected(file, &mut report.findings);
            report.sort();
        }
    }
    if let Some(concept) = concept {
        // Through the engine's reader: a FIFO or a device here must not hang either.
        let text = engine
            .read_concept(concept)
            .map_err(|why| anyhow::anyhow!("cannot read concept {}: {why}", concept.display()))?;
        if let Some(report) = reports.first_mut() {
            let limit = engine.settings.adr.max_file_size;
            let adr_text = read_limited(&files[0], limit)
                .ok()
                .and_then(|bytes| rules::input::decode(bytes, limit).ok())
                .unwrap_or_default();
            let adr = crate::adr::Adr::parse(&adr_text);
            let origin = crate::paths::display(&engine.root, concept);
            // The same concept named in the front matter was compared already.
            for finding in rules::concept::compare(&adr, &text, &origin, &engine.rules) {
                if !report.findings.contains(&finding) {
                    report.findings.push(finding);
                }
            }
            engine.retain_selected(&files[0], &mut report.findings);
            report.sort();
        }
    }
    if let Some(hint) = preset_hint(&engine, &files, &reports) {
        eprintln!("{hint}");
    }
    finish(&reports, &read_errors, format, Some(&engine.rules))
}

/// Files read for [`preset_hint`]: enough for a majority.
const HINT_SAMPLE: usize = 50;

/// One hint when the HELIX preset is in effect and most files fail because they are
/// written in another format: which preset fits them.
fn preset_hint(engine: &Engine, files: &[PathBuf], reports: &[FileReport]) -> Option<String> {
    let failing = reports.iter().filter(|r| r.has_errors()).count();
    if engine.settings.preset != Preset::Helix || failing * 2 <= reports.len() {
        return None;
    }
    let limit = engine.settings.adr.max_file_size;
    let texts: Vec<String> = files
        .iter()
        .take(HINT_SAMPLE)
        .filter_map(|f| rules::input::decode(read_limited(f, limit).ok()?, limit).ok())
        .collect();
    let better = detect::better_preset(texts.iter().map(String::as_str), Preset::Helix)?;
    Some(format!(
        "helix-gate: hint: most of these files look like {better} ADRs, not HELIX ones; \
         try --preset {better} (or `preset: {better}` in config/helix-gate.yaml)"
    ))
}

/// Print the reports, then the files that could not be read, and decide the exit:
/// 2 when a file could not be read, 1 on any error finding, else 0.
pub(super) fn finish(
    reports: &[FileReport],
    read_errors: &[crate::engine::ReadError],
    format: ReportFormat,
    rules: Option<&RuleSet>,
) -> anyhow::Result<ExitStatus> {
    output(reports, format, rules)?;
    for err in read_errors {
        eprintln!("helix-gate: error: {}", escape_controls(&err.to_string()));
    }
    Ok(if !read_errors.is_empty() {
        ExitStatus::Error
    } else if reports.iter().any(FileReport::has_errors) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

/// Render reports in the chosen format to stdout; `rules` documents the contextual
/// rules in SARIF.
pub(super) fn output(
    reports: &[FileReport],
    format: ReportFormat,
    rules: Option<&RuleSet>,
) -> anyhow::Result<()> {
    match format {
        ReportFormat::Human => print(&render::human(reports, use_color())),
        ReportFormat::Json => print(&render::json(reports)),
        ReportFormat::Sarif => print(&render::sarif(reports, rules)),
        ReportFormat::Github => print(&render::github(reports)),
        ReportFormat::Gitlab => print(&render::gitlab(reports)),
        ReportFormat::Junit => print(&render::junit(reports)),
    }
}

pub(super) fn list_rules(rules_file: Option<&Path>) -> anyhow::Result<ExitStatus> {
    print(&crate::rule_docs::list(&current_root(), rules_file)?.text())?;
    Ok(ExitStatus::Success)
}

pub(super) fn explain(id: &str, rules_file: Option<&Path>) -> anyhow::Result<ExitStatus> {
    if let Some(text) = crate::rule_docs::explain(&current_root(), id, rules_file)? {
        print(&text)?;
        return Ok(ExitStatus::Success);
    }
    match crate::rule_docs::nearest(&current_root(), id, rules_file) {
        Some(near) => eprintln!(
            "helix-gate: error: no rule with id `{}`; did you mean `{}`? (see `helix-gate rules`)",
            escape_controls(id),
            escape_controls(&near)
        ),
        None => eprintln!(
            "helix-gate: error: no rule with id `{}` (see `helix-gate rules`)",
            escape_controls(id)
        ),
    }
    Ok(ExitStatus::Error)
}
