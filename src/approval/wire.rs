//! The on-disk (and `approve --format json`) shape of an approval's findings:
//! the seed's schema `{severity, check, message, location?, source}`.
//!
//! In memory an approval's findings are [`Finding`]s like every other finding;
//! this module is the only place that knows the older wire shape. It must
//! keep reading what earlier versions wrote (`approval-result.json`, cache
//! entries), so the conversion is lossless in both directions: a `location`
//! read from a file is written back byte for byte (see [`split_location`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::diagnostic::{Finding, Severity, Source};

/// One finding as it is stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct WireFinding {
    severity: Severity,
    check: String,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    location: Option<String>,
    source: Source,
}

impl From<&Finding> for WireFinding {
    fn from(f: &Finding) -> Self {
        WireFinding {
            severity: f.severity,
            check: f.rule.clone(),
            message: f.message.clone(),
            location: f.location(),
            source: f.source,
        }
    }
}

impl From<WireFinding> for Finding {
    fn from(w: WireFinding) -> Self {
        let mut finding = Finding::new(w.check, w.severity, w.message).from_source(w.source);
        if let Some(location) = w.location {
            let (path, line) = split_location(location);
            finding = finding.in_file(path);
            finding.line = line;
        }
        finding
    }
}

/// A location as a path and a line: `path:line` when the part after the last
/// `:` is a line number written the way [`Finding::location`] writes it back
/// (no sign, no leading zero) and a path precedes it; otherwise the whole
/// text is the path (a reviewer may name a place such as `adr/001.md#Scope`).
/// So `Finding::location` always gives the original text again.
pub(super) fn split_location(location: String) -> (String, Option<usize>) {
    if let Some((path, line)) = location.rsplit_once(':')
        && !path.is_empty()
        && let Ok(number) = line.parse::<usize>()
        && number.to_string() == line
    {
        return (path.to_owned(), Some(number));
    }
    (location, None)
}

/// `#[serde(with = "wire::findings")]` for a `Vec<Finding>` in the wire shape.
pub(super) mod findings {
    use super::{Deserialize as _, Deserializer, Finding, Serializer, WireFinding};

    pub(crate) fn serialize<S: Serializer>(findings: &[Finding], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(findings.iter().map(WireFinding::from))
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Finding>, D::Error> {
        let wire = Vec::<WireFinding>::deserialize(d)?;
        Ok(wire.into_iter().map(Finding::from).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Serialize, Deserialize)]
    struct Doc {
        #[serde(with = "findings")]
        findings: Vec<Finding>,
    }

    #[test]
    fn locations_split_only_when_they_round_trip() {
        for (text, path, line) in [
            ("adr/001-x.md:12", "adr/001-x.md", Some(12)),
            ("adr/001-x.md", "adr/001-x.md", None),
            ("adr/001-x.md#Migration", "adr/001-x.md#Migration", None),
            ("adr/001-x.md:+5", "adr/001-x.md:+5", None),
            ("adr/001-x.md:007", "adr/001-x.md:007", None),
            ("adr/001-x.md:", "adr/001-x.md:", None),
            (":12", ":12", None),
            ("line 3", "line 3", None),
            ("a:b:3", "a:b", Some(3)),
            ("", "", None),
        ] {
            let (p, l) = split_location(text.to_owned());
            assert_eq!((p.as_str(), l), (path, line), "{text}");
            let finding = Finding::new("r", Severity::Info, "m").in_file(p);
            let finding = Finding { line: l, ..finding };
            assert_eq!(finding.location().as_deref(), Some(text));
        }
    }

    #[test]
    fn documents_of_earlier_versions_read_and_write_back_unchanged() {
        let stored = json!({"findings": [
            {"severity": "error", "check": "section-missing", "message": "no Migration", "location": "adr/001-x.md:1", "source": "deterministic"},
            {"severity": "warning", "check": "acceptance", "message": "vague", "location": "adr/001-x.md#Akzeptanzkriterien", "source": "reviewer"},
            {"severity": "error", "check": "confidence", "message": "too low", "source": "helix-gate"}
        ]});
        let doc: Doc = serde_json::from_value(stored.clone()).unwrap();
        assert_eq!(
            doc.findings[0],
            Finding::new("section-missing", Severity::Error, "no Migration")
                .in_file("adr/001-x.md")
                .at(1)
        );
        assert_eq!(doc.findings[1].source, Source::Reviewer);
        assert_eq!(doc.findings[2].source, Source::HelixGate);
        assert_eq!(doc.findings[2].path, None);
        assert_eq!(serde_json::to_value(&doc).unwrap(), stored);
    }

    #[test]
    fn unknown_severity_or_missing_source_is_refused() {
        for bad in [
            json!({"findings": [{"severity": "fatal", "check": "c", "message": "m", "source": "reviewer"}]}),
            json!({"findings": [{"severity": "error", "check": "c", "message": "m"}]}),
        ] {
            assert!(serde_json::from_value::<Doc>(bad).is_err());
        }
    }
}
