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

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::changes;
use super::store::{Origin, Record, Store};
use crate::config::protected::Snapshot;
use crate::config::{AdrMatcher, Settings};

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
    /// The record as this event found or made it: read on first use when the
    /// event needed only its header ([`SessionConfig::record`]).
    record: OnceLock<Option<Record>>,
}

impl SessionConfig {
    /// The session's record (its baseline of ADRs, what its hooks last saw),
    /// read from the store on first use; `None` without a store or record.
    pub fn record(&self) -> Option<&Record> {
        self.record
            .get_or_init(|| self.store.as_ref().and_then(Store::load))
            .as_ref()
    }
}

/// Where in its session the event this process answers stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// `SessionStart`: the session's first event.
    First,
    /// The end of a turn; `registered`: the hook is registered for the agent
    /// where the session runs (user scope, or the project's own settings), so
    /// the session's `SessionStart` reached it and a missing record was lost.
    Stop { registered: bool },
    /// Any other event.
    Other,
}

/// Open (or make) the session's record and decide which configuration it runs
/// with (once per event: the event's context keeps it, `super::ctx`).
pub(super) fn open(root: &Path, session: &str, moment: Moment) -> SessionConfig {
    let mut config = SessionConfig {
        config_root: root.to_path_buf(),
        message: None,
        note: None,
        store: None,
        record: OnceLock::from(None),
    };
    let Some(store) = Store::of(root, session) else {
        config.note = Some(
            "no per-user state folder (HOME unset): the session's configuration and baseline cannot be kept; using the repository's files as they are".to_owned(),
        );
        return config;
    };
    // The common case reads no file of the configuration: a session that reads
    // the repository's own files (not pinned), or whose configuration has the
    // same `stat` as when it was last compared (records are replaced by rename,
    // so a read never sees half of one).
    let stats = crate::config::protected::stat_fingerprint(root);
    if let Some(header) = store.load_header()
        && (!header.pinned || header.config_stat == stats)
    {
        // The record itself is read when something needs it.
        if header.pinned && store.config_dir().is_dir() {
            config.config_root = store.config_dir();
        }
        config.record = OnceLock::new();
        config.store = Some(store);
        return config;
    }
    let record = {
        let _lock = match store.lock() {
            Ok(lock) => lock,
            Err(e) => {
                config.note = Some(e.to_string());
                return config;
            }
        };
        let now = Snapshot::read(root);
        let digest = now.digest();
        match store.load() {
            Some(mut record) => {
                if record.pinned && record.config_digest != digest {
                    adopt_or_keep(root, &store, &mut record, &now, &digest, &mut config);
                }
                if record.config_digest == digest && record.config_stat != stats {
                    // Touched, not changed: the next event needs no read.
                    record.config_stat = stats;
                    let _ = store.save(&record);
                }
                record
            }
            None => new_record(
                root,
                session,
                &store,
                (&now, &digest, &stats),
                moment,
                &mut config,
            ),
        }
    };
    if record.pinned && store.config_dir().is_dir() {
        config.config_root = store.config_dir();
    }
    config.record = OnceLock::from(Some(record));
    config.store = Some(store);
    config
}

/// The record of a session met for the first time: taken now, pinned to its
/// configuration when this is its `SessionStart`, or when the record was lost:
/// the session already has a state file, or this is its Stop in a repository
/// with a registration (every agent helix-gate registers for sends
/// `SessionStart` first, so such a Stop without a record means both stores were
/// wiped, or the session began before helix-gate was installed). A lost record's Stop also checks what differs from `HEAD`,
/// and the user is told. Any other first event without a state file is a
/// session that began before helix-gate was installed: it reads the
/// repository's files.
fn new_record(
    root: &Path,
    session: &str,
    store: &Store,
    (now, digest, stats): (&Snapshot, &str, &str),
    moment: Moment,
    config: &mut SessionConfig,
) -> Record {
    let first_event = moment == Moment::First;
    let lost = moment == (Moment::Stop { registered: true })
        || (!first_event
            && crate::fs::data_dir::session_files(root, session)
                .state
                .exists());
    let mut record = start(root, store, now, digest, lost, config);
    record.pinned = lost || first_event;
    // A lost record runs with the last good configuration, which is not what
    // lies on disk: no fingerprint, so every event compares the bytes.
    if record.config_digest == digest {
        stats.clone_into(&mut record.config_stat);
    }
    if let Err(e) = store.save(&record) {
        config.note = Some(e.to_string());
    }
    if lost {
        config.message = Some(
            "helix-gate: this session's baseline was missing (its state folder was removed, or the session began before helix-gate was installed); a new one was taken now, and the Stop gate also checks every ADR that differs from HEAD.".to_owned(),
        );
    }
    record
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
        if loads_cleanly(root) {
            let _ = now.write_to(&store.last_good_dir());
        }
        config.note =
            Some("configuration changed and trusted by `helix-gate trust`: adopted".to_owned());
        return;
    }
    if record.notified.as_deref() == Some(digest) {
        return;
    }
    let old = Snapshot::read(&store.config_dir());
    let changed = crate::text::escape_controls(&old.changed_files(now).join(", ")).into_owned();
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

/// The settings of the repository's last good configuration (one that loaded
/// with no value falling back), if there is one.
pub fn last_good_settings(config: &SessionConfig) -> Option<Settings> {
    let store = config.store.as_ref()?;
    Settings::load(&store.last_good_dir())
        .ok()
        .filter(|s| s.problems.is_empty())
}

/// Whether the configuration at `dir` loads (settings and rules).
fn loads(dir: &Path) -> bool {
    Settings::load(dir)
        .ok()
        .is_some_and(|s| crate::config::load_rules_for(dir, None, s.preset).is_ok())
}

/// Whether it loads with no settings value falling back: only such a
/// configuration becomes the last good one.
fn loads_cleanly(dir: &Path) -> bool {
    Settings::load(dir).ok().is_some_and(|s| {
        s.problems.is_empty() && crate::config::load_rules_for(dir, None, s.preset).is_ok()
    })
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
    } else if loads_cleanly(root) {
        let _ = now.write_to(&store.last_good_dir());
    }
    if let Err(e) = snapshot.write_to(&store.config_dir()) {
        config.note = Some(format!("cannot keep the session's configuration: {e}"));
    }
    let mut record = Record {
        origin: if lost {
            Origin::Recovered
        } else {
            Origin::Start
        },
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
        let files = changes::scan(root, &matcher);
        record.dirs = changes::dirs_of(root, &files, &matcher);
        record.seen.clone_from(&files);
        record.files = files;
    }
    if let Err(e) = store.save(&record) {
        config.note = Some(e.to_string());
    }
    record
}

/// The ADR matcher of the configuration at `config_root`.
fn matcher_at(config_root: &Path) -> Option<AdrMatcher> {
    Settings::load(config_root).ok()?.adr_matcher().ok()
}
