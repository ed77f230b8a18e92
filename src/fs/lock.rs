//! One exclusive lock between helix-gate processes (and threads): an advisory
//! lock (`flock` on Unix, `LockFileEx` on Windows) on a lock file, via std's
//! `File::try_lock`, polled until a deadline.
//!
//! The kernel releases the lock when its holder ends, however it ends, so a
//! crashed process never leaves a lock behind: the file may stay on disk, and no
//! age rule is needed to take it over.
//!
//! A lock file that is removed on release ([`Release::Remove`], for a lock file in
//! a folder the user sees) needs one more step: a waiter may have opened the file
//! just before its holder removed it, and then locks a file nobody else will ever
//! open. So after locking, the holder checks that the path still names the file it
//! locked, and otherwise starts over. The holder removes the file before it
//! unlocks, so a process that gets the lock afterwards always sees the change.
//!
//! The lock file's real location must be inside the folder given
//! ([`super::confine::resolve`]), and it is opened without following a final
//! symbolic link, so a lock file linked elsewhere is never created or written.

use std::fs::{File, TryLockError};
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What happens to the lock file when the lock is released.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Release {
    /// The file stays (in a data folder nobody looks at); the next holder reuses it.
    Keep,
    /// The file is removed, so it is only visible while the lock is held.
    Remove,
}

/// Why a lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// The lock file cannot be opened or locked (the message names it).
    #[error(transparent)]
    Io(io::Error),
    /// Another holder kept the lock for the whole wait.
    #[error(
        "{} is held by another helix-gate process ({holder}); waited {} s, try again when it has finished",
        path.display(),
        waited.as_secs_f64()
    )]
    Timeout {
        path: PathBuf,
        /// What the holder wrote into the lock file (`pid N`), or `holder unknown`.
        holder: String,
        waited: Duration,
    },
}

/// Longest pause between two attempts: short, because the locks guard writes of
/// milliseconds and a hook waiting for one delays the user.
const MAX_POLL: Duration = Duration::from_millis(10);

/// An exclusive lock, held until dropped.
#[derive(Debug)]
pub struct FileLock {
    file: File,
    path: PathBuf,
    release: Release,
}

impl FileLock {
    /// Take the lock on `path` inside `root` (the file is created when missing),
    /// waiting up to `wait` for another holder.
    pub fn acquire(
        root: &Path,
        path: &Path,
        wait: Duration,
        release: Release,
    ) -> Result<FileLock, LockError> {
        let path = &super::confine::resolve(root, path).map_err(LockError::Io)?;
        let deadline = Instant::now() + wait;
        let mut pause = Duration::from_millis(1);
        let mut file = open(path)?;
        loop {
            match file.try_lock() {
                Ok(()) => {
                    if names_file(path, &file)? {
                        record_holder(&mut file);
                        return Ok(FileLock {
                            file,
                            path: path.clone(),
                            release,
                        });
                    }
                    // The holder before removed the file: lock the one at `path` now.
                    file = open(path)?;
                    continue;
                }
                Err(TryLockError::WouldBlock) => {}
                Err(TryLockError::Error(e)) => {
                    return Err(LockError::Io(failed("cannot lock", path, &e)));
                }
            }
            let now = Instant::now();
            if now >= deadline {
                // Read like every data file: a FIFO swapped in is not waited on.
                let holder = super::read::regular(path, 4096, super::read::Links::Refuse)
                    .ok()
                    .and_then(|bytes| String::from_utf8(bytes).ok())
                    .unwrap_or_default();
                let holder = holder.trim();
                return Err(LockError::Timeout {
                    path: path.clone(),
                    holder: if holder.is_empty() {
                        "holder unknown".to_owned()
                    } else {
                        holder.to_owned()
                    },
                    waited: wait,
                });
            }
            std::thread::sleep(pause.min(deadline - now));
            pause = (pause * 2).min(MAX_POLL);
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        if self.release == Release::Remove {
            // Removed while still locked: see the module comment.
            let _ = std::fs::remove_file(&self.path);
        }
        let _ = self.file.unlock();
    }
}

fn open(path: &Path) -> Result<File, LockError> {
    // Never truncated here: the file holds the current holder's pid.
    super::confine::open_no_follow(path, super::confine::Access::ReadWriteCreate)
        .map_err(|e| LockError::Io(failed("cannot open the lock file", path, &e)))
}

/// Whether `path` still names the open `file` (it may have been removed or replaced).
#[cfg(unix)]
fn names_file(path: &Path, file: &File) -> Result<bool, LockError> {
    use std::os::unix::fs::MetadataExt as _;
    let held = file
        .metadata()
        .map_err(|e| LockError::Io(failed("cannot read the lock file", path, &e)))?;
    Ok(match std::fs::metadata(path) {
        Ok(now) => now.dev() == held.dev() && now.ino() == held.ino(),
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(LockError::Io(failed("cannot read the lock file", path, &e))),
    })
}

/// Windows refuses to remove a file that is open without delete sharing, so
/// the file at `path` is the one that was opened.
#[cfg(not(unix))]
#[expect(
    clippy::unnecessary_wraps,
    reason = "the same signature as the Unix version, which can fail"
)]
fn names_file(_path: &Path, _file: &File) -> Result<bool, LockError> {
    Ok(true)
}

/// Best effort: the pid is only shown to someone who waited in vain. Written
/// over the last holder's line and then cut to its length, not truncated to zero
/// first: on ext4 a truncation to zero makes the next close flush the file's data
/// (`auto_da_alloc`), a disk write on every lock.
fn record_holder(file: &mut File) {
    use std::io::Seek as _;
    let line = format!("pid {}\n", std::process::id());
    let _ = file
        .seek(io::SeekFrom::Start(0))
        .and_then(|_| file.write_all(line.as_bytes()))
        .and_then(|()| file.set_len(line.len() as u64));
}

fn failed(what: &str, path: &Path, error: &io::Error) -> io::Error {
    io::Error::new(error.kind(), format!("{what} {}: {error}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Duration = Duration::from_millis(60);

    #[test]
    fn a_second_holder_waits_then_times_out_with_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let first = FileLock::acquire(dir.path(), &path, Duration::ZERO, Release::Keep).unwrap();
        let started = Instant::now();
        let err = FileLock::acquire(dir.path(), &path, SHORT, Release::Keep).unwrap_err();
        assert!(started.elapsed() >= SHORT);
        let message = err.to_string();
        assert!(
            message.contains("x.lock is held by another helix-gate process (pid "),
            "{message}"
        );
        assert!(message.contains("waited 0.06 s"), "{message}");
        drop(first);
    }

    #[test]
    fn the_lock_is_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let first = FileLock::acquire(dir.path(), &path, Duration::ZERO, Release::Keep).unwrap();
        drop(first);
        assert!(path.exists(), "Release::Keep leaves the file");
        let second = FileLock::acquire(dir.path(), &path, Duration::ZERO, Release::Remove).unwrap();
        assert_eq!(
            second.path(),
            std::fs::canonicalize(dir.path()).unwrap().join("x.lock"),
            "the real location"
        );
        drop(second);
        assert!(!path.exists(), "Release::Remove removes it");
    }

    #[test]
    fn a_file_left_by_a_dead_holder_is_not_a_lock() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        std::fs::write(&path, "pid 1\n").unwrap();
        let lock = FileLock::acquire(dir.path(), &path, Duration::ZERO, Release::Remove).unwrap();
        let pid = format!("pid {}\n", std::process::id());
        assert_eq!(std::fs::read_to_string(&path).unwrap(), pid);
        drop(lock);
    }

    #[test]
    fn a_waiter_never_shares_a_removed_lock() {
        // Many threads take a removed-on-release lock in turn; a counter that is
        // read and written under it would lose updates if two held it at once.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("x.lock");
        let counter = dir.path().join("counter");
        std::fs::write(&counter, "0").unwrap();
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let (path, counter) = (path.clone(), counter.clone());
                let root = dir.path().to_path_buf();
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        let _lock = FileLock::acquire(
                            &root,
                            &path,
                            Duration::from_secs(10),
                            Release::Remove,
                        )
                        .unwrap();
                        let n: u32 = std::fs::read_to_string(&counter).unwrap().parse().unwrap();
                        std::fs::write(&counter, (n + 1).to_string()).unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(std::fs::read_to_string(&counter).unwrap(), "120");
        assert!(!path.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_file_linked_out_of_the_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let target = elsewhere.path().join("victim");
        std::fs::write(&target, "keep\n").unwrap();
        let path = dir.path().join("x.lock");
        std::os::unix::fs::symlink(&target, &path).unwrap();
        let err =
            FileLock::acquire(dir.path(), &path, Duration::ZERO, Release::Remove).unwrap_err();
        let LockError::Io(io) = &err else {
            panic!("{err}")
        };
        assert!(super::super::confine::escape(io).is_some(), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep\n");
        assert!(std::fs::symlink_metadata(&path).unwrap().is_symlink());
    }
}
