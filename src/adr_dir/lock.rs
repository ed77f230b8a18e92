//! The ADR directory lock: one writer at a time for number assignment, the move
//! and INDEX.md.
//!
//! Two consultants finalizing at once would otherwise both read "next is 039".
//! The lock is a file created with `create_new` (atomic on every local file
//! system), so it needs no platform locking API and is visible to the user when a
//! crashed process leaves it behind. A lock older than [`STALE_AFTER`] is taken
//! over: a finalize holds it for milliseconds, never for half a minute.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context as _, bail};

/// File name of the lock inside the ADR directory.
pub const LOCK_FILE: &str = ".helix-gate.lock";
/// Age after which a lock is considered left behind by a crashed process.
pub const STALE_AFTER: Duration = Duration::from_secs(30);
/// How long to wait for another helix-gate process before giving up.
pub const WAIT: Duration = Duration::from_secs(10);

const POLL: Duration = Duration::from_millis(25);

/// Held while it lives; dropping it removes the lock file.
#[derive(Debug)]
pub struct Lock {
    path: PathBuf,
}

impl Lock {
    /// Take the lock of `dir`, waiting up to [`WAIT`].
    pub fn acquire(dir: &Path) -> anyhow::Result<Lock> {
        Lock::acquire_with(dir, WAIT, STALE_AFTER)
    }

    /// Take the lock of `dir`, waiting up to `wait`, taking over locks older than `stale`.
    pub fn acquire_with(dir: &Path, wait: Duration, stale: Duration) -> anyhow::Result<Lock> {
        let path = dir.join(LOCK_FILE);
        let deadline = Instant::now() + wait;
        loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut file) => {
                    // The content is informational (who holds it); the file's existence is the lock.
                    let _ = writeln!(file, "pid {}", std::process::id());
                    return Ok(Lock { path });
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    if is_stale(&path, stale) {
                        // Residual race: two processes may both judge the same lock stale;
                        // removal of a fresh lock needs a holder that has run for `stale`.
                        let _ = std::fs::remove_file(&path);
                        continue;
                    }
                    if Instant::now() >= deadline {
                        let holder = std::fs::read_to_string(&path).unwrap_or_default();
                        bail!(
                            "{} is held by another helix-gate process ({}); try again, or remove the file if no helix-gate is running (it is ignored after {} s)",
                            path.display(),
                            holder.trim(),
                            stale.as_secs()
                        );
                    }
                    std::thread::sleep(POLL);
                }
                Err(e) => {
                    return Err(e).with_context(|| format!("cannot create {}", path.display()));
                }
            }
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

fn is_stale(path: &Path, stale: Duration) -> bool {
    std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|modified| SystemTime::now().duration_since(modified).ok())
        .is_some_and(|age| age > stale)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_holder_waits_and_gives_up() {
        let dir = tempfile::tempdir().unwrap();
        let first = Lock::acquire(dir.path()).unwrap();
        assert!(first.path().exists());
        let err = Lock::acquire_with(dir.path(), Duration::from_millis(60), STALE_AFTER)
            .unwrap_err()
            .to_string();
        assert!(err.contains("held by another helix-gate process"), "{err}");
        drop(first);
        assert!(!dir.path().join(LOCK_FILE).exists());
        let again = Lock::acquire(dir.path()).unwrap();
        drop(again);
    }

    #[test]
    fn stale_lock_is_taken_over() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(LOCK_FILE), "pid 1\n").unwrap();
        std::thread::sleep(Duration::from_millis(30));
        let lock = Lock::acquire_with(dir.path(), Duration::ZERO, Duration::from_millis(10));
        assert!(lock.is_ok());
    }
}
