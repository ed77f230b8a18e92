//! The hook's decision log (`.helix-gate/log.jsonl`): one JSON line per decision,
//! appended with O_APPEND so parallel hook processes never interleave a line.
//! `helix-gate log --tail` and `helix-gate stats` read it back.

use std::io::Write as _;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::cli::{ExitStatus, Format};

/// One decision of the hook.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Decision {
    pub time: String,
    pub session: String,
    pub event: String,
    /// An ADR path, `step-marker`, or empty for session-wide decisions.
    pub target: String,
    /// block | warn | pass | allow | escalate | context | error
    pub verdict: String,
    pub rules: Vec<String>,
    pub attempt: u32,
    pub duration_us: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Append one decision; failures to log never change the decision itself.
pub fn append(root: &Path, decision: &Decision) -> std::io::Result<()> {
    crate::fs::data_dir::ensure(root)?;
    let mut line = serde_json::to_vec(decision).map_err(std::io::Error::other)?;
    line.push(b'\n');
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(root.join(crate::fs::data_dir::LOG_PATH))?;
    file.write_all(&line)
}

/// Every readable decision in the log (damaged lines are skipped and counted).
pub fn read(root: &Path) -> (Vec<Decision>, usize) {
    let path = root.join(crate::fs::data_dir::LOG_PATH);
    let Ok(text) = std::fs::read_to_string(path) else {
        return (Vec::new(), 0);
    };
    let mut bad = 0;
    let decisions = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str(l).map_err(|_| bad += 1).ok())
        .collect();
    (decisions, bad)
}

pub fn show(tail: Option<usize>) -> anyhow::Result<ExitStatus> {
    let root = crate::cli::current_root();
    let (decisions, bad) = read(&root);
    let skip = tail.map_or(0, |n| decisions.len().saturating_sub(n));
    let mut out = String::new();
    for d in &decisions[skip..] {
        out.push_str(&format!(
            "{} {:<8} {:<16} {:<9} {}{}{}\n",
            d.time,
            d.session.chars().take(8).collect::<String>(),
            d.event,
            d.verdict,
            d.target,
            if d.attempt > 0 {
                format!(" (attempt {})", d.attempt)
            } else {
                String::new()
            },
            if d.rules.is_empty() {
                String::new()
            } else {
                format!(" [{}]", d.rules.join(", "))
            },
        ));
    }
    if decisions.is_empty() {
        out.push_str("no decisions logged yet (.helix-gate/log.jsonl)\n");
    }
    if bad > 0 {
        out.push_str(&format!("({bad} damaged line(s) skipped)\n"));
    }
    crate::cli::print(&out)?;
    Ok(ExitStatus::Success)
}

/// The p-th percentile (0-100) of sorted values.
fn percentile(sorted: &[u64], p: usize) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() - 1) * p).div_ceil(100).min(sorted.len() - 1)]
}

#[derive(Debug, Default, Serialize)]
pub struct HookStats {
    pub decisions: usize,
    pub blocks: usize,
    pub passes: usize,
    pub warnings: usize,
    pub escalations: usize,
    pub errors: usize,
    pub p50_us: u64,
    pub p95_us: u64,
}

pub fn hook_stats(decisions: &[Decision]) -> HookStats {
    let count = |v: &str| decisions.iter().filter(|d| d.verdict == v).count();
    let mut durations: Vec<u64> = decisions.iter().map(|d| d.duration_us).collect();
    durations.sort_unstable();
    HookStats {
        decisions: decisions.len(),
        blocks: count("block"),
        passes: count("pass") + count("allow") + count("approved"),
        warnings: count("warn"),
        escalations: count("escalate"),
        errors: count("error"),
        p50_us: percentile(&durations, 50),
        p95_us: percentile(&durations, 95),
    }
}

pub fn stats(format: Format) -> anyhow::Result<ExitStatus> {
    let root = crate::cli::current_root();
    let (decisions, _) = read(&root);
    let hook = hook_stats(&decisions);
    let approvals = approval_stats_json(&root);
    match format {
        Format::Json => {
            let doc = serde_json::json!({"hook": hook, "approvals": approvals});
            crate::cli::print(&(serde_json::to_string_pretty(&doc)? + "\n"))?;
        }
        Format::Human => {
            let mut out = format!(
                "hook decisions: {} (blocks {}, passes {}, warnings {}, escalations {}, infrastructure errors {})\nhook latency: p50 {:.2} ms, p95 {:.2} ms\n",
                hook.decisions,
                hook.blocks,
                hook.passes,
                hook.warnings,
                hook.escalations,
                hook.errors,
                hook.p50_us as f64 / 1000.0,
                hook.p95_us as f64 / 1000.0
            );
            if let Some(text) = approval_stats_text(&root) {
                out.push_str(&text);
            }
            crate::cli::print(&out)?;
        }
    }
    Ok(ExitStatus::Success)
}

/// Approval figures for `stats --format json`.
fn approval_stats_json(root: &Path) -> Option<serde_json::Value> {
    serde_json::to_value(crate::approval::history_summary(root)).ok()
}

/// Approval lines for `stats` (none before the first approval).
fn approval_stats_text(root: &Path) -> Option<String> {
    let s = crate::approval::history_summary(root);
    if s.count == 0 && s.escalations == 0 {
        return None;
    }
    Some(format!(
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
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_read_and_stats() {
        let dir = tempfile::tempdir().unwrap();
        for (verdict, us) in [
            ("block", 900),
            ("pass", 100),
            ("escalate", 300),
            ("block", 500),
        ] {
            append(
                dir.path(),
                &Decision {
                    verdict: verdict.into(),
                    duration_us: us,
                    ..Decision::default()
                },
            )
            .unwrap();
        }
        let log = dir.path().join(".helix-gate/log.jsonl");
        let mut text = std::fs::read_to_string(&log).unwrap();
        text.push_str("{broken\n");
        std::fs::write(&log, text).unwrap();
        let (decisions, bad) = read(dir.path());
        assert_eq!((decisions.len(), bad), (4, 1));
        let s = hook_stats(&decisions);
        assert_eq!((s.blocks, s.passes, s.escalations), (2, 1, 1));
        assert_eq!((s.p50_us, s.p95_us), (500, 900));
    }
}
