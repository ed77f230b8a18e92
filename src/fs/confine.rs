//! Keeping helix-gate's writes inside the folder they belong to.
//!
//! A repository is data someone else may have written: a clone can ship
//! `.helix-gate` as a symbolic link to `/tmp/elsewhere`, `log.jsonl` as a link to
//! a shell script, or `INDEX.md` as a link to `~/.bashrc`. So every write, append,
//! lock and new folder of this module's siblings names the folder it must stay in
//! (the project root; the home directory for user settings) and goes through
//! [`resolve`] first: the path's real location, after every symbolic link of its
//! existing part (its final component too) has been followed, must lie inside that
//! folder's real location. A link that stays inside is written through (a
//! symlinked INDEX.md stays a link to the file it names); a link that leads out is
//! refused with [`Escape`], and nothing is written.
//!
//! Check and write are two steps. Files are then created or appended without
//! following a final symbolic link (`O_NOFOLLOW`; temporary files are created
//! with `O_EXCL`; `rename` replaces a link instead of following it), so a link
//! put in place of the file in between is not followed. A folder swapped for a
//! link in between is not caught: only a process that can already write into the
//! project can do that.

use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

/// A write refused because the path's real location is outside the folder it
/// must stay in. Carried inside an [`io::Error`] (kind `Other`), so every caller
/// that reports I/O errors reports this one too; [`escape`] finds it again.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Escape {
    /// A symbolic link inside the folder points out of it.
    #[error(
        "`{}` leaves the project through a symbolic link (`{}` -> `{}`); not written",
        path.display(),
        link.display(),
        target.display()
    )]
    Link {
        /// The path that was to be written, relative to the folder when inside it.
        path: PathBuf,
        /// The last link inside the folder on the way out (shown like `path`).
        link: PathBuf,
        /// What that link contains, as written.
        target: PathBuf,
    },
    /// The path itself names a place outside the folder.
    #[error("`{}` is outside the project ({}); not written", path.display(), root.display())]
    Outside { path: PathBuf, root: PathBuf },
}

/// The [`Escape`] inside `error`, when that is why it failed.
pub fn escape(error: &io::Error) -> Option<&Escape> {
    error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<Escape>())
}

/// Symbolic links followed for one path before giving up (Linux's limit).
const MAX_LINKS: usize = 40;

/// One step of a path still to be walked.
enum Part {
    Up,
    Name(OsString),
}

/// The anchor (`/`, or a Windows prefix and root) of an absolute `path`, and
/// its remaining steps.
fn split(path: &Path) -> (Option<PathBuf>, Vec<Part>) {
    let mut anchor: Option<PathBuf> = None;
    let mut parts = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                anchor
                    .get_or_insert_with(PathBuf::new)
                    .push(component.as_os_str());
            }
            Component::CurDir => {}
            Component::ParentDir => parts.push(Part::Up),
            Component::Normal(name) => parts.push(Part::Name(name.to_os_string())),
        }
    }
    (anchor, parts)
}

/// Where writing `path` really writes, which must be inside `root`: `path`
/// (relative paths are taken relative to `root`) with every symbolic link of its
/// existing part followed, the final component included, and the missing rest
/// appended as written. Fails with an [`Escape`] (see [`escape`]) when that place
/// is not inside `root`'s real location, or with the error of resolving `root`.
pub fn resolve(root: &Path, path: &Path) -> io::Result<PathBuf> {
    let real_root = std::fs::canonicalize(root).map_err(|e| cannot_resolve(root, &e))?;
    resolve_below(root, &real_root, path)
}

fn cannot_resolve(root: &Path, e: &io::Error) -> io::Error {
    io::Error::new(
        e.kind(),
        format!("cannot resolve the folder {}: {e}", root.display()),
    )
}

/// [`resolve`] with `root`'s real location known.
fn resolve_below(root: &Path, real_root: &Path, path: &Path) -> io::Result<PathBuf> {
    let path = root.join(path);
    // Below `root` as written, the walk starts at its real location: a project
    // reached through a link (CLAUDE_PROJECT_DIR=/tmp/alias) is still inside.
    let (mut real, rest) = match path.strip_prefix(root) {
        Ok(rest) => (real_root.to_path_buf(), rest),
        Err(_) => (PathBuf::new(), path.as_path()),
    };
    let (anchor, parts) = split(rest);
    if let Some(anchor) = anchor {
        real = anchor;
    }
    let mut pending: Vec<Part> = parts.into_iter().rev().collect();
    let mut links = 0;
    let mut exists = true;
    // The last link located inside the folder: when the walk ends outside, that
    // is the link that led out.
    let mut blame: Option<(PathBuf, PathBuf)> = None;
    while let Some(part) = pending.pop() {
        let name = match part {
            Part::Up => {
                real.pop();
                continue;
            }
            Part::Name(name) => name,
        };
        let next = real.join(&name);
        if exists {
            match std::fs::symlink_metadata(&next) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Err(io::Error::other(format!(
                            "cannot resolve {}: more than {MAX_LINKS} symbolic links (a loop?); not written",
                            path.display()
                        )));
                    }
                    let target = std::fs::read_link(&next)?;
                    if next.starts_with(real_root) {
                        blame = Some((next, target.clone()));
                    }
                    let (anchor, parts) = split(&target);
                    if let Some(anchor) = anchor {
                        real = anchor;
                    }
                    pending.extend(parts.into_iter().rev());
                    continue;
                }
                Ok(_) => {}
                // Missing, or not reachable (a file where a folder should be, no
                // permission): no link can be followed below it, and the write
                // itself fails with the usual error.
                Err(_) => exists = false,
            }
        }
        real = next;
    }
    if real.starts_with(real_root) {
        return Ok(real);
    }
    let shown = |p: &Path| -> PathBuf {
        p.strip_prefix(root)
            .or_else(|_| p.strip_prefix(real_root))
            .map_or_else(|_| p.to_path_buf(), Path::to_path_buf)
    };
    let escape = match blame {
        Some((link, target)) => Escape::Link {
            path: shown(&path),
            link: shown(&link),
            target,
        },
        None => Escape::Outside {
            path: path.clone(),
            root: root.to_path_buf(),
        },
    };
    Err(io::Error::other(escape))
}

/// Whether the real location of `path` lies inside the real location of `root`:
/// false for a symbolic link (anywhere on the way) that leads out, also when it
/// dangles, for a link loop, and when `root` cannot be resolved. For reads: the
/// same walk as for writes.
pub fn inside(root: &Path, path: &Path) -> bool {
    real_root_for_reads(root).is_some_and(|real_root| resolve_below(root, &real_root, path).is_ok())
}

/// `root`'s real location, resolved once per process for the reads [`inside`]
/// allows (validate asks for each of 1,000 files: three `readlink`s and two
/// `stat`s each). Writes resolve it afresh ([`resolve`]).
fn real_root_for_reads(root: &Path) -> Option<PathBuf> {
    // The first root asked for (a process serves one project); another is
    // resolved each time. No lock: the workers of `validate` ask at once.
    static FIRST: std::sync::OnceLock<(PathBuf, PathBuf)> = std::sync::OnceLock::new();
    if let Some((known, real)) = FIRST.get()
        && known == root
    {
        return Some(real.clone());
    }
    let real = std::fs::canonicalize(root).ok()?;
    let _ = FIRST.set((root.to_path_buf(), real.clone()));
    Some(real)
}

/// Where `path` really is: every symbolic link followed (a dangling one as far
/// as its target exists), the missing rest kept as written. None for a loop.
pub fn real_location(path: &Path) -> Option<PathBuf> {
    resolve(Path::new("/"), &crate::paths::absolute(path)).ok()
}

/// Where creating the file `path` creates it: its folder resolved like
/// [`resolve`], and its own name as written. Whatever is at `path` already, a
/// symbolic link included, is left alone for the caller's "already exists".
pub fn resolve_parent(root: &Path, path: &Path) -> io::Result<PathBuf> {
    let path = root.join(path);
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) => Ok(resolve(root, parent)?.join(name)),
        _ => Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not a file name", path.display()),
        )),
    }
}

/// `create_dir_all` of `dir` inside `root`; returns the folder's real location.
pub fn create_dir_all(root: &Path, dir: &Path) -> io::Result<PathBuf> {
    let real = resolve(root, dir)?;
    std::fs::create_dir_all(&real)?;
    Ok(real)
}

/// How [`open_no_follow`] opens a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Write at the end (`O_APPEND`); `create` when missing.
    Append { create: bool },
    /// Read and write, created when missing, never truncated (a lock file).
    ReadWriteCreate,
}

/// Open `path` without following a symbolic link in its final component: a link
/// there fails (`ELOOP`) instead of being written through.
#[cfg(unix)]
pub fn open_no_follow(path: &Path, access: Access) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::NOFOLLOW
        | OFlags::CLOEXEC
        | match access {
            Access::Append { create: true } => OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE,
            Access::Append { create: false } => OFlags::WRONLY | OFlags::APPEND,
            Access::ReadWriteCreate => OFlags::RDWR | OFlags::CREATE,
        };
    // O_NONBLOCK: opening a FIFO for writing blocks until a reader appears (and
    // fails with ENXIO when non-blocking); fstat then decides on what was opened,
    // so a FIFO or device planted in place of a log, lock or key never hangs.
    // 0o666 minus the umask, as std's File::create.
    let fd = match rustix::fs::open(path, flags | OFlags::NONBLOCK, Mode::from_raw_mode(0o666)) {
        Ok(fd) => fd,
        Err(errno) => {
            let error = io::Error::from(errno);
            // A final link keeps its ELOOP; a FIFO (ENXIO) or folder is named.
            if let Ok(meta) = std::fs::symlink_metadata(path)
                && !meta.file_type().is_symlink()
            {
                super::read::irregular_at(path, &meta)?;
            }
            return Err(error);
        }
    };
    let file = File::from(fd);
    super::read::irregular_at(path, &file.metadata()?)?;
    // A regular file: blocking or not makes no difference, but leave no surprise.
    rustix::fs::fcntl_setfl(&file, rustix::fs::fcntl_getfl(&file)? - OFlags::NONBLOCK)?;
    Ok(file)
}

/// Windows: a final reparse point (a symbolic link or junction) is opened as
/// itself (`FILE_FLAG_OPEN_REPARSE_POINT`) and refused, never written through.
#[cfg(windows)]
pub fn open_no_follow(path: &Path, access: Access) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    match access {
        Access::Append { create } => options.append(true).create(create),
        Access::ReadWriteCreate => options.read(true).write(true).create(true).truncate(false),
    };
    let file = super::platform::no_follow(&mut options).open(path)?;
    super::read::irregular_at(path, &file.metadata()?)?;
    Ok(file)
}

/// Elsewhere, std's open ([`resolve`] has checked the path).
#[cfg(not(any(unix, windows)))]
pub fn open_no_follow(path: &Path, access: Access) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    match access {
        Access::Append { create } => options.append(true).create(create),
        Access::ReadWriteCreate => options.read(true).write(true).create(true).truncate(false),
    };
    options.open(path)
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn inside_follows_a_symlinked_project_path_both_ways() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("repo");
        std::fs::create_dir_all(real.join("adr")).unwrap();
        let alias = dir.path().join("alias");
        symlink(&real, &alias).unwrap();
        assert!(inside(&alias, &real.join("adr/new.md")));
        assert!(inside(&real, &alias.join("adr")));
    }

    #[test]
    fn a_symlink_out_of_the_project_is_outside_also_when_it_dangles() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("repo");
        std::fs::create_dir_all(root.join("adr")).unwrap();
        std::fs::write(dir.path().join("secret"), "x").unwrap();
        symlink(dir.path().join("secret"), root.join("adr/1.md")).unwrap();
        symlink(dir.path().join("gone/x"), root.join("adr/2.md")).unwrap();
        symlink("../adr", root.join("adr/inner")).unwrap();
        assert!(!inside(&root, &root.join("adr/1.md")));
        assert!(!inside(&root, &root.join("adr/2.md")));
        assert!(inside(&root, &root.join("adr/inner/3.md")));
        // A symlink loop resolves to nothing, which counts as outside.
        symlink(root.join("adr/loop"), root.join("adr/loop")).unwrap();
        assert!(!inside(&root, &root.join("adr/loop")));
    }

    fn project() -> (tempfile::TempDir, tempfile::TempDir) {
        (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())
    }

    fn real(p: &Path) -> PathBuf {
        std::fs::canonicalize(p).unwrap()
    }

    #[test]
    fn plain_and_missing_paths_resolve_inside() {
        let (root, _) = project();
        let r = root.path();
        std::fs::create_dir(r.join("adr")).unwrap();
        assert_eq!(
            resolve(r, &r.join("adr/INDEX.md")).unwrap(),
            real(r).join("adr/INDEX.md")
        );
        assert_eq!(
            resolve(r, Path::new(".helix-gate/state/x.json")).unwrap(),
            real(r).join(".helix-gate/state/x.json")
        );
        assert_eq!(
            resolve(r, &r.join("adr/../adr/./x.md")).unwrap(),
            real(r).join("adr/x.md")
        );
    }

    #[test]
    fn a_link_inside_is_written_through() {
        let (root, _) = project();
        let r = root.path();
        std::fs::create_dir_all(r.join("docs")).unwrap();
        std::fs::write(r.join("docs/INDEX.md"), "x").unwrap();
        std::fs::create_dir(r.join("adr")).unwrap();
        symlink("../docs/INDEX.md", r.join("adr/INDEX.md")).unwrap();
        assert_eq!(
            resolve(r, &r.join("adr/INDEX.md")).unwrap(),
            real(r).join("docs/INDEX.md")
        );
        // A dangling link inside the project names the file to create.
        symlink("docs/new.md", r.join("dangling")).unwrap();
        assert_eq!(
            resolve(r, &r.join("dangling")).unwrap(),
            real(r).join("docs/new.md")
        );
    }

    #[test]
    fn a_link_out_of_the_project_is_refused_with_the_link() {
        let (root, elsewhere) = project();
        let r = root.path();
        symlink(elsewhere.path(), r.join(".helix-gate")).unwrap();
        let err = resolve(r, &r.join(".helix-gate/log.jsonl")).unwrap_err();
        let found = escape(&err).expect("an escape");
        assert_eq!(
            found,
            &Escape::Link {
                path: ".helix-gate/log.jsonl".into(),
                link: ".helix-gate".into(),
                target: elsewhere.path().to_path_buf(),
            }
        );
        assert_eq!(
            err.to_string(),
            format!(
                "`.helix-gate/log.jsonl` leaves the project through a symbolic link (`.helix-gate` -> `{}`); not written",
                elsewhere.path().display()
            )
        );
        // The final component, dangling or not.
        std::fs::create_dir(r.join("adr")).unwrap();
        symlink("/nonexistent/dir/x.sh", r.join("adr/INDEX.md")).unwrap();
        assert!(escape(&resolve(r, &r.join("adr/INDEX.md")).unwrap_err()).is_some());
        symlink("../../x", r.join("adr/up.md")).unwrap();
        assert!(escape(&resolve(r, &r.join("adr/up.md")).unwrap_err()).is_some());
        // A path outside the folder to begin with.
        let err = resolve(r, &elsewhere.path().join("x")).unwrap_err();
        assert!(
            matches!(escape(&err), Some(Escape::Outside { .. })),
            "{err}"
        );
        assert!(escape(&resolve(r, Path::new("../x")).unwrap_err()).is_some());
    }

    #[test]
    fn a_root_reached_through_a_link_is_inside() {
        let (root, aliases) = project();
        let alias = aliases.path().join("alias");
        symlink(root.path(), &alias).unwrap();
        assert_eq!(
            resolve(&alias, &alias.join("adr/INDEX.md")).unwrap(),
            real(root.path()).join("adr/INDEX.md")
        );
        // The real path of a file is inside the alias's project too.
        assert!(resolve(&alias, &real(root.path()).join("x")).is_ok());
    }

    #[test]
    fn a_link_loop_is_an_error_not_a_hang() {
        let (root, _) = project();
        let r = root.path();
        symlink("b", r.join("a")).unwrap();
        symlink("a", r.join("b")).unwrap();
        let err = resolve(r, &r.join("a")).unwrap_err();
        assert!(err.to_string().contains("symbolic links"), "{err}");
    }

    #[test]
    fn create_dir_all_and_resolve_parent_stay_inside() {
        let (root, elsewhere) = project();
        let r = root.path();
        assert_eq!(
            create_dir_all(r, &r.join("a/b")).unwrap(),
            real(r).join("a/b")
        );
        symlink(elsewhere.path(), r.join("out")).unwrap();
        assert!(escape(&create_dir_all(r, &r.join("out/x")).unwrap_err()).is_some());
        assert!(
            std::fs::read_dir(elsewhere.path())
                .unwrap()
                .next()
                .is_none()
        );
        // The final link is not followed by resolve_parent.
        assert_eq!(
            resolve_parent(r, &r.join("out")).unwrap(),
            real(r).join("out")
        );
        assert!(escape(&resolve_parent(r, &r.join("out/x")).unwrap_err()).is_some());
    }

    #[test]
    fn open_no_follow_refuses_a_final_link() {
        let (root, elsewhere) = project();
        let target = elsewhere.path().join("script.sh");
        std::fs::write(&target, "#!/bin/sh\n").unwrap();
        let link = root.path().join("log.jsonl");
        symlink(&target, &link).unwrap();
        assert!(open_no_follow(&link, Access::Append { create: true }).is_err());
        assert!(open_no_follow(&link, Access::ReadWriteCreate).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "#!/bin/sh\n");
        let plain = root.path().join("plain");
        assert!(open_no_follow(&plain, Access::Append { create: false }).is_err());
        assert!(open_no_follow(&plain, Access::Append { create: true }).is_ok());
    }

    #[test]
    fn open_no_follow_refuses_a_fifo_without_blocking() {
        let (root, _) = project();
        let fifo = root.path().join("log.jsonl");
        assert!(
            std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success()
        );
        let started = std::time::Instant::now();
        for access in [
            Access::Append { create: true },
            Access::Append { create: false },
            Access::ReadWriteCreate,
        ] {
            let err = open_no_follow(&fifo, access).unwrap_err();
            assert!(err.to_string().contains("named pipe (FIFO)"), "{err}");
        }
        let err = open_no_follow(root.path(), Access::Append { create: true }).unwrap_err();
        assert!(err.to_string().contains("a directory"), "{err}");
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
    }
}
