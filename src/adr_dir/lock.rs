//! The ADR directory lock: one writer at a time for number assignment, the move
//! and INDEX.md.
//!
//! Two consultants finalizing at once would otherwise both read "next is 039".
//! The lock is a [`FileLock`] on `.helix-gate.lock` inside the ADR directory. The
//! file exists only while the lock is held (it sits among the ADRs, where git and
//! the user see it), and a crashed holder leaves no lock: the kernel releases it.

use std::path::Path;
use std::time::Duration;

use crate::fs::lock::{FileLock, LockError, Release};

/// File name of the lock inside the ADR directory.
pub const LOCK_FILE: &str = ".helix-gate.lock";
/// How long to wait for another helix-gate process before giving up.
pub const WAIT: Duration = Duration::from_secs(10);

/// Held while it lives; dropping it releases the lock and removes the file.
#[derive(Debug)]
pub struct Lock(FileLock);

impl Lock {
    /// Take the lock of `dir` (inside the repository at `root`), waiting up to [`WAIT`].
    pub fn acquire(root: &Path, dir: &Path) -> Result<Lock, LockError> {
        Lock::acquire_with(root, dir, WAIT)
    }

    /// Take the lock of `dir` (inside the repository at `root`), waiting up to `wait`.
    pub fn acquire_with(root: &Path, dir: &Path, wait: Duration) -> Result<Lock, LockError> {
        FileLock::acquire(root, &dir.join(LOCK_FILE), wait, Release::Remove).map(Lock)
    }

    pub fn path(&self) -> &Path {
        self.0.path()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_waits_and_gives_up() {
        let dir = tempfile::tempdir().unwrap();
        let first = Lock::acquire(dir.path(), dir.path()).unwrap();
        assert!(first.path().exists());
        let err = Lock::acquire_with(dir.path(), dir.path(), Duration::from_millis(60))
            .unwrap_err()
            .to_string();
        assert!(err.contains("held by another helix-gate process"), "{err}");
        drop(first);
        assert!(!dir.path().join(LOCK_FILE).exists());
        let again = Lock::acquire(dir.path(), dir.path()).unwrap();
        drop(again);
    }

    #[test]
    fn a_lock_file_left_behind_is_taken_over_at_once() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "pid 1\n").unwrap();
        let lock = Lock::acquire_with(dir.path(), dir.path(), Duration::ZERO);
        assert!(lock.is_ok());
        drop(lock);
        assert!(!dir.path().join(LOCK_FILE).exists());
    }
}
