//! Base rules from `base_rules`: required sections, their length, acceptance criteria.

use super::Context;
use crate::adr::Adr;
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// Requires every section of `base_rules.required_sections` as a level-2 heading (default:
    /// Kontext, Entscheidung, Implementation, Dokumentation, Akzeptanzkriterien, Konsequenzen;
    /// English aliases such as Context or Acceptance Criteria count). Headings inside code blocks
    /// or HTML comments do not count.
    ///
    /// ## Why
    /// A forgotten section is the most common way an ADR loses information between concept and
    /// implementation.
    ///
    /// ## Fix
    /// Add `## <Name>` with its content.
    pub const SECTION_MISSING {
        id: "section-missing",
        severity: Error,
        category: RequiredSections,
        summary: "a required section (## heading) is missing",
    }

    /// ## What it does
    /// Reports a required section whose heading is followed by nothing before the next section.
    ///
    /// ## Why
    /// An empty heading satisfies a naive check but documents nothing.
    ///
    /// ## Fix
    /// Write the section's content.
    pub const SECTION_EMPTY {
        id: "section-empty",
        severity: Error,
        category: RequiredSections,
        summary: "a required section has a heading but no content",
    }

    /// ## What it does
    /// Warns when a required section has fewer characters of text than
    /// `base_rules.min_section_length` (default 50).
    ///
    /// ## Why
    /// One-line sections are usually placeholders.
    ///
    /// ## Fix
    /// Explain the point in a few sentences.
    pub const SECTION_TOO_SHORT {
        id: "section-too-short",
        severity: Warning,
        category: RequiredSections,
        summary: "a required section is shorter than base_rules.min_section_length characters",
    }

    /// ## What it does
    /// Requires task-list items (`- [ ] ...`, `- [x] ...`, `* [ ] ...`) in the acceptance criteria
    /// section (subsections included).
    ///
    /// ## Why
    /// Criteria must be checkable; prose cannot be ticked off.
    ///
    /// ## Fix
    /// Write each criterion as a task-list item under the acceptance criteria heading.
    ///
    /// ## Example
    /// ```markdown
    /// ## Akzeptanzkriterien
    /// - [ ] helix-gate validate reports a missing Migration section
    /// ```
    pub const CRITERIA_MISSING {
        id: "acceptance-criteria-missing",
        severity: Error,
        category: AcceptanceCriteria,
        summary: "the acceptance criteria section has no checkbox items",
    }

    /// ## What it does
    /// Warns when the acceptance criteria section has fewer checkbox items than
    /// `base_rules.min_acceptance_criteria` (default 3).
    ///
    /// ## Why
    /// One or two criteria rarely cover behaviour, tests and documentation.
    ///
    /// ## Fix
    /// Add concrete, testable criteria.
    pub const CRITERIA_MIN {
        id: "acceptance-criteria-min",
        severity: Warning,
        category: AcceptanceCriteria,
        summary: "fewer acceptance criteria than base_rules.min_acceptance_criteria",
    }
}

/// Characters of text in a section, surrounding whitespace excluded.
pub fn text_length(content: &str) -> usize {
    content.trim().chars().count()
}

pub fn check(adr: &Adr, ctx: &Context<'_>, out: &mut Vec<Finding>) {
    let base = &ctx.rules.base;
    for name in &base.required_sections {
        let Some(section) = adr.section(&ctx.rules.names.keys(name)) else {
            out.push(
                SECTION_MISSING
                    .finding(format!("required section \"{name}\" is missing"))
                    .at(1)
                    .hint(format!("add \"## {name}\" with its content")),
            );
            continue;
        };
        let line = adr.line_of(section.heading_start);
        let length = text_length(adr.content(section));
        if length == 0 {
            out.push(
                SECTION_EMPTY
                    .finding(format!("section \"{}\" is empty", section.title))
                    .at(line)
                    .hint(format!("write the content of \"{name}\"")),
            );
        } else if length < base.min_section_length {
            out.push(
                SECTION_TOO_SHORT
                    .finding(format!(
                        "section \"{}\" has {length} characters, at least {} expected",
                        section.title, base.min_section_length
                    ))
                    .at(line)
                    .hint("explain the point in a few sentences"),
            );
        }
    }
    if base.acceptance_section.is_empty() {
        return; // the format has no acceptance criteria (the madr and nygard presets)
    }
    let Some(section) = adr.section(&ctx.rules.names.keys(&base.acceptance_section)) else {
        return; // reported above when required
    };
    let count = adr.tasks_in(section).count();
    let line = adr.line_of(section.heading_start);
    if count == 0 {
        out.push(
            CRITERIA_MISSING
                .finding(format!(
                    "section \"{}\" has no checkbox items",
                    section.title
                ))
                .at(line)
                .hint("write each criterion as a task item: - [ ] <testable criterion>"),
        );
    } else if count < base.min_acceptance_criteria {
        out.push(
            CRITERIA_MIN
                .finding(format!(
                    "{count} acceptance criteria, at least {} expected",
                    base.min_acceptance_criteria
                ))
                .at(line)
                .hint("add concrete, testable criteria as - [ ] items"),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{GOOD, ids, run};

    #[test]
    fn missing_section_and_fenced_heading_does_not_count() {
        let text = GOOD.replace("## Dokumentation", "```\n## Dokumentation\n```");
        let f = run(&text, "x.md", &["src/lib.rs"]);
        assert_eq!(ids(&f), ["section-missing"]);
        assert!(f[0].message.contains("Dokumentation"));
    }

    #[test]
    fn english_aliases_and_emphasis_count() {
        let text = GOOD
            .replace("## Kontext", "## **Context**")
            .replace("## Akzeptanzkriterien", "## `Acceptance Criteria`");
        assert!(run(&text, "x.md", &["src/lib.rs"]).is_empty());
    }

    #[test]
    fn empty_and_short_sections() {
        let start = GOOD.find("## Entscheidung").unwrap();
        let end = GOOD.find("## Implementation").unwrap();
        let empty = format!("{}## Entscheidung\n\n{}", &GOOD[..start], &GOOD[end..]);
        let f = run(&empty, "x.md", &["src/lib.rs"]);
        assert_eq!(ids(&f), ["section-empty"]);
        assert_eq!(f[0].line, Some(26));
        let short = format!(
            "{}## Entscheidung\nToo short.\n{}",
            &GOOD[..start],
            &GOOD[end..]
        );
        assert_eq!(
            ids(&run(&short, "x.md", &["src/lib.rs"])),
            ["section-too-short"]
        );
    }

    #[test]
    fn criteria_counts_including_subsections() {
        let none = GOOD.replace("- [ ] ", "- ").replace("- [x] ", "- ");
        assert_eq!(
            ids(&run(&none, "x.md", &["src/lib.rs"])),
            ["acceptance-criteria-missing"]
        );
        let two = GOOD.replace("- [x] The benchmark", "- The benchmark");
        let f = run(&two, "x.md", &["src/lib.rs"]);
        assert_eq!(ids(&f), ["acceptance-criteria-min"]);
        assert!(f[0].message.starts_with("2 acceptance criteria"));
        let sub = GOOD.replace("- [x] The benchmark", "### More\n* [ ] The benchmark");
        assert!(run(&sub, "x.md", &["src/lib.rs"]).is_empty());
    }
}
