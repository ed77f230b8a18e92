//! Concept diff (HELIX layer 3): every H2 section of the concept document should
//! reappear in the ADR, so a migration plan cannot get lost on the way.
//!
//! The concept is known in four ways, which every entry point that runs the engine
//! honours alike (validate, the hook, pre-commit, approve, gate, finalize): the ADR names
//! it in its front matter (`concept: concept.md`); or, naming none, its references section
//! links it ([`referenced`]: seed 002's `[Konzept: ...](../.../subagent-approval.md)`); or
//! a file in the ADR's own folder matches `concept.discover` (by default `concept.md`,
//! `*-concept.md`, `konzept.md`, `konzept*.md`, `{slug}.md`, case-insensitive: the
//! consultant's `output/concept.md` or `output/x.md` beside its draft `output/ADR-x.md`),
//! all found in one place, `Engine::concept_of`; or a caller passes one (`validate
//! --concept`, `gate adr_complete --concept`).

use crate::adr::{Adr, markdown};
use crate::config::RuleSet;
use crate::config::rules_file::Location;
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// When the ADR has a concept (front-matter `concept:`, else a concept linked from its
    /// `## Referenzen` / `## References`, else a file in the ADR's folder that
    /// `concept.discover` matches such as `concept.md`, `konzept.md` or `<slug>.md`, or
    /// `validate --concept` or the `gate` command's `--concept`), reports each level-2 section of the concept that the ADR lacks and
    /// that the rules do not require (Status, Zusammenfassung, Referenzen, Meta, Fragen and Open
    /// Questions are ignored; aliases count). Sections the rules require are reported as
    /// `concept-required-section-missing` instead.
    ///
    /// ## Why
    /// A section of the concept that is not in the ADR may have been dropped on purpose, or lost.
    ///
    /// ## Fix
    /// Carry the section over into the ADR, or state in the ADR why it was dropped.
    pub const SECTION_MISSING {
        id: "concept-section-missing",
        severity: Warning,
        category: Concept,
        summary: "a section of the ADR's concept is missing from the ADR",
    }

    /// ## What it does
    /// When the ADR has a concept, reports each level-2 section of the concept that the ADR lacks
    /// although the rules file requires such a section: a base required section, any section a
    /// contextual rule requires WHATEVER its `when` says (Migration, even for a minor
    /// `change_scope`), or a section whose title matches a contextual rule's one-match content
    /// pattern searched everywhere (Rollback).
    ///
    /// ## Why
    /// The ADR-014 case: the concept had a 14-day migration plan, the ADR lost it, and no check
    /// noticed because the ADR did not call itself a major change. A section the concept had and
    /// the rules consider essential must not vanish on the way to the ADR.
    ///
    /// ## Example
    /// ```markdown
    /// ---
    /// concept: concept.md   # concept.md has "## Migration", the ADR has none
    /// ---
    /// ```
    ///
    /// ## Fix
    /// Carry the section over into the ADR (aliases count: `## Migration Plan`).
    pub const REQUIRED_SECTION_MISSING {
        id: "concept-required-section-missing",
        severity: Error,
        category: Concept,
        summary: "a section of the concept that the rules require is missing from the ADR",
    }

    /// ## What it does
    /// Reports a concept the ADR names in its front matter (`concept: PATH`) that cannot be used:
    /// not a string, an absolute path, a path that leaves the repository, a file that does not
    /// exist, cannot be read, is larger than `adr.max_file_size` or is not UTF-8 text. The path
    /// is looked up next to the ADR first, then from the repository root. A concept found next
    /// to the ADR by `concept.discover` that cannot be read is reported too.
    ///
    /// ## Why
    /// An ADR that names its concept asks to be compared with it; a comparison that silently does
    /// not happen would let a lost section through.
    ///
    /// ## Fix
    /// Correct the path (relative to the ADR's folder or to the repository root), or remove the
    /// `concept:` field; for a discovered concept, make it readable text, name the right one
    /// with `concept:`, or turn discovery off (`concept.discover: []`).
    pub const UNREADABLE {
        id: "concept-unreadable",
        severity: Error,
        category: Concept,
        summary: "the concept named in the front matter cannot be read",
    }

    /// ## What it does
    /// Reports, as information, the share of the concept's sections found in the ADR.
    ///
    /// ## Why
    /// A single number shows at a glance how much of the concept made it into the ADR.
    ///
    /// ## Fix
    /// Nothing to fix: it is information. Raise the share by carrying the concept's missing
    /// sections into the ADR (`concept-section-missing` names them).
    pub const COVERAGE {
        id: "concept-coverage",
        severity: Info,
        category: Concept,
        summary: "how many of the concept's sections the ADR covers",
    }
}

const IGNORED: [&str; 6] = [
    "status",
    "zusammenfassung",
    "referenzen",
    "meta",
    "fragen",
    "open questions",
];

/// The front-matter field that names the ADR's concept.
pub const FIELD: &str = "concept";

/// What the front matter says about the concept: nothing, a path, or a value
/// that is not a path (a finding).
pub fn named(adr: &Adr) -> Option<Result<String, Finding>> {
    let value = adr.front_matter()?.map.get(FIELD)?;
    let line = adr
        .front_matter()
        .and_then(|fm| fm.key_lines.get(FIELD).copied())
        .unwrap_or(1);
    Some(match value.as_str() {
        Some(path) if !path.trim().is_empty() => Ok(path.trim().to_owned()),
        _ => Err(UNREADABLE
            .finding("front-matter `concept` must be a path (a non-empty string)")
            .at(line)
            .hint(
                "write `concept: concept.md` (relative to the ADR's folder or the repository root)",
            )),
    })
}

/// A finding about a concept found next to the ADR (`concept.discover`) that cannot be read.
pub fn undiscoverable(message: impl Into<String>) -> Finding {
    UNREADABLE.finding(message).at(1).hint(
        "make the concept readable text, name the right one with `concept: PATH`, or set `concept.discover: []` in config/helix-gate.yaml",
    )
}

/// The titles of the section whose links may name the concept.
const REFERENCE_SECTIONS: [&str; 2] = ["referenzen", "references"];

/// The links of the ADR's references section (`## Referenzen` / `## References`) that
/// may name its concept, in order: a relative link to a `.md` file (no scheme, not
/// absolute; a `#fragment` dropped) whose link text or file name says `Konzept` or
/// `Concept`, or whose file name is the ADR's slug (`slug`, see
/// [`crate::config::settings::adr_slug`]). Links to other documents (README, other
/// ADRs) are not concepts, however many the section lists.
pub fn referenced(adr: &Adr, slug: Option<&str>) -> Vec<String> {
    let keys = REFERENCE_SECTIONS.map(str::to_owned);
    let Some(section) = adr.section(&keys) else {
        return Vec::new();
    };
    markdown::links(adr.content(section))
        .into_iter()
        .filter_map(|(label, dest)| {
            let path = dest.split('#').next().unwrap_or_default().trim();
            let relative = !path.is_empty()
                && !path.contains("://")
                && !path.contains(':')
                && !path.starts_with(['/', '\\', '~']);
            if !relative || !path.to_ascii_lowercase().ends_with(".md") {
                return None;
            }
            let name = path
                .rsplit(['/', '\\'])
                .next()
                .unwrap_or(path)
                .to_lowercase();
            let says = |text: &str| {
                let text = text.to_lowercase();
                text.contains("konzept") || text.contains("concept")
            };
            let named_after =
                slug.is_some_and(|slug| name == format!("{}.md", slug.to_lowercase()));
            (says(&label) || says(&name) || named_after).then(|| path.to_owned())
        })
        .collect()
}

/// A finding about the named concept, at the `concept:` line.
pub fn unreadable(adr: &Adr, message: impl Into<String>) -> Finding {
    let line = adr
        .front_matter()
        .and_then(|fm| fm.key_lines.get(FIELD).copied())
        .unwrap_or(1);
    UNREADABLE
        .finding(message)
        .at(line)
        .hint("correct `concept:` (relative to the ADR's folder or the repository root, inside the repository) or remove it")
}

/// Whether the rules require a section titled `title` (normalised key `key`): a base
/// required section, a section any contextual rule requires (whatever its `when`), or a
/// title matched by a contextual rule's one-match content pattern searched everywhere.
fn required(rules: &RuleSet, title: &str, key: &str) -> bool {
    let named = rules
        .base
        .required_sections
        .iter()
        .chain(
            rules
                .contextual
                .iter()
                .flat_map(|r| r.require.sections.iter().map(|s| &s.name)),
        )
        .any(|name| rules.names.keys(name).iter().any(|k| k == key));
    named
        || rules.contextual.iter().any(|rule| {
            rule.require.content_patterns.iter().any(|p| {
                p.location == Location::Any
                    && p.min_matches <= 1
                    && p.pattern.is_match(title).unwrap_or(false)
            })
        })
}

/// Compare the concept's H2 sections with the ADR's. `origin` names the concept in
/// the messages.
pub fn compare(adr: &Adr, concept: &str, origin: &str, rules: &RuleSet) -> Vec<Finding> {
    let concept_adr = Adr::parse(concept);
    let body_start = concept_adr.body_start;
    let structure = markdown::parse(&concept_adr.text[body_start..], body_start);
    let wanted: Vec<_> = structure
        .sections
        .iter()
        .filter(|s| s.level == 2 && !IGNORED.contains(&s.key.as_str()))
        .collect();
    // The ADR's level-2 keys once: a lookup per concept section keeps the
    // comparison linear (a scan of the ADR per section was quadratic: 50,000
    // headings on each side took a minute).
    let present: std::collections::HashSet<&str> = adr
        .sections
        .iter()
        .filter(|s| s.level == 2)
        .map(|s| s.key.as_str())
        .collect();
    let mut findings = Vec::new();
    let mut covered = 0;
    for section in &wanted {
        if rules
            .names
            .keys(&section.title)
            .iter()
            .any(|key| present.contains(key.as_str()))
        {
            covered += 1;
            continue;
        }
        let is_required = required(rules, &section.title, &section.key);
        let rule = if is_required {
            &REQUIRED_SECTION_MISSING
        } else {
            &SECTION_MISSING
        };
        findings.push(
            rule.finding(format!(
                "section \"{}\" of the concept {origin} (line {}) is missing from the ADR{}",
                section.title,
                concept_adr.line_of(section.heading_start),
                if is_required {
                    "; the rules require this section"
                } else {
                    ""
                }
            ))
            .at(1)
            .hint(format!("carry \"## {}\" over into the ADR", section.title)),
        );
    }
    let percent = if wanted.is_empty() {
        100
    } else {
        covered * 100 / wanted.len()
    };
    findings.push(
        COVERAGE
            .finding(format!(
                "concept coverage ({origin}): {covered} of {} sections ({percent}%)",
                wanted.len()
            ))
            .at(1),
    );
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    #[test]
    fn the_references_name_the_concept_by_word_or_slug_only() {
        let adr = Adr::parse(
            "## Kontext\n[Konzept](not-here.md)\n## Referenzen\n\n- [ADR-002](002-other.md)\n- [README](../README.md)\n- [Konzept: A](../sessions/a/output/a.md#Ziel)\n- [x](docs/payment-concept.md)\n- [Design](b.md)\n- [Konzept](https://example.org/c.md)\n- [Konzept](/abs/c.md)\n- [Konzept](c.txt)\n- <https://example.org/concept.md>\n",
        );
        assert_eq!(
            referenced(&adr, Some("b")),
            [
                "../sessions/a/output/a.md",
                "docs/payment-concept.md",
                "b.md"
            ]
        );
        assert_eq!(
            referenced(&adr, None),
            ["../sessions/a/output/a.md", "docs/payment-concept.md"]
        );
        let english = Adr::parse("## References\n- [Concept](c.md)\n");
        assert_eq!(referenced(&english, None), ["c.md"]);
        assert!(referenced(&Adr::parse("## Kontext\n[Konzept](c.md)\n"), None).is_empty());
    }

    #[test]
    fn reports_missing_sections_and_coverage() {
        let rules = RuleSet::builtin().unwrap();
        let adr = Adr::parse("## Kontext\nx\n## Decision\ny\n");
        let concept = "# C\n## Context\n## Entscheidung\n## Risiken\n## Status\n## Open Questions\n```\n## Fenced\n```\n";
        let f = compare(&adr, concept, "c.md", &rules);
        assert_eq!(f.len(), 2);
        assert_eq!(f[0].rule, "concept-section-missing");
        assert_eq!(f[0].severity, Severity::Warning);
        assert!(f[0].message.contains("\"Risiken\""), "{}", f[0].message);
        assert_eq!(
            f[1].message,
            "concept coverage (c.md): 2 of 3 sections (66%)"
        );
    }

    /// Many headings on both sides are compared in near-linear time (the scan of
    /// the ADR per concept section took about 20 s here in a debug build).
    #[test]
    fn many_sections_on_both_sides_are_compared_without_a_quadratic_scan() {
        use std::fmt::Write as _;
        let rules = RuleSet::builtin().unwrap();
        let (mut adr_text, mut concept) = (String::new(), String::new());
        for i in 0..30_000 {
            let _ = writeln!(adr_text, "## a{i}");
            let _ = writeln!(concept, "## c{i}");
        }
        concept.push_str("## a7\n");
        let adr = Adr::parse(&adr_text);
        let started = std::time::Instant::now();
        let f = compare(&adr, &concept, "c.md", &rules);
        let took = started.elapsed();
        assert_eq!(f.len(), 30_001, "30,000 missing and the coverage");
        assert!(f.last().unwrap().message.contains("1 of 30001 sections"));
        assert!(took < std::time::Duration::from_secs(10), "{took:?}");
    }

    #[test]
    fn required_sections_lost_from_the_concept_are_errors_whatever_the_scope() {
        let rules = RuleSet::builtin().unwrap();
        // A minor ADR: major-needs-migration does not apply, yet the concept's migration
        // plan (the ADR-014 case), its rollback plan and a base section must not be lost.
        let adr = Adr::parse("---\nchange_scope: minor\n---\n## Kontext\nx\n");
        let concept = "## Kontext\n## Migration Plan\n## Rollback\n## Konsequenzen\n## Ideen\n";
        let f = compare(&adr, concept, "c.md", &rules);
        let got: Vec<(&str, &str)> = f
            .iter()
            .map(|f| (f.rule.as_str(), f.message.split('"').nth(1).unwrap_or("")))
            .collect();
        assert_eq!(
            got,
            [
                ("concept-required-section-missing", "Migration Plan"),
                ("concept-required-section-missing", "Rollback"),
                ("concept-required-section-missing", "Konsequenzen"),
                ("concept-section-missing", "Ideen"),
                ("concept-coverage", ""),
            ]
        );
    }

    #[test]
    fn the_named_concept_must_be_a_path() {
        let adr = Adr::parse("---\nconcept: [a]\n---\n");
        let finding = named(&adr).unwrap().unwrap_err();
        assert_eq!(finding.rule, "concept-unreadable");
        assert_eq!(finding.line, Some(2));
        let adr = Adr::parse("---\nconcept: ' c.md '\n---\n");
        assert_eq!(named(&adr).unwrap().unwrap(), "c.md");
        assert!(named(&Adr::parse("---\ntitle: x\n---\n")).is_none());
    }
}
