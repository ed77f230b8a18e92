//! The hook's decision log (`.helix-gate/log.jsonl`), `helix-gate log` and `stats`.

use crate::cli::{ExitStatus, Format};

pub fn show(_tail: Option<usize>) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("log: not implemented yet")
}

pub fn stats(_format: Format) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("stats: not implemented yet")
}
