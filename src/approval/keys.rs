//! The public keys a repository trusts for signed result files: the files
//! `approvals/keys/<name>.pub`, each one line `ed25519 <64 hex digits> [name]`.
//!
//! A result file of `approve --out` is signed with its author's Ed25519 key
//! ([`super::signing::TeamKey`]). Another account verifies it with the public
//! key alone; which public keys count is the repository's choice, but a
//! repository is a clone anyone can ship, so a key file vouches for a result
//! only while this user's consent (`helix-gate trust`) covers the
//! repository's configuration as it is now: `approvals/**` is part of that
//! digest ([`crate::config::protected::Snapshot`]), so a key added, replaced
//! or removed asks for consent again. The user's own key always verifies.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::signing::{self, LEN};
use crate::config::protected::{APPROVALS_DIR, Snapshot};
use crate::config::trust::{self, TrustState};
use crate::fs::read::{self, Links};
use crate::text::escape_controls;

/// The folder of the trusted public keys, relative to the repository.
pub const KEYS_DIR: &str = "approvals/keys";
/// The first word of a public key file.
const KIND: &str = "ed25519";
/// Far more than one key line.
const KEY_FILE_LIMIT: u64 = 4096;
/// At most this many key files are read.
const MAX_KEYS: usize = 256;

/// Who vouches for a public key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Vouch {
    /// This user's own key.
    Own,
    /// A key file of the repository, under this user's consent (its path).
    Trusted(String),
    /// A key file of the repository (its path) that this user's consent does
    /// not cover (why).
    Untrusted { file: String, why: String },
    /// Nobody: no key file holds it.
    Unknown,
}

/// The public key a key file's text holds.
pub fn parse(text: &str) -> Option<[u8; LEN]> {
    let line = text.lines().find(|l| {
        let l = l.trim();
        !l.is_empty() && !l.starts_with('#')
    })?;
    let mut words = line.split_whitespace();
    if words.next()? != KIND {
        return None;
    }
    crate::text::unhex(words.next()?)?.try_into().ok()
}

/// The text of a key file for `public`, named `name`.
pub fn render(public: &[u8; LEN], name: &str) -> String {
    format!("{KIND} {} {name}\n", crate::text::hex(public))
}

/// The key files of the repository at `root` (repository-relative path, key),
/// sorted; files that are not regular, too large or not a key are skipped.
pub fn repository_keys(root: &Path) -> Vec<(String, [u8; LEN])> {
    let Ok(entries) = std::fs::read_dir(root.join(KEYS_DIR)) else {
        return Vec::new();
    };
    let mut keys: Vec<(String, [u8; LEN])> = entries
        .filter_map(Result::ok)
        .take(MAX_KEYS)
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            if Path::new(&name).extension().is_none_or(|e| e != "pub") {
                return None;
            }
            let bytes = read::regular(&entry.path(), KEY_FILE_LIMIT, Links::Refuse).ok()?;
            let key = parse(std::str::from_utf8(&bytes).ok()?)?;
            Some((format!("{KEYS_DIR}/{name}"), key))
        })
        .collect();
    keys.sort();
    keys
}

/// Who vouches for `public` in the repository at `root` for this user.
pub fn vouch(root: &Path, public: &[u8; LEN]) -> Vouch {
    if let Ok(Some(own)) = signing::load_team_key()
        && own.public_key() == *public
    {
        return Vouch::Own;
    }
    let Some((file, _)) = repository_keys(root)
        .into_iter()
        .find(|(_, key)| key == public)
    else {
        return Vouch::Unknown;
    };
    let digest = Snapshot::read(root).digest();
    match trust::state(root, &digest) {
        TrustState::Trusted { .. } => Vouch::Trusted(file),
        TrustState::Untrusted => Vouch::Untrusted {
            file,
            why: "this user has not trusted this repository's configuration".to_owned(),
        },
        TrustState::Changed { trusted_at } => Vouch::Untrusted {
            file,
            why: format!(
                "this repository's configuration changed since this user trusted it at {}",
                escape_controls(&trusted_at)
            ),
        },
    }
}

/// What `helix-gate key export` wrote.
#[derive(Debug)]
pub struct Exported {
    pub path: PathBuf,
    /// [`signing::public_key_id`] of the key.
    pub key_id: String,
    /// Whether the file is inside `approvals/` (then it needs committing and the
    /// team's `helix-gate trust`).
    pub in_approvals: bool,
}

/// Write this user's public key (made first when there is none) to `out`, or
/// to `approvals/keys/<name>.pub` in `root`, `name` from [`default_name`].
pub fn export(root: &Path, out: Option<&Path>, name: &str) -> anyhow::Result<Exported> {
    let key = signing::load_or_create_team_key()?;
    let public = key.public_key();
    let path = out.map_or_else(
        || root.join(KEYS_DIR).join(format!("{name}.pub")),
        crate::paths::absolute,
    );
    let shown = crate::paths::display(root, &path);
    if let Some(parent) = path.parent() {
        crate::fs::confine::create_dir_all(root, parent)
            .with_context(|| format!("cannot write {shown}"))?;
    }
    crate::fs::atomic::write(root, &path, render(&public, name).as_bytes())
        .with_context(|| format!("cannot write {shown}"))?;
    Ok(Exported {
        in_approvals: Path::new(&shown).starts_with(APPROVALS_DIR),
        path,
        key_id: signing::public_key_id(&public),
    })
}

/// The name of this user's key file: `$USER` (else `$LOGNAME`) with anything
/// but ASCII letters, digits, `.`, `_` and `-` replaced by `-`, lower case;
/// `user` when neither is set.
pub fn default_name() -> String {
    let raw = crate::env::var(crate::env::USER)
        .or_else(|| crate::env::var(crate::env::LOGNAME))
        .unwrap_or_default();
    sanitize(&raw)
}

fn sanitize(raw: &str) -> String {
    let name: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches(['.', '-']).to_owned();
    if name.is_empty() {
        "user".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_files_round_trip_and_reject_anything_else() {
        let public = [7u8; LEN];
        assert_eq!(parse(&render(&public, "ann")), Some(public));
        assert_eq!(
            parse(&format!("# a comment\n\n{}", render(&public, "ann"))),
            Some(public)
        );
        assert_eq!(parse("ssh-ed25519 AAAA"), None);
        assert_eq!(parse("ed25519 0011"), None);
        assert_eq!(parse(""), None);
    }

    #[test]
    fn names_are_sanitized() {
        assert_eq!(sanitize("Ann Lee"), "ann-lee");
        assert_eq!(sanitize("../../etc/passwd"), "etc-passwd");
        assert_eq!(sanitize("a.b_c-d"), "a.b_c-d");
        assert_eq!(sanitize(".."), "user");
        assert_eq!(sanitize(""), "user");
    }
}
