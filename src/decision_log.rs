//! The hook's decision log (`.helix-gate/log.jsonl`): one JSON line per decision,
//! appended with `O_APPEND` so parallel hook processes never interleave a line.
//! `helix-gate log --tail` and `helix-gate stats` read it back.

use std::path::Path;

use serde::{Deserialize, Serialize};

/// What the hook decided about one target.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// The model was stopped with a reason (`PostToolUse` or Stop block).
    Block,
    /// The budget was spent: the user was told, the model goes on.
    Escalate,
    /// The STEP marker budget was spent and the fallback file was written.
    Fallback,
    /// Warnings only: the model got additional context.
    Warn,
    /// Every deterministic check passed.
    #[default]
    Pass,
    /// The reviewer approved the file.
    Approved,
    /// Stop with nothing left to check.
    Allow,
    /// The event concerns nothing helix-gate checks (e.g. a stale target).
    Skip,
    /// helix-gate itself failed; the failure policy decided.
    Error,
    /// A person's override let a commit through a rule of an ADR
    /// (`helix-gate override`).
    Override,
    /// A value written by another version of helix-gate.
    #[serde(other)]
    Unknown,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Block => "block",
            Verdict::Escalate => "escalate",
            Verdict::Fallback => "fallback",
            Verdict::Warn => "warn",
            Verdict::Pass => "pass",
            Verdict::Approved => "approved",
            Verdict::Allow => "allow",
            Verdict::Skip => "skip",
            Verdict::Error => "error",
            Verdict::Override => "override",
            Verdict::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad` so that width and alignment (`{:<9}`) apply.
        f.pad(self.as_str())
    }
}

/// One decision of the hook.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct Decision {
    pub time: String,
    pub session: String,
    pub event: String,
    /// An ADR path, `step-marker`, or empty for session-wide decisions.
    pub target: String,
    pub verdict: Verdict,
    pub rules: Vec<String>,
    pub attempt: u32,
    pub duration_us: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// For a block that is a retry: the most attempts the target gets (its `M`
    /// in `attempt N/M`), for the hook's retry line; 0 otherwise. Not logged.
    #[serde(skip)]
    pub retry_of: u32,
}

/// Append one decision; failures to log never change the decision itself.
pub fn append(root: &Path, decision: &Decision) -> std::io::Result<()> {
    crate::fs::data_dir::ensure(root)?;
    let mut line = serde_json::to_vec(decision).map_err(std::io::Error::other)?;
    line.push(b'\n');
    crate::fs::append::append(
        root,
        &root.join(crate::fs::data_dir::LOG_PATH),
        &line,
        crate::fs::append::Missing::Create,
    )
}

/// The largest decision log read back (`log`, `stats`).
const LOG_LIMIT: u64 = 256 << 20;

/// Every readable decision in the log, and how many damaged lines were skipped.
/// Read as bytes, line by line: one damaged line (invalid UTF-8, a torn write,
/// garbage) costs only itself, never the history around it.
pub fn read(root: &Path) -> (Vec<Decision>, usize) {
    let path = root.join(crate::fs::data_dir::LOG_PATH);
    let Ok(bytes) = crate::fs::read::regular(&path, LOG_LIMIT, crate::fs::read::Links::Refuse)
    else {
        return (Vec::new(), 0);
    };
    let mut bad = 0;
    let decisions = bytes
        .split(|&b| b == b'\n')
        .filter(|line| !line.trim_ascii().is_empty())
        .filter_map(|line| serde_json::from_slice(line).map_err(|_| bad += 1).ok())
        .collect();
    (decisions, bad)
}

/// The p-th percentile (0-100) of sorted values (0 when there are none).
pub fn percentile(sorted: &[u64], p: usize) -> u64 {
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
    /// Lines of the log that could not be read (set by the caller of [`read`]).
    #[serde(skip_serializing_if = "is_zero")]
    pub damaged_lines: usize,
}

#[expect(
    clippy::trivially_copy_pass_by_ref,
    reason = "serde's skip_serializing_if passes a reference"
)]
fn is_zero(n: &usize) -> bool {
    *n == 0
}

pub fn hook_stats(decisions: &[Decision]) -> HookStats {
    let count = |v: Verdict| decisions.iter().filter(|d| d.verdict == v).count();
    let mut durations: Vec<u64> = decisions.iter().map(|d| d.duration_us).collect();
    durations.sort_unstable();
    HookStats {
        decisions: decisions.len(),
        blocks: count(Verdict::Block),
        passes: count(Verdict::Pass) + count(Verdict::Allow) + count(Verdict::Approved),
        warnings: count(Verdict::Warn),
        escalations: count(Verdict::Escalate),
        errors: count(Verdict::Error),
        p50_us: percentile(&durations, 50),
        p95_us: percentile(&durations, 95),
        damaged_lines: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_read_and_stats() {
        let dir = tempfile::tempdir().unwrap();
        for (verdict, us) in [
            (Verdict::Block, 900),
            (Verdict::Pass, 100),
            (Verdict::Escalate, 300),
            (Verdict::Block, 500),
        ] {
            append(
                dir.path(),
                &Decision {
                    verdict,
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
        // One invalid UTF-8 byte costs its own line only.
        let mut bytes = std::fs::read(&log).unwrap();
        bytes.extend_from_slice(b"{\"verdict\":\"block\",\"target\":\"\xff\"}\n");
        bytes.extend_from_slice(b"{\"verdict\":\"pass\"}\n");
        std::fs::write(&log, bytes).unwrap();
        let (decisions, bad) = read(dir.path());
        assert_eq!((decisions.len(), bad), (5, 2));
    }

    #[test]
    fn verdicts_keep_their_log_names_and_unknown_ones_are_read() {
        let d: Decision = serde_json::from_str(r#"{"verdict":"escalate"}"#).unwrap();
        assert_eq!(d.verdict, Verdict::Escalate);
        assert!(
            serde_json::to_string(&d)
                .unwrap()
                .contains(r#""verdict":"escalate""#)
        );
        let d: Decision = serde_json::from_str(r#"{"verdict":"context"}"#).unwrap();
        assert_eq!(d.verdict, Verdict::Unknown);
        assert_eq!(format!("[{:<6}]", Verdict::Pass), "[pass  ]");
    }
}
