//! `doctor`: the repository-wide view of the ADR directory.
//!
//! Every file's validation and the rules across files come from the engine; the
//! rules on the whole directory (`rules::numbering`: gaps in the numbering, files
//! that carry no number, `supersedes`/`superseded_by` links to ADRs that do not
//! exist, a Superseded ADR without a successor, a number above 99999; and `rules::index`, the INDEX.md
//! check) are run here over the loaded [`Catalog`]. Problems that belong to no
//! single ADR are reported under the ADR directory (gaps) or INDEX.md (the index).

use std::collections::BTreeMap;
use std::path::Path;

use super::Workspace;
use super::catalog::Catalog;
use crate::diagnostic::{FileReport, Finding, Severity};
use crate::engine::ReadError;
use crate::rules::{index, numbering};

/// All reports of the ADR directory, and the files that could not be read.
pub fn run(ws: &Workspace) -> anyhow::Result<(Vec<FileReport>, Vec<ReadError>)> {
    let catalog = Catalog::load(&ws.engine, &ws.dir)?;
    let paths: Vec<_> = catalog.entries.iter().map(|e| e.path.clone()).collect();
    let (mut reports, read_errors) = ws.engine.check_files(&paths, true);
    let known = catalog.taken();
    let replaced = numbering::replaced_numbers(&catalog);
    let by_path: BTreeMap<String, usize> = reports
        .iter()
        .enumerate()
        .map(|(i, r)| (r.path.clone(), i))
        .collect();
    for entry in &catalog.entries {
        let display = crate::paths::display(&ws.engine.root, &entry.path);
        let Some(&i) = by_path.get(&display) else {
            continue;
        };
        let report = &mut reports[i];
        report.findings.extend(numbering::unnumbered_finding(entry));
        report.findings.extend(numbering::too_large_finding(entry));
        if let Some(adr) = &entry.adr {
            report.findings.extend(numbering::succession_findings(
                adr,
                entry.number(),
                &known,
                &replaced,
            ));
        }
        report.sort();
    }
    let gaps = numbering::gap_findings(&known, catalog.width);
    if !gaps.is_empty() {
        reports.push(FileReport {
            path: format!("{}/", crate::paths::display(&ws.engine.root, &ws.dir)),
            findings: gaps,
        });
    }
    let index_path = ws.index_path();
    let index_text = super::read_optional(&index_path)?;
    // Formats without an INDEX.md (madr, nygard: adr.index false) are checked only
    // when one exists.
    if index_text.is_none() && !ws.engine.settings.adr.index {
        return Ok((reports, read_errors));
    }
    let mut index = FileReport {
        path: crate::paths::display(&ws.engine.root, &index_path),
        findings: index::check(index_text.as_deref(), &catalog),
    };
    if !index.findings.is_empty() {
        index.sort();
        reports.push(index);
    }
    Ok((reports, read_errors))
}

/// The report for an ADR directory `dir` that does not exist (or is no
/// directory), under the directory's own path.
pub fn missing_directory(root: &Path, dir: &Path) -> FileReport {
    let display = crate::paths::display(root, dir);
    let what = if dir.exists() {
        "is not a directory"
    } else {
        "does not exist"
    };
    FileReport {
        path: format!("{display}/"),
        findings: vec![
            Finding::new(
                numbering::DIRECTORY_MISSING.id,
                Severity::Error,
                format!("the ADR directory {display} {what}, so no ADR was checked"),
            )
            .in_file(format!("{display}/"))
            .hint("create it, or set adr.directory in config/helix-gate.yaml"),
        ],
    }
}
