//! `helix-gate approve --out FILE`: the approval result where a phase plan reads
//! it (seed 001: `approvals/adr/output/approval-result.json`, read by an
//! `approval_passed` gate), in a form helix-gate can trust when it reads it back.
//!
//! The file is the seed's `approval-result.json` (helix-gate's
//! [`ResultDocument`]) plus `judged`, the repository-relative path and SHA-256
//! of every file exactly as it was judged, and `signature`, an Ed25519
//! signature by its author's key ([`super::signing::TeamKey`], with the public
//! key and its id) over a canonical form of all of that (compact JSON, fields
//! in a fixed order, as helix-gate serializes the parsed file: whitespace and
//! key order of the file do not count). Files of earlier versions carry an
//! HMAC-SHA256 by the author's per-user secret instead; they keep verifying
//! for that user.
//!
//! Why: the file lies in the work tree, where a session, a person or a cloned
//! repository can write `{"result": "approved"}`. [`verify`] trusts a result
//! only when a key this user trusts signed it (their own, or a key file in
//! `approvals/keys/` under their consent, [`super::keys`]) and every file it
//! names still has the content that was judged; it says which failed, and why.
//! It also returns the judged files: a genuine result for one file says
//! nothing of another, so the gate checks they are the files it needs.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use super::keys::Vouch;
use super::signing::{LEN, SigningKey, TeamKey};
use super::{Approval, ResultDocument};

/// `schema` of a signed result file.
pub const SCHEMA: &str = "helix-gate/approval-result";
/// The per-user signature of earlier versions (verifies only for its user).
const ALGORITHM: &str = "hmac-sha256";
/// The signature `approve --out` writes: verifiable with the public key.
const ED25519: &str = "ed25519";
/// Version of what the signature covers; bump when the canonical form changes.
const MAC_VERSION: &str = "helix-gate approval result v1";
/// The largest judged file that is hashed again (larger ones were never judged).
const MAX_JUDGED: u64 = 64 * 1024 * 1024;

pub use super::outcome::JudgedFile;

#[derive(Debug, Serialize, Deserialize)]
struct Signature {
    algorithm: String,
    /// [`SigningKey::id`] of the key that signed (`hmac-sha256`), or
    /// [`super::signing::public_key_id`] of `public_key` (`ed25519`).
    key_id: String,
    /// `hmac-sha256`: the HMAC (hex) over [`MAC_VERSION`] and the canonical signed part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mac: Option<String>,
    /// `ed25519`: the signer's public key (hex).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    public_key: Option<String>,
    /// `ed25519`: the signature (hex) over [`MAC_VERSION`] and the canonical signed part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    sig: Option<String>,
}

/// What the signature covers, in its canonical order.
#[derive(Debug, Serialize, Deserialize)]
struct Signed {
    schema: String,
    #[serde(flatten)]
    document: ResultDocument,
    judged: Vec<JudgedFile>,
}

#[derive(Debug, Serialize, Deserialize)]
struct SignedFile {
    #[serde(flatten)]
    signed: Signed,
    signature: Signature,
}

fn canonical(signed: &Signed) -> serde_json::Result<Vec<u8>> {
    serde_json::to_vec(signed)
}

/// The signed result file of `approval` (pretty JSON).
pub fn render(approval: &Approval, key: &TeamKey) -> anyhow::Result<Vec<u8>> {
    render_document(&approval.document, &approval.judged, key)
}

/// The signed result file of `document`, which judged `judged` (pretty JSON).
/// A person's override is signed like a review and says so (`stage: override`
/// and its `override` part are signed too).
pub fn render_document(
    document: &ResultDocument,
    judged: &[JudgedFile],
    key: &TeamKey,
) -> anyhow::Result<Vec<u8>> {
    if let Some(outside) = judged
        .iter()
        .find(|f| !crate::paths::is_plain_relative(&f.path))
    {
        anyhow::bail!(
            "cannot sign a result for {}: it is not a file inside the repository",
            crate::text::escape_controls(&outside.path)
        );
    }
    let signed = Signed {
        schema: SCHEMA.to_owned(),
        document: document.clone(),
        judged: judged.to_vec(),
    };
    let sig = key.sign(&[MAC_VERSION.as_bytes(), &canonical(&signed)?]);
    let public = key.public_key();
    let file = SignedFile {
        signed,
        signature: Signature {
            algorithm: ED25519.to_owned(),
            key_id: super::signing::public_key_id(&public),
            mac: None,
            public_key: Some(crate::text::hex(&public)),
            sig: Some(crate::text::hex(&sig)),
        },
    };
    let mut bytes = serde_json::to_vec_pretty(&file)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// Write the signed result of `approval` to `out` (inside `root`, atomically,
/// its folder made when missing), signed with this user's key (made when there
/// is none). Returns `out`.
pub fn write(root: &Path, out: &Path, approval: &Approval) -> anyhow::Result<PathBuf> {
    write_document(root, out, &approval.document, &approval.judged)
}

/// [`write`] for a `document` that judged `judged` (a person's override).
pub fn write_document(
    root: &Path,
    out: &Path,
    document: &ResultDocument,
    judged: &[JudgedFile],
) -> anyhow::Result<PathBuf> {
    let key = super::signing::load_or_create_team_key()?;
    let bytes = render_document(document, judged, &key)?;
    let shown = crate::paths::display(root, out);
    if let Some(parent) = out.parent() {
        crate::fs::confine::create_dir_all(root, parent)
            .with_context(|| format!("cannot write {shown}"))?;
    }
    crate::fs::atomic::write(root, out, &bytes).with_context(|| format!("cannot write {shown}"))?;
    Ok(out.to_path_buf())
}

/// What [`verify`] found.
#[derive(Debug)]
pub enum Trust {
    /// Signed by this user's key, and every judged file still has the content
    /// that was judged: the result, and the judged files (repository-relative).
    Trusted {
        document: Box<ResultDocument>,
        judged: Vec<String>,
    },
    /// No `signature` at all: written by hand or by something else.
    Unsigned,
    /// A signature, but not helix-gate's form (the reason).
    Malformed(String),
    /// This user has no signing key, so nothing was signed for them.
    NoKey,
    /// Signed by another key (its id) that this user does not know.
    ForeignKey(String),
    /// Signed with the public key in the repository's key file `file`, which
    /// this user's consent does not cover (`why`): `helix-gate trust` again.
    UntrustedKey {
        key_id: String,
        file: String,
        why: String,
    },
    /// This user's key id, but the signature does not match the content: changed
    /// after it was signed.
    Tampered,
    /// Genuine, but the judged file `path` is no longer what was judged (`why`).
    Stale { path: String, why: String },
}

/// Whether the result file `bytes` is one helix-gate signed for exactly the
/// current content of the files it names (relative to `root`): with this
/// user's HMAC `key` (results of earlier versions), or with an Ed25519 key this
/// user trusts ([`super::keys::vouch`]).
pub fn verify(root: &Path, bytes: &[u8], key: Option<&SigningKey>) -> Trust {
    verify_with(root, bytes, key, |public| super::keys::vouch(root, public))
}

/// [`verify`] with who vouches for an Ed25519 public key given.
fn verify_with(
    root: &Path,
    bytes: &[u8],
    key: Option<&SigningKey>,
    vouch: impl Fn(&[u8; LEN]) -> Vouch,
) -> Trust {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(bytes) else {
        return Trust::Malformed("not JSON".to_owned());
    };
    if value.get("signature").is_none() {
        return Trust::Unsigned;
    }
    let file: SignedFile = match serde_json::from_value(value) {
        Ok(file) => file,
        Err(e) => return Trust::Malformed(format!("not in helix-gate's form ({e})")),
    };
    if file.signed.judged.is_empty() {
        return Trust::Malformed("a result that names no judged file".to_owned());
    }
    if file.signed.schema != SCHEMA
        || (file.signature.algorithm != ALGORITHM && file.signature.algorithm != ED25519)
    {
        return Trust::Malformed(format!(
            "schema `{}` with `{}` is not {SCHEMA} with {ED25519} (or {ALGORITHM})",
            file.signed.schema, file.signature.algorithm
        ));
    }
    let Ok(json) = canonical(&file.signed) else {
        return Trust::Malformed("its content cannot be put in canonical form".to_owned());
    };
    let fields: [&[u8]; 2] = [MAC_VERSION.as_bytes(), &json];
    if file.signature.algorithm == ED25519 {
        if let Some(untrusted) = check_ed25519(&file.signature, &fields, vouch) {
            return untrusted;
        }
    } else {
        let Some(key) = key else {
            return Trust::NoKey;
        };
        if file.signature.key_id != key.id() {
            return Trust::ForeignKey(file.signature.key_id);
        }
        let verified = file
            .signature
            .mac
            .as_deref()
            .and_then(crate::text::unhex)
            .is_some_and(|tag| key.verify(&fields, &tag));
        if !verified {
            return Trust::Tampered;
        }
    }
    for judged in &file.signed.judged {
        if let Some(why) = stale(root, judged) {
            return Trust::Stale {
                path: judged.path.clone(),
                why,
            };
        }
    }
    Trust::Trusted {
        judged: file.signed.judged.into_iter().map(|f| f.path).collect(),
        document: Box::new(file.signed.document),
    }
}

/// Why an Ed25519 `signature` over `fields` is not trusted, `None` when a key
/// this user trusts made it. Who vouches for the key is asked first: a result
/// signed by an unknown key is foreign whether or not its signature holds.
fn check_ed25519(
    signature: &Signature,
    fields: &[&[u8]],
    vouch: impl Fn(&[u8; LEN]) -> Vouch,
) -> Option<Trust> {
    let public: Option<[u8; LEN]> = signature
        .public_key
        .as_deref()
        .and_then(crate::text::unhex)
        .and_then(|bytes| bytes.try_into().ok());
    let Some(public) = public else {
        return Some(Trust::Malformed(
            "an ed25519 signature without its public key".to_owned(),
        ));
    };
    if signature.key_id != super::signing::public_key_id(&public) {
        return Some(Trust::Malformed(
            "its key_id does not name its public key".to_owned(),
        ));
    }
    match vouch(&public) {
        Vouch::Own | Vouch::Trusted(_) => {}
        Vouch::Untrusted { file, why } => {
            return Some(Trust::UntrustedKey {
                key_id: signature.key_id.clone(),
                file,
                why,
            });
        }
        Vouch::Unknown => return Some(Trust::ForeignKey(signature.key_id.clone())),
    }
    let verified = signature
        .sig
        .as_deref()
        .and_then(crate::text::unhex)
        .is_some_and(|sig| super::signing::verify_team(&public, fields, &sig));
    (!verified).then_some(Trust::Tampered)
}

/// Why `judged` no longer holds, `None` when the file has the judged content.
fn stale(root: &Path, judged: &JudgedFile) -> Option<String> {
    if !crate::paths::is_plain_relative(&judged.path) {
        return Some("it is not a path inside the repository".to_owned());
    }
    let path = root.join(&judged.path);
    if std::fs::symlink_metadata(&path).is_err() {
        return Some("it no longer exists".to_owned());
    }
    if crate::engine::leaves_project(root, &path) {
        return Some("a symbolic link now leads it outside the project".to_owned());
    }
    match crate::engine::read_limited(&path, MAX_JUDGED) {
        Ok(bytes) if JudgedFile::new(&judged.path, &bytes) == *judged => None,
        Ok(_) => Some("its content changed since it was judged".to_owned()),
        Err(e) => Some(format!("it cannot be read: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::Verdict;

    fn approval(root: &Path) -> Approval {
        std::fs::create_dir_all(root.join("adr")).unwrap();
        std::fs::write(root.join("adr/001-a.md"), "judged").unwrap();
        let mut approval = crate::approval::outcome::tests::approval(vec![], vec![]);
        approval.document.result = Verdict::Approved;
        approval.document.confidence = 0.9;
        approval.judged = vec![JudgedFile::new("adr/001-a.md", b"judged")];
        approval
    }

    /// Verify with `own` as this user's Ed25519 key and `trusted` as a key file under consent.
    fn check(root: &Path, bytes: &[u8], own: &TeamKey, trusted: Option<&TeamKey>) -> Trust {
        verify_with(root, bytes, None, |public| {
            if *public == own.public_key() {
                Vouch::Own
            } else if trusted.is_some_and(|t| t.public_key() == *public) {
                Vouch::Trusted("approvals/keys/t.pub".to_owned())
            } else {
                Vouch::Unknown
            }
        })
    }

    #[test]
    fn a_signed_result_verifies_until_its_file_or_its_text_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let key = TeamKey::from_test_seed([1; LEN]);
        let other = TeamKey::from_test_seed([2; LEN]);
        let bytes = render(&approval(root), &key).unwrap();
        assert!(matches!(
            check(root, &bytes, &key, None),
            Trust::Trusted { document, judged } if document.result == Verdict::Approved && judged == ["adr/001-a.md"]
        ));
        // Whitespace is not signed.
        let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert_eq!(value["signature"]["algorithm"], "ed25519");
        assert!(matches!(
            check(root, value.to_string().as_bytes(), &key, None),
            Trust::Trusted { .. }
        ));
        // Another user: unknown, then vouched for by a trusted key file.
        let id = super::super::signing::public_key_id(&key.public_key());
        assert!(matches!(
            check(root, &bytes, &other, None),
            Trust::ForeignKey(theirs) if theirs == id
        ));
        assert!(matches!(
            check(root, &bytes, &other, Some(&key)),
            Trust::Trusted { .. }
        ));
        let untrusted = verify_with(root, &bytes, None, |_| Vouch::Untrusted {
            file: "approvals/keys/a.pub".to_owned(),
            why: "not trusted".to_owned(),
        });
        assert!(
            matches!(untrusted, Trust::UntrustedKey { file, .. } if file == "approvals/keys/a.pub")
        );
        let mut changed = value.clone();
        changed["confidence"] = 0.99.into();
        assert!(matches!(
            check(root, changed.to_string().as_bytes(), &key, None),
            Trust::Tampered
        ));
        let mut rehashed = value.clone();
        rehashed["judged"][0]["sha256"] = "00".into();
        assert!(matches!(
            check(root, rehashed.to_string().as_bytes(), &key, None),
            Trust::Tampered
        ));
        // Another key named as the signer: not its signature.
        let mut swapped = value.clone();
        swapped["signature"]["public_key"] = crate::text::hex(&other.public_key()).into();
        swapped["signature"]["key_id"] =
            super::super::signing::public_key_id(&other.public_key()).into();
        assert!(matches!(
            check(root, swapped.to_string().as_bytes(), &other, None),
            Trust::Tampered
        ));
        let mut misnamed = value.clone();
        misnamed["signature"]["key_id"] = "0000000000000000".into();
        assert!(matches!(
            check(root, misnamed.to_string().as_bytes(), &key, None),
            Trust::Malformed(_)
        ));
        let mut unsigned = value.clone();
        unsigned.as_object_mut().unwrap().remove("signature");
        assert!(matches!(
            check(root, unsigned.to_string().as_bytes(), &key, None),
            Trust::Unsigned
        ));
        assert!(matches!(
            check(
                root,
                br#"{"result": "approved", "signature": "x"}"#,
                &key,
                None
            ),
            Trust::Malformed(_)
        ));
        std::fs::write(root.join("adr/001-a.md"), "changed").unwrap();
        assert!(matches!(
            check(root, &bytes, &key, None),
            Trust::Stale { path, .. } if path == "adr/001-a.md"
        ));
        std::fs::remove_file(root.join("adr/001-a.md")).unwrap();
        assert!(matches!(
            check(root, &bytes, &key, None),
            Trust::Stale { why, .. } if why.contains("no longer exists")
        ));
    }

    /// A result of an earlier version, HMAC-signed, keeps verifying for its user only.
    #[test]
    fn an_hmac_result_of_an_earlier_version_verifies_for_its_user() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let approval = approval(root);
        let key = SigningKey::from_secret([1; LEN]);
        let other = SigningKey::from_secret([2; LEN]);
        let signed = Signed {
            schema: SCHEMA.to_owned(),
            document: approval.document.clone(),
            judged: approval.judged.clone(),
        };
        let mac = key.sign(&[MAC_VERSION.as_bytes(), &canonical(&signed).unwrap()]);
        let file = serde_json::json!({
            "schema": SCHEMA,
            "signature": {"algorithm": ALGORITHM, "key_id": key.id(), "mac": crate::text::hex(&mac)},
        });
        let mut value = serde_json::to_value(&signed).unwrap();
        value["signature"] = file["signature"].clone();
        let bytes = value.to_string();
        let nobody = |_: &[u8; LEN]| Vouch::Unknown;
        assert!(matches!(
            verify_with(root, bytes.as_bytes(), Some(&key), nobody),
            Trust::Trusted { .. }
        ));
        assert!(matches!(
            verify_with(root, bytes.as_bytes(), Some(&other), nobody),
            Trust::ForeignKey(id) if id == key.id()
        ));
        assert!(matches!(
            verify_with(root, bytes.as_bytes(), None, nobody),
            Trust::NoKey
        ));
        value["confidence"] = 0.99.into();
        assert!(matches!(
            verify_with(root, value.to_string().as_bytes(), Some(&key), nobody),
            Trust::Tampered
        ));
    }

    #[test]
    fn a_file_outside_the_repository_is_not_signed() {
        let dir = tempfile::tempdir().unwrap();
        let mut approval = approval(dir.path());
        approval.judged[0].path = "/etc/passwd".to_owned();
        let key = TeamKey::from_test_seed([1; LEN]);
        assert!(render(&approval, &key).is_err());
    }
}
