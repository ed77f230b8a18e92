//! Sub-agent approval: an independent reviewer after every deterministic check passes.

use std::path::PathBuf;

use crate::cli::{ExitStatus, Format};

pub fn run(
    _files: &[PathBuf],
    _kind: &str,
    _no_cache: bool,
    _format: Format,
) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("approve: not implemented yet")
}
