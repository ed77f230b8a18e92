//! The rules of the accepted (and proposed) ADRs run on a change: the one
//! evaluator that the hook (one written file), pre-commit (the staged diff) and
//! `helix-gate check` (a branch against its base) ask.
//!
//! A rule of a binding ADR keeps its severity; a rule of a proposed ADR only
//! warns. `require_co_change` judges the change set as a whole; in the session,
//! where the set is not complete until the commit, it only advises. `llm_review`
//! rules are the reviewer's: they never produce a finding here.

use super::governs::{Force, Governors, Index, RulingAdr};
use crate::diagnostic::{Finding, Severity};
use crate::rules::enforcement::{Compiled, FileChange, Hit, Kind};

/// One file of a change: its text before (`None`: new) and after (`None`: deleted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Repository-relative, `/`-separated.
    pub path: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// Where the change is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Moment {
    /// One write of an agent's session: the change set is not complete yet.
    Session,
    /// A commit or a branch: the change set is complete.
    Commit,
}

/// The rule id of a finding: `ADR-014/no-direct-http`.
pub fn rule_id(adr: &str, rule: &str) -> String {
    format!("{adr}/{rule}")
}

/// The ADR id in a finding's rule id made by [`rule_id`] (`ADR-014`), if it is one.
pub fn adr_of_rule(rule: &str) -> Option<&str> {
    let (adr, rest) = rule.split_once('/')?;
    (!rest.is_empty() && !adr.is_empty()).then_some(adr)
}

/// The findings of every applicable rule on `changes`, each with its path set.
pub fn check(index: &Index, changes: &[Change], moment: Moment) -> Vec<Finding> {
    let changes: Vec<&Change> = changes.iter().filter(|c| !index.is_adr(&c.path)).collect();
    let mut findings = Vec::new();
    if changes.is_empty() {
        return findings;
    }
    // Per change, the ADRs that govern it with at least pending force: one
    // resolve per change, not one per rule.
    let governing: Vec<Governors> = changes.iter().map(|c| index.governing(&c.path)).collect();
    let reached: Vec<(&str, &Governors)> = changes
        .iter()
        .zip(&governing)
        .map(|(c, ids)| (c.path.as_str(), ids))
        .collect();
    // Each file read once for all the rules (its added lines, its imports).
    let read: Vec<FileChange<'_>> = changes
        .iter()
        .map(|c| FileChange::new(&c.path, c.before.as_deref(), c.after.as_deref()))
        .collect();
    for adr in index.ruling_for(&reached) {
        for compiled in adr.rules {
            let covered: Vec<(&Change, &FileChange<'_>)> = changes
                .iter()
                .zip(&governing)
                .zip(&read)
                .filter(|((c, governors), _)| compiled.covers(&c.path, governors.contains(&adr)))
                .map(|((c, _), r)| (*c, r))
                .collect();
            if covered.is_empty() {
                continue;
            }
            if let Kind::RequireCoChange { with } = &compiled.rule.kind {
                if !changes.iter().any(|c| compiled.is_companion(&c.path)) {
                    let hit = Hit {
                        line: None,
                        message: format!(
                            "changes {} without a change under {}",
                            covered
                                .iter()
                                .take(3)
                                .map(|(c, _)| format!("`{}`", c.path))
                                .collect::<Vec<_>>()
                                .join(", "),
                            with.iter()
                                .map(|w| format!("`{w}`"))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    };
                    let severity = match moment {
                        Moment::Session => Severity::Warning,
                        Moment::Commit => severity(&adr, compiled),
                    };
                    findings.push(finding(&adr, compiled, &covered[0].0.path, &hit, severity));
                }
                continue;
            }
            for (change, read) in covered {
                for hit in compiled.check_change(read) {
                    findings.push(finding(
                        &adr,
                        compiled,
                        &change.path,
                        &hit,
                        severity(&adr, compiled),
                    ));
                }
            }
        }
    }
    findings
}

/// The severity a rule's finding has: its own for a binding ADR, at most a
/// warning for a proposed one.
fn severity(adr: &RulingAdr<'_>, compiled: &Compiled) -> Severity {
    if adr.force == Force::Binding {
        compiled.rule.severity
    } else {
        Severity::Warning
    }
}

fn finding(
    adr: &RulingAdr<'_>,
    compiled: &Compiled,
    path: &str,
    hit: &Hit,
    severity: Severity,
) -> Finding {
    let rule = &compiled.rule;
    let title = adr.title.map(|t| format!(" ({t})")).unwrap_or_default();
    let pending = if adr.force == Force::Binding {
        ""
    } else {
        " [proposed: a warning until it is accepted]"
    };
    let mut finding = Finding::new(
        rule_id(adr.id, &rule.id),
        severity,
        format!(
            "{}: {}{title} says: {}{pending}",
            hit.message, adr.id, rule.why
        ),
    )
    .in_file(path)
    .hint(fix_hint(&rule.kind, adr.file));
    if let Some(line) = hit.line {
        finding = finding.at(line);
    }
    finding
}

/// How to comply, per kind.
fn fix_hint(kind: &Kind, file: &str) -> String {
    let what = match kind {
        Kind::ForbidImport { .. } => "use what the decision prescribes instead of this import",
        Kind::ForbidDependency { .. } => "remove the dependency; use what the decision prescribes",
        Kind::ForbidPath => "put the code where the decision places it, not here",
        Kind::RequireCoChange { .. } => "change the companion files in the same commit",
        Kind::ForbidPattern { .. } => "rewrite the added line so it no longer matches",
        Kind::RequirePattern { .. } => "add what the pattern requires",
        Kind::LlmReview { .. } => "follow the decision",
    };
    format!("{what} (read {file}); if the decision itself must change, that is a new ADR")
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::adr::Adr;
    use crate::adr::catalog::{Catalog, Entry};

    fn index(adrs: &[(&str, &str)]) -> Index {
        let catalog = Catalog {
            dir: "/r/adr".into(),
            entries: adrs
                .iter()
                .map(|(name, text)| Entry {
                    path: format!("/r/adr/{name}").into(),
                    link: (*name).to_owned(),
                    file_number: crate::adr::number_in_file_name(Path::new(name)),
                    adr: Some(Adr::parse(text)),
                })
                .collect(),
            width: 3,
            reserved: Vec::new(),
        };
        Index::from_catalog(Path::new("/r"), &catalog)
    }

    fn adr(status: &str, governs: &str, rules: &str) -> String {
        format!(
            "---\nadr_id: 14\nstatus: {status}\ngoverns: [{governs}]\n---\n# Gateway\n\n## Decision\n\nUse the gateway.\n\n## Enforcement\n\n```yaml\nrules:\n{rules}```\n"
        )
    }

    const NO_HTTP: &str = "  - id: no-direct-http\n    kind: forbid_import\n    why: all HTTP goes through app.gateway\n    modules: [requests]\n    examples: {violates: \"import requests\", passes: \"import json\"}\n";

    fn change(path: &str, before: Option<&str>, after: Option<&str>) -> Change {
        Change {
            path: path.into(),
            before: before.map(Into::into),
            after: after.map(Into::into),
        }
    }

    #[test]
    fn a_binding_rule_blocks_a_governed_file_only() {
        let index = index(&[("014-gw.md", &adr("Accepted", "\"src/**\"", NO_HTTP))]);
        let found = check(
            &index,
            &[
                change("src/api.py", None, Some("import os\nimport requests\n")),
                change("tools/x.py", None, Some("import requests\n")),
            ],
            Moment::Session,
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        let f = &found[0];
        assert_eq!(f.rule, "ADR-014/no-direct-http");
        assert_eq!(f.severity, Severity::Error);
        assert_eq!(f.path.as_deref(), Some("src/api.py"));
        assert_eq!(f.line, Some(2));
        assert!(
            f.message
                .starts_with("imports `requests`: ADR-014 (Gateway) says: all HTTP"),
            "{}",
            f.message
        );
        assert_eq!(adr_of_rule(&f.rule), Some("ADR-014"));
    }

    #[test]
    fn status_decides_the_force_of_the_rules() {
        let text = "import requests\n";
        let proposed = index(&[("014-gw.md", &adr("Proposed", "\"src/**\"", NO_HTTP))]);
        let found = check(
            &proposed,
            &[change("src/a.py", None, Some(text))],
            Moment::Commit,
        );
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[0].message.contains("[proposed"));
        for status in ["Superseded", "Rejected", "Deprecated"] {
            let gone = index(&[("014-gw.md", &adr(status, "\"src/**\"", NO_HTTP))]);
            assert!(
                check(
                    &gone,
                    &[change("src/a.py", None, Some(text))],
                    Moment::Commit
                )
                .is_empty()
            );
        }
    }

    #[test]
    fn co_change_is_advice_in_the_session_and_an_error_at_commit() {
        let rules = "  - id: schema-docs\n    kind: require_co_change\n    why: the schema is documented\n    paths: [\"src/schema/**\"]\n    with: [\"docs/schema.md\"]\n";
        let index = index(&[("014-gw.md", &adr("Accepted", "\"src/**\"", rules))]);
        let alone = [change("src/schema/a.sql", Some("a"), Some("b"))];
        assert_eq!(
            check(&index, &alone, Moment::Session)[0].severity,
            Severity::Warning
        );
        assert_eq!(
            check(&index, &alone, Moment::Commit)[0].severity,
            Severity::Error
        );
        let both = [
            change("src/schema/a.sql", Some("a"), Some("b")),
            change("docs/schema.md", Some("a"), Some("b")),
        ];
        assert!(check(&index, &both, Moment::Commit).is_empty());
    }

    #[test]
    fn the_adrs_themselves_are_not_code() {
        let index = index(&[("014-gw.md", &adr("Accepted", "\"**\"", NO_HTTP))]);
        assert!(
            check(
                &index,
                &[change("adr/014-gw.md", None, Some("import requests\n"))],
                Moment::Commit
            )
            .is_empty()
        );
    }
}
