//! Renderers of the one findings model: terminal text and versioned JSON.

use std::fmt::Write as _;

use serde::Serialize;

use crate::diagnostic::{FileReport, Severity, Summary};

/// Version of the `--format json` document; bumped on any incompatible change.
pub const JSON_SCHEMA_VERSION: u32 = 1;

/// Terminal text. `color` adds ANSI colours (callers decide: terminal and no NO_COLOR).
pub fn human(reports: &[FileReport], color: bool) -> String {
    let paint = |code: &str, text: &str| {
        if color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    };
    let mut out = String::new();
    for report in reports {
        for f in &report.findings {
            let location = match f.line {
                Some(line) => format!("{}:{line}:", report.path),
                None => format!("{}:", report.path),
            };
            let label = match f.severity {
                Severity::Error => paint("1;31", &format!("error[{}]", f.rule)),
                Severity::Warning => paint("1;33", &format!("warning[{}]", f.rule)),
                Severity::Info => paint("1;34", &format!("info[{}]", f.rule)),
            };
            let _ = writeln!(out, "{} {label} {}", paint("1", &location), f.message);
            if let Some(hint) = &f.hint {
                let _ = writeln!(out, "  {} {hint}", paint("36", "hint:"));
            }
        }
    }
    out.push_str(&summary_line(&Summary::of(reports)));
    out.push('\n');
    out
}

/// `1 error`, `2 errors`.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `2 files checked: 1 error, 1 warning`.
pub fn summary_line(s: &Summary) -> String {
    let mut line = format!(
        "{} checked: {}, {}",
        plural(s.files, "file"),
        plural(s.errors, "error"),
        plural(s.warnings, "warning")
    );
    if s.infos > 0 {
        let _ = write!(line, ", {}", plural(s.infos, "info"));
    }
    line
}

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
    use crate::diagnostic::Finding;

    fn sample() -> Vec<FileReport> {
        vec![
            FileReport {
                path: "adr/038-response-enforcement.md".into(),
                findings: vec![
                    Finding::new("major-needs-migration", Severity::Error, "change_scope=major erfordert einen Migrations-Plan: section \"Migration\" is missing")
                        .at(1)
                        .hint("add \"## Migration\" with the phases/steps (Phase, Schritt) and a rollback plan"),
                    Finding::new("acceptance-criteria-min", Severity::Warning, "2 acceptance criteria, at least 3 expected").at(57),
                ],
            },
            FileReport { path: "adr/001-x.md".into(), findings: vec![] },
        ]
    }

    #[test]
    fn human_matches_the_documented_shape() {
        assert_eq!(
            human(&sample(), false),
            "adr/038-response-enforcement.md:1: error[major-needs-migration] change_scope=major erfordert einen Migrations-Plan: section \"Migration\" is missing\n  \
hint: add \"## Migration\" with the phases/steps (Phase, Schritt) and a rollback plan\n\
adr/038-response-enforcement.md:57: warning[acceptance-criteria-min] 2 acceptance criteria, at least 3 expected\n\
2 files checked: 1 error, 1 warning\n"
        );
    }

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
