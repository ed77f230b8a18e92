//! Codex's `apply_patch`: one call may add, update, move and delete several
//! files. Each path it writes is decided exactly as a Write/Edit of that file
//! ([`tool_use`]): the same refusal of `.helix-gate/`, the same protection of
//! the configuration, the same check of an ADR with its own budget and block
//! reason. The answers of one call are merged into one.
//!
//! - `PreToolUse`: every path the patch touches counts as written, deleted and
//!   moved-away ones too (deleting a configuration file changes it as much as
//!   rewriting it). One refused path refuses the whole call, the way Codex
//!   applies a patch: all or nothing.
//! - `PostToolUse` (Codex fires it only after the patch applied): the added,
//!   updated and moved-to files are checked. A deleted ADR (or the old name of
//!   a moved one) has no content left to check: it is logged as skipped, and
//!   the Stop gate, which checks what the session changed against its
//!   baseline, counts a deleted ADR as passing.
//!
//! A patch helix-gate cannot read while Codex could is a field the decision
//! needs: it follows the failure policy (`Context::needed`), never a silent pass.

use std::path::Path;

use super::ctx::Context;
use super::policy::InfraError;
use super::ruling::{Ruling, merge, skipped};
use super::tool_use;
use crate::agent::event::HookEvent;
use crate::agent::output::HookOutput;
use crate::agent::patch::Patch;
use crate::paths;

/// The touched paths, or the failure policy's error when the patch is unreadable.
fn touched<'a>(patch: &'a Result<Patch, String>, ctx: &Context) -> Result<&'a Patch, InfraError> {
    patch.as_ref().map_err(|problem| ctx.needed(problem))
}

/// `PreToolUse` on `apply_patch`: refuse the call when any path it touches is
/// in `.helix-gate/` or is helix-gate's configuration; silence otherwise.
pub(super) fn pre_tool_use(
    event: &HookEvent,
    patch: &Result<Patch, String>,
    ctx: &Context,
) -> Result<Ruling, InfraError> {
    let mut refusals = Vec::new();
    let mut written = Vec::new();
    for touched in touched(patch, ctx)? {
        let file = tool_use::resolve(event, ctx, &touched.path)?;
        let ruling = tool_use::pre_write(ctx, &file);
        if ruling.output.is_some() {
            refusals.push(ruling);
        } else if touched.change.writes_content() {
            written.push(file);
        }
    }
    // A patch that makes an ADR Accepted: refused before it lands, as a Write.
    if refusals.is_empty() {
        refusals.extend(accepting(event, patch, ctx)?);
    }
    if refusals.is_empty() && super::governed::may_govern(&ctx.root) {
        // The decisions that govern the files it writes, for the model.
        let contexts: Vec<Ruling> = written
            .iter()
            .map(|file| super::governed::pre_context(ctx, file))
            .collect();
        return Ok(merge(contexts, event));
    }
    Ok(refuse_all(refusals))
}

/// The refusals of the patch's writes that would make an ADR Accepted: each
/// Markdown file whose added lines say "accepted", its text after the patch
/// worked out from the file now ([`crate::agent::patch::Touched::new_text`]).
fn accepting(
    event: &HookEvent,
    patch: &Result<Patch, String>,
    ctx: &Context,
) -> Result<Vec<Ruling>, InfraError> {
    let mut refusals = Vec::new();
    for touched in touched(patch, ctx)? {
        let adds_the_word = touched
            .lines
            .iter()
            .any(|l| l.starts_with('+') && l.to_ascii_lowercase().contains("accepted"));
        if !(touched.change.writes_content() && adds_the_word) {
            continue;
        }
        let file = tool_use::resolve(event, ctx, &touched.path)?;
        if !file
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("md"))
        {
            continue;
        }
        let current = crate::fs::read::regular(&file, ADR_LIMIT, crate::fs::read::Links::Follow)
            .ok()
            .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
        let Some(after) = touched.new_text(current.as_deref()) else {
            continue;
        };
        let ruling =
            tool_use::pre_accept_text(ctx, &file, &crate::agent::event::WriteText::Content(after))?;
        if ruling.output.is_some() {
            refusals.push(ruling);
        }
    }
    Ok(refusals)
}

/// The largest ADR whose text after a patch is worked out.
const ADR_LIMIT: u64 = 4 << 20;

/// One refusal for the refused paths of a call: a deny when any of them is
/// denied, else the question to the person; every reason, every log record.
pub(super) fn refuse_all(refusals: Vec<Ruling>) -> Ruling {
    let mut reasons: Vec<String> = Vec::new();
    let mut denied = false;
    let mut decisions = Vec::new();
    for ruling in refusals {
        decisions.extend(ruling.decisions);
        let Some(specific) = ruling.output.and_then(|o| o.hook_specific) else {
            continue;
        };
        denied |= specific.permission_decision == Some("deny");
        if let Some(reason) = specific.permission_decision_reason
            && !reasons.contains(&reason)
        {
            reasons.push(reason);
        }
    }
    if reasons.is_empty() {
        return Ruling {
            output: None,
            decisions,
        };
    }
    let reason = reasons.join("\n\n");
    Ruling {
        output: Some(if denied {
            HookOutput::deny(reason)
        } else {
            HookOutput::ask(reason)
        }),
        decisions,
    }
}

/// `PostToolUse` on `apply_patch`: every file the patch wrote, checked as a
/// Write of it; one answer for all of them.
pub(super) fn post_tool_use(
    event: &HookEvent,
    patch: &Result<Patch, String>,
    root: &Path,
    ctx: &Context,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    let mut rulings = Vec::new();
    let mut gone = Vec::new();
    let mut seen = Vec::new();
    for touched in touched(patch, ctx)? {
        let file = tool_use::resolve(event, ctx, &touched.path)?;
        // A file named twice in one patch is one save: checked and counted once.
        if seen.contains(&file) {
            continue;
        }
        seen.push(file.clone());
        if touched.change.writes_content() {
            rulings.push(tool_use::post_write(event, root, &file, ctx, notes)?);
        } else if let Some(rel) = paths::relative_to_real(root, &file) {
            gone.push(rel);
        }
    }
    rulings.extend(deleted_adrs(root, &gone, ctx)?);
    Ok(merge(rulings, event))
}

/// A skip record for each deleted (or moved-away) path that names an ADR:
/// nothing is left to check. Other deleted files are not logged. The settings
/// are read only when a deleted path could be an ADR (see `tool_use`'s no-op
/// path).
fn deleted_adrs(root: &Path, gone: &[String], ctx: &Context) -> Result<Vec<Ruling>, InfraError> {
    let own_settings = root.join(crate::config::settings::SETTINGS_PATH).exists();
    let maybe_adr = |rel: &String| own_settings || rel.to_ascii_lowercase().ends_with(".md");
    if !gone.iter().any(maybe_adr) {
        return Ok(Vec::new());
    }
    let settings = ctx.settings()?;
    let matcher = settings
        .adr_matcher()
        .map_err(|e| InfraError::new(e, Some(&settings)))?;
    Ok(gone
        .iter()
        .filter(|rel| matcher.is_adr(rel))
        .map(|rel| {
            skipped(
                rel.clone(),
                "deleted (or moved away) by apply_patch: no content left to check",
            )
        })
        .collect())
}
