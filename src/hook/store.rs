//! The session's record outside the work tree and where it lives:
//! `<state dir>/sessions/<repository key>/<session>.*` (see
//! [`crate::env::state_dir`], the folder of the signing key), out of reach of a
//! `rm -rf .helix-gate`. What it means is [`super::baseline`]'s business.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::fs::lock::{FileLock, Release};

/// How long to wait for another hook process of the same session.
const LOCK_WAIT: Duration = Duration::from_secs(5);
/// The largest record read (a repository of many thousands of ADRs).
pub(super) const RECORD_LIMIT: u64 = 64 << 20;
/// The largest file hashed for the baseline; a larger one is compared by its
/// size and times only.
const HASH_LIMIT: u64 = 64 << 20;

/// How the record came about.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// Taken at the session's first event.
    #[default]
    Start,
    /// Made later because the record was missing: the Stop also checks what
    /// differs from `HEAD`.
    Recovered,
}

/// The content of one file, cheap to compare first (`stat`), exact second (hash).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileState {
    len: u64,
    mtime: i128,
    ctime: i128,
    ino: u64,
    /// SHA-256 (hex), empty when the file was too large to hash.
    hash: String,
    /// The number of its `adr_id` (front matter), for the duplicate check on save.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) number: Option<u32>,
}

impl FileState {
    pub(super) fn stat(path: &Path) -> Option<(u64, i128, i128, u64)> {
        let meta = std::fs::metadata(path).ok()?;
        meta.is_file().then(|| crate::fs::platform::stamp(&meta))
    }

    /// The file at `path` now (`None` when it is gone or not a regular file).
    pub(super) fn read(path: &Path) -> Option<FileState> {
        let (len, mtime, ctime, ino) = FileState::stat(path)?;
        let bytes = (len <= HASH_LIMIT)
            .then(|| crate::fs::read::read_limited(path, HASH_LIMIT).ok())
            .flatten();
        Some(FileState {
            len,
            mtime,
            ctime,
            ino,
            hash: bytes
                .as_deref()
                .map(|b| crate::text::hex(&Sha256::digest(b)))
                .unwrap_or_default(),
            number: bytes.as_deref().and_then(adr_number),
        })
    }

    /// Whether a `stat` says the file is as it was (no read needed).
    pub(super) fn same_stat(&self, path: &Path) -> bool {
        FileState::stat(path) == Some((self.len, self.mtime, self.ctime, self.ino))
    }

    /// Whether the content equals `other`'s (by hash; by size and times when
    /// either could not be hashed).
    pub(super) fn same_content(&self, other: &FileState) -> bool {
        if self.hash.is_empty() || other.hash.is_empty() {
            return self.len == other.len && self.mtime == other.mtime;
        }
        self.hash == other.hash
    }
}

/// The number of the `adr_id` in the front matter at the start of `bytes`, by
/// a look at its lines (no YAML parse: the baseline reads every ADR).
pub(super) fn adr_number(bytes: &[u8]) -> Option<u32> {
    let head = &bytes[..bytes.len().min(16 * 1024)];
    let text = match std::str::from_utf8(head) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&head[..e.valid_up_to()]).ok()?,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.lines();
    if lines.next()?.trim_end() != "---" {
        return None;
    }
    lines
        .take_while(|line| line.trim_end() != "---")
        .find_map(|line| line.strip_prefix("adr_id:"))
        .and_then(|value| {
            let value = value.split(" #").next().unwrap_or(value).trim();
            crate::adr::number_in_id(value.trim_matches(|c| c == '"' || c == '\''))
        })
}

/// The session's record.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Record {
    pub origin: Origin,
    pub started: String,
    /// The digest of the configuration the session runs with (its copy).
    pub config_digest: String,
    /// The `stat` fingerprint of the repository's configuration when it last had
    /// that digest ([`crate::config::protected::stat_fingerprint`]): while it is
    /// the same, no event reads the configuration to compare it.
    #[serde(default)]
    pub config_stat: String,
    /// The session runs with its copy: it began with a `SessionStart` this
    /// hook saw, or its record was lost. A session whose start the hook never
    /// saw (installed while it ran) reads the repository's configuration as
    /// it is, until its next session.
    #[serde(default)]
    pub pinned: bool,
    /// The digest of a changed configuration the user was told about.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub notified: Option<String>,
    /// ADRs and phase plans at the session's first event.
    pub files: BTreeMap<String, FileState>,
    /// The files as the session's hooks last saw them.
    pub seen: BTreeMap<String, FileState>,
    /// Folders that hold ADRs, with their modification times: a new file in
    /// one changes its time.
    pub dirs: BTreeMap<String, i128>,
}

/// The fields of a [`Record`] that decide which configuration an event reads;
/// the rest of the record is skipped, not built.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct RecordHeader {
    #[serde(default)]
    pub config_stat: String,
    #[serde(default)]
    pub pinned: bool,
}

/// Where one session's record lives.
#[derive(Debug, Clone)]
pub struct Store {
    dir: PathBuf,
    stem: String,
}

impl Store {
    /// The store of `session` in the repository at `root`; `None` without a
    /// per-user state folder (no `HOME`).
    pub fn of(root: &Path, session: &str) -> Option<Store> {
        let key = crate::config::protected::repository_key(root);
        let dir = crate::env::state_dir()?.join("sessions").join(key);
        Some(Store {
            dir,
            stem: crate::fs::data_dir::session_stem(session),
        })
    }

    pub(super) fn record_path(&self) -> PathBuf {
        self.dir.join(format!("{}.json", self.stem))
    }

    /// A copy of the session's state file (attempts, touched ADRs), kept
    /// where a wiped `.helix-gate/` does not take it.
    pub(super) fn state_copy_path(&self) -> PathBuf {
        self.dir.join(format!("{}.state.json", self.stem))
    }

    /// The copy of the session's state, when there is one.
    pub fn state_copy(&self) -> Option<Vec<u8>> {
        crate::fs::read::regular(
            &self.state_copy_path(),
            RECORD_LIMIT,
            crate::fs::read::Links::Refuse,
        )
        .ok()
    }

    /// Keep `bytes` as the copy of the session's state (best effort: the
    /// state in the work tree is the one that counts while it is there). Written
    /// in place, without a temporary file and rename: the caller holds the
    /// session's lock, and a torn copy only reads as no copy (its JSON does not
    /// parse).
    pub fn save_state_copy(&self, bytes: &[u8]) {
        use std::io::Write as _;
        if self.ensure().is_err() {
            return;
        }
        let file = crate::fs::confine::open_no_follow(
            &self.state_copy_path(),
            crate::fs::confine::Access::ReadWriteCreate,
        );
        // Written over the old copy and then cut to its length, not truncated to
        // zero first: on ext4 a truncation to zero makes the next close flush the
        // file's data (`auto_da_alloc`), a disk write on every save.
        if let Ok(mut file) = file {
            let _ = file
                .write_all(bytes)
                .and_then(|()| file.set_len(bytes.len() as u64));
        }
    }

    /// The folder with the session's copy of the configuration.
    pub fn config_dir(&self) -> PathBuf {
        self.dir.join(format!("{}.config", self.stem))
    }

    /// The repository's last configuration that loaded (kept across sessions).
    pub(super) fn last_good_dir(&self) -> PathBuf {
        self.dir.join("last-good.config")
    }

    pub(super) fn ensure(&self) -> std::io::Result<()> {
        crate::fs::platform::private_dir(std::fs::DirBuilder::new().recursive(true))
            .create(&self.dir)
    }

    pub(super) fn lock(&self) -> Result<FileLock, StoreError> {
        self.ensure().map_err(|source| StoreError::Create {
            dir: self.dir.clone(),
            source,
        })?;
        FileLock::acquire(
            &self.dir,
            &self.dir.join(format!("{}.lock", self.stem)),
            LOCK_WAIT,
            Release::Keep,
        )
        .map_err(StoreError::Lock)
    }

    pub(super) fn load(&self) -> Option<Record> {
        serde_json::from_slice(&self.read_record()?).ok()
    }

    /// What the record says about the session's configuration, without building
    /// its file maps (the baseline of every ADR: most events do not need it).
    pub(super) fn load_header(&self) -> Option<RecordHeader> {
        // The header is at the start: its first bytes mostly hold it whole, and the
        // rest of a large session's record is never read (nor its pages touched).
        if let Ok(file) =
            crate::fs::read::open_regular(&self.record_path(), crate::fs::read::Links::Refuse)
        {
            let mut head = Vec::with_capacity(HEAD_BYTES);
            if std::io::Read::read_to_end(
                &mut std::io::Read::take(&file, HEAD_BYTES as u64),
                &mut head,
            )
            .is_ok()
                && let Some(header) = header_of(&head)
            {
                return Some(header);
            }
        }
        let bytes = self.read_record()?;
        header_of(&bytes).or_else(|| serde_json::from_slice(&bytes).ok())
    }

    fn read_record(&self) -> Option<Vec<u8>> {
        crate::fs::read::regular(
            &self.record_path(),
            RECORD_LIMIT,
            crate::fs::read::Links::Refuse,
        )
        .ok()
    }

    pub(super) fn save(&self, record: &Record) -> Result<(), StoreError> {
        let bytes = serde_json::to_vec(record).unwrap_or_default();
        crate::fs::atomic::write_with(
            &self.dir,
            &self.record_path(),
            &bytes,
            crate::fs::atomic::Options::FAST,
        )
        .map_err(StoreError::Write)
    }
}

/// How much of a record [`Store::load_header`] reads first.
const HEAD_BYTES: usize = 8 << 10;

/// The header of a record as [`Store::save`] writes it, parsed from the bytes
/// before its file maps: [`Record`]'s fields are written in their order, the
/// header's scalars first, and the key `"files"` cannot occur earlier outside a
/// string (a quote inside a string is escaped). Reading a large session's
/// baseline only to skip it cost more than the rest of a governed write's check.
/// `None` when the record does not have that shape (the caller parses it whole).
fn header_of(bytes: &[u8]) -> Option<RecordHeader> {
    let end = crate::text::find::find(bytes, b",\"files\":")?;
    let mut head = bytes[..end].to_vec();
    head.push(b'}');
    serde_json::from_slice(&head).ok()
}

/// Why the session record could not be locked or written.
#[derive(Debug, thiserror::Error)]
pub(super) enum StoreError {
    #[error("cannot create {}: {source}", dir.display())]
    Create {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot lock the session record: {0}")]
    Lock(#[source] crate::fs::lock::LockError),
    #[error("cannot write the session record: {0}")]
    Write(#[source] std::io::Error),
}

/// Remove session records older than `days` (the session files' retention).
pub(super) fn prune(root: &Path, days: u64) {
    let Some(store) = Store::of(root, "x") else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(&store.dir) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_name() == "last-good.config" {
            continue;
        }
        if older_than(&entry, days) {
            let path = entry.path();
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

/// Whether `entry` was last modified more than `days` ago. `days` is the
/// repository's to set (`hook.state_retention_days`): a huge value keeps
/// everything (it must neither overflow nor wrap to "prune all").
pub(super) fn older_than(entry: &std::fs::DirEntry, days: u64) -> bool {
    let max_age = Duration::from_secs(days.saturating_mul(86_400));
    entry
        .metadata()
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| SystemTime::now().duration_since(t).ok())
        .is_some_and(|age| age > max_age)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_adr_id_number_is_read_from_the_front_matter_lines() {
        for (text, number) in [
            ("---\nadr_id: \"040\"\ntitle: x\n---\n", Some(40)),
            (
                "\u{feff}---\ntitle: x\nadr_id: ADR-7 # the id\n---\n",
                Some(7),
            ),
            ("---\nadr_id: 'XXX'\n---\n", None),
            ("---\ntitle: x\n---\nadr_id: \"040\"\n", None),
            ("# no front matter\nadr_id: 1\n", None),
        ] {
            assert_eq!(adr_number(text.as_bytes()), number, "{text:?}");
        }
    }

    #[test]
    fn the_header_is_read_before_the_file_maps_as_from_the_whole_record() {
        let mut record = Record {
            config_stat: "st,\"files\":x".to_owned(),
            pinned: true,
            notified: Some("n".to_owned()),
            ..Record::default()
        };
        record.dirs.insert("adr".to_owned(), 7);
        let bytes = serde_json::to_vec(&record).unwrap();
        let quick = header_of(&bytes).expect("the header before the maps");
        let whole: RecordHeader = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(
            (quick.config_stat.as_str(), quick.pinned),
            ("st,\"files\":x", true)
        );
        assert_eq!(
            (whole.config_stat, whole.pinned),
            (quick.config_stat, quick.pinned)
        );
        // Another shape: no quick header, the caller parses the whole record.
        assert!(header_of(br#"{"pinned":true}"#).is_none());
    }

    #[test]
    fn a_store_that_cannot_be_made_says_which_step_failed() {
        let dir = tempfile::tempdir().unwrap();
        // A file where the store's folder should be: neither created nor written.
        let blocked = dir.path().join("sessions");
        std::fs::write(&blocked, "x").unwrap();
        let store = Store {
            dir: blocked.clone(),
            stem: "s".to_owned(),
        };
        let err = store.lock().unwrap_err();
        assert!(
            matches!(&err, StoreError::Create { dir, .. } if *dir == blocked),
            "{err}"
        );
        assert!(err.to_string().starts_with("cannot create "), "{err}");
        let err = store.save(&Record::default()).unwrap_err();
        assert!(matches!(err, StoreError::Write(_)), "{err}");
        assert!(
            err.to_string()
                .starts_with("cannot write the session record: "),
            "{err}"
        );
    }
}
