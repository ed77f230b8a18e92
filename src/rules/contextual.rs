//! Contextual rules: the `contextual_rules` of the rules file (`when` / `require`).
//!
//! Each rule's id, severity and message come from the rules file, so these
//! findings carry the rule's own id (e.g. `major-needs-migration`).

use super::Context;
use crate::adr::Adr;
use crate::config::pattern::{Pattern, PatternError};
use crate::config::rules_file::{Condition, ContextualRule, Location};
use crate::diagnostic::Finding;
use crate::yaml::{self, Mapping, Value};

/// Looks a field up in the front matter: `a.b` is nested; `files_create` is tried as
/// a key first, then as `files.create` (the seed's `files_create_not_empty`).
fn resolve<'a>(map: &'a Mapping, field: &str) -> Option<&'a Value> {
    if field.contains('.') {
        let mut parts = field.split('.');
        let mut value = map.get(parts.next()?)?;
        for part in parts {
            value = value.as_mapping()?.get(part)?;
        }
        return Some(value);
    }
    if let Some(value) = map.get(field) {
        return Some(value);
    }
    field.match_indices('_').find_map(|(i, _)| {
        let inner = map.get(&field[..i])?.as_mapping()?;
        resolve(inner, &field[i + 1..])
    })
}

fn is_empty(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.trim().is_empty(),
        Some(Value::Sequence(s)) => s.is_empty(),
        Some(Value::Mapping(m)) => m.is_empty(),
        Some(Value::Bool(b)) => !b,
        Some(_) => false,
    }
}

fn scalar_equals(actual: &Value, expected: &Value) -> bool {
    match (yaml::scalar_text(actual), yaml::scalar_text(expected)) {
        (Some(a), Some(e)) => a.trim().eq_ignore_ascii_case(e.trim()),
        _ => actual == expected,
    }
}

struct Evaluator<'a> {
    adr: &'a Adr,
}

impl Evaluator<'_> {
    fn matches(&self, condition: &Condition) -> bool {
        let map = self.adr.front_matter().map(|fm| &fm.map);
        match condition {
            Condition::All(parts) => parts.iter().all(|c| self.matches(c)),
            Condition::Any(parts) => parts.iter().any(|c| self.matches(c)),
            // A literal pattern never fails to "compile"; treat a failure as no match.
            Condition::ContentContains(needle) => needle
                .count_in(&self.adr.text, self.adr.lowercase(), 1)
                .is_ok_and(|n| n > 0),
            Condition::NotEmpty { field, expected } => {
                let value = map.and_then(|m| resolve(m, field));
                is_empty(value) != *expected
            }
            Condition::Equals { field, expected } => {
                let Some(actual) = map.and_then(|m| resolve(m, field)) else {
                    return false;
                };
                match expected {
                    Value::Sequence(options) => options.iter().any(|o| scalar_equals(actual, o)),
                    _ => scalar_equals(actual, expected),
                }
            }
        }
    }
}

fn finding(rule: &ContextualRule, detail: &str, line: usize, default_hint: String) -> Finding {
    Finding::new(
        rule.id.clone(),
        rule.severity,
        format!("{}: {detail}", rule.message),
    )
    .at(line)
    .hint(rule.hint.clone().unwrap_or(default_hint))
}

/// A pattern that passed the syntax check but could not be compiled (size limit):
/// reported as an error of the rule, never skipped silently.
fn pattern_failure(rule: &ContextualRule, pattern: &Pattern, error: &PatternError) -> Finding {
    Finding::new(
        rule.id.clone(),
        crate::diagnostic::Severity::Error,
        format!(
            "rule pattern `{}` cannot be used: {error}",
            pattern.source()
        ),
    )
    .at(1)
    .hint("simplify the pattern in the rules file")
}

/// The byte range of the document a pattern searches.
fn search_range(
    adr: &Adr,
    ctx: &Context<'_>,
    location: &Location,
) -> Option<std::ops::Range<usize>> {
    match location {
        Location::Any => Some(0..adr.text.len()),
        Location::Header => Some(adr.yaml_range.clone()),
        Location::Content => Some(adr.body_start..adr.text.len()),
        Location::Section(name) => adr
            .section(&ctx.rules.names.keys(name))
            .map(|s| s.content_start..s.end),
    }
}

/// Count `pattern` in a range of the document (literal patterns use the
/// document's lower-cased copy, computed once).
fn count(
    adr: &Adr,
    range: std::ops::Range<usize>,
    pattern: &Pattern,
    limit: usize,
) -> Result<usize, PatternError> {
    pattern.count_in(&adr.text[range.clone()], &adr.lowercase()[range], limit)
}

/// One rule's requirements, each kind in turn: sections, content patterns, acceptance keywords.
fn check_rule(adr: &Adr, ctx: &Context<'_>, rule: &ContextualRule, out: &mut Vec<Finding>) {
    check_sections(adr, ctx, rule, out);
    check_content_patterns(adr, ctx, rule, out);
    check_acceptance_keywords(adr, ctx, rule, out);
    check_dependency_mentions(adr, rule, out);
}

/// `mentions_dependencies`: every ADR of `depends_on` is mentioned in the body
/// as `ADR-NNN` (any zero padding, any case). The ADR's own H1 title
/// (`# ADR-015: ...`) does not count: a pattern like `ADR-\d{3}` matched it, so
/// the rule could never fire on a HELIX ADR.
fn check_dependency_mentions(adr: &Adr, rule: &ContextualRule, out: &mut Vec<Finding>) {
    if !rule.require.mentions_dependencies {
        return;
    }
    let Some(front_matter) = adr.front_matter() else {
        return;
    };
    let own = front_matter
        .adr_id
        .valid()
        .and_then(|id| crate::adr::number_in_id(id));
    // The lower-cased text the content patterns search too (no copy of the body), and
    // memchr's vectorised substring search (`match_indices` ran the two-way searcher
    // byte by byte: 0.18 M instructions on the 51 KB seed ADR, with a `String` per hit).
    let body = &adr.lowercase().as_bytes()[adr.body_start..];
    let mentioned: std::collections::BTreeSet<u32> = crate::text::find::find_iter(body, b"adr-")
        .filter_map(|at| {
            let rest = &body[at + 4..];
            let digits = &rest[..rest
                .iter()
                .position(|b| !b.is_ascii_digit())
                .unwrap_or(rest.len())];
            std::str::from_utf8(digits).ok()?.parse().ok()
        })
        .collect();
    let line = front_matter
        .key_lines
        .get("depends_on")
        .copied()
        .unwrap_or(1);
    for dependency in &front_matter.depends_on {
        let Some(number) = crate::adr::number_in_id(dependency) else {
            continue;
        };
        if Some(number) != own && !mentioned.contains(&number) {
            out.push(finding(
                rule,
                &format!("depends_on names ADR-{number:03}, which the text never mentions"),
                line,
                format!("say in the text how this ADR relates to ADR-{number:03}"),
            ));
        }
    }
}

fn check_sections(adr: &Adr, ctx: &Context<'_>, rule: &ContextualRule, out: &mut Vec<Finding>) {
    for req in &rule.require.sections {
        let Some(section) = adr.section(&ctx.rules.names.keys(&req.name)) else {
            out.push(finding(
                rule,
                &format!("section \"{}\" is missing", req.name),
                1,
                format!("add \"## {}\"", req.name),
            ));
            continue;
        };
        let line = adr.line_of(section.heading_start);
        let content = adr.content(section);
        let length = super::sections::text_length(content);
        if length < req.min_length {
            out.push(finding(
                rule,
                &format!(
                    "section \"{}\" has {length} characters, at least {} expected",
                    section.title, req.min_length
                ),
                line,
                format!("expand \"## {}\"", req.name),
            ));
        }
        let mut missing = Vec::new();
        for element in &req.required_elements {
            match count(adr, section.content_start..section.end, element, 1) {
                Ok(1..) => {}
                Ok(0) => missing.push(element.source()),
                Err(e) => out.push(pattern_failure(rule, element, &e)),
            }
        }
        if !missing.is_empty() {
            out.push(finding(
                rule,
                &format!(
                    "section \"{}\" lacks {}",
                    section.title,
                    missing
                        .iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                line,
                format!("mention {} in \"## {}\"", missing.join(", "), req.name),
            ));
        }
    }
}

fn check_content_patterns(
    adr: &Adr,
    ctx: &Context<'_>,
    rule: &ContextualRule,
    out: &mut Vec<Finding>,
) {
    for pattern in &rule.require.content_patterns {
        let text = search_range(adr, ctx, &pattern.location);
        let count = match text
            .clone()
            .map(|r| count(adr, r, &pattern.pattern, pattern.min_matches))
        {
            None => 0,
            Some(Ok(count)) => count,
            Some(Err(e)) => {
                out.push(pattern_failure(rule, &pattern.pattern, &e));
                continue;
            }
        };
        if count < pattern.min_matches {
            let place = match (&pattern.location, text) {
                (Location::Section(name), None) => format!("section \"{name}\" (missing)"),
                (Location::Section(name), Some(_)) => format!("section \"{name}\""),
                (Location::Header, _) => "the front matter".to_owned(),
                (Location::Content, _) => "the body".to_owned(),
                (Location::Any, _) => "the document".to_owned(),
            };
            out.push(finding(
                rule,
                &format!(
                    "pattern `{}` found {count} time(s) in {place}, at least {} expected",
                    pattern.pattern.source(),
                    pattern.min_matches
                ),
                1,
                format!("add text matching `{}`", pattern.pattern.source()),
            ));
        }
    }
}

fn check_acceptance_keywords(
    adr: &Adr,
    ctx: &Context<'_>,
    rule: &ContextualRule,
    out: &mut Vec<Finding>,
) {
    let keywords = &rule.require.acceptance_criteria_keywords;
    if !keywords.is_empty() {
        let section = adr.section(&ctx.rules.names.keys(&ctx.rules.base.acceptance_section));
        let mentioned = section.is_some_and(|s| {
            adr.tasks_in(s).any(|task| {
                let text = adr.task_text(task).to_lowercase();
                keywords.iter().any(|k| text.contains(&k.to_lowercase()))
            })
        });
        if !mentioned {
            out.push(
                Finding::new(
                    rule.id.clone(),
                    rule.severity,
                    format!(
                        "{}: no acceptance criterion mentions {}",
                        rule.message,
                        keywords.join(" or ")
                    ),
                )
                .at(section.map_or(1, |s| adr.line_of(s.heading_start)))
                .hint(format!(
                    "add a checkbox criterion that mentions {}",
                    keywords.join(" or ")
                )),
            );
        }
    }
}

pub fn check(adr: &Adr, ctx: &Context<'_>, out: &mut Vec<Finding>) {
    let evaluator = Evaluator { adr };
    for rule in &ctx.rules.contextual {
        if evaluator.matches(&rule.when) {
            check_rule(adr, ctx, rule, out);
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{GOOD, ids, run};

    const MIGRATION: &str = "## Migration\n\nPhase 1, Schritt 1: run both validators side by side for a week.\nPhase 2: switch over. Rollback: revert the config change.\n\n";

    fn major(extra: &str) -> String {
        GOOD.replace("change_scope: minor", "change_scope: major")
            .replace("## Konsequenzen", &format!("{extra}## Konsequenzen"))
    }

    #[test]
    fn major_without_migration_is_an_error() {
        let f = run(&major(""), "x.md", &["src/lib.rs"]);
        assert_eq!(
            ids(&f),
            [
                "major-needs-migration",
                "major-needs-migration",
                "major-needs-rollback"
            ]
        );
        assert!(f[0].message.contains("section \"Migration\" is missing"));
        assert_eq!(f[0].severity, crate::diagnostic::Severity::Error);
    }

    #[test]
    fn major_with_migration_and_keyword_criterion_passes() {
        let text = major(MIGRATION).replace(
            "- [x] The benchmark",
            "- [ ] Migration rollback tested\n- [x] The benchmark",
        );
        let f = run(&text, "x.md", &["src/lib.rs"]);
        assert!(f.is_empty(), "{f:#?}");
    }

    #[test]
    fn migration_without_required_elements() {
        let text = major("## Migration (English)\n\nWe move over in two weeks.\n\n").replace(
            "- [x] The benchmark",
            "- [ ] rollback tested\n- [x] The benchmark",
        );
        let f = run(&text, "x.md", &["src/lib.rs"]);
        // the heading "Migration (English)" is not "Migration"
        assert!(f[0].message.contains("is missing"));
        let text = major("## Migration\n\nWe move over in two weeks, everything at once, with a rollback plan kept ready for the whole period of the move.\n\n")
            .replace("- [x] The benchmark", "- [ ] rollback tested\n- [x] The benchmark");
        let f = run(&text, "x.md", &["src/lib.rs"]);
        assert_eq!(ids(&f), ["major-needs-migration"]);
        assert!(f[0].message.contains("`Schritt|Step`"), "{}", f[0].message);
    }

    #[test]
    fn when_any_content_contains_and_not_empty() {
        let breaking = GOOD.replace(
            "noticeable latency",
            "noticeable latency (a Breaking Change)",
        );
        let f = run(&breaking, "x.md", &["src/lib.rs"]);
        assert_eq!(
            ids(&f),
            ["breaking-needs-upgrade", "breaking-needs-upgrade"]
        );
        let deps = GOOD
            .replace("depends_on: []", "depends_on: [\"002\"]")
            .replace("# ADR-001: ", "# ");
        assert_eq!(
            ids(&run(&deps, "x.md", &["src/lib.rs"])),
            ["deps-need-references"]
        );
        let referenced = deps.replace("noticeable latency", "noticeable latency (see ADR-002)");
        assert!(run(&referenced, "x.md", &["src/lib.rs"]).is_empty());
    }

    #[test]
    fn nested_field_via_underscore_and_equality_case() {
        let new = GOOD
            .replace("classification: UPDATE", "classification: new")
            .replace("create: []", "create: [src/cache.rs]");
        assert_eq!(
            ids(&run(&new, "x.md", &["src/lib.rs"])),
            ["new-needs-examples"]
        );
        let empty_create = GOOD.replace("classification: UPDATE", "classification: NEW");
        assert!(run(&empty_create, "x.md", &["src/lib.rs"]).is_empty());
    }

    #[test]
    fn section_location_patterns() {
        let tool = GOOD
            .replace("component_type: PROCESS", "component_type: TOOL")
            .replace("classification: UPDATE", "classification: NEW");
        let f = run(&tool, "x.md", &["src/lib.rs"]);
        assert_eq!(ids(&f), ["tools-need-cli"]);
        assert!(
            f[0].message.contains("section \"implementation\""),
            "{}",
            f[0].message
        );
        let with_cli = tool.replace(
            "callers\nthat never",
            "callers (CLI: `helix-gate --help`)\nthat never",
        );
        assert!(run(&with_cli, "x.md", &["src/lib.rs"]).is_empty());
    }
}
