//! The error type of the git access layer.

use std::path::PathBuf;

/// Everything that can go wrong while reading the repository, its index or its objects.
///
/// The variants are meant to be branched on: `NotARepository` and `Bare` are "nothing to check"
/// situations for a pre-commit hook, `BlobTooLarge` and `NotABlob` are per-file policy outcomes,
/// the `String`-carrying variants are genuine failures whose text already contains gix's cause chain.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// No repository was found at `path` (`GIT_DIR` points nowhere valid, or discovery walked up
    /// to the filesystem root, a ceiling directory or a filesystem boundary without finding one).
    #[error("not a git repository (or any of the parent directories): {}", path.display())]
    NotARepository {
        /// The `GIT_DIR` value or the directory discovery started from.
        path: PathBuf,
    },
    /// The repository has no work tree, hence no index that a commit could be created from.
    #[error("the repository is bare: there is no work tree and no staged index to check")]
    Bare,
    /// The repository was found but could not be opened (bad config, inconsistent environment, ...).
    #[error("could not open the git repository: {0}")]
    Open(String),
    /// The index file could not be read or decoded, or HEAD could not be flattened for comparison.
    #[error("could not read the staged index: {0}")]
    Index(String),
    /// An object could not be found or decoded.
    #[error("could not read a git object: {0}")]
    Object(String),
    /// A configuration value could not be interpreted (e.g. `core.hooksPath` with an unresolvable `~`).
    #[error("invalid git configuration: {0}")]
    Config(String),
    /// The staged blob is larger than the caller's limit; it was not loaded.
    #[error("staged file `{path}` is {size} bytes, above the limit of {limit} bytes")]
    BlobTooLarge {
        /// Repository-relative path of the entry.
        path: String,
        /// Uncompressed size of the blob in bytes, as recorded in the object header.
        size: u64,
        /// The limit the caller passed.
        limit: u64,
    },
    /// The entry does not refer to a blob (a submodule/gitlink entry, or a corrupt index).
    #[error("staged entry `{path}` is a {kind}, not a file blob")]
    NotABlob {
        /// Repository-relative path of the entry.
        path: String,
        /// What it is instead, e.g. `"submodule commit"` or `"tree"`.
        kind: String,
    },
}

/// Render a gix error with its cause chain on one line: `outer: cause: root cause`.
pub(crate) fn chain(err: &gix::Error) -> String {
    let mut out = err.to_string();
    let mut source = std::error::Error::source(err);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !out.ends_with(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        source = cause.source();
    }
    out
}
