//! The documented `--format json` document (see README, "JSON output").

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

/// The documented JSON form (see README, "JSON output").
pub fn json(reports: &[FileReport]) -> String {
    let doc = JsonDocument {
        schema: "helix-gate/validate",
        version: JSON_SCHEMA_VERSION,
        files: reports,
        summary: Summary::of(reports),
    };
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
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
