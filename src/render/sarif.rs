//! `--format sarif`: a SARIF 2.1.0 log for GitHub code scanning and other SARIF
//! consumers. One `run`; the driver lists every rule that has a result, with its
//! `explain` text, so a reader of the alert sees why the rule exists and how to fix it.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::config::RuleSet;
use crate::diagnostic::{FileReport, Severity};
use crate::rules;

/// The base the relative artifact URIs are resolved against: the repository root
/// (the directory `helix-gate` ran in), which is what upload-sarif expects.
pub const URI_BASE_ID: &str = "SRCROOT";

/// Where helix-gate lives; the SARIF `informationUri` and the base of every rule's `helpUri`.
pub const REPOSITORY_URL: &str = env!("CARGO_PKG_REPOSITORY");

/// The page of the book that documents every rule (a rule's full text is in its `help`).
const RULES_PAGE: &str = "docs/src/reference/rules.md";

/// The section of `id` on the rules page (its heading is the id), or the page itself for
/// a rule the page does not have (a contextual rule of the repository's own rules file).
pub(super) fn help_uri(id: &str, on_page: bool) -> String {
    if on_page {
        format!("{REPOSITORY_URL}/blob/main/{RULES_PAGE}#{}", anchor(id))
    } else {
        format!("{REPOSITORY_URL}/blob/main/{RULES_PAGE}")
    }
}

/// GitHub's anchor of a heading: lower case, each space a `-`, punctuation other than
/// `-` and `_` dropped.
fn anchor(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// The SARIF log of `reports`. Rule documentation comes from the built-in registry,
/// then from `rules` (the contextual rules of the rules file in use) when given; a
/// rule neither knows (a reviewer's check) is listed with its id only.
pub fn sarif(reports: &[FileReport], rules: Option<&RuleSet>) -> String {
    let mut rule_ids: Vec<&str> = Vec::new();
    let mut results = Vec::new();
    for (path, finding) in super::located(reports) {
        let index = rule_ids
            .iter()
            .position(|id| *id == finding.rule)
            .unwrap_or_else(|| {
                rule_ids.push(&finding.rule);
                rule_ids.len() - 1
            });
        let mut text = finding.message.clone();
        if let Some(hint) = &finding.hint {
            text.push_str("\nHint: ");
            text.push_str(hint);
        }
        // GitHub code scanning needs `region.startLine` on every result (sarif-multitool's
        // GH1003, SARIF2017 warns too); a finding about the whole file (a missing file, no
        // line) is shown at line 1.
        let line = finding.line.filter(|line| *line > 0).unwrap_or(1);
        let physical = json!({
            "artifactLocation": artifact_location(path),
            "region": { "startLine": line },
        });
        results.push(json!({
            "ruleId": finding.rule,
            "ruleIndex": index,
            "level": level(finding.severity),
            "message": { "text": text },
            "locations": [{ "physicalLocation": physical }],
        }));
    }
    let descriptors: Vec<Value> = rule_ids.iter().map(|id| descriptor(id, rules)).collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {
                "driver": {
                    "name": "helix-gate",
                    "version": env!("CARGO_PKG_VERSION"),
                    "semanticVersion": env!("CARGO_PKG_VERSION"),
                    "informationUri": REPOSITORY_URL,
                    "rules": descriptors,
                }
            },
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}

/// A `reportingDescriptor`: id, one-line summary, the `explain` text, the default level.
fn descriptor(id: &str, rules: Option<&RuleSet>) -> Value {
    if let Some(rule) = rules::find(id) {
        let doc = rule.doc.to_string();
        return json!({
            "id": rule.id,
            "name": pascal_case(rule.id),
            "shortDescription": { "text": rule.summary },
            "fullDescription": { "text": doc },
            "help": { "text": doc, "markdown": doc },
            "helpUri": help_uri(rule.id, true),
            "defaultConfiguration": { "level": level(rule.severity) },
        });
    }
    if let Some(rule) = rules.and_then(|set| set.contextual.iter().find(|r| r.id == id)) {
        let mut help = format!("Contextual rule of the rules file. {}", rule.message);
        if let Some(hint) = &rule.hint {
            help.push_str("\nHint: ");
            help.push_str(hint);
        }
        return json!({
            "id": rule.id,
            "name": pascal_case(&rule.id),
            "shortDescription": { "text": rule.name },
            "fullDescription": { "text": help },
            "help": { "text": help },
            "helpUri": help_uri(&rule.id, shipped_contextual(&rule.id)),
            "defaultConfiguration": { "level": level(rule.severity) },
        });
    }
    json!({ "id": id })
}

/// Whether `id` is a contextual rule of the shipped rules file (documented on the rules
/// page), not one a repository's own rules file added.
fn shipped_contextual(id: &str) -> bool {
    RuleSet::builtin().is_ok_and(|set| set.contextual.iter().any(|rule| rule.id == id))
}

/// SARIF's "friendly name" of a rule: `section-missing` -> `SectionMissing`.
fn pascal_case(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .flat_map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
        })
        .collect()
}

/// A relative path becomes a relative URI against [`URI_BASE_ID`]; an absolute one (a
/// file outside the repository) a `file:` URI of its own.
fn artifact_location(path: &str) -> Value {
    if let Some(rest) = path.strip_prefix('/') {
        json!({ "uri": format!("file:///{}", percent_encode(rest)) })
    } else {
        json!({ "uri": percent_encode(path), "uriBaseId": URI_BASE_ID })
    }
}

/// Percent-encode everything but RFC 3986's unreserved characters and `/`, so a path
/// with spaces, `#`, `?` or non-ASCII letters is still one valid URI reference.
pub(crate) fn percent_encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~' | b'/') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Finding;

    #[test]
    fn results_point_at_relative_uris_with_lines() {
        let reports = vec![FileReport {
            path: "adr/001 ä#.md".into(),
            findings: vec![
                Finding::new("section-missing", Severity::Error, "no Kontext").at(3),
                Finding::new("reviewer-check", Severity::Info, "vague"),
            ],
        }];
        let log: Value = serde_json::from_str(&sarif(&reports, None)).unwrap();
        let run = &log["runs"][0];
        assert_eq!(run["tool"]["driver"]["rules"][0]["id"], "section-missing");
        assert!(
            run["tool"]["driver"]["rules"][0]["help"]["text"]
                .as_str()
                .unwrap()
                .contains("## Why")
        );
        assert_eq!(
            run["tool"]["driver"]["rules"][1],
            json!({ "id": "reviewer-check" })
        );
        let location = &run["results"][0]["locations"][0]["physicalLocation"];
        assert_eq!(
            location["artifactLocation"]["uri"],
            "adr/001%20%C3%A4%23.md"
        );
        assert_eq!(location["artifactLocation"]["uriBaseId"], "SRCROOT");
        assert_eq!(location["region"]["startLine"], 3);
        assert_eq!(run["results"][1]["level"], "note");
        assert_eq!(run["results"][1]["ruleIndex"], 1);
        // No line: the whole file, at line 1 (GitHub needs a startLine).
        assert_eq!(
            run["results"][1]["locations"][0]["physicalLocation"]["region"]["startLine"],
            1
        );
    }

    #[test]
    fn help_uris_lead_to_the_rules_section_of_the_reference_page() {
        let base = format!("{REPOSITORY_URL}/blob/main/docs/src/reference/rules.md");
        assert_eq!(
            help_uri("section-missing", true),
            format!("{base}#section-missing")
        );
        assert_eq!(help_uri("Odd Id!", true), format!("{base}#odd-id"));
        let own = crate::config::RuleSet::parse(
            "contextual_rules:\n  - id: house-rule\n    when: {change_scope: major}\n    require: {acceptance_criteria_keywords: [x]}\n    message: m\n",
            "own",
        )
        .unwrap();
        let reports = vec![FileReport {
            path: "adr/001-x.md".into(),
            findings: vec![
                Finding::new("house-rule", Severity::Error, "m"),
                Finding::new("major-needs-migration", Severity::Error, "m"),
            ],
        }];
        let shipped = crate::config::RuleSet::builtin().unwrap();
        let log: Value = serde_json::from_str(&sarif(&reports, Some(&own))).unwrap();
        // A rule of the repository's own rules file is not on the page: the page itself.
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"][0]["helpUri"],
            base
        );
        let log: Value = serde_json::from_str(&sarif(&reports, Some(&shipped))).unwrap();
        assert_eq!(
            log["runs"][0]["tool"]["driver"]["rules"][1]["helpUri"],
            format!("{base}#major-needs-migration")
        );
    }

    #[test]
    fn absolute_paths_become_file_uris() {
        assert_eq!(
            artifact_location("/tmp/a b.md"),
            json!({ "uri": "file:///tmp/a%20b.md" })
        );
    }
}
