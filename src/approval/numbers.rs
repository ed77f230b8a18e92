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
//!
//! The history is counted in one pass, [`Figures`]: every approval into one
//! [`Tally`] for the whole history, one per file, one per session and one per
//! day. `stats` shows its counts ([`Figures::summary`]) and these numbers
//! ([`Figures::numbers`]), and `helix-gate report` its reviews per day, from the
//! same figures.

use std::collections::BTreeMap;

use serde::Serialize;

use super::history::{History, HistorySummary, Record, Stage};
use super::verdict::Verdict;

/// The figures of a set of approvals: the whole history's, or one file's, one
/// session's, one day's.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Approvals of every stage.
    pub count: usize,
    pub approved: usize,
    pub rejected: usize,
    pub needs_revision: usize,
    /// Approvals that started a reviewer.
    pub reviews: usize,
    /// Approvals answered from the cache.
    pub cache_hits: usize,
    /// Approvals the deterministic checks decided (no reviewer, no cost).
    pub deterministic: usize,
    /// Approvals whose reviewer gave no usable verdict (timeout, crash, ...).
    pub infrastructure_failures: usize,
    /// The reviews by how they ended: their verdict, or `infrastructure failure`.
    pub review_outcomes: BTreeMap<&'static str, usize>,
    /// What the approvals cost (of an approval of several files, a file's tally
    /// holds its even share).
    pub cost_usd: f64,
    /// What the reviews cost, and the most one cost.
    pub review_cost_usd: f64,
    pub max_review_cost_usd: Option<f64>,
    /// How long each review took, in the order they were recorded.
    pub review_durations: Vec<f64>,
}

impl Tally {
    fn add(&mut self, result: Verdict, stage: Stage, failed: bool, duration: f64, cost: f64) {
        self.count += 1;
        match result {
            Verdict::Approved => self.approved += 1,
            Verdict::Rejected => self.rejected += 1,
            Verdict::NeedsRevision => self.needs_revision += 1,
        }
        if failed {
            self.infrastructure_failures += 1;
        }
        self.cost_usd += cost;
        match stage {
            Stage::Reviewer => {
                self.reviews += 1;
                let outcome = if failed {
                    "infrastructure failure"
                } else {
                    result.as_str()
                };
                *self.review_outcomes.entry(outcome).or_default() += 1;
                self.review_cost_usd += cost;
                self.max_review_cost_usd =
                    Some(self.max_review_cost_usd.map_or(cost, |m| m.max(cost)));
                if duration.is_finite() {
                    self.review_durations.push(duration);
                }
            }
            Stage::Cache => self.cache_hits += 1,
            Stage::Deterministic => self.deterministic += 1,
            // Overrides are recorded as judgements, never as approvals.
            Stage::Override => {}
        }
    }
}

/// An escalation of the Stop gate, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Escalated {
    pub timestamp: String,
    pub files: Vec<String>,
    /// Failed reviews before the escalation.
    pub attempts: u32,
}

/// An approval a person granted with `approve --override`, as recorded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overridden {
    pub timestamp: String,
    pub file: String,
    /// The reviewer's verdict the person overrode.
    pub verdict: Verdict,
    pub reason: String,
}

/// The approval history counted once: what `stats` and `report` show.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Figures {
    pub all: Tally,
    /// By repository-relative path.
    pub files: BTreeMap<String, Tally>,
    /// By Claude Code session ([`NO_SESSION`] outside one).
    pub sessions: BTreeMap<String, Tally>,
    /// By the day of the approval's time stamp (`2026-11-23`, or `unknown`).
    pub days: BTreeMap<String, Tally>,
    /// Approval id -> (the reviewer's verdict, the person's judgement); the last one wins.
    pub judged: BTreeMap<String, (Verdict, Verdict)>,
    /// In the order recorded.
    pub escalations: Vec<Escalated>,
    /// Approvals a person granted (`approve --override`), in the order recorded.
    pub overrides: Vec<Overridden>,
    /// Damaged lines of the history that were skipped.
    pub skipped: usize,
}

impl Figures {
    /// Count `history`.
    pub fn of(history: &History) -> Figures {
        Figures {
            skipped: history.skipped,
            ..Figures::of_records(&history.records)
        }
    }

    /// Count `records` (oldest first).
    pub fn of_records(records: &[Record]) -> Figures {
        let mut figures = Figures::default();
        for record in records {
            match record {
                Record::Approval {
                    timestamp,
                    files: runs,
                    result,
                    stage,
                    infrastructure_failure,
                    duration_seconds,
                    cost_usd,
                    session,
                    ..
                } => {
                    let cost = if cost_usd.is_finite() { *cost_usd } else { 0.0 };
                    let failed = infrastructure_failure.is_some();
                    let add = |tally: &mut Tally, cost: f64| {
                        tally.add(*result, *stage, failed, *duration_seconds, cost);
                    };
                    add(&mut figures.all, cost);
                    #[expect(
                        clippy::cast_precision_loss,
                        reason = "a handful of files per approval"
                    )]
                    let share = cost / runs.len().max(1) as f64;
                    for run in runs {
                        add(figures.files.entry(run.path.clone()).or_default(), share);
                    }
                    let session = session.as_deref().unwrap_or(NO_SESSION);
                    add(
                        figures.sessions.entry(session.to_owned()).or_default(),
                        cost,
                    );
                    add(
                        figures
                            .days
                            .entry(crate::clock::day_of(timestamp))
                            .or_default(),
                        cost,
                    );
                }
                Record::Judgement {
                    timestamp,
                    file,
                    approval_id,
                    verdict,
                    judgement,
                    reason,
                    grants,
                    ..
                } => {
                    figures
                        .judged
                        .insert(approval_id.clone(), (*verdict, *judgement));
                    if *grants {
                        figures.overrides.push(Overridden {
                            timestamp: timestamp.clone(),
                            file: file.clone(),
                            verdict: *verdict,
                            reason: reason.clone(),
                        });
                    }
                }
                Record::Escalation {
                    timestamp,
                    files,
                    attempts,
                    ..
                } => figures.escalations.push(Escalated {
                    timestamp: timestamp.clone(),
                    files: files.clone(),
                    attempts: *attempts,
                }),
            }
        }
        figures
    }

    /// The counts `stats` shows first.
    #[expect(
        clippy::cast_precision_loss,
        reason = "record counts stay far below 2^52, where f64 is exact"
    )]
    pub fn summary(&self) -> HistorySummary {
        let all = &self.all;
        let mut durations = all.review_durations.clone();
        durations.sort_by(f64::total_cmp);
        HistorySummary {
            count: all.count,
            approved: all.approved,
            rejected: all.rejected,
            needs_revision: all.needs_revision,
            approval_rate: (all.count > 0).then(|| all.approved as f64 / all.count as f64),
            reviewer_runs: all.reviews,
            cache_hits: all.cache_hits,
            deterministic_rejections: all.deterministic,
            infrastructure_failures: all.infrastructure_failures,
            median_duration_seconds: median(&durations),
            total_cost_usd: all.cost_usd,
            mean_cost_usd: (all.reviews > 0).then(|| all.cost_usd / all.reviews as f64),
            escalations: self.escalations.len(),
            overrides: self.overrides.len(),
            skipped_lines: self.skipped,
        }
    }

    /// The reviewer's numbers `stats` shows after the counts.
    pub fn numbers(&self) -> Numbers {
        let rows = |tallies: &BTreeMap<String, Tally>| -> Vec<Row> {
            tallies
                .iter()
                .map(|(name, tally)| {
                    let (p50, p95) = percentiles(&mut tally.review_durations.clone());
                    Row {
                        name: name.clone(),
                        reviews: tally.reviews,
                        cache_hits: tally.cache_hits,
                        approved: tally.approved,
                        rejected: tally.rejected,
                        needs_revision: tally.needs_revision,
                        cost_usd: tally.review_cost_usd,
                        p50_duration_seconds: p50,
                        p95_duration_seconds: p95,
                    }
                })
                .collect()
        };
        let all = &self.all;
        let (p50, p95) = percentiles(&mut all.review_durations.clone());
        Numbers {
            p50_duration_seconds: p50,
            p95_duration_seconds: p95,
            #[expect(
                clippy::cast_precision_loss,
                reason = "review counts stay far below 2^52, where f64 is exact"
            )]
            mean_cost_usd: (all.reviews > 0).then(|| all.review_cost_usd / all.reviews as f64),
            max_cost_usd: all.max_review_cost_usd,
            judgements: judgements(self.judged.values().copied()),
            files: rows(&self.files),
            sessions: rows(&self.sessions),
            targets: Some(TARGETS),
        }
    }
}

/// The median of sorted `values` (the mean of the middle two of an even count).
fn median(sorted: &[f64]) -> Option<f64> {
    let mid = sorted.len() / 2;
    match sorted.len() {
        0 => None,
        n if n % 2 == 0 => Some(f64::midpoint(sorted[mid - 1], sorted[mid])),
        _ => Some(sorted[mid]),
    }
}

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
    Figures::of(history).numbers()
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
    use crate::approval::history::{FileRun, append, next_runs, read};
    use crate::fs::data_dir::HISTORY_PATH;
    use std::io::Write as _;

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
            grants: verdict != Verdict::Approved && judgement == Verdict::Approved,
        }
    }

    #[test]
    fn an_approving_judgement_of_a_rejection_is_an_override() {
        let figures = Figures::of_records(&[
            judgement("a", Verdict::Rejected, Verdict::Approved),
            judgement("b", Verdict::Approved, Verdict::Approved),
            judgement("c", Verdict::NeedsRevision, Verdict::Rejected),
        ]);
        assert_eq!(figures.overrides.len(), 1);
        assert_eq!(figures.overrides[0].verdict, Verdict::Rejected);
        assert_eq!(figures.summary().overrides, 1);
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

    fn summarize(history: &History) -> HistorySummary {
        Figures::of(history).summary()
    }

    fn history_approval(path: &str, result: Verdict, stage: Stage, secs: f64, cost: f64) -> Record {
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
    fn append_read_runs_and_summary() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        assert_eq!(summarize(&read(root)), HistorySummary::default());
        assert_eq!(next_runs(root, &["adr/a.md".into()]), (vec![1], 0));
        append(
            root,
            &history_approval("adr/a.md", Verdict::Rejected, Stage::Reviewer, 10.0, 0.1),
        )
        .unwrap();
        append(
            root,
            &history_approval("adr/a.md", Verdict::Approved, Stage::Reviewer, 30.0, 0.2),
        )
        .unwrap();
        append(
            root,
            &history_approval("adr/a.md", Verdict::Approved, Stage::Cache, 0.0, 0.0),
        )
        .unwrap();
        append(
            root,
            &history_approval(
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
            (vec![4, 2, 1], 0),
            "a line that mentions none of the paths is not even parsed"
        );
        let s = summarize(&read(root));
        assert_eq!(s.skipped_lines, 1);
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

    #[test]
    fn damaged_lines_are_skipped_and_counted_never_hiding_the_others() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for result in [Verdict::Rejected, Verdict::Approved] {
            append(
                root,
                &history_approval("adr/a.md", result, Stage::Reviewer, 1.0, 0.1),
            )
            .unwrap();
        }
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(root.join(HISTORY_PATH))
            .unwrap();
        // One invalid UTF-8 byte inside a line that names the path, a
        // truncated line, and an empty one.
        file.write_all(b"{\"event\":\"approval\",\"files\":[{\"path\":\"adr/a.md\",\"run\":3}],\"x\":\"\xff\"}\n")
            .unwrap();
        file.write_all(b"{\"event\":\"approval\",\"files\":[{\"path\":\"adr/a.md\"\n\n")
            .unwrap();
        drop(file);
        append(
            root,
            &history_approval("adr/a.md", Verdict::Approved, Stage::Cache, 0.0, 0.0),
        )
        .unwrap();
        assert_eq!(next_runs(root, &["adr/a.md".into()]), (vec![4], 2));
        let history = read(root);
        assert_eq!(history.records.len(), 3);
        assert_eq!(history.skipped, 2);
        let s = summarize(&history);
        assert_eq!((s.count, s.approved, s.skipped_lines), (3, 2, 2));
        assert!(serde_json::to_value(&s).unwrap()["skipped_lines"] == 2);
        // Numbers no review has: skipped and counted like damaged lines.
        for (secs, cost) in [(1.0, 1e308), (-1.0, 0.1), (1e300, 0.1), (1.0, -0.5)] {
            append(
                root,
                &history_approval("adr/a.md", Verdict::Approved, Stage::Reviewer, secs, cost),
            )
            .unwrap();
        }
        let history = read(root);
        assert_eq!((history.records.len(), history.skipped), (3, 6));
        let s = summarize(&history);
        assert!(
            serde_json::to_string(&s)
                .unwrap()
                .contains("\"skipped_lines\":6")
        );
        let clean = summarize(&History::default());
        assert!(
            serde_json::to_value(&clean)
                .unwrap()
                .get("skipped_lines")
                .is_none()
        );
    }
}
