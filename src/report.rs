//! The `helix-gate report` page's figures: the decision log and the approval
//! history aggregated into [`ReportData`], rendered by [`crate::render::report`]
//! and written under `.helix-gate/`. Only `cli` prints.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::adr_dir::enforce::adr_of_rule;
use crate::approval::history::{self, Record};
use crate::approval::numbers::Figures;
use crate::decision_log::{self, Decision, Verdict};
use crate::render::report::{AdrRules, Day, Escalation, RULE_OVERRIDE, ReportData, ReviewDay};

/// Where the page goes without `--out`.
pub const DEFAULT_OUT: &str = ".helix-gate/report.html";

/// The page of one repository and what it was made from.
#[derive(Debug)]
pub struct Report {
    /// The HTML page.
    pub page: String,
    /// Decisions in the log.
    pub decisions: usize,
    /// Records in the approval history.
    pub approval_records: usize,
}

/// The report page of the repository at `root` (logs that are missing count as
/// empty; damaged lines are skipped and counted on the page).
pub fn build(root: &Path) -> Report {
    let (decisions, damaged) = decision_log::read(root);
    let approvals = history::read(root);
    let mut data = aggregate(&decisions, &approvals.records);
    data.damaged_lines = damaged + approvals.skipped;
    data.project = root.file_name().map_or_else(
        || root.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    );
    data.generated = crate::clock::now_rfc3339();
    let coverage = crate::approval::coverage(root);
    data.coverage = (coverage.adrs, coverage.approved);
    let mut changes: Vec<_> = crate::adr_dir::acceptance::records(root)
        .into_iter()
        .map(|r| crate::render::report::StatusChange {
            path: r.path,
            from: r.from,
            to: r.to,
            by: r.by,
            time: r.time,
            reason: r.reason,
        })
        .collect();
    // Per ADR, each ADR's changes oldest first (a stable sort keeps append order).
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    data.status_changes = changes;
    Report {
        page: crate::render::report::html(&data),
        decisions: decisions.len(),
        approval_records: approvals.records.len(),
    }
}

/// Write `page` to `out` (relative to the current directory), or to
/// [`DEFAULT_OUT`] in `root` without one; atomically. Returns the path written.
pub fn write(root: &Path, page: &str, out: Option<&Path>) -> anyhow::Result<PathBuf> {
    let path: PathBuf = match out {
        Some(p) if p.is_absolute() => p.to_path_buf(),
        Some(p) => std::env::current_dir().unwrap_or_default().join(p),
        None => {
            crate::fs::data_dir::ensure(root).with_context(|| {
                format!(
                    "cannot write the report {}",
                    root.join(DEFAULT_OUT).display()
                )
            })?;
            root.join(DEFAULT_OUT)
        }
    };
    let dir = path.parent().unwrap_or(Path::new("."));
    // The error names the page: "Read-only file system" alone says not where.
    crate::fs::atomic::write(dir, &path, page.as_bytes())
        .with_context(|| format!("cannot write the report {}", path.display()))?;
    Ok(path)
}

/// The figures of the page. Both inputs are oldest first (append order).
pub fn aggregate(decisions: &[Decision], approvals: &[Record]) -> ReportData {
    let mut data = ReportData {
        decisions: decisions.len(),
        ..ReportData::default()
    };
    let mut days: BTreeMap<String, (Day, Vec<u64>)> = BTreeMap::new();
    let mut rules: HashMap<&str, usize> = HashMap::new();
    // (session, target) -> (fixed, escalated) for targets blocked at least once.
    let mut blocked: HashMap<(&str, &str), (bool, bool)> = HashMap::new();
    for d in decisions {
        let day_key = crate::clock::day_of(&d.time);
        let (day, latencies) = days.entry(day_key.clone()).or_insert_with(|| {
            (
                Day {
                    date: day_key,
                    ..Day::default()
                },
                Vec::new(),
            )
        });
        latencies.push(d.duration_us);
        let key = (d.session.as_str(), d.target.as_str());
        match d.verdict {
            Verdict::Block => {
                day.block += 1;
                for rule in &d.rules {
                    *rules.entry(rule).or_default() += 1;
                }
                if !d.target.is_empty() {
                    blocked.entry(key).or_insert((false, false));
                }
            }
            Verdict::Pass | Verdict::Approved | Verdict::Warn => {
                if d.verdict == Verdict::Warn {
                    day.other += 1;
                } else {
                    day.pass += 1;
                }
                // Fixed within the budget: passed after a block, before any escalation.
                if let Some((fixed, escalated)) = blocked.get_mut(&key)
                    && !*escalated
                {
                    *fixed = true;
                }
            }
            Verdict::Escalate | Verdict::Fallback => {
                day.escalate += 1;
                if let Some((fixed, escalated)) = blocked.get_mut(&key)
                    && !*fixed
                {
                    *escalated = true;
                }
                data.escalations.push(Escalation {
                    time: d.time.clone(),
                    source: "hook".to_owned(),
                    files: vec![d.target.clone()],
                    detail: if d.rules.is_empty() {
                        format!("budget spent after attempt {}", d.attempt)
                    } else {
                        format!(
                            "budget spent after attempt {}: {}",
                            d.attempt,
                            d.rules.join(", ")
                        )
                    },
                });
            }
            _ => day.other += 1,
        }
    }
    data.days = days
        .into_values()
        .map(|(mut day, mut latencies)| {
            latencies.sort_unstable();
            day.p50_us = decision_log::percentile(&latencies, 50);
            day.p95_us = decision_log::percentile(&latencies, 95);
            day
        })
        .collect();
    let mut failing: Vec<(String, usize)> = rules
        .into_iter()
        .map(|(rule, n)| (rule.to_owned(), n))
        .collect();
    failing.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    failing.truncate(12);
    data.failing_rules = failing;
    data.adr_rules = per_adr(decisions);
    data.escalations.extend(rule_overrides(decisions));
    data.blocked_targets = blocked.len();
    data.fixed_within_budget = blocked.values().filter(|(fixed, _)| *fixed).count();
    approval_figures(&mut data, approvals);
    data.escalations.sort_by(|a, b| a.time.cmp(&b.time));
    data
}

/// The persons' overrides of ADR rules, beside the escalations.
fn rule_overrides(decisions: &[Decision]) -> impl Iterator<Item = Escalation> + '_ {
    decisions
        .iter()
        .filter(|d| d.verdict == Verdict::Override)
        .map(|d| Escalation {
            time: d.time.clone(),
            source: RULE_OVERRIDE.to_owned(),
            files: vec![d.target.clone()],
            detail: format!(
                "{}: {}",
                d.rules.join(", "),
                d.note.as_deref().unwrap_or("overridden")
            ),
        })
}

/// The rules of ADRs on code (`ADR-014/no-direct-http`) per ADR: findings (each
/// rule a decision names), blocks (decisions that blocked on one of its rules) and
/// persons' overrides; most findings first.
pub fn per_adr(decisions: &[Decision]) -> Vec<AdrRules> {
    let mut by_adr: BTreeMap<&str, AdrRules> = BTreeMap::new();
    for d in decisions {
        let mut seen: Vec<&str> = Vec::new();
        for adr in d.rules.iter().filter_map(|r| adr_of_rule(r)) {
            let entry = by_adr.entry(adr).or_insert_with(|| AdrRules {
                adr: adr.to_owned(),
                ..AdrRules::default()
            });
            let first = !seen.contains(&adr);
            seen.push(adr);
            match d.verdict {
                Verdict::Override => entry.overrides += usize::from(first),
                verdict => {
                    entry.findings += 1;
                    if verdict == Verdict::Block && first {
                        entry.blocks += 1;
                    }
                }
            }
        }
    }
    let mut out: Vec<AdrRules> = by_adr.into_values().collect();
    out.sort_by(|a, b| b.findings.cmp(&a.findings).then_with(|| a.adr.cmp(&b.adr)));
    out
}

/// The reviewer's part of the page, from the history's one count ([`Figures`]).
fn approval_figures(data: &mut ReportData, approvals: &[Record]) {
    let figures = Figures::of_records(approvals);
    data.total_cost_usd += figures.all.cost_usd;
    let mut verdicts: Vec<(String, usize)> = figures
        .all
        .review_outcomes
        .iter()
        .map(|(outcome, n)| ((*outcome).to_owned(), *n))
        .collect();
    verdicts.sort_by_key(|v| std::cmp::Reverse(v.1));
    data.verdicts = verdicts;
    data.review_days = figures
        .days
        .into_iter()
        .filter(|(_, tally)| tally.reviews > 0)
        .map(|(date, tally)| {
            let mut durations = tally.review_durations;
            durations.sort_by(f64::total_cmp);
            ReviewDay {
                date,
                runs: tally.reviews,
                cost_usd: tally.review_cost_usd,
                median_seconds: durations.get(durations.len() / 2).copied().unwrap_or(0.0),
            }
        })
        .collect();
    data.escalations
        .extend(figures.escalations.into_iter().map(|e| Escalation {
            time: e.timestamp,
            source: "approval".to_owned(),
            files: e.files,
            detail: format!("reviewer did not approve after {} attempt(s)", e.attempts),
        }));
    // A person's way out of an escalation, beside the escalations it ends.
    data.escalations
        .extend(figures.overrides.into_iter().map(|o| Escalation {
            time: o.timestamp,
            source: crate::render::report::PERSON_OVERRIDE.to_owned(),
            files: vec![o.file],
            detail: format!(
                "approved by a person after the reviewer's {}: {}",
                o.verdict.as_str(),
                o.reason
            ),
        }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision(session: &str, target: &str, verdict: Verdict, rules: &[&str]) -> Decision {
        Decision {
            time: "2026-11-20T10:00:00Z".to_owned(),
            session: session.to_owned(),
            event: "PostToolUse".to_owned(),
            target: target.to_owned(),
            verdict,
            rules: rules.iter().map(|r| (*r).to_owned()).collect(),
            attempt: 1,
            duration_us: 1000,
            note: None,
            retry_of: 0,
        }
    }

    #[test]
    fn fixed_within_budget_means_passed_after_a_block_before_an_escalation() {
        let log = [
            // fixed: blocked, then passed
            decision("s1", "adr/001.md", Verdict::Block, &["section-missing"]),
            decision("s1", "adr/001.md", Verdict::Pass, &[]),
            // not fixed: escalated first, the later pass does not count
            decision(
                "s1",
                "adr/002.md",
                Verdict::Block,
                &["section-missing", "status-invalid"],
            ),
            decision("s1", "adr/002.md", Verdict::Escalate, &["section-missing"]),
            decision("s1", "adr/002.md", Verdict::Pass, &[]),
            // another session's pass does not fix this one
            decision("s2", "adr/003.md", Verdict::Block, &["status-invalid"]),
            decision("s3", "adr/003.md", Verdict::Pass, &[]),
        ];
        let data = aggregate(&log, &[]);
        assert!(data.adr_rules.is_empty());
        assert_eq!(data.blocked_targets, 3);
        assert_eq!(data.fixed_within_budget, 1);
        assert_eq!(data.escalations.len(), 1);
        assert_eq!(
            data.failing_rules,
            [
                ("section-missing".to_owned(), 2),
                ("status-invalid".to_owned(), 2)
            ]
        );
        assert_eq!(data.days.len(), 1);
        assert_eq!(
            (data.days[0].block, data.days[0].pass, data.days[0].escalate),
            (3, 3, 1)
        );
    }

    #[test]
    fn adr_rules_are_counted_per_adr() {
        let log = [
            decision(
                "",
                "src/a.py",
                Verdict::Block,
                &[
                    "ADR-014/no-direct-http",
                    "ADR-014/no-direct-http",
                    "ADR-002/x",
                ],
            ),
            decision("s1", "src/b.py", Verdict::Warn, &["ADR-002/x"]),
            decision(
                "",
                "src/a.py",
                Verdict::Override,
                &["ADR-014/no-direct-http"],
            ),
            decision("s1", "adr/001.md", Verdict::Block, &["section-missing"]),
        ];
        let data = aggregate(&log, &[]);
        let counts: Vec<(&str, usize, usize, usize)> = data
            .adr_rules
            .iter()
            .map(|a| (a.adr.as_str(), a.findings, a.blocks, a.overrides))
            .collect();
        assert_eq!(counts, [("ADR-002", 2, 1, 0), ("ADR-014", 2, 1, 1)]);
        assert!(
            data.escalations.iter().any(
                |e| e.source == RULE_OVERRIDE && e.detail.starts_with("ADR-014/no-direct-http")
            )
        );
    }
}
