//! Placeholder of the trust records (replaced by the full module).

use std::path::Path;

/// Whether a person trusted a repository's configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TrustState {
    Trusted { at: String },
    Untrusted,
    Changed { trusted_at: String },
}

/// The trust state of the configuration with `digest` in the repository at `root`.
pub fn state(_root: &Path, _digest: &str) -> TrustState {
    TrustState::Untrusted
}
