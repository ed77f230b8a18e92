//! The verdict: the reviewer's answer (validated against the schema in
//! `approvals/verdict.schema.json` again here, because the reviewer command
//! is configurable and its output is untrusted) and the confidence gate.

use serde::{Deserialize, Serialize};

use super::wire;
use crate::diagnostic::{Finding, Severity, Source};

/// The decision of an approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    Approved,
    Rejected,
    NeedsRevision,
}

impl Verdict {
    /// A verdict as written (`approved`, `rejected`, `needs_revision`).
    pub fn parse(text: &str) -> Option<Self> {
        [Verdict::Approved, Verdict::Rejected, Verdict::NeedsRevision]
            .into_iter()
            .find(|v| v.as_str() == text)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Approved => "approved",
            Verdict::Rejected => "rejected",
            Verdict::NeedsRevision => "needs_revision",
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The reviewer's answer, exactly as the schema allows it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVerdict {
    result: Verdict,
    confidence: f64,
    findings: Vec<RawFinding>,
    recommendations: Vec<String>,
    #[serde(default)]
    summary: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFinding {
    severity: Severity,
    check: String,
    message: String,
    #[serde(default)]
    location: Option<String>,
}

/// A schema-valid reviewer verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewerVerdict {
    pub result: Verdict,
    pub confidence: f64,
    /// With [`Source::Reviewer`]; the rule is the reviewer's check name.
    pub findings: Vec<Finding>,
    pub recommendations: Vec<String>,
    pub summary: Option<String>,
}

/// Why a reviewer's `structured_output` is not a usable verdict.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidVerdict(pub String);

/// Parse and check `structured_output` against the verdict schema.
pub fn parse(value: &serde_json::Value) -> Result<ReviewerVerdict, InvalidVerdict> {
    let raw: RawVerdict =
        serde_json::from_value(value.clone()).map_err(|e| InvalidVerdict(e.to_string()))?;
    if !(raw.confidence.is_finite() && (0.0..=1.0).contains(&raw.confidence)) {
        return Err(InvalidVerdict(format!(
            "confidence must be between 0 and 1, got {}",
            raw.confidence
        )));
    }
    Ok(ReviewerVerdict {
        result: raw.result,
        confidence: raw.confidence,
        findings: raw
            .findings
            .into_iter()
            .map(|f| {
                let finding =
                    Finding::new(f.check, f.severity, f.message).from_source(Source::Reviewer);
                match f.location.filter(|l| !l.is_empty()) {
                    Some(location) => {
                        let (path, line) = wire::split_location(location);
                        Finding {
                            line,
                            ..finding.in_file(path)
                        }
                    }
                    None => finding,
                }
            })
            .collect(),
        recommendations: raw.recommendations,
        summary: raw.summary.filter(|s| !s.trim().is_empty()),
    })
}

/// helix-gate's own rules over the reviewer's `result`, given its number of
/// `error` findings and its confidence (the one place they are decided, for a
/// new verdict by [`gate`] and for a cached one by the cache's `still_holds`):
/// - `approved` with an `error` finding is inconsistent → `needs_revision`;
/// - `approved` below `required_confidence` → `needs_revision`;
/// - any other verdict stands.
pub fn decide(
    result: Verdict,
    errors: usize,
    confidence: f64,
    required_confidence: f64,
) -> Verdict {
    if result == Verdict::Approved && (errors > 0 || confidence < required_confidence) {
        Verdict::NeedsRevision
    } else {
        result
    }
}

/// The final verdict after helix-gate's own rules ([`decide`]), and the
/// findings that explain any change.
pub fn gate(verdict: &ReviewerVerdict, required_confidence: f64) -> (Verdict, Vec<Finding>) {
    let mut added = Vec::new();
    if verdict.result != Verdict::Approved {
        return (verdict.result, added);
    }
    let errors = verdict
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    if errors > 0 {
        added.push(
            Finding::new(
                crate::rules::gate::VERDICT_INCONSISTENT.id,
                Severity::Error,
                format!(
                    "the reviewer returned `approved` together with {errors} error finding(s); helix-gate treats this as needs_revision"
                ),
            )
            .from_source(Source::HelixGate),
        );
    }
    if verdict.confidence < required_confidence {
        added.push(
            Finding::new(
                crate::rules::gate::CONFIDENCE_TOO_LOW.id,
                Severity::Error,
                format!(
                    "the reviewer approved with confidence {:.2}, below required_confidence {:.2}; the approval does not count",
                    verdict.confidence, required_confidence
                ),
            )
            .from_source(Source::HelixGate),
        );
    }
    (
        decide(
            verdict.result,
            errors,
            verdict.confidence,
            required_confidence,
        ),
        added,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ok() -> serde_json::Value {
        json!({"result": "approved", "confidence": 0.9, "findings": [
            {"severity": "warning", "check": "acceptance", "message": "vague", "location": "adr/001.md#Akzeptanzkriterien"}
        ], "recommendations": ["be precise"], "summary": "fine"})
    }

    #[test]
    fn valid_verdict_parses() {
        let v = parse(&ok()).unwrap();
        assert_eq!(v.result, Verdict::Approved);
        assert_eq!(v.findings[0].source, Source::Reviewer);
        assert_eq!(
            v.findings[0].location().as_deref(),
            Some("adr/001.md#Akzeptanzkriterien")
        );
        assert_eq!(v.summary.as_deref(), Some("fine"));
    }

    #[test]
    fn schema_violations_are_rejected() {
        for bad in [
            json!({"result": "maybe", "confidence": 0.9, "findings": [], "recommendations": []}),
            json!({"result": "approved", "confidence": 1.5, "findings": [], "recommendations": []}),
            json!({"result": "approved", "findings": [], "recommendations": []}),
            json!({"result": "approved", "confidence": 0.9, "findings": [], "recommendations": [], "extra": 1}),
            json!({"result": "approved", "confidence": 0.9, "findings": [{"severity": "fatal", "check": "x", "message": "m"}], "recommendations": []}),
            json!({"result": "approved", "confidence": 0.9, "findings": [{"severity": "error", "message": "m"}], "recommendations": []}),
            json!("approved"),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn confidence_gate() {
        let mut v = parse(&ok()).unwrap();
        assert_eq!(gate(&v, 0.8).0, Verdict::Approved);
        v.confidence = 0.5;
        let (verdict, added) = gate(&v, 0.8);
        assert_eq!(verdict, Verdict::NeedsRevision);
        assert_eq!(added[0].rule, "confidence");
        v.result = Verdict::Rejected;
        assert_eq!(gate(&v, 0.8), (Verdict::Rejected, vec![]));
    }

    #[test]
    fn approved_with_error_is_not_approved() {
        let mut v = parse(&ok()).unwrap();
        v.findings[0].severity = Severity::Error;
        let (verdict, added) = gate(&v, 0.8);
        assert_eq!(verdict, Verdict::NeedsRevision);
        assert_eq!(added[0].rule, "verdict");
    }
}
