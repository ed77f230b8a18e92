//! The session file under `.helix-gate/state/`: the ADRs the session wrote and
//! each target's attempts (what they mean is the budget's rule, [`super::budget`]).
//!
//! Claude Code runs hooks in parallel, so every read-change-write happens under
//! an exclusive lock (a per-session [`FileLock`], see [`lock`]), and the file is
//! written in place under it (see [`Locked::save`]). A corrupt or truncated state
//! file is reported and restored from its copy outside the work tree (or reset),
//! never a crash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::fs::data_dir;
use crate::fs::lock::{FileLock, LockError, Release};

/// How long to wait for another hook process of the same session.
const LOCK_WAIT: Duration = Duration::from_secs(5);
/// The largest session state read: a session touches a few ADRs, not megabytes.
const STATE_LIMIT: u64 = 16 << 20;

/// The target key under which the Stop gate counts failed reviews of `rel`
/// (apart from its deterministic attempts, which are counted under `rel` itself).
pub fn approval_key(rel: &str) -> String {
    format!("approval:{rel}")
}

/// Attempts for one target (an ADR path, `step-marker` or an [`approval_key`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// Blocks so far since the target last passed that used up the budget.
    pub attempts: u32,
    /// The budget was spent and the escalation recorded. For an
    /// [`approval_key`]: the Stop gate starts no further review of the file
    /// in this session.
    pub escalated: bool,
    /// Failing saves since the target last passed, counted or not: the hard cap
    /// (twice the budget) bounds them, so even a loop that keeps improving ends.
    #[serde(default)]
    pub tries: u32,
    /// How many checks failed at the last failing save; a save that lowers it is free.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_failures: Option<u32>,
    /// For an [`approval_key`]: the approval id of the last verdict counted.
    /// The same verdict again (the unchanged file, answered from the cache)
    /// is not a new attempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
}

/// What one session did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// ADRs written or edited in this session (repository-relative).
    pub touched: Vec<String>,
    pub targets: BTreeMap<String, Target>,
    /// The answer file (`step_marker.fallback_file`) as the session last wrote it
    /// with Write or Edit, and in which turn: a Stop of that same turn takes the
    /// marker at the file's end as the answer's ([`super::step_marker`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<AnswerWritten>,
    /// Code files under the rules of ADRs ([`super::governed`]): the SHA-256 of
    /// each as it was last checked, or as the session found it at its start (a
    /// shell command that leaves a file so is not this session's doing).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub code: BTreeMap<String, String>,
    /// The code files under rules this session changed: the Stop checks them again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub code_touched: Vec<String>,
    /// The governing ADRs already put before the model at `PreToolUse`, one per
    /// ADR and folder (`ADR-014 src/api`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub told: Vec<String>,
}

/// A Write or Edit of the session's answer file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnswerWritten {
    /// Repository-relative.
    pub file: String,
    /// The `prompt_id` of the turn that wrote it.
    pub prompt_id: String,
}

impl SessionState {
    pub fn touch(&mut self, rel: &str) {
        if !self.touched.iter().any(|t| t == rel) {
            self.touched.push(rel.to_owned());
        }
    }

    pub fn target(&mut self, key: &str) -> &mut Target {
        self.targets.entry(key.to_owned()).or_default()
    }

    /// A target passed: its budget starts over.
    pub fn reset(&mut self, key: &str) {
        self.targets.remove(key);
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("cannot write session state in {dir}: {source}")]
    Io {
        dir: String,
        #[source]
        source: std::io::Error,
    },
    #[error("session state is locked by another hook process for more than {} s", LOCK_WAIT.as_secs())]
    Locked,
}

/// One session's state, loaded under its lock. The lock is held until the state
/// is [saved](Locked::save) or dropped, so everything read from `state` and
/// written back belongs to one critical section: no other hook process of the
/// session can change it in between. Keep the section short (no reviewer run
/// inside): a parallel hook of the same session waits at most [`LOCK_WAIT`].
pub struct Locked {
    pub state: SessionState,
    /// Set when a damaged state file was replaced by an empty state.
    pub note: Option<String>,
    path: PathBuf,
    dir: PathBuf,
    root: PathBuf,
    /// The bytes read, when they parsed: an unchanged state is not written again.
    original: Option<Vec<u8>>,
    /// Where the copy of the state outside the work tree goes.
    store: Option<super::store::Store>,
    _lock: FileLock,
}

impl Locked {
    /// Write the state back (only when it changed) and release the lock.
    pub fn save(self) -> Result<(), StateError> {
        let bytes = serde_json::to_vec(&self.state).unwrap_or_default();
        if self.original.as_deref() == Some(bytes.as_slice()) {
            // Unchanged (a clean ADR saved again, an escalated target): no write at all.
            return Ok(());
        }
        // Written over the old state and cut to length, not replaced by a rename:
        // on ext4 a rename over an existing file flushes the new file's data
        // (`auto_da_alloc`), 0.2-0.4 ms of every ADR save. Every reader holds the
        // session's lock, so none sees it half-written; a write cut short by a crash
        // leaves JSON that does not parse, and the next event restores the copy
        // outside the work tree (written after this). No fsync: losing a session's
        // attempt counts on power loss is harmless; an fsync would cost milliseconds.
        write_in_place(&self.root, &self.path, &bytes).map_err(|e| io_error(e, &self.dir))?;
        // The copy outside the work tree: a wiped `.helix-gate/` does not
        // give the session a fresh budget.
        if let Some(store) = &self.store {
            store.save_state_copy(&bytes);
        }
        Ok(())
    }
}

/// Write `bytes` over the file at `path` (inside `root`, no link followed) and cut
/// it to their length; created when missing.
fn write_in_place(root: &Path, path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    let real = crate::fs::confine::resolve_parent(root, path)?;
    let mut file =
        crate::fs::confine::open_no_follow(&real, crate::fs::confine::Access::ReadWriteCreate)?;
    file.write_all(bytes)?;
    file.set_len(bytes.len() as u64)
}

fn io_error(source: std::io::Error, dir: &Path) -> StateError {
    StateError::Io {
        dir: dir.display().to_string(),
        source,
    }
}

/// Take the session's lock and load its state (empty when there is none yet; a
/// damaged file is replaced and reported in [`Locked::note`]).
pub fn lock(root: &Path, session: &str) -> Result<Locked, StateError> {
    let dir = data_dir::ensure_dir(root, data_dir::STATE_DIR)
        .map_err(|e| io_error(e, &root.join(data_dir::DIR)))?;
    let files = data_dir::session_files(root, session);
    let path = files.state;
    // The lock file stays: it sits next to the state file and is pruned with it.
    let lock =
        FileLock::acquire(root, &files.lock, LOCK_WAIT, Release::Keep).map_err(|e| match e {
            LockError::Timeout { .. } => StateError::Locked,
            LockError::Io(source) => io_error(source, &dir),
        })?;
    let mut note = None;
    let mut original = None;
    let store = super::store::Store::of(root, session);
    let state = match crate::fs::read::regular(&path, STATE_LIMIT, crate::fs::read::Links::Refuse) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_or_else(
            |e| {
                // Damaged (a write cut short, or a change by hand): the copy outside
                // the work tree keeps the session's attempts, as for a missing file.
                let copy = store
                    .as_ref()
                    .and_then(super::store::Store::state_copy)
                    .and_then(|copy| serde_json::from_slice(&copy).ok());
                note = Some(format!(
                    "session state {} was damaged ({e}) and has been {}",
                    path.display(),
                    if copy.is_some() {
                        "restored from its copy outside the work tree"
                    } else {
                        "reset"
                    }
                ));
                copy.unwrap_or_default()
            },
            |state| {
                original = Some(bytes);
                state
            },
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // Gone from the work tree (a `rm -rf .helix-gate`): the copy outside
            // it keeps the session's attempts.
            match store.as_ref().and_then(super::store::Store::state_copy) {
                Some(bytes) => match serde_json::from_slice(&bytes) {
                    Ok(state) => {
                        note = Some(format!(
                            "session state {} was missing; restored from its copy outside the work tree",
                            path.display()
                        ));
                        state
                    }
                    Err(_) => SessionState::default(),
                },
                None => SessionState::default(),
            }
        }
        Err(e) => return Err(io_error(e, &path)),
    };
    Ok(Locked {
        state,
        note,
        path,
        dir,
        root: root.to_path_buf(),
        original,
        store,
        _lock: lock,
    })
}

/// Load, change and save one session's state under one acquisition of its lock.
/// Returns the closure's result and a note when a damaged state file was replaced.
pub fn update<R>(
    root: &Path,
    session: &str,
    change: impl FnOnce(&mut SessionState) -> R,
) -> Result<(R, Option<String>), StateError> {
    let mut locked = lock(root, session)?;
    let result = change(&mut locked.state);
    let note = locked.note.take();
    locked.save()?;
    Ok((result, note))
}

/// Remove state files older than `days`.
pub fn prune(root: &Path, days: u64) {
    let Some(Ok(entries)) =
        data_dir::existing_dir(root, data_dir::STATE_DIR).map(std::fs::read_dir)
    else {
        return;
    };
    for entry in entries.flatten() {
        if super::store::older_than(&entry, days) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_updates_lose_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let threads: Vec<_> = (0..8)
            .map(|i| {
                let root = root.clone();
                std::thread::spawn(move || {
                    for j in 0..10 {
                        update(&root, "s1", |s| {
                            s.touch(&format!("adr/{i}-{j}.md"));
                            s.target("step-marker").attempts += 1;
                        })
                        .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        let (state, _) = update(&root, "s1", |s| s.clone()).unwrap();
        assert_eq!(state.touched.len(), 80);
        assert_eq!(state.targets["step-marker"].attempts, 80);
        assert_eq!(
            std::fs::read_to_string(root.join(".helix-gate/.gitignore"))
                .unwrap()
                .lines()
                .last(),
            Some("*")
        );
    }

    #[test]
    fn a_huge_retention_keeps_every_state_file() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        update(root, "s1", |s| s.touch("adr/001-x.md")).unwrap();
        prune(root, u64::MAX);
        let files = data_dir::session_files(root, "s1");
        assert!(files.state.exists());
    }

    #[test]
    fn the_lock_is_held_until_the_state_is_saved() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().to_path_buf();
        let mut locked = lock(&root, "s3").unwrap();
        locked.state.touch("adr/1.md");
        let (tx, rx) = std::sync::mpsc::channel();
        let other = std::thread::spawn(move || {
            let (touched, _) = update(&root, "s3", |s| s.touched.len()).unwrap();
            tx.send(touched).unwrap();
        });
        assert!(
            rx.recv_timeout(Duration::from_millis(300)).is_err(),
            "a second process got in while the state was locked"
        );
        locked.save().unwrap();
        assert_eq!(rx.recv_timeout(LOCK_WAIT).unwrap(), 1);
        other.join().unwrap();
    }

    #[test]
    fn damaged_state_is_reported_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let state_dir = data_dir::ensure_dir(dir.path(), data_dir::STATE_DIR).unwrap();
        std::fs::write(state_dir.join("s2.json"), b"{\"touched\": [\"adr/1.md\"").unwrap();
        let (touched, note) = update(dir.path(), "s2", |s| s.touched.len()).unwrap();
        assert_eq!(touched, 0);
        assert!(note.unwrap().contains("damaged"));
        let ((), note) = update(dir.path(), "s2", |_| ()).unwrap();
        assert!(note.is_none());
    }
}
