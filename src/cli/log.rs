//! `log` and `stats`: the hook's decision log and the approval history, read back.

use std::fmt::Write as _;

use super::terminal::{current_root, print};
use super::{ExitStatus, Format};
use crate::approval::numbers::{self, Numbers};
use crate::decision_log;
use crate::text::escape_controls;

pub(super) fn show(tail: Option<usize>) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    let (decisions, bad) = decision_log::read(&root);
    let skip = tail.map_or(0, |n| decisions.len().saturating_sub(n));
    let mut out = String::new();
    // Every field of a line comes from a file in the work tree: escaped, so a logged path
    // cannot rewrite the terminal.
    for d in &decisions[skip..] {
        let _ = writeln!(
            out,
            "{} {:<8} {:<16} {:<9} {}{}{}",
            escape_controls(&d.time),
            escape_controls(&d.session.chars().take(8).collect::<String>()),
            escape_controls(&d.event),
            d.verdict,
            escape_controls(&d.target),
            if d.attempt > 0 {
                format!(" (attempt {})", d.attempt)
            } else {
                String::new()
            },
            if d.rules.is_empty() {
                String::new()
            } else {
                format!(" [{}]", escape_controls(&d.rules.join(", ")))
            },
        );
    }
    if decisions.is_empty() {
        let _ = writeln!(
            out,
            "no decisions logged yet ({})",
            crate::fs::data_dir::LOG_PATH
        );
    }
    if bad > 0 {
        let _ = writeln!(out, "({bad} damaged line(s) skipped)");
    }
    print(&out)?;
    Ok(ExitStatus::Success)
}

pub(super) fn stats(format: Format) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    let (decisions, damaged) = decision_log::read(&root);
    let mut hook = decision_log::hook_stats(&decisions);
    hook.damaged_lines = damaged;
    // The approval history is read and counted once, for both parts.
    let figures = crate::approval::history_figures(&root);
    let summary = figures.summary();
    match format {
        Format::Json => {
            let approvals = serde_json::to_value(&summary).ok();
            let reviewer = serde_json::to_value(figures.numbers()).ok();
            let coverage = crate::approval::coverage(&root);
            let adr_rules = crate::report::per_adr(&decisions);
            let doc = serde_json::json!({"hook": hook, "approvals": approvals, "reviewer": reviewer, "coverage": coverage, "adr_rules": adr_rules});
            print(&(serde_json::to_string_pretty(&doc)? + "\n"))?;
        }
        Format::Human => {
            let mut out = format!(
                "hook decisions: {} (blocks {}, passes {}, warnings {}, escalations {}, infrastructure errors {})\n",
                hook.decisions,
                hook.blocks,
                hook.passes,
                hook.warnings,
                hook.escalations,
                hook.errors,
            );
            if hook.decisions == 0 {
                out.push_str("hook latency: no decisions logged yet\n");
            } else {
                #[expect(
                    clippy::cast_precision_loss,
                    reason = "latencies in microseconds stay far below 2^52, where f64 is exact"
                )]
                let _ = writeln!(
                    out,
                    "hook latency: p50 {:.2} ms, p95 {:.2} ms",
                    hook.p50_us as f64 / 1000.0,
                    hook.p95_us as f64 / 1000.0
                );
            }
            if hook.damaged_lines > 0 {
                let _ = writeln!(
                    out,
                    "({} damaged line(s) in {} skipped)",
                    hook.damaged_lines,
                    crate::fs::data_dir::LOG_PATH
                );
            }
            if let Some(text) = approval_stats_text(&summary) {
                out.push_str(&text);
                out.push_str(&reviewer_text(&figures.numbers()));
            }
            out.push_str(&coverage_text(&crate::approval::coverage(&root)));
            for a in crate::report::per_adr(&decisions) {
                let _ = writeln!(
                    out,
                    "{} rules in code: {} findings, {} blocks, {} overrides",
                    crate::text::escape_controls(&a.adr),
                    a.findings,
                    a.blocks,
                    a.overrides
                );
            }
            print(&out)?;
        }
    }
    Ok(ExitStatus::Success)
}

/// The approval coverage line: the share of the repository's ADRs with a current
/// approval, against the seeds' target.
fn coverage_text(c: &crate::approval::Coverage) -> String {
    match c.share {
        None => "approval coverage: no ADRs in the repository\n".to_owned(),
        Some(share) => format!(
            "approval coverage: {} of {} ADR(s) have a current approval ({:.0}%; target > {:.0}%: {})\n",
            c.approved,
            c.adrs,
            share * 100.0,
            c.target * 100.0,
            if share > c.target { "met" } else { "missed" }
        ),
    }
}

/// Approval lines for `stats` (none before the first approval).
fn approval_stats_text(s: &crate::approval::HistorySummary) -> Option<String> {
    if s.count == 0 && s.escalations == 0 && s.skipped_lines == 0 {
        return None;
    }
    let mut text = format!(
        "approvals: {} (approved {}, rejected {}, needs_revision {}; approval rate {}); reviewer runs {}, cache hits {}, deterministic rejections {}, infrastructure failures {}\napproval cost: total ${:.4}, mean ${:.4} per reviewer run; median duration {}; escalations {}\n",
        s.count,
        s.approved,
        s.rejected,
        s.needs_revision,
        s.approval_rate
            .map_or("-".to_owned(), |r| format!("{:.0}%", r * 100.0)),
        s.reviewer_runs,
        s.cache_hits,
        s.deterministic_rejections,
        s.infrastructure_failures,
        s.total_cost_usd,
        s.mean_cost_usd.unwrap_or(0.0),
        s.median_duration_seconds
            .map_or("-".to_owned(), |d| format!("{d:.1} s")),
        s.escalations,
    );
    if s.overrides > 0 {
        let _ = writeln!(
            text,
            "person overrides {} (approvals a person granted with `approve --override` after the reviewer did not approve)",
            s.overrides
        );
    }
    if s.skipped_lines > 0 {
        let _ = writeln!(
            text,
            "approval history: {} damaged line(s) skipped (not UTF-8, not a record, or numbers no review has)",
            s.skipped_lines
        );
    }
    Some(text)
}

/// The reviewer against the seeds' targets, then its figures per file and per
/// session (only after the first approval).
fn reviewer_text(n: &Numbers) -> String {
    let t = numbers::TARGETS;
    let seconds = |d: Option<f64>| d.map_or("-".to_owned(), |d| format!("{d:.1} s"));
    let met = |ok: bool| if ok { "met" } else { "missed" };
    let mut out = String::from("reviewer against the seeds' targets:\n");
    let _ = writeln!(
        out,
        "  latency per review: p50 {}, p95 {} (target < {:.0} s{})",
        seconds(n.p50_duration_seconds),
        seconds(n.p95_duration_seconds),
        t.latency_seconds,
        n.p95_duration_seconds.map_or(String::new(), |p95| format!(
            ": {}",
            met(p95 < t.latency_seconds)
        ))
    );
    let _ = writeln!(
        out,
        "  cost per review: mean {}, max {} (target < ${:.2}{})",
        n.mean_cost_usd
            .map_or("-".to_owned(), |c| format!("${c:.4}")),
        n.max_cost_usd
            .map_or("-".to_owned(), |c| format!("${c:.4}")),
        t.cost_usd,
        n.max_cost_usd
            .map_or(String::new(), |c| format!(": {}", met(c < t.cost_usd)))
    );
    let j = &n.judgements;
    let rate = |part: usize, whole: usize, rate: Option<f64>, target: f64, what: &str| match rate {
        None => format!("no judged {what} yet"),
        Some(r) => format!(
            "{part} of {whole} judged {what} ({:.1}%, target < {:.0}%: {})",
            r * 100.0,
            target * 100.0,
            met(r < target)
        ),
    };
    let _ = writeln!(
        out,
        "  false positives (the reviewer did not approve, a person did): {}",
        rate(
            j.false_positives,
            j.judged_rejections,
            j.false_positive_rate,
            t.false_positive_rate,
            "rejections"
        )
    );
    let _ = writeln!(
        out,
        "  false negatives (the reviewer approved, a person rejected): {}",
        rate(
            j.false_negatives,
            j.judged_approvals,
            j.false_negative_rate,
            t.false_negative_rate,
            "approvals"
        )
    );
    if j.judged == 0 {
        out.push_str(
            "  (record a judgement with `helix-gate approve --override FILE approved|rejected --reason TEXT`)\n",
        );
    }
    out.push_str(&table("file", &n.files));
    out.push_str(&table("session", &n.sessions));
    out
}

/// One row per file or session: reviews, cache hits, verdicts, cost, latency.
fn table(what: &str, rows: &[numbers::Row]) -> String {
    let seconds = |d: Option<f64>| d.map_or("-".to_owned(), |d| format!("{d:.1} s"));
    // Names come from the history in the work tree: escaped.
    let names: Vec<String> = rows
        .iter()
        .map(|r| escape_controls(&r.name).into_owned())
        .collect();
    let width = names
        .iter()
        .map(|n| n.chars().count())
        .chain(std::iter::once(what.len()))
        .max()
        .unwrap_or(0);
    let mut out = format!(
        "per {what}:\n  {what:<width$}  reviews  cache hits  approved  rejected  needs_revision      cost      p50      p95\n"
    );
    for (row, name) in rows.iter().zip(&names) {
        let _ = writeln!(
            out,
            "  {name:<width$}  {:>7}  {:>10}  {:>8}  {:>8}  {:>14}  {:>8}  {:>7}  {:>7}",
            row.reviews,
            row.cache_hits,
            row.approved,
            row.rejected,
            row.needs_revision,
            format!("${:.4}", row.cost_usd),
            seconds(row.p50_duration_seconds),
            seconds(row.p95_duration_seconds),
        );
    }
    out
}
