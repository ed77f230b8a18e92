//! Writing files so that a reader sees the old content or the new one, never half
//! of it, and never overwriting a file that must not be overwritten.
//!
//! The temporary file lives next to its target (same directory, so the same file
//! system: `rename` and `link` stay atomic) and is a hidden `.<name>.XXXXXX.tmp`
//! file, which no ADR glob matches. It is removed on every failure path: the
//! `tempfile` crate deletes it on drop unless it was moved into place.
//!
//! Every function takes the folder the file must stay in (the project root) and
//! writes the file's real location ([`super::confine::resolve`]): a symbolic link
//! inside that folder is written through and stays a link, one that leads out is
//! refused with [`super::confine::Escape`].
//!
//! Errors are `std::io::Error`s that keep the original kind (callers test for
//! `AlreadyExists`) and name the path in their message.

use std::fs::Permissions;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// How [`write_with`] and [`stage`] write a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// fsync the temporary file before it replaces the target, so that after a
    /// power loss the target holds the old or the new content, never an empty file.
    pub sync: bool,
    /// Unix permission bits the file gets whatever the target had (an executable
    /// hook). `None`: an existing target's permissions are kept and a new file gets
    /// what `std::fs::write` would give it (`0o666` minus the umask).
    pub mode: Option<u32>,
}

impl Options {
    /// Files a person relies on (ADRs, INDEX.md, settings, hooks): synced.
    pub const DURABLE: Options = Options {
        sync: true,
        mode: None,
    };
    /// Files written often that are cheap to lose on power failure (session
    /// state, caches): the rename keeps readers consistent, and skipping the fsync
    /// saves milliseconds on every write.
    pub const FAST: Options = Options {
        sync: false,
        mode: None,
    };

    /// The same options with fixed permission bits (ignored where there are none).
    #[must_use]
    pub const fn with_mode(self, mode: u32) -> Options {
        Options {
            mode: Some(mode),
            ..self
        }
    }
}

/// Replace `path` (inside `root`) with `bytes` in one step, synced ([`Options::DURABLE`]).
pub fn write(root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    write_with(root, path, bytes, Options::DURABLE)
}

/// Replace `path` (inside `root`) with `bytes` in one step (temporary file + rename).
pub fn write_with(root: &Path, path: &Path, bytes: &[u8], options: Options) -> io::Result<()> {
    stage(root, path, bytes, options)?.commit()
}

/// A finished temporary file that has not replaced its target yet. Dropping it
/// without [`Staged::commit`] removes the temporary file and leaves the target alone,
/// so a multi-file change can prepare every file before it moves any.
#[derive(Debug)]
pub struct Staged {
    temp: NamedTempFile,
    target: PathBuf,
}

impl Staged {
    /// Move the temporary file over the target (one `rename`).
    pub fn commit(self) -> io::Result<()> {
        let Staged { temp, target } = self;
        // On failure the returned temporary file is dropped here, which removes it.
        temp.persist(&target)
            .map(drop)
            .map_err(|e| failed(&format!("cannot replace {}", target.display()), &e.error))
    }
}

/// Write `bytes` to a temporary file next to `path`'s real location (inside
/// `root`), ready to replace it.
pub fn stage(root: &Path, path: &Path, bytes: &[u8], options: Options) -> io::Result<Staged> {
    // The real location: a symlinked file is replaced at its target, so the link
    // stays a link, and the target's permissions are the ones kept.
    let path = &super::confine::resolve(root, path)?;
    let permissions = match options.mode {
        Some(mode) => fixed_permissions(mode),
        None => std::fs::metadata(path).ok().map(|m| m.permissions()),
    };
    let temp = temp_file(path, bytes, permissions, options.sync)?;
    Ok(Staged {
        temp,
        target: path.clone(),
    })
}

/// Create `path` (inside `root`) with `bytes` (synced), failing with
/// `AlreadyExists` when it exists (a symbolic link included), even if another
/// process creates it at the same moment. The file appears complete
/// (`renameat2(RENAME_NOREPLACE)` or a hard link of a finished temporary file);
/// where the file system supports neither, it is written with `create_new`.
pub fn create_new(root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
    let path = &super::confine::resolve_parent(root, path)?;
    let temp = temp_file(path, bytes, None, true)?;
    match temp.persist_noclobber(path) {
        Ok(_) => Ok(()),
        Err(e) if e.error.kind() == io::ErrorKind::AlreadyExists => Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("{} already exists", path.display()),
        )),
        Err(e) => {
            // The temporary file is removed before the fallback writes the target.
            drop(e);
            create_new_in_place(path, bytes)
        }
    }
}

/// `create_new` written directly: not atomic for readers, but still never overwrites.
fn create_new_in_place(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| failed(&format!("cannot create {}", path.display()), &e))?;
    let written = file.write_all(bytes).and_then(|()| file.sync_all());
    if let Err(e) = written {
        let _ = std::fs::remove_file(path);
        return Err(failed(&format!("cannot write {}", path.display()), &e));
    }
    Ok(())
}

/// A temporary file in `path`'s directory holding `bytes`, with `permissions`
/// when given.
fn temp_file(
    path: &Path,
    bytes: &[u8],
    permissions: Option<Permissions>,
    sync: bool,
) -> io::Result<NamedTempFile> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    // The target's name makes a leftover recognisable; it is shortened so that
    // the temporary name stays within the file system's name limit.
    let name: String = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy())
        .chars()
        .take(64)
        .collect();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    if let Some(default) = fixed_permissions(0o666) {
        // Passed to open(2), so the umask applies as for `std::fs::write`
        // (tempfile's own default is 0o600).
        builder.permissions(default);
    }
    let mut temp = builder.tempfile_in(dir).map_err(|e| {
        failed(
            &format!("cannot create a temporary file in {}", dir.display()),
            &e,
        )
    })?;
    let filled = (|| {
        temp.write_all(bytes)?;
        if let Some(permissions) = permissions {
            temp.as_file().set_permissions(permissions)?;
        }
        if sync {
            temp.as_file().sync_all()?;
        }
        Ok(())
    })();
    // On error `temp` is dropped on return, which removes it.
    filled.map_err(|e| {
        failed(
            &format!("cannot write a temporary file in {}", dir.display()),
            &e,
        )
    })?;
    Ok(temp)
}

/// Whether `name` is the name [`temp_file`] gives a temporary file:
/// `.<target name, at most 64 characters>.<6 letters or digits>.tmp`.
pub fn is_temporary_name(name: &str) -> bool {
    temporary_target(name).is_some()
}

/// The target name (shortened to 64 characters) of the temporary file `name`,
/// when `name` is one [`temp_file`] gives.
pub fn temporary_target(name: &str) -> Option<&str> {
    let middle = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (target, random) = middle.rsplit_once('.')?;
    (!target.is_empty()
        && target.chars().count() <= 64
        && random.len() == 6
        && random.bytes().all(|b| b.is_ascii_alphanumeric()))
    .then_some(target)
}

/// Which temporary files [`remove_leftovers`] removes.
#[derive(Debug, Clone, Copy)]
pub struct Leftovers<'a> {
    /// Targets whose every writer holds a lock the caller holds now: their
    /// temporary files belong to no writer at work, whatever their age.
    pub owned: &'a [&'a str],
    /// Any other temporary file last modified more than this long ago (a writer
    /// at work keeps its file young); `None`: no other file.
    pub older_than: Option<std::time::Duration>,
}

/// Remove the temporary files of this module that a killed writer left in `dir`
/// (not below it): regular files named by [`is_temporary_name`] that `which`
/// selects. Returns the names removed; a file that cannot be removed is skipped.
pub fn remove_leftovers(dir: &Path, which: Leftovers<'_>) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let now = std::time::SystemTime::now();
    let mut removed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(target) = temporary_target(&name) else {
            continue;
        };
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        let owned = which
            .owned
            .iter()
            .any(|o| o.chars().take(64).eq(target.chars()));
        let old = || {
            which.older_than.is_some_and(|limit| {
                meta.modified()
                    .ok()
                    .and_then(|m| now.duration_since(m).ok())
                    .is_some_and(|age| age > limit)
            })
        };
        if meta.file_type().is_file()
            && (owned || old())
            && std::fs::remove_file(entry.path()).is_ok()
        {
            removed.push(name);
        }
    }
    removed.sort();
    removed
}

#[cfg(unix)]
#[expect(
    clippy::unnecessary_wraps,
    reason = "one signature with the non-unix twin, which has no mode to give"
)]
fn fixed_permissions(mode: u32) -> Option<Permissions> {
    use std::os::unix::fs::PermissionsExt as _;
    Some(Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn fixed_permissions(_mode: u32) -> Option<Permissions> {
    None
}

/// The same error kind with `what` (which names the path) in front of the message.
fn failed(what: &str, error: &io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{what}: {error}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn write_replaces_and_create_new_never_overwrites() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("INDEX.md");
        write(dir.path(), &path, b"one").unwrap();
        write_with(dir.path(), &path, b"two", Options::FAST).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let target = dir.path().join("001-x.md");
        create_new(dir.path(), &target, b"adr").unwrap();
        let err = create_new(dir.path(), &target, b"other").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert!(err.to_string().contains("001-x.md"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "adr");
        assert_eq!(names(dir.path()), ["001-x.md", "INDEX.md"]);
    }

    #[cfg(unix)]
    #[test]
    fn permissions_of_an_existing_target_are_kept() {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let secret = dir.path().join("settings.json");
        std::fs::write(&secret, "{}").unwrap();
        std::fs::set_permissions(&secret, Permissions::from_mode(0o600)).unwrap();
        write(dir.path(), &secret, b"{\"a\": 1}").unwrap();
        assert_eq!(mode(&secret), 0o600);

        // A new file gets what std::fs::write gives it (0o666 minus the umask).
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "x").unwrap();
        let fresh = dir.path().join("fresh");
        write(dir.path(), &fresh, b"x").unwrap();
        assert_eq!(mode(&fresh), mode(&plain));
        create_new(dir.path(), &dir.path().join("created"), b"x").unwrap();
        assert_eq!(mode(&dir.path().join("created")), mode(&plain));

        // A fixed mode wins over the target's.
        write_with(
            dir.path(),
            &secret,
            b"#!/bin/sh\n",
            Options::DURABLE.with_mode(0o755),
        )
        .unwrap();
        assert_eq!(mode(&secret), 0o755);
    }

    #[test]
    fn a_failed_rename_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("taken");
        std::fs::create_dir(&target).unwrap();
        std::fs::write(target.join("inside"), "x").unwrap();
        let err = write(dir.path(), &target, b"bytes").unwrap_err();
        assert!(err.to_string().starts_with("cannot replace "), "{err}");
        assert!(err.to_string().contains("taken"), "{err}");
        assert_eq!(names(dir.path()), ["taken"]);
        assert!(create_new(dir.path(), &target, b"bytes").is_err());
        assert_eq!(names(dir.path()), ["taken"]);
    }

    #[test]
    fn an_uncommitted_stage_leaves_the_target_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("INDEX.md");
        std::fs::write(&path, "old").unwrap();
        let staged = stage(dir.path(), &path, b"new", Options::DURABLE).unwrap();
        assert_eq!(
            names(dir.path()).len(),
            2,
            "the temporary file is next to it"
        );
        drop(staged);
        assert_eq!(names(dir.path()), ["INDEX.md"]);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        stage(dir.path(), &path, b"new", Options::DURABLE)
            .unwrap()
            .commit()
            .unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
    }

    #[test]
    #[cfg_attr(
        windows,
        ignore = "Windows keeps an open temporary file from being removed; open (issue 33)"
    )]
    fn only_old_leftovers_of_this_module_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("INDEX.md");
        let staged = stage(dir.path(), &path, b"new", Options::DURABLE).unwrap();
        let temp = staged.temp.path().to_path_buf();
        std::mem::forget(staged);
        let name = temp.file_name().unwrap().to_string_lossy().into_owned();
        assert!(is_temporary_name(&name), "{name}");
        for user in [
            ".notes.tmp",
            ".INDEX.md.tmp",
            "x.md.abcdef.tmp",
            ".a.abc.tmp",
            ".a.abcd-f.tmp",
        ] {
            assert!(!is_temporary_name(user), "{user}");
            std::fs::write(dir.path().join(user), "mine").unwrap();
        }
        let user_lookalike = dir.path().join(".draft.md.Ab12cd.tmp");
        std::fs::write(&user_lookalike, "young").unwrap();
        let aged = Leftovers {
            owned: &[],
            older_than: Some(std::time::Duration::from_secs(5)),
        };
        // Too young: a writer may be at work.
        assert!(remove_leftovers(dir.path(), aged).is_empty());
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&temp)
            .unwrap()
            .set_modified(old)
            .unwrap();
        assert_eq!(remove_leftovers(dir.path(), aged), [name]);
        assert!(!temp.exists());
        assert!(user_lookalike.exists());
        assert_eq!(names(dir.path()).len(), 6);
    }

    #[test]
    fn leftovers_of_an_owned_target_are_removed_at_any_age_and_only_those() {
        let dir = tempfile::tempdir().unwrap();
        for name in [".INDEX.md.Ab12cd.tmp", ".001-x.md.Ab12cd.tmp"] {
            std::fs::write(dir.path().join(name), "young").unwrap();
        }
        std::fs::create_dir(dir.path().join(".INDEX.md.dir123.tmp")).unwrap();
        let owned = Leftovers {
            owned: &["INDEX.md"],
            older_than: None,
        };
        assert_eq!(
            remove_leftovers(dir.path(), owned),
            [".INDEX.md.Ab12cd.tmp"]
        );
        assert_eq!(
            names(dir.path()),
            [".001-x.md.Ab12cd.tmp", ".INDEX.md.dir123.tmp"],
            "another target's file and a directory stay"
        );
        assert_eq!(temporary_target(".INDEX.md.Ab12cd.tmp"), Some("INDEX.md"));
    }

    #[test]
    fn a_missing_directory_is_reported_with_its_path() {
        let dir = tempfile::tempdir().unwrap();
        let err = write(dir.path(), &dir.path().join("no/such/file"), b"x").unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        let folder = format!("no{}such", std::path::MAIN_SEPARATOR);
        assert!(err.to_string().contains(&folder), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_file_is_written_through_inside_and_refused_outside() {
        use std::os::unix::fs::{PermissionsExt as _, symlink};
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let real = dir.path().join("docs-INDEX.md");
        std::fs::write(&real, "old").unwrap();
        std::fs::set_permissions(&real, Permissions::from_mode(0o600)).unwrap();
        let link = dir.path().join("INDEX.md");
        symlink("docs-INDEX.md", &link).unwrap();
        write(dir.path(), &link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
        let mode = std::fs::metadata(&real).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the target's permissions are kept");

        let outside = elsewhere.path().join("script.sh");
        std::fs::write(&outside, "#!/bin/sh\n").unwrap();
        let hostile = dir.path().join("log.jsonl");
        symlink(&outside, &hostile).unwrap();
        let err = write(dir.path(), &hostile, b"x").unwrap_err();
        assert!(super::super::confine::escape(&err).is_some(), "{err}");
        let err = create_new(dir.path(), &hostile, b"x").unwrap_err();
        assert_eq!(
            err.kind(),
            io::ErrorKind::AlreadyExists,
            "a link is a file that exists"
        );
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "#!/bin/sh\n");
        assert_eq!(names(elsewhere.path()), ["script.sh"]);
        assert_eq!(
            names(dir.path()),
            ["INDEX.md", "docs-INDEX.md", "log.jsonl"]
        );
    }
}
