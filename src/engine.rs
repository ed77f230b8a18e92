//! The check pipeline shared by every entry point:
//! bytes -> [`rules::input::decode`] -> [`Adr::parse`] -> [`rules::check`] -> [`FileReport`].
//!
//! Callers decide where bytes come from (a file, a staged blob, a hook event) and
//! how the report is rendered; the engine does neither.

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::adr::{self, Adr};
use crate::config::{self, AdrMatcher, RuleSet, Settings};
use crate::diagnostic::FileReport;
use crate::rules::{self, Context, RepoFiles, WorkTree, across};

/// Settings, compiled globs and rules for one repository.
pub struct Engine {
    pub root: PathBuf,
    pub settings: Settings,
    pub rules: RuleSet,
    /// Compiled on first use: checking one named file never needs the globs.
    matcher: std::sync::OnceLock<AdrMatcher>,
}

/// One checked document.
pub struct Checked {
    pub report: FileReport,
    /// The parse, when the bytes were text (used by rules across files).
    pub adr: Option<Adr>,
}

/// Why a file could not be read at all (exit 2, never a finding).
#[derive(Debug, thiserror::Error)]
#[error("cannot read {path}: {cause}")]
pub struct ReadError {
    pub path: String,
    /// Named in the message and deliberately not the error's `source`, so that a
    /// printer that walks the chain (`{:#}`) does not repeat it.
    pub cause: std::io::Error,
}

impl Engine {
    /// Load settings and rules for the repository at `root`.
    pub fn load(root: &Path, rules_override: Option<&Path>) -> anyhow::Result<Engine> {
        Engine::with_settings(root, Settings::load(root)?, rules_override)
    }

    /// Build an engine from settings already loaded (the hook reads them first).
    pub fn with_settings(
        root: &Path,
        settings: Settings,
        rules_override: Option<&Path>,
    ) -> anyhow::Result<Engine> {
        let rules = config::load_rules(root, rules_override)?;
        Ok(Engine {
            root: root.to_path_buf(),
            settings,
            rules,
            matcher: std::sync::OnceLock::new(),
        })
    }

    /// Hand over globs the caller already compiled (the hook needs them before the rules).
    pub fn set_matcher(&self, matcher: AdrMatcher) {
        let _ = self.matcher.set(matcher);
    }

    /// The ADR globs (validated when the settings were loaded).
    pub fn matcher(&self) -> &AdrMatcher {
        self.matcher.get_or_init(|| self.settings.matcher())
    }

    /// Check a document given as bytes; `path` names it (and its file name is compared with
    /// `adr_id`).
    pub fn check_bytes(&self, path: &Path, bytes: Vec<u8>, repo: &dyn RepoFiles) -> Checked {
        let display = crate::paths::display(&self.root, path);
        match rules::input::decode(bytes, self.settings.adr.max_file_size) {
            Err(finding) => Checked {
                report: FileReport {
                    path: display,
                    findings: vec![finding],
                },
                adr: None,
            },
            Ok(text) => {
                let adr = Adr::parse(&text);
                let ctx = Context {
                    path,
                    rules: &self.rules,
                    repo,
                };
                let mut report = FileReport {
                    path: display,
                    findings: rules::check(&adr, &ctx),
                };
                report.sort();
                Checked {
                    report,
                    adr: Some(adr),
                }
            }
        }
    }

    /// Read a file (refusing above the size limit without reading it) and check it
    /// against the working tree.
    pub fn check_file(&self, path: &Path) -> Result<Checked, ReadError> {
        // (single-file convenience for the hook)
        let bytes =
            read_limited(path, self.settings.adr.max_file_size).map_err(|cause| ReadError {
                path: path.display().to_string(),
                cause,
            })?;
        Ok(self.check_bytes(path, bytes, &WorkTree { root: &self.root }))
    }

    /// Check many files on all cores against the working tree, then apply the
    /// rules across them. Files that cannot be read are returned separately.
    pub fn check_files(
        &self,
        paths: &[PathBuf],
        across_files: bool,
    ) -> (Vec<FileReport>, Vec<ReadError>) {
        let limit = self.settings.adr.max_file_size;
        self.check_sources(
            paths,
            |path| {
                read_limited(path, limit)
                    .map(|bytes| (path.clone(), bytes))
                    .map_err(|cause| ReadError {
                        path: path.display().to_string(),
                        cause,
                    })
            },
            &WorkTree { root: &self.root },
            across_files,
        )
    }

    /// Check documents from any source (files, staged blobs) on all cores.
    /// `load` yields a document's path and bytes; `repo` answers file existence.
    pub fn check_sources<S: Sync>(
        &self,
        sources: &[S],
        load: impl Fn(&S) -> Result<(PathBuf, Vec<u8>), ReadError> + Sync,
        repo: &dyn RepoFiles,
        across_files: bool,
    ) -> (Vec<FileReport>, Vec<ReadError>) {
        let results = parallel_map(sources, |source| {
            load(source).map(|(path, bytes)| {
                let checked = self.check_bytes(&path, bytes, repo);
                (path, checked)
            })
        });
        let mut checked = Vec::with_capacity(results.len());
        let mut errors = Vec::new();
        for result in results {
            match result {
                Ok(c) => checked.push(c),
                Err(e) => errors.push(e),
            }
        }
        if across_files {
            check_across(&mut checked, &[]);
        }
        let reports = checked
            .into_iter()
            .map(|(_, mut c)| {
                c.report.sort();
                c.report
            })
            .collect();
        (reports, errors)
    }

    /// The repository's ADRs: files below the root matching the configured globs.
    pub fn repository_adrs(&self) -> anyhow::Result<Vec<PathBuf>> {
        let mut out = Vec::new();
        walk(&self.root, &mut |path| {
            if let Some(rel) = crate::paths::relative_to(&self.root, path)
                && self.matcher().is_adr(&rel)
            {
                out.push(path.to_path_buf());
            }
        })
        .with_context(|| format!("cannot list {}", self.root.display()))?;
        out.sort();
        Ok(out)
    }

    /// Markdown files below an explicitly named directory, minus excluded names
    /// (INDEX.md, README.md, templates): a directory you name is an ADR directory.
    pub fn directory_adrs(&self, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
        let mut out = Vec::new();
        walk(dir, &mut |path| {
            let is_md = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"));
            let rel = crate::paths::relative_to(&self.root, path)
                .unwrap_or_else(|| path.to_string_lossy().into_owned());
            if is_md && !self.matcher().is_excluded(&rel) {
                out.push(path.to_path_buf());
            }
        })
        .with_context(|| format!("cannot list {}", dir.display()))?;
        out.sort();
        Ok(out)
    }
}

/// The rules across files (duplicate `adr_id`s, unknown `depends_on` numbers) over the
/// `checked` documents, each named by its path; their findings join the documents' reports
/// (unsorted). `bystanders` take part without being reported: pre-commit passes the committed
/// ADRs that could change a staged ADR's findings, whose own findings belong to other commits.
/// Documents that were not text (no parse) do not take part.
pub fn check_across(checked: &mut [(PathBuf, Checked)], bystanders: &[across::Member<'_>]) {
    let mut index_of = Vec::with_capacity(checked.len());
    let mut members: Vec<across::Member<'_>> = Vec::with_capacity(checked.len() + bystanders.len());
    for (i, (path, c)) in checked.iter().enumerate() {
        if let Some(adr) = &c.adr {
            index_of.push(i);
            members.push(across::Member {
                path: &c.report.path,
                adr,
                file_number: adr::number_in_file_name(path),
            });
        }
    }
    members.extend_from_slice(bystanders);
    let found = across::check(&members);
    drop(members);
    for (member, finding) in found {
        // Members past `index_of` are bystanders.
        if let Some(&i) = index_of.get(member) {
            checked[i].1.report.findings.push(finding);
        }
    }
}

/// Directories never descended into.
const SKIPPED_DIRS: [&str; 4] = ["node_modules", "target", ".git", crate::fs::data_dir::DIR];

/// Visit regular files (and symlinks to files) below `dir`. Symlinked directories
/// are not followed, so a symlink loop cannot make the walk run forever; hidden
/// directories and build output are skipped.
fn walk(dir: &Path, visit: &mut dyn FnMut(&Path)) -> std::io::Result<()> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let entries = match std::fs::read_dir(&current) {
            Ok(entries) => entries,
            Err(e) if current == dir => return Err(e),
            Err(_) => continue, // an unreadable subdirectory is skipped
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if kind.is_dir() {
                if !name.starts_with('.') && !SKIPPED_DIRS.contains(&name.as_ref()) {
                    stack.push(path);
                }
            } else if kind.is_file() || (kind.is_symlink() && path.is_file()) {
                visit(&path);
            }
        }
    }
    Ok(())
}

/// Read at most `limit + 1` bytes: enough to tell that a file is too large
/// without reading all of it.
pub fn read_limited(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(std::io::Error::other("is a directory"));
    }
    // Only a capacity hint: on a 32-bit target a size beyond `usize` reserves nothing.
    let capacity = usize::try_from(meta.len().min(limit + 1)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Map `f` over `items` on up to all available cores, keeping the order.
pub fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(items.len().div_ceil(16).max(1));
    if workers <= 1 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(workers);
    std::thread::scope(|scope| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect()
    })
}
