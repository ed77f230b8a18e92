//! `helix-gate approve --out FILE`: the approval result where a phase plan reads
//! it (seed 001: `approvals/adr/output/approval-result.json`, read by an
//! `approval_passed` gate), in a form helix-gate can trust when it reads it back.
//!
//! The file is the seed's `approval-result.json` (helix-gate's
//! [`ResultDocument`]) plus `judged`, the repository-relative path and SHA-256
//! of every file exactly as it was judged, and `signature`, an HMAC-SHA256 by
//! this user's signing key ([`super::signing`]) over a canonical form of all
//! of that (compact JSON, fields in a fixed order, as helix-gate serializes the
//! parsed file: whitespace and key order of the file do not count).
//!
//! Why: the file lies in the work tree, where a session, a person or a cloned
//! repository can write `{"result": "approved"}`. [`verify`] trusts a result
//! only when this user's key signed it and every file it names still has the
//! content that was judged; it says which of the two failed, and why. It also
//! returns the judged files: a genuine result for one file says nothing of
//! another, so the gate checks they are the files it needs.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use serde::{Deserialize, Serialize};

use super::signing::SigningKey;
use super::{Approval, ResultDocument, cache};

/// `schema` of a signed result file.
pub const SCHEMA: &str = "helix-gate/approval-result";
/// The only signature algorithm.
const ALGORITHM: &str = "hmac-sha256";
/// Version of what the signature covers; bump when the canonical form changes.
const MAC_VERSION: &str = "helix-gate approval result v1";
/// The largest judged file that is hashed again (larger ones were never judged).
const MAX_JUDGED: u64 = 64 * 1024 * 1024;

/// One file as it was judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgedFile {
    /// Relative to the repository root.
    pub path: String,
    /// SHA-256 (hex) of its bytes as judged.
    pub sha256: String,
}

impl JudgedFile {
    /// The file at `display` with these judged `bytes`.
    pub fn new(display: &str, bytes: &[u8]) -> Self {
        JudgedFile {
            path: display.to_owned(),
            sha256: crate::text::hex(&cache::content_digest(bytes)),
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
struct Signature {
    algorithm: String,
    /// [`SigningKey::id`] of the key that signed.
    key_id: String,
    /// HMAC-SHA256 (hex) over [`MAC_VERSION`] and the canonical signed part.
    mac: String,
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
pub fn render(approval: &Approval, key: &SigningKey) -> anyhow::Result<Vec<u8>> {
    render_document(&approval.document, &approval.judged, key)
}

/// The signed result file of `document`, which judged `judged` (pretty JSON).
/// A person's override is signed like a review and says so (`stage: override`
/// and its `override` part are signed too).
pub fn render_document(
    document: &ResultDocument,
    judged: &[JudgedFile],
    key: &SigningKey,
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
    let mac = key.sign(&[MAC_VERSION.as_bytes(), &canonical(&signed)?]);
    let file = SignedFile {
        signed,
        signature: Signature {
            algorithm: ALGORITHM.to_owned(),
            key_id: key.id(),
            mac: crate::text::hex(&mac),
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
    let key = super::signing::load_or_create()?;
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
    /// Signed by another key (its id).
    ForeignKey(String),
    /// This user's key id, but the signature does not match the content: changed
    /// after it was signed.
    Tampered,
    /// Genuine, but the judged file `path` is no longer what was judged (`why`).
    Stale { path: String, why: String },
}

/// Whether the result file `bytes` is one helix-gate signed with `key` for
/// exactly the current content of the files it names (relative to `root`).
pub fn verify(root: &Path, bytes: &[u8], key: Option<&SigningKey>) -> Trust {
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
    if file.signed.schema != SCHEMA || file.signature.algorithm != ALGORITHM {
        return Trust::Malformed(format!(
            "schema `{}` with `{}` is not {SCHEMA} with {ALGORITHM}",
            file.signed.schema, file.signature.algorithm
        ));
    }
    let Some(key) = key else {
        return Trust::NoKey;
    };
    if file.signature.key_id != key.id() {
        return Trust::ForeignKey(file.signature.key_id);
    }
    let verified = match (
        crate::text::unhex(&file.signature.mac),
        canonical(&file.signed),
    ) {
        (Some(tag), Ok(json)) => key.verify(&[MAC_VERSION.as_bytes(), &json], &tag),
        _ => false,
    };
    if !verified {
        return Trust::Tampered;
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
        let mut approval = crate::approval::tests::approval(vec![], vec![]);
        approval.document.result = Verdict::Approved;
        approval.document.confidence = 0.9;
        approval.judged = vec![JudgedFile::new("adr/001-a.md", b"judged")];
        approval
    }

    #[test]
    fn a_signed_result_verifies_until_its_file_or_its_text_changes() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let key = SigningKey::from_secret([1; super::super::signing::LEN]);
        let other = SigningKey::from_secret([2; super::super::signing::LEN]);
        let bytes = render(&approval(root), &key).unwrap();
        assert!(matches!(
            verify(root, &bytes, Some(&key)),
            Trust::Trusted { document, judged } if document.result == Verdict::Approved && judged == ["adr/001-a.md"]
        ));
        // Whitespace is not signed.
        let value: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        assert!(matches!(
            verify(root, value.to_string().as_bytes(), Some(&key)),
            Trust::Trusted { .. }
        ));
        assert!(matches!(
            verify(root, &bytes, Some(&other)),
            Trust::ForeignKey(id) if id == key.id()
        ));
        assert!(matches!(verify(root, &bytes, None), Trust::NoKey));
        let mut changed = value.clone();
        changed["confidence"] = 0.99.into();
        assert!(matches!(
            verify(root, changed.to_string().as_bytes(), Some(&key)),
            Trust::Tampered
        ));
        let mut rehashed = value.clone();
        rehashed["judged"][0]["sha256"] = "00".into();
        assert!(matches!(
            verify(root, rehashed.to_string().as_bytes(), Some(&key)),
            Trust::Tampered
        ));
        let mut unsigned = value.clone();
        unsigned.as_object_mut().unwrap().remove("signature");
        assert!(matches!(
            verify(root, unsigned.to_string().as_bytes(), Some(&key)),
            Trust::Unsigned
        ));
        assert!(matches!(
            verify(
                root,
                br#"{"result": "approved", "signature": "x"}"#,
                Some(&key)
            ),
            Trust::Malformed(_)
        ));
        std::fs::write(root.join("adr/001-a.md"), "changed").unwrap();
        assert!(matches!(
            verify(root, &bytes, Some(&key)),
            Trust::Stale { path, .. } if path == "adr/001-a.md"
        ));
        std::fs::remove_file(root.join("adr/001-a.md")).unwrap();
        assert!(matches!(
            verify(root, &bytes, Some(&key)),
            Trust::Stale { why, .. } if why.contains("no longer exists")
        ));
    }

    #[test]
    fn a_file_outside_the_repository_is_not_signed() {
        let dir = tempfile::tempdir().unwrap();
        let mut approval = approval(dir.path());
        approval.judged[0].path = "/etc/passwd".to_owned();
        let key = SigningKey::from_secret([1; super::super::signing::LEN]);
        assert!(render(&approval, &key).is_err());
    }
}
