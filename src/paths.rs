//! Finding the repository root and showing paths relative to it.
//!
//! The root is the enclosing git work tree (a `.git` directory or file) or, outside
//! git, the starting directory. This is a cheap walk up the directory tree; no git
//! library is opened for it.

use std::path::{Component, Path, PathBuf};

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
}
