//! Cache of `approved` verdicts: `.helix-gate/approval-cache/<key>.json`.
//!
//! The key is a SHA-256 over everything a verdict depends on: the content of
//! the reviewed file(s), the approval type, the text of its `CLAUDE.md` and
//! configured checks, the verdict schema and the model. Change any of them and
//! the old verdict no longer applies. The file path is not part of the key: a
//! file that moves without changing keeps its approval.
//!
//! Only `approved` verdicts are stored, and a hit is re-checked against the
//! current `required_confidence` when it is read.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::ResultDocument;
use super::instructions::{Instructions, VERDICT_SCHEMA};
use super::verdict::Verdict;
use crate::fs::data_dir::{self, CACHE_DIR};

/// Version of the key material; bump when the prompt or the key changes meaning.
const KEY_VERSION: &str = "helix-gate approval cache v1";

/// SHA-256 of one file's bytes.
pub fn content_digest(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// Length-prefixed update, so that field boundaries are part of the key
/// (`"ab" + "c"` and `"a" + "bc"` give different keys).
trait Field {
    fn field(&mut self, data: &[u8]);
}

impl Field for Sha256 {
    fn field(&mut self, data: &[u8]) {
        self.update((data.len() as u64).to_be_bytes());
        self.update(data);
    }
}

/// The cache key (64 hex digits) for the files with these content digests.
/// The order of the files does not matter.
///
/// Why a cryptographic hash and not a 64-bit one such as FNV-1a: an
/// `approved` entry lets a file pass without a review, the file's author
/// controls its bytes, and collisions of a non-cryptographic hash can be
/// constructed on purpose.
pub fn key(kind: &str, model: &str, instructions: &Instructions, digests: &[[u8; 32]]) -> String {
    let mut h = Sha256::new();
    h.field(KEY_VERSION.as_bytes());
    h.field(kind.as_bytes());
    h.field(model.as_bytes());
    h.field(VERDICT_SCHEMA.as_bytes());
    h.field(instructions.claude_md.as_bytes());
    h.field(&(instructions.checks.len() as u64).to_be_bytes());
    for (name, text) in &instructions.checks {
        h.field(name.as_bytes());
        h.field(text.as_bytes());
    }
    let mut sorted = digests.to_vec();
    sorted.sort_unstable();
    h.field(&(sorted.len() as u64).to_be_bytes());
    for digest in &sorted {
        h.field(digest);
    }
    hex(&h.finalize())
}

/// Lowercase hex.
fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    key: String,
    document: ResultDocument,
}

fn entry_path(root: &Path, key: &str) -> PathBuf {
    root.join(CACHE_DIR).join(format!("{key}.json"))
}

/// The stored result for `key`, when it is `approved` at or above `required_confidence`.
pub fn lookup(root: &Path, key: &str, required_confidence: f64) -> Option<ResultDocument> {
    let text = std::fs::read(entry_path(root, key)).ok()?;
    let entry: Entry = serde_json::from_slice(&text).ok()?;
    (entry.key == key
        && entry.document.result == Verdict::Approved
        && entry.document.confidence >= required_confidence)
        .then_some(entry.document)
}

/// Store an approved result under `key` (atomically: temp file + rename).
pub fn store(root: &Path, key: &str, document: &ResultDocument) -> std::io::Result<()> {
    if document.result != Verdict::Approved {
        return Ok(());
    }
    data_dir::ensure_dir(root, CACHE_DIR)?;
    let entry = Entry {
        key: key.to_owned(),
        document: document.clone(),
    };
    let text = serde_json::to_vec_pretty(&entry).map_err(std::io::Error::other)?;
    // No fsync: an entry lost to a power failure is a cache miss, and a damaged
    // one does not parse and is a miss too.
    crate::fs::atomic::write_with(
        root,
        &entry_path(root, key),
        &text,
        crate::fs::atomic::Options::FAST,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::instructions::Origin;

    fn instructions(text: &str) -> Instructions {
        Instructions {
            claude_md: text.into(),
            checks: vec![("a".into(), "check a".into())],
            origin: Origin::BuiltIn,
        }
    }

    #[test]
    fn key_depends_on_every_input_but_not_file_order() {
        let i = instructions("x");
        let a = content_digest(b"one");
        let b = content_digest(b"two");
        let base = key("adr", "sonnet", &i, &[a, b]);
        assert_eq!(base.len(), 64);
        assert_eq!(base, key("adr", "sonnet", &i, &[b, a]));
        assert_ne!(base, key("code", "sonnet", &i, &[a, b]));
        assert_ne!(base, key("adr", "opus", &i, &[a, b]));
        assert_ne!(base, key("adr", "sonnet", &instructions("y"), &[a, b]));
        assert_ne!(base, key("adr", "sonnet", &i, &[a]));
        let mut other_check = i.clone();
        other_check.checks[0].1.push('!');
        assert_ne!(base, key("adr", "sonnet", &other_check, &[a, b]));
    }

    #[test]
    fn digests_are_sha256() {
        // FIPS 180-4 vectors, through the code path the cache uses.
        assert_eq!(
            hex(&content_digest(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(&content_digest(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }

    #[test]
    fn key_is_sha256_over_length_prefixed_fields() {
        // The key material spelled out byte by byte: keys stored by earlier
        // versions stay valid only while this framing does not change.
        let i = instructions("x");
        let a = content_digest(b"one");
        let mut material = Vec::new();
        let mut push = |data: &[u8]| {
            material.extend_from_slice(&(data.len() as u64).to_be_bytes());
            material.extend_from_slice(data);
        };
        push(KEY_VERSION.as_bytes());
        push(b"adr");
        push(b"sonnet");
        push(VERDICT_SCHEMA.as_bytes());
        push(b"x");
        push(&1u64.to_be_bytes());
        push(b"a");
        push(b"check a");
        push(&1u64.to_be_bytes());
        push(&a);
        assert_eq!(
            key("adr", "sonnet", &i, &[a]),
            hex(&content_digest(&material))
        );
    }

    /// An entry exactly as the version before the one findings model wrote it
    /// (findings in the seed's shape, one with `path:line`).
    const EARLIER_ENTRY: &str = r#"{
  "key": "k",
  "document": {
    "approval_id": "20250101T000000Z-1-00000000",
    "approval_type": "adr",
    "timestamp": "2025-01-01T00:00:00Z",
    "files": [
      "adr/001-x.md"
    ],
    "result": "approved",
    "confidence": 0.9,
    "required_confidence": 0.8,
    "findings": [
      {
        "severity": "warning",
        "check": "acceptance-criteria-min",
        "message": "2 acceptance criteria, at least 3 expected",
        "location": "adr/001-x.md:57",
        "source": "deterministic"
      },
      {
        "severity": "info",
        "check": "acceptance",
        "message": "criteria are checkable",
        "location": "adr/001-x.md#Akzeptanzkriterien",
        "source": "reviewer"
      }
    ],
    "recommendations": [],
    "summary": "fine",
    "stage": "reviewer",
    "agent_context": {
      "model": "claude-fake",
      "duration_seconds": 1.5,
      "tokens_used": 15,
      "cost": 0.01
    }
  }
}"#;

    #[test]
    fn entries_of_the_earlier_version_hit_and_are_written_back_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let path = entry_path(root, "k");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, EARLIER_ENTRY).unwrap();
        let document = lookup(root, "k", 0.8).unwrap();
        assert_eq!(document.findings[0].path.as_deref(), Some("adr/001-x.md"));
        assert_eq!(document.findings[0].line, Some(57));
        assert!(lookup(root, "k", 0.95).is_none());
        std::fs::remove_file(&path).unwrap();
        store(root, "k", &document).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), EARLIER_ENTRY);
    }
}
