//! A signed entry of the approval cache (`.helix-gate/approval-cache/`), as
//! both of its writers keep one: the reviewer's verdicts on files
//! ([`super::cache`]) and on `llm_review` rules ([`super::decision_review`]).
//!
//! An entry is trusted only with its HMAC-SHA256 made with this user's secret
//! ([`super::signing`]), over three length-prefixed fields in this order: the
//! entry kind's version label, the cache key, and the document's bytes as
//! helix-gate serializes them. The MAC is stored as 64 lowercase hex digits.
//! The fields and their order are the on-disk format: entries written before
//! this module existed keep verifying only while they stay as they are.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::signing::SigningKey;
use crate::fs::data_dir::{self, CACHE_DIR};
use crate::text::{hex, unhex};

/// The fields the HMAC covers.
fn fields<'a>(version: &'a str, key: &'a str, document: &'a [u8]) -> [&'a [u8]; 3] {
    [version.as_bytes(), key.as_bytes(), document]
}

/// The MAC (hex) of `document` stored under `key`, for entries of `version`.
pub(super) fn mac(signing: &SigningKey, version: &str, key: &str, document: &[u8]) -> String {
    hex(&signing.sign(&fields(version, key, document)))
}

/// Whether `mac` (hex, as stored) is this user's MAC of `document` under `key`
/// for entries of `version`; a MAC that is no hex does not verify.
pub(super) fn verifies(
    signing: &SigningKey,
    version: &str,
    key: &str,
    document: &[u8],
    mac: &str,
) -> bool {
    unhex(mac).is_some_and(|tag| signing.verify(&fields(version, key, document), &tag))
}

/// The entry file `name` of the repository at `root`.
pub(super) fn path(root: &Path, name: &str) -> PathBuf {
    root.join(CACHE_DIR).join(name)
}

/// Write `entry` as the file `name` (pretty JSON), atomically: temp file +
/// rename, the cache folder made first.
pub(super) fn write(root: &Path, name: &str, entry: &impl Serialize) -> std::io::Result<()> {
    data_dir::ensure_dir(root, CACHE_DIR)?;
    let text = serde_json::to_vec_pretty(entry).map_err(std::io::Error::other)?;
    // No fsync: an entry lost to a power failure is a cache miss, and a damaged
    // one does not parse and is a miss too.
    crate::fs::atomic::write_with(
        root,
        &path(root, name),
        &text,
        crate::fs::atomic::Options::FAST,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn signing(byte: u8) -> SigningKey {
        SigningKey::from_secret([byte; super::super::signing::LEN])
    }

    #[test]
    fn the_mac_is_the_one_entries_were_always_signed_with() {
        // Computed outside helix-gate (Python's hmac over the length-prefixed
        // fields): stored entries keep verifying only while this holds.
        let version = "helix-gate approval cache entry v2";
        let document = br#"{"result":"approved"}"#;
        let stored = "eb0bb269e4c730b45c8529a3068dc6bbffdc0074ec36993c8f555d770a9484db";
        assert_eq!(mac(&signing(7), version, "k", document), stored);
        assert!(verifies(&signing(7), version, "k", document, stored));
        let version = "helix-gate decision review entry v1";
        let stored = "8ac4931d652d343ca7718a49b4b555661eed4d981d23ec2efbf44fef85b9e60b";
        assert_eq!(mac(&signing(7), version, "k", b"[]"), stored);
        // Hex is read in either case, as it always was.
        assert!(verifies(
            &signing(7),
            version,
            "k",
            b"[]",
            &stored.to_uppercase()
        ));
    }

    #[test]
    fn only_the_same_key_version_and_bytes_verify() {
        let tag = mac(&signing(1), "v", "k", b"doc");
        assert!(verifies(&signing(1), "v", "k", b"doc", &tag));
        assert!(!verifies(&signing(2), "v", "k", b"doc", &tag));
        assert!(!verifies(&signing(1), "w", "k", b"doc", &tag));
        assert!(!verifies(&signing(1), "v", "k2", b"doc", &tag));
        assert!(!verifies(&signing(1), "v", "k", b"doc ", &tag));
        // Field boundaries count: the same bytes split otherwise do not verify.
        assert!(!verifies(&signing(1), "v", "kd", b"oc", &tag));
        assert!(!verifies(&signing(1), "v", "k", b"doc", "zz"));
        assert!(!verifies(&signing(1), "v", "k", b"doc", &tag[..62]));
    }

    #[test]
    fn entries_are_written_as_pretty_json_in_the_cache_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(
            root,
            "x.json",
            &serde_json::json!({"key": "k", "mac": "00"}),
        )
        .unwrap();
        let text = std::fs::read_to_string(path(root, "x.json")).unwrap();
        assert_eq!(text, "{\n  \"key\": \"k\",\n  \"mac\": \"00\"\n}");
        assert_eq!(path(root, "x.json"), root.join(CACHE_DIR).join("x.json"));
    }
}
