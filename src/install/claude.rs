//! Register the hook in Claude Code settings, merging with existing hooks.

use crate::cli::{ExitStatus, Scope};

pub fn install(_scope: Scope) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("install claude: not implemented yet")
}

pub fn uninstall(_scope: Scope) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("uninstall claude: not implemented yet")
}
