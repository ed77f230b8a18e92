//! The inputs of an approval and the stage that needs no reviewer: the files
//! read once (their exact bytes are what is judged, cached and recorded), the
//! concepts the ADRs among them name (the reviewer gets them, and they are part
//! of the cache key), and the deterministic checks over those bytes.

use std::path::{Path, PathBuf};

use super::outcome::{ADR_TYPE, ApprovalError};
use super::{cache, run_dir};
use crate::diagnostic::{Finding, Severity, Source};
use crate::engine::Engine;

/// Read every file (refusing above the size limit without reading all of it).
pub(super) fn read_files(
    root: &Path,
    files: &[PathBuf],
    limit: u64,
) -> Result<Vec<run_dir::ReviewedFile>, ApprovalError> {
    files
        .iter()
        .map(|file| {
            let path = if file.is_absolute() {
                crate::paths::absolute(file)
            } else {
                crate::paths::absolute(&root.join(file))
            };
            if crate::engine::leaves_project(root, &path) {
                return Err(ApprovalError::Read {
                    path: file.display().to_string(),
                    source: std::io::Error::new(
                        std::io::ErrorKind::InvalidInput,
                        "a symbolic link leads it outside the project; not read, not sent to a reviewer",
                    ),
                });
            }
            let bytes = crate::engine::read_limited(&path, limit).map_err(|source| {
                ApprovalError::Read {
                    path: file.display().to_string(),
                    source,
                }
            })?;
            Ok(run_dir::ReviewedFile {
                display: crate::paths::display(root, &path),
                path,
                bytes,
            })
        })
        .collect()
}

/// The concept of each reviewed file (named in its front matter or found next to
/// it), in the order of `files`: None for a file that is no ADR or has none. The
/// deterministic stage has reported any that cannot be read, so these are the
/// readable ones.
pub(super) fn file_concepts(
    engine: &Engine,
    kind: &str,
    files: &[run_dir::ReviewedFile],
) -> Vec<Option<run_dir::ReviewedFile>> {
    files
        .iter()
        .map(|file| {
            is_adr(engine, kind, file)
                .then(|| concept_of(engine, &file.path, &file.bytes))
                .flatten()
        })
        .collect()
}

/// The concepts of [`file_concepts`], each once (for the run folder).
pub(super) fn distinct_concepts(
    file_concepts: Vec<Option<run_dir::ReviewedFile>>,
) -> Vec<run_dir::ReviewedFile> {
    let mut out: Vec<run_dir::ReviewedFile> = Vec::new();
    for concept in file_concepts.into_iter().flatten() {
        if !out.iter().any(|c| c.path == concept.path) {
            out.push(concept);
        }
    }
    out
}

/// The concept of the ADR at `path` with content `bytes` (named in its front matter or
/// found next to it: [`Engine::concept_of`]), read from the work tree, when it resolves
/// and can be read.
fn concept_of(engine: &Engine, path: &Path, bytes: &[u8]) -> Option<run_dir::ReviewedFile> {
    let adr = crate::adr::Adr::parse(&String::from_utf8_lossy(bytes));
    let (concept, _) = engine.concept_of(path, &adr)?.ok()?;
    let text = engine.read_concept(&concept).ok()?;
    Some(run_dir::ReviewedFile {
        display: crate::paths::display(&engine.root, &concept),
        path: concept,
        bytes: text.into_bytes(),
    })
}

/// The content digest of the concept the ADR at `path` with content `bytes`
/// names (none, or one): what [`cache::key`] gets as the concepts of a review
/// of this ADR alone. Every caller that looks up or stores an ADR's verdict
/// uses it, so `approve`, pre-commit and finalize compute the same key.
pub fn concept_digests(engine: &Engine, path: &Path, bytes: &[u8]) -> Vec<[u8; 32]> {
    concept_of(engine, path, bytes)
        .map(|concept| cache::content_digest(&concept.bytes))
        .into_iter()
        .collect()
}

/// SHA-256 (hex) of the concept the file at `path` with content `bytes` names
/// when it is reviewed as type `kind` (`""` for none, and for a file that gets
/// no ADR rules): the concept of the cache key, as the history records it.
pub(super) fn concept_hex(engine: &Engine, kind: &str, path: &Path, bytes: &[u8]) -> String {
    let display = crate::paths::display(&engine.root, path);
    if kind != ADR_TYPE && !engine.matcher().is_adr(&display) {
        return String::new();
    }
    concept_digests(engine, path, bytes)
        .first()
        .map(|digest| crate::text::hex(digest))
        .unwrap_or_default()
}

/// Whether `file` gets the ADR rules: every file of type `adr`, and files of
/// other types that the configured ADR globs match.
fn is_adr(engine: &Engine, kind: &str, file: &run_dir::ReviewedFile) -> bool {
    kind == ADR_TYPE || engine.matcher().is_adr(&file.display)
}

/// The deterministic stage: its findings, each naming its file, and the
/// hints of the error findings as recommendations.
///
/// A finding's hint is not kept on it: the stored result has no place for it
/// (the seed's schema), and an approval's findings are exactly what its
/// stored result holds, whether it was just made or read from the cache.
pub(super) fn deterministic(
    engine: &Engine,
    kind: &str,
    files: &[run_dir::ReviewedFile],
) -> (Vec<Finding>, Vec<String>) {
    let mut out = Vec::new();
    let mut hints: Vec<String> = Vec::new();
    let adrs: Vec<&run_dir::ReviewedFile> =
        files.iter().filter(|f| is_adr(engine, kind, f)).collect();
    if !adrs.is_empty() {
        let (reports, _) = engine.check_sources(
            &adrs,
            |f| Ok((f.path.clone(), f.bytes.clone())),
            &crate::rules::WorkTree::new(&engine.root),
            adrs.len() > 1,
        );
        for report in reports {
            for mut f in report.findings {
                if let Some(hint) = f.hint.take()
                    && f.severity == Severity::Error
                {
                    let line = format!("{}: {hint}", report.path);
                    if !hints.contains(&line) {
                        hints.push(line);
                    }
                }
                out.push(
                    f.in_file(report.path.clone())
                        .from_source(Source::Deterministic),
                );
            }
        }
    }
    let limit = engine.settings.adr.max_file_size;
    for file in files.iter().filter(|f| !is_adr(engine, kind, f)) {
        let problem = if file.bytes.len() as u64 > limit {
            Some((
                crate::rules::input::FILE_TOO_LARGE.id,
                format!(
                    "file is larger than {limit} bytes (adr.max_file_size); it is not sent to a reviewer"
                ),
            ))
        } else if file.bytes.contains(&0) {
            Some((
                crate::rules::input::FILE_BINARY.id,
                "file contains NUL bytes (binary data); a reviewer cannot judge it".to_owned(),
            ))
        } else {
            None
        };
        if let Some((rule, message)) = problem {
            out.push(Finding::new(rule, Severity::Error, message).in_file(file.display.clone()));
        }
    }
    hints.push(
        "Fix every deterministic error (`helix-gate validate` shows them), then run `helix-gate approve` again."
            .to_owned(),
    );
    (out, hints)
}
