//! The reviewer's numbers for `helix-gate stats`: per file and per Claude Code
//! session the reviews started, cache hits, verdicts, cost and latency, and the
//! reviewer's false positives and false negatives against the judgements people
//! recorded with `helix-gate approve --override`, each beside the seeds' target.
//!
//! Definitions (the seeds name the targets, "false positives < 5 %, measured by
//! manual review" and "false negatives < 1 %, measured by post-deployment
//! issues", but not the formulas):
//! - a **false positive** is a verdict of the reviewer that did not approve
//!   (`rejected`, `needs_revision`) which a person judged `approved`; the rate
//!   is over the judged verdicts that did not approve;
//! - a **false negative** is an `approved` verdict a person judged `rejected`;
//!   the rate is over the judged `approved` verdicts.
//!
//! One approval counts once, with the last judgement recorded for it; a cache
//! hit carries its original approval's id, so judging it judges that one.

use std::collections::BTreeMap;

use serde::Serialize;

use super::history::{History, Record, Stage};
use super::verdict::Verdict;

/// The seeds' success metrics (Freigabe-Konzept 8.4).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Targets {
    /// Wall-clock time of one review, below.
    pub latency_seconds: f64,
    /// Cost of one review in US dollars, below.
    pub cost_usd: f64,
    pub false_positive_rate: f64,
    pub false_negative_rate: f64,
    /// Share of the repository's ADRs with a current approval, above.
    pub approval_coverage: f64,
}

pub const TARGETS: Targets = Targets {
    latency_seconds: 60.0,
    cost_usd: 0.30,
    false_positive_rate: 0.05,
    false_negative_rate: 0.01,
    approval_coverage: 0.90,
};

/// The figures of one file or one session.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Row {
    /// The repository-relative path, or the session id (`-`: outside Claude Code).
    pub name: String,
    /// Reviewer processes started.
    pub reviews: usize,
    pub cache_hits: usize,
    pub approved: usize,
    pub rejected: usize,
    pub needs_revision: usize,
    /// Spent on reviews (an approval of several files is split evenly).
    pub cost_usd: f64,
    /// Latency of the reviews (nearest rank).
    pub p50_duration_seconds: Option<f64>,
    pub p95_duration_seconds: Option<f64>,
    #[serde(skip)]
    durations: Vec<f64>,
}

/// The reviewer against people's judgements.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Judgements {
    /// Approvals judged by a person.
    pub judged: usize,
    /// Judged verdicts that did not approve, and how many of them a person approved.
    pub judged_rejections: usize,
    pub false_positives: usize,
    pub false_positive_rate: Option<f64>,
    /// Judged `approved` verdicts, and how many of them a person rejected.
    pub judged_approvals: usize,
    pub false_negatives: usize,
    pub false_negative_rate: Option<f64>,
}

/// Everything `stats` shows about the reviewer beyond the counts of
/// [`super::history::HistorySummary`].
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Numbers {
    /// Over all reviews.
    pub p50_duration_seconds: Option<f64>,
    pub p95_duration_seconds: Option<f64>,
    /// Mean and most one review cost.
    pub mean_cost_usd: Option<f64>,
    pub max_cost_usd: Option<f64>,
    pub judgements: Judgements,
    pub files: Vec<Row>,
    pub sessions: Vec<Row>,
    pub targets: Option<Targets>,
}

/// The label of approvals outside a Claude Code session (and of lines written
/// before sessions were recorded).
pub const NO_SESSION: &str = "-";

/// The numbers of `history`.
pub fn numbers(history: &History) -> Numbers {
    let mut files: BTreeMap<String, Row> = BTreeMap::new();
    let mut sessions: BTreeMap<String, Row> = BTreeMap::new();
    let mut durations = Vec::new();
    let mut max_cost: Option<f64> = None;
    let mut review_costs = Vec::new();
    // approval id -> (the reviewer's verdict, the person's judgement); last one wins.
    let mut judged: BTreeMap<&str, (Verdict, Verdict)> = BTreeMap::new();
    for record in &history.records {
        match record {
            Record::Approval {
                files: runs,
                result,
                stage,
                duration_seconds,
                cost_usd,
                session,
                ..
            } => {
                let reviewed = *stage == Stage::Reviewer;
                let cost = if cost_usd.is_finite() { *cost_usd } else { 0.0 };
                if reviewed {
                    if duration_seconds.is_finite() {
                        durations.push(*duration_seconds);
                    }
                    max_cost = Some(max_cost.map_or(cost, |m: f64| m.max(cost)));
                    review_costs.push(cost);
                }
                #[expect(
                    clippy::cast_precision_loss,
                    reason = "a handful of files per approval"
                )]
                let share = cost / runs.len().max(1) as f64;
                let session = session.as_deref().unwrap_or(NO_SESSION);
                for run in runs {
                    files.entry(run.path.clone()).or_default().add(
                        *result,
                        *stage,
                        *duration_seconds,
                        share,
                    );
                }
                sessions.entry(session.to_owned()).or_default().add(
                    *result,
                    *stage,
                    *duration_seconds,
                    cost,
                );
            }
            Record::Judgement {
                approval_id,
                verdict,
                judgement,
                ..
            } => {
                judged.insert(approval_id, (*verdict, *judgement));
            }
            Record::Escalation { .. } => {}
        }
    }
    let finish = |rows: BTreeMap<String, Row>| -> Vec<Row> {
        rows.into_iter()
            .map(|(name, mut row)| {
                row.name = name;
                (row.p50_duration_seconds, row.p95_duration_seconds) =
                    percentiles(&mut row.durations);
                row
            })
            .collect()
    };
    let (p50, p95) = percentiles(&mut durations);
    Numbers {
        p50_duration_seconds: p50,
        p95_duration_seconds: p95,
        #[expect(
            clippy::cast_precision_loss,
            reason = "review counts stay far below 2^52, where f64 is exact"
        )]
        mean_cost_usd: (!review_costs.is_empty())
            .then(|| review_costs.iter().sum::<f64>() / review_costs.len() as f64),
        max_cost_usd: max_cost,
        judgements: judgements(judged.values().copied()),
        files: finish(files),
        sessions: finish(sessions),
        targets: Some(TARGETS),
    }
}

impl Row {
    fn add(&mut self, result: Verdict, stage: Stage, duration: f64, cost: f64) {
        match stage {
            Stage::Reviewer => {
                self.reviews += 1;
                self.cost_usd += cost;
                if duration.is_finite() {
                    self.durations.push(duration);
                }
            }
            Stage::Cache => self.cache_hits += 1,
            Stage::Deterministic => {}
        }
        match result {
            Verdict::Approved => self.approved += 1,
            Verdict::Rejected => self.rejected += 1,
            Verdict::NeedsRevision => self.needs_revision += 1,
        }
    }
}

fn judgements(pairs: impl Iterator<Item = (Verdict, Verdict)>) -> Judgements {
    let mut j = Judgements::default();
    for (verdict, judgement) in pairs {
        j.judged += 1;
        if verdict == Verdict::Approved {
            j.judged_approvals += 1;
            if judgement != Verdict::Approved {
                j.false_negatives += 1;
            }
        } else {
            j.judged_rejections += 1;
            if judgement == Verdict::Approved {
                j.false_positives += 1;
            }
        }
    }
    #[expect(
        clippy::cast_precision_loss,
        reason = "judgement counts stay far below 2^52, where f64 is exact"
    )]
    let rate = |part: usize, whole: usize| (whole > 0).then(|| part as f64 / whole as f64);
    j.false_positive_rate = rate(j.false_positives, j.judged_rejections);
    j.false_negative_rate = rate(j.false_negatives, j.judged_approvals);
    j
}

/// p50 and p95 by nearest rank (`None` without values).
fn percentiles(values: &mut [f64]) -> (Option<f64>, Option<f64>) {
    values.sort_by(f64::total_cmp);
    let rank = |p: usize| -> Option<f64> {
        if values.is_empty() {
            return None;
        }
        // Nearest rank: ceil(p/100 * n), 1-based.
        let n = values.len();
        let index = (p * n).div_ceil(100).clamp(1, n) - 1;
        Some(values[index])
    };
    (rank(50), rank(95))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::history::FileRun;

    fn approval(
        id: &str,
        paths: &[&str],
        result: Verdict,
        stage: Stage,
        secs: f64,
        cost: f64,
        session: Option<&str>,
    ) -> Record {
        Record::Approval {
            approval_id: id.into(),
            timestamp: "t".into(),
            approval_type: "adr".into(),
            files: paths
                .iter()
                .map(|p| FileRun {
                    path: (*p).into(),
                    run: 1,
                })
                .collect(),
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
            concepts: Vec::new(),
            contents: Vec::new(),
            session: session.map(str::to_owned),
        }
    }

    fn judgement(id: &str, verdict: Verdict, judgement: Verdict) -> Record {
        Record::Judgement {
            timestamp: "t".into(),
            approval_type: "adr".into(),
            file: "adr/a.md".into(),
            content: "00".into(),
            approval_id: id.into(),
            verdict,
            judgement,
            reason: "r".into(),
        }
    }

    #[test]
    fn rows_per_file_and_session_with_percentiles() {
        use Stage::{Cache, Deterministic, Reviewer};
        use Verdict::{Approved, NeedsRevision, Rejected};
        let history = History {
            records: vec![
                approval(
                    "1",
                    &["adr/a.md"],
                    Rejected,
                    Reviewer,
                    10.0,
                    0.10,
                    Some("s1"),
                ),
                approval(
                    "2",
                    &["adr/a.md"],
                    Approved,
                    Reviewer,
                    30.0,
                    0.20,
                    Some("s1"),
                ),
                approval("2", &["adr/a.md"], Approved, Cache, 0.1, 0.0, Some("s2")),
                approval(
                    "3",
                    &["adr/a.md", "adr/b.md"],
                    NeedsRevision,
                    Reviewer,
                    50.0,
                    0.40,
                    None,
                ),
                approval("4", &["adr/b.md"], Rejected, Deterministic, 0.0, 0.0, None),
            ],
            skipped: 0,
        };
        let n = numbers(&history);
        assert_eq!(n.p50_duration_seconds, Some(30.0));
        assert_eq!(n.p95_duration_seconds, Some(50.0));
        assert_eq!(n.max_cost_usd, Some(0.40));
        assert!((n.mean_cost_usd.unwrap() - 0.70 / 3.0).abs() < 1e-9);
        let a = &n.files[0];
        assert_eq!(a.name, "adr/a.md");
        assert_eq!((a.reviews, a.cache_hits), (3, 1));
        assert_eq!((a.approved, a.rejected, a.needs_revision), (2, 1, 1));
        assert!(
            (a.cost_usd - 0.50).abs() < 1e-9,
            "half of the shared review"
        );
        assert_eq!(
            (a.p50_duration_seconds, a.p95_duration_seconds),
            (Some(30.0), Some(50.0))
        );
        let b = &n.files[1];
        assert_eq!(
            (b.reviews, b.cache_hits, b.rejected, b.needs_revision),
            (1, 0, 1, 1)
        );
        let names: Vec<&str> = n.sessions.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["-", "s1", "s2"]);
        assert!((n.sessions[0].cost_usd - 0.40).abs() < 1e-9);
        assert_eq!(n.sessions[2].cache_hits, 1);
        assert_eq!(n.sessions[2].p50_duration_seconds, None, "no review in s2");
        assert_eq!(n.judgements, Judgements::default());
    }

    #[test]
    fn false_positives_and_negatives_count_the_last_judgement_per_approval() {
        use Verdict::{Approved, NeedsRevision, Rejected};
        let history = History {
            records: vec![
                judgement("1", Rejected, Rejected),
                judgement("2", NeedsRevision, Approved),
                judgement("3", Approved, Rejected),
                judgement("4", Approved, Approved),
                judgement("5", Approved, Rejected),
                // A person changed their mind about 5.
                judgement("5", Approved, Approved),
            ],
            skipped: 0,
        };
        let j = numbers(&history).judgements;
        assert_eq!(j.judged, 5);
        assert_eq!((j.false_positives, j.judged_rejections), (1, 2));
        assert_eq!(j.false_positive_rate, Some(0.5));
        assert_eq!((j.false_negatives, j.judged_approvals), (1, 3));
        assert!((j.false_negative_rate.unwrap() - 1.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn nearest_rank() {
        let mut v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(percentiles(&mut v), (Some(10.0), Some(19.0)));
        assert_eq!(percentiles(&mut [7.0]), (Some(7.0), Some(7.0)));
        assert_eq!(percentiles(&mut []), (None, None));
    }
}
