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
//! The intent file is writable by anything in the repository, so recovery
//! never trusts it further than the files agree with it: it removes a file only
//! when a copy of the same bytes stays (the draft only once the target holds
//! the finalized content, the target only when the unchanged draft is still
//! there), writes INDEX.md only when it still has the exact text the intent
//! started from, and acts only on the ADR directory's own INDEX.md and on a
//! target inside the ADR directory.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::Workspace;
use crate::fs::{atomic, data_dir};

/// Temporary files in the ADR directory younger than this may belong to a writer
/// at work and are left alone.
pub const LEFTOVER_AGE: Duration = Duration::from_secs(5);

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

fn intent_path(root: &Path) -> PathBuf {
    root.join(data_dir::FINALIZE_INTENT_PATH)
}

/// Write `intent` (synced) before the first change.
pub fn begin(root: &Path, intent: &Intent) -> std::io::Result<()> {
    data_dir::ensure(root)?;
    let json = serde_json::to_vec_pretty(intent).map_err(std::io::Error::other)?;
    atomic::write(root, &intent_path(root), &json)
}

/// Every step is done (or undone): forget the intent.
pub fn end(root: &Path) -> std::io::Result<()> {
    match std::fs::remove_file(intent_path(root)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Whether [`recover`] may have something to do: an intent left behind, or a file
/// in the ADR directory named like a temporary file of [`atomic`]. Cheap (one stat,
/// one directory listing), and it takes no lock.
pub fn pending(ws: &Workspace) -> bool {
    std::fs::symlink_metadata(intent_path(&ws.engine.root)).is_ok()
        || std::fs::read_dir(&ws.dir).is_ok_and(|entries| {
            entries
                .flatten()
                .any(|e| atomic::is_temporary_name(&e.file_name().to_string_lossy()))
        })
}

/// Finish or undo a finalize that was interrupted, and remove the temporary
/// files a killed writer left in the ADR directory. Call it under the ADR
/// directory lock. Returns what was done, for the person.
pub fn recover(ws: &Workspace) -> Vec<String> {
    let root = &ws.engine.root;
    let mut notes: Vec<String> = atomic::remove_leftovers(&ws.dir, LEFTOVER_AGE)
        .into_iter()
        .map(|name| {
            format!(
                "removed {}/{name}, a temporary file an interrupted helix-gate left",
                ws.display(&ws.dir)
            )
        })
        .collect();
    let path = intent_path(root);
    let Ok(bytes) = crate::fs::read::regular(&path, 64 << 20, crate::fs::read::Links::Refuse)
    else {
        return notes;
    };
    let note = match serde_json::from_slice::<Intent>(&bytes) {
        Ok(intent) => resume(ws, &intent),
        Err(e) => format!(
            "removed {}: not a finalize intent ({e})",
            data_dir::FINALIZE_INTENT_PATH
        ),
    };
    notes.push(note);
    if let Err(e) = end(root) {
        notes.push(format!(
            "cannot remove {}: {e}",
            data_dir::FINALIZE_INTENT_PATH
        ));
    }
    notes
}

/// Finish `intent` when its ADR was created, else undo it; what was done.
fn resume(ws: &Workspace, intent: &Intent) -> String {
    let root = &ws.engine.root;
    let draft = ws.display(&intent.draft);
    let target = ws.display(&intent.target);
    let read = |p: &Path| std::fs::read(p).ok();
    let in_dir = intent.target.parent() == Some(ws.dir.as_path());
    let original = crate::text::unhex(&intent.original);
    let created = in_dir && read(&intent.target).as_deref() == Some(intent.content.as_bytes());
    let draft_now = read(&intent.draft);
    if !created {
        return format!(
            "an interrupted finalize of {draft} had not created {target} yet; nothing was changed, {draft} is still the draft"
        );
    }
    if draft_now.is_some() && draft_now != original {
        // The draft was edited since: it wins, the copy goes.
        let _ = std::fs::remove_file(&intent.target);
        return format!(
            "an interrupted finalize of {draft} was undone ({draft} was edited since; {target} removed)"
        );
    }
    if draft_now.is_some()
        && let Err(e) = std::fs::remove_file(&intent.draft)
    {
        return format!("cannot finish the interrupted finalize of {draft} -> {target}: {e}");
    }
    let mut done = vec![format!(
        "finished the interrupted finalize of {draft} -> {target}"
    )];
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
