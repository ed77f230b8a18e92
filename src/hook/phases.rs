//! `PostToolUse` for the consultant's phase plan (`output/phases.yaml`, anywhere below the
//! project): checked like an ADR on every save, with the same block, budget and log.
//!
//! The plan is charged under its own budget key but never joins the session's touched ADRs:
//! the Stop gate and the reviewer are for ADRs, and a plan needs neither.

use std::path::Path;

use super::deadline::Deadline;
use super::event::HookEvent;
use super::policy::{InfraError, load_engine, load_settings, need_session};
use super::ruling::{Ruling, count, session_id, skipped};
use super::tool_use::{charged_answer, count_write};
use crate::diagnostic::Severity;

/// Whether the project-relative path `rel` is a consultant's phase plan: `output/phases.yaml`
/// at the project root or in any folder below it (`projects/sessions/<id>/output/phases.yaml`).
pub(super) fn is_plan(rel: &str) -> bool {
    rel == "output/phases.yaml" || rel.ends_with("/output/phases.yaml")
}

/// Check the saved plan at `path` (`rel` in the project) and answer as for an ADR.
pub(super) fn post_tool_use(
    event: &HookEvent,
    root: &Path,
    path: &Path,
    rel: String,
    deadline: &Deadline,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    let settings = load_settings(root, deadline)?;
    need_session(event, &settings)?;
    if !crate::fs::confine::inside(root, path) {
        notes.push(format!("{rel} points outside the project; not read"));
        return Ok(skipped(rel, "symlink leads outside the project"));
    }
    let budget = settings.hook.budget;
    let engine = load_engine(root, settings)?;
    let report = match engine.check_file(path) {
        Ok(checked) => checked.report,
        Err(e) if e.cause.kind() == std::io::ErrorKind::NotFound => {
            return Ok(skipped(rel, "file no longer exists"));
        }
        Err(e) => return Err(InfraError::new(e.to_string(), Some(&engine.settings))),
    };
    let errors = count(&report, Severity::Error);
    let (charge, note) = count_write(root, session_id(event), &rel, errors, budget, false)
        .map_err(|e| InfraError::new(e.to_string(), Some(&engine.settings)))?;
    notes.extend(note.clone());
    Ok(charged_answer(&rel, &report, charge.as_ref(), note, budget))
}
