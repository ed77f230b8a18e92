//! `helix-gate approve --override FILE approved|rejected --reason TEXT`: a
//! person's judgement of the latest verdict of a file's current content,
//! recorded in the approval history as the ground truth for the reviewer's
//! false positives and false negatives ([`super::numbers`]).
//!
//! Seed 001's `escalate` means a person decides, so a person's `approved`
//! of a verdict that was not `approved` is an override: it counts as an
//! approval of exactly that content. It is stored as a signed cache entry
//! ([`Stage::Override`], under the content's cache key), so the commit with
//! `required_on_commit`, `approve` and the Stop gate accept it, and a later
//! edit (another key) needs a review again; with `--out` it is also written as
//! a signed result file that `approval_passed` accepts. A `rejected` judgement
//! only records.
//!
//! A judgement is a person's: it is refused inside an agent's session (the
//! variables agents set for their tools and hooks, [`env::agent_session`]).
//! That keeps an agent from approving its own work by accident or by
//! instruction; a model that deliberately unsets those variables in its shell
//! is not stopped by it (see the security chapter).

use std::path::Path;
use std::time::SystemTime;

use super::history::{self, LatestVerdict, Record, Stage};
use super::lookup::{self, ApprovalLookup};
pub use super::outcome::PersonOverride;
use super::outcome::{AgentContext, ApprovalError, ResultDocument};
use super::result_file::JudgedFile;
use super::verdict::Verdict;
use super::{cache, inputs, pipeline, run_dir, signing};
use crate::fs::read::{self, Links};
use crate::{clock, env};

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
    #[error(
        "`approve --override` records a person's decision and is refused inside an agent's session ({var} is set): a person runs it in their own terminal"
    )]
    AgentSession { var: &'static str },
    #[error(
        "cannot grant the override: approval type `{kind}` is not configured, or its instructions cannot be read (`helix-gate doctor` says why)"
    )]
    NoType { kind: String },
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
    /// An override: the approval it granted (stored signed in the cache), and
    /// the content it is for (for a signed result file).
    pub granted: Option<(ResultDocument, JudgedFile)>,
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
    if let Some(var) = env::agent_session() {
        return Err(JudgementError::AgentSession { var }.into());
    }
    if judgement == Verdict::NeedsRevision {
        return Err(JudgementError::Judgement(judgement.as_str().to_owned()).into());
    }
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(JudgementError::NoReason.into());
    }
    let path = crate::paths::absolute(file);
    let display = crate::paths::display(root, &path);
    pipeline::check_paths(root, std::slice::from_ref(&path))?;
    let bytes =
        read::regular(&path, FILE_LIMIT, Links::Follow).map_err(|source| ApprovalError::Read {
            path: display.clone(),
            source,
        })?;
    let content = crate::text::hex(&cache::content_digest(&bytes));
    // The verdict judged is the one for this content with its concept as it is
    // now (the cache key's inputs).
    let engine = crate::engine::Engine::load(root, None);
    let concept = engine
        .as_ref()
        .map(|engine| inputs::concept_hex(engine, kind, &path, &bytes))
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
    let now = SystemTime::now();
    // An override is granted (stored) before it is recorded: a history line
    // never claims an approval that the cache does not hold.
    let granted =
        if judgement == Verdict::Approved && latest.result != Verdict::Approved {
            let document = override_document(root, kind, &display, &latest, reason, now)?;
            let lookup = ApprovalLookup::load_with(root, kind, signing::load_or_create()?)
                .ok_or_else(|| JudgementError::NoType {
                    kind: kind.to_owned(),
                })?;
            let key = lookup.key(&engine?, &path, &bytes);
            lookup
                .store(&key, &document)
                .map_err(|e| anyhow::anyhow!("cannot store the override of {display}: {e}"))?;
            Some((document, JudgedFile::new(&display, &bytes)))
        } else {
            None
        };
    history::append(
        root,
        &Record::Judgement {
            timestamp: clock::rfc3339(now),
            approval_type: kind.to_owned(),
            file: display.clone(),
            content,
            approval_id: latest.approval_id.clone(),
            verdict: latest.result,
            judgement,
            reason: reason.to_owned(),
            grants: granted.is_some(),
        },
    )
    .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", crate::fs::data_dir::HISTORY_PATH))?;
    Ok(Recorded {
        verdict: latest,
        judgement,
        file: display,
        granted,
    })
}

/// The approval a person's override grants: `approved` by [`Stage::Override`],
/// with the overridden verdict and the reason, and the type's required
/// confidence met (a person's decision is not a reviewer's guess).
fn override_document(
    root: &Path,
    kind: &str,
    display: &str,
    latest: &LatestVerdict,
    reason: &str,
    now: SystemTime,
) -> anyhow::Result<ResultDocument> {
    let required_confidence = lookup::settings(root)?
        .get(kind)
        .map_or(1.0, |t| t.required_confidence);
    Ok(ResultDocument {
        approval_id: run_dir::new_id(now),
        approval_type: kind.to_owned(),
        timestamp: clock::rfc3339(now),
        files: vec![display.to_owned()],
        result: Verdict::Approved,
        reviewer_result: None,
        confidence: 1.0,
        required_confidence,
        findings: Vec::new(),
        recommendations: Vec::new(),
        summary: Some(format!(
            "Approved by a person's override of the reviewer's {} (approval {}): {reason}",
            latest.result.as_str(),
            latest.approval_id
        )),
        stage: Stage::Override,
        infrastructure_failure: None,
        agent_context: AgentContext::default(),
        person_override: Some(PersonOverride {
            reason: reason.to_owned(),
            overridden_approval_id: latest.approval_id.clone(),
            overridden_result: latest.result,
        }),
    })
}
