//! ADR chores: next number, finalize, index, doctor.

use std::path::Path;

use crate::cli::{ExitStatus, Format};

pub fn next_number() -> anyhow::Result<ExitStatus> {
    anyhow::bail!("next-number: not implemented yet")
}

pub fn finalize(_draft: &Path, _dry_run: bool) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("finalize: not implemented yet")
}

pub fn index(_check: bool, _write: bool) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("index: not implemented yet")
}

pub fn doctor(_format: Format) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("doctor: not implemented yet")
}
