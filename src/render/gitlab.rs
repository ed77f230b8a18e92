//! `--format gitlab`: a GitLab Code Quality report (a JSON array of issues), shown in
//! merge requests when a job publishes it as `artifacts:reports:codequality`.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use crate::diagnostic::{FileReport, Severity};

fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "major",
        Severity::Warning => "minor",
        Severity::Info => "info",
    }
}

/// The fingerprint GitLab compares between the source and the target branch to tell
/// new issues from fixed ones: a hash of rule, path and message, deliberately not of
/// the line, so a finding keeps its identity when unrelated edits move it up or down.
/// Identical findings in one file are told apart by their order (`occurrence`), else
/// GitLab would show only one of them.
pub fn fingerprint(rule: &str, path: &str, message: &str, occurrence: usize) -> String {
    let mut hasher = Sha256::new();
    for part in [rule, path, message] {
        hasher.update(part.as_bytes());
        // A separator that cannot occur in the parts keeps ("ab","c") apart from ("a","bc").
        hasher.update([0]);
    }
    hasher.update(occurrence.to_le_bytes());
    let digest = hasher.finalize();
    // 128 bits are plenty to keep the issues of one report apart; GitLab's own
    // analyzers use MD5-length fingerprints.
    digest[..16]
        .iter()
        .fold(String::with_capacity(32), |mut hex, b| {
            let _ = write!(hex, "{b:02x}");
            hex
        })
}

/// The Code Quality report of `reports`; `[]` when nothing was found.
pub fn gitlab(reports: &[FileReport]) -> String {
    let mut seen: HashMap<(&str, &str, &str), usize> = HashMap::new();
    let issues: Vec<Value> = super::located(reports)
        .map(|(path, finding)| {
            let count = seen
                .entry((finding.rule.as_str(), path, finding.message.as_str()))
                .or_insert(0);
            let occurrence = *count;
            *count += 1;
            let mut description = format!("[{}] {}", finding.rule, finding.message);
            if let Some(hint) = &finding.hint {
                description.push_str(" Hint: ");
                description.push_str(hint);
            }
            json!({
                "description": description,
                "check_name": finding.rule,
                "fingerprint": fingerprint(&finding.rule, path, &finding.message, occurrence),
                "severity": severity(finding.severity),
                "location": {
                    "path": path,
                    // GitLab requires a line; a finding about the whole file points at its first.
                    "lines": { "begin": finding.line.unwrap_or(1).max(1) },
                },
            })
        })
        .collect();
    serde_json::to_string_pretty(&issues).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Finding;

    fn report(line: usize) -> Vec<FileReport> {
        vec![FileReport {
            path: "adr/001-x.md".into(),
            findings: vec![
                Finding::new("section-missing", Severity::Error, "no Kontext").at(line),
                Finding::new("section-missing", Severity::Error, "no Kontext").at(line + 9),
            ],
        }]
    }

    #[test]
    fn fingerprints_survive_moved_lines_and_tell_duplicates_apart() {
        let before: Value = serde_json::from_str(&gitlab(&report(3))).unwrap();
        let after: Value = serde_json::from_str(&gitlab(&report(40))).unwrap();
        assert_eq!(before[0]["fingerprint"], after[0]["fingerprint"]);
        assert_eq!(before[1]["fingerprint"], after[1]["fingerprint"]);
        assert_ne!(before[0]["fingerprint"], before[1]["fingerprint"]);
        assert_eq!(after[0]["location"]["lines"]["begin"], 40);
        assert_ne!(
            fingerprint("ab", "c", "m", 0),
            fingerprint("a", "bc", "m", 0)
        );
    }
}
