//! What the records say, for the entry points that do not run a reviewer: the
//! approval settings, the approval coverage of the ADRs, the signed cache lookup of
//! the pre-commit hook ([`ApprovalLookup`]), the figures of `helix-gate stats` and
//! the escalation record of the Stop gate.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use anyhow::Context as _;

use super::history::{self, HistorySummary};
use super::inputs::concept_digests;
use super::outcome::{ADR_TYPE, ResultDocument};
use super::settings::{self, ApprovalSettings};
use super::verdict::Verdict;
use super::{cache, instructions, numbers, signing};
use crate::clock;
use crate::engine::Engine;
use crate::fs::data_dir;

/// The approval settings of the repository at `root` (embedded defaults
/// merged with its `config/approvals.yaml`): per type `enabled`, `timeout`,
/// `on_rejection` and the rest; `required_on_commit` for pre-commit.
pub fn settings(root: &Path) -> anyhow::Result<ApprovalSettings> {
    Ok(settings::load(root)?)
}

/// How many of the repository's ADRs have a current approval: a signed
/// `approved` verdict cached for exactly their content now (and their
/// concept). The seeds ask for more than 90 % ([`numbers::TARGETS`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct Coverage {
    pub adrs: usize,
    pub approved: usize,
    /// `approved / adrs`; None without ADRs.
    pub share: Option<f64>,
    pub target: f64,
}

/// [`Coverage`] of the repository at `root` (no ADRs, or no configuration:
/// nothing covered). Reads every ADR; never starts a reviewer.
pub fn coverage(root: &Path) -> Coverage {
    let mut out = Coverage {
        target: numbers::TARGETS.approval_coverage,
        ..Coverage::default()
    };
    let Ok(engine) = Engine::load(root, None) else {
        return out;
    };
    let Ok(adrs) = engine.repository_adrs() else {
        return out;
    };
    let lookup = ApprovalLookup::load(root, ADR_TYPE);
    let limit = engine.settings.adr.max_file_size;
    out.adrs = adrs.len();
    out.approved = adrs
        .iter()
        .filter(|path| {
            lookup.as_ref().is_some_and(|lookup| {
                crate::fs::read::read_limited(path, limit)
                    .is_ok_and(|bytes| lookup.is_approved(&engine, path, &bytes))
            })
        })
        .count();
    #[expect(
        clippy::cast_precision_loss,
        reason = "ADR counts stay far below 2^52, where f64 is exact"
    )]
    {
        out.share = (out.adrs > 0).then(|| out.approved as f64 / out.adrs as f64);
    }
    out
}

/// Cached approvals of one type, with its settings and reviewer instructions
/// read once (pre-commit asks for every staged ADR). Never starts a reviewer
/// and never fails: any problem means "not approved". The path is not part of
/// the cache key, so a file that moves unchanged keeps its approval.
#[derive(Debug)]
pub struct ApprovalLookup {
    root: PathBuf,
    kind: String,
    model: String,
    instructions: instructions::Instructions,
    required_confidence: f64,
    signing: signing::SigningKey,
}

impl ApprovalLookup {
    /// None when the type is unknown, its settings or instructions cannot be
    /// read, or there is no signing key (no entry can be valid then): then
    /// nothing counts as approved.
    pub fn load(root: &Path, kind: &str) -> Option<ApprovalLookup> {
        ApprovalLookup::load_with(root, kind, signing::load().ok()??)
    }

    /// [`ApprovalLookup::load`] with a given signing key.
    pub fn load_with(
        root: &Path,
        kind: &str,
        signing: signing::SigningKey,
    ) -> Option<ApprovalLookup> {
        let settings = settings::load(root).ok()?;
        let type_settings = settings.get(kind)?;
        let instructions = instructions::load(root, type_settings).ok()?;
        Some(ApprovalLookup {
            root: root.to_path_buf(),
            kind: kind.to_owned(),
            model: type_settings.model.clone(),
            instructions,
            required_confidence: type_settings.required_confidence,
            signing,
        })
    }

    /// The cache key of `bytes` at `path` reviewed alone under this type. The concept
    /// an ADR names is part of it, read from the work tree as the reviewer read it, so
    /// an ADR whose concept changed since its review has another key.
    pub fn key(&self, engine: &Engine, path: &Path, bytes: &[u8]) -> String {
        let display = crate::paths::display(&engine.root, path);
        let concepts = if self.kind == ADR_TYPE || engine.matcher().is_adr(&display) {
            concept_digests(engine, path, bytes)
        } else {
            Vec::new()
        };
        cache::key(
            &self.kind,
            &self.model,
            &self.instructions,
            &[cache::content_digest(bytes)],
            &concepts,
        )
    }

    /// The signed `approved` verdict (at or above the type's current
    /// `required_confidence`) cached under `key`; a cached rejection is none.
    pub fn approval(&self, key: &str) -> Option<ResultDocument> {
        match cache::lookup(
            &self.root,
            key,
            self.required_confidence,
            Some(&self.signing),
        ) {
            cache::Lookup::Hit(document) if document.result == Verdict::Approved => Some(*document),
            _ => None,
        }
    }

    /// Whether a signed `approved` verdict is cached for exactly `bytes` at `path`.
    pub fn is_approved(&self, engine: &Engine, path: &Path, bytes: &[u8]) -> bool {
        self.approval(&self.key(engine, path, bytes)).is_some()
    }

    /// Sign and store `document` under `key` (finalize carrying an approval over).
    pub fn store(&self, key: &str, document: &ResultDocument) -> std::io::Result<()> {
        cache::store(&self.root, key, document, &self.signing)
    }
}

/// A reviewer check named `name` in the approval types of the repository at
/// `root` (for `helix-gate explain`): the first type that has it, and the
/// check's instructions. Reviewer findings carry the check name as their rule.
pub fn reviewer_check(root: &Path, name: &str) -> Option<(String, String)> {
    let settings = settings::load(root).ok()?;
    settings.types.values().find_map(|type_settings| {
        let instructions = instructions::load(root, type_settings).ok()?;
        instructions
            .checks
            .into_iter()
            .find(|(check, _)| check == name)
            .map(|(_, text)| (type_settings.name.clone(), text))
    })
}

/// `.helix-gate/approvals.jsonl` read and counted once ([`numbers::Figures`]):
/// the counts of `stats` ([`numbers::Figures::summary`]) and the reviewer's numbers
/// ([`numbers::Figures::numbers`]). Empty when there is none; damaged lines are
/// skipped and counted.
pub fn history_figures(root: &Path) -> numbers::Figures {
    numbers::Figures::of(&history::read(root))
}

/// Counts over `.helix-gate/approvals.jsonl` (empty when there is none;
/// damaged lines are skipped and counted in `skipped_lines`).
pub fn history_summary(root: &Path) -> HistorySummary {
    history_figures(root).summary()
}

/// The reviewer's numbers over `.helix-gate/approvals.jsonl`: per file and
/// session, latency, cost, and false positives/negatives against people's
/// judgements ([`numbers`]).
pub fn reviewer_numbers(root: &Path) -> numbers::Numbers {
    history_figures(root).numbers()
}

/// Record that the Stop gate escalated `files` to a human after `attempts`
/// failed reviews (counted by [`history_summary`]).
pub fn record_escalation(
    root: &Path,
    kind: &str,
    files: &[String],
    attempts: u32,
    approval_id: Option<&str>,
) -> anyhow::Result<()> {
    history::append(
        root,
        &history::Record::Escalation {
            timestamp: clock::rfc3339(SystemTime::now()),
            approval_type: kind.to_owned(),
            files: files.to_vec(),
            attempts,
            approval_id: approval_id.map(str::to_owned),
        },
    )
    .with_context(|| format!("cannot write {}", data_dir::HISTORY_PATH))
}
