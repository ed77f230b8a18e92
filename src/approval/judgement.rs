//! `helix-gate approve --override FILE approved|rejected --reason TEXT`: a
//! person's judgement of the latest verdict of a file's current content,
//! recorded in the approval history as the ground truth for the reviewer's
//! false positives and false negatives ([`super::numbers`]).
//!
//! A judgement never grants an approval and never enters the cache: it is a
//! record for `stats` and for `finalize` (a draft whose rejected verdict a
//! person judged `approved` may be finalized). A commit that requires an
//! approval still needs an `approved` review of the content.

use std::path::Path;
use std::time::SystemTime;

use super::history::{self, LatestVerdict, Record, Stage};
use super::verdict::Verdict;
use super::{ApprovalError, cache};
use crate::clock;
use crate::fs::read::{self, Links};

/// Largest file whose content is hashed for a judgement.
const FILE_LIMIT: u64 = 16 * 1024 * 1024;

/// Why a judgement was not recorded (usage problems: exit 2).
#[derive(Debug, thiserror::Error)]
pub enum JudgementError {
    #[error(
        "no verdict of type `{kind}` is recorded for the current content of {file}; run `helix-gate approve {file}` first, then judge its verdict"
    )]
    NoVerdict { kind: String, file: String },
    #[error(
        "the latest verdict of the current content of {file} came from the deterministic checks, not from the reviewer; there is no reviewer verdict to judge"
    )]
    Deterministic { file: String },
    #[error("--reason must not be empty: say why the verdict is right or wrong")]
    NoReason,
    #[error("a judgement is `approved` or `rejected`, not `{0}`")]
    Judgement(String),
    #[error(transparent)]
    Approval(#[from] ApprovalError),
}

/// What was recorded.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The judged verdict.
    pub verdict: LatestVerdict,
    pub judgement: Verdict,
    /// The path as given, relative to the repository.
    pub file: String,
}

impl Recorded {
    /// `false positive`, `false negative`, or `confirmed`.
    pub fn kind(&self) -> &'static str {
        match (
            self.verdict.result == Verdict::Approved,
            self.judgement == Verdict::Approved,
        ) {
            (true, false) => "false negative",
            (false, true) => "false positive",
            _ => "confirmed",
        }
    }
}

/// Record a person's `judgement` of the latest `kind` verdict of `file`'s
/// current content.
pub fn record(
    root: &Path,
    kind: &str,
    file: &Path,
    judgement: Verdict,
    reason: &str,
) -> anyhow::Result<Recorded> {
    if judgement == Verdict::NeedsRevision {
        return Err(JudgementError::Judgement(judgement.as_str().to_owned()).into());
    }
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(JudgementError::NoReason.into());
    }
    let path = crate::paths::absolute(file);
    let display = crate::paths::display(root, &path);
    super::check_paths(root, std::slice::from_ref(&path))?;
    let bytes =
        read::regular(&path, FILE_LIMIT, Links::Follow).map_err(|source| ApprovalError::Read {
            path: display.clone(),
            source,
        })?;
    let content = crate::text::hex(&cache::content_digest(&bytes));
    // The verdict judged is the one for this content with its concept as it is
    // now (the cache key's inputs).
    let concept = crate::engine::Engine::load(root, None)
        .map(|engine| super::inputs::concept_hex(&engine, kind, &path, &bytes))
        .unwrap_or_default();
    let Some(latest) = history::latest_verdict(&history::read(root), kind, &content, &concept)
    else {
        return Err(JudgementError::NoVerdict {
            kind: kind.to_owned(),
            file: display,
        }
        .into());
    };
    if latest.stage == Stage::Deterministic {
        return Err(JudgementError::Deterministic { file: display }.into());
    }
    history::append(
        root,
        &Record::Judgement {
            timestamp: clock::rfc3339(SystemTime::now()),
            approval_type: kind.to_owned(),
            file: display.clone(),
            content,
            approval_id: latest.approval_id.clone(),
            verdict: latest.result,
            judgement,
            reason: reason.to_owned(),
        },
    )
    .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", crate::fs::data_dir::HISTORY_PATH))?;
    Ok(Recorded {
        verdict: latest,
        judgement,
        file: display,
    })
}
