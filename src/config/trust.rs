//! A person's consent to run a repository's own programs.
//!
//! A repository's `config/approvals.yaml` may name its own reviewer `command`
//! (`./review.sh`), and helix-gate signs what that reviewer approves with the
//! user's key. Registered at user scope, the hook reaches every repository that
//! ships `config/helix-gate.yaml`, a freshly cloned one too, so a program the
//! repository names runs only after the person said so: `helix-gate trust` records
//! the digest of the repository's configuration ([`protected::Snapshot::digest`]),
//! and any later change to it asks again ([`TrustState::Changed`]).
//!
//! Records live outside every work tree, in
//! `<state folder>/trust/<sha256 of the repository's real path>.json`
//! ([`crate::env::state_dir`]), as `{repo, digest, trusted_at}`: nothing a
//! repository ships or a session writes into the work tree can grant consent.
//! A record is read only as a regular file of bounded size (a FIFO planted there
//! is refused, never waited on), and a record that cannot be read or parsed, or
//! that names another folder, counts as no consent.

use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::protected::Snapshot;

/// The folder of the records inside the state folder.
pub const TRUST_DIR: &str = "trust";
/// A record is a few hundred bytes; anything larger is not one.
const RECORD_LIMIT: u64 = 64 * 1024;

/// One person's consent to one configuration of one repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustRecord {
    /// The repository's real path (links resolved).
    pub repo: String,
    /// [`Snapshot::digest`] of the configuration that was trusted.
    pub digest: String,
    /// When, RFC 3339 (UTC).
    pub trusted_at: String,
}

/// Whether the repository's configuration as it is now was trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustState {
    /// Trusted at `at` (RFC 3339), with this very configuration.
    Trusted { at: String },
    /// Never trusted (or the record is unreadable or damaged).
    Untrusted,
    /// Trusted at `trusted_at`, but the configuration changed since.
    Changed { trusted_at: String },
}

impl TrustState {
    pub fn is_trusted(&self) -> bool {
        matches!(self, TrustState::Trusted { .. })
    }
}

/// Why a record could not be written or removed.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    #[error(
        "no folder for helix-gate's per-user state: set HOME (or XDG_STATE_HOME or {}) to an absolute path",
        crate::env::HELIX_GATE_STATE_DIR
    )]
    NoStateDir,
    #[error("cannot resolve the repository folder {path}")]
    Repository {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("cannot write the trust record {path}")]
    Write {
        path: String,
        #[source]
        source: io::Error,
    },
    #[error("cannot remove the trust record {path}")]
    Remove {
        path: String,
        #[source]
        source: io::Error,
    },
}

/// The repository's real path, the record's key.
fn real_path(root: &Path) -> io::Result<PathBuf> {
    std::fs::canonicalize(root)
}

/// Where the record of the repository at `root` is (or would be) in the state
/// folder `state_dir`, with the repository's real path.
fn locate_in(state_dir: &Path, root: &Path) -> io::Result<(PathBuf, PathBuf)> {
    let real = real_path(root)?;
    let name = super::protected::repository_key(&real);
    Ok((state_dir.join(TRUST_DIR).join(format!("{name}.json")), real))
}

/// The record file of the repository at `root`, when there is a state folder
/// and the repository's folder exists.
pub fn record_path(root: &Path) -> Option<PathBuf> {
    let state_dir = crate::env::state_dir()?;
    locate_in(&state_dir, root).ok().map(|(path, _)| path)
}

/// The state of the repository at `root` whose configuration now has `digest`.
pub fn state(root: &Path, digest: &str) -> TrustState {
    crate::env::state_dir().map_or(TrustState::Untrusted, |dir| state_in(&dir, root, digest))
}

/// [`state`] with the state folder given.
pub fn state_in(state_dir: &Path, root: &Path, digest: &str) -> TrustState {
    match record_in(state_dir, root) {
        None => TrustState::Untrusted,
        Some(record) if record.digest == digest => TrustState::Trusted {
            at: record.trusted_at,
        },
        Some(record) => TrustState::Changed {
            trusted_at: record.trusted_at,
        },
    }
}

/// The record of the repository at `root` as stored; `None` when there is none,
/// or it cannot be read, or it is damaged or names another folder.
pub fn record(root: &Path) -> Option<TrustRecord> {
    record_in(&crate::env::state_dir()?, root)
}

/// [`record`] with the state folder given.
pub fn record_in(state_dir: &Path, root: &Path) -> Option<TrustRecord> {
    let (path, real) = locate_in(state_dir, root).ok()?;
    let bytes =
        crate::fs::read::regular(&path, RECORD_LIMIT, crate::fs::read::Links::Refuse).ok()?;
    let record: TrustRecord = serde_json::from_slice(&bytes).ok()?;
    (Path::new(&record.repo) == real && !record.digest.is_empty()).then_some(record)
}

/// Record consent to the configuration of the repository at `root` as it is now.
pub fn trust(root: &Path) -> Result<TrustRecord, TrustError> {
    trust_snapshot(root, &Snapshot::read(root))
}

/// Record consent to `snapshot`, the configuration of the repository at `root`
/// that was shown to the person.
pub fn trust_snapshot(root: &Path, snapshot: &Snapshot) -> Result<TrustRecord, TrustError> {
    let state_dir = crate::env::state_dir().ok_or(TrustError::NoStateDir)?;
    trust_in(&state_dir, root, snapshot)
}

/// [`trust_snapshot`] with the state folder given.
pub fn trust_in(
    state_dir: &Path,
    root: &Path,
    snapshot: &Snapshot,
) -> Result<TrustRecord, TrustError> {
    let (path, real) = locate_in(state_dir, root).map_err(|source| TrustError::Repository {
        path: root.display().to_string(),
        source,
    })?;
    let write_error = |source| TrustError::Write {
        path: path.display().to_string(),
        source,
    };
    let record = TrustRecord {
        repo: real.to_string_lossy().into_owned(),
        digest: snapshot.digest(),
        trusted_at: crate::clock::now_rfc3339(),
    };
    let dir = state_dir.join(TRUST_DIR);
    crate::fs::platform::private_dir(std::fs::DirBuilder::new().recursive(true))
        .create(&dir)
        .map_err(write_error)?;
    let mut text = serde_json::to_string_pretty(&record)
        .map_err(|e| write_error(io::Error::new(io::ErrorKind::InvalidData, e)))?;
    text.push('\n');
    crate::fs::atomic::write_with(
        &dir,
        &path,
        text.as_bytes(),
        crate::fs::atomic::Options::DURABLE.with_mode(0o600),
    )
    .map_err(write_error)?;
    Ok(record)
}

/// Remove the record of the repository at `root`; `true` when there was one
/// (a file of any kind at the record's place is removed).
pub fn revoke(root: &Path) -> Result<bool, TrustError> {
    let state_dir = crate::env::state_dir().ok_or(TrustError::NoStateDir)?;
    revoke_in(&state_dir, root)
}

/// [`revoke`] with the state folder given.
pub fn revoke_in(state_dir: &Path, root: &Path) -> Result<bool, TrustError> {
    let (path, _) = locate_in(state_dir, root).map_err(|source| TrustError::Repository {
        path: root.display().to_string(),
        source,
    })?;
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(source) => Err(TrustError::Remove {
            path: path.display().to_string(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("config")).unwrap();
        std::fs::write(
            dir.path().join(crate::config::protected::APPROVALS_PATH),
            "defaults: {command: ./review.sh}\n",
        )
        .unwrap();
        dir
    }

    #[test]
    fn trust_changes_and_revocation() {
        let state = tempfile::tempdir().unwrap();
        let repo = repo();
        let root = repo.path();
        let digest = || Snapshot::read(root).digest();
        assert_eq!(
            state_in(state.path(), root, &digest()),
            TrustState::Untrusted
        );
        let record = trust_in(state.path(), root, &Snapshot::read(root)).unwrap();
        assert_eq!(record.digest, digest());
        assert_eq!(
            state_in(state.path(), root, &digest()),
            TrustState::Trusted {
                at: record.trusted_at.clone()
            }
        );
        assert_eq!(record_in(state.path(), root), Some(record.clone()));
        let (path, _) = locate_in(state.path(), root).unwrap();
        // Unix modes; Windows has none (the profile's ACL keeps the state private).
        let mode = |p: &Path| crate::fs::platform::mode(&std::fs::metadata(p).unwrap());
        if let Some(file_mode) = mode(&path) {
            assert_eq!(file_mode & 0o777, 0o600);
            assert_eq!(mode(path.parent().unwrap()).unwrap() & 0o777, 0o700);
        }
        std::fs::write(
            root.join(crate::config::protected::APPROVALS_PATH),
            "defaults: {command: ./other.sh}\n",
        )
        .unwrap();
        assert_eq!(
            state_in(state.path(), root, &digest()),
            TrustState::Changed {
                trusted_at: record.trusted_at
            }
        );
        assert!(revoke_in(state.path(), root).unwrap());
        assert!(!revoke_in(state.path(), root).unwrap());
        assert_eq!(
            state_in(state.path(), root, &digest()),
            TrustState::Untrusted
        );
    }

    #[test]
    #[cfg_attr(windows, ignore = "needs git.exe (Wine has none)")]
    fn a_damaged_or_foreign_record_is_no_consent() {
        let state = tempfile::tempdir().unwrap();
        let repo = repo();
        let root = repo.path();
        let digest = Snapshot::read(root).digest();
        let (path, _) = locate_in(state.path(), root).unwrap();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        for damaged in [
            "{not json".to_owned(),
            serde_json::json!({"repo": "/elsewhere", "digest": digest, "trusted_at": "x"})
                .to_string(),
            serde_json::json!({"repo": root.canonicalize().unwrap(), "digest": "", "trusted_at": "x"})
                .to_string(),
        ] {
            std::fs::write(&path, damaged).unwrap();
            assert_eq!(state_in(state.path(), root, &digest), TrustState::Untrusted);
        }
        // A FIFO is refused at once, never waited on.
        std::fs::remove_file(&path).unwrap();
        let made = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(made.success());
        assert_eq!(state_in(state.path(), root, &digest), TrustState::Untrusted);
        // Trusting again replaces it.
        trust_in(state.path(), root, &Snapshot::read(root)).unwrap();
        assert!(state_in(state.path(), root, &digest).is_trusted());
    }
}
