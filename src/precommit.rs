//! `helix-gate pre-commit`: validate exactly what is being committed.

use crate::cli::ExitStatus;

pub fn run() -> anyhow::Result<ExitStatus> {
    anyhow::bail!("pre-commit: not implemented yet")
}
