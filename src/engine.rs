//! The check pipeline shared by every entry point:
//! bytes -> [`rules::input::decode`] -> [`Adr::parse`] -> [`rules::check`] -> [`FileReport`].
//!
//! Callers decide where bytes come from (a file, a staged blob, a hook event) and
//! how the report is rendered; the engine does neither.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::adr::{self, Adr};
use crate::config::{self, AdrMatcher, RuleSet, Settings};
use crate::diagnostic::{FileReport, Finding};
use crate::rules::{self, Context, RepoFiles, WorkTree, across};

/// Settings, compiled globs and rules for one repository.
pub struct Engine {
    pub root: PathBuf,
    pub settings: Settings,
    pub rules: RuleSet,
    /// The rules switched off (`rules.ignore`, `--ignore`, ...): their findings are
    /// dropped from every report this engine makes.
    selection: rules::selection::Selection,
    /// Compiled on first use: checking one named file never needs the globs.
    matcher: std::sync::OnceLock<AdrMatcher>,
    /// The concept candidates found in a folder (`concept.discover`), listed once per
    /// folder: many ADRs in one folder are checked on all cores.
    discovered: std::sync::Mutex<std::collections::HashMap<PathBuf, std::sync::Arc<Folder>>>,
}

/// A file name a concept may have, as listed once per folder: the name, its lower-case
/// form, and the rank of the first `concept.discover` pattern without `{slug}` it matches.
type Candidate = (String, String, Option<usize>);

/// A folder's concept candidates, and their lower-case names in one text (each followed
/// by a `/`, which no file name holds), so an ADR's slug is searched in the whole
/// folder at once instead of name by name (for 1,000 ADRs in one folder, a million
/// searches). Shared, so ADRs checked on other cores search it at the same time.
struct Folder {
    names: Vec<Candidate>,
    joined: String,
    /// Where each name starts in `joined`.
    starts: Vec<usize>,
    /// The names a pattern without `{slug}` matches (their index, ascending): with
    /// the names holding an ADR's slug, the only ones its discovery looks at.
    ranked: Vec<usize>,
    /// Every name's index, sorted by the lower-case name.
    by_lower: Vec<usize>,
}

impl Folder {
    fn new(names: Vec<Candidate>) -> Folder {
        let mut joined = String::new();
        let mut starts = Vec::with_capacity(names.len());
        for (_, lower, _) in &names {
            starts.push(joined.len());
            joined.push_str(lower);
            joined.push('/');
        }
        let ranked = (0..names.len()).filter(|&i| names[i].2.is_some()).collect();
        let mut by_lower: Vec<usize> = (0..names.len()).collect();
        by_lower.sort_by(|&a, &b| names[a].1.cmp(&names[b].1));
        Folder {
            names,
            joined,
            starts,
            ranked,
            by_lower,
        }
    }

    /// The names whose lower-case form is one of `lowers`: their index, ascending.
    fn named(&self, lowers: &[&str]) -> Vec<usize> {
        let mut found: Vec<usize> = lowers
            .iter()
            .flat_map(|lower| {
                let from = self
                    .by_lower
                    .partition_point(|&i| self.names[i].1.as_str() < *lower);
                self.by_lower[from..]
                    .iter()
                    .take_while(move |&&i| self.names[i].1 == *lower)
                    .copied()
            })
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The names that hold `slug` (lower-case), as `str::contains` tells: their
    /// index, ascending.
    fn holding(&self, slug: &str) -> Vec<usize> {
        let mut holds = Vec::new();
        let finder = crate::text::find::Finder::new(slug.as_bytes());
        let haystack = self.joined.as_bytes();
        let mut from = 0;
        while from < haystack.len()
            && let Some(at) = finder.find(&haystack[from..]).map(|i| from + i)
        {
            let index = self.starts.partition_point(|&start| start <= at) - 1;
            let end = self.starts[index] + self.names[index].1.len();
            if at + slug.len() <= end {
                holds.push(index);
                // One hit is enough: go on with the next name.
                from = end + 1;
            } else {
                from = at + 1;
            }
        }
        holds
    }
}

/// Why a concept document cannot be used (the text follows "cannot use the concept ...: ").
#[derive(Debug, thiserror::Error)]
pub enum ConceptError {
    #[error("an absolute path; name it relative to the ADR's folder or the repository root")]
    Absolute,
    #[error("it leaves the repository; a concept must lie inside it")]
    Outside,
    #[error("no such file (looked next to the ADR and from the repository root)")]
    NotFound,
    #[error("not a regular file ({0})")]
    NotRegular(&'static str),
    #[error("{0}")]
    Unreadable(std::io::Error),
    #[error("larger than adr.max_file_size ({limit} bytes)")]
    TooLarge { limit: u64 },
    #[error("not UTF-8 text")]
    NotUtf8,
}

/// How an ADR came by its concept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConceptOrigin {
    /// Its front matter names it (`concept: PATH`, the path as written).
    Named(String),
    /// Linked from its references section (`## Referenzen` / `## References`; the link
    /// as written).
    Referenced(String),
    /// Found in its folder by `concept.discover`.
    Discovered,
}

/// One checked document.
pub struct Checked {
    pub report: FileReport,
    /// The parse, when the bytes were text (used by rules across files).
    pub adr: Option<Adr>,
}

/// What a source gave: the bytes to check, or the finding that stands for them.
enum Loaded {
    Bytes(Vec<u8>),
    Refused(Finding),
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

/// Read a work-tree file as [`read_limited`] does: its bytes, a `file-not-regular`
/// finding for a path that is not a regular file, or why it could not be read.
fn load_file(root: &Path, path: &Path, max_file_size: u64) -> Result<Loaded, ReadError> {
    if leaves_project(root, path) {
        return Ok(Loaded::Refused(rules::input::outside_project()));
    }
    match read_limited(path, max_file_size) {
        Ok(bytes) => Ok(Loaded::Bytes(bytes)),
        Err(cause) => match not_regular(&cause) {
            Some(kind) => Ok(Loaded::Refused(rules::input::not_regular(kind))),
            None => Err(ReadError {
                path: path.display().to_string(),
                cause,
            }),
        },
    }
}

/// A document read, decoded and parsed, ready for [`Engine::check_prepared`]. It needs
/// no engine, so the hook prepares the file it checks while the rules load.
pub struct Prepared(Parsed);

enum Parsed {
    /// Not checked as a document: the finding says why (not UTF-8, too large, not a
    /// regular file, outside the project).
    Refused(Finding),
    /// A HELIX phase plan.
    Plan(String),
    Adr(Box<Adr>),
}

impl Prepared {
    /// Read the work-tree file at `path` in the repository at `root`.
    pub fn read(root: &Path, path: &Path, max_file_size: u64) -> Result<Prepared, ReadError> {
        Ok(match load_file(root, path, max_file_size)? {
            Loaded::Bytes(bytes) => Prepared::from_bytes(path, bytes, max_file_size),
            Loaded::Refused(finding) => Prepared(Parsed::Refused(finding)),
        })
    }

    /// [`Prepared::read`] with `alongside` run at the same time: an ADR's Markdown is
    /// parsed on a second thread while this one runs `alongside` and parses the front
    /// matter ([`Adr::parse_alongside`]); anything else is read, then `alongside` runs.
    pub fn read_alongside<R>(
        root: &Path,
        path: &Path,
        max_file_size: u64,
        alongside: impl FnOnce() -> R,
    ) -> (Result<Prepared, ReadError>, R) {
        let bytes = match load_file(root, path, max_file_size) {
            Ok(Loaded::Bytes(bytes)) => bytes,
            Ok(Loaded::Refused(finding)) => {
                return (Ok(Prepared(Parsed::Refused(finding))), alongside());
            }
            Err(e) => return (Err(e), alongside()),
        };
        match rules::input::decode(bytes, max_file_size) {
            Err(finding) => (Ok(Prepared(Parsed::Refused(finding))), alongside()),
            Ok(text) if config::plan::is_plan(path) => {
                (Ok(Prepared(Parsed::Plan(text))), alongside())
            }
            Ok(text) => {
                let (adr, result) = Adr::parse_alongside(&text, alongside);
                (Ok(Prepared(Parsed::Adr(Box::new(adr)))), result)
            }
        }
    }

    /// Decode and parse a document given as bytes (`path` tells a plan from an ADR).
    pub fn from_bytes(path: &Path, bytes: Vec<u8>, max_file_size: u64) -> Prepared {
        Prepared(match rules::input::decode(bytes, max_file_size) {
            Err(finding) => Parsed::Refused(finding),
            Ok(text) if config::plan::is_plan(path) => Parsed::Plan(text),
            Ok(text) => {
                let adr = Adr::parse(&text);
                // Every rule reads the lower-cased text: done here, off the rules' path.
                adr.lowercase();
                Parsed::Adr(Box::new(adr))
            }
        })
    }
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
        let rules = config::load_rules_for(root, rules_override, settings.preset)?;
        Engine::from_parts(root, settings, rules)
    }

    fn from_parts(root: &Path, settings: Settings, rules: RuleSet) -> anyhow::Result<Engine> {
        let choice = rules::selection::cli_choice();
        let mut selection = rules::selection::Selection::default();
        if settings.rules != config::settings::RulesSettings::default() || choice.is_some() {
            let known = known_ids(&rules);
            selection = rules::selection::Selection::from_settings(&settings.rules, &known)?;
            if let Some(choice) = choice {
                selection.choose(choice, &known)?;
            }
        }
        Ok(Engine {
            root: root.to_path_buf(),
            settings,
            rules,
            selection,
            matcher: std::sync::OnceLock::new(),
            discovered: std::sync::Mutex::default(),
        })
    }

    /// Drop the findings of rules switched off for the file at `path`.
    pub fn retain_selected(&self, path: &Path, findings: &mut Vec<Finding>) {
        if !self.selection.is_empty() {
            let rel = crate::paths::relative_to(&self.root, path);
            self.selection.retain(findings, rel.as_deref());
        }
    }

    /// Build an engine from settings read from `config_root` (a copy of the
    /// repository's configuration in its layout), whose rules file is read
    /// from there too; the files checked are the repository's at `root`.
    pub fn with_config(
        root: &Path,
        config_root: &Path,
        settings: Settings,
    ) -> anyhow::Result<Engine> {
        let rules = if config_root == root {
            config::load_rules_for(config_root, None, settings.preset)?
        } else {
            // A snapshot outside the work tree: its rules may have a parsed twin.
            config::load_rules_snapshot(config_root, settings.preset)?
        };
        Engine::from_parts(root, settings, rules)
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
        self.check_prepared(
            path,
            Prepared::from_bytes(path, bytes, self.settings.adr.max_file_size),
            repo,
        )
    }

    /// Check a document already read and parsed ([`Prepared`]).
    pub fn check_prepared(&self, path: &Path, prepared: Prepared, repo: &dyn RepoFiles) -> Checked {
        match prepared.0 {
            Parsed::Refused(finding) => self.unparsed(path, finding),
            Parsed::Plan(text) => {
                // A HELIX phase plan, not an ADR: its own checks, and no parse for the
                // rules across ADRs.
                let mut report = FileReport {
                    path: crate::paths::display(&self.root, path),
                    findings: rules::phases::check(&text).1,
                };
                self.retain_selected(path, &mut report.findings);
                report.sort();
                Checked { report, adr: None }
            }
            Parsed::Adr(adr) => {
                let display = crate::paths::display(&self.root, path);
                let ctx = Context {
                    path,
                    rules: &self.rules,
                    repo,
                };
                let mut findings = rules::check(&adr, &ctx);
                findings.extend(self.named_concept(path, &adr));
                self.retain_selected(path, &mut findings);
                let mut report = FileReport {
                    path: display,
                    findings,
                };
                report.sort();
                Checked {
                    report,
                    adr: Some(*adr),
                }
            }
        }
    }

    /// The concept diff of an ADR against its concept ([`Engine::concept_of`]); the concept
    /// is read from the working tree, also by pre-commit (a concept is a source the ADR was
    /// written from, not necessarily part of the commit).
    fn named_concept(&self, path: &Path, adr: &Adr) -> Vec<Finding> {
        let (concept, origin) = match self.concept_of(path, adr) {
            None => return Vec::new(),
            Some(Err(finding)) => return vec![finding],
            Some(Ok(found)) => found,
        };
        match self.read_concept(&concept) {
            Ok(text) => rules::concept::compare(
                adr,
                &text,
                &crate::paths::display(&self.root, &concept),
                &self.rules,
            ),
            Err(why) => vec![self.unusable(adr, &concept, &origin, &why)],
        }
    }

    /// The finding for a concept that cannot be used.
    fn unusable(
        &self,
        adr: &Adr,
        concept: &Path,
        origin: &ConceptOrigin,
        why: &ConceptError,
    ) -> Finding {
        match origin {
            ConceptOrigin::Named(named) => rules::concept::unreadable(
                adr,
                format!("cannot use the concept `{named}` named in the front matter: {why}"),
            ),
            ConceptOrigin::Referenced(link) => rules::concept::undiscoverable(format!(
                "cannot use the concept `{link}` linked from the ADR's references: {why}"
            )),
            ConceptOrigin::Discovered => rules::concept::undiscoverable(format!(
                "cannot use the concept {} found next to the ADR: {why}",
                crate::paths::display(&self.root, concept)
            )),
        }
    }

    /// The concept of the ADR at `adr_path` (parsed as `adr`), the one place every entry
    /// point asks (validate, the hook, pre-commit, approve and its cache key, gate,
    /// finalize): the file its front matter names (`concept:`), else the first concept its
    /// references section links ([`rules::concept::referenced`]) that exists, else the
    /// first file in its own folder that `concept.discover` matches (never the ADR itself,
    /// another ADR, nor a file outside the repository). None: it has none; `Err`: a named
    /// concept that cannot be found.
    pub fn concept_of(
        &self,
        adr_path: &Path,
        adr: &Adr,
    ) -> Option<Result<(PathBuf, ConceptOrigin), Finding>> {
        match rules::concept::named(adr) {
            Some(Err(finding)) => Some(Err(finding)),
            Some(Ok(named)) => Some(match self.resolve_concept(adr_path, &named) {
                Ok(found) => Ok((found, ConceptOrigin::Named(named))),
                Err(why) => Err(self.unusable(
                    adr,
                    Path::new(&named),
                    &ConceptOrigin::Named(named.clone()),
                    &why,
                )),
            }),
            None => self
                .referenced_concept(adr_path, adr)
                .map(|(found, link)| Ok((found, ConceptOrigin::Referenced(link))))
                .or_else(|| {
                    self.discover_concept(adr_path)
                        .map(|found| Ok((found, ConceptOrigin::Discovered)))
                }),
        }
    }

    /// The slug of the ADR at `adr_path` (`{slug}` of `concept.discover`).
    fn slug_of(adr_path: &Path) -> Option<String> {
        crate::config::settings::adr_slug(adr_path.file_name()?.to_str()?)
    }

    /// The first concept the ADR's references section links that is a file inside the
    /// repository, not the ADR itself and not another ADR; the link is relative to the
    /// ADR's folder, as Markdown reads it.
    fn referenced_concept(&self, adr_path: &Path, adr: &Adr) -> Option<(PathBuf, String)> {
        let links = rules::concept::referenced(adr, Self::slug_of(adr_path).as_deref());
        if links.is_empty() {
            return None;
        }
        let adr_path = crate::paths::absolute(adr_path);
        let dir = adr_path.parent()?;
        links.into_iter().find_map(|link| {
            let found = crate::paths::absolute(&dir.join(&link));
            let rel = crate::paths::relative_to(&self.root, &found)?;
            (found != adr_path
                && found.is_file()
                && crate::fs::confine::inside(&self.root, &found)
                && !self.matcher().is_adr(&rel))
            .then_some((found, link))
        })
    }

    /// The concept found by convention next to the ADR at `adr_path` (`concept.discover`).
    pub fn discover_concept(&self, adr_path: &Path) -> Option<PathBuf> {
        if self.settings.concept.discover.is_empty() {
            return None;
        }
        let slug = Self::slug_of(adr_path);
        let adr_path = crate::paths::absolute(adr_path);
        let dir = adr_path.parent()?.to_path_buf();
        crate::paths::relative_to(&self.root, &dir)?;
        let slug_lower = slug.as_deref().map(str::to_lowercase);
        let concept = &self.settings.concept;
        let mut found: Vec<(usize, String)> = {
            let mut cache = self
                .discovered
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let folder = cache
                .entry(dir.clone())
                .or_insert_with(|| {
                    std::sync::Arc::new(Folder::new(
                        self.concept_candidates(&dir, concept.uses_slug()),
                    ))
                })
                .clone();
            drop(cache);
            // The patterns without `{slug}` were matched once per folder; one with it can
            // only match a name that holds the slug: the slug is searched in all the
            // folder's names at once, and the patterns are lower-cased with the slug put
            // in once per ADR (per name, that was two thirds of `validate`'s work on
            // 1,000 ADRs in one folder).
            // Only the names a pattern without `{slug}` matched and those a `{slug}`
            // pattern can match are looked at (walking all of them per ADR was a
            // million steps for 1,000 ADRs in one folder). The latter are ranked by
            // the `{slug}` patterns alone: combined with the folder's rank, that is
            // the first pattern of all that matches.
            let (matcher, holds) = match slug_lower.as_deref() {
                Some(slug) => {
                    let matcher = concept.slug_matcher(slug);
                    let holds = match matcher.literal_names() {
                        // `{slug}.md`: only a name equal to it can match, looked up.
                        Some(names) => folder.named(&names),
                        None => folder.holding(slug),
                    };
                    (Some(matcher), holds)
                }
                None => (None, Vec::new()),
            };
            let mut found: Vec<(usize, String)> = holds
                .iter()
                .filter_map(|&index| {
                    let (name, lower, rank) = &folder.names[index];
                    let by_slug = matcher.as_ref().and_then(|m| m.position(lower));
                    let rank = match (rank, by_slug) {
                        (Some(a), Some(b)) => (*a).min(b),
                        (Some(a), None) => *a,
                        (None, Some(b)) => b,
                        (None, None) => return None,
                    };
                    Some((rank, name.clone()))
                })
                .collect();
            found.extend(
                folder
                    .ranked
                    .iter()
                    .filter(|index| holds.binary_search(index).is_err())
                    .filter_map(|&index| {
                        let (name, _, rank) = &folder.names[index];
                        Some(((*rank)?, name.clone()))
                    }),
            );
            found
        };
        found.sort();
        found.into_iter().find_map(|(rank, name)| {
            let path = dir.join(name);
            let by_slug =
                concept.discover[rank].contains(crate::config::settings::SLUG_PLACEHOLDER);
            // A `{slug}` match that is an ADR itself (`adr/x.md` beside `adr/039-x.md`) is
            // not its concept.
            let is_adr = || {
                crate::paths::relative_to(&self.root, &path)
                    .is_some_and(|rel| self.matcher().is_adr(&rel))
            };
            (path != adr_path
                && crate::fs::confine::inside(&self.root, &path)
                && !(by_slug && is_adr()))
            .then_some(path)
        })
    }

    /// The file names in `dir` that `concept.discover` may match (files or links): those a
    /// pattern without `{slug}` matches, or every `.md` file when a pattern has `{slug}`
    /// (which one depends on the ADR), sorted; each with its lower-case form and the rank
    /// of the first pattern without `{slug}` that matches it.
    fn concept_candidates(&self, dir: &Path, any_md: bool) -> Vec<Candidate> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut names: Vec<Candidate> = entries
            .filter_map(Result::ok)
            .filter_map(|entry| {
                let name = entry.file_name().into_string().ok()?;
                let rank = self.settings.concept.matches(&name);
                let lower = name.to_lowercase();
                let is_md = Path::new(&name)
                    .extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("md"));
                let wanted = rank.is_some() || (any_md && is_md);
                let kind = entry.file_type().ok()?;
                (wanted && (kind.is_file() || kind.is_symlink())).then_some((name, lower, rank))
            })
            .collect();
        names.sort();
        names
    }

    /// Where the concept `named` by the ADR at `adr_path` is: looked up next to the ADR
    /// first, then from the repository root; never outside the repository. `Err` says why.
    pub fn resolve_concept(&self, adr_path: &Path, named: &str) -> Result<PathBuf, ConceptError> {
        // `has_root`: on Windows `\etc\x.md` is not absolute but leaves the repository.
        if Path::new(named).is_absolute() || Path::new(named).has_root() {
            return Err(ConceptError::Absolute);
        }
        let adr_dir = crate::paths::absolute(adr_path)
            .parent()
            .map_or_else(|| self.root.clone(), Path::to_path_buf);
        let mut outside = false;
        for base in [adr_dir, self.root.clone()] {
            let candidate = crate::paths::absolute(&base.join(named));
            if crate::paths::relative_to(&self.root, &candidate).is_none()
                || (std::fs::symlink_metadata(&candidate).is_ok()
                    && !crate::fs::confine::inside(&self.root, &candidate))
            {
                outside = true;
                continue;
            }
            if std::fs::symlink_metadata(&candidate).is_ok() {
                return Ok(candidate);
            }
        }
        Err(if outside {
            ConceptError::Outside
        } else {
            ConceptError::NotFound
        })
    }

    /// Read a concept document as text, within `adr.max_file_size` and without blocking
    /// on a FIFO or a device. `Err` says why.
    pub fn read_concept(&self, concept: &Path) -> Result<String, ConceptError> {
        let limit = self.settings.adr.max_file_size;
        let bytes = read_limited(concept, limit).map_err(|e| match not_regular(&e) {
            Some(kind) => ConceptError::NotRegular(kind),
            None => ConceptError::Unreadable(e),
        })?;
        if bytes.len() as u64 > limit {
            return Err(ConceptError::TooLarge { limit });
        }
        String::from_utf8(bytes).map_err(|_| ConceptError::NotUtf8)
    }

    /// A document that was not parsed: one finding says why.
    fn unparsed(&self, path: &Path, finding: Finding) -> Checked {
        let mut findings = vec![finding];
        self.retain_selected(path, &mut findings);
        Checked {
            report: FileReport {
                path: crate::paths::display(&self.root, path),
                findings,
            },
            adr: None,
        }
    }

    /// Read a work-tree file as [`read_limited`] does: its bytes, a `file-not-regular`
    /// finding for a path that is not a regular file, or why it could not be read.
    fn load_file(&self, path: &Path) -> Result<Loaded, ReadError> {
        load_file(&self.root, path, self.settings.adr.max_file_size)
    }

    /// Read a file (refusing above the size limit without reading it, and anything but a
    /// regular file without opening it for long) and check it against the working tree.
    pub fn check_file(&self, path: &Path) -> Result<Checked, ReadError> {
        let prepared = Prepared::read(&self.root, path, self.settings.adr.max_file_size)?;
        Ok(self.check_read(path, prepared))
    }

    /// Check a work-tree file read with [`Prepared::read`] against the working tree.
    pub fn check_read(&self, path: &Path, prepared: Prepared) -> Checked {
        self.check_prepared(path, prepared, &WorkTree::new(&self.root))
    }

    /// Check many files on all cores against the working tree, then apply the
    /// rules across them. Files that cannot be read are returned separately.
    pub fn check_files(
        &self,
        paths: &[PathBuf],
        across_files: bool,
    ) -> (Vec<FileReport>, Vec<ReadError>) {
        self.check_loaded(
            paths,
            |path| self.load_file(path).map(|loaded| (path.clone(), loaded)),
            &WorkTree::new(&self.root),
            across_files.then_some(&[]),
        )
    }

    /// [`Engine::check_files`] with the rules across files, `bystanders` taking part
    /// without being reported (`pre-commit FILE...`: the repository's other ADRs).
    pub fn check_files_among(
        &self,
        paths: &[PathBuf],
        bystanders: &[across::Member<'_>],
    ) -> (Vec<FileReport>, Vec<ReadError>) {
        self.check_loaded(
            paths,
            |path| self.load_file(path).map(|loaded| (path.clone(), loaded)),
            &WorkTree::new(&self.root),
            Some(bystanders),
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
        self.check_loaded(
            sources,
            |source| load(source).map(|(path, bytes)| (path, Loaded::Bytes(bytes))),
            repo,
            across_files.then_some(&[]),
        )
    }

    /// [`Engine::check_sources`] for sources that may also be refused with a finding;
    /// `across`: run the rules across files, with these bystanders.
    fn check_loaded<S: Sync>(
        &self,
        sources: &[S],
        load: impl Fn(&S) -> Result<(PathBuf, Loaded), ReadError> + Sync,
        repo: &dyn RepoFiles,
        across: Option<&[across::Member<'_>]>,
    ) -> (Vec<FileReport>, Vec<ReadError>) {
        let results = parallel_map(sources, workers_for(sources.len()), |source| {
            load(source).map(|(path, loaded)| {
                let mut checked = match loaded {
                    Loaded::Bytes(bytes) => self.check_bytes(&path, bytes, repo),
                    Loaded::Refused(finding) => self.unparsed(&path, finding),
                };
                if across.is_none() {
                    // Freed here, on the worker's core, not on the caller's.
                    checked.adr = None;
                }
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
        if let Some(bystanders) = across {
            check_across(&mut checked, bystanders);
        }
        let mut parses = Vec::with_capacity(checked.len());
        let reports = checked
            .into_iter()
            .map(|(path, mut c)| {
                self.retain_selected(&path, &mut c.report.findings);
                c.report.sort();
                parses.extend(c.adr);
                c.report
            })
            .collect();
        drop_aside(parses);
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
        crate::paths::sort(&mut out);
        Ok(out)
    }

    /// Markdown files below an explicitly named directory, minus excluded names
    /// (INDEX.md, README.md, templates): a directory you name is an ADR directory.
    pub fn directory_adrs(&self, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
        Ok(self.directory_markdown(dir)?.0)
    }

    /// The Markdown files below `dir`, split into ADRs ([`Engine::directory_adrs`])
    /// and those `adr.exclude` matches (INDEX.md, README.md, templates), both sorted.
    pub fn directory_markdown(&self, dir: &Path) -> anyhow::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
        let (mut adrs, mut excluded) = (Vec::new(), Vec::new());
        walk(dir, &mut |path| {
            let is_md = path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"));
            let rel = crate::paths::relative_to(&self.root, path)
                .unwrap_or_else(|| path.to_string_lossy().into_owned());
            if !is_md {
                return;
            }
            if self.matcher().is_excluded(&rel) {
                excluded.push(path.to_path_buf());
            } else {
                adrs.push(path.to_path_buf());
            }
        })
        .with_context(|| format!("cannot list {}", dir.display()))?;
        crate::paths::sort(&mut adrs);
        crate::paths::sort(&mut excluded);
        Ok((adrs, excluded))
    }
}

/// The rules across files (duplicate `adr_id`s, unknown `depends_on` numbers) over the
/// Every id a finding of `rules` may carry: the built-in rules and the rules file's.
fn known_ids(rules: &RuleSet) -> Vec<&str> {
    let mut known: Vec<&str> = rules::registry().iter().map(|r| r.id).collect();
    known.extend(rules.contextual.iter().map(|r| r.id.as_str()));
    known
}

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

/// The supersession rules across files for `files` validated by name
/// (`validate FILE...`), with the repository's other ADRs taking part: as
/// warnings, each with the file it belongs to. The other side may not be among the
/// files checked, and validate of files never failed on another file's state;
/// `doctor`, pre-commit, `check` and `validate` of the repository or a directory
/// keep them errors.
pub fn supersession_of_files(engine: &Engine, files: &[PathBuf]) -> Vec<(PathBuf, Finding)> {
    fn member((path, shown, adr): &(PathBuf, String, Adr)) -> across::Member<'_> {
        across::Member {
            path: shown.as_str(),
            adr,
            file_number: adr::number_in_file_name(path),
        }
    }
    const RULES: [&str; 3] = [
        across::SUPERSESSION_ONE_SIDED.id,
        across::SUPERSESSION_CYCLE.id,
        across::PREDECESSOR_ACTIVE.id,
    ];
    let limit = engine.settings.adr.max_file_size;
    let parse = |path: &Path| {
        read_limited(path, limit)
            .ok()
            .and_then(|bytes| rules::input::decode(bytes, limit).ok())
            .map(|text| Adr::parse(&text))
    };
    let absolute: Vec<PathBuf> = files.iter().map(|f| crate::paths::absolute(f)).collect();
    let parsed = |paths: Vec<PathBuf>| -> Vec<(PathBuf, String, Adr)> {
        paths
            .into_iter()
            .filter_map(|p| {
                let adr = parse(&p)?;
                Some((p.clone(), crate::paths::display(&engine.root, &p), adr))
            })
            .collect()
    };
    let own = parsed(files.to_vec());
    let others = parsed(
        engine
            .repository_adrs()
            .unwrap_or_default()
            .into_iter()
            .filter(|p| !absolute.contains(&crate::paths::absolute(p)))
            .collect(),
    );
    let members: Vec<across::Member<'_>> = own.iter().chain(&others).map(member).collect();
    across::check(&members)
        .into_iter()
        .filter(|(i, f)| *i < own.len() && RULES.contains(&f.rule.as_str()))
        .map(|(i, mut finding)| {
            finding.severity = crate::diagnostic::Severity::Warning;
            (own[i].0.clone(), finding)
        })
        .collect()
}

/// Directories never descended into.
pub const SKIPPED_DIRS: [&str; 4] = ["node_modules", "target", ".git", crate::fs::data_dir::DIR];

/// Visit regular files (and symlinks to files) below `dir`. Symlinked directories
/// are not followed, so a symlink loop cannot make the walk run forever; hidden
/// directories and build output are skipped.
pub fn walk(dir: &Path, visit: &mut dyn FnMut(&Path)) -> std::io::Result<()> {
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

pub use crate::fs::read::{NotRegular, not_regular, read_limited};

/// Whether `path` names a place inside the project (as written) that symbolic links
/// lead outside it. A path the user gave outside the project is theirs to name.
pub fn leaves_project(root: &Path, path: &Path) -> bool {
    crate::paths::relative_to(root, path).is_some()
        && std::fs::symlink_metadata(path).is_ok()
        && !crate::fs::confine::inside(root, path)
}

/// Drop `values` on a thread of their own when there are many (freeing 1,000
/// parsed ADRs was a sixth of `validate`'s serial work on the calling thread);
/// a process that exits first needs no free at all.
fn drop_aside<T: Send + 'static>(values: Vec<T>) {
    if values.len() < 64 {
        return;
    }
    // No thread to be had: the closure, and with it `values`, is freed here.
    let _ = std::thread::Builder::new().spawn(move || drop(values));
}

/// How many threads a map over `count` items of CPU work uses: every core, but
/// at most one per 16 items (fewer items run inline: a thread costs more than
/// they do).
pub fn workers_for(count: usize) -> usize {
    let wanted = count.div_ceil(16);
    if wanted <= 1 {
        // Not worth asking the system (cgroup files) how many cores there are.
        return 1;
    }
    std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(wanted)
}

/// Map `work` over `items` on up to `workers` threads, keeping the order: the one
/// parallel map of the crate (the engine's files, pre-commit's blobs, the Stop
/// gate's reviews). `items` is consumed on the calling thread first, so it may use
/// values that cannot leave it (a gix handle); then each worker takes the next item
/// when it is free. One worker runs everything inline. A panic in `work` is resumed
/// on the calling thread.
pub fn parallel_map<T: Send, R: Send>(
    items: impl IntoIterator<Item = T>,
    workers: usize,
    work: impl Fn(T) -> R + Sync,
) -> Vec<R> {
    if workers <= 1 {
        return items.into_iter().map(work).collect();
    }
    // Each worker takes the next index from one counter: no lock is ever
    // contended (a channel behind a mutex cost a futex call or more per item).
    let items: Vec<std::sync::Mutex<Option<T>>> = items
        .into_iter()
        .map(|item| std::sync::Mutex::new(Some(item)))
        .collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers.min(items.len().max(1)))
            .map(|_| {
                scope.spawn(|| {
                    let mut out = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(slot) = items.get(i) else { break };
                        let item = slot
                            .lock()
                            .unwrap_or_else(std::sync::PoisonError::into_inner)
                            .take();
                        if let Some(item) = item {
                            out.push((i, work(item)));
                        }
                    }
                    out
                })
            })
            .collect();
        let mut all: Vec<(usize, R)> = handles
            .into_iter()
            .flat_map(|h| {
                h.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            })
            .collect();
        all.sort_unstable_by_key(|(i, _)| *i);
        all.into_iter().map(|(_, r)| r).collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The slug is searched in all of a folder's names at once, and finds exactly the
    /// names `str::contains` finds: overlaps, a slug at a name's end or across two
    /// names, repeated hits in one name, the empty slug, no names.
    #[test]
    fn a_folder_holds_the_names_that_contain_the_slug() {
        let lowers = [
            "aab-x.md",
            "b.md",
            "x-aa",
            "ab",
            "abab-concept.md",
            "\u{e4}ab.md",
        ];
        let folder = Folder::new(
            lowers
                .iter()
                .map(|l| ((*l).to_owned(), (*l).to_owned(), None))
                .collect(),
        );
        for slug in [
            "ab", "aa", "a", "b.md", "md/x", "aab", "x", "", "zz", "\u{e4}a", "abab",
        ] {
            let expected: Vec<usize> = (0..lowers.len())
                .filter(|&i| lowers[i].contains(slug))
                .collect();
            assert_eq!(folder.holding(slug), expected, "{slug:?}");
        }
        assert!(Folder::new(Vec::new()).holding("a").is_empty());
        assert_eq!(folder.named(&["b.md", "ab", "zz", "ab"]), [1, 3]);
        assert!(folder.named(&[]).is_empty());
    }

    #[test]
    fn a_concept_that_cannot_be_used_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let engine = Engine::load(&root, None).unwrap();
        let adr = root.join("adr/001-a.md");
        let why = |named: &str| engine.resolve_concept(&adr, named).unwrap_err();
        assert!(matches!(why("/etc/passwd"), ConceptError::Absolute));
        assert!(matches!(why("../../x.md"), ConceptError::Outside));
        assert!(matches!(why("none.md"), ConceptError::NotFound));
        std::fs::write(root.join("bin.md"), [0xff, 0xfe]).unwrap();
        assert!(matches!(
            engine.read_concept(&root.join("bin.md")),
            Err(ConceptError::NotUtf8)
        ));
    }

    /// The order is kept, at most `workers` run at once, and one worker (or a small
    /// input, by [`workers_for`]) runs on the calling thread.
    #[test]
    fn parallel_map_keeps_the_order_and_the_limit() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let running = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        let out = parallel_map(0..200u32, 3, |i| {
            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_micros(200));
            running.fetch_sub(1, Ordering::SeqCst);
            i * 2
        });
        assert_eq!(out, (0..200).map(|i| i * 2).collect::<Vec<_>>());
        assert!(most.load(Ordering::SeqCst) <= 3);
        let caller = std::thread::current().id();
        let inline = parallel_map(["a", "b"], workers_for(2), |s| {
            assert_eq!(std::thread::current().id(), caller);
            s.len()
        });
        assert_eq!(inline, [1, 1]);
    }

    fn kind_of_refusal(path: &Path) -> Option<&'static str> {
        not_regular(&read_limited(path, 100).unwrap_err())
    }

    #[test]
    #[cfg(unix)]
    fn read_limited_reads_regular_files_and_their_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.md");
        std::fs::write(&file, "0123456789").unwrap();
        assert_eq!(read_limited(&file, 100).unwrap(), b"0123456789");
        assert_eq!(read_limited(&file, 4).unwrap(), b"01234", "limit + 1 bytes");
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_limited(&link, 100).unwrap(), b"0123456789");
    }

    #[test]
    #[cfg(unix)]
    fn read_limited_refuses_what_is_not_a_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(kind_of_refusal(dir.path()), Some("a directory"));
        assert_eq!(
            kind_of_refusal(Path::new("/dev/null")),
            Some("a character device")
        );
        let zero = dir.path().join("zero.md");
        std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
        assert_eq!(kind_of_refusal(&zero), Some("a character device"));
        let socket = dir.path().join("socket.md");
        let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
        assert_eq!(kind_of_refusal(&socket), Some("a socket"));
        let missing = read_limited(&dir.path().join("missing.md"), 100).unwrap_err();
        assert_eq!(missing.kind(), std::io::ErrorKind::NotFound);
        assert_eq!(not_regular(&missing), None);
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs mkfifo (Wine has no FIFOs)")]
    fn read_limited_does_not_block_on_a_fifo() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.md");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        // In a thread: a regression blocks in open(2) forever, and must fail, not hang.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(kind_of_refusal(&fifo));
        });
        let kind = rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("read_limited blocked on a FIFO");
        assert_eq!(kind, Some("a named pipe (FIFO)"));
    }
}
