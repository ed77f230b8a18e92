//! Finding the repository root and showing paths relative to it.
//!
//! The root is the enclosing git work tree (a `.git` directory or file) or, outside
//! git, the starting directory. This is a cheap walk up the directory tree; no git
//! library is opened for it.
//!
//! Paths are compared as text first (cheap, and what almost every event needs);
//! when that fails they are compared by their real location, so a project reached
//! through a symlinked path (`CLAUDE_PROJECT_DIR=/tmp/alias`, macOS's `/tmp` that
//! is `/private/tmp`) is still recognised, and a symlink that leads out of the
//! project is seen as leading out.

use std::os::unix::fs::MetadataExt as _;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed at most when resolving one path (Linux's `MAXSYMLINKS`).
const MAX_SYMLINKS: usize = 40;

/// The enclosing work tree of `start`, or `start` itself outside git.
pub fn find_root(start: &Path) -> PathBuf {
    let start = absolute(start);
    let mut dir = start.as_path();
    loop {
        if dir.join(".git").exists() {
            return dir.to_path_buf();
        }
        match dir.parent() {
            Some(parent) => dir = parent,
            None => return start,
        }
    }
}

/// `path` made absolute against the current directory, with `.` and `..` removed
/// lexically (symlinks are not resolved).
pub fn absolute(path: &Path) -> PathBuf {
    let joined = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().unwrap_or_default().join(path)
    };
    let mut out = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `root` with `/` separators, or None when outside it.
pub fn relative_to(root: &Path, path: &Path) -> Option<String> {
    let rel = absolute(path).strip_prefix(root).ok()?.to_path_buf();
    let parts: Vec<String> = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

/// `path` relative to `root` like [`relative_to`]; when the text comparison fails,
/// by real location: the nearest ancestor of `path` that is the same directory as
/// `root` (same device and inode, symlinks followed) ends the project part, and
/// the rest of `path` is kept as written (so an ADR reached through a symlinked
/// project path keeps its repository-relative name). None when no ancestor is
/// `root`.
pub fn relative_to_real(root: &Path, path: &Path) -> Option<String> {
    if let Some(rel) = relative_to(root, path) {
        return Some(rel);
    }
    let root_meta = std::fs::metadata(root).ok()?;
    let path = absolute(path);
    path.ancestors().find_map(|ancestor| {
        let meta = std::fs::metadata(ancestor).ok()?;
        if meta.dev() == root_meta.dev() && meta.ino() == root_meta.ino() {
            relative_to(ancestor, &path)
        } else {
            None
        }
    })
}

/// Where `path` really is: every symlink resolved, also a final one that dangles
/// (its target is followed as far as it exists), and a missing tail kept as
/// written below the nearest existing ancestor. None when the chain of symlinks
/// is too long or nothing of the path can be resolved.
pub fn real_location(path: &Path) -> Option<PathBuf> {
    let mut path = absolute(path);
    for _ in 0..MAX_SYMLINKS {
        if let Ok(real) = path.canonicalize() {
            return Some(real);
        }
        match std::fs::symlink_metadata(&path) {
            // A dangling symlink: follow its target by hand.
            Ok(meta) if meta.file_type().is_symlink() => {
                let target = std::fs::read_link(&path).ok()?;
                let parent = path.parent().unwrap_or(Path::new("/"));
                path = absolute(&parent.join(target));
            }
            // Missing (or unreadable): resolve the nearest ancestor that resolves.
            _ => {
                let mut tail = Vec::new();
                let mut dir = path.as_path();
                while let Some(parent) = dir.parent() {
                    tail.push(dir.file_name()?.to_owned());
                    if let Ok(real) = parent.canonicalize() {
                        return Some(tail.iter().rev().fold(real, |p, part| p.join(part)));
                    }
                    dir = parent;
                }
                return None;
            }
        }
    }
    None
}

/// Whether the real location of `path` lies inside the real location of `root`:
/// false for a symlink (anywhere on the way) that leads out of the project, and
/// when either cannot be resolved.
pub fn inside_real(root: &Path, path: &Path) -> bool {
    match (root.canonicalize(), real_location(path)) {
        (Ok(root), Some(real)) => real.starts_with(root),
        _ => false,
    }
}

/// How to show `path` to the user: relative to `root` when inside it, else as given.
pub fn display(root: &Path, path: &Path) -> String {
    relative_to(root, path).unwrap_or_else(|| path.display().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        let root = Path::new("/r");
        assert_eq!(
            relative_to(root, Path::new("/r/adr/001.md")).as_deref(),
            Some("adr/001.md")
        );
        assert_eq!(
            relative_to(root, Path::new("/r/adr/../x.md")).as_deref(),
            Some("x.md")
        );
        assert_eq!(relative_to(root, Path::new("/other/x.md")), None);
    }

    #[test]
    fn a_symlinked_project_path_is_compared_by_its_real_location() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("repo");
        std::fs::create_dir_all(real.join("adr")).unwrap();
        let alias = dir.path().join("alias");
        std::os::unix::fs::symlink(&real, &alias).unwrap();
        // Both ways round, also for a file that does not exist yet.
        assert_eq!(
            relative_to_real(&alias, &real.join("adr/001.md")).as_deref(),
            Some("adr/001.md")
        );
        assert_eq!(
            relative_to_real(&real, &alias.join("adr/001.md")).as_deref(),
            Some("adr/001.md")
        );
        assert_eq!(relative_to_real(&real, dir.path()), None);
        assert!(inside_real(&alias, &real.join("adr/new.md")));
        assert!(inside_real(&real, &alias.join("adr")));
    }

    #[test]
    fn a_symlink_out_of_the_project_is_outside_also_when_it_dangles() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("adr")).unwrap();
        std::fs::write(dir.path().join("secret"), "x").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), root.join("adr/1.md")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("gone/x"), root.join("adr/2.md")).unwrap();
        std::os::unix::fs::symlink("../adr", root.join("adr/inner")).unwrap();
        assert!(!inside_real(&root, &root.join("adr/1.md")));
        assert!(!inside_real(&root, &root.join("adr/2.md")));
        assert!(inside_real(&root, &root.join("adr/inner/3.md")));
        // A symlink loop resolves to nothing, which counts as outside.
        std::os::unix::fs::symlink(root.join("adr/loop"), root.join("adr/loop")).unwrap();
        assert!(!inside_real(&root, &root.join("adr/loop")));
    }
}
