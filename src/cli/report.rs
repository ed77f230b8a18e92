//! `helix-gate report`: the decision log and the approval history as one HTML
//! page ([`crate::report`]), written to a file or printed.

use std::path::Path;

use super::ExitStatus;
use super::terminal::{current_root, print};
use crate::text::escape_controls;

pub(super) fn run(out: Option<&Path>) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    let report = crate::report::build(&root);
    if out.is_some_and(|p| p == Path::new("-")) {
        print(&report.page)?;
        return Ok(ExitStatus::Success);
    }
    let path = crate::report::write(&root, &report.page, out)?;
    print(&format!(
        "wrote {} ({} decisions, {} approval records)\n",
        escape_controls(&crate::paths::display(&root, &path)),
        report.decisions,
        report.approval_records
    ))?;
    Ok(ExitStatus::Success)
}
