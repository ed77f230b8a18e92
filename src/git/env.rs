//! The git-related process environment, captured once and passed explicitly.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// The environment variables (and working directory) that decide *which* repository, work tree
/// and index git operates on.
///
/// Git exports some of these to hooks (see the module documentation for exactly which), so the
/// pre-commit gate must honour them. They are captured once with [`GitEnv::from_process`] in
/// production and built by hand in tests, so that nothing ever has to mutate the process
/// environment (tests run in parallel).
///
/// `GitEnv::default()` means "no variables set, repository-local configuration only".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitEnv {
    /// `GIT_DIR`: open this git directory instead of discovering one.
    pub git_dir: Option<PathBuf>,
    /// `GIT_WORK_TREE`: the work tree root, overriding `core.worktree`/`core.bare` like git does.
    pub work_tree: Option<PathBuf>,
    /// `GIT_COMMON_DIR`: only accepted if it names the common directory gix resolved anyway
    /// (gix 0.90 cannot redirect objects/refs/config to another one); otherwise
    /// [`GitError::Open`](super::GitError::Open) is returned rather than silently reading the wrong
    /// object database.
    pub common_dir: Option<PathBuf>,
    /// `GIT_INDEX_FILE`: the index that will be committed. Git passes it to pre-commit hooks
    /// relative (`.git/index`, plain `git commit`) or absolute (`index.lock` for `commit -a`,
    /// `next-index-<pid>.lock` for `commit <paths>`, always absolute in linked worktrees).
    pub index_file: Option<PathBuf>,
    /// `GIT_CEILING_DIRECTORIES`: discovery never enters these directories' parents.
    pub ceiling_directories: Vec<PathBuf>,
    /// `GIT_DISCOVERY_ACROSS_FILESYSTEM`: whether discovery may cross filesystem boundaries.
    pub discovery_across_filesystem: bool,
    /// The directory relative values above are anchored at, i.e. git's current working
    /// directory. Git starts hooks in the work tree root (bare repositories: the git dir).
    /// `None` anchors them at the `start` directory passed to
    /// [`Repo::discover_with`](super::Repo::discover_with).
    pub cwd: Option<PathBuf>,
    /// Also load system, global (`~/.gitconfig`, XDG) and `GIT_CONFIG_*`-environment
    /// configuration like git does. `false` loads only the repository's own `config` and
    /// `config.worktree`, which keeps tests independent of the developer's setup.
    pub load_global_config: bool,
}

impl GitEnv {
    /// Read the variables from the process environment and the current directory; global
    /// configuration is enabled. Empty variables count as unset.
    pub fn from_process() -> GitEnv {
        fn path_var(name: &str) -> Option<PathBuf> {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        }
        GitEnv {
            git_dir: path_var("GIT_DIR"),
            work_tree: path_var("GIT_WORK_TREE"),
            common_dir: path_var("GIT_COMMON_DIR"),
            index_file: path_var("GIT_INDEX_FILE"),
            ceiling_directories: std::env::var_os("GIT_CEILING_DIRECTORIES")
                .map(|v| parse_ceiling_directories(&v))
                .unwrap_or_default(),
            discovery_across_filesystem: std::env::var_os("GIT_DISCOVERY_ACROSS_FILESYSTEM")
                .is_some_and(|v| parse_git_bool(&v)),
            cwd: std::env::current_dir().ok(),
            load_global_config: true,
        }
    }

    /// The directory relative values are resolved against (`cwd`, else `start`), made absolute.
    pub(crate) fn anchor(&self, start: &Path) -> PathBuf {
        let base = self.cwd.as_deref().unwrap_or(start);
        std::path::absolute(base).unwrap_or_else(|_| base.to_path_buf())
    }
}

/// Resolve `path` against `anchor` unless it is absolute.
pub(crate) fn anchored(anchor: &Path, path: &Path) -> PathBuf {
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        anchor.join(path)
    }
}

/// Git's boolean spelling for environment variables (`1/true/yes/on`, case-insensitive).
fn parse_git_bool(value: &OsStr) -> bool {
    let v = value.to_string_lossy().trim().to_ascii_lowercase();
    matches!(v.as_str(), "1" | "true" | "yes" | "on")
}

/// Like git: `:`-separated (`;` on Windows), relative entries ignored, entries before the
/// first empty entry are canonicalised (symlinks resolved), later ones are taken literally.
fn parse_ceiling_directories(value: &OsStr) -> Vec<PathBuf> {
    let mut canonicalize = true;
    let mut out = Vec::new();
    for dir in std::env::split_paths(value) {
        if dir.as_os_str().is_empty() {
            canonicalize = false;
            continue;
        }
        if dir.is_relative() {
            continue;
        }
        let dir = if canonicalize {
            std::fs::canonicalize(&dir).unwrap_or(dir)
        } else {
            dir
        };
        out.push(dir);
    }
    out
}
