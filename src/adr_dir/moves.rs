//! Where `finalize` moved a draft: one JSON line per finalize in
//! `.helix-gate/finalized.jsonl` with the draft's and the ADR's
//! repository-relative paths.
//!
//! Why: a consultant session may write its draft and finalize it through the
//! Bash tool in the same turn (seed 004 lists "finalize" as a step of the
//! conversation). The Stop gate knows the ADR only by the path the session
//! wrote, and at Stop that draft is gone, so the finalized ADR escaped the
//! Stop's checks and its review, and a commit with `required_on_commit` was
//! then refused for want of an approval. With this record the Stop gate checks
//! and reviews the ADR where finalize put it.
//!
//! The record only points the gate at a file of the repository, which is then
//! checked like any other; a forged line can make the gate check (and review)
//! another ADR, never skip one.

use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::fs::append::{Missing, append};
use crate::fs::data_dir;
use crate::fs::read::{self, Links};

#[derive(Serialize, Deserialize)]
struct Move {
    time: String,
    from: String,
    to: String,
}

/// The largest record read back (one line per finalize: years of drafts).
const LIMIT: u64 = 16 << 20;
/// A draft finalized, then its ADR moved on again: at most this many steps.
const MAX_STEPS: usize = 8;

/// Record that `from` was finalized into `to` (both relative to `root`).
pub fn record(root: &Path, from: &str, to: &str) -> io::Result<()> {
    data_dir::ensure(root)?;
    let record = Move {
        time: crate::clock::now_rfc3339(),
        from: from.to_owned(),
        to: to.to_owned(),
    };
    let mut line = serde_json::to_vec(&record).map_err(io::Error::other)?;
    line.push(b'\n');
    append(
        root,
        &root.join(data_dir::FINALIZED_PATH),
        &line,
        Missing::Create,
    )
}

/// Where the draft `from` (relative to `root`) is now: the latest finalize of
/// it, followed while the ADR it became was finalized again. `None` when it
/// was never finalized or the record cannot be read; damaged lines are skipped.
/// A step whose target is not a plain relative path (absolute, `..`, `.`,
/// empty, a NUL) ends the walk: the record is writable by anything in the
/// repository, so it must never point the gate out of it.
pub fn destination(root: &Path, from: &str) -> Option<String> {
    let bytes = read::regular(&root.join(data_dir::FINALIZED_PATH), LIMIT, Links::Refuse).ok()?;
    let moves: Vec<Move> = bytes
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect();
    let mut at = from.to_owned();
    let mut found = None;
    for _ in 0..MAX_STEPS {
        match moves.iter().rev().find(|m| m.from == at) {
            Some(next) if next.to != at && plain_relative(&next.to) => {
                at.clone_from(&next.to);
                found = Some(at.clone());
            }
            _ => break,
        }
    }
    found
}

/// Every draft finalize moved (its `from`, relative to `root`), once each, in
/// the order first recorded; empty when the record is missing or unreadable.
/// Where each went is [`destination`]'s to say.
pub fn drafts(root: &Path) -> Vec<String> {
    let Ok(bytes) = read::regular(&root.join(data_dir::FINALIZED_PATH), LIMIT, Links::Refuse)
    else {
        return Vec::new();
    };
    let mut out: Vec<String> = Vec::new();
    for record in bytes
        .split(|b| *b == b'\n')
        .filter_map(|line| serde_json::from_slice::<Move>(line).ok())
    {
        if plain_relative(&record.from) && !out.contains(&record.from) {
            out.push(record.from);
        }
    }
    out
}

/// Whether `rel` names a place below the root by its own words: relative, and
/// only normal components (no `..`, no `.`, no root or drive prefix).
fn plain_relative(rel: &str) -> bool {
    !rel.is_empty()
        && !rel.contains('\0')
        && !rel.contains('\\')
        && Path::new(rel)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
        && !rel.split('/').any(|part| part == "." || part.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_latest_finalize_of_a_draft_and_skips_damaged_lines() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(destination(root, "output/ADR-x.md"), None);
        record(root, "output/ADR-x.md", "adr/003-x.md").unwrap();
        record(root, "output/ADR-y.md", "adr/004-y.md").unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(root.join(data_dir::FINALIZED_PATH))
            .and_then(|mut f| io::Write::write_all(&mut f, b"{torn\n"))
            .unwrap();
        assert_eq!(
            destination(root, "output/ADR-x.md").as_deref(),
            Some("adr/003-x.md")
        );
        // Finalized again (a new draft under the same name): the latest wins.
        record(root, "output/ADR-x.md", "adr/005-x.md").unwrap();
        assert_eq!(
            destination(root, "output/ADR-x.md").as_deref(),
            Some("adr/005-x.md")
        );
        // A loop ends.
        record(root, "a.md", "b.md").unwrap();
        record(root, "b.md", "a.md").unwrap();
        assert!(destination(root, "a.md").is_some());
        assert_eq!(destination(root, "adr/003-x.md"), None);
        assert!(root.join(".helix-gate/.gitignore").exists());
    }

    #[test]
    fn a_planted_target_that_leaves_the_root_is_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for to in [
            "/etc/passwd",
            "../outside.md",
            "adr/../../outside.md",
            "./adr/x.md",
            "adr//x.md",
            "",
            "adr\\..\\..\\x.md",
        ] {
            record(root, "output/ADR-x.md", to).unwrap();
            assert_eq!(destination(root, "output/ADR-x.md"), None, "{to:?}");
        }
        // A safe first step, then an escaping one: the walk stops at the safe one.
        record(root, "output/ADR-x.md", "adr/003-x.md").unwrap();
        record(root, "adr/003-x.md", "../../etc/passwd").unwrap();
        assert_eq!(
            destination(root, "output/ADR-x.md").as_deref(),
            Some("adr/003-x.md")
        );
    }

    #[test]
    fn a_huge_or_binary_record_is_read_without_failing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        record(root, "output/ADR-x.md", "adr/003-x.md").unwrap();
        let mut junk = vec![b'['; 2 << 20];
        junk.extend_from_slice(b"\n\xff\xfe{\"from\":\"\xff\"}\n");
        std::fs::OpenOptions::new()
            .append(true)
            .open(root.join(data_dir::FINALIZED_PATH))
            .and_then(|mut f| io::Write::write_all(&mut f, &junk))
            .unwrap();
        assert_eq!(
            destination(root, "output/ADR-x.md").as_deref(),
            Some("adr/003-x.md")
        );
    }
}
