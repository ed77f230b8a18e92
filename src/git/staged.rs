//! The staged index compared against `HEAD`, and symbolic links followed inside it.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};
use std::path::Path;

use gix::bstr::{BStr, ByteSlice};
use gix::index::entry::{Flags, Mode, Stage};

use super::error::{GitError, chain};

/// What kind of index entry a path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EntryKind {
    /// A regular file (`100644`).
    Regular,
    /// An executable file (`100755`).
    Executable,
    /// A symbolic link (`120000`); its blob holds the link target.
    Symlink,
    /// A submodule / gitlink (`160000`); its id is a *commit* in another repository and is
    /// never read as a blob.
    Submodule,
}

/// How a staged entry differs from `HEAD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeStatus {
    /// The path does not exist in `HEAD` (new file, rename or copy target, first commit).
    Added,
    /// The path exists in `HEAD` with a different blob id or mode (including type changes).
    Modified,
    /// Same blob id and mode as in `HEAD`; only in [`StagedIndex::unchanged`].
    Unchanged,
}

/// One stage-0 index entry that differs from `HEAD`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StagedEntry {
    /// Repository-relative, `/`-separated path, exactly as stored in the index (no quoting, may
    /// contain spaces or non-ASCII). Paths that are not valid UTF-8 are converted lossily
    /// (invalid bytes become U+FFFD); `read_blob` still works because it goes by `id`.
    pub path: String,
    /// The staged object id (a blob, or a commit for [`EntryKind::Submodule`]).
    pub id: gix::ObjectId,
    /// The entry's mode.
    pub kind: EntryKind,
    /// Added or modified relative to `HEAD`.
    pub status: ChangeStatus,
}

/// The index that will be committed, already compared against `HEAD`'s tree.
///
/// Built eagerly in one pass (index entries against the flattened `HEAD` tree, no work tree
/// access, no content diffs), so all accessors are cheap.
pub struct StagedIndex {
    repo: gix::Repository,
    changed: Vec<StagedEntry>,
    /// Entries equal to `HEAD`: the pre-commit gate reads some of them for rules across files
    /// (duplicate ids), which needs their blob ids.
    unchanged: Vec<StagedEntry>,
    deleted: Vec<String>,
    /// Sorted, deduplicated paths of the commit-to-be.
    paths: Vec<String>,
    /// Sorted paths with entries in stages 1-3.
    conflicted: Vec<String>,
    /// `HEAD`'s tree (the empty tree for an unborn `HEAD`): the "before" of a content diff.
    head_tree: gix::ObjectId,
}

impl std::fmt::Debug for StagedIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StagedIndex")
            .field("changed", &self.changed)
            .field("deleted", &self.deleted)
            .field("paths", &self.paths.len())
            .field("conflicted", &self.conflicted)
            .finish_non_exhaustive()
    }
}

impl StagedIndex {
    pub(crate) fn load(repo: &gix::Repository, index_path: &Path) -> Result<StagedIndex, GitError> {
        // `skip_hash = false` still accepts `index.skipHash` files: a null trailing hash is not checked.
        let index = gix::index::File::at_or_default(
            index_path,
            repo.object_hash(),
            false,
            gix::index::decode::Options::default(),
        )
        .map_err(|e| GitError::Index(format!("{}: {}", index_path.display(), chain(&e))))?;

        let head_tree = repo
            .head_tree_id_or_empty()
            .map_err(|e| GitError::Object(format!("HEAD^{{tree}}: {}", chain(&e))))?
            .detach();
        let head_index = if head_tree == gix::ObjectId::empty_tree(repo.object_hash()) {
            None
        } else {
            Some(repo.index_from_tree(&head_tree).map_err(|e| {
                GitError::Index(format!("flattening HEAD tree {head_tree}: {}", chain(&e)))
            })?)
        };
        let mut head: HashMap<&BStr, (gix::ObjectId, Mode)> = HashMap::new();
        if let Some(head_index) = &head_index {
            head.reserve(head_index.entries().len());
            for e in head_index.entries() {
                head.insert(e.path(head_index), (e.id, e.mode));
            }
        }

        let mut changed = Vec::new();
        let mut unchanged = Vec::new();
        let mut present: HashSet<&BStr> = HashSet::with_capacity(index.entries().len());
        let mut conflicted: BTreeSet<&BStr> = BTreeSet::new();
        let mut sparse_dirs: Vec<&BStr> = Vec::new();
        for entry in index.entries() {
            let path = entry.path(&index);
            if entry.stage() != Stage::Unconflicted {
                conflicted.insert(path);
                continue;
            }
            if entry.mode.is_sparse() {
                // Sparse index: a whole directory outside the cone, unchanged by definition.
                sparse_dirs.push(path);
                continue;
            }
            if entry.flags.contains(Flags::INTENT_TO_ADD) {
                // `git add -N`: tracked, but not part of the next commit.
                continue;
            }
            let Some(kind) = kind_of(entry.mode) else {
                continue;
            };
            present.insert(path);
            let status = match head.get(path) {
                None => ChangeStatus::Added,
                Some((id, mode)) if *id != entry.id || *mode != entry.mode => {
                    ChangeStatus::Modified
                }
                Some(_) => ChangeStatus::Unchanged,
            };
            let staged = StagedEntry {
                path: lossy(path),
                id: entry.id,
                kind,
                status,
            };
            if status == ChangeStatus::Unchanged {
                unchanged.push(staged);
            } else {
                changed.push(staged);
            }
        }

        let under_sparse_dir = |path: &BStr| sparse_dirs.iter().any(|dir| path.starts_with(dir));
        let mut deleted = Vec::new();
        let mut paths: Vec<String> = present.iter().map(|p| lossy(p)).collect();
        for path in head.keys() {
            if present.contains(path) || conflicted.contains(path) {
                continue;
            }
            if !sparse_dirs.is_empty() && under_sparse_dir(path) {
                paths.push(lossy(path));
            } else {
                deleted.push(lossy(path));
            }
        }
        let conflicted: Vec<String> = conflicted.into_iter().map(lossy).collect();
        paths.extend(conflicted.iter().cloned());
        paths.sort_unstable();
        paths.dedup();
        deleted.sort_unstable();

        Ok(StagedIndex {
            repo: repo.clone(),
            changed,
            unchanged,
            deleted,
            paths,
            conflicted,
            head_tree,
        })
    }

    /// `HEAD`'s content of `path` (the "before" of a modified or deleted file): `None`
    /// when `HEAD` has no file there; read with `limit` like [`StagedIndex::read_blob`].
    pub fn read_head_blob(&self, path: &str, limit: u64) -> Option<Result<Vec<u8>, GitError>> {
        let object = |e: &dyn std::fmt::Display| {
            GitError::Object(format!("{path} in HEAD ({}): {e}", self.head_tree))
        };
        let tree = match self.repo.find_tree(self.head_tree) {
            Ok(tree) => tree,
            Err(e) => return Some(Err(object(&e))),
        };
        let entry = match tree.lookup_entry_by_path(path) {
            Ok(entry) => entry?,
            Err(e) => return Some(Err(object(&e))),
        };
        let mode = entry.mode();
        if !(mode.is_blob() || mode.is_link()) {
            return None;
        }
        let entry = StagedEntry {
            path: path.to_owned(),
            id: entry.object_id(),
            kind: EntryKind::Regular,
            status: ChangeStatus::Unchanged,
        };
        Some(self.read_blob(&entry, limit))
    }

    /// Stage-0 entries whose path is new or whose blob/mode differs from `HEAD` (unborn `HEAD` =
    /// empty tree), in index (path byte) order. Renames and copies appear as their new path
    /// ([`ChangeStatus::Added`]); the old path of a rename shows up in [`StagedIndex::deleted`].
    /// Intent-to-add entries (`git add -N`) and conflicted paths are not included.
    pub fn changed(&self) -> Vec<StagedEntry> {
        self.changed.clone()
    }

    /// Stage-0 entries identical to `HEAD` (status [`ChangeStatus::Unchanged`]), in index order;
    /// together with [`StagedIndex::changed`] every file, symlink and submodule of the
    /// commit-to-be. Their blobs can be read with [`StagedIndex::read_blob`].
    pub fn unchanged(&self) -> &[StagedEntry] {
        &self.unchanged
    }

    /// Paths in `HEAD` that the commit-to-be no longer contains, sorted. Conflicted paths are
    /// not reported as deleted.
    pub fn deleted(&self) -> Vec<String> {
        self.deleted.clone()
    }

    /// Whether the commit-to-be contains `path` (repository-relative, `/`-separated). Answers
    /// from the index only: a file removed with `git rm --cached` is absent even if it is still
    /// on disk, and vice versa. Conflicted paths count as present; intent-to-add entries don't.
    pub fn contains_path(&self, path: &str) -> bool {
        self.paths
            .binary_search_by(|p| p.as_str().cmp(path))
            .is_ok()
    }

    /// Every path of the commit-to-be, sorted by bytes, each once (lossy UTF-8, see
    /// [`StagedEntry::path`]).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.paths.iter().map(String::as_str)
    }

    /// Whether the index holds unmerged entries (stages 1-3). Git refuses to commit such an
    /// index; the gate should report them rather than validate half-merged files.
    pub fn has_conflicts(&self) -> bool {
        !self.conflicted.is_empty()
    }

    /// The unmerged paths, sorted; none of them are in [`StagedIndex::changed`].
    pub fn conflicted_paths(&self) -> &[String] {
        &self.conflicted
    }

    /// Read the staged content of `entry` from the object database.
    ///
    /// The object header (type and size; for packed objects this resolves the delta chain's
    /// result size without applying deltas) is checked first, so nothing above `limit` bytes is
    /// ever decompressed or allocated: such blobs yield [`GitError::BlobTooLarge`]. Submodule
    /// entries and non-blob objects yield [`GitError::NotABlob`].
    pub fn read_blob(&self, entry: &StagedEntry, limit: u64) -> Result<Vec<u8>, GitError> {
        if entry.kind == EntryKind::Submodule {
            return Err(GitError::NotABlob {
                path: entry.path.clone(),
                kind: "submodule commit".into(),
            });
        }
        read_blob_of(&self.repo, entry, limit)
    }
}

/// The mode of a `HEAD` tree entry as an [`EntryKind`] (`None`: not a file, link or submodule).
pub(super) fn kind_of(mode: Mode) -> Option<EntryKind> {
    match mode {
        Mode::FILE => Some(EntryKind::Regular),
        Mode::FILE_EXECUTABLE => Some(EntryKind::Executable),
        Mode::SYMLINK => Some(EntryKind::Symlink),
        Mode::COMMIT => Some(EntryKind::Submodule),
        _ => None,
    }
}

/// [`StagedIndex::read_blob`] in any repository (also for [`super::TreeFiles`]).
pub(super) fn read_blob_of(
    repo: &gix::Repository,
    entry: &StagedEntry,
    limit: u64,
) -> Result<Vec<u8>, GitError> {
    let header = repo
        .find_header(entry.id)
        .map_err(|e| GitError::Object(format!("{} ({}): {}", entry.path, entry.id, chain(&e))))?;
    if header.kind() != gix::objs::Kind::Blob {
        return Err(GitError::NotABlob {
            path: entry.path.clone(),
            kind: header.kind().to_string(),
        });
    }
    let too_large = |size: u64| GitError::BlobTooLarge {
        path: entry.path.clone(),
        size,
        limit,
    };
    if header.size() > limit {
        return Err(too_large(header.size()));
    }
    let data = repo
        .find_object(entry.id)
        .map_err(|e| GitError::Object(format!("{} ({}): {}", entry.path, entry.id, chain(&e))))?
        .detach()
        .data;
    // Defensive: never hand out more than `limit`, even if a corrupt header understated the size.
    if data.len() as u64 > limit {
        return Err(too_large(data.len() as u64));
    }
    Ok(data)
}

/// Most symbolic links followed to resolve one link, as Linux allows (`MAXSYMLINKS`): a loop
/// or a longer chain is refused instead of followed forever.
pub const MAX_LINK_HOPS: usize = 40;

/// Longest link target read (`PATH_MAX`); a checkout could not create a longer one either.
pub(super) const MAX_LINK_TARGET: u64 = 4096;

/// Why a staged symbolic link does not lead to a file of the commit-to-be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// The target is an absolute path: whatever it names is not part of the commit, and
    /// differs from one checkout to the next.
    #[error("points to the absolute path `{target}`, outside the commit")]
    Absolute { target: String },
    /// A `..` climbs above the repository root.
    #[error("points to `{target}`, which leads out of the repository")]
    Escapes { target: String },
    /// More than [`MAX_LINK_HOPS`] links in a row.
    #[error("leads through more than {MAX_LINK_HOPS} symbolic links (a loop?)")]
    TooManyLinks,
    /// A link's blob is longer than [`MAX_LINK_TARGET`]; it was not loaded.
    #[error(
        "has a target of {size} bytes, longer than the {MAX_LINK_TARGET} bytes a path may have"
    )]
    TooLong { size: u64 },
    /// The path it leads to is not in the commit (a dangling link).
    #[error("points to `{path}`, which the commit does not contain")]
    Missing { path: String },
    /// The path it leads to is a directory (or the repository root).
    #[error("points to `{path}`, a directory")]
    Directory { path: String },
    /// The path it leads to is a submodule entry.
    #[error("points to `{path}`, a submodule entry")]
    Submodule { path: String },
    /// The path it leads to has unresolved merge conflicts.
    #[error("points to `{path}`, which has unresolved merge conflicts")]
    Conflicted { path: String },
}

/// Where a staged symbolic link leads inside the commit-to-be.
#[derive(Debug)]
pub struct LinkResolution<'a> {
    /// The file entry it leads to (regular or executable), or why there is none.
    pub target: Result<&'a StagedEntry, LinkError>,
    /// Every path looked up on the way: the link itself, each component, each link followed,
    /// the final path. What the link shows changes only if the commit changes one of them
    /// (see [`StagedIndex::touches`]).
    pub looked_up: Vec<String>,
}

impl StagedIndex {
    /// Follow the symbolic link `link` the way a checkout of the commit-to-be would: its target
    /// relative to the link's folder, component by component, links met on the way followed
    /// (at most [`MAX_LINK_HOPS`]), everything looked up in the index only. An absolute target
    /// or a `..` above the repository root is refused rather than looked up outside: the commit
    /// does not contain it. `Err` only when a link's blob cannot be read at all.
    pub fn resolve_link(&self, link: &StagedEntry) -> Result<LinkResolution<'_>, GitError> {
        let mut looked_up = vec![link.path.clone()];
        let target = self.follow(link, &mut looked_up)?;
        Ok(LinkResolution { target, looked_up })
    }

    /// [`StagedIndex::resolve_link`]'s walk; the outer `Err` is an unreadable link blob.
    fn follow(
        &self,
        link: &StagedEntry,
        looked_up: &mut Vec<String>,
    ) -> Result<Result<&StagedEntry, LinkError>, GitError> {
        let mut dir: Vec<String> = link.path.split('/').map(str::to_owned).collect();
        dir.pop();
        let mut pending: VecDeque<String> = VecDeque::new();
        let mut next: Option<&StagedEntry> = None;
        let mut hops = 0;
        loop {
            let current = next.unwrap_or(link);
            hops += 1;
            if hops > MAX_LINK_HOPS {
                return Ok(Err(LinkError::TooManyLinks));
            }
            let target = match self.read_blob(current, MAX_LINK_TARGET) {
                Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Err(GitError::BlobTooLarge { size, .. }) => {
                    return Ok(Err(LinkError::TooLong { size }));
                }
                Err(err) => return Err(err),
            };
            // Shown in a message: a target of thousands of characters says no more than its start.
            let shown = || crate::text::truncate(&target, 200);
            if target.starts_with('/') {
                return Ok(Err(LinkError::Absolute { target: shown() }));
            }
            // The rest of the path is resolved after this link's target, from the link's folder.
            for component in target.split('/').rev() {
                pending.push_front(component.to_owned());
            }
            next = None;
            while let Some(component) = pending.pop_front() {
                match component.as_str() {
                    "" | "." => {}
                    ".." => {
                        if dir.pop().is_none() {
                            return Ok(Err(LinkError::Escapes { target: shown() }));
                        }
                    }
                    _ => {
                        let path = joined(&dir, &component);
                        let found = self.find(&path);
                        looked_up.push(path);
                        match found {
                            Some(entry) if entry.kind == EntryKind::Symlink => {
                                next = Some(entry);
                                break;
                            }
                            _ => dir.push(component),
                        }
                    }
                }
            }
            if next.is_none() {
                break;
            }
        }
        let path = dir.join("/");
        if looked_up.last() != Some(&path) {
            looked_up.push(path.clone());
        }
        Ok(match self.find(&path) {
            Some(entry) => match entry.kind {
                EntryKind::Regular | EntryKind::Executable => Ok(entry),
                EntryKind::Submodule => Err(LinkError::Submodule { path }),
                // Not reached: every link met on the way was followed.
                EntryKind::Symlink => Err(LinkError::Missing { path }),
            },
            None if path.is_empty() => Err(LinkError::Directory { path: ".".into() }),
            None if self.conflicted.binary_search(&path).is_ok() => {
                Err(LinkError::Conflicted { path })
            }
            None if self.is_directory(&path) => Err(LinkError::Directory { path }),
            None => Err(LinkError::Missing { path }),
        })
    }

    /// Whether the commit-to-be holds files below `path`.
    fn is_directory(&self, path: &str) -> bool {
        let dir = format!("{path}/");
        let i = self.paths.partition_point(|p| p.as_str() < dir.as_str());
        self.paths.get(i).is_some_and(|p| p.starts_with(&dir))
    }

    /// Whether the commit changes `path`: added, modified, deleted or in conflict.
    pub fn touches(&self, path: &str) -> bool {
        let has = |list: &[String]| list.binary_search_by(|p| p.as_str().cmp(path)).is_ok();
        find_in(&self.changed, path).is_some() || has(&self.deleted) || has(&self.conflicted)
    }

    /// The stage-0 entry at `path`, if any.
    fn find(&self, path: &str) -> Option<&StagedEntry> {
        find_in(&self.changed, path).or_else(|| find_in(&self.unchanged, path))
    }
}

/// The entry of `list` at `path`. Both entry lists are in index order, i.e. sorted by path
/// bytes, which is `str` order for UTF-8 paths (a lossily converted path may be missed: a link
/// to it is then refused, never followed elsewhere).
fn find_in<'a>(list: &'a [StagedEntry], path: &str) -> Option<&'a StagedEntry> {
    list.binary_search_by(|e| e.path.as_str().cmp(path))
        .ok()
        .map(|i| &list[i])
}

/// `dir/name` from path components.
fn joined(dir: &[String], name: &str) -> String {
    if dir.is_empty() {
        name.to_owned()
    } else {
        format!("{}/{name}", dir.join("/"))
    }
}

fn lossy(path: &BStr) -> String {
    path.to_str_lossy().into_owned()
}
