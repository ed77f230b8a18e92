//! Locating and opening the repository the way git does for hooks.

use std::borrow::Cow;
use std::path::{Path, PathBuf};

use super::env::{GitEnv, anchored};
use super::error::{GitError, chain};
use super::staged::StagedIndex;

/// An opened repository together with the paths git itself would use for it.
pub struct Repo {
    gix: gix::Repository,
    git_dir: PathBuf,
    common_dir: PathBuf,
    work_tree: Option<PathBuf>,
    index_path: PathBuf,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("git_dir", &self.git_dir)
            .field("common_dir", &self.common_dir)
            .field("work_tree", &self.work_tree)
            .field("index_path", &self.index_path)
            .finish_non_exhaustive()
    }
}

impl Repo {
    /// Discover from `start`, honouring `GIT_DIR` / `GIT_WORK_TREE` / `GIT_COMMON_DIR` /
    /// `GIT_INDEX_FILE` / `GIT_CEILING_DIRECTORIES` from the process environment (as git does for
    /// hooks) and linked worktrees. Same as `discover_with(start, &GitEnv::from_process())`.
    pub fn discover(start: &Path) -> Result<Repo, GitError> {
        Repo::discover_with(start, &GitEnv::from_process())
    }

    /// Like [`Repo::discover`] but with an explicit environment, never reading the process one
    /// (except for global configuration when `env.load_global_config` is set).
    ///
    /// * `env.git_dir` set: that directory (or gitfile) is opened, no discovery. As in git, the
    ///   work tree is then `GIT_WORK_TREE`, else none if `core.bare`, else `core.worktree`, else
    ///   the current directory (`env.cwd`, default `start`); for linked-worktree git dirs git
    ///   ignores `core.bare`/`core.worktree` and the current directory is the work tree.
    /// * otherwise discovery walks up from `start` (`.git` dirs, gitfiles of linked worktrees
    ///   and submodules, bare repositories), stopping at `env.ceiling_directories`; the work tree
    ///   is `GIT_WORK_TREE` if set, else whatever git would infer.
    ///
    /// Bare repositories open fine with [`Repo::work_tree`] `== None`; [`Repo::staged_index`]
    /// then fails with [`GitError::Bare`] since there is nothing a commit could be made from.
    pub fn discover_with(start: &Path, env: &GitEnv) -> Result<Repo, GitError> {
        let cwd = env.anchor(start);
        let start = clean(&cwd, start);
        let options = open_options(env);

        let (mut repo, explicit_git_dir) = if let Some(git_dir) = &env.git_dir {
            let git_dir = clean(&cwd, git_dir);
            if gix::discover::is_git(&git_dir).is_err() {
                return Err(GitError::NotARepository { path: git_dir });
            }
            let repo = options
                .open_path_as_is(true)
                .open(&git_dir)
                .map_err(|e| GitError::Open(chain(&e)))?;
            (repo.to_thread_local(), true)
        } else {
            let upwards = gix::discover::upwards::Options {
                ceiling_dirs: env.ceiling_directories.clone(),
                // Git silently ignores ceiling directories that don't contain `start`.
                match_ceiling_dir_or_error: false,
                // Despite its doc comment, `true` *allows* crossing filesystems.
                cross_fs: env.discovery_across_filesystem,
                current_dir: Some(&cwd),
                ..Default::default()
            };
            let trust_map = gix::sec::trust::Mapping {
                full: options.clone(),
                reduced: options,
            };
            let repo = gix::ThreadSafeRepository::discover_opts(&start, upwards, trust_map)
                .map_err(|e| {
                    if is_no_repository(&e) {
                        GitError::NotARepository {
                            path: start.clone(),
                        }
                    } else {
                        GitError::Open(chain(&e))
                    }
                })?;
            (repo.to_thread_local(), false)
        };

        let git_dir = clean(&cwd, repo.git_dir());
        let is_linked_worktree = git_dir.join("commondir").is_file();
        let work_tree = if let Some(work_tree) = &env.work_tree {
            Some(clean(&cwd, work_tree))
        } else if explicit_git_dir {
            let config = repo.config_snapshot();
            if is_linked_worktree {
                Some(cwd.clone())
            } else if config.boolean("core.bare") == Some(true) {
                None
            } else if config.string("core.worktree").is_some() {
                repo.workdir().map(|p| clean(&cwd, p))
            } else {
                Some(cwd.clone())
            }
        } else {
            repo.workdir().map(|p| clean(&cwd, p))
        };
        if repo.workdir() != work_tree.as_deref() {
            repo.set_workdir(work_tree.clone()).map_err(|e| {
                GitError::Open(format!(
                    "work tree {:?} is not an accessible directory: {}",
                    work_tree,
                    chain(&e)
                ))
            })?;
        }

        // gix leaves the `commondir` file's `../..` in place; git reports the normalised path.
        let resolved_common = clean(&cwd, repo.common_dir());
        let common_dir = match &env.common_dir {
            None => resolved_common,
            Some(common_dir) => {
                let common_dir = clean(&cwd, common_dir);
                if !same_directory(&common_dir, &resolved_common) {
                    return Err(GitError::Open(format!(
                        "GIT_COMMON_DIR={} differs from the common directory {} implied by {}; \
                         overriding it is not supported",
                        common_dir.display(),
                        resolved_common.display(),
                        git_dir.display()
                    )));
                }
                common_dir
            }
        };

        let index_path = match &env.index_file {
            Some(index_file) => clean(&cwd, index_file),
            None => git_dir.join("index"),
        };

        Ok(Repo {
            gix: repo,
            git_dir,
            common_dir,
            work_tree,
            index_path,
        })
    }

    /// The work tree root, `None` for bare repositories.
    pub fn work_tree(&self) -> Option<&Path> {
        self.work_tree.as_deref()
    }

    /// The (per-worktree) git directory: `.git`, `.git/worktrees/<name>` or the bare repository.
    pub fn git_dir(&self) -> &Path {
        &self.git_dir
    }

    /// The directory shared by all worktrees (objects, refs, config, hooks). Equals
    /// [`Repo::git_dir`] outside linked worktrees.
    pub fn common_dir(&self) -> &Path {
        &self.common_dir
    }

    /// The index file [`Repo::staged_index`] reads (absolute; `$GIT_INDEX_FILE` if it was set).
    pub fn index_path(&self) -> &Path {
        &self.index_path
    }

    /// Whether a merge is being concluded (`MERGE_HEAD` exists in this worktree's git dir).
    pub fn merge_in_progress(&self) -> bool {
        self.git_dir.join("MERGE_HEAD").is_file()
    }

    /// The index that will be committed — `$GIT_INDEX_FILE` when set, else the repository's
    /// index — compared against the tree of `HEAD` (an unborn `HEAD` counts as the empty tree).
    /// A missing index file counts as empty, like in git.
    pub fn staged_index(&self) -> Result<StagedIndex, GitError> {
        if self.work_tree.is_none() {
            return Err(GitError::Bare);
        }
        StagedIndex::load(&self.gix, &self.index_path)
    }

    /// The index, read whole (an absent index is an empty one).
    pub fn index(&self) -> Result<gix::index::File, GitError> {
        gix::index::File::at_or_default(
            &self.index_path,
            self.gix.object_hash(),
            false,
            gix::index::decode::Options::default(),
        )
        .map_err(|e| GitError::Index(format!("{}: {}", self.index_path.display(), chain(&e))))
    }

    /// The hooks directory git uses: `core.hooksPath` if set (in any configuration file git
    /// reads, including the repository's `config` and the worktree's `config.worktree`; `~` is
    /// expanded; relative values are resolved against the work tree root of *this* worktree, or
    /// the git dir of a bare repository, exactly like git), else `<common_dir>/hooks`.
    pub fn hooks_dir(&self) -> Result<PathBuf, GitError> {
        let configured = self
            .gix
            .config_snapshot()
            .trusted_path("core.hooksPath")
            .map_err(|e| GitError::Config(format!("core.hooksPath: {}", chain(&e))))?;
        Ok(match configured {
            Some(path) => {
                let base = self.work_tree.as_deref().unwrap_or(&self.git_dir);
                anchored(base, &path)
            }
            None => self.common_dir.join("hooks"),
        })
    }

    /// Whether `HEAD` points at a commit (false in a repository before its first commit).
    pub fn has_head(&self) -> bool {
        self.gix.head_id().is_ok()
    }

    /// The content of the file at the work-tree-relative `rel` (`/`-separated) as `HEAD`
    /// has it: `None` when `HEAD` is unborn or has no regular file there (a new file). A
    /// blob above `limit` bytes is never decompressed: [`GitError::BlobTooLarge`].
    pub fn head_file(&self, rel: &str, limit: u64) -> Result<Option<Vec<u8>>, GitError> {
        let object = |e: &gix::Error| GitError::Object(format!("HEAD:{rel}: {}", chain(e)));
        let tree_id = self
            .gix
            .head_tree_id_or_empty()
            .map_err(|e| object(&e))?
            .detach();
        if tree_id == gix::ObjectId::empty_tree(self.gix.object_hash()) {
            return Ok(None);
        }
        let tree = self
            .gix
            .find_object(tree_id)
            .map_err(|e| object(&e))?
            .peel_to_tree()
            .map_err(|e| object(&e))?;
        let Some(entry) = tree.lookup_entry_by_path(rel).map_err(|e| object(&e))? else {
            return Ok(None);
        };
        if !entry.mode().is_blob() {
            return Ok(None);
        }
        let header = self.gix.find_header(entry.oid()).map_err(|e| object(&e))?;
        if header.size() > limit {
            return Err(GitError::BlobTooLarge {
                path: rel.to_owned(),
                size: header.size(),
                limit,
            });
        }
        let data = self
            .gix
            .find_object(entry.oid())
            .map_err(|e| object(&e))?
            .detach()
            .data;
        Ok(Some(data))
    }

    /// The underlying gix repository, for anything this layer does not cover.
    pub fn gix(&self) -> &gix::Repository {
        &self.gix
    }
}

/// Open options. With `load_global_config` gix may read the process environment (needed for
/// `GIT_CONFIG_GLOBAL`, `GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_COUNT`, `HOME`, `XDG_CONFIG_HOME`);
/// otherwise it reads no environment at all. Either way the repository-selecting variables are
/// resolved by us from [`GitEnv`] and gix's own idea of work tree/index is overridden or unused.
fn open_options(env: &GitEnv) -> gix::open::Options {
    use gix::open::{Permissions, permissions};
    let permissions = if env.load_global_config {
        Permissions::all()
    } else {
        Permissions {
            env: permissions::Environment {
                // Only for `~` in path values such as `core.hooksPath`; no file is loaded from it.
                home: gix::sec::Permission::Allow,
                ..permissions::Environment::isolated()
            },
            config: permissions::Config {
                includes: true,
                ..permissions::Config::isolated()
            },
            attributes: permissions::Attributes::isolated(),
        }
    };
    gix::open::Options::default().permissions(permissions)
}

/// Whether discovery failed only because there is no repository (as opposed to I/O or trust).
fn is_no_repository(err: &gix::Error) -> bool {
    use gix::discover::upwards::Error as Upwards;
    match err.downcast_any_ref::<Upwards>() {
        Some(Upwards::NoTrustedGitRepository { .. }) => false,
        Some(_) => true,
        // e.g. `start` does not exist
        None => err.is_not_found(),
    }
}

/// Anchor `path` at `cwd` and remove `.`/`..` lexically (symlinks are not resolved).
fn clean(cwd: &Path, path: &Path) -> PathBuf {
    let path = anchored(cwd, path);
    gix::path::normalize(Cow::Borrowed(path.as_path()), cwd)
        .map(Cow::into_owned)
        .unwrap_or(path)
}

fn same_directory(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// Whether `index` tracks `rel` (relative to the work tree root, `/`-separated): a
/// file entry of that path in any stage, a tracked file below it (a directory), or a
/// sparse directory entry above it (a sparse index). Entries with skip-worktree
/// (sparse checkouts) count: git tracks them though the work tree lacks them.
pub(super) fn index_tracks(index: &gix::index::File, rel: &str) -> bool {
    let rel = rel.trim_end_matches('/').as_bytes();
    index.entries().iter().any(|entry| {
        let path: &[u8] = entry.path(index);
        let below = |outer: &[u8], inner: &[u8]| {
            inner.len() > outer.len() && inner.starts_with(outer) && inner[outer.len()] == b'/'
        };
        let dir = path.strip_suffix(b"/").unwrap_or(path);
        path == rel
            || below(rel, path)
            || (entry.mode.is_sparse() && (dir == rel || below(dir, rel)))
    })
}
