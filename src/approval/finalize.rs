//! `finalize` with the approval in mind: a draft whose latest verdict is
//! `rejected` or `needs_revision` is not finalized (unless forced), and an
//! approval of the draft is carried over to the finalized file.
//!
//! Why carry the verdict over instead of keying the cache on the content with
//! `adr_id` normalised: the cache key stays "exactly these bytes were judged",
//! with no normalisation rule that a hand edit could exploit (an `adr_id`
//! changed by hand still needs a review, and the number matters to the
//! reviewer's conflicts check). Only finalize knows that the single line it
//! rewrote is the only difference (its [`Plan::content`] is the draft with the
//! `adr_id` line set), and it has just validated the result deterministically,
//! so it, and only it, signs a cache entry for the new content with the draft's
//! verdict. File name and INDEX.md are not part of the key at all. Existing
//! cache entries keep their keys.

use std::path::Path;

use super::lookup::ApprovalLookup;
use super::outcome::ADR_TYPE;
use super::{cache, history};
use crate::adr_dir::Workspace;
use crate::adr_dir::finalize::{self, Finalization, Plan};
use crate::engine::Engine;
use crate::fs::read::{self, Links};

use super::verdict::Verdict;

/// What happened around the finalize.
#[derive(Debug)]
pub struct Finalized {
    pub finalization: Finalization,
    /// For the person: a forced finalize, a carried-over approval, or why none
    /// was carried over.
    pub notes: Vec<String>,
}

/// Largest draft read for the verdict check (finalize enforces its own limit).
const DRAFT_LIMIT: u64 = 16 * 1024 * 1024;

/// Finalize `draft` in the repository at `root`; `force` finalizes a draft
/// whose latest verdict is `rejected` or `needs_revision`. The repository's
/// engine is loaded once, for the recovery, the verdict's concept, the finalize
/// and the carried-over approval.
pub fn run(
    root: &Path,
    draft: &Path,
    options: finalize::Options,
    force: bool,
) -> anyhow::Result<Finalized> {
    let ws = Workspace::of(Engine::load(root, None)?);
    let mut notes = Vec::new();
    if !options.dry_run {
        notes.extend(crate::adr_dir::recover_in(&ws)?);
    }
    let path = crate::paths::absolute(draft);
    // An unreadable draft is finalize's to report.
    if let Ok(bytes) = read::regular(&path, DRAFT_LIMIT, Links::Follow) {
        let content = crate::text::hex(&cache::content_digest(&bytes));
        // The concept is part of what was reviewed (as in the cache key).
        let concept = super::inputs::concept_hex(&ws.engine, ADR_TYPE, &path, &bytes);
        let latest = history::latest_verdict(&history::read(root), ADR_TYPE, &content, &concept);
        if let Some(latest) = latest {
            let verdict = latest.judgement.unwrap_or(latest.result);
            if verdict != Verdict::Approved {
                let display = crate::paths::display(root, &path);
                let why = format!(
                    "the latest review of this content of {display} is {}{} (approval {}, {})",
                    latest.result.as_str(),
                    if latest.judgement.is_some() {
                        ", confirmed by a person (approve --override)"
                    } else {
                        ""
                    },
                    latest.approval_id,
                    latest.timestamp
                );
                if !force {
                    return Ok(Finalized {
                        finalization: Finalization::Refused {
                            report: None,
                            reason: format!(
                                "{why}; nothing was moved. Fix the findings and run `helix-gate approve {display}` again, or finalize anyway with --force"
                            ),
                        },
                        notes,
                    });
                }
                notes.push(format!("finalizing although {why} (--force)"));
            }
        }
    }
    ws.check_dir()?;
    let finalization = finalize::run(&ws, draft, options)?;
    if let Finalization::Finalized(plan) = &finalization {
        notes.extend(carry_over(root, &ws.engine, plan));
        notes.extend(record_move(plan));
    }
    Ok(Finalized {
        finalization,
        notes,
    })
}

/// A note when the move could not be recorded ([`crate::adr_dir::moves`]): a
/// session that wrote the draft would not check the ADR at its Stop until the
/// next `finalize` or `doctor` records it.
fn record_move(plan: &Plan) -> Option<String> {
    plan.record_error.as_ref().map(|e| {
        format!(
            "could not record the move in {} ({e}); a session that wrote {} will not check {} at its Stop until the next `helix-gate finalize` or `doctor`",
            crate::fs::data_dir::FINALIZED_PATH,
            plan.draft_display,
            plan.target_display
        )
    })
}

/// Sign the draft's cached `approved` verdict for the finalized content. Any
/// problem only means there is nothing to carry over (the file then needs a
/// review like any other); a note says so when an approval was lost.
fn carry_over(root: &Path, engine: &Engine, plan: &Plan) -> Option<String> {
    let lookup = ApprovalLookup::load(root, ADR_TYPE)?;
    // The concept is part of the key; finalize may rewrite the `concept:` path
    // for the new folder, so each content resolves it from its own place.
    // Only an approval is carried over (a forced finalize of a rejected draft must
    // not look approved, nor be re-reviewed for free as if it were).
    let document = lookup.approval(&lookup.key(engine, &plan.draft, plan.original()))?;
    let target = &plan.target_display;
    Some(
        match lookup.store(
            &lookup.key(engine, &plan.target, plan.content().as_bytes()),
            &document,
        ) {
            Ok(()) => format!(
                "approval {} of the draft carried over to {target} (finalize changed only {})",
                document.approval_id,
                plan.changes()
            ),
            Err(e) => format!(
                "the draft's approval {} could not be carried over to {target} ({e}); run `helix-gate approve {target}`",
                document.approval_id
            ),
        },
    )
}
