//! Which decisions govern a file: the one resolver that `helix-gate governs`, the
//! MCP tool `governing_adrs` and every later use of "the ADRs of this file" ask.
//!
//! An ADR is linked to a repository-relative path three ways:
//! - a HELIX ADR's `files.create` and `files.modify` name it (no configuration);
//! - its `governs:` front matter, a list of globs (`!` excludes), matches it (any preset);
//! - a marker in a comment of the file (`ADR-014`, `@adr 014`, [`super::markers`])
//!   names it: as context only, since anyone can write a comment.
//!
//! The ADR's status decides the force of the link ([`Force::of_status`]): Accepted
//! and Implemented bind, Proposed is pending, Superseded, Deprecated and Rejected
//! never bind. A superseded ADR hands its links on to its successor (its
//! `superseded_by`, the ADR its status names, or the ADR that lists it in
//! `supersedes`), with the successor's own status deciding the force.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

mod cache;

pub use cache::{any_index, cached_index, may_govern, refresh_cache, refresh_cache_if_used};

use super::Workspace;
use super::catalog::Catalog;
use super::markers::{self, Marker};
use crate::adr::succession::status_word;
use crate::adr::{self, Adr};
use crate::config::detect;
use crate::config::settings::{Globs, build_globs};
use crate::engine::Engine;
use crate::rules::enforcement::Compiled;
use crate::rules::enforcement::eval::literal_prefix;

/// How strongly an ADR governs a path, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Force {
    /// Linked, but it binds nothing (superseded, deprecated, rejected, no status).
    None,
    /// Linked by a marker in the file: shown as context, never enforced.
    Context,
    /// A Proposed ADR: its rules warn, never block.
    Pending,
    /// An Accepted or Implemented ADR.
    Binding,
}

impl Force {
    /// The force a status gives the ADR's links: Accepted and Implemented bind
    /// (any case, so MADR's `accepted` and Nygard's `Accepted` alike), Proposed is
    /// pending; everything else (Superseded, `superseded by ADR-0005`, Deprecated,
    /// Rejected, an unknown or missing status) binds nothing.
    pub fn of_status(status: Option<&str>) -> Force {
        match status.map(status_word).as_deref() {
            Some("accepted" | "implemented") => Force::Binding,
            Some("proposed") => Force::Pending,
            _ => Force::None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Force::None => "none",
            Force::Context => "context",
            Force::Pending => "pending",
            Force::Binding => "binding",
        }
    }
}

/// Why an ADR governs a path.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(tag = "via", rename_all = "snake_case")]
pub enum Provenance {
    /// The path is in the ADR's `files.create`.
    #[serde(rename = "files.create")]
    FilesCreate,
    /// The path is in the ADR's `files.modify`.
    #[serde(rename = "files.modify")]
    FilesModify,
    /// A glob of the ADR's `governs:` matches the path.
    Governs { glob: String },
    /// A marker in a comment of the file names the ADR.
    Marker { path: String, line: usize },
    /// The ADR succeeds a superseded ADR that governs the path.
    Successor { of: String },
}

impl std::fmt::Display for Provenance {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Provenance::FilesCreate => f.write_str("files.create"),
            Provenance::FilesModify => f.write_str("files.modify"),
            Provenance::Governs { glob } => write!(f, "governs: {glob:?}"),
            Provenance::Marker { path, line } => write!(f, "marker at {path}:{line}"),
            Provenance::Successor { of } => write!(f, "successor of {of}"),
        }
    }
}

/// One ADR that governs a path.
#[derive(Debug, Clone, Serialize)]
pub struct Governing {
    /// `ADR-014`, or the ADR's file when it carries no number.
    pub id: String,
    /// The number as the directory writes it (`014`, `0014`).
    pub number: Option<String>,
    pub title: Option<String>,
    pub status: Option<String>,
    pub force: Force,
    /// The ADR's file, relative to the repository root.
    pub file: String,
    /// Every link from the path to the ADR.
    pub provenance: Vec<Provenance>,
}

/// The ADRs that govern one path, the strongest first.
#[derive(Debug, Clone, Serialize)]
pub struct Governed {
    /// The path, relative to the repository root.
    pub path: String,
    /// The strongest force among `adrs` (`none` when there is none).
    pub force: Force,
    pub adrs: Vec<Governing>,
}

/// What `governs` answers: every path asked about.
#[derive(Debug, Clone, Serialize)]
pub struct Governance {
    pub paths: Vec<Governed>,
}

/// One ADR as the resolver reads it (and as the cache keeps it, [`cache`]).
#[derive(Debug, Serialize, Deserialize)]
struct Indexed {
    id: String,
    number_text: Option<String>,
    number: Option<u32>,
    title: Option<String>,
    status: Option<String>,
    force: Force,
    superseded: bool,
    file: String,
    /// `files.create` and `files.modify`, normalised.
    create: Vec<String>,
    modify: Vec<String>,
    /// Its `governs:` globs as written (trimmed), `!` excludes among them.
    governs: Vec<String>,
    /// `governs` compiled, on the first path that may match one of them.
    #[serde(skip)]
    scope: OnceLock<Scope>,
    /// Numbers of the ADRs that replace this one (as the ADR itself says).
    successors: Vec<u32>,
    /// Numbers this ADR says it replaces.
    supersedes: Vec<u32>,
    /// The rules of its `## Enforcement` section that can be enforced: set when
    /// the index is built, read from the cache's rule block on first use when it
    /// is loaded ([`Indexed::rules`]).
    #[serde(skip)]
    rules: OnceLock<Vec<Compiled>>,
    /// Where its rules are in the cache's rule block.
    rules_at: Option<(usize, usize)>,
    /// What its rules can reach, known without reading them.
    reach: Reach,
}

/// Which paths an ADR's rules can cover, without reading (or compiling) them.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Reach {
    /// How many rules it has.
    count: usize,
    /// Some rule has no `paths`: it covers what the ADR governs.
    unscoped: bool,
    /// The literal starts of the rules' `paths` globs ([`literal_prefix`]).
    prefixes: Vec<String>,
}

impl Reach {
    fn of(rules: &[Compiled]) -> Reach {
        let mut prefixes: Vec<String> = rules
            .iter()
            .flat_map(|c| c.rule.paths.iter().flatten())
            .map(|g| literal_prefix(g).to_owned())
            .collect();
        prefixes.sort();
        prefixes.dedup();
        Reach {
            count: rules.len(),
            unscoped: rules.iter().any(|c| c.rule.paths.is_none()),
            prefixes,
        }
    }

    /// Whether a rule may cover `path`, which the ADR governs or not.
    fn may_cover(&self, path: &str, governed: bool) -> bool {
        self.count > 0
            && ((self.unscoped && governed) || self.prefixes.iter().any(|p| path.starts_with(p)))
    }
}

/// What the resolver knows of an ADR without reading it whole: the cache keeps
/// these in its header and each [`Indexed`] in its block, read only when a
/// path may concern the ADR ([`Starts`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Summary {
    number: Option<u32>,
    force: Force,
    superseded: bool,
    /// How many rules it has ([`Reach::count`]).
    rules: u32,
    /// Some rule has no `paths` ([`Reach::unscoped`]).
    unscoped: bool,
    /// Whether it links any path by itself ([`Indexed::links`]).
    links: bool,
    successors: Box<[u32]>,
    supersedes: Box<[u32]>,
    /// Where the cache's block holds the ADR ([`Indexed`], postcard).
    at: Option<(u32, u32)>,
}

impl Summary {
    fn of(adr: &Indexed) -> Summary {
        Summary {
            number: adr.number,
            force: adr.force,
            superseded: adr.superseded,
            rules: narrow(adr.reach.count),
            unscoped: adr.reach.unscoped,
            links: adr.links(),
            successors: adr.successors.clone().into(),
            supersedes: adr.supersedes.clone().into(),
            at: None,
        }
    }
}

/// A count or offset of the cache as its header keeps it: 4 bytes in memory
/// (postcard writes the same varint as for `usize`). A cache is at most 64 MB
/// and its ADRs and starts are fewer than its bytes, so nothing is cut.
fn narrow(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Strings packed into one: a list read with two allocations, not one per string.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Packed {
    text: String,
    /// Where each string ends in `text` (a cache is at most 64 MB).
    ends: Vec<u32>,
}

impl Packed {
    fn push(&mut self, item: &str) {
        self.text.push_str(item);
        self.ends.push(narrow(self.text.len()));
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        let mut start = 0;
        self.ends.iter().map(move |&end| {
            let end = end as usize;
            let item = self.text.get(start..end).unwrap_or_default();
            start = end;
            item
        })
    }
}

/// The literal starts of what every ADR links (its `files` entries, the
/// literal start of each `governs:` glob, [`literal_prefix`]) and of its rules'
/// `paths` ([`Reach::prefixes`]), as [`start_key`] compares them: an ADR can
/// govern a path, or a rule of it cover the path by its `paths`, only if one of
/// its starts starts the path. So a question about one path reads only the ADRs
/// it may concern.
#[derive(Debug, Default, Clone, Serialize, Deserialize)]
struct Starts {
    starts: Packed,
    /// Per start: the ADR's position, and whether it is a rule's (`paths`).
    owners: Vec<(u32, bool)>,
}

impl Starts {
    fn of(adrs: &[Indexed]) -> Starts {
        let mut starts = Starts::default();
        for (i, adr) in adrs.iter().enumerate() {
            let links = adr.create.iter().chain(&adr.modify).map(String::as_str);
            let globs = adr
                .governs
                .iter()
                .filter(|g| !g.starts_with('!'))
                .map(|g| literal_prefix(g));
            for start in links.chain(globs) {
                starts.starts.push(&start_key(start));
                starts.owners.push((narrow(i), false));
            }
            for start in &adr.reach.prefixes {
                starts.starts.push(&start_key(start));
                starts.owners.push((narrow(i), true));
            }
        }
        starts
    }

    /// The ADRs one of whose starts starts `path`: `(position, rule)` for each
    /// such start, `rule` telling whether it is a rule's `paths`.
    fn of_path<'a>(&'a self, path: &str) -> impl Iterator<Item = (usize, bool)> + 'a {
        let key = start_key(path).into_owned();
        self.starts
            .iter()
            .zip(&self.owners)
            .filter(move |(start, _)| key.starts_with(start))
            .map(|(_, &(i, rule))| (i as usize, rule))
    }
}

/// A path or a start of one as [`Starts`] compares them: unchanged on Unix; on
/// Windows with `/` separators and lower case, one character at a time (no
/// final-sigma rule), so that whatever [`names`] and [`Indexed::matching`]
/// accept also starts with the key of its start.
fn start_key(text: &str) -> std::borrow::Cow<'_, str> {
    if crate::paths::WINDOWS {
        std::borrow::Cow::Owned(
            crate::paths::windows_slashes(text)
                .chars()
                .flat_map(char::to_lowercase)
                .collect(),
        )
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

impl Indexed {
    /// The `governs:` glob that brings `path` under the ADR, unless an exclude
    /// takes it out. Globs whose literal start `path` lacks are ruled out first,
    /// so an ADR that cannot govern the path compiles nothing.
    fn matching(&self, path: &str) -> Option<&str> {
        let may = self
            .governs
            .iter()
            .any(|g| !g.starts_with('!') && path.starts_with(literal_prefix(g)));
        if !may {
            return None;
        }
        self.scope
            .get_or_init(|| Scope::of(&self.governs))
            .matching(path)
    }

    /// Its rules: those it was built with, or those `block` (the cache's rule
    /// block) holds for it, read once. A block that does not read gives none.
    fn rules(&self, block: &Block) -> &[Compiled] {
        self.rules.get_or_init(|| {
            self.rules_at
                .and_then(|at| block.read(at))
                .and_then(|bytes| cache::rules::read(&bytes))
                .unwrap_or_default()
        })
    }

    /// Whether the ADR links any path by itself (`files` or `governs:`).
    fn links(&self) -> bool {
        !(self.create.is_empty() && self.modify.is_empty() && self.governs.is_empty())
    }

    /// The stand-in for an ADR the cache's block does not give back (a damaged
    /// cache): it links nothing and has no rules.
    fn unreadable(summary: &Summary, file: Option<&str>) -> Indexed {
        let file = file.unwrap_or_default().to_owned();
        Indexed {
            id: file.clone(),
            number_text: None,
            number: summary.number,
            title: None,
            status: None,
            force: Force::None,
            superseded: false,
            file,
            create: Vec::new(),
            modify: Vec::new(),
            governs: Vec::new(),
            scope: OnceLock::new(),
            successors: Vec::new(),
            supersedes: Vec::new(),
            rules: OnceLock::new(),
            rules_at: None,
            reach: Reach::default(),
        }
    }
}

/// The `governs:` globs of an ADR, each kept as written for the provenance.
#[derive(Debug, Default)]
struct Scope {
    include: Vec<(String, Globs)>,
    exclude: Globs,
}

impl Scope {
    /// Compile globs as [`governs_of`] lists them; a glob that does not parse is
    /// left out (reporting it is a rule's business, not the resolver's).
    fn of(globs: &[String]) -> Scope {
        let mut scope = Scope::default();
        let mut excludes = Vec::new();
        for glob in globs {
            if let Some(excluded) = glob.strip_prefix('!') {
                excludes.push(excluded.trim_start_matches("./").to_owned());
            } else if let Ok(compiled) = build_globs(&[glob.trim_start_matches("./").to_owned()]) {
                scope.include.push((glob.clone(), compiled));
            }
        }
        excludes.retain(|g| build_globs(std::slice::from_ref(g)).is_ok());
        scope.exclude = build_globs(&excludes).unwrap_or_default();
        scope
    }

    /// The glob that brings `path` under the ADR, unless an exclude takes it out.
    fn matching(&self, path: &str) -> Option<&str> {
        let (glob, _) = self.include.iter().find(|(_, g)| g.is_match(path))?;
        (!self.exclude.is_match(path)).then_some(glob.as_str())
    }
}

/// The globs of `governs:` ([`crate::rules::enforcement::governs_globs`]),
/// trimmed, empty ones left out; `!glob` excludes. A glob that does not compile
/// is left out when they are compiled (the ADR rule `governs-invalid` reports it;
/// the resolver does not).
fn governs_of(adr: &Adr) -> Vec<String> {
    crate::rules::enforcement::governs_globs(adr)
        .unwrap_or_default()
        .iter()
        .map(|g| g.trim())
        .filter(|g| !g.is_empty())
        .map(str::to_owned)
        .collect()
}

/// ADR numbers listed under `key` (a scalar or a list).
fn numbers_under(adr: &Adr, key: &str) -> Vec<u32> {
    adr::succession::listed(adr, key)
        .iter()
        .filter_map(|t| adr::number_in_id(t))
        .collect()
}

/// The successor a status names: `superseded by ADR-0005`, `Superseded by [2. X](0002-x.md)`.
fn successor_in_status(status: &str) -> Option<u32> {
    let lower = status.to_ascii_lowercase();
    // adr-tools writes `Superceded by [2. X](0002-x.md)`.
    let at = lower
        .find("superseded by")
        .or_else(|| lower.find("superceded by"))?;
    let rest = &status[at + "superseded by".len()..];
    let start = rest.find(|c: char| c.is_ascii_digit())?;
    let digits: String = rest[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// A `files` entry as a repository-relative path (None for a template gap or a
/// path that leaves the repository).
fn normalized(entry: &str) -> Option<String> {
    if entry.starts_with('<') && entry.ends_with('>') {
        return None;
    }
    match crate::rules::file_refs::classify(entry) {
        crate::rules::file_refs::PathCheck::Relative(rel) => Some(rel),
        _ => None,
    }
}

/// Whether the `files` entry `entry` names `path` (or a folder that holds it);
/// on Windows in any case ([`crate::paths::comparable`]).
fn names(entry: &str, path: &str) -> bool {
    let (entry, path) = (
        crate::paths::comparable(entry),
        crate::paths::comparable(path),
    );
    let (entry, path) = (entry.as_ref(), path.as_ref());
    path == entry
        || path
            .strip_prefix(entry)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// One entry of `catalog` as the resolver reads it (None: it could not be read).
fn indexed(root: &Path, catalog: &Catalog, entry: &crate::adr::catalog::Entry) -> Option<Indexed> {
    let doc = entry.adr.as_ref()?;
    let number = entry.number();
    let number_text = number.map(|n| catalog.format(n));
    let file = crate::paths::display(root, &entry.path);
    let id = number_text
        .as_ref()
        .map_or_else(|| file.clone(), |n| format!("ADR-{n}"));
    let status = entry
        .status()
        .map(str::to_owned)
        .or_else(|| doc.body_status().map(|v| v.value));
    let files = entry
        .front_matter()
        .and_then(|fm| fm.files.valid())
        .cloned()
        .unwrap_or_default();
    let rules = crate::rules::enforcement::compiled(doc);
    let mut successors = numbers_under(doc, "superseded_by");
    successors.extend(numbers_under(doc, "superseded-by"));
    successors.extend(status.as_deref().and_then(successor_in_status));
    Some(Indexed {
        id,
        number_text,
        number,
        title: entry.title().map(str::to_owned),
        force: Force::of_status(status.as_deref()),
        superseded: matches!(
            status.as_deref().map(status_word).as_deref(),
            Some("superseded" | "superceded")
        ),
        status,
        file,
        create: files.create.iter().filter_map(|e| normalized(e)).collect(),
        modify: files.modify.iter().filter_map(|e| normalized(e)).collect(),
        governs: governs_of(doc),
        scope: OnceLock::new(),
        successors,
        supersedes: numbers_under(doc, "supersedes"),
        reach: Reach::of(&rules),
        rules: OnceLock::from(rules),
        rules_at: None,
    })
}

/// The cache's block: each ADR of a loaded index and its rules, read when a
/// question needs them.
#[derive(Debug, Default)]
enum Block {
    /// A built index: its ADRs are read already.
    #[default]
    None,
    Bytes(Vec<u8>),
    /// The cache file, held open from `offset` on: a cache written meanwhile
    /// (by rename) is another file, so what is read matches the header read.
    File {
        file: std::fs::File,
        offset: u64,
        len: usize,
    },
}

impl Block {
    /// The bytes from `start` to `end` (None: outside the block, or unreadable).
    fn read(&self, (start, end): (usize, usize)) -> Option<std::borrow::Cow<'_, [u8]>> {
        match self {
            Block::None => None,
            Block::Bytes(bytes) => bytes.get(start..end).map(std::borrow::Cow::Borrowed),
            Block::File { file, offset, len } => {
                if start > end || end > *len {
                    return None;
                }
                let mut buf = vec![0; end - start];
                crate::fs::read::exact_at(file, offset + start as u64, &mut buf).ok()?;
                Some(std::borrow::Cow::Owned(buf))
            }
        }
    }

    /// The block held in memory (a file's read whole and closed); None when it
    /// no longer reads.
    fn in_memory(self) -> Option<Block> {
        match &self {
            Block::File { len, .. } => self.read((0, *len)).map(|b| Block::Bytes(b.into_owned())),
            _ => Some(self),
        }
    }

    /// How many bytes it holds.
    fn len(&self) -> usize {
        match self {
            Block::None => 0,
            Block::Bytes(bytes) => bytes.len(),
            Block::File { len, .. } => *len,
        }
    }
}

/// The governing index of a repository: every ADR with its links, read once.
#[derive(Debug)]
pub struct Index {
    /// Every ADR, in the directory's order, as known without reading it.
    summaries: Vec<Summary>,
    /// Every ADR: set when the index is built, read from `block` on first use
    /// when it is loaded from the cache ([`Index::adr`]). Boxed: an unread
    /// ADR's slot is a pointer, not an `Indexed`'s few hundred bytes (fresh
    /// pages cost more than the reads a question saves).
    adrs: Vec<OnceLock<Box<Indexed>>>,
    /// Which ADRs a path may concern.
    starts: Starts,
    /// The ADRs' files, repository-relative ([`Index::is_adr`]).
    files: Packed,
    /// The cache file's block, where a loaded ADR and its rules are read from.
    block: Block,
    /// ADR position by number (the first ADR that has it).
    by_number: OnceLock<BTreeMap<u32, usize>>,
    /// The last path [`Index::governing`] answered, and its answer: a hook call
    /// asks about one file more than once (the rules that judge it, then the
    /// check of its content).
    last_governing: std::sync::Mutex<Option<(String, Governors)>>,
}

impl Index {
    /// The index of the ADRs of `catalog`, the ADR directory of the repository at `root`.
    pub fn from_catalog(root: &Path, catalog: &Catalog) -> Index {
        Index::of(
            catalog
                .entries
                .iter()
                .filter_map(|entry| indexed(root, catalog, entry))
                .collect(),
        )
    }

    /// The index of ADRs read already, in the directory's order.
    fn of(adrs: Vec<Indexed>) -> Index {
        let mut files = Packed::default();
        for adr in &adrs {
            files.push(&adr.file);
        }
        Index::with(
            adrs.iter().map(Summary::of).collect(),
            Starts::of(&adrs),
            files,
            adrs.into_iter()
                .map(|adr| OnceLock::from(Box::new(adr)))
                .collect(),
            Block::default(),
        )
    }

    /// The index as the cache keeps it: each ADR is read from `block` when a
    /// question needs it.
    fn loaded(summaries: Vec<Summary>, starts: Starts, files: Packed, block: Block) -> Index {
        let adrs = summaries.iter().map(|_| OnceLock::new()).collect();
        Index::with(summaries, starts, files, adrs, block)
    }

    fn with(
        summaries: Vec<Summary>,
        starts: Starts,
        files: Packed,
        adrs: Vec<OnceLock<Box<Indexed>>>,
        block: Block,
    ) -> Index {
        Index {
            summaries,
            adrs,
            starts,
            files,
            block,
            by_number: OnceLock::new(),
            last_governing: std::sync::Mutex::new(None),
        }
    }

    /// ADR position by number (the first ADR that has it), on first use: only
    /// markers and succession ask.
    fn by_number(&self) -> &BTreeMap<u32, usize> {
        self.by_number.get_or_init(|| {
            let mut by_number = BTreeMap::new();
            for (i, adr) in self.summaries.iter().enumerate() {
                if let Some(n) = adr.number {
                    by_number.entry(n).or_insert(i);
                }
            }
            by_number
        })
    }

    /// The ADR at position `i`, read from the cache's block on first use. One
    /// that does not read (a damaged cache) links nothing and rules nothing.
    fn adr(&self, i: usize) -> &Indexed {
        self.adrs[i].get_or_init(|| {
            let summary = &self.summaries[i];
            Box::new(
                summary
                    .at
                    .and_then(|(start, end)| self.block.read((start as usize, end as usize)))
                    .and_then(|bytes| postcard::from_bytes(&bytes).ok())
                    .unwrap_or_else(|| Indexed::unreadable(summary, self.files.iter().nth(i))),
            )
        })
    }

    /// Whether a hook has anything to do with the index: a binding or pending ADR
    /// has rules, or a binding ADR links paths (its own `files` or `governs:`, or
    /// those a superseded ADR hands on). A proposed ADR's links alone do not count:
    /// they are context for an ADR that may never be accepted, and a repository of
    /// proposals keeps the hook's no-op.
    pub fn rules_anything(&self) -> bool {
        let binding = |adr: &Summary| adr.force == Force::Binding;
        let adrs = &self.summaries;
        adrs.iter()
            .any(|adr| adr.force >= Force::Pending && adr.rules > 0)
            || adrs.iter().any(|adr| binding(adr) && adr.links)
            || (adrs.iter().any(binding) && adrs.iter().any(|adr| adr.superseded && adr.links))
    }

    /// How many ADRs the index holds.
    pub fn len(&self) -> usize {
        self.summaries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.summaries.is_empty()
    }

    /// Whether `path` is one of the ADRs themselves.
    pub fn is_adr(&self, path: &str) -> bool {
        self.files
            .iter()
            .any(|file| crate::paths::same_name(file, path, crate::paths::WINDOWS))
    }

    /// The ADRs whose rules can bind or warn (binding or pending, with rules):
    /// (id, title, force, rules).
    pub fn ruling(&self) -> impl Iterator<Item = RulingAdr<'_>> {
        (0..self.summaries.len())
            .filter(|&i| self.may_rule(i))
            .map(|i| self.ruling_adr(i))
    }

    /// Whether the ADR at `i` has rules that can bind or warn.
    fn may_rule(&self, i: usize) -> bool {
        let adr = &self.summaries[i];
        adr.force >= Force::Pending && adr.rules > 0
    }

    /// [`Index::ruling`], only the ADRs a rule of which may cover one of `paths`,
    /// each given with the ADRs that govern it with at least pending force
    /// ([`Index::governing`]): the others are not even read from the cache.
    pub fn ruling_for<'a>(
        &'a self,
        paths: &'a [(&'a str, &'a Governors)],
    ) -> impl Iterator<Item = RulingAdr<'a>> {
        let mut reached = BTreeSet::new();
        for (path, governors) in paths {
            // A rule without `paths` covers what its ADR governs; one with them,
            // paths its starts may start.
            reached.extend(
                governors
                    .0
                    .iter()
                    .copied()
                    .filter(|&i| self.summaries[i].unscoped),
            );
            reached.extend(
                self.starts
                    .of_path(path)
                    .filter(|(_, rule)| *rule)
                    .map(|(i, _)| i),
            );
        }
        reached
            .into_iter()
            .filter(|&i| self.may_rule(i))
            .filter(move |&i| {
                let adr = self.adr(i);
                paths
                    .iter()
                    .any(|(path, governors)| adr.reach.may_cover(path, governors.0.contains(&i)))
            })
            .map(|i| self.ruling_adr(i))
    }

    /// The ADRs that govern `path` with at least pending force.
    pub fn governing(&self, path: &str) -> Governors {
        let mut last = self
            .last_governing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((known, governors)) = last.as_ref()
            && known == path
        {
            return governors.clone();
        }
        let governors = Governors(
            self.links(path, &[])
                .into_iter()
                .filter(|(_, (force, _))| *force >= Force::Pending)
                .map(|(i, _)| i)
                .collect(),
        );
        *last = Some((path.to_owned(), governors.clone()));
        governors
    }

    /// The rules of the ruling ADRs ([`Index::ruling_for`]) that judge the
    /// repository-relative `rel`, each with its ADR: `each` gets every rule that
    /// `keep` admits and that covers `rel` ([`Compiled::covers`]: its `paths`,
    /// or without them its ADR governs `rel`). None for an ADR itself, which is
    /// no code. `keep` is asked first, so a rule it leaves out costs no path
    /// match, and nothing is collected on the way.
    pub fn each_rule_covering(
        &self,
        rel: &str,
        mut keep: impl FnMut(&RulingAdr<'_>, &Compiled) -> bool,
        mut each: impl FnMut(&RulingAdr<'_>, &Compiled),
    ) {
        if self.is_adr(rel) {
            return;
        }
        let governors = self.governing(rel);
        let reached = [(rel, &governors)];
        // Only the ADRs whose rules can reach the file: the others' are not read.
        for adr in self.ruling_for(&reached) {
            let governed = governors.contains(&adr);
            for compiled in adr.rules {
                if keep(&adr, compiled) && compiled.covers(rel, governed) {
                    each(&adr, compiled);
                }
            }
        }
    }

    fn ruling_adr(&self, i: usize) -> RulingAdr<'_> {
        let adr = self.adr(i);
        RulingAdr {
            position: i,
            id: &adr.id,
            title: adr.title.as_deref(),
            file: &adr.file,
            force: adr.force,
            rules: adr.rules(&self.block),
        }
    }

    /// Every superseded ADR with the ids of the ADRs that replace it (as either side
    /// says), in the directory's order: `("ADR-0003", ["ADR-0007"])`.
    pub fn replaced(&self) -> Vec<(&str, Vec<&str>)> {
        (0..self.summaries.len())
            .filter(|&i| self.summaries[i].superseded)
            .map(|i| {
                let by = self
                    .successors(i)
                    .into_iter()
                    .map(|j| self.adr(j).id.as_str());
                (self.adr(i).id.as_str(), by.collect())
            })
            .collect()
    }

    /// The ADRs that replace the ADR at `i`: those it names, and those that name it
    /// in `supersedes`.
    fn successors(&self, i: usize) -> BTreeSet<usize> {
        let adr = &self.summaries[i];
        let mut out: BTreeSet<usize> = adr
            .successors
            .iter()
            .filter_map(|n| self.by_number().get(n).copied())
            .collect();
        if let Some(own) = adr.number {
            out.extend(
                self.summaries
                    .iter()
                    .enumerate()
                    .filter(|(_, other)| other.supersedes.contains(&own))
                    .map(|(j, _)| j),
            );
        }
        out.remove(&i);
        out
    }

    /// The ADRs that govern the repository-relative `path`, given the markers found
    /// in the file's comments; the strongest first, then by number.
    pub fn resolve(&self, path: &str, markers: &[Marker]) -> Vec<Governing> {
        let mut out: Vec<Governing> = self
            .links(path, markers)
            .into_iter()
            .map(|(i, (force, provenance))| {
                let adr = self.adr(i);
                Governing {
                    id: adr.id.clone(),
                    number: adr.number_text.clone(),
                    title: adr.title.clone(),
                    status: adr.status.clone(),
                    force,
                    file: adr.file.clone(),
                    provenance,
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.force
                .cmp(&a.force)
                .then_with(|| a.number.is_none().cmp(&b.number.is_none()))
                .then_with(|| a.number.cmp(&b.number))
                .then_with(|| a.file.cmp(&b.file))
        });
        out
    }

    /// The links from `path` to each ADR that governs it (by position), with the
    /// force they give: only the ADRs one of whose starts starts the path
    /// ([`Starts`]), those its markers name and their successors are read.
    fn links(&self, path: &str, markers: &[Marker]) -> BTreeMap<usize, (Force, Vec<Provenance>)> {
        let candidates: BTreeSet<usize> = self
            .starts
            .of_path(path)
            .filter(|(_, rule)| !rule)
            .map(|(i, _)| i)
            .collect();
        // (ADR, provenance, the most force the link can carry).
        let mut links: Vec<(usize, Provenance, Force)> = Vec::new();
        for i in candidates {
            let adr = self.adr(i);
            if adr.create.iter().any(|e| names(e, path)) {
                links.push((i, Provenance::FilesCreate, Force::Binding));
            }
            if adr.modify.iter().any(|e| names(e, path)) {
                links.push((i, Provenance::FilesModify, Force::Binding));
            }
            if let Some(glob) = adr.matching(path) {
                links.push((
                    i,
                    Provenance::Governs {
                        glob: glob.to_owned(),
                    },
                    Force::Binding,
                ));
            }
        }
        for marker in markers {
            if let Some(&i) = self.by_number().get(&marker.number) {
                links.push((
                    i,
                    Provenance::Marker {
                        path: path.to_owned(),
                        line: marker.line,
                    },
                    Force::Context,
                ));
            }
        }
        // A superseded ADR's links pass to its successors, transitively.
        let mut handed: BTreeSet<(usize, usize)> = BTreeSet::new();
        let mut k = 0;
        while k < links.len() {
            let (i, _, cap) = links[k];
            if self.summaries[i].superseded {
                for successor in self.successors(i) {
                    if handed.insert((i, successor)) {
                        links.push((
                            successor,
                            Provenance::Successor {
                                of: self.adr(i).id.clone(),
                            },
                            cap,
                        ));
                    }
                }
            }
            k += 1;
        }
        let mut grouped: BTreeMap<usize, (Force, Vec<Provenance>)> = BTreeMap::new();
        for (i, provenance, cap) in links {
            let slot = grouped.entry(i).or_insert((Force::None, Vec::new()));
            slot.0 = slot.0.max(cap.min(self.summaries[i].force));
            if !slot.1.contains(&provenance) {
                slot.1.push(provenance);
            }
        }
        grouped
    }
}

/// The ADRs that govern a path with at least pending force ([`Index::governing`]).
#[derive(Debug, Default, Clone)]
pub struct Governors(BTreeSet<usize>);

impl Governors {
    /// Whether `adr` is one of them.
    pub fn contains(&self, adr: &RulingAdr<'_>) -> bool {
        self.0.contains(&adr.position)
    }
}

/// An ADR whose `## Enforcement` rules apply, as [`Index::ruling`] lists it.
#[derive(Debug, Clone, Copy)]
pub struct RulingAdr<'a> {
    /// Its position in the index ([`Governors::contains`]).
    position: usize,
    pub id: &'a str,
    pub title: Option<&'a str>,
    /// The ADR's file, relative to the repository root.
    pub file: &'a str,
    /// [`Force::Binding`] or [`Force::Pending`].
    pub force: Force,
    pub rules: &'a [Compiled],
}

/// The largest file whose comments are read for markers.
pub const MARKER_FILE_LIMIT: u64 = 4 << 20;

/// The engine of the repository at `root`: its configuration, or without one the
/// layout detected (as `doctor` and `validate` do).
pub(super) fn engine(root: &Path) -> anyhow::Result<Engine> {
    if detect::unconfigured(root)
        && let Some(found) = detect::detect(root)
        && !found.is_default()
    {
        return Engine::with_settings(root, found.settings()?, None);
    }
    Engine::load(root, None)
}

/// The governing index of the repository at `root` (empty without an ADR directory).
pub fn index(root: &Path) -> anyhow::Result<Index> {
    let ws = Workspace::of(engine(root)?);
    if !ws.dir.is_dir() {
        return Ok(Index::of(Vec::new()));
    }
    let catalog = Catalog::load(&ws.engine, &ws.dir)?;
    Ok(Index::from_catalog(&ws.engine.root, &catalog))
}

/// The markers in the comments of the file at the repository-relative `path`; none
/// when it does not exist, is no regular file, is larger than [`MARKER_FILE_LIMIT`]
/// or a link leads out of the repository.
pub fn file_markers(root: &Path, path: &str) -> Vec<Marker> {
    let full = root.join(path);
    if crate::engine::leaves_project(root, &full) {
        return Vec::new();
    }
    match crate::fs::read::read_limited(&full, MARKER_FILE_LIMIT) {
        Ok(bytes) if bytes.len() as u64 <= MARKER_FILE_LIMIT => {
            markers::find(path, &String::from_utf8_lossy(&bytes))
        }
        _ => Vec::new(),
    }
}

/// A path asked about that is not inside the repository.
#[derive(Debug, thiserror::Error)]
#[error("{0} is not inside the repository at {1}")]
pub struct Outside(pub String, pub String);

/// The ADRs that govern each of `paths` (relative to `base`, or absolute) in the
/// repository at `root`; only the files asked about are read for markers.
pub fn run(root: &Path, base: &Path, paths: &[impl AsRef<Path>]) -> anyhow::Result<Governance> {
    let mut rels = Vec::new();
    for path in paths {
        let path = path.as_ref();
        let rel = crate::paths::relative_to_real(root, &base.join(path))
            .ok_or_else(|| Outside(path.display().to_string(), root.display().to_string()))?;
        rels.push(shown(rel));
    }
    let (index, _) = cache::load_or_build(root)?;
    Ok(resolve_all(root, &index, &rels))
}

/// A repository-relative path as it is shown: the root itself is `.`.
pub fn shown(rel: String) -> String {
    if rel.is_empty() { ".".to_owned() } else { rel }
}

/// [`Index::resolve`] for each repository-relative path, its markers read from the file.
pub fn resolve_all(root: &Path, index: &Index, rels: &[String]) -> Governance {
    let paths = rels
        .iter()
        .map(|rel| {
            let adrs = if index.is_empty() {
                Vec::new()
            } else {
                index.resolve(rel, &file_markers(root, rel))
            };
            Governed {
                path: rel.clone(),
                force: adrs.iter().map(|a| a.force).max().unwrap_or(Force::None),
                adrs,
            }
        })
        .collect();
    Governance { paths }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adr::catalog::Entry;

    fn catalog(adrs: &[(&str, &str)]) -> Catalog {
        Catalog {
            dir: "/r/adr".into(),
            entries: adrs
                .iter()
                .map(|(name, text)| Entry {
                    path: format!("/r/adr/{name}").into(),
                    link: (*name).to_owned(),
                    file_number: adr::number_in_file_name(Path::new(name)),
                    adr: Some(Adr::parse(text)),
                })
                .collect(),
            width: 3,
            reserved: Vec::new(),
        }
    }

    fn forces(index: &Index, path: &str, markers: &[Marker]) -> Vec<(String, Force)> {
        index
            .resolve(path, markers)
            .into_iter()
            .map(|g| (g.id, g.force))
            .collect()
    }

    #[test]
    fn status_decides_the_force() {
        assert_eq!(Force::of_status(Some("Accepted")), Force::Binding);
        assert_eq!(Force::of_status(Some("accepted")), Force::Binding);
        assert_eq!(Force::of_status(Some("Implemented")), Force::Binding);
        assert_eq!(Force::of_status(Some("Proposed")), Force::Pending);
        for status in [
            "Superseded",
            "superseded by ADR-0005",
            "Superseded by [2. X](0002-x.md)",
            "Deprecated",
            "rejected",
            "Draft",
        ] {
            assert_eq!(Force::of_status(Some(status)), Force::None, "{status}");
        }
        assert_eq!(Force::of_status(None), Force::None);
        assert_eq!(successor_in_status("superseded by ADR-0005"), Some(5));
        assert_eq!(
            successor_in_status("Superseded by [2. X](0002-x.md)"),
            Some(2)
        );
        assert_eq!(successor_in_status("Superseded"), None);
        assert_eq!(
            successor_in_status("Superceded by [3. Y](0003-y.md)"),
            Some(3)
        );
    }

    #[test]
    fn governs_globs_with_excludes() {
        let index = Index::from_catalog(
            Path::new("/r"),
            &catalog(&[(
                "001-db.md",
                "---\nstatus: Accepted\ngoverns:\n  - \"src/db/**\"\n  - \"!src/db/legacy/**\"\n  - \"*.sql\"\n---\n# Db\n",
            )]),
        );
        let one = index.resolve("src/db/pool.rs", &[]);
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].force, Force::Binding);
        assert_eq!(one[0].provenance[0].to_string(), "governs: \"src/db/**\"");
        assert!(index.resolve("src/db/legacy/old.rs", &[]).is_empty());
        assert!(index.resolve("src/api/x.rs", &[]).is_empty());
        // `*` does not cross `/`.
        assert_eq!(index.resolve("init.sql", &[]).len(), 1);
        assert!(index.resolve("migrations/init.sql", &[]).is_empty());
    }

    /// `governing` remembers its last path; asked in turn about others and
    /// back, each answer is that path's own.
    #[test]
    fn governing_answers_each_path_in_turn() {
        let index = Index::from_catalog(
            Path::new("/r"),
            &catalog(&[
                (
                    "001-db.md",
                    "---\nstatus: Accepted\ngoverns: [\"src/db/**\"]\n---\n# Db\n",
                ),
                (
                    "002-api.md",
                    "---\nstatus: Proposed\ngoverns: [\"src/api/**\"]\n---\n# Api\n",
                ),
            ]),
        );
        let who = |path: &str| index.governing(path).0.into_iter().collect::<Vec<_>>();
        for _ in 0..2 {
            assert_eq!(who("src/db/pool.rs"), vec![0]);
            assert_eq!(who("src/db/pool.rs"), vec![0]);
            assert_eq!(who("src/api/x.rs"), vec![1]);
            assert_eq!(who("README.md"), Vec::<usize>::new());
        }
    }

    #[test]
    fn helix_files_govern_and_markers_only_give_context() {
        let index = Index::from_catalog(
            Path::new("/r"),
            &catalog(&[
                (
                    "001-a.md",
                    "---\nadr_id: 1\nstatus: Accepted\nfiles:\n  create: [src/new.rs]\n  modify: [src/lib.rs, ./docs/]\n---\n# A\n",
                ),
                (
                    "002-b.md",
                    "---\nadr_id: 2\nstatus: Proposed\nfiles:\n  modify: [src/lib.rs]\n---\n# B\n",
                ),
                ("003-c.md", "---\nadr_id: 3\nstatus: Accepted\n---\n# C\n"),
                ("004-d.md", "---\nadr_id: 4\nstatus: Rejected\n---\n# D\n"),
            ]),
        );
        assert_eq!(
            forces(
                &index,
                "src/lib.rs",
                &[
                    Marker { number: 3, line: 7 },
                    Marker { number: 4, line: 8 },
                    Marker {
                        number: 99,
                        line: 9
                    }
                ]
            ),
            [
                ("ADR-001".to_owned(), Force::Binding),
                ("ADR-002".to_owned(), Force::Pending),
                ("ADR-003".to_owned(), Force::Context),
                ("ADR-004".to_owned(), Force::None),
            ]
        );
        let got = index.resolve("src/lib.rs", &[Marker { number: 3, line: 7 }]);
        assert_eq!(got[2].provenance[0].to_string(), "marker at src/lib.rs:7");
        assert_eq!(got[0].provenance, [Provenance::FilesModify]);
        assert_eq!(
            index.resolve("src/new.rs", &[])[0].provenance,
            [Provenance::FilesCreate]
        );
        // A folder in `files` governs what it holds.
        assert_eq!(index.resolve("docs/x.md", &[]).len(), 1);
        assert!(index.resolve("docs2/x.md", &[]).is_empty());
        // A marker of a binding ADR next to its own link does not weaken it.
        assert_eq!(
            forces(&index, "src/new.rs", &[Marker { number: 1, line: 1 }]),
            [("ADR-001".to_owned(), Force::Binding)]
        );
    }

    #[test]
    fn a_superseded_adr_hands_its_links_to_its_successor() {
        let index = Index::from_catalog(
            Path::new("/r"),
            &catalog(&[
                (
                    "001-old.md",
                    "---\nadr_id: 1\nstatus: Superseded\nsuperseded_by: \"002\"\ngoverns: [\"src/**\"]\n---\n# Old\n",
                ),
                (
                    "002-new.md",
                    "---\nadr_id: 2\nstatus: Superseded\n---\n# Newer\n",
                ),
                (
                    "003-newest.md",
                    "---\nadr_id: 3\nstatus: Accepted\nsupersedes: [2]\n---\n# Newest\n",
                ),
                (
                    "004-loop.md",
                    "---\nadr_id: 4\nstatus: superseded by ADR-0005\n---\n# Loop\n",
                ),
                (
                    "005-loop.md",
                    "---\nadr_id: 5\nstatus: Superseded\nsuperseded_by: 4\n---\n# Loop\n",
                ),
                (
                    "006-nygard.md",
                    "# 6. Old\n\n## Status\n\nSuperceded by [3. Newest](0003-newest.md)\n",
                ),
            ]),
        );
        let got = index.resolve("src/x.rs", &[]);
        let ids: Vec<_> = got.iter().map(|g| (g.id.as_str(), g.force)).collect();
        assert_eq!(
            ids,
            [
                ("ADR-003", Force::Binding),
                ("ADR-001", Force::None),
                ("ADR-002", Force::None)
            ]
        );
        assert_eq!(got[0].provenance[0].to_string(), "successor of ADR-002");
        // A marker's link stays context when it is handed on; a cycle ends.
        assert_eq!(
            forces(&index, "a.rs", &[Marker { number: 2, line: 1 }]),
            [
                ("ADR-003".to_owned(), Force::Context),
                ("ADR-002".to_owned(), Force::None)
            ]
        );
        assert_eq!(
            forces(&index, "a.rs", &[Marker { number: 4, line: 1 }]).len(),
            2
        );
        // adr-tools' spelling, in a Nygard `## Status` section.
        assert_eq!(
            forces(&index, "a.rs", &[Marker { number: 6, line: 1 }]),
            [
                ("ADR-003".to_owned(), Force::Context),
                ("ADR-006".to_owned(), Force::None)
            ]
        );
    }
}
