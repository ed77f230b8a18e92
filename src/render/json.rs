//! The documented `--format json` document (see docs/src/output-formats.md).

use serde::Serialize;

use crate::diagnostic::{FileReport, Summary};

/// Version of the `--format json` document; bumped on any incompatible change.
pub const JSON_SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
struct JsonDocument<'a> {
    schema: &'static str,
    version: u32,
    files: &'a [FileReport],
    summary: Summary,
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
        JsonDocument {
            schema: "helix-gate/validate",
            version: JSON_SCHEMA_VERSION,
            files: reports,
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
    }
}
