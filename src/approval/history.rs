//! Approval history: one JSON line per approval (and per escalation) in
//! `.helix-gate/approvals.jsonl`, and the summary `helix-gate stats` shows.
//!
//! Lines are appended with a single `write` on a file opened in append mode,
//! so concurrent writers do not interleave. Unreadable lines are skipped.

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
}

impl Stage {
    pub fn as_str(self) -> &'static str {
        match self {
            Stage::Deterministic => "deterministic",
            Stage::Cache => "cache",
            Stage::Reviewer => "reviewer",
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

/// Every readable record, oldest first (empty when there is no history).
pub fn read(root: &Path) -> Vec<Record> {
    let Ok(text) = std::fs::read_to_string(history_path(root)) else {
        return Vec::new();
    };
    text.lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The run number of the next approval of each path (1 + earlier approvals).
pub fn next_runs(root: &Path, paths: &[String]) -> Vec<u32> {
    let mut runs = vec![1u32; paths.len()];
    let Ok(text) = std::fs::read_to_string(history_path(root)) else {
        return runs;
    };
    let needles: Vec<String> = paths
        .iter()
        .map(|p| serde_json::to_string(p).unwrap_or_default())
        .collect();
    for line in text.lines() {
        // Cheap filter first: only lines that mention one of the paths are parsed.
        if !needles.iter().any(|n| line.contains(n.as_str())) {
            continue;
        }
        if let Ok(Record::Approval { files, .. }) = serde_json::from_str::<Record>(line) {
            for (i, path) in paths.iter().enumerate() {
                if files.iter().any(|f| &f.path == path) {
                    runs[i] = runs[i].saturating_add(1);
                }
            }
        }
    }
    runs
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
}

/// Summarize `records`.
pub fn summarize(records: &[Record]) -> HistorySummary {
    let mut s = HistorySummary::default();
    let mut durations = Vec::new();
    for record in records {
        match record {
            Record::Approval {
                result,
                stage,
                infrastructure_failure,
                duration_seconds,
                cost_usd,
                ..
            } => {
                s.count += 1;
                match result {
                    Verdict::Approved => s.approved += 1,
                    Verdict::Rejected => s.rejected += 1,
                    Verdict::NeedsRevision => s.needs_revision += 1,
                }
                match stage {
                    Stage::Deterministic => s.deterministic_rejections += 1,
                    Stage::Cache => s.cache_hits += 1,
                    Stage::Reviewer => {
                        s.reviewer_runs += 1;
                        durations.push(*duration_seconds);
                    }
                }
                if infrastructure_failure.is_some() {
                    s.infrastructure_failures += 1;
                }
                if cost_usd.is_finite() {
                    s.total_cost_usd += cost_usd;
                }
            }
            Record::Escalation { .. } => s.escalations += 1,
        }
    }
    #[expect(
        clippy::cast_precision_loss,
        reason = "record counts stay far below 2^52, where f64 is exact"
    )]
    if s.count > 0 {
        s.approval_rate = Some(s.approved as f64 / s.count as f64);
    }
    #[expect(
        clippy::cast_precision_loss,
        reason = "record counts stay far below 2^52, where f64 is exact"
    )]
    if s.reviewer_runs > 0 {
        s.mean_cost_usd = Some(s.total_cost_usd / s.reviewer_runs as f64);
    }
    durations.retain(|d| d.is_finite());
    durations.sort_by(f64::total_cmp);
    if !durations.is_empty() {
        let mid = durations.len() / 2;
        s.median_duration_seconds = Some(if durations.len() % 2 == 0 {
            f64::midpoint(durations[mid - 1], durations[mid])
        } else {
            durations[mid]
        });
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write as _;

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
        }
    }

    #[test]
    fn append_read_runs_and_summary() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(summarize(&read(root)), HistorySummary::default());
        append(
            root,
            &approval("adr/a.md", Verdict::Rejected, Stage::Reviewer, 10.0, 0.1),
        )
        .unwrap();
        append(
            root,
            &approval("adr/a.md", Verdict::Approved, Stage::Reviewer, 30.0, 0.2),
        )
        .unwrap();
        append(
            root,
            &approval("adr/a.md", Verdict::Approved, Stage::Cache, 0.0, 0.0),
        )
        .unwrap();
        append(
            root,
            &approval(
                "adr/b.md",
                Verdict::Rejected,
                Stage::Deterministic,
                0.0,
                0.0,
            ),
        )
        .unwrap();
        append(
            root,
            &Record::Escalation {
                timestamp: "t".into(),
                approval_type: "adr".into(),
                files: vec!["adr/c.md".into()],
                attempts: 3,
                approval_id: None,
            },
        )
        .unwrap();
        std::fs::OpenOptions::new()
            .append(true)
            .open(root.join(HISTORY_PATH))
            .unwrap()
            .write_all(b"not json\n")
            .unwrap();
        assert_eq!(
            next_runs(
                root,
                &["adr/a.md".into(), "adr/b.md".into(), "adr/new.md".into()]
            ),
            [4, 2, 1]
        );
        let s = summarize(&read(root));
        assert_eq!(s.count, 4);
        assert_eq!(s.approved, 2);
        assert_eq!(s.approval_rate, Some(0.5));
        assert_eq!(s.reviewer_runs, 2);
        assert_eq!(s.cache_hits, 1);
        assert_eq!(s.deterministic_rejections, 1);
        assert_eq!(s.median_duration_seconds, Some(20.0));
        assert!((s.total_cost_usd - 0.3).abs() < 1e-9);
        assert!((s.mean_cost_usd.unwrap() - 0.15).abs() < 1e-9);
        assert_eq!(s.escalations, 1);
    }
}
