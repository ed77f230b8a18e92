//! What one event led to (the answer and its log records), and the small
//! helpers every event's decision shares.

use crate::decision_log::{Decision, Verdict};
use crate::diagnostic::{FileReport, Severity};

use super::event::HookEvent;
use super::output::HookOutput;

/// What one event led to: the answer and the log records.
#[derive(Default)]
pub(super) struct Ruling {
    pub(super) output: Option<HookOutput>,
    pub(super) decisions: Vec<Decision>,
}

impl Ruling {
    /// Nothing to answer and nothing to log: the hook's no-op.
    pub(super) fn is_quiet(&self) -> bool {
        self.output.is_none() && self.decisions.is_empty()
    }
}

pub(super) fn session_id(event: &HookEvent) -> &str {
    event.session_id.as_deref().unwrap_or("unknown-session")
}

pub(super) fn count(report: &FileReport, severity: Severity) -> usize {
    report
        .findings
        .iter()
        .filter(|f| f.severity == severity)
        .count()
}

pub(super) fn rule_ids(report: &FileReport) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for f in report
        .findings
        .iter()
        .filter(|f| f.severity != Severity::Info)
    {
        if !ids.contains(&f.rule) {
            ids.push(f.rule.clone());
        }
    }
    ids
}

/// No answer, but a logged reason why the file was not checked.
pub(super) fn skipped(target: String, why: &str) -> Ruling {
    Ruling {
        output: None,
        decisions: vec![Decision {
            target,
            verdict: Verdict::Skip,
            note: Some(why.to_owned()),
            ..Decision::default()
        }],
    }
}
