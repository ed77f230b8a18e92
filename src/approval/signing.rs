//! The per-user secret that signs approval cache entries.
//!
//! A cache entry lets a file pass without a review, and it lives in the work
//! tree (`.helix-gate/approval-cache/`), where a cloned repository or the
//! session's model can put any file. Its name is a SHA-256 over public inputs,
//! so anyone can compute it. What nobody else can compute is an HMAC-SHA256
//! with a secret that never enters the work tree: 32 random bytes in
//! `$HELIX_GATE_STATE_DIR/key`, else `$XDG_STATE_HOME/helix-gate/key`, else
//! `~/.local/state/helix-gate/key`, created with mode 0600 on first use.
//!
//! Only an entry that carries a valid HMAC counts as cached; the key is read
//! only when a cache entry is checked or written.
//!
//! Beside it, `ed25519` holds the 32-byte seed of the user's Ed25519 key
//! ([`TeamKey`]), made and checked the same way (0600, refused when open to
//! others). It signs `approve --out` result files, so that another account of
//! the same team can verify them with the public key alone
//! (`helix-gate key export`, [`super::keys`]), without sharing a secret. It too
//! is read only when a result file is written or verified, never on the hook's
//! no-op path.

use std::fmt;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use hmac::{KeyInit as _, Mac as _};
use sha2::Sha256;

use crate::env;

type HmacSha256 = hmac::Hmac<Sha256>;

/// Length of the secret and of a MAC, in bytes.
pub const LEN: usize = 32;

/// The file name of the key inside the state folder.
const KEY_FILE: &str = "key";
/// The file name of the Ed25519 seed inside the state folder.
const TEAM_KEY_FILE: &str = "ed25519";

/// The secret (never printed).
#[derive(Clone)]
pub struct SigningKey {
    secret: [u8; LEN],
}

impl fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SigningKey(..)")
    }
}

/// The key could not be read or made.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error(
        "no folder for helix-gate's per-user state: set HOME (or XDG_STATE_HOME or {}) to an absolute path",
        env::HELIX_GATE_STATE_DIR
    )]
    NoStateDir,
    #[error("cannot create the signing key {path}: {source}")]
    Create {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("cannot read the signing key {path}: {source}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "the signing key {path} is damaged ({len} bytes, {LEN} expected); delete it and a new one is made (cached approvals are then reviewed again, signed results written again)"
    )]
    Damaged { path: String, len: usize },
    #[error(
        "the signing key {path} is open to other users (mode {mode:04o}), who could forge approvals with it; not used: run `chmod 600 {path}`"
    )]
    Exposed { path: String, mode: u32 },
}

/// helix-gate's per-user state folder ([`env::state_dir`]).
pub fn state_dir() -> Option<PathBuf> {
    env::state_dir()
}

/// Where the key is (or would be).
pub fn key_path() -> Option<PathBuf> {
    state_dir().map(|dir| dir.join(KEY_FILE))
}

/// The key, `None` when none was made yet (then no entry can be valid).
pub fn load() -> Result<Option<SigningKey>, KeyError> {
    load_in(&state_dir().ok_or(KeyError::NoStateDir)?)
}

/// The key in the state folder `dir` (tests name their own folder).
pub fn load_in(dir: &Path) -> Result<Option<SigningKey>, KeyError> {
    read_key(&dir.join(KEY_FILE))
}

/// The key, made first when there is none.
pub fn load_or_create() -> Result<SigningKey, KeyError> {
    let path = key_path().ok_or(KeyError::NoStateDir)?;
    if let Some(key) = read_key(&path)? {
        return Ok(key);
    }
    create(&path)?;
    // Whoever won a race for the first key, every process now uses that one.
    read_key(&path)?.ok_or_else(|| KeyError::Read {
        path: path.display().to_string(),
        source: std::io::ErrorKind::NotFound.into(),
    })
}

fn read_key(path: &Path) -> Result<Option<SigningKey>, KeyError> {
    Ok(read_secret(path)?.map(|secret| SigningKey { secret }))
}

/// The user's Ed25519 key, `None` when none was made yet.
pub fn load_team_key() -> Result<Option<TeamKey>, KeyError> {
    let dir = state_dir().ok_or(KeyError::NoStateDir)?;
    Ok(read_secret(&dir.join(TEAM_KEY_FILE))?.map(TeamKey::from_seed))
}

/// The user's Ed25519 key, made first when there is none.
pub fn load_or_create_team_key() -> Result<TeamKey, KeyError> {
    let path = state_dir().ok_or(KeyError::NoStateDir)?.join(TEAM_KEY_FILE);
    if let Some(seed) = read_secret(&path)? {
        return Ok(TeamKey::from_seed(seed));
    }
    create(&path)?;
    read_secret(&path)?
        .map(TeamKey::from_seed)
        .ok_or_else(|| KeyError::Read {
            path: path.display().to_string(),
            source: std::io::ErrorKind::NotFound.into(),
        })
}

/// The 32 secret bytes at `path`: a private regular file of exactly [`LEN`] bytes.
fn read_secret(path: &Path) -> Result<Option<[u8; LEN]>, KeyError> {
    let read_error = |source| KeyError::Read {
        path: path.display().to_string(),
        source,
    };
    // Only a regular file, opened without blocking: a FIFO or device planted at
    // the key's path is refused instead of hanging (or reading for ever).
    let bytes = match crate::fs::read::regular(path, KEY_READ_LIMIT, crate::fs::read::Links::Follow)
    {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(read_error(e)),
    };
    // helix-gate makes the key 0600; group or other access was given by hand.
    if let Some(mode) = std::fs::metadata(path)
        .ok()
        .as_ref()
        .and_then(crate::fs::platform::mode)
        && mode & 0o077 != 0
    {
        return Err(KeyError::Exposed {
            path: path.display().to_string(),
            mode,
        });
    }
    let secret: [u8; LEN] = bytes.as_slice().try_into().map_err(|_| KeyError::Damaged {
        path: path.display().to_string(),
        len: bytes.len(),
    })?;
    Ok(Some(secret))
}

/// Far more than a key: a slightly longer file is reported as damaged with its length.
const KEY_READ_LIMIT: u64 = 4096;

/// Numbers the temporary files of [`create`] within one process.
static TEMP: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// Write a new random key (or seed) to `path`, complete or not at all: a private
/// temporary file (0600), synced, then hard-linked to its name, which fails
/// when another process made the key first (that key is kept).
fn create(path: &Path) -> Result<(), KeyError> {
    let create_error = |source| KeyError::Create {
        path: path.display().to_string(),
        source,
    };
    let dir = path.parent().unwrap_or(Path::new("/"));
    crate::fs::platform::private_dir(std::fs::DirBuilder::new().recursive(true))
        .create(dir)
        .map_err(create_error)?;
    let mut secret = [0u8; LEN];
    crate::fs::platform::random(&mut secret).map_err(create_error)?;
    // Unique per thread too: the Stop gate runs several approvals at once, and
    // two of them may make the first key together.
    let temp = dir.join(format!(
        ".{KEY_FILE}.{}.{}.tmp",
        std::process::id(),
        TEMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let written =
        crate::fs::platform::private_file(std::fs::OpenOptions::new().write(true).create_new(true))
            .open(&temp)
            .and_then(|mut f| f.write_all(&secret).and_then(|()| f.sync_all()));
    let linked = written.and_then(|()| match std::fs::hard_link(&temp, path) {
        Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(()),
    });
    let _ = std::fs::remove_file(&temp);
    linked.map_err(create_error)
}

/// Length-prefixed fields, so that field boundaries are part of what is signed.
fn mac_over(secret: &[u8; LEN], fields: &[&[u8]]) -> HmacSha256 {
    // HMAC pads a key shorter than the hash's block (64 bytes) with zeros, so
    // the padded secret is the same key, and `new` cannot fail as
    // `new_from_slice` formally can.
    let mut block = [0u8; 64];
    block[..LEN].copy_from_slice(secret);
    let mut mac = HmacSha256::new(&block.into());
    for field in fields {
        mac.update(&(field.len() as u64).to_be_bytes());
        mac.update(field);
    }
    mac
}

impl SigningKey {
    /// HMAC-SHA256 of `fields`.
    pub fn sign(&self, fields: &[&[u8]]) -> [u8; LEN] {
        mac_over(&self.secret, fields)
            .finalize()
            .into_bytes()
            .into()
    }

    /// Whether `tag` is the HMAC of `fields` (compared in constant time).
    pub fn verify(&self, fields: &[&[u8]], tag: &[u8]) -> bool {
        mac_over(&self.secret, fields).verify_slice(tag).is_ok()
    }

    /// A public name of the key (16 hex digits): a SHA-256 over a fixed label and
    /// the secret, so a signed file can say which key signed it (and a file
    /// signed by another user's key be told apart from one changed after
    /// signing) without revealing anything of the secret.
    pub fn id(&self) -> String {
        use sha2::Digest as _;
        let mut h = Sha256::new();
        h.update(b"helix-gate signing key id v1");
        h.update(self.secret);
        crate::text::hex(&h.finalize()[..8])
    }

    #[cfg(test)]
    pub(crate) fn from_secret(secret: [u8; LEN]) -> Self {
        SigningKey { secret }
    }
}

/// Length of an Ed25519 signature, in bytes.
pub const SIGNATURE_LEN: usize = 64;

/// The user's Ed25519 key (the secret is never printed). Why Ed25519 and
/// `ed25519-dalek`: a result signed with it can be checked by anyone who has
/// the 32-byte public key, so a team verifies each other's results without a
/// shared secret; the signature is deterministic (no random numbers at signing
/// time), and `ed25519-dalek` 2 is the maintained, audited Rust implementation
/// (RFC 8032, strict verification available).
pub struct TeamKey {
    key: ed25519_dalek::SigningKey,
}

impl fmt::Debug for TeamKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TeamKey({})", public_key_id(&self.public_key()))
    }
}

impl TeamKey {
    fn from_seed(seed: [u8; LEN]) -> Self {
        TeamKey {
            key: ed25519_dalek::SigningKey::from_bytes(&seed),
        }
    }

    /// The public half, shareable.
    pub fn public_key(&self) -> [u8; LEN] {
        self.key.verifying_key().to_bytes()
    }

    /// The Ed25519 signature of `fields` (length-prefixed, as [`SigningKey::sign`]).
    pub fn sign(&self, fields: &[&[u8]]) -> [u8; SIGNATURE_LEN] {
        use ed25519_dalek::Signer as _;
        self.key.sign(&framed(fields)).to_bytes()
    }

    #[cfg(test)]
    pub(crate) fn from_test_seed(seed: [u8; LEN]) -> Self {
        TeamKey::from_seed(seed)
    }
}

/// Whether `signature` is the Ed25519 signature of `fields` by `public`
/// (strict verification: no malleable or small-order forms).
pub fn verify_team(public: &[u8; LEN], fields: &[&[u8]], signature: &[u8]) -> bool {
    let Ok(key) = ed25519_dalek::VerifyingKey::from_bytes(public) else {
        return false;
    };
    let Ok(signature) = ed25519_dalek::Signature::from_slice(signature) else {
        return false;
    };
    key.verify_strict(&framed(fields), &signature).is_ok()
}

/// A public name of an Ed25519 public key (16 hex digits).
pub fn public_key_id(public: &[u8; LEN]) -> String {
    use sha2::Digest as _;
    let mut h = Sha256::new();
    h.update(b"helix-gate ed25519 key id v1");
    h.update(public);
    crate::text::hex(&h.finalize()[..8])
}

/// `fields` length-prefixed into one message, so that field boundaries are signed.
fn framed(fields: &[&[u8]]) -> Vec<u8> {
    let mut message = Vec::new();
    for field in fields {
        message.extend_from_slice(&(field.len() as u64).to_be_bytes());
        message.extend_from_slice(field);
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_sha256_matches_rfc_4231() {
        // RFC 4231 test case 2 ("Jefe"): the primitive itself.
        let mut mac = <HmacSha256 as hmac::KeyInit>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        let tag: [u8; 32] = mac.finalize().into_bytes().into();
        assert_eq!(
            crate::text::hex(&tag),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn the_padded_key_is_the_same_hmac_key() {
        let secret = [7u8; LEN];
        let mut direct = <HmacSha256 as hmac::KeyInit>::new_from_slice(&secret).unwrap();
        direct.update(&1u64.to_be_bytes());
        direct.update(b"x");
        let direct: [u8; 32] = direct.finalize().into_bytes().into();
        assert_eq!(SigningKey::from_secret(secret).sign(&[b"x"]), direct);
    }

    #[test]
    fn ed25519_matches_rfc_8032_and_signs_field_boundaries() {
        // RFC 8032 7.1 test 1: the empty message.
        let seed: [u8; LEN] =
            crate::text::unhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
                .unwrap()
                .try_into()
                .unwrap();
        let key = TeamKey::from_seed(seed);
        assert_eq!(
            crate::text::hex(&key.public_key()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
        );
        let empty = {
            use ed25519_dalek::Signer as _;
            key.key.sign(b"").to_bytes()
        };
        assert!(crate::text::hex(&empty).starts_with("e5564300c360ac72"));
        let sig = key.sign(&[b"ab", b"c"]);
        assert!(verify_team(&key.public_key(), &[b"ab", b"c"], &sig));
        assert!(!verify_team(&key.public_key(), &[b"a", b"bc"], &sig));
        let other = TeamKey::from_seed([3; LEN]);
        assert!(!verify_team(&other.public_key(), &[b"ab", b"c"], &sig));
        assert!(!verify_team(&key.public_key(), &[b"ab", b"c"], &sig[..63]));
        assert!(!format!("{key:?}").contains(&crate::text::hex(&seed)));
    }

    #[test]
    fn signatures_depend_on_key_and_field_boundaries() {
        let a = SigningKey::from_secret([1; LEN]);
        let b = SigningKey::from_secret([2; LEN]);
        let tag = a.sign(&[b"ab", b"c"]);
        assert!(a.verify(&[b"ab", b"c"], &tag));
        assert!(!a.verify(&[b"a", b"bc"], &tag));
        assert!(!b.verify(&[b"ab", b"c"], &tag));
        assert!(!a.verify(&[b"ab", b"c"], &tag[..31]));
        assert_eq!(format!("{a:?}"), "SigningKey(..)");
    }

    #[test]
    fn a_new_key_is_private_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/helix-gate/key");
        assert!(read_key(&path).unwrap().is_none());
        create(&path).unwrap();
        let first = read_key(&path).unwrap().unwrap();
        // Unix modes; Windows has none (the profile's ACL keeps the state private).
        let mode = |p: &Path| crate::fs::platform::mode(&std::fs::metadata(p).unwrap());
        if let Some(file_mode) = mode(&path) {
            assert_eq!(file_mode & 0o777, 0o600);
            assert_eq!(mode(path.parent().unwrap()).unwrap() & 0o777, 0o700);
        }
        // A second creation (a lost race) keeps the first key.
        create(&path).unwrap();
        assert_eq!(read_key(&path).unwrap().unwrap().secret, first.secret);
        assert_ne!(first.secret, [0; LEN]);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, ["key"]);

        std::fs::write(&path, b"short").unwrap();
        assert!(matches!(
            read_key(&path),
            Err(KeyError::Damaged { len: 5, .. })
        ));
    }

    #[test]
    #[cfg(unix)]
    fn a_key_open_to_others_is_refused_with_the_fix() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("key");
        create(&path).unwrap();
        assert!(read_key(&path).unwrap().is_some());
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = read_key(&path).unwrap_err();
        assert!(
            matches!(err, KeyError::Exposed { mode: 0o644, .. }),
            "{err}"
        );
        assert!(
            err.to_string().contains("(mode 0644)")
                && err
                    .to_string()
                    .contains(&format!("run `chmod 600 {}`", path.display())),
            "{err}"
        );
    }
}
