//! Where the MCP server may look: inside the repository, and nowhere else.
//!
//! A path argument comes from a model, so it is untrusted: it is made absolute (from the
//! server's working folder), cleaned of `.` and `..` as text, and must then name a place
//! inside the repository both as written and after every symbolic link on its way is
//! followed (`fs::confine`, the resolver of every write). What it names must be a regular
//! file (or, where a tool takes one, a folder) no larger than the limit: a FIFO, a socket
//! or a device is refused from its `stat`, never opened, so no argument can make the
//! server wait.

use std::path::{Path, PathBuf};

use crate::fs::confine::{self, Escape};

/// The repository and the folder relative paths start from.
pub(super) struct Scope {
    root: PathBuf,
    base: PathBuf,
}

/// What a path argument names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    File,
    Directory,
    /// Nothing there yet (for content checked under a name of its own).
    Missing,
}

impl Scope {
    pub(super) fn new(root: &Path, cwd: &Path) -> Scope {
        let root = crate::paths::absolute(root);
        let cwd = crate::paths::absolute(cwd);
        let base = match crate::paths::relative_to_real(&root, &cwd) {
            Some(rel) if rel.is_empty() => root.clone(),
            Some(rel) => root.join(rel),
            None => root.clone(),
        };
        Scope { root, base }
    }

    pub(super) fn root(&self) -> &Path {
        &self.root
    }

    /// Where relative paths start.
    pub(super) fn base(&self) -> &Path {
        &self.base
    }

    /// The place `arg` names inside the repository (absolute, below [`Scope::root`] as
    /// written); `Err` says why it is refused.
    pub(super) fn place(&self, arg: &str) -> Result<PathBuf, Refused> {
        if arg.trim().is_empty() {
            return Err(Refused::Empty);
        }
        if arg.contains('\0') {
            return Err(Refused::Nul);
        }
        let joined = self.base.join(arg);
        let outside = || Refused::Outside {
            arg: arg.to_owned(),
            root: self.root.clone(),
        };
        let rel = crate::paths::relative_to(&self.root, &joined)
            .or_else(|| crate::paths::relative_to_real(&self.root, &joined))
            .ok_or_else(outside)?;
        let path = if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(&rel)
        };
        match confine::resolve(&self.root, &path) {
            Ok(_) => Ok(path),
            Err(e) => Err(match confine::escape(&e) {
                Some(Escape::Link { link, target, .. }) => Refused::Link {
                    arg: arg.to_owned(),
                    link: link.clone(),
                    target: target.clone(),
                },
                Some(Escape::Outside { .. }) => outside(),
                None => Refused::Unresolved {
                    arg: arg.to_owned(),
                    error: e.to_string(),
                },
            }),
        }
    }

    /// [`Scope::place`], and what is there: a regular file of at most `limit` bytes, a
    /// folder (when `folders` are accepted) or, when `missing` is accepted, nothing.
    pub(super) fn entry(
        &self,
        arg: &str,
        limit: u64,
        folders: bool,
        missing: bool,
    ) -> Result<(PathBuf, Kind), Refused> {
        let path = self.place(arg)?;
        let shown = crate::paths::display(&self.root, &path);
        // stat, never open: it cannot block whatever is there.
        let meta = match std::fs::metadata(&path) {
            Ok(meta) => meta,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && missing => {
                return Ok((path, Kind::Missing));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Refused::NoSuchFile { shown });
            }
            Err(error) => return Err(Refused::Unreadable { shown, error }),
        };
        let kind = meta.file_type();
        if kind.is_dir() {
            return if folders {
                Ok((path, Kind::Directory))
            } else {
                Err(Refused::Folder { shown })
            };
        }
        if !kind.is_file() {
            return Err(Refused::NotRegular {
                shown,
                kind: crate::fs::platform::special_kind(&meta),
            });
        }
        if meta.len() > limit {
            return Err(Refused::TooLarge {
                shown,
                size: meta.len(),
                limit,
            });
        }
        Ok((path, Kind::File))
    }
}

/// Why a path argument is refused; the message is the tool's answer.
#[derive(Debug, thiserror::Error)]
pub(super) enum Refused {
    #[error("the path is empty")]
    Empty,
    #[error("the path contains a NUL character")]
    Nul,
    #[error("`{arg}` is outside the repository {}; the MCP server reads only inside it", root.display())]
    Outside { arg: String, root: PathBuf },
    #[error(
        "`{arg}` leads outside the repository through a symbolic link (`{}` -> `{}`); not read",
        link.display(),
        target.display()
    )]
    Link {
        arg: String,
        link: PathBuf,
        target: PathBuf,
    },
    #[error("`{arg}`: {error}")]
    Unresolved { arg: String, error: String },
    #[error("{shown}: no such file")]
    NoSuchFile { shown: String },
    #[error("cannot read {shown}: {error}")]
    Unreadable {
        shown: String,
        error: std::io::Error,
    },
    #[error("{shown} is a folder, not a file")]
    Folder { shown: String },
    #[error(
        "{shown} is not a regular file ({kind}); not read (`helix-gate validate` reports it as file-not-regular)"
    )]
    NotRegular { shown: String, kind: &'static str },
    #[error(
        "{shown} is {size} bytes, larger than adr.max_file_size ({limit} bytes); not read (`helix-gate validate` reports it as file-too-large)"
    )]
    TooLarge {
        shown: String,
        size: u64,
        limit: u64,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scope() -> (tempfile::TempDir, Scope) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("repo");
        std::fs::create_dir_all(root.join("adr")).unwrap();
        std::fs::write(root.join("adr/001-a.md"), "x").unwrap();
        let scope = Scope::new(&root, &root.join("adr"));
        (dir, scope)
    }

    #[test]
    fn relative_paths_start_at_the_working_folder_and_stay_inside() {
        let (_dir, scope) = scope();
        let root = scope.root().to_path_buf();
        assert_eq!(scope.place("001-a.md").unwrap(), root.join("adr/001-a.md"));
        assert_eq!(
            scope.place("../adr/./001-a.md").unwrap(),
            root.join("adr/001-a.md")
        );
        assert_eq!(
            scope
                .place(root.join("adr/001-a.md").to_str().unwrap())
                .unwrap(),
            root.join("adr/001-a.md")
        );
        for bad in ["../../etc/passwd", "/etc/passwd", "", "a\0b"] {
            assert!(scope.place(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    #[cfg(unix)]
    fn a_link_out_of_the_repository_is_refused() {
        let (dir, scope) = scope();
        let outside = dir.path().join("secret.md");
        std::fs::write(&outside, "secret").unwrap();
        std::os::unix::fs::symlink(&outside, scope.root().join("adr/002-link.md")).unwrap();
        let err = scope.place("002-link.md").unwrap_err();
        assert!(matches!(err, Refused::Link { .. }), "{err}");
        assert!(err.to_string().contains("symbolic link"), "{err}");
    }

    #[test]
    fn only_regular_files_within_the_limit_are_entries() {
        let (_dir, scope) = scope();
        assert_eq!(
            scope.entry("001-a.md", 10, false, false).unwrap().1,
            Kind::File
        );
        assert!(
            scope
                .entry("001-a.md", 0, false, false)
                .unwrap_err()
                .to_string()
                .contains("larger")
        );
        assert!(scope.entry(".", 10, false, false).is_err());
        assert_eq!(
            scope.entry(".", 10, true, false).unwrap().1,
            Kind::Directory
        );
        assert_eq!(
            scope.entry("new.md", 10, false, true).unwrap().1,
            Kind::Missing
        );
        assert!(
            scope
                .entry("new.md", 10, false, false)
                .unwrap_err()
                .to_string()
                .contains("no such")
        );
        assert!(
            scope
                .entry("/dev/null", 10, false, false)
                .unwrap_err()
                .to_string()
                .contains("outside")
        );
    }
}
