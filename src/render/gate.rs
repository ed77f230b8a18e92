//! What `helix-gate gate` prints: the seeds' `GateResult` (`passed`, `gate_type`, `message`,
//! `details`) for one gate, and, for a phase, one object with `passed` and its `gates`.
//!
//! The model lives here, with its renderer, so the gate runner (`crate::gate`) fills in data
//! and never formats; findings are the one [`Finding`] model, each naming its file.
//!
//! JSON is what the HELIX orchestrator reads. For CI, [`reports`] and [`phase_reports`]
//! turn a result into the file reports the CI renderers (`sarif`, `github`, `gitlab`,
//! `junit`) already take, and [`human`] / [`phase_human`] print it for a terminal.

use std::fmt::Write as _;

use serde::Serialize;

use crate::diagnostic::{FileReport, Finding, Severity};
use crate::text::escape_controls;

/// How a gate ended; decides the exit status (0, 1, 2).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    #[default]
    Passed,
    Failed,
    /// The gate could not run (a missing result file, a reviewer that failed, an unknown type).
    Error,
}

impl Outcome {
    /// The worse of two outcomes (error over failed over passed).
    #[must_use]
    pub fn and(self, other: Outcome) -> Outcome {
        match (self, other) {
            (Outcome::Error, _) | (_, Outcome::Error) => Outcome::Error,
            (Outcome::Failed, _) | (_, Outcome::Failed) => Outcome::Failed,
            _ => Outcome::Passed,
        }
    }
}

/// The seeds' `GateResult` (001 section 2.6, 002 section 9).
#[derive(Debug, Clone, Serialize)]
pub struct GateResult {
    pub passed: bool,
    pub gate_type: String,
    pub message: String,
    pub details: GateDetails,
}

/// `details` of a [`GateResult`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct GateDetails {
    /// `passed`, `failed`, or `error` (the gate could not run).
    pub outcome: Outcome,
    /// The files the gate looked at (repository-relative where inside it).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
    /// Deterministic findings, each with its `path`.
    pub findings: Vec<Finding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concept: Option<String>,
    /// `adr_complete`: whether the reviewer ran, and why not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_result: Option<String>,
    /// The approval's result document (`approval-result.json` form).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub approval: Option<serde_json::Value>,
}

impl GateResult {
    /// A result whose `passed` follows `outcome`.
    pub fn new(gate_type: &str, outcome: Outcome, message: String, details: GateDetails) -> Self {
        GateResult {
            passed: outcome == Outcome::Passed,
            gate_type: gate_type.to_owned(),
            message,
            details: GateDetails { outcome, ..details },
        }
    }

    pub fn outcome(&self) -> Outcome {
        self.details.outcome
    }
}

/// The gates of one phase of a `phases.yaml`.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseResult {
    pub passed: bool,
    pub phase: String,
    pub phases_file: String,
    pub outcome: Outcome,
    pub message: String,
    /// Findings of the plan itself (checked before any gate runs), and `phase-blocked`
    /// for each failing dependency.
    pub findings: Vec<Finding>,
    /// The phases of `depends_on` (directly or through others) that fail: the phase is
    /// blocked, and its own gates were not run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked_by: Vec<Blocker>,
    pub gates: Vec<GateResult>,
}

/// A dependency of a phase that fails, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Blocker {
    /// The phase `depends_on` names.
    pub phase: String,
    /// Why it fails: its failing gates, or the phase that blocks it in turn.
    pub reason: String,
}

/// One gate as pretty JSON (one object).
pub fn gate_json(result: &GateResult) -> String {
    serde_json::to_string_pretty(result).unwrap_or_default() + "\n"
}

/// One phase as pretty JSON (one object).
pub fn phase_json(result: &PhaseResult) -> String {
    serde_json::to_string_pretty(result).unwrap_or_default() + "\n"
}

/// The place of a finding that names no file, when the gate looked at no file either
/// (an unknown gate type): the current directory, which every CI format accepts.
const NO_FILE: &str = ".";

/// One gate's findings as file reports for the CI renderers: a report per file the gate
/// looked at (a clean one is a passing case in JUnit), each finding under its own file.
/// A gate that failed or could not run without an error finding of its own (a reviewer
/// that timed out, a missing result file, a `needs_revision` with only warnings) gets one
/// carrying its message, so CI never shows a red job with nothing in it: rule
/// `infrastructure` when it could not run, else the gate's type.
pub fn reports(result: &GateResult) -> Vec<FileReport> {
    let mut reports = Vec::new();
    add_gate(&mut reports, result, NO_FILE);
    reports
}

/// A phase's findings as file reports: the plan's own findings under the phases file,
/// then every gate's (see [`reports`]), merged by file.
pub fn phase_reports(result: &PhaseResult) -> Vec<FileReport> {
    let mut reports = Vec::new();
    report_for(&mut reports, &result.phases_file);
    for finding in &result.findings {
        let path = finding.path.as_deref().unwrap_or(&result.phases_file);
        report_for(&mut reports, path)
            .findings
            .push(finding.clone());
    }
    for gate in &result.gates {
        add_gate(&mut reports, gate, &result.phases_file);
    }
    reports
}

fn add_gate(reports: &mut Vec<FileReport>, result: &GateResult, fallback: &str) {
    let details = &result.details;
    for file in &details.files {
        report_for(reports, file);
    }
    let home = details.files.first().map_or(fallback, String::as_str);
    for finding in &details.findings {
        let path = finding.path.as_deref().unwrap_or(home);
        report_for(reports, path).findings.push(finding.clone());
    }
    let has_error = details
        .findings
        .iter()
        .any(|f| f.severity == Severity::Error);
    let synthetic = match result.outcome() {
        Outcome::Passed => None,
        _ if has_error => None,
        Outcome::Error => Some((
            "infrastructure",
            "the gate could not run; fix the cause and run it again (not a problem of the ADR)",
        )),
        Outcome::Failed => Some((
            result.gate_type.as_str(),
            "see the gate's JSON (`helix-gate gate ... --format json`) for its details",
        )),
    };
    if let Some((rule, hint)) = synthetic {
        let message = format!("gate {}: {}", result.gate_type, result.message);
        report_for(reports, home)
            .findings
            .push(Finding::new(rule, Severity::Error, message).hint(hint));
    }
}

/// The report of `path`, added at the end when there is none yet.
fn report_for<'a>(reports: &'a mut Vec<FileReport>, path: &str) -> &'a mut FileReport {
    let index = if let Some(i) = reports.iter().position(|r| r.path == path) {
        i
    } else {
        reports.push(FileReport {
            path: path.to_owned(),
            findings: Vec::new(),
        });
        reports.len() - 1
    };
    &mut reports[index]
}

fn outcome_word(outcome: Outcome, color: bool) -> String {
    match outcome {
        Outcome::Passed => super::paint(color, "1;32", "passed"),
        Outcome::Failed => super::paint(color, "1;31", "failed"),
        Outcome::Error => super::paint(color, "1;31", "could not run"),
    }
}

/// One gate for a terminal: `gate TYPE: OUTCOME`, its message, the details that apply,
/// then its findings as `validate` shows them.
pub fn human(result: &GateResult, color: bool) -> String {
    let mut out = String::new();
    gate_text(&mut out, result, color);
    out
}

fn gate_text(out: &mut String, result: &GateResult, color: bool) {
    let d = &result.details;
    let _ = writeln!(
        out,
        "gate {}: {}",
        escape_controls(&result.gate_type),
        outcome_word(result.outcome(), color)
    );
    let _ = writeln!(out, "  {}", escape_controls(&result.message));
    if !d.files.is_empty() {
        let files: Vec<_> = d.files.iter().map(|f| escape_controls(f)).collect();
        let _ = writeln!(out, "  files: {}", files.join(", "));
    }
    for (label, value) in [
        ("concept", &d.concept),
        ("semantic", &d.semantic),
        ("required result", &d.required_result),
    ] {
        if let Some(value) = value {
            let _ = writeln!(out, "  {label}: {}", escape_controls(value));
        }
    }
    if let Some(approval) = &d.approval {
        let field = |key: &str| approval.get(key).map(ToString::to_string);
        if let Some(verdict) = approval.get("result").and_then(serde_json::Value::as_str) {
            let confidence = field("confidence")
                .map(|c| format!(" (confidence {c})"))
                .unwrap_or_default();
            let _ = writeln!(out, "  approval: {}{confidence}", escape_controls(verdict));
        }
    }
    let home = d.files.first().map_or(NO_FILE, String::as_str);
    for finding in &d.findings {
        super::human::finding(out, &place(finding, home), finding, color);
    }
}

/// `path:line` of a finding, its path defaulting to `home`.
fn place(finding: &Finding, home: &str) -> String {
    let path = finding.path.as_deref().unwrap_or(home);
    match finding.line {
        Some(line) => format!("{path}:{line}"),
        None => path.to_owned(),
    }
}

/// One phase for a terminal: the phase and its outcome, the plan's findings, then each
/// gate as [`human`] prints it.
pub fn phase_human(result: &PhaseResult, color: bool) -> String {
    let mut out = format!(
        "phase {} ({}): {}\n  {}\n",
        escape_controls(&result.phase),
        escape_controls(&result.phases_file),
        outcome_word(result.outcome, color),
        escape_controls(&result.message)
    );
    for finding in &result.findings {
        super::human::finding(
            &mut out,
            &place(finding, &result.phases_file),
            finding,
            color,
        );
    }
    for gate in &result.gates {
        out.push('\n');
        gate_text(&mut out, gate, color);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_result_has_the_seed_shape() {
        let details = GateDetails {
            findings: vec![Finding::new("section-missing", Severity::Error, "x").in_file("a.md")],
            ..GateDetails::default()
        };
        let result = GateResult::new("adr_complete", Outcome::Failed, "1 error".into(), details);
        let v: serde_json::Value = serde_json::from_str(&gate_json(&result)).unwrap();
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["passed", "gate_type", "message", "details"]);
        assert_eq!(v["passed"], false);
        assert_eq!(v["details"]["outcome"], "failed");
        assert_eq!(v["details"]["findings"][0]["path"], "a.md");
        assert_eq!(Outcome::Passed.and(Outcome::Failed), Outcome::Failed);
        assert_eq!(Outcome::Error.and(Outcome::Failed), Outcome::Error);
    }
}
