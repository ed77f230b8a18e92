//! Cache of reviewer verdicts: `.helix-gate/approval-cache/<key>.json`.
//!
//! The key is a SHA-256 over everything a verdict depends on: the content of
//! the reviewed file(s), the approval type, the text of its `CLAUDE.md`,
//! configured checks and skills (whether shipped or the repository's), the
//! verdict schema and the model, and the content of the
//! concepts the reviewed ADRs name (front matter `concept:`), since the
//! reviewer gets them too. Change any of them and the old verdict no longer
//! applies. Files that name no concept keep the keys they had before concepts
//! were part of the key. The file path is not part of the key: a
//! file that moves without changing keeps its approval.
//!
//! Every verdict a reviewer gave (approved, rejected, `needs_revision`) is
//! stored, so one content is reviewed once: the same content under the same
//! instructions and model gets the same verdict again without a reviewer run.
//! Infrastructure failures (timeout, budget, crash, no verdict) and
//! deterministic rejections are not verdicts of a reviewer and are never
//! stored. A hit is re-checked against the current `required_confidence` when
//! it is read ([`still_holds`]): an approval below it, or a confidence
//! downgrade above it, is a miss and the reviewer decides again.
//!
//! The key is public (anyone can compute it), and the folder is in the work
//! tree, where a cloned repository or a session can put files. So an entry is
//! trusted only when it carries an HMAC-SHA256, made with this user's secret
//! ([`super::signing`]), over the key and the stored document
//! ([`super::signed_entry`], shared with the decision review). An entry
//! without one (or of an earlier version) is ignored: it is not a hit. Entries
//! are read only when they are regular files (a FIFO planted under an entry's
//! name would block the read forever).

use crate::text::hex;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::instructions::{Instructions, VERDICT_SCHEMA};
use super::outcome::ResultDocument;
use super::signed_entry;
use super::signing::SigningKey;
use crate::diagnostic::{Severity, Source};

/// Version of the key material; bump when the prompt or the key changes meaning.
const KEY_VERSION: &str = "helix-gate approval cache v1";
/// Version of what an entry's HMAC covers.
const MAC_VERSION: &str = "helix-gate approval cache entry v2";
/// Largest entry that is read (a document is a few KB).
const ENTRY_LIMIT: u64 = 4 * 1024 * 1024;

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

/// The cache key (64 hex digits) for the files with these content digests,
/// reviewed together with the concepts with these content digests. The order
/// of the files and of the concepts does not matter.
///
/// Without concepts nothing is added to the hash, so entries written before
/// concepts were part of the key still match files that name none.
///
/// Why a cryptographic hash and not a 64-bit one such as FNV-1a: an
/// `approved` entry lets a file pass without a review, the file's author
/// controls its bytes, and collisions of a non-cryptographic hash can be
/// constructed on purpose.
pub fn key(
    kind: &str,
    model: &str,
    instructions: &Instructions,
    digests: &[[u8; 32]],
    concepts: &[[u8; 32]],
) -> String {
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
    // Only with skills, so the keys of every type without them stay as they were.
    if !instructions.skills.is_empty() {
        h.field(b"skills");
        h.field(&(instructions.skills.len() as u64).to_be_bytes());
        for (name, text) in &instructions.skills {
            h.field(name.as_bytes());
            h.field(text.as_bytes());
        }
    }
    let mut sorted = digests.to_vec();
    sorted.sort_unstable();
    h.field(&(sorted.len() as u64).to_be_bytes());
    for digest in &sorted {
        h.field(digest);
    }
    if !concepts.is_empty() {
        let mut sorted = concepts.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        h.field(b"concepts");
        h.field(&(sorted.len() as u64).to_be_bytes());
        for digest in &sorted {
            h.field(digest);
        }
    }
    hex(&h.finalize())
}

#[derive(Debug, Serialize, Deserialize)]
struct Entry {
    key: String,
    /// HMAC-SHA256 (hex) over [`MAC_VERSION`], the key and the document;
    /// absent in entries of earlier versions, which are therefore ignored.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mac: Option<String>,
    document: ResultDocument,
}

fn entry_name(key: &str) -> String {
    format!("{key}.json")
}

fn entry_path(root: &Path, key: &str) -> PathBuf {
    signed_entry::path(root, &entry_name(key))
}

/// What [`lookup`] found under a key.
#[derive(Debug, Clone, PartialEq)]
pub enum Lookup {
    /// A signed verdict that still holds under the required confidence
    /// ([`still_holds`]); its `result` may be any verdict.
    Hit(Box<ResultDocument>),
    /// Nothing usable: no entry, an unreadable one, another key's, or one the
    /// required confidence no longer agrees with.
    Miss,
    /// An entry for this key whose HMAC is missing or does not verify with
    /// this user's key (or there is no key yet): not written by helix-gate for
    /// this user, so it is ignored. The path is for a note.
    Untrusted(PathBuf),
}

/// The stored result for `key`, when it is signed with `signing` and its
/// verdict still holds under `required_confidence`. Without a signing key no
/// entry is trusted.
pub fn lookup(
    root: &Path,
    key: &str,
    required_confidence: f64,
    signing: Option<&SigningKey>,
) -> Lookup {
    let path = entry_path(root, key);
    let Ok(text) = crate::fs::read::regular(&path, ENTRY_LIMIT, crate::fs::read::Links::Refuse)
    else {
        return Lookup::Miss;
    };
    let Ok(entry) = serde_json::from_slice::<Entry>(&text) else {
        return Lookup::Miss;
    };
    if entry.key != key {
        return Lookup::Miss;
    }
    // The document counts as helix-gate serializes it (compact JSON of the
    // parsed document), so what is verified is exactly what is used, whatever
    // the file's whitespace.
    let document_json = serde_json::to_vec(&entry.document).ok();
    let verified = match (signing, entry.mac.as_deref(), document_json) {
        (Some(signing), Some(mac), Some(json)) => {
            signed_entry::verifies(signing, MAC_VERSION, key, &json, mac)
        }
        _ => false,
    };
    if !verified {
        return Lookup::Untrusted(path);
    }
    if still_holds(&entry.document, required_confidence) {
        Lookup::Hit(Box::new(entry.document))
    } else {
        Lookup::Miss
    }
}

/// Whether a stored verdict is what the confidence gate would decide today
/// ([`super::verdict::decide`] over the reviewer's own result, its error
/// findings and its confidence): an approval needs `required_confidence`; an
/// approval the gate turned into `needs_revision` holds while it has an error
/// finding or its confidence stays below it; a verdict the reviewer itself gave
/// as rejected or `needs_revision` always holds.
pub fn still_holds(document: &ResultDocument, required_confidence: f64) -> bool {
    // A person's decision has no confidence to re-check: it holds for its content.
    if document.stage == super::history::Stage::Override {
        return document.result == super::verdict::Verdict::Approved
            && document.person_override.is_some();
    }
    let errors = document
        .findings
        .iter()
        .filter(|f| f.source == Source::Reviewer && f.severity == Severity::Error)
        .count();
    let reviewer = document.reviewer_result.unwrap_or(document.result);
    super::verdict::decide(reviewer, errors, document.confidence, required_confidence)
        == document.result
}

/// Whether `document` is a reviewer's verdict (or a person's override) worth
/// keeping: not an infrastructure failure, not a deterministic rejection, not
/// itself a hit.
pub fn cacheable(document: &ResultDocument) -> bool {
    matches!(
        document.stage,
        super::history::Stage::Reviewer | super::history::Stage::Override
    ) && document.infrastructure_failure.is_none()
}

/// Store a reviewer's verdict under `key`, signed with `signing` (atomically:
/// temp file + rename). Anything that is not [`cacheable`] is not stored.
pub fn store(
    root: &Path,
    key: &str,
    document: &ResultDocument,
    signing: &SigningKey,
) -> std::io::Result<()> {
    if !cacheable(document) {
        return Ok(());
    }
    let document_json = serde_json::to_vec(document).map_err(std::io::Error::other)?;
    let entry = Entry {
        key: key.to_owned(),
        mac: Some(signed_entry::mac(signing, MAC_VERSION, key, &document_json)),
        document: document.clone(),
    };
    signed_entry::write(root, &entry_name(key), &entry)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::Verdict;
    use crate::approval::instructions::Origin;
    use crate::diagnostic::Finding;
    use crate::text::unhex;

    fn instructions(text: &str) -> Instructions {
        Instructions {
            claude_md: text.into(),
            checks: vec![("a".into(), "check a".into())],
            skills: Vec::new(),
            origin: Origin::BuiltIn,
        }
    }

    #[test]
    fn key_depends_on_every_input_but_not_file_order() {
        let i = instructions("x");
        let a = content_digest(b"one");
        let b = content_digest(b"two");
        let base = key("adr", "sonnet", &i, &[a, b], &[]);
        assert_eq!(base.len(), 64);
        assert_eq!(base, key("adr", "sonnet", &i, &[b, a], &[]));
        assert_ne!(base, key("code", "sonnet", &i, &[a, b], &[]));
        assert_ne!(base, key("adr", "opus", &i, &[a, b], &[]));
        assert_ne!(base, key("adr", "sonnet", &instructions("y"), &[a, b], &[]));
        assert_ne!(base, key("adr", "sonnet", &i, &[a], &[]));
        let mut other_check = i.clone();
        other_check.checks[0].1.push('!');
        assert_ne!(base, key("adr", "sonnet", &other_check, &[a, b], &[]));
        // A concept the reviewer got is part of the key, its order is not.
        let concept = content_digest(b"concept");
        let changed = content_digest(b"changed concept");
        let with_concept = key("adr", "sonnet", &i, &[a, b], &[concept]);
        assert_ne!(base, with_concept);
        assert_ne!(with_concept, key("adr", "sonnet", &i, &[a, b], &[changed]));
        assert_eq!(
            key("adr", "sonnet", &i, &[a, b], &[concept, changed]),
            key("adr", "sonnet", &i, &[a, b], &[changed, concept])
        );
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
            key("adr", "sonnet", &i, &[a], &[]),
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

    fn signing(byte: u8) -> SigningKey {
        SigningKey::from_secret([byte; super::super::signing::LEN])
    }

    #[test]
    fn entries_of_the_earlier_version_are_not_trusted_but_still_parse() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let path = entry_path(root, "k");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, EARLIER_ENTRY).unwrap();
        // No HMAC: whoever wrote it, it is not a hit.
        assert_eq!(
            lookup(root, "k", 0.8, Some(&signing(1))),
            Lookup::Untrusted(path.clone())
        );
        // The document in the earlier shape still reads (findings with `path:line`).
        let entry: Entry = serde_json::from_str(EARLIER_ENTRY).unwrap();
        let document = entry.document;
        assert_eq!(document.findings[0].path.as_deref(), Some("adr/001-x.md"));
        assert_eq!(document.findings[0].line, Some(57));
        // Signed by this version, it hits, and is written in the same shape.
        store(root, "k", &document, &signing(1)).unwrap();
        assert_eq!(
            lookup(root, "k", 0.8, Some(&signing(1))),
            Lookup::Hit(Box::new(document.clone()))
        );
        let stored: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let earlier: serde_json::Value = serde_json::from_str(EARLIER_ENTRY).unwrap();
        assert_eq!(stored["document"], earlier["document"]);
        assert_eq!(stored["mac"].as_str().unwrap().len(), 64);
    }

    #[test]
    fn only_entries_signed_with_this_key_hit() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let document: ResultDocument = serde_json::from_value(
            serde_json::from_str::<serde_json::Value>(EARLIER_ENTRY).unwrap()["document"].clone(),
        )
        .unwrap();
        let path = entry_path(root, "k");
        store(root, "k", &document, &signing(1)).unwrap();
        assert!(matches!(
            lookup(root, "k", 0.8, Some(&signing(1))),
            Lookup::Hit(_)
        ));
        assert_eq!(lookup(root, "k", 0.95, Some(&signing(1))), Lookup::Miss);
        assert_eq!(lookup(root, "other", 0.8, Some(&signing(1))), Lookup::Miss);
        // Another user's key, or none: not trusted.
        assert_eq!(
            lookup(root, "k", 0.8, Some(&signing(2))),
            Lookup::Untrusted(path.clone())
        );
        assert_eq!(
            lookup(root, "k", 0.8, None),
            Lookup::Untrusted(path.clone())
        );

        let signed: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let tamper = |edit: &dyn Fn(&mut serde_json::Value)| {
            let mut entry = signed.clone();
            edit(&mut entry);
            std::fs::write(&path, entry.to_string()).unwrap();
            lookup(root, "k", 0.8, Some(&signing(1)))
        };
        // The signature covers the document...
        assert_eq!(
            tamper(&|e| e["document"]["confidence"] = 1.0.into()),
            Lookup::Untrusted(path.clone())
        );
        assert_eq!(
            tamper(&|e| e["document"]["findings"] = serde_json::json!([])),
            Lookup::Untrusted(path.clone())
        );
        // ...is required, and is checked as hex of the right length.
        assert_eq!(
            tamper(&|e| {
                e.as_object_mut().unwrap().remove("mac");
            }),
            Lookup::Untrusted(path.clone())
        );
        assert_eq!(
            tamper(&|e| e["mac"] = "zz".into()),
            Lookup::Untrusted(path.clone())
        );
        // Whitespace is not part of what is signed.
        std::fs::write(&path, signed.to_string()).unwrap();
        assert!(matches!(
            lookup(root, "k", 0.8, Some(&signing(1))),
            Lookup::Hit(_)
        ));
        // A signed entry moved under another key's name is not that key's entry,
        // and re-keyed it no longer verifies.
        let moved = entry_path(root, "k2");
        std::fs::copy(&path, &moved).unwrap();
        assert_eq!(lookup(root, "k2", 0.8, Some(&signing(1))), Lookup::Miss);
        let mut rekeyed = signed.clone();
        rekeyed["key"] = "k2".into();
        std::fs::write(&moved, rekeyed.to_string()).unwrap();
        assert_eq!(
            lookup(root, "k2", 0.8, Some(&signing(1))),
            Lookup::Untrusted(moved)
        );
    }

    fn verdict_document(
        result: Verdict,
        reviewer: Option<Verdict>,
        confidence: f64,
    ) -> ResultDocument {
        let mut document: ResultDocument = serde_json::from_value(
            serde_json::from_str::<serde_json::Value>(EARLIER_ENTRY).unwrap()["document"].clone(),
        )
        .unwrap();
        document.result = result;
        document.reviewer_result = reviewer;
        document.confidence = confidence;
        document
    }

    #[test]
    fn rejected_and_needs_revision_verdicts_are_kept_and_signed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let rejected = verdict_document(Verdict::Rejected, None, 0.9);
        store(root, "r", &rejected, &signing(1)).unwrap();
        assert_eq!(
            lookup(root, "r", 0.8, Some(&signing(1))),
            Lookup::Hit(Box::new(rejected.clone()))
        );
        // A rejection holds whatever the threshold.
        assert!(matches!(
            lookup(root, "r", 0.99, Some(&signing(1))),
            Lookup::Hit(_)
        ));
        assert!(matches!(
            lookup(root, "r", 0.1, Some(&signing(1))),
            Lookup::Hit(_)
        ));
        // Still signed: another key does not trust it.
        assert_eq!(
            lookup(root, "r", 0.8, Some(&signing(2))),
            Lookup::Untrusted(entry_path(root, "r"))
        );

        let revise = verdict_document(Verdict::NeedsRevision, None, 0.4);
        store(root, "n", &revise, &signing(1)).unwrap();
        assert!(matches!(
            lookup(root, "n", 0.8, Some(&signing(1))),
            Lookup::Hit(_)
        ));

        // An approval the confidence gate downgraded holds while the threshold
        // stays above its confidence; a lower threshold asks the reviewer again.
        let gated = verdict_document(Verdict::NeedsRevision, Some(Verdict::Approved), 0.6);
        store(root, "g", &gated, &signing(1)).unwrap();
        assert!(matches!(
            lookup(root, "g", 0.8, Some(&signing(1))),
            Lookup::Hit(_)
        ));
        assert_eq!(lookup(root, "g", 0.5, Some(&signing(1))), Lookup::Miss);

        // An approval the gate downgraded for an error finding holds at any
        // threshold: its confidence was never the reason (it was a miss, and
        // every approval of that content paid for a review again).
        let mut inconsistent =
            verdict_document(Verdict::NeedsRevision, Some(Verdict::Approved), 0.9);
        inconsistent.findings.push(
            Finding::new("conflicts", Severity::Error, "contradicts ADR-002")
                .from_source(Source::Reviewer),
        );
        store(root, "i", &inconsistent, &signing(1)).unwrap();
        for threshold in [0.5, 0.8, 0.95] {
            assert!(
                matches!(
                    lookup(root, "i", threshold, Some(&signing(1))),
                    Lookup::Hit(_)
                ),
                "{threshold}"
            );
        }
    }

    #[test]
    fn infrastructure_failures_and_deterministic_rejections_are_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let mut timeout = verdict_document(Verdict::Rejected, None, 0.0);
        timeout.infrastructure_failure = Some("timeout".into());
        store(root, "t", &timeout, &signing(1)).unwrap();
        assert!(!entry_path(root, "t").exists());
        let mut deterministic = verdict_document(Verdict::Rejected, None, 1.0);
        deterministic.stage = super::super::history::Stage::Deterministic;
        store(root, "d", &deterministic, &signing(1)).unwrap();
        assert!(!entry_path(root, "d").exists());
        let mut hit = verdict_document(Verdict::Approved, None, 0.9);
        hit.stage = super::super::history::Stage::Cache;
        assert!(!cacheable(&hit));
    }

    #[test]
    fn hex_round_trips() {
        assert_eq!(
            unhex(&hex(&[0, 1, 0xab, 0xff])).unwrap(),
            [0, 1, 0xab, 0xff]
        );
        assert_eq!(unhex("AB").unwrap(), [0xab]);
        assert!(unhex("abc").is_none());
        assert!(unhex("g0").is_none());
    }
}
