//! The staged index compared against `HEAD`.

use std::collections::{BTreeSet, HashMap, HashSet};
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
            let kind = match entry.mode {
                Mode::FILE => EntryKind::Regular,
                Mode::FILE_EXECUTABLE => EntryKind::Executable,
                Mode::SYMLINK => EntryKind::Symlink,
                Mode::COMMIT => EntryKind::Submodule,
                _ => continue,
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
        })
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
        let header = self.repo.find_header(entry.id).map_err(|e| {
            GitError::Object(format!("{} ({}): {}", entry.path, entry.id, chain(&e)))
        })?;
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
        let data = self
            .repo
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
}

fn lossy(path: &BStr) -> String {
    path.to_str_lossy().into_owned()
}
