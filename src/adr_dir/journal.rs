//! The finalize journal: the move of a draft, its INDEX.md row and the record in
//! `.helix-gate/finalized.jsonl` ([`super::moves`]) as one recoverable step.
//!
//! Why: a finalize killed between its steps (SIGKILL, power loss) left the ADR
//! moved without its INDEX.md row or without the record the Stop gate follows,
//! and its temporary files in the ADR directory. So finalize writes its intent
//! ([`Intent`]: draft -> target, both contents, INDEX.md before and after, the
//! record) to [`data_dir::FINALIZE_INTENT_PATH`] before its first change and
//! removes it when every step is done. The next `finalize` or `doctor`, under
//! the ADR directory lock, finds an intent left behind and [`recover`]s it.
//!
//! What recovery trusts. The intent file is inside the work tree, where a
//! cloned repository can ship one naming any file as its "draft" (another
//! project's empty `__init__.py`, a `~/.profile` whose text is predictable) and
//! an ADR it also ships as its target; "the draft still has the bytes the
//! intent recorded" would then compare two values of the planted file. So
//! finalize also writes a witness outside every work tree, in helix-gate's
//! per-user state folder ([`crate::env::state_dir`]):
//! `<state folder>/finalize/<repository key>.json` with the SHA-256 of the
//! intent file's exact bytes, before the intent, and removes it after. Recovery
//! acts on an intent only when the witness names this repository and those
//! bytes; any other intent is removed (it is inside `.helix-gate/`, helix-gate's
//! own data) and nothing else is changed, and the notes say so. With no state
//! folder (HOME unset) finalize still works, but nothing can prove its intent:
//! recovery then leaves draft and target for the person and names both.
//!
//! A witnessed intent is still trusted no further than the files agree with it:
//! recovery removes a file only when a copy of the same bytes stays (the draft
//! only once the target holds the finalized content, the target only when the
//! unchanged draft is still there), removes a draft only when it is a regular
//! file (not a symbolic link) whose real location is inside the project, and a
//! target only inside the ADR directory; it writes INDEX.md only when it still
//! has the exact text the intent started from.
//!
//! Recovery also removes the temporary files a killed finalize left: under the
//! ADR directory lock, which every writer of INDEX.md and of the intent holds,
//! those of INDEX.md, of the witnessed intent's target and of the intent itself
//! at any age; other temporary files of [`atomic`] in the ADR directory only
//! once they are older than [`LEFTOVER_AGE`].

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::Workspace;
use crate::fs::read::{self, Links};
use crate::fs::{atomic, confine, data_dir};

/// Temporary files in the ADR directory younger than this may belong to a writer
/// at work and are left alone (unless the ADR directory lock rules that out).
pub const LEFTOVER_AGE: Duration = Duration::from_secs(5);

/// The folder of the witnesses inside the state folder.
pub const WITNESS_DIR: &str = "finalize";

/// An intent, a witness or a draft is read up to this size.
const READ_LIMIT: u64 = 64 << 20;

/// A finalize under way, written before its first change.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Intent {
    /// The draft (absolute).
    pub draft: PathBuf,
    /// The draft's bytes as read, in hex.
    pub original: String,
    /// The ADR created (absolute, in the ADR directory).
    pub target: PathBuf,
    /// The ADR's content as written.
    pub content: String,
    /// INDEX.md's text before (None: it did not exist) and after; None when
    /// INDEX.md is not kept.
    pub index: Option<IndexChange>,
    /// The record's `from` and `to` (relative to the root).
    pub from: String,
    pub to: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IndexChange {
    pub before: Option<String>,
    pub after: String,
}

/// What finalize keeps outside the work tree while its intent exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Witness {
    /// The repository's real path.
    repo: String,
    /// SHA-256 (hex) of the intent file's bytes.
    intent_sha256: String,
}

fn intent_path(root: &Path) -> PathBuf {
    root.join(data_dir::FINALIZE_INTENT_PATH)
}

/// The name of the intent file, whose temporary files recovery removes.
fn intent_name() -> &'static str {
    let path = data_dir::FINALIZE_INTENT_PATH;
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

/// Where the witness of the repository at `root` is kept in `state_dir`.
fn witness_path(state_dir: &Path, root: &Path) -> PathBuf {
    let key = crate::config::protected::repository_key(root);
    state_dir.join(WITNESS_DIR).join(format!("{key}.json"))
}

fn witness_of(root: &Path, intent: &[u8]) -> Witness {
    let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    Witness {
        repo: real.to_string_lossy().into_owned(),
        intent_sha256: crate::text::hex(&Sha256::digest(intent)),
    }
}

/// Write the witness of `intent` (the intent file's bytes) to `state_dir`.
fn write_witness(state_dir: &Path, root: &Path, intent: &[u8]) -> io::Result<()> {
    let path = witness_path(state_dir, root);
    let dir = state_dir.join(WITNESS_DIR);
    crate::fs::platform::private_dir(std::fs::DirBuilder::new().recursive(true)).create(&dir)?;
    let json = serde_json::to_vec(&witness_of(root, intent)).map_err(io::Error::other)?;
    atomic::write_with(
        &dir,
        &path,
        &json,
        atomic::Options::DURABLE.with_mode(0o600),
    )
}

/// Whether the witness in `state_dir` names the repository at `root` and
/// exactly the intent bytes `intent`.
fn witnessed(state_dir: &Path, root: &Path, intent: &[u8]) -> bool {
    read::regular(&witness_path(state_dir, root), READ_LIMIT, Links::Refuse)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Witness>(&bytes).ok())
        .is_some_and(|w| w == witness_of(root, intent))
}

/// Write `intent` (synced) before the first change, and its witness in
/// `state_dir` before it. Without a state folder, or when the witness cannot be
/// written, the finalize goes on; only its recovery then cannot act.
pub fn begin(root: &Path, state_dir: Option<&Path>, intent: &Intent) -> io::Result<()> {
    data_dir::ensure(root)?;
    let json = serde_json::to_vec_pretty(intent).map_err(io::Error::other)?;
    if let Some(state_dir) = state_dir {
        let _ = write_witness(state_dir, root, &json);
    }
    atomic::write(root, &intent_path(root), &json)
}

/// Every step is done (or undone): forget the intent, then its witness.
pub fn end(root: &Path, state_dir: Option<&Path>) -> io::Result<()> {
    remove_if_exists(&intent_path(root))?;
    if let Some(state_dir) = state_dir {
        remove_if_exists(&witness_path(state_dir, root))?;
    }
    Ok(())
}

fn remove_if_exists(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Whether [`recover`] may have something to do: an intent left behind, or a
/// file named like a temporary file of [`atomic`] in the ADR directory (or one
/// of the intent's in `.helix-gate/`). Cheap (one stat, two directory
/// listings), and it takes no lock.
pub fn pending(ws: &Workspace) -> bool {
    let root = &ws.engine.root;
    let any_temporary = |dir: &Path, of: Option<&str>| {
        std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                atomic::temporary_target(&e.file_name().to_string_lossy())
                    .is_some_and(|target| of.is_none_or(|of| of == target))
            })
        })
    };
    std::fs::symlink_metadata(intent_path(root)).is_ok()
        || any_temporary(&ws.dir, None)
        || data_dir::existing_dir(root, data_dir::DIR)
            .is_some_and(|dir| any_temporary(&dir, Some(intent_name())))
}

/// Whether the intent left behind can be acted on.
enum Proof {
    /// Its witness matches.
    Witnessed,
    /// There is no state folder to hold a witness.
    NoStateDir,
    /// No witness, or another one.
    NotOurs,
}

/// Finish or undo a finalize that was interrupted, and remove the temporary
/// files a killed finalize left. Call it under the ADR directory lock. Returns
/// what was done, for the person.
pub fn recover(ws: &Workspace) -> Vec<String> {
    let root = &ws.engine.root;
    let state_dir = ws.state_dir.as_deref();
    let path = intent_path(root);
    let bytes = read::regular(&path, READ_LIMIT, Links::Refuse).ok();
    let parsed = bytes
        .as_deref()
        .map(|bytes| (serde_json::from_slice::<Intent>(bytes), proof(ws, bytes)));
    let target_name = match &parsed {
        Some((Ok(intent), Proof::Witnessed)) => intent
            .target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned()),
        _ => None,
    };
    let mut owned = vec![super::index_table::INDEX_FILE];
    owned.extend(target_name.as_deref());
    let mut notes = removed_notes(
        ws,
        &ws.dir,
        atomic::remove_leftovers(
            &ws.dir,
            atomic::Leftovers {
                owned: &owned,
                older_than: Some(LEFTOVER_AGE),
            },
        ),
    );
    if let Some(dir) = data_dir::existing_dir(root, data_dir::DIR) {
        let intent_temps = atomic::remove_leftovers(
            &dir,
            atomic::Leftovers {
                owned: &[intent_name()],
                older_than: None,
            },
        );
        notes.extend(removed_notes(ws, &root.join(data_dir::DIR), intent_temps));
    }
    let Some((intent, proof)) = parsed else {
        if std::fs::symlink_metadata(&path).is_err()
            && let Some(state_dir) = state_dir
        {
            // A witness whose finalize was killed right after removing its intent.
            let _ = remove_if_exists(&witness_path(state_dir, root));
        }
        return notes;
    };
    let intent_file = data_dir::FINALIZE_INTENT_PATH;
    let note = match (intent, proof) {
        (Err(e), _) => format!("removed {intent_file}: not a finalize intent ({e})"),
        (Ok(intent), Proof::Witnessed) => resume(ws, &intent),
        (Ok(intent), Proof::NotOurs) => format!(
            "removed {intent_file}: it was not written by helix-gate's finalize in this repository (no matching record in helix-gate's state folder), so nothing it names was changed ({} -> {}); if a finalize of yours was interrupted, keep the one of the two you want and run `helix-gate index --write`",
            ws.display(&intent.draft),
            ws.display(&intent.target)
        ),
        (Ok(intent), Proof::NoStateDir) => format!(
            "removed {intent_file} without acting on it: helix-gate has no per-user state folder (set HOME, XDG_STATE_HOME or {}) to prove the interrupted finalize of {} -> {} was its own; nothing else was changed: keep the one of the two you want and run `helix-gate index --write`",
            crate::env::HELIX_GATE_STATE_DIR,
            ws.display(&intent.draft),
            ws.display(&intent.target)
        ),
    };
    notes.push(note);
    if let Err(e) = end(root, state_dir) {
        notes.push(format!("cannot remove {intent_file}: {e}"));
    }
    notes
}

fn proof(ws: &Workspace, intent: &[u8]) -> Proof {
    match &ws.state_dir {
        None => Proof::NoStateDir,
        Some(state_dir) if witnessed(state_dir, &ws.engine.root, intent) => Proof::Witnessed,
        Some(_) => Proof::NotOurs,
    }
}

fn removed_notes(ws: &Workspace, dir: &Path, names: Vec<String>) -> Vec<String> {
    names
        .into_iter()
        .map(|name| {
            format!(
                "removed {}/{name}, a temporary file an interrupted helix-gate left",
                ws.display(dir)
            )
        })
        .collect()
}

/// A file recovery may remove: a regular file (not a symbolic link) whose real
/// location is inside `within`; its bytes. `Err(true)`: there is nothing at
/// `path`; `Err(false)`: something recovery leaves alone.
fn removable(within: &Path, path: &Path) -> Result<Vec<u8>, bool> {
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => Err(true),
        Ok(meta) if meta.file_type().is_file() && confine::inside(within, path) => {
            read::regular(path, READ_LIMIT, Links::Refuse).map_err(|_| false)
        }
        _ => Err(false),
    }
}

/// Finish a witnessed `intent` when its ADR was created, else undo it; what was done.
fn resume(ws: &Workspace, intent: &Intent) -> String {
    let root = &ws.engine.root;
    let draft = ws.display(&intent.draft);
    let target = ws.display(&intent.target);
    let in_dir = intent.target.parent() == Some(ws.dir.as_path());
    let original = crate::text::unhex(&intent.original);
    let target_now = if in_dir {
        removable(root, &intent.target).ok()
    } else {
        None
    };
    let created = target_now.as_deref() == Some(intent.content.as_bytes());
    if !created {
        return format!(
            "an interrupted finalize of {draft} had not created {target} yet; nothing was changed, {draft} is still the draft"
        );
    }
    let draft_now = removable(root, &intent.draft);
    let mut done = Vec::new();
    match &draft_now {
        Ok(bytes) if Some(bytes) != original.as_ref() => {
            // The draft was edited since: it wins, the copy goes.
            let _ = std::fs::remove_file(&intent.target);
            return format!(
                "an interrupted finalize of {draft} was undone ({draft} was edited since; {target} removed)"
            );
        }
        Ok(_) => {
            if let Err(e) = std::fs::remove_file(&intent.draft) {
                return format!(
                    "cannot finish the interrupted finalize of {draft} -> {target}: {e}"
                );
            }
            done.push(format!(
                "finished the interrupted finalize of {draft} -> {target}"
            ));
        }
        Err(true) => done.push(format!(
            "finished the interrupted finalize of {draft} -> {target}"
        )),
        Err(false) => done.push(format!(
            "finished the interrupted finalize of {draft} -> {target}, but left {draft} as it is (not a regular file inside the project); remove it if it is the draft"
        )),
    }
    if let Some(index) = &intent.index {
        let index_path = ws.index_path();
        let shown = ws.display(&index_path);
        let now = super::read_optional(&index_path).ok().flatten();
        if now.as_deref() == Some(index.after.as_str()) {
            // Already replaced before the interruption.
        } else if now == index.before {
            match atomic::write(root, &index_path, index.after.as_bytes()) {
                Ok(()) => done.push(format!("its row added to {shown}")),
                Err(e) => done.push(format!(
                    "cannot update {shown} ({e}): run `helix-gate index --write`"
                )),
            }
        } else {
            done.push(format!(
                "{shown} changed meanwhile: run `helix-gate index --write`"
            ));
        }
    }
    if super::moves::destination(root, &intent.from).as_deref() != Some(intent.to.as_str())
        && let Err(e) = super::moves::record(root, &intent.from, &intent.to)
    {
        done.push(format!(
            "cannot record the move in {} ({e})",
            data_dir::FINALIZED_PATH
        ));
    }
    done.join("; ")
}
