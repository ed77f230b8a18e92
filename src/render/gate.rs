//! What `helix-gate gate` prints: the seeds' `GateResult` (`passed`, `gate_type`, `message`,
//! `details`) for one gate, and, for a phase, one object with `passed` and its `gates`.
//!
//! The model lives here, with its renderer, so the gate runner (`crate::gate`) fills in data
//! and never formats; findings are the one [`Finding`] model, each naming its file.

use serde::Serialize;

use crate::diagnostic::Finding;

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
    /// Findings of the plan itself (checked before any gate runs).
    pub findings: Vec<Finding>,
    pub gates: Vec<GateResult>,
}

/// One gate as pretty JSON (one object).
pub fn gate_json(result: &GateResult) -> String {
    serde_json::to_string_pretty(result).unwrap_or_default() + "\n"
}

/// One phase as pretty JSON (one object).
pub fn phase_json(result: &PhaseResult) -> String {
    serde_json::to_string_pretty(result).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

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
