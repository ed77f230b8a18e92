//! The governing index, cached in `.helix-gate/governs-index`, so that a hook
//! call on a source file does not read and parse every ADR.
//!
//! The file holds the index ([`super::Indexed`] per ADR, rules as written) and
//! what it was built from: the settings and rules files, every folder of the ADR
//! directory (a hash of its listing: ADRs added, removed, renamed) and every ADR
//! (a SHA-256 of the bytes parsed). A load `stat`s each of them; an entry whose
//! `stat` (size, mtime, ctime, inode) changed is read again and its hash decides:
//! the same content only refreshes the entry, other content rebuilds the index.
//! An entry changed within [`RACY_NS`] of its reading may have changed again in
//! the same clock tick with the same size, so it is hashed again on every load
//! until that window has passed (git's "racily clean" entries). So the cache is
//! invalidated by the ADRs' content, not by their timestamps.
//!
//! When no ADR rules anything ([`super::Index::rules_anything`]: rules of a
//! binding or pending ADR, links of a binding one),
//! `governs-index` is removed and the verdict kept in `.helix-gate/governs-none`
//! (only where the data folder exists already), so that the hook's gate
//! ([`may_govern`]) is one `stat` and a repository without ruling ADRs is not
//! parsed again at every session start.
//!
//! The file is helix-gate's own, but it sits in the repository: it is read with a
//! size limit and without following links, and anything that does not parse is
//! rebuilt, never trusted.

use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use std::sync::OnceLock;

use super::{Block, Index, Indexed, Packed, Starts, Summary, Workspace, engine};
use crate::adr_dir::catalog::Catalog;
use crate::fs::data_dir;

use crate::fs::data_dir::{GOVERNS_INDEX_PATH as INDEX_PATH, GOVERNS_NONE_PATH as NONE_PATH};

/// Bumped whenever the file's layout or the index's meaning changes.
const FORMAT: u32 = 7;
/// The largest cache file read: a thousand ADRs take about 1 MiB.
const MAX_CACHE_BYTES: u64 = 64 << 20;
/// How long after its last change an entry is hashed again on every load: more
/// than the coarsest timestamp granularity of the usual file systems (FAT: 2 s).
const RACY_NS: i128 = 2_500_000_000;

/// What a file or folder looked like: size, mtime and ctime in nanoseconds, inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp(u64, i128, i128, u64);

impl Stamp {
    /// The stamp of `rel` below the folder `stamps` holds ([`Stamps::at`]).
    ///
    /// [`Stamps::at`]: crate::fs::platform::Stamps::at
    fn below(stamps: &crate::fs::platform::Stamps, rel: &str) -> Option<Stamp> {
        stamps.at(rel).map(|(a, b, c, d)| Stamp(a, b, c, d))
    }

    fn of(meta: &std::fs::Metadata) -> Stamp {
        let (size, modified, changed, inode) = crate::fs::platform::stamp(meta);
        Stamp(size, modified, changed, inode)
    }

    /// The stamp of `path` (links followed), None when it does not exist.
    fn at(path: &Path) -> Option<Stamp> {
        std::fs::metadata(path).ok().map(|m| Stamp::of(&m))
    }

    /// Whether a change in the same clock tick could hide behind this stamp,
    /// taken at `read_ns`.
    fn racy(self, read_ns: i128) -> bool {
        self.1.max(self.2) >= read_ns - RACY_NS
    }
}

/// A file or folder the index was built from.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Source {
    /// Relative to the repository root.
    path: String,
    /// A folder: `hash` is of its listing.
    dir: bool,
    /// None: it did not exist.
    stamp: Option<Stamp>,
    /// SHA-256 of the content or listing; None: not read (missing, or refused:
    /// a link out of the project), so any change rebuilds.
    hash: Option<Hash>,
    /// Changed too shortly before it was read to trust its stamp alone.
    racy: bool,
}

/// The cache file's header.
#[derive(Debug, Serialize, Deserialize)]
struct Stored {
    /// Decoded at once by every load.
    head: Head,
    /// Last in the header, so that a load can read them one at a time
    /// ([`Stored::all_sources_unchanged`]).
    sources: Vec<Source>,
    /// A loaded header and where its `sources` start in it, not yet decoded.
    #[serde(skip)]
    raw_sources: Option<(Vec<u8>, usize)>,
    /// The block, after the header in the file: each ADR (postcard) where its
    /// summary's `at` says and its rules ([`rules`]) where its `rules_at` says,
    /// read only for the ADRs a path needs.
    #[serde(skip)]
    block: Block,
}

/// The header's part before the sources (postcard writes a nested struct's
/// fields in line, so it decodes on its own).
#[derive(Debug, Serialize, Deserialize)]
struct Head {
    format: u32,
    version: String,
    /// The size limit the ADRs were read with.
    limit: u64,
    /// Each ADR as known without reading it ([`Summary`]): where the block has it.
    adrs: Vec<Summary>,
    /// Which ADRs a path may concern.
    starts: Starts,
    /// The ADRs' files.
    files: Packed,
    /// The block's length: a file cut short is rebuilt.
    block_len: usize,
}

impl Stored {
    fn index(self) -> Index {
        Index::loaded(
            self.head.adrs,
            self.head.starts,
            self.head.files,
            self.block,
        )
    }
}

fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
}

/// A SHA-256, kept as its bytes (half the header of hex, and no allocation to read).
type Hash = [u8; 32];

fn sha256(bytes: &[u8]) -> Hash {
    Sha256::digest(bytes).into()
}

/// The hash of a folder's listing: its entries' names and kinds, sorted.
fn listing_hash(dir: &Path) -> Option<Hash> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .map(|e| {
            let kind = match e.file_type() {
                Ok(t) if t.is_dir() => 'd',
                Ok(t) if t.is_symlink() => 'l',
                Ok(t) if t.is_file() => 'f',
                _ => '?',
            };
            format!("{kind}{}", e.file_name().to_string_lossy())
        })
        .collect();
    names.sort();
    Some(sha256(names.join("\n").as_bytes()))
}

/// The hash of a file's content as the catalog reads it (None: not readable).
fn content_hash(path: &Path, limit: u64) -> Option<Hash> {
    crate::engine::read_limited(path, limit)
        .ok()
        .map(|bytes| sha256(&bytes))
}

/// The folders of the ADR directory the catalog walks (itself included): not
/// hidden, not build output, symbolic links not followed.
fn folders(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            out.push(current);
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let name = name.to_string_lossy();
            if entry.file_type().is_ok_and(|t| t.is_dir())
                && !name.starts_with('.')
                && !crate::engine::SKIPPED_DIRS.contains(&name.as_ref())
            {
                stack.push(entry.path());
            }
        }
        out.push(current);
    }
    out
}

/// How a cache file compares with the repository.
enum Verdict {
    /// Every source as recorded.
    Valid(Stored),
    /// The same content, some stamps new: write it back.
    Refreshed(Stored),
    Stale,
}

/// Read and parse the cache file at `path` (None: missing, larger than `limit`, a
/// link, cut short, or not a cache of this version). The file is the header's
/// length (4 bytes, little-endian), the header ([`Stored`], postcard: read at every
/// hook call on a governed file) and the block. Only the header is read: the file
/// stays open for the block, of which a question reads only the ADRs it needs
/// (reading a thousand ADRs' block whole cost a governed write more in fresh
/// pages than all its checks).
fn read(path: &Path, limit: u64) -> Option<Stored> {
    use crate::fs::read::{Links, exact_at, open_regular};
    let file = open_regular(path, Links::Refuse).ok()?;
    let size = file.metadata().ok()?.len();
    if size > limit {
        return None;
    }
    let mut len = [0; 4];
    exact_at(&file, 0, &mut len).ok()?;
    let len = u32::from_le_bytes(len) as usize;
    let end = len.checked_add(4).filter(|end| *end as u64 <= size)?;
    let mut header = vec![0; len];
    exact_at(&file, 4, &mut header).ok()?;
    let (head, rest) = postcard::take_from_bytes::<Head>(&header).ok()?;
    if head.format != FORMAT || head.version != env!("CARGO_PKG_VERSION") {
        return None;
    }
    if size - end as u64 != head.block_len as u64 {
        return None;
    }
    let sources_at = len - rest.len();
    let block_len = head.block_len;
    Some(Stored {
        head,
        sources: Vec::new(),
        raw_sources: Some((header, sources_at)),
        block: Block::File {
            file,
            offset: end as u64,
            len: block_len,
        },
    })
}

impl Stored {
    /// Decode the sources a load left in the header (None: they do not read).
    fn decode_sources(&mut self) -> Option<()> {
        if let Some((raw, at)) = self.raw_sources.take() {
            self.sources = postcard::from_bytes(&raw[at..]).ok()?;
        }
        Some(())
    }

    /// Whether every source is as recorded and none is racy, each decoded in
    /// turn and dropped (None: they do not read).
    fn all_sources_unchanged(&self, stamps: &crate::fs::platform::Stamps) -> Option<bool> {
        let Some((raw, at)) = &self.raw_sources else {
            return Some(false);
        };
        let (count, mut rest) = postcard::take_from_bytes::<usize>(&raw[*at..]).ok()?;
        for _ in 0..count {
            let (source, next) = postcard::take_from_bytes::<Source>(rest).ok()?;
            rest = next;
            let stamp = Stamp::below(stamps, &source.path);
            if source.racy || stamp != source.stamp {
                return Some(false);
            }
        }
        Some(rest.is_empty())
    }
}

/// Compare `stored` with the repository at `root`.
fn verify(root: &Path, mut stored: Stored) -> Verdict {
    let started = now_ns();
    let mut refreshed = false;
    let stamps = crate::fs::platform::Stamps::new(root);
    match stored.all_sources_unchanged(&stamps) {
        Some(true) => return Verdict::Valid(stored),
        None => return Verdict::Stale,
        Some(false) => {}
    }
    if stored.decode_sources().is_none() {
        return Verdict::Stale;
    }
    for source in &mut stored.sources {
        let stamp = Stamp::below(&stamps, &source.path);
        if stamp == source.stamp && !source.racy {
            continue;
        }
        let full = root.join(&source.path);
        if source.hash.is_none() || stamp.is_none() || source.stamp.is_none() {
            // Not read before, or appeared or vanished: nothing to compare.
            if stamp == source.stamp && stamp.is_none() {
                continue;
            }
            return Verdict::Stale;
        }
        let hash = if source.dir {
            listing_hash(&full)
        } else {
            content_hash(&full, stored.head.limit)
        };
        if hash != source.hash {
            return Verdict::Stale;
        }
        let racy = stamp.is_some_and(|s| s.racy(started));
        if stamp != source.stamp || racy != source.racy {
            refreshed = true;
        }
        source.stamp = stamp;
        source.racy = racy;
    }
    if refreshed {
        Verdict::Refreshed(stored)
    } else {
        Verdict::Valid(stored)
    }
}

/// Build the index of the repository at `root` and what it was built from.
fn build(root: &Path) -> anyhow::Result<(Index, Stored)> {
    let started = now_ns();
    let engine = engine(root)?;
    let limit = engine.settings.adr.max_file_size;
    let mut sources = Vec::new();
    let mut record = |path: &Path, dir: bool, hash: Option<Hash>| {
        let stamp = Stamp::at(path);
        let path =
            crate::paths::relative_to(root, path).unwrap_or_else(|| path.display().to_string());
        if sources.iter().any(|s: &Source| s.path == path) {
            return;
        }
        sources.push(Source {
            path,
            dir,
            racy: stamp.is_some_and(|s| s.racy(started)),
            stamp,
            hash,
        });
    };
    // What the settings and the detection of an unconfigured layout read.
    let mut configs = vec![
        crate::config::settings::SETTINGS_PATH,
        crate::config::RULES_PATH,
    ];
    if crate::config::detect::unconfigured(root) {
        configs.extend(crate::config::detect::FOLDERS);
    }
    for config in configs {
        let full = root.join(config);
        let is_dir = full.is_dir();
        let hash = if is_dir {
            listing_hash(&full)
        } else {
            content_hash(&full, crate::fs::read::CONFIG_LIMIT)
        };
        record(&full, is_dir, hash);
    }
    let ws = Workspace::of(engine);
    if !ws.dir.is_dir() {
        record(&ws.dir, false, None);
        return Ok((Index::of(Vec::new()), Stored::new(limit, sources)));
    }
    // Folders listed before the catalog walks them: a file added in between is
    // in the index and not in the listing, which only rebuilds once more.
    for folder in folders(&ws.dir) {
        let hash = listing_hash(&folder);
        record(&folder, true, hash);
    }
    let mut read: std::collections::HashMap<PathBuf, Hash> = std::collections::HashMap::new();
    let catalog = Catalog::load_observed(&ws.engine, &ws.dir, &mut |path, bytes| {
        read.insert(path.to_path_buf(), sha256(bytes));
    })?;
    // Stamped after the read: a change in between has a recent time, so the
    // entry is racy and hashed again at the next load.
    for entry in &catalog.entries {
        record(&entry.path, false, read.get(&entry.path).copied());
    }
    let index = Index::from_catalog(&ws.engine.root, &catalog);
    Ok((index, Stored::new(limit, sources)))
}

impl Stored {
    /// What an index is built from, before the index is written in.
    fn new(limit: u64, sources: Vec<Source>) -> Stored {
        Stored {
            head: Head {
                format: FORMAT,
                version: env!("CARGO_PKG_VERSION").to_owned(),
                limit,
                adrs: Vec::new(),
                starts: Starts::default(),
                files: Packed::default(),
                block_len: 0,
            },
            sources,
            raw_sources: None,
            block: Block::default(),
        }
    }
}

/// Write the cache for `index`: `governs-index` when it rules anything, else
/// `governs-none` where the data folder exists; the other file is removed.
fn write(root: &Path, index: Index, mut stored: Stored) -> Index {
    let ruling = index.rules_anything();
    let Index {
        mut summaries,
        adrs,
        starts,
        files,
        block: loaded,
        ..
    } = index;
    let mut adrs: Vec<Indexed> = adrs
        .into_iter()
        .zip(files.iter())
        .zip(&summaries)
        .map(|((cell, file), summary)| {
            cell.into_inner()
                .map_or_else(|| Indexed::unreadable(summary, Some(file)), |adr| *adr)
        })
        .collect();
    let mut block = Vec::new();
    for (adr, summary) in adrs.iter_mut().zip(&mut summaries) {
        if adr.reach.count > 0 {
            let start = block.len();
            rules::write(adr.rules(&loaded), &mut block);
            adr.rules_at = Some((start, block.len()));
        }
        let start = block.len();
        // A struct of plain fields always serializes.
        if let Ok(bytes) = postcard::to_allocvec(&*adr) {
            block.extend_from_slice(&bytes);
        }
        summary.at = Some((super::narrow(start), super::narrow(block.len())));
    }
    stored.head.adrs = summaries;
    stored.head.starts = starts;
    stored.head.files = files;
    stored.head.block_len = block.len();
    stored.block = Block::Bytes(block);
    let (keep, drop) = if ruling {
        (INDEX_PATH, NONE_PATH)
    } else {
        (NONE_PATH, INDEX_PATH)
    };
    remove(root, drop);
    let dir = if ruling {
        data_dir::ensure(root).ok()
    } else {
        data_dir::existing_dir(root, data_dir::DIR)
    };
    if let Some(dir) = dir {
        // Best effort: a cache that cannot be written is rebuilt next time.
        let _ = save(&dir, keep, &stored);
    }
    // The ADRs read already stay read.
    Index::with(
        stored.head.adrs,
        stored.head.starts,
        stored.head.files,
        adrs.into_iter()
            .map(|adr| OnceLock::from(Box::new(adr)))
            .collect(),
        stored.block,
    )
}

fn save(dir: &Path, rel: &str, stored: &Stored) -> io::Result<()> {
    let name = Path::new(rel).file_name().unwrap_or_default();
    let path = dir.join(name);
    // A link or anything but a regular file in its place is removed, never
    // written through.
    if std::fs::symlink_metadata(&path).is_ok_and(|m| !m.file_type().is_file()) {
        remove_entry(&path)?;
    }
    if stored.raw_sources.is_some() {
        // Written so, the cache would name no source and never be found stale.
        return Err(io::Error::other("the cache's sources were not decoded"));
    }
    let header = postcard::to_allocvec(stored).map_err(io::Error::other)?;
    let len = u32::try_from(header.len()).map_err(io::Error::other)?;
    let block = stored
        .block
        .read((0, stored.block.len()))
        .ok_or_else(|| io::Error::other("the cache's block no longer reads"))?;
    let mut bytes = Vec::with_capacity(4 + header.len() + block.len());
    bytes.extend_from_slice(&len.to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&block);
    crate::fs::atomic::write_with(dir, &path, &bytes, crate::fs::atomic::Options::FAST)
}

fn remove_entry(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Remove the cache file `rel` inside the real data folder (never through a link
/// that leads out of the project).
fn remove(root: &Path, rel: &str) {
    if let Some(dir) = data_dir::existing_dir(root, data_dir::DIR) {
        let name = Path::new(rel).file_name().unwrap_or_default();
        let _ = remove_entry(&dir.join(name));
    }
}

/// Whether the repository at `root` may have ADRs that govern code: its cache
/// `governs-index` exists. One `stat`, the hook's gate before anything else.
pub fn may_govern(root: &Path) -> bool {
    std::fs::symlink_metadata(root.join(INDEX_PATH)).is_ok()
}

/// The cached index when it is still valid (refreshed on the way), else a fresh one
/// (and the cache rewritten); `ruling`: whether it rules anything. A `--preset`
/// given on the command line builds a fresh index and leaves the cache alone.
pub(super) fn load_or_build(root: &Path) -> anyhow::Result<(Index, bool)> {
    if crate::config::preset::cli_override().is_some() {
        let index = super::index(root)?;
        let ruling = index.rules_anything();
        return Ok((index, ruling));
    }
    for (rel, ruling) in [(INDEX_PATH, true), (NONE_PATH, false)] {
        let Some(stored) = read(&root.join(rel), MAX_CACHE_BYTES) else {
            continue;
        };
        match verify(root, stored) {
            Verdict::Valid(stored) => return Ok((stored.index(), ruling)),
            Verdict::Refreshed(mut stored) => {
                // The block read whole and the file closed before it is replaced
                // (Windows does not replace a file held open).
                let Some(block) = std::mem::take(&mut stored.block).in_memory() else {
                    break;
                };
                stored.block = block;
                let dir = if ruling {
                    data_dir::ensure(root).ok()
                } else {
                    data_dir::existing_dir(root, data_dir::DIR)
                };
                let stored = match dir {
                    Some(dir) => {
                        let _ = save(&dir, rel, &stored);
                        stored
                    }
                    None => stored,
                };
                return Ok((stored.index(), ruling));
            }
            Verdict::Stale => break,
        }
    }
    match build(root) {
        Ok((index, stored)) => {
            let ruling = index.rules_anything();
            Ok((write(root, index, stored), ruling))
        }
        Err(err) => {
            // Settings that do not load: no cache to trust, none left behind.
            remove(root, INDEX_PATH);
            remove(root, NONE_PATH);
            Err(err)
        }
    }
}

/// The governing index of the repository at `root` from its cache, rebuilt when an
/// ADR, a folder of the ADR directory or the configuration changed; None when no
/// binding or pending ADR has rules and no binding ADR links a path (then
/// `governs-index` is removed).
pub fn cached_index(root: &Path) -> Option<Index> {
    match load_or_build(root) {
        Ok((index, true)) => Some(index),
        _ => None,
    }
}

/// The governing index of the repository at `root`, from its cache when valid (else
/// built, and the cache written), whether or not an ADR rules code, and whether one
/// does; None when the settings do not load. The session's start uses it once for
/// both the code it records and the superseded ADRs its summary names.
pub fn any_index(root: &Path) -> Option<(Index, bool)> {
    load_or_build(root).ok()
}

/// Validate the cache of the repository at `root` and rebuild it when stale: at
/// the start of a session, by `validate`, pre-commit and `doctor`.
pub fn refresh_cache(root: &Path) {
    let _ = load_or_build(root);
}

/// [`refresh_cache`] where helix-gate keeps data already (`.helix-gate/` exists,
/// the hook runs here): `validate`, `doctor` and pre-commit keep the cache fresh
/// without adding the folder to a repository the hook never ran in, nor building
/// an index there that nothing reads.
pub fn refresh_cache_if_used(root: &Path) {
    if data_dir::existing_dir(root, data_dir::DIR).is_some() {
        refresh_cache(root);
    }
}

/// The rules of an ADR as the cache keeps them: as written, compiled on first use.
pub(super) mod rules {
    use serde::{Deserialize, Serialize};

    use crate::diagnostic::Severity;
    use crate::rules::enforcement::eval::Prefilter;
    use crate::rules::enforcement::{CodeRule, Compiled, Examples, Kind};

    /// One rule, flat: the kind's list (`modules`, `packages`, `with`) and text
    /// (`pattern`, `check`) in two fields. Postcard, as the rest of the cache:
    /// every field is written, in order.
    #[derive(Serialize, Deserialize)]
    struct Flat {
        id: String,
        kind: String,
        why: String,
        severity: Severity,
        paths: Option<Vec<String>>,
        list: Vec<String>,
        text: Option<String>,
        violates: Option<String>,
        passes: Option<String>,
        /// A pattern rule's pattern as read once ([`Compiled::pattern_prefilter`]).
        prefilter: Option<Prefilter>,
    }

    impl Flat {
        fn of(compiled: &Compiled) -> Flat {
            let rule = &compiled.rule;
            let (list, text) = match &rule.kind {
                Kind::ForbidImport { modules: list }
                | Kind::ForbidDependency { packages: list }
                | Kind::RequireCoChange { with: list } => (list.clone(), None),
                Kind::ForbidPath => (Vec::new(), None),
                Kind::ForbidPattern { pattern: text }
                | Kind::RequirePattern { pattern: text }
                | Kind::LlmReview { check: text } => (Vec::new(), Some(text.clone())),
            };
            let examples = rule.examples.clone().unwrap_or_default();
            Flat {
                id: rule.id.clone(),
                kind: rule.kind.name().to_owned(),
                why: rule.why.clone(),
                severity: rule.severity,
                paths: rule.paths.clone(),
                list,
                text,
                violates: examples.violates,
                passes: examples.passes,
                prefilter: compiled.pattern_prefilter(),
            }
        }

        fn rule(self) -> Option<CodeRule> {
            let text = self.text;
            let list = self.list;
            let kind = match self.kind.as_str() {
                "forbid_import" => Kind::ForbidImport { modules: list },
                "forbid_dependency" => Kind::ForbidDependency { packages: list },
                "forbid_path" => Kind::ForbidPath,
                "require_co_change" => Kind::RequireCoChange { with: list },
                "forbid_pattern" => Kind::ForbidPattern { pattern: text? },
                "require_pattern" => Kind::RequirePattern { pattern: text? },
                "llm_review" => Kind::LlmReview { check: text? },
                _ => return None,
            };
            let examples = (self.violates.is_some() || self.passes.is_some()).then_some(Examples {
                violates: self.violates,
                passes: self.passes,
            });
            Some(CodeRule {
                id: self.id,
                kind,
                why: self.why,
                severity: self.severity,
                paths: self.paths,
                examples,
            })
        }
    }

    /// Append `rules` to `out`.
    pub(in crate::adr_dir::governs) fn write(rules: &[Compiled], out: &mut Vec<u8>) {
        let flat: Vec<Flat> = rules.iter().map(Flat::of).collect();
        // A Vec of plain structs always serializes.
        if let Ok(bytes) = postcard::to_allocvec(&flat) {
            out.extend_from_slice(&bytes);
        }
    }

    /// The rules `write` wrote (None: they do not read).
    pub(in crate::adr_dir::governs) fn read(bytes: &[u8]) -> Option<Vec<Compiled>> {
        let flat: Vec<Flat> = postcard::from_bytes(bytes).ok()?;
        // Sized once: collected through `Option`, the list would grow from 4 by
        // copying, and a rule is a few hundred bytes.
        let mut rules = Vec::with_capacity(flat.len());
        for mut f in flat {
            let prefilter = f.prefilter.take();
            rules.push(Compiled::deferred_with(f.rule()?, prefilter));
        }
        Some(rules)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::adr_dir::enforce::{self, Change, Moment};
    use crate::adr_dir::markers::Marker;

    /// An accepted ADR governing `src/**` with one `forbid_import` rule of `module`.
    fn ruling(number: u32, module: &str) -> String {
        format!(
            "---\nadr_id: \"{number:03}\"\ntitle: \"Gateway {number}\"\nstatus: Accepted\ngoverns: [\"src/**\"]\n---\n# Gateway\n\n## Decision\n\nUse the gateway.\n\n## Enforcement\n\n```yaml\nrules:\n  - id: no-{module}\n    kind: forbid_import\n    why: all HTTP goes through app.gateway\n    modules: [{module}]\n    examples: {{violates: \"import {module}\", passes: \"import json\"}}\n```\n"
        )
    }

    fn repo(adrs: &[(&str, &str)]) -> tempfile::TempDir {
        let root = tempfile::tempdir().unwrap();
        fs::create_dir_all(root.path().join("adr")).unwrap();
        for (name, text) in adrs {
            fs::write(root.path().join("adr").join(name), text).unwrap();
        }
        root
    }

    /// The rule ids that flag `text` written to `path`.
    fn flagged(index: &Index, path: &str, text: &str) -> Vec<String> {
        enforce::check(
            index,
            &[Change {
                path: path.into(),
                before: None,
                after: Some(text.into()),
            }],
            Moment::Session,
        )
        .into_iter()
        .map(|f| f.rule)
        .collect()
    }

    /// Change the title of the first ADR inside the cache file: a load that
    /// shows it read the cache, one that does not rebuilt the index.
    fn poison(root: &Path) {
        let mut stored = read(&root.join(INDEX_PATH), MAX_CACHE_BYTES).unwrap();
        stored.decode_sources().unwrap();
        let (limit, sources) = (stored.head.limit, std::mem::take(&mut stored.sources));
        // Read whole and closed: Windows does not replace a file held open.
        stored.block = std::mem::take(&mut stored.block).in_memory().unwrap();
        let mut index = stored.index();
        index.adr(0);
        index.adrs[0].get_mut().unwrap().title = Some("from the cache".into());
        write(root, index, Stored::new(limit, sources));
    }

    /// Change the header of the cache file.
    #[cfg(unix)]
    fn edit_header(root: &Path, edit: impl FnOnce(&mut Stored)) {
        let path = root.join(INDEX_PATH);
        let mut stored = read(&path, MAX_CACHE_BYTES).unwrap();
        stored.decode_sources().unwrap();
        edit(&mut stored);
        let dir = root.join(data_dir::DIR);
        save(&dir, INDEX_PATH, &stored).unwrap();
    }

    fn title(index: &Index) -> Option<&str> {
        index.adr(0).title.as_deref()
    }

    #[test]
    fn a_valid_cache_is_used_and_equals_a_fresh_index() {
        let root = repo(&[("014-gw.md", &ruling(14, "requests"))]);
        assert!(!may_govern(root.path()));
        let built = cached_index(root.path()).unwrap();
        assert!(may_govern(root.path()), "written with a ruling ADR");
        let fresh = super::super::index(root.path()).unwrap();
        let cached = cached_index(root.path()).unwrap();
        for index in [&built, &fresh, &cached] {
            assert_eq!(
                flagged(index, "src/a.py", "import requests\n"),
                ["ADR-014/no-requests"]
            );
            assert!(flagged(index, "tools/a.py", "import requests\n").is_empty());
        }
        assert_eq!(
            format!("{:?}", cached.resolve("src/a.py", &[])),
            format!("{:?}", fresh.resolve("src/a.py", &[]))
        );
        let rules = |i: &Index| -> Vec<_> {
            i.ruling()
                .flat_map(|r| r.rules)
                .map(|c| c.rule.clone())
                .collect()
        };
        assert_eq!(rules(&cached), rules(&fresh), "examples and all");
        // A loaded index holds the file open, which Windows does not replace.
        drop(cached);
        poison(root.path());
        assert_eq!(
            title(&cached_index(root.path()).unwrap()),
            Some("from the cache")
        );
    }

    /// A loaded index reads only the ADRs a path may concern: what it answers
    /// must be what the index built from the ADRs answers, for every kind of
    /// link, exclude, succession, marker and rule scope.
    #[test]
    fn a_loaded_index_answers_as_the_built_one() {
        let rule = |id: &str, paths: &str| {
            format!(
                "  - id: {id}\n    kind: forbid_pattern\n    why: w\n    pattern: 'bad_{id}'\n{paths}    examples: {{violates: \"bad_{id}\", passes: \"good\"}}\n"
            )
        };
        let adr = |front: &str, rules: &str| {
            let rules = if rules.is_empty() {
                String::new()
            } else {
                format!("\n## Enforcement\n\n```yaml\nrules:\n{rules}```\n")
            };
            format!("---\n{front}---\n# T\n\n## Decision\n\nD.\n{rules}")
        };
        let texts = [
            (
                "001-files.md",
                adr(
                    "adr_id: 1\nstatus: Accepted\nfiles:\n  create: [src/new.rs]\n  modify: [src/lib.rs, ./docs/]\n",
                    &rule("r1", ""),
                ),
            ),
            (
                "002-globs.md",
                adr(
                    "adr_id: 2\nstatus: Accepted\ngoverns: [\"src/**\", \"!src/gen/**\", \"**/*.sql\"]\n",
                    &rule("r2", "    paths: [\"tools/**\"]\n"),
                ),
            ),
            (
                "003-old.md",
                adr(
                    "adr_id: 3\nstatus: Superseded\nsuperseded_by: \"004\"\ngoverns: [\"lib/**\"]\n",
                    &rule("r3", ""),
                ),
            ),
            (
                "004-new.md",
                adr("adr_id: 4\nstatus: Accepted\n", &rule("r4", "")),
            ),
            (
                "005-proposed.md",
                adr(
                    "adr_id: 5\nstatus: Proposed\ngoverns: [\"src/db/*.rs\"]\n",
                    &rule("r5", "    paths: [\"src/db/**\", \"migrations/*.sql\"]\n"),
                ),
            ),
            (
                "006-rejected.md",
                adr(
                    "adr_id: 6\nstatus: Rejected\ngoverns: [\"**\"]\n",
                    &rule("r6", ""),
                ),
            ),
            (
                "007-scoped.md",
                adr(
                    "adr_id: 7\nstatus: Accepted\n",
                    &rule("r7", "    paths: [\"src/api/**/*.py\"]\n"),
                ),
            ),
        ];
        let texts: Vec<(&str, &str)> = texts.iter().map(|(n, t)| (*n, t.as_str())).collect();
        let root = repo(&texts);
        cached_index(root.path()).unwrap();
        let loaded = cached_index(root.path()).unwrap();
        assert!(
            loaded.adrs.iter().all(|a| a.get().is_none()),
            "nothing read yet"
        );
        let fresh = super::super::index(root.path()).unwrap();
        let paths = [
            "src/new.rs",
            "src/lib.rs",
            "src/lib.rs.bak",
            "docs/a.md",
            "docsx/a.md",
            "src/gen/x.rs",
            "src/db/q.rs",
            "src/db/sub/q.rs",
            "a/b.sql",
            "migrations/1.sql",
            "lib/x.rs",
            "tools/t.py",
            "src/api/v1/h.py",
            "other.txt",
            "adr/001-files.md",
            "",
        ];
        let markers = [
            vec![],
            vec![Marker { number: 3, line: 1 }],
            vec![Marker { number: 6, line: 2 }],
        ];
        let (mut touched, mut flags) = (0, 0);
        for path in paths {
            for m in &markers {
                assert_eq!(
                    format!("{:?}", loaded.resolve(path, m)),
                    format!("{:?}", fresh.resolve(path, m)),
                    "{path} {m:?}"
                );
            }
            let covering = |index: &Index| {
                let mut out = Vec::new();
                index.each_rule_covering(
                    path,
                    |_, _| true,
                    |adr, c| out.push(format!("{}/{}", adr.id, c.rule.id)),
                );
                out
            };
            assert_eq!(covering(&loaded), covering(&fresh), "{path}");
            let found = |index: &Index| -> Vec<String> {
                let text = "x = bad_r1 + bad_r2\nbad_r5()\n# bad_r7\ngood\n";
                flagged(index, path, text)
            };
            assert_eq!(found(&loaded), found(&fresh), "{path}");
            flags += found(&fresh).len();
            touched += covering(&fresh).len();
            assert_eq!(loaded.is_adr(path), fresh.is_adr(path), "{path}");
        }
        assert!(touched > 5, "the paths reach rules");
        assert!(flags > 5, "the rules flag the text");
        assert_eq!(
            format!("{:?}", loaded.replaced()),
            format!("{:?}", fresh.replaced())
        );
        let ids = |index: &Index| index.ruling().map(|r| r.id.to_owned()).collect::<Vec<_>>();
        assert_eq!(ids(&loaded), ids(&fresh));
        assert_eq!(loaded.rules_anything(), fresh.rules_anything());
    }

    /// Past the racy window a load compares each source as it decodes it and
    /// keeps none: it must still find an edited ADR, an added one and a new folder.
    #[test]
    fn a_settled_cache_is_checked_source_by_source() {
        let root = repo(&[
            ("014-gw.md", &ruling(14, "requests")),
            ("015-db.md", &ruling(15, "psycopg2")),
        ]);
        cached_index(root.path()).unwrap();
        std::thread::sleep(std::time::Duration::from_nanos(
            u64::try_from(RACY_NS).unwrap() + 100_000_000,
        ));
        // Settle the stamps (the build's were racy), then poison: the next load
        // must come from the file, on the fast path.
        refresh_cache(root.path());
        let mut stored = read(&root.path().join(INDEX_PATH), MAX_CACHE_BYTES).unwrap();
        assert_eq!(
            stored.all_sources_unchanged(&crate::fs::platform::Stamps::new(root.path())),
            Some(true)
        );
        stored.decode_sources().unwrap();
        assert!(stored.sources.iter().all(|s| !s.racy), "settled");
        drop(stored);
        poison(root.path());
        std::thread::sleep(std::time::Duration::from_nanos(
            u64::try_from(RACY_NS).unwrap() + 100_000_000,
        ));
        assert_eq!(
            title(&cached_index(root.path()).unwrap()),
            Some("from the cache")
        );
        fs::write(root.path().join("adr/015-db.md"), ruling(15, "psycopg3")).unwrap();
        let index = cached_index(root.path()).unwrap();
        assert_eq!(title(&index), Some("Gateway 14"), "rebuilt");
        assert_eq!(
            flagged(&index, "src/a.py", "import psycopg3\n"),
            ["ADR-015/no-psycopg3"]
        );
    }

    #[test]
    fn an_edited_adr_rebuilds_the_index() {
        let root = repo(&[("014-gw.md", &ruling(14, "requests"))]);
        cached_index(root.path()).unwrap();
        poison(root.path());
        // Same size, same mtime: only the content (and the ctime) differ.
        let file = root.path().join("adr/014-gw.md");
        let mtime = fs::metadata(&file).unwrap().modified().unwrap();
        fs::write(&file, ruling(14, "urllib3")).unwrap();
        fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(mtime)
            .unwrap();
        let index = cached_index(root.path()).unwrap();
        assert_eq!(title(&index), Some("Gateway 14"), "rebuilt");
        assert_eq!(
            flagged(&index, "src/a.py", "import urllib3\nimport requests\n"),
            ["ADR-014/no-urllib3"]
        );
    }

    #[test]
    fn a_touched_adr_with_the_same_content_keeps_the_cache() {
        let root = repo(&[("014-gw.md", &ruling(14, "requests"))]);
        cached_index(root.path()).unwrap();
        poison(root.path());
        let file = root.path().join("adr/014-gw.md");
        let old = SystemTime::now() - std::time::Duration::from_secs(3600);
        fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(
            title(&cached_index(root.path()).unwrap()),
            Some("from the cache")
        );
        // The new stamp was written back.
        let mut stored = read(&root.path().join(INDEX_PATH), MAX_CACHE_BYTES).unwrap();
        stored.decode_sources().unwrap();
        let source = stored
            .sources
            .iter()
            .find(|s| s.path == "adr/014-gw.md")
            .unwrap();
        assert_eq!(source.stamp, Stamp::at(&file));
    }

    #[test]
    fn an_added_or_removed_adr_rebuilds_the_index() {
        let root = repo(&[("014-gw.md", &ruling(14, "requests"))]);
        cached_index(root.path()).unwrap();
        poison(root.path());
        fs::create_dir(root.path().join("adr/more")).unwrap();
        fs::write(
            root.path().join("adr/more/015-db.md"),
            ruling(15, "psycopg2"),
        )
        .unwrap();
        let index = cached_index(root.path()).unwrap();
        assert_eq!(title(&index), Some("Gateway 14"), "rebuilt");
        assert_eq!(
            flagged(&index, "src/a.py", "import psycopg2\n"),
            ["ADR-015/no-psycopg2"]
        );
        poison(root.path());
        fs::remove_file(root.path().join("adr/more/015-db.md")).unwrap();
        let index = cached_index(root.path()).unwrap();
        assert_eq!(title(&index), Some("Gateway 14"), "rebuilt");
        assert!(flagged(&index, "src/a.py", "import psycopg2\n").is_empty());
    }

    #[test]
    fn changed_settings_rebuild_the_index() {
        let root = repo(&[("014-gw.md", &ruling(14, "requests"))]);
        cached_index(root.path()).unwrap();
        poison(root.path());
        fs::create_dir(root.path().join("config")).unwrap();
        fs::write(
            root.path().join(crate::config::settings::SETTINGS_PATH),
            "adr:\n  number_width: 4\n",
        )
        .unwrap();
        let index = cached_index(root.path()).unwrap();
        assert_eq!(index.adr(0).id, "ADR-0014");
    }

    #[test]
    fn without_ruling_adrs_there_is_no_index_file() {
        let root = repo(&[(
            "014-gw.md",
            "---\nadr_id: \"014\"\nstatus: Rejected\ngoverns: [\"src/**\"]\n---\n# Gateway\n",
        )]);
        assert!(cached_index(root.path()).is_none());
        assert!(!may_govern(root.path()));
        assert!(
            !root.path().join(data_dir::DIR).exists(),
            "no data folder made for nothing"
        );
        // With the data folder, the verdict is kept.
        data_dir::ensure(root.path()).unwrap();
        refresh_cache(root.path());
        assert!(root.path().join(NONE_PATH).is_file());
        assert!(!may_govern(root.path()));
        // Proposed with a link but no rules: still nothing.
        fs::write(
            root.path().join("adr/014-gw.md"),
            "---\nadr_id: \"014\"\nstatus: Proposed\ngoverns: [\"src/**\"]\n---\n# Gateway\n",
        )
        .unwrap();
        assert!(cached_index(root.path()).is_none());
        // Accepting the ADR (rules or not: its link gives context) writes the index.
        fs::write(
            root.path().join("adr/014-gw.md"),
            "---\nadr_id: \"014\"\nstatus: Accepted\ngoverns: [\"src/**\"]\n---\n# Gateway\n",
        )
        .unwrap();
        assert!(cached_index(root.path()).is_some());
        assert!(may_govern(root.path()));
        assert!(!root.path().join(NONE_PATH).exists());
        // And rejecting it again removes it.
        fs::write(
            root.path().join("adr/014-gw.md"),
            ruling(14, "requests").replace("Accepted", "Rejected"),
        )
        .unwrap();
        assert!(cached_index(root.path()).is_none());
        assert!(!may_govern(root.path()));
        assert!(root.path().join(NONE_PATH).is_file());
        // Without an ADR directory at all.
        fs::remove_dir_all(root.path().join("adr")).unwrap();
        assert!(cached_index(root.path()).is_none());
    }

    #[test]
    #[cfg(unix)]
    fn a_corrupt_oversized_or_linked_cache_is_rebuilt() {
        let root = repo(&[("014-gw.md", &ruling(14, "requests"))]);
        cached_index(root.path()).unwrap();
        let path = root.path().join(INDEX_PATH);
        fs::write(&path, b"{\"format\": 1, \"adrs\": [").unwrap();
        assert_eq!(
            title(&cached_index(root.path()).unwrap()),
            Some("Gateway 14")
        );
        assert!(read(&path, MAX_CACHE_BYTES).is_some(), "written again");
        // Larger than the limit: never read (a sparse file, so nothing is written).
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(MAX_CACHE_BYTES + 1)
            .unwrap();
        assert!(read(&path, MAX_CACHE_BYTES).is_none());
        assert_eq!(
            title(&cached_index(root.path()).unwrap()),
            Some("Gateway 14")
        );
        assert!(fs::metadata(&path).unwrap().len() < MAX_CACHE_BYTES);
        // A link planted in its place is replaced, its target left alone.
        let target = root.path().join("src.txt");
        fs::write(&target, "mine").unwrap();
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink(&target, &path).unwrap();
        assert_eq!(
            title(&cached_index(root.path()).unwrap()),
            Some("Gateway 14")
        );
        assert_eq!(fs::read_to_string(&target).unwrap(), "mine");
        assert!(fs::symlink_metadata(&path).unwrap().is_file());
        // A rule block cut short is not read; one damaged in place gives the ADR
        // no rules, and makes none up.
        let bytes = fs::read(&path).unwrap();
        fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
        assert!(read(&path, MAX_CACHE_BYTES).is_none());
        let mut damaged = bytes.clone();
        // The rule list's first rule's kind, cut: the list no longer reads.
        let at = bytes
            .windows(b"forbid_import".len())
            .position(|w| w == b"forbid_import")
            .unwrap();
        damaged[at - 1] = 0x7f;
        fs::write(&path, &damaged).unwrap();
        let damaged = read(&path, MAX_CACHE_BYTES).unwrap().index();
        assert_eq!(damaged.ruling().count(), 1);
        assert!(damaged.ruling().all(|r| r.rules.is_empty()));
        assert_eq!(damaged.resolve("src/a.py", &[])[0].id, "ADR-014");
        // An ADR's record damaged: the ADR links and rules nothing.
        let mut damaged = bytes.clone();
        damaged.truncate(bytes.len() - 3);
        damaged.extend_from_slice(&[0xff; 3]);
        fs::write(&path, &damaged).unwrap();
        let damaged = read(&path, MAX_CACHE_BYTES).unwrap().index();
        assert!(damaged.resolve("src/a.py", &[]).is_empty());
        assert!(damaged.ruling().all(|r| r.rules.is_empty()));
        fs::write(&path, &bytes).unwrap();
        // A cache of another format is not trusted.
        poison(root.path());
        edit_header(root.path(), |header| {
            header.head.format = 0;
        });
        assert_eq!(
            title(&cached_index(root.path()).unwrap()),
            Some("Gateway 14")
        );
    }

    /// The cost of a `PostToolUse` on a 20 KB source file with 200 binding ADRs and
    /// 1,000 rules (the ADRs of `scripts/gen_governed.py`): a load of the cached index
    /// and the rules run on the file, per call. Run it with
    /// `cargo test --release --lib governs::cache::tests::bench -- --ignored --nocapture`.
    #[test]
    #[ignore = "a benchmark: run it in a release build"]
    fn bench_cached_index_and_check() {
        let root = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("python3")
            .arg(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/scripts/gen_governed.py"
            ))
            .arg(root.path())
            .status()
            .unwrap();
        assert!(status.success());
        let before = fs::read_to_string(root.path().join("src/mod0/service.py")).unwrap();
        let after = fs::read_to_string(root.path().join("src/mod0/service.next.py")).unwrap();
        let start = std::time::Instant::now();
        refresh_cache(root.path());
        println!("build (200 ADRs, cache written): {:?}", start.elapsed());
        // Past the racy window, so that a load trusts the stamps.
        std::thread::sleep(std::time::Duration::from_nanos(
            u64::try_from(RACY_NS).unwrap(),
        ));
        refresh_cache(root.path());
        let change = [Change {
            path: "src/mod0/service.py".into(),
            before: Some(before),
            after: Some(after),
        }];
        let time = |f: &dyn Fn()| {
            let mut times: Vec<_> = (0..200)
                .map(|_| {
                    let start = std::time::Instant::now();
                    f();
                    start.elapsed()
                })
                .collect();
            times.sort();
            times[times.len() / 2]
        };
        let gate = time(&|| assert!(may_govern(root.path())));
        let file = root.path().join(INDEX_PATH);
        let parse = time(&|| drop(read(&file, MAX_CACHE_BYTES).unwrap()));
        let verified = time(&|| {
            let stored = read(&file, MAX_CACHE_BYTES).unwrap();
            assert!(matches!(verify(root.path(), stored), Verdict::Valid(_)));
        });
        println!(
            "cache file {} bytes; read+parse: {parse:?}, read+parse+verify: {verified:?}",
            fs::metadata(&file).unwrap().len()
        );
        let load = time(&|| drop(cached_index(root.path()).unwrap()));
        let index = cached_index(root.path()).unwrap();
        let rules: usize = index.ruling().map(|r| r.rules.len()).sum();
        assert_eq!((index.len(), rules), (200, 1000));
        let check = time(&|| assert!(enforce::check(&index, &change, Moment::Session).is_empty()));
        let both = time(&|| {
            let index = cached_index(root.path()).unwrap();
            assert!(enforce::check(&index, &change, Moment::Session).is_empty());
        });
        println!(
            "may_govern: {gate:?}  cached_index: {load:?}  check: {check:?}  both: {both:?} (medians of 200)"
        );
    }
}
