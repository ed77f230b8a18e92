//! The files of a commit's tree, read by path: what `helix-gate check` compares the
//! working tree with.

use std::collections::HashMap;

use gix::bstr::ByteSlice;

use super::error::{GitError, chain};
use super::repo::Repo;
use super::staged::{ChangeStatus, EntryKind, StagedEntry, kind_of, read_blob_of};

/// Every file (blob, link, submodule) of one commit's tree, by repository-relative path.
pub struct TreeFiles {
    repo: gix::Repository,
    files: HashMap<String, (gix::ObjectId, EntryKind)>,
}

impl std::fmt::Debug for TreeFiles {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeFiles")
            .field("files", &self.files.len())
            .finish_non_exhaustive()
    }
}

impl TreeFiles {
    /// Whether the tree has a file at `path`.
    pub fn contains(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    /// Every path of the tree (unordered).
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// The content of `path` in the tree (`None`: no such file), read with `limit` as
    /// [`super::StagedIndex::read_blob`] reads.
    pub fn read(&self, path: &str, limit: u64) -> Option<Result<Vec<u8>, GitError>> {
        let (id, kind) = self.files.get(path)?;
        if *kind == EntryKind::Submodule {
            return None;
        }
        let entry = StagedEntry {
            path: path.to_owned(),
            id: *id,
            kind: *kind,
            status: ChangeStatus::Unchanged,
        };
        Some(read_blob_of(&self.repo, &entry, limit))
    }
}

impl Repo {
    /// The files of the commit `commit` (a full hexadecimal object id).
    pub fn tree_files(&self, commit: &str) -> Result<TreeFiles, GitError> {
        let repo = self.gix();
        let id = gix::ObjectId::from_hex(commit.trim().as_bytes())
            .map_err(|e| GitError::Object(format!("{commit}: {e}")))?;
        let tree = repo
            .find_commit(id)
            .map_err(|e| GitError::Object(format!("{commit}: {}", chain(&e))))?
            .tree_id()
            .map_err(|e| GitError::Object(format!("{commit}^{{tree}}: {}", chain(&e))))?
            .detach();
        let flat = repo
            .index_from_tree(&tree)
            .map_err(|e| GitError::Index(format!("flattening tree {tree}: {}", chain(&e))))?;
        let files = flat
            .entries()
            .iter()
            .filter_map(|e| {
                let kind = kind_of(e.mode)?;
                let path = e.path(&flat).to_str_lossy().into_owned();
                Some((path, (e.id, kind)))
            })
            .collect();
        Ok(TreeFiles {
            repo: repo.clone(),
            files,
        })
    }
}
