//! What a session started from, kept outside the work tree where a `rm -rf
//! .helix-gate` cannot take it: `<state dir>/sessions/<repository key>/`
//! (see [`crate::env::state_dir`], the folder of the signing key).
//!
//! Per session, three things:
//! - **its configuration**: a copy of helix-gate's own files as they were at the
//!   session's first event ([`protected::Snapshot`]). Every decision of the
//!   session reads its settings, rules and reviewer instructions from that copy,
//!   so a session cannot switch its own gate off by writing them: a change is
//!   noticed at the next event that reads the configuration, the user is told
//!   once, and it takes effect in the next session, or at once after a person
//!   runs `helix-gate trust` for it.
//! - **its baseline**: the content (size, times, inode, SHA-256) of every ADR
//!   and phase plan at the session's first event. The Stop gate checks every
//!   file whose content differs from it, however it changed (Write, Edit, a
//!   Bash heredoc, `sed -i`, `cp`, a write through a linked folder). A file
//!   that was broken before the session and that the session left alone is not
//!   held against it.
//! - **what the session last saw** (`seen`): the Bash hook compares the files
//!   against it with a `stat` each, and checks on the spot only what changed.
//!
//! When the record is gone anyway (the state folder was wiped, or the session
//! began before helix-gate was installed), a new one is made at once and marked
//! `recovered`: its Stop also checks every ADR that differs from `HEAD`, and the
//! user is told.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use crate::config::protected::{self, Snapshot};
use crate::config::{AdrMatcher, Settings};
use crate::fs::lock::{FileLock, Release};

/// How long to wait for another hook process of the same session.
const LOCK_WAIT: Duration = Duration::from_secs(5);
/// The largest record read (a repository of many thousands of ADRs).
const RECORD_LIMIT: u64 = 64 << 20;
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
}

impl FileState {
    fn stat(path: &Path) -> Option<(u64, i128, i128, u64)> {
        let meta = std::fs::metadata(path).ok()?;
        meta.is_file().then(|| {
            (
                meta.len(),
                i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
                i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
                meta.ino(),
            )
        })
    }

    /// The file at `path` now (`None` when it is gone or not a regular file).
    fn read(path: &Path) -> Option<FileState> {
        let (len, mtime, ctime, ino) = FileState::stat(path)?;
        let hash = if len <= HASH_LIMIT {
            crate::fs::read::read_limited(path, HASH_LIMIT)
                .ok()
                .map(|bytes| protected::hex(&Sha256::digest(&bytes)))
                .unwrap_or_default()
        } else {
            String::new()
        };
        Some(FileState {
            len,
            mtime,
            ctime,
            ino,
            hash,
        })
    }

    /// Whether a `stat` says the file is as it was (no read needed).
    fn same_stat(&self, path: &Path) -> bool {
        FileState::stat(path) == Some((self.len, self.mtime, self.ctime, self.ino))
    }

    /// Whether the content equals `other`'s (by hash; by size and times when
    /// either could not be hashed).
    fn same_content(&self, other: &FileState) -> bool {
        if self.hash.is_empty() || other.hash.is_empty() {
            return self.len == other.len && self.mtime == other.mtime;
        }
        self.hash == other.hash
    }
}

/// The session's record.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Record {
    pub origin: Origin,
    pub started: String,
    /// The digest of the configuration the session runs with (its copy).
    pub config_digest: String,
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
        let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        let key = protected::hex(&Sha256::digest(real.as_os_str().as_encoded_bytes()));
        let dir = crate::env::state_dir()?.join("sessions").join(&key[..32]);
        Some(Store {
            dir,
            stem: crate::fs::data_dir::session_stem(session),
        })
    }

    fn record_path(&self) -> PathBuf {
        self.dir.join(format!("{}.json", self.stem))
    }

    /// A copy of the session's state file (attempts, touched ADRs), kept
    /// where a wiped `.helix-gate/` does not take it.
    fn state_copy_path(&self) -> PathBuf {
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
    /// state in the work tree is the one that counts while it is there).
    pub fn save_state_copy(&self, bytes: &[u8]) {
        if self.ensure().is_ok() {
            let _ = crate::fs::atomic::write_with(
                &self.dir,
                &self.state_copy_path(),
                bytes,
                crate::fs::atomic::Options::FAST,
            );
        }
    }

    /// The folder with the session's copy of the configuration.
    pub fn config_dir(&self) -> PathBuf {
        self.dir.join(format!("{}.config", self.stem))
    }

    /// The repository's last configuration that loaded (kept across sessions).
    fn last_good_dir(&self) -> PathBuf {
        self.dir.join("last-good.config")
    }

    fn ensure(&self) -> std::io::Result<()> {
        use std::os::unix::fs::DirBuilderExt as _;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(&self.dir)
    }

    fn lock(&self) -> Result<FileLock, String> {
        self.ensure()
            .map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
        FileLock::acquire(
            &self.dir,
            &self.dir.join(format!("{}.lock", self.stem)),
            LOCK_WAIT,
            Release::Keep,
        )
        .map_err(|e| format!("cannot lock the session record: {e}"))
    }

    fn load(&self) -> Option<Record> {
        let bytes = crate::fs::read::regular(
            &self.record_path(),
            RECORD_LIMIT,
            crate::fs::read::Links::Refuse,
        )
        .ok()?;
        serde_json::from_slice(&bytes).ok()
    }

    fn save(&self, record: &Record) -> Result<(), String> {
        let bytes = serde_json::to_vec(record).unwrap_or_default();
        crate::fs::atomic::write_with(
            &self.dir,
            &self.record_path(),
            &bytes,
            crate::fs::atomic::Options::FAST,
        )
        .map_err(|e| format!("cannot write the session record: {e}"))
    }
}

/// The configuration one event decides with.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// Where the settings, rules and reviewer instructions are read: the
    /// session's copy, or the repository itself when there is no store.
    pub config_root: PathBuf,
    /// For the user, once: the configuration changed during the session, or
    /// the record was missing.
    pub message: Option<String>,
    /// For stderr and the log.
    pub note: Option<String>,
    pub store: Option<Store>,
    /// The record as this event found or made it.
    pub record: Option<Record>,
    /// The record was made by this event (not at the session's first one).
    pub recovered_now: bool,
}

/// The one event this process answers: its configuration is worked out once.
static CURRENT: OnceLock<SessionConfig> = OnceLock::new();
/// The session of that event and whether it is its first (`SessionStart`).
static EVENT: OnceLock<(String, bool)> = OnceLock::new();

/// Name the session of the event this process answers (before any decision).
pub fn set_event(session: &str, first_event: bool) {
    let _ = EVENT.set((session.to_owned(), first_event));
}
/// The user message of [`CURRENT`], taken by the dispatcher.
static MESSAGE: Mutex<Option<String>> = Mutex::new(None);

/// The configuration of this event's session (worked out on first use: the
/// no-op path never gets here).
pub fn current(root: &Path) -> &'static SessionConfig {
    CURRENT.get_or_init(|| {
        let (session, first_event) = EVENT
            .get()
            .cloned()
            .unwrap_or_else(|| ("unknown-session".to_owned(), false));
        let config = open(root, &session, first_event);
        if let Some(message) = &config.message {
            *MESSAGE.lock().unwrap_or_else(PoisonError::into_inner) = Some(message.clone());
        }
        config
    })
}

/// This event's configuration, if it was worked out.
pub fn peek() -> Option<&'static SessionConfig> {
    CURRENT.get()
}

/// The user message of this event's configuration, once.
pub fn take_message() -> Option<String> {
    MESSAGE
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .take()
}

/// The configuration root of this event, if it was worked out.
pub fn config_root(root: &Path) -> PathBuf {
    CURRENT
        .get()
        .map_or_else(|| root.to_path_buf(), |c| c.config_root.clone())
}

/// Open (or make) the session's record and decide which configuration it runs with.
fn open(root: &Path, session: &str, first_event: bool) -> SessionConfig {
    let mut config = SessionConfig {
        config_root: root.to_path_buf(),
        message: None,
        note: None,
        store: None,
        record: None,
        recovered_now: false,
    };
    let Some(store) = Store::of(root, session) else {
        config.note = Some(
            "no per-user state folder (HOME unset): the session's configuration and baseline cannot be kept; using the repository's files as they are".to_owned(),
        );
        return config;
    };
    let _lock = match store.lock() {
        Ok(lock) => lock,
        Err(e) => {
            config.note = Some(e);
            return config;
        }
    };
    let now = Snapshot::read(root);
    let digest = now.digest();
    let record = if let Some(mut record) = store.load() {
        if record.pinned && record.config_digest != digest {
            adopt_or_keep(root, &store, &mut record, &now, &digest, &mut config);
        }
        record
    } else {
        {
            let origin = if first_event {
                Origin::Start
            } else {
                Origin::Recovered
            };
            // Told only where a record surely existed: the session already
            // has its state file (a first event that is not SessionStart is
            // also a session that began before helix-gate was installed).
            let lost = origin == Origin::Recovered
                && crate::fs::data_dir::session_files(root, session)
                    .state
                    .exists();
            let record = start(root, &store, &now, &digest, lost, &mut config);
            // Only a lost record falls back to HEAD: a session whose start was
            // not seen would otherwise be held to a person's drafts in progress.
            let origin = if lost {
                Origin::Recovered
            } else {
                Origin::Start
            };
            let record = Record { origin, ..record };
            config.recovered_now = lost;
            let mut record = record;
            record.pinned = lost || first_event;
            if let Err(e) = store.save(&record) {
                config.note = Some(e);
            }
            if lost {
                config.message = Some(
                    "helix-gate: this session's baseline was missing (its state folder was removed, or the session began before helix-gate was installed); a new one was taken now, and the Stop gate also checks every ADR that differs from HEAD.".to_owned(),
                );
            }
            record
        }
    };
    if record.pinned && store.config_dir().is_dir() {
        config.config_root = store.config_dir();
    }
    config.record = Some(record);
    config.store = Some(store);
    config
}

/// The configuration changed since the session took its copy: adopt it when a
/// person trusted exactly this configuration since, else keep the copy and
/// tell the user once.
fn adopt_or_keep(
    root: &Path,
    store: &Store,
    record: &mut Record,
    now: &Snapshot,
    digest: &str,
    config: &mut SessionConfig,
) {
    let trusted = crate::config::trust::state(root, digest);
    if let crate::config::trust::TrustState::Trusted { at } = trusted
        && at >= record.started
        && loads(root)
        && now.write_to(&store.config_dir()).is_ok()
    {
        digest.clone_into(&mut record.config_digest);
        record.notified = None;
        let _ = store.save(record);
        let _ = now.write_to(&store.last_good_dir());
        config.note =
            Some("configuration changed and trusted by `helix-gate trust`: adopted".to_owned());
        return;
    }
    if record.notified.as_deref() == Some(digest) {
        return;
    }
    let old = Snapshot::read(&store.config_dir());
    let changed = old.changed_files(now).join(", ");
    config.message = Some(format!(
        "helix-gate: {changed} changed during this session. This session keeps the configuration it started with; the change takes effect in the next session, or now if you run `helix-gate trust` in {}.",
        root.display()
    ));
    record.notified = Some(digest.to_owned());
    let _ = store.save(record);
}

/// The failure policy when the session's configuration does not load: the
/// repository's last configuration that did decides (never "open" by default
/// because the file that set `fail_closed` just broke).
pub fn last_good_fail_closed(config: &SessionConfig) -> bool {
    config
        .store
        .as_ref()
        .and_then(|store| Settings::load(&store.last_good_dir()).ok())
        .is_some_and(|s| s.hook.fail_closed)
}

/// Whether the configuration at `dir` loads (settings and rules).
fn loads(dir: &Path) -> bool {
    Settings::load(dir)
        .ok()
        .is_some_and(|s| crate::config::load_rules_for(dir, None, s.preset).is_ok())
}

/// A new record: the configuration's copy (the last good one when the current
/// one does not load and this is a recovery) and the baseline of the files.
fn start(
    root: &Path,
    store: &Store,
    now: &Snapshot,
    digest: &str,
    lost: bool,
    config: &mut SessionConfig,
) -> Record {
    let mut snapshot = now.clone();
    let mut digest = digest.to_owned();
    if lost && store.last_good_dir().is_dir() {
        // The record was lost: the configuration may have been changed since
        // the session began, so the last one a session started with decides.
        snapshot = Snapshot::read(&store.last_good_dir());
        digest = snapshot.digest();
    } else if loads(root) {
        let _ = now.write_to(&store.last_good_dir());
    }
    if let Err(e) = snapshot.write_to(&store.config_dir()) {
        config.note = Some(format!("cannot keep the session's configuration: {e}"));
    }
    let mut record = Record {
        origin: Origin::Recovered,
        started: crate::clock::now_rfc3339(),
        config_digest: digest,
        ..Record::default()
    };
    let config_root = if store.config_dir().is_dir() {
        store.config_dir()
    } else {
        root.to_path_buf()
    };
    if let Some(matcher) = matcher_at(&config_root) {
        let files = scan(root, &matcher);
        record.dirs = dirs_of(root, &files, &matcher);
        record.seen.clone_from(&files);
        record.files = files;
    }
    if let Err(e) = store.save(&record) {
        config.note = Some(e);
    }
    record
}

/// The ADR matcher of the configuration at `config_root`.
fn matcher_at(config_root: &Path) -> Option<AdrMatcher> {
    Settings::load(config_root).ok()?.adr_matcher().ok()
}

/// Whether `rel` is a file the baseline covers: an ADR or a phase plan.
pub fn covered(matcher: &AdrMatcher, rel: &str) -> bool {
    matcher.is_adr(rel) || super::phases::is_plan(rel)
}

/// Every covered file below `root`, with its content.
fn scan(root: &Path, matcher: &AdrMatcher) -> BTreeMap<String, FileState> {
    let mut out = BTreeMap::new();
    let _ = crate::engine::walk(root, &mut |path| {
        if let Some(rel) = crate::paths::relative_to(root, path)
            && covered(matcher, &rel)
            && crate::fs::confine::inside(root, path)
            && let Some(state) = FileState::read(path)
        {
            out.insert(rel, state);
        }
    });
    out
}

/// The folders watched for new files: those holding a covered file, and the
/// literal start of every glob that exists (`adr/` for `adr/**/*.md`).
fn dirs_of(
    root: &Path,
    files: &BTreeMap<String, FileState>,
    matcher: &AdrMatcher,
) -> BTreeMap<String, i128> {
    let mut dirs: Vec<String> = files
        .keys()
        .map(|rel| rel.rsplit_once('/').map_or("", |(dir, _)| dir).to_owned())
        .collect();
    for prefix in matcher.literal_prefixes() {
        dirs.push(prefix);
    }
    dirs.sort();
    dirs.dedup();
    dirs.into_iter()
        .filter_map(|dir| dir_mtime(root, &dir).map(|t| (dir, t)))
        .collect()
}

fn dir_mtime(root: &Path, dir: &str) -> Option<i128> {
    let meta = std::fs::metadata(root.join(dir)).ok()?;
    meta.is_dir()
        .then(|| i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()))
}

/// The covered files whose content differs from the session's baseline now
/// (new ones included, deleted ones not), by a walk of the repository: a `stat`
/// per file, a read only where the `stat` changed.
pub fn changed_since_start(root: &Path, record: &Record, matcher: &AdrMatcher) -> Vec<String> {
    let mut out = Vec::new();
    let _ = crate::engine::walk(root, &mut |path| {
        let Some(rel) = crate::paths::relative_to(root, path) else {
            return;
        };
        if !covered(matcher, &rel) {
            return;
        }
        match record.files.get(&rel) {
            Some(before) if before.same_stat(path) => {}
            Some(before) => {
                if !FileState::read(path).is_some_and(|now| now.same_content(before)) {
                    out.push(rel);
                }
            }
            None => out.push(rel),
        }
    });
    out.sort();
    out
}

/// What the session changed since its hooks last looked (the Bash hook):
/// files whose `stat` changed and whose content differs from what was seen,
/// new files in watched folders, and `candidates` (paths named by the
/// command). `None` when nothing changed: the caller did no more than a
/// `stat` per watched file and folder. Updates what was seen.
pub fn changed_since_seen(
    root: &Path,
    config: &SessionConfig,
    candidates: &[String],
    matcher: impl FnOnce() -> Option<AdrMatcher>,
) -> Result<Option<Vec<String>>, String> {
    let (Some(store), Some(record)) = (&config.store, &config.record) else {
        return Ok(None);
    };
    // Cheap first: is anything different at all?
    let files_moved = record
        .seen
        .iter()
        .any(|(rel, seen)| !seen.same_stat(&root.join(rel)));
    let dirs_moved = record
        .dirs
        .iter()
        .any(|(dir, t)| dir_mtime(root, dir) != Some(*t));
    let named: Vec<&String> = candidates
        .iter()
        .filter(|rel| match record.seen.get(*rel) {
            Some(seen) => !seen.same_stat(&root.join(rel)),
            None => root.join(rel).is_file(),
        })
        .collect();
    if !files_moved && !dirs_moved && named.is_empty() {
        return Ok(None);
    }
    let Some(matcher) = matcher() else {
        return Ok(None);
    };
    let _lock = store.lock()?;
    let mut record = store.load().unwrap_or_else(|| record.clone());
    let mut look: Vec<String> = record.seen.keys().cloned().collect();
    for (dir, t) in record.dirs.clone() {
        if dir_mtime(root, &dir) == Some(t) {
            continue;
        }
        if let Ok(entries) = std::fs::read_dir(root.join(&dir)) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                let rel = if dir.is_empty() {
                    name.to_owned()
                } else {
                    format!("{dir}/{name}")
                };
                if covered(&matcher, &rel) {
                    look.push(rel);
                }
            }
        }
        if let Some(t) = dir_mtime(root, &dir) {
            record.dirs.insert(dir, t);
        }
    }
    look.extend(named.into_iter().cloned());
    look.sort();
    look.dedup();
    let mut changed = Vec::new();
    for rel in look {
        let path = root.join(&rel);
        if !covered(&matcher, &rel) || !crate::fs::confine::inside(root, &path) {
            continue;
        }
        let before = record.seen.get(&rel);
        if before.is_some_and(|b| b.same_stat(&path)) {
            continue;
        }
        match FileState::read(&path) {
            Some(now) => {
                if !before.is_some_and(|b| b.same_content(&now)) {
                    changed.push(rel.clone());
                }
                if let Some(dir) = rel.rsplit_once('/').map(|(d, _)| d.to_owned())
                    && !record.dirs.contains_key(&dir)
                    && let Some(t) = dir_mtime(root, &dir)
                {
                    record.dirs.insert(dir, t);
                }
                record.seen.insert(rel, now);
            }
            None => {
                record.seen.remove(&rel);
            }
        }
    }
    store.save(&record)?;
    Ok(Some(changed))
}

/// The ADRs that differ from `HEAD` (modified, added, untracked), by `git
/// status`; for a recovered record, whose baseline came late. Empty outside git.
pub fn changed_since_head(root: &Path, matcher: &AdrMatcher) -> Vec<String> {
    let mut command = std::process::Command::new("git");
    command
        .args([
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
        ])
        .current_dir(root)
        .env("GIT_OPTIONAL_LOCKS", "0");
    let limits = crate::process::Limits {
        timeout: Duration::from_secs(10),
        stdout_cap: 16 << 20,
        stderr_cap: 4096,
    };
    let Ok(done) = crate::process::run(command, &limits, &mut |_| {}) else {
        return Vec::new();
    };
    if !done.status.is_some_and(|s| s.success()) {
        return Vec::new();
    }
    let mut out: Vec<String> = done
        .stdout
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = std::str::from_utf8(entry).ok()?;
            let (status, path) = (entry.get(..2)?, entry.get(3..)?);
            (!status.contains('D') && covered(matcher, path)).then(|| path.to_owned())
        })
        .collect();
    out.sort();
    out
}

/// Remove session records older than `days` (the session files' retention).
pub fn prune(root: &Path, days: u64) {
    let Some(store) = Store::of(root, "x") else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(&store.dir) else {
        return;
    };
    let max_age = Duration::from_secs(days.saturating_mul(86_400));
    for entry in entries.flatten() {
        let name = entry.file_name();
        if name == "last-good.config" {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| SystemTime::now().duration_since(t).ok())
            .is_some_and(|age| age > max_age);
        if old {
            let path = entry.path();
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}
