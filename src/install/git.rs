//! Install the git pre-commit shim into the repository's hooks directory.

use crate::cli::ExitStatus;

pub fn install() -> anyhow::Result<ExitStatus> {
    anyhow::bail!("install git: not implemented yet")
}

pub fn uninstall() -> anyhow::Result<ExitStatus> {
    anyhow::bail!("uninstall git: not implemented yet")
}
