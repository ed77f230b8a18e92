//! The documented `--format json` document (see docs/src/output-formats.md).

use serde::Serialize;

use crate::config::RuleSet;
use crate::diagnostic::{FileReport, Finding, Summary};

/// Version of the `--format json` document; bumped on any incompatible change.
pub const JSON_SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct JsonDocument<'a> {
    schema: &'static str,
    version: u32,
    files: Vec<JsonFile<'a>>,
    summary: Summary,
}

#[derive(Serialize)]
struct JsonFile<'a> {
    path: &'a str,
    findings: Vec<JsonFinding<'a>>,
}

/// A finding with `url`, its rule's section of the book (the SARIF `helpUri`), as
/// ruff's JSON has: the reader goes from the finding to the rule's documentation.
#[derive(Serialize)]
struct JsonFinding<'a> {
    #[serde(flatten)]
    finding: &'a Finding,
    url: String,
}

/// The documented JSON form (see docs/src/output-formats.md).
pub fn json(reports: &[FileReport]) -> String {
    serde_json::to_string_pretty(&JsonDocument::of(reports)).unwrap_or_default() + "\n"
}

/// The same document as a JSON value (the MCP server's `structuredContent`).
pub fn document(reports: &[FileReport]) -> serde_json::Value {
    serde_json::to_value(JsonDocument::of(reports)).unwrap_or_default()
}

impl<'a> JsonDocument<'a> {
    fn of(reports: &'a [FileReport]) -> Self {
        // Parsed once per document, not once per finding.
        let shipped = RuleSet::builtin().ok();
        let url = |id: &str| {
            let on_page = crate::rules::find(id).is_some()
                || shipped
                    .as_ref()
                    .is_some_and(|set| set.contextual.iter().any(|rule| rule.id == id));
            super::sarif::help_uri(id, on_page)
        };
        JsonDocument {
            schema: "helix-gate/validate",
            version: JSON_SCHEMA_VERSION,
            files: reports
                .iter()
                .map(|report| JsonFile {
                    path: &report.path,
                    findings: report
                        .findings
                        .iter()
                        .map(|finding| JsonFinding {
                            finding,
                            url: url(&finding.rule),
                        })
                        .collect(),
                })
                .collect(),
            summary: Summary::of(reports),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::human::tests::sample;

    #[test]
    fn json_is_versioned() {
        let v: serde_json::Value = serde_json::from_str(&json(&sample())).unwrap();
        assert_eq!(v["schema"], "helix-gate/validate");
        assert_eq!(v["version"], 1);
        assert_eq!(v["summary"]["errors"], 1);
        assert_eq!(v["files"][0]["findings"][1]["line"], 57);
        assert!(v["files"][0]["findings"][1].get("hint").is_none());
        let rules_page = format!(
            "{}/blob/main/docs/src/reference/rules.md",
            super::super::sarif::REPOSITORY_URL
        );
        assert_eq!(
            v["files"][0]["findings"][0]["url"],
            format!("{rules_page}#major-needs-migration")
        );
        assert_eq!(
            v["files"][0]["findings"][1]["url"],
            format!("{rules_page}#acceptance-criteria-min")
        );
    }
}
