//! Concept diff (HELIX layer 3): every H2 section of the concept document should
//! reappear in the ADR, so a migration plan cannot get lost on the way.

use crate::adr::{Adr, markdown};
use crate::config::RuleSet;
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// With `helix-gate validate ADR --concept CONCEPT.md`, lists each level-2 section of the
    /// concept that the ADR lacks (Status, Zusammenfassung, Referenzen, Meta, Fragen and Open
    /// Questions are ignored; aliases count).
    ///
    /// ## Why
    /// The ADR-014 case: the concept had a 14-day migration plan, the ADR lost it, and no check
    /// noticed.
    ///
    /// ## Fix
    /// Carry the section over into the ADR, or state in the ADR why it was dropped.
    pub const SECTION_MISSING {
        id: "concept-section-missing",
        severity: Warning,
        category: Concept,
        summary: "a section of the concept (--concept) is missing from the ADR",
    }

    /// ## What it does
    /// Reports, as information, the share of the concept's sections found in the ADR.
    ///
    /// ## Why
    /// A single number shows at a glance how much of the concept made it into the ADR.
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

/// Compare the concept's H2 sections with the ADR's.
pub fn compare(adr: &Adr, concept: &str, rules: &RuleSet) -> Vec<Finding> {
    let concept_adr = Adr::parse(concept);
    let body_start = concept_adr.body_start;
    let structure = markdown::parse(&concept_adr.text[body_start..], body_start);
    let wanted: Vec<_> = structure
        .sections
        .iter()
        .filter(|s| s.level == 2 && !IGNORED.contains(&s.key.as_str()))
        .collect();
    let mut findings = Vec::new();
    let mut covered = 0;
    for section in &wanted {
        if adr.section(&rules.names.keys(&section.title)).is_some() {
            covered += 1;
        } else {
            findings.push(
                SECTION_MISSING
                    .finding(format!(
                        "concept section \"{}\" (concept line {}) is missing from the ADR",
                        section.title,
                        concept_adr.line_of(section.heading_start)
                    ))
                    .at(1)
                    .hint(format!("carry \"## {}\" over into the ADR", section.title)),
            );
        }
    }
    let percent = if wanted.is_empty() {
        100
    } else {
        covered * 100 / wanted.len()
    };
    findings.push(
        COVERAGE
            .finding(format!(
                "concept coverage: {covered} of {} sections ({percent}%)",
                wanted.len()
            ))
            .at(1),
    );
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_missing_sections_and_coverage() {
        let rules = RuleSet::builtin().unwrap();
        let adr = Adr::parse("## Kontext\nx\n## Decision\ny\n");
        let concept = "# C\n## Context\n## Entscheidung\n## Migration\n## Status\n## Open Questions\n```\n## Fenced\n```\n";
        let f = compare(&adr, concept, &rules);
        assert_eq!(f.len(), 2);
        assert!(f[0].message.contains("\"Migration\""));
        assert_eq!(f[1].message, "concept coverage: 2 of 3 sections (66%)");
    }
}
