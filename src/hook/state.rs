//! Per-session state under `.helix-gate/state/`: targets touched and attempts.
//!
//! Claude Code runs hooks in parallel, so every update happens under an exclusive
//! lock (flock on a per-session lock file) and is written atomically (temp file +
//! rename). A corrupt
//! or truncated state file is reported and replaced, never a crash.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::{Deserialize, Serialize};

/// Where helix-gate keeps its files inside a repository.
pub const DATA_DIR: &str = ".helix-gate";
/// How long to wait for another hook process of the same session.
const LOCK_WAIT: Duration = Duration::from_secs(5);

/// Attempts for one target (an ADR path or `step-marker`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Target {
    /// Blocks so far since the target last passed.
    pub attempts: u32,
    /// The budget was spent and the escalation recorded.
    pub escalated: bool,
}

impl Target {
    /// Count one more failure against `budget`: the attempt number (`budget + 1`
    /// once the budget is spent) and whether this call spent it (escalate once).
    pub fn charge(&mut self, budget: u32) -> (u32, bool) {
        if self.attempts < budget {
            self.attempts += 1;
            (self.attempts, false)
        } else {
            let first = !self.escalated;
            self.escalated = true;
            (budget + 1, first)
        }
    }
}

/// What one session did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionState {
    /// ADRs written or edited in this session (repository-relative).
    pub touched: Vec<String>,
    pub targets: BTreeMap<String, Target>,
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

/// The state directory, created with a `.gitignore` that ignores everything in `.helix-gate/`.
pub fn ensure_data_dir(root: &Path) -> std::io::Result<PathBuf> {
    let data = root.join(DATA_DIR);
    let state = data.join("state");
    let ignore = data.join(".gitignore");
    // Both exist after the first call: one stat each instead of a mkdir walk.
    if state.is_dir() && ignore.exists() {
        return Ok(state);
    }
    std::fs::create_dir_all(&state)?;
    if !ignore.exists() {
        std::fs::write(
            &ignore,
            "# helix-gate runtime data (state, logs, approvals)\n*\n",
        )?;
    }
    Ok(state)
}

/// A file name for a session id that may contain anything.
fn file_stem(session: &str) -> String {
    let clean: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(80)
        .collect();
    if clean.is_empty() || clean.len() != session.len() {
        // Hostile or odd ids get a stable hash so they can never escape the directory.
        let hash = session.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        format!("{clean}-{hash:016x}")
    } else {
        clean
    }
}

/// An exclusive advisory lock (flock) on a per-session lock file. The kernel
/// releases it when the process ends, so a killed hook never leaves a stale lock.
struct Lock(std::fs::File);

impl Drop for Lock {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

fn lock(path: PathBuf) -> Result<Lock, StateError> {
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| StateError::Io {
            dir: path.display().to_string(),
            source,
        })?;
    let start = Instant::now();
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(Lock(file)),
            Err(std::fs::TryLockError::WouldBlock) => {
                if start.elapsed() > LOCK_WAIT {
                    return Err(StateError::Locked);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(std::fs::TryLockError::Error(source)) => {
                return Err(StateError::Io {
                    dir: path.display().to_string(),
                    source,
                });
            }
        }
    }
}

/// Load, change and save one session's state under its lock. Returns the closure's
/// result and a note when a damaged state file was replaced.
pub fn update<R>(
    root: &Path,
    session: &str,
    change: impl FnOnce(&mut SessionState) -> R,
) -> Result<(R, Option<String>), StateError> {
    let io = |source: std::io::Error, dir: &Path| StateError::Io {
        dir: dir.display().to_string(),
        source,
    };
    let dir = ensure_data_dir(root).map_err(|e| io(e, &root.join(DATA_DIR)))?;
    let stem = file_stem(session);
    let path = dir.join(format!("{stem}.json"));
    let _lock = lock(dir.join(format!("{stem}.lock")))?;
    let mut note = None;
    let mut original = None;
    let mut state = match std::fs::read(&path) {
        Ok(bytes) => serde_json::from_slice(&bytes).map_or_else(
            |e| {
                note = Some(format!(
                    "session state {} was damaged ({e}) and has been reset",
                    path.display()
                ));
                SessionState::default()
            },
            |state| {
                original = Some(bytes);
                state
            },
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => SessionState::default(),
        Err(e) => return Err(io(e, &path)),
    };
    let result = change(&mut state);
    let tmp = dir.join(format!("{stem}.json.tmp{}", std::process::id()));
    let bytes = serde_json::to_vec(&state).unwrap_or_default();
    if original.as_deref() == Some(bytes.as_slice()) {
        // Unchanged (a clean ADR saved again, an escalated target): no write at all.
        return Ok((result, note));
    }
    let write = || -> std::io::Result<()> {
        let mut file = std::fs::File::create(&tmp)?;
        // No fsync: the rename keeps readers consistent, and losing a session's
        // attempt counts on power loss is harmless; an fsync would cost milliseconds
        // on every tool call.
        file.write_all(&bytes)?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(|e| io(e, &path))?;
    Ok((result, note))
}

/// Remove state files older than `days`.
pub fn prune(root: &Path, days: u64) {
    let Ok(entries) = std::fs::read_dir(root.join(DATA_DIR).join("state")) else {
        return;
    };
    let max_age = Duration::from_secs(days * 86_400);
    for entry in entries.flatten() {
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age > max_age);
        if old {
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
    fn charge_counts_to_the_budget_then_escalates_once() {
        let mut t = Target::default();
        assert_eq!((t.charge(2), t.charge(2)), ((1, false), (2, false)));
        assert_eq!((t.charge(2), t.charge(2)), ((3, true), (3, false)));
    }

    #[test]
    fn damaged_state_is_reported_and_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let state_dir = ensure_data_dir(dir.path()).unwrap();
        std::fs::write(state_dir.join("s2.json"), b"{\"touched\": [\"adr/1.md\"").unwrap();
        let (touched, note) = update(dir.path(), "s2", |s| s.touched.len()).unwrap();
        assert_eq!(touched, 0);
        assert!(note.unwrap().contains("damaged"));
        let (_, note) = update(dir.path(), "s2", |_| ()).unwrap();
        assert!(note.is_none());
    }

    #[test]
    fn hostile_session_ids_stay_inside_the_state_directory() {
        assert_eq!(file_stem("2fff056a-7461"), "2fff056a-7461");
        let stem = file_stem("../../etc/passwd");
        assert!(!stem.contains('/') && !stem.contains(".."), "{stem}");
        assert_ne!(file_stem("a/b"), file_stem("a\\b"));
    }
}
