//! Approval history: one JSON line per approval (and per escalation) in
//! `.helix-gate/approvals.jsonl`, and the summary `helix-gate stats` shows.
//!
//! Lines are appended with a single `write` on a file opened in append mode,
//! so concurrent writers do not interleave. The file is read line by line as
//! bytes: a damaged line (invalid UTF-8, not JSON, an unknown shape) is skipped
//! and counted, and never hides the lines around it. The history is a record
//! for run numbers and `stats`; nothing in it grants an approval.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::verdict::Verdict;
use crate::fs::data_dir::{self, HISTORY_PATH};

/// How an approval reached its verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// A deterministic check failed; no reviewer was started.
    Deterministic,
    /// An approved verdict for the same content came from the cache.
    Cache,
    /// A reviewer was started (whatever it returned, or how it failed).
    Reviewer,
    /// A person approved the content (`helix-gate approve --override`) after
    /// the reviewer did not: seed 001's escalation, decided.
    Override,
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Deterministic => "deterministic",
            Stage::Cache => "cache",
            Stage::Reviewer => "reviewer",
            Stage::Override => "override",
        }
    }
}

/// A reviewed file and how many approvals of it this one is (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRun {
    pub path: String,
    pub run: u32,
}

/// One line of the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Record {
    Approval {
        approval_id: String,
        timestamp: String,
        approval_type: String,
        files: Vec<FileRun>,
        result: Verdict,
        /// The reviewer's own result when the confidence gate changed it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reviewer_result: Option<Verdict>,
        confidence: f64,
        stage: Stage,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        infrastructure_failure: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        duration_seconds: f64,
        cost_usd: f64,
        tokens_used: u64,
        errors: usize,
        warnings: usize,
        /// SHA-256 (hex) of each file's judged bytes, in the order of `files`
        /// (absent in lines of earlier versions).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        contents: Vec<String>,
        /// SHA-256 (hex) of the concept each file named, in the order of `files`
        /// (`""` for a file that named none), as in the cache key; absent when no
        /// file named one, and in lines of earlier versions.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        concepts: Vec<String>,
        /// The Claude Code session that asked (`CLAUDE_CODE_SESSION_ID`), when any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session: Option<String>,
    },
    /// A person's judgement of the latest verdict of one file's content
    /// (`helix-gate approve --override`), the ground truth for the reviewer's
    /// false positives and false negatives in `stats`.
    Judgement {
        timestamp: String,
        approval_type: String,
        file: String,
        /// SHA-256 (hex) of the judged content.
        content: String,
        /// The approval whose verdict is judged.
        approval_id: String,
        /// That approval's verdict.
        verdict: Verdict,
        /// The person's: `approved` or `rejected`.
        judgement: Verdict,
        reason: String,
        /// The judgement approved a verdict that was not `approved`, and so
        /// granted an approval of this content (a signed cache entry): a
        /// person's override, not only a record for the numbers.
        #[serde(rename = "override", default, skip_serializing_if = "is_false")]
        grants: bool,
    },
    Escalation {
        timestamp: String,
        approval_type: String,
        files: Vec<String>,
        /// Failed reviews before the escalation.
        attempts: u32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        approval_id: Option<String>,
    },
}

fn history_path(root: &Path) -> PathBuf {
    root.join(HISTORY_PATH)
}

/// Largest history that is read (about half a million approvals).
const HISTORY_LIMIT: u64 = 256 * 1024 * 1024;

/// Append one record.
pub fn append(root: &Path, record: &Record) -> std::io::Result<()> {
    data_dir::ensure(root)?;
    let mut line = serde_json::to_string(record).map_err(std::io::Error::other)?;
    line.push('\n');
    crate::fs::append::append(
        root,
        &history_path(root),
        line.as_bytes(),
        crate::fs::append::Missing::Create,
    )
}

/// The history as read back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// Every readable record, oldest first.
    pub records: Vec<Record>,
    /// Lines that were skipped: invalid UTF-8, not JSON, not a record, or an
    /// approval with numbers no review has ([`plausible`]).
    pub skipped: usize,
}

/// The lines of the history file (empty when there is none), each as bytes,
/// so that one invalid byte damages one line and not the whole file.
fn raw_lines(root: &Path) -> Vec<Vec<u8>> {
    let Ok(bytes) = crate::fs::read::regular(
        &history_path(root),
        HISTORY_LIMIT,
        crate::fs::read::Links::Refuse,
    ) else {
        return Vec::new();
    };
    bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.iter().all(u8::is_ascii_whitespace))
        .map(<[u8]>::to_vec)
        .collect()
}

/// Every readable record, oldest first, and the number of skipped lines
/// (empty when there is no history).
pub fn read(root: &Path) -> History {
    let mut history = History::default();
    for line in raw_lines(root) {
        match serde_json::from_slice::<Record>(&line) {
            Ok(record) if plausible(&record) => history.records.push(record),
            Ok(_) | Err(_) => history.skipped += 1,
        }
    }
    history
}

/// The most one review can cost, in US dollars: far above any real one, and far
/// enough from `f64::MAX` that the sums of `stats` and `report` stay finite.
const MAX_COST_USD: f64 = 1e6;
/// The longest one review can take, in seconds (a year).
const MAX_DURATION_SECONDS: f64 = 365.0 * 24.0 * 3600.0;

/// Whether an approval's numbers can be a review's: a cost and a duration
/// between zero and their maxima, a confidence between 0 and 1. The history is
/// writable by anything in the work tree; a line with `cost_usd: 1e308` or a
/// negative duration is damaged like a torn one, so `stats` and `report` never
/// show `inf` or `NaN`.
fn plausible(record: &Record) -> bool {
    match record {
        Record::Approval {
            duration_seconds,
            cost_usd,
            confidence,
            ..
        } => {
            (0.0..=MAX_COST_USD).contains(cost_usd)
                && (0.0..=MAX_DURATION_SECONDS).contains(duration_seconds)
                && (0.0..=1.0).contains(confidence)
        }
        Record::Judgement { .. } | Record::Escalation { .. } => true,
    }
}

/// The run number of the next approval of each path (1 + earlier approvals),
/// and the number of damaged lines that were skipped on the way.
pub fn next_runs(root: &Path, paths: &[String]) -> (Vec<u32>, usize) {
    let mut runs = vec![1u32; paths.len()];
    let mut skipped = 0;
    let needles: Vec<String> = paths
        .iter()
        .map(|p| serde_json::to_string(p).unwrap_or_default())
        .collect();
    for line in raw_lines(root) {
        // A line that is not UTF-8 cannot be JSON: damaged.
        let Ok(line) = std::str::from_utf8(&line) else {
            skipped += 1;
            continue;
        };
        // Cheap filter first: only lines that mention one of the paths are parsed.
        if !needles.iter().any(|n| line.contains(n.as_str())) {
            continue;
        }
        match serde_json::from_str::<Record>(line) {
            Ok(Record::Approval { files, .. }) => {
                for (i, path) in paths.iter().enumerate() {
                    if files.iter().any(|f| &f.path == path) {
                        runs[i] = runs[i].saturating_add(1);
                    }
                }
            }
            Ok(Record::Escalation { .. } | Record::Judgement { .. }) => {}
            Err(_) => skipped += 1,
        }
    }
    (runs, skipped)
}

/// The latest verdict recorded for one content of one approval type, and a
/// person's judgement of it when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestVerdict {
    pub approval_id: String,
    pub timestamp: String,
    /// The path the content was reviewed under.
    pub file: String,
    pub result: Verdict,
    pub stage: Stage,
    /// `helix-gate approve --override` on this approval (the last one wins).
    pub judgement: Option<Verdict>,
}

/// The latest verdict of type `kind` whose judged files include the content
/// with SHA-256 `content` (hex), whatever its path was, judged with the concept
/// whose SHA-256 is `concept` (hex; `""` for none): the same inputs as the
/// cache key, so finalize's refusal and `approve --override` speak of the
/// verdict the cache holds. A changed concept is a different review. Lines of
/// earlier versions carry no content hash and are never matched; lines without
/// concept hashes match on the content alone.
pub fn latest_verdict(
    history: &History,
    kind: &str,
    content: &str,
    concept: &str,
) -> Option<LatestVerdict> {
    let mut latest: Option<LatestVerdict> = None;
    for record in &history.records {
        match record {
            Record::Approval {
                approval_id,
                timestamp,
                approval_type,
                files,
                result,
                stage,
                contents,
                concepts,
                ..
            } if approval_type == kind => {
                let matches = |i: usize| {
                    contents[i] == content
                        && (concepts.is_empty() || concepts.get(i).is_some_and(|c| c == concept))
                };
                if let Some(i) = (0..contents.len()).find(|&i| matches(i)) {
                    latest = Some(LatestVerdict {
                        approval_id: approval_id.clone(),
                        timestamp: timestamp.clone(),
                        file: files.get(i).map(|f| f.path.clone()).unwrap_or_default(),
                        result: *result,
                        stage: *stage,
                        judgement: None,
                    });
                }
            }
            Record::Judgement {
                approval_id,
                judgement,
                ..
            } => {
                if let Some(latest) = latest.as_mut().filter(|l| &l.approval_id == approval_id) {
                    latest.judgement = Some(*judgement);
                }
            }
            _ => {}
        }
    }
    latest
}

/// Counts over the approval history (for `helix-gate stats`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HistorySummary {
    /// Recorded approvals (every stage).
    pub count: usize,
    pub approved: usize,
    pub rejected: usize,
    pub needs_revision: usize,
    /// `approved / count`; `None` without approvals.
    pub approval_rate: Option<f64>,
    /// Approvals that started a reviewer.
    pub reviewer_runs: usize,
    /// Approvals answered from the cache.
    pub cache_hits: usize,
    /// Approvals rejected by the deterministic checks (no reviewer, no cost).
    pub deterministic_rejections: usize,
    /// Reviewer runs that ended without a usable verdict (timeout, crash, ...).
    pub infrastructure_failures: usize,
    /// Median wall-clock time of reviewer runs.
    pub median_duration_seconds: Option<f64>,
    pub total_cost_usd: f64,
    /// Mean cost per reviewer run.
    pub mean_cost_usd: Option<f64>,
    /// Escalations recorded by the Stop gate.
    pub escalations: usize,
    /// Approvals a person granted with `approve --override` after the reviewer
    /// did not approve (only shown when there were some).
    #[serde(skip_serializing_if = "is_zero")]
    pub overrides: usize,
    /// Damaged lines of the history that were skipped (only shown when some were).
    #[serde(skip_serializing_if = "is_zero")]
    pub skipped_lines: usize,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_false(b: &bool) -> bool {
    !*b
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approval(path: &str, result: Verdict, stage: Stage, secs: f64, cost: f64) -> Record {
        Record::Approval {
            approval_id: "id".into(),
            timestamp: "t".into(),
            approval_type: "adr".into(),
            files: vec![FileRun {
                path: path.into(),
                run: 1,
            }],
            result,
            reviewer_result: None,
            confidence: 0.9,
            stage,
            infrastructure_failure: None,
            model: None,
            duration_seconds: secs,
            cost_usd: cost,
            tokens_used: 0,
            errors: 0,
            warnings: 0,
            contents: Vec::new(),
            concepts: Vec::new(),
            session: None,
        }
    }

    #[test]
    fn latest_verdict_follows_the_content_and_the_last_judgement() {
        let with = |id: &str, path: &str, result: Verdict, content: &str| {
            let mut record = approval(path, result, Stage::Reviewer, 1.0, 0.1);
            if let Record::Approval {
                approval_id,
                contents,
                ..
            } = &mut record
            {
                *approval_id = id.into();
                if !content.is_empty() {
                    contents.push(content.into());
                }
            }
            record
        };
        let judge = |id: &str, judgement: Verdict| Record::Judgement {
            timestamp: "t".into(),
            approval_type: "adr".into(),
            file: "x".into(),
            content: "aa".into(),
            approval_id: id.into(),
            verdict: Verdict::Rejected,
            judgement,
            reason: "r".into(),
            grants: false,
        };
        let history = History {
            records: vec![
                // Written before content hashes: never matched.
                with("0", "adr/a.md", Verdict::Approved, ""),
                with("1", "output/draft.md", Verdict::Approved, "aa"),
                with("2", "output/draft.md", Verdict::Rejected, "aa"),
                judge("1", Verdict::Rejected),
                judge("2", Verdict::Rejected),
                judge("2", Verdict::Approved),
                with("3", "adr/b.md", Verdict::Rejected, "bb"),
            ],
            skipped: 0,
        };
        let latest = latest_verdict(&history, "adr", "aa", "").unwrap();
        assert_eq!(latest.approval_id, "2");
        assert_eq!(latest.file, "output/draft.md");
        assert_eq!(latest.result, Verdict::Rejected);
        assert_eq!(latest.judgement, Some(Verdict::Approved));
        assert_eq!(
            latest_verdict(&history, "adr", "bb", "").unwrap().judgement,
            None
        );
        assert_eq!(latest_verdict(&history, "code", "aa", ""), None);
        assert_eq!(latest_verdict(&history, "adr", "cc", ""), None);
        // With the concept in the record: only the same concept matches.
        let mut with_concept = with("4", "adr/c.md", Verdict::Approved, "cc");
        if let Record::Approval { concepts, .. } = &mut with_concept {
            concepts.push("c1".into());
        }
        let history = History {
            records: vec![with("5", "adr/c.md", Verdict::Rejected, "cc"), with_concept],
            skipped: 0,
        };
        assert_eq!(
            latest_verdict(&history, "adr", "cc", "c1")
                .unwrap()
                .approval_id,
            "4"
        );
        // Another concept: the older line without concept hashes (content only).
        assert_eq!(
            latest_verdict(&history, "adr", "cc", "c2")
                .unwrap()
                .approval_id,
            "5"
        );
        // An old line parses, without content hashes or a session.
        let old: Record = serde_json::from_str(r#"{"event":"approval","approval_id":"a","timestamp":"t","approval_type":"adr","files":[{"path":"adr/a.md","run":1}],"result":"approved","confidence":0.9,"stage":"reviewer","duration_seconds":1.0,"cost_usd":0.1,"tokens_used":1,"errors":0,"warnings":0}"#).unwrap();
        assert!(
            matches!(old, Record::Approval { contents, session: None, .. } if contents.is_empty())
        );
    }
}
