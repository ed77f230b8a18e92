//! Concept diff (HELIX layer 3): every H2 section of the concept document should
//! reappear in the ADR, so a migration plan cannot get lost on the way.

use super::RuleMeta;
use crate::adr::{Adr, markdown};
use crate::config::RuleSet;
use crate::diagnostic::{Finding, Severity};

pub const SECTION_MISSING: RuleMeta = RuleMeta {
    id: "concept-section-missing",
    severity: Severity::Warning,
    summary: "a section of the concept (--concept) is missing from the ADR",
    doc: "## What it does\nWith `helix-gate validate ADR --concept CONCEPT.md`, lists each level-2 section of the concept that the ADR lacks \
(Status, Zusammenfassung, Referenzen, Meta, Fragen and Open Questions are ignored; aliases count).\n\n\
## Why\nThe ADR-014 case: the concept had a 14-day migration plan, the ADR lost it, and no check noticed.\n\n\
## Fix\nCarry the section over into the ADR, or state in the ADR why it was dropped.",
};

pub const COVERAGE: RuleMeta = RuleMeta {
    id: "concept-coverage",
    severity: Severity::Info,
    summary: "how many of the concept's sections the ADR covers",
    doc: "## What it does\nReports, as information, the share of the concept's sections found in the ADR.\n\n\
## Why\nA single number shows at a glance how much of the concept made it into the ADR.",
};

pub const RULES: &[&RuleMeta] = &[&SECTION_MISSING, &COVERAGE];

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
