//! The parts of an ADR outside its sections and front matter that a format
//! prescribes: the title heading and metadata lines (`document:` in the rules file).

use std::fmt::Write as _;

use super::Context;
use crate::adr::Adr;
use crate::config::RuleSet;
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// Requires a level-1 heading (the ADR's title) matching `document.title_pattern` of the
    /// rules file. Off unless the rules file sets it; the nygard preset requires `# N. Title`,
    /// the madr preset any title.
    ///
    /// ## Why
    /// adr-tools and MADR tooling list ADRs by their title heading; Nygard's format numbers it.
    ///
    /// ## Fix
    /// Start the document with a `# ` heading that matches `document.title_pattern`.
    ///
    /// ## Example
    /// ```markdown
    /// # 12. Use PostgreSQL for the audit log
    /// ```
    pub const TITLE_FORMAT {
        id: "title-format",
        severity: Error,
        category: FrontMatter,
        summary: "the # title heading is missing or does not match document.title_pattern",
    }

    /// ## What it does
    /// Requires each line named in `document.metadata_lines` (e.g. `Date: 2024-05-01`) between
    /// the title and the first `##` section. Off unless the rules file names lines; the nygard
    /// preset requires `Date:`.
    ///
    /// ## Why
    /// Formats without front matter keep their metadata in these lines; tools read them there.
    ///
    /// ## Fix
    /// Add `Date: YYYY-MM-DD` under the title.
    pub const METADATA_LINE_MISSING {
        id: "metadata-line-missing",
        severity: Error,
        category: FrontMatter,
        summary: "a metadata line required by document.metadata_lines (e.g. Date:) is missing",
    }
}

/// The lines of the hook's rules summary (`SessionStart`) about everything but the
/// sections: front matter, status, title and metadata lines; each line starts with `- ` and ends with a newline.
pub fn brief(rules: &RuleSet) -> String {
    let document = &rules.document;
    let statuses = document.statuses.join("|");
    let mut text = String::new();
    if document.front_matter_required && document.files_required {
        let _ = writeln!(
            text,
            "- front matter between --- lines with {}, status ({statuses}) and files: {{create, modify, docs}} lists",
            document
                .required_fields
                .iter()
                .filter(|f| f.as_str() != "status")
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(", ")
        );
        text.push_str("- files paths relative to the repository root (no /home/..., ~ or ..); every files.modify path must exist\n");
    } else {
        let _ = writeln!(
            text,
            "- status ({statuses}) in front matter{}",
            if document.status_in_body {
                ", a `Status:` line or a ## Status section"
            } else {
                ""
            }
        );
    }
    if let Some(title) = &document.title {
        let _ = writeln!(text, "- a # title heading matching `{}`", title.source());
    }
    for name in &document.metadata_lines {
        let _ = writeln!(text, "- a `{name}:` line under the title");
    }
    text
}

/// The summary's line about acceptance criteria; empty when the format has none.
pub fn criteria_brief(rules: &RuleSet) -> String {
    if rules.base.acceptance_section.is_empty() {
        return String::new();
    }
    format!(
        "- {}: at least {} checkbox items (- [ ] ...)\n",
        rules.base.acceptance_section, rules.base.min_acceptance_criteria
    )
}

pub fn check(adr: &Adr, ctx: &Context<'_>, out: &mut Vec<Finding>) {
    let document = &ctx.rules.document;
    if let Some(pattern) = &document.title {
        match adr.title_heading() {
            None => out.push(
                TITLE_FORMAT
                    .finding("the ADR has no # title heading")
                    .at(1)
                    .hint("start the body with a level-1 heading: # <title>"),
            ),
            Some(title) if !pattern.is_match(&title.value).unwrap_or(true) => out.push(
                TITLE_FORMAT
                    .finding(format!(
                        "title `{}` does not match `{}`",
                        title.value,
                        pattern.source()
                    ))
                    .at(title.line)
                    .hint("write the title as the format expects, e.g. # 12. Use PostgreSQL"),
            ),
            Some(_) => {}
        }
    }
    for name in &document.metadata_lines {
        if adr
            .metadata_line(name)
            .is_none_or(|found| found.value.is_empty())
        {
            out.push(
                METADATA_LINE_MISSING
                    .finding(format!("no `{name}:` line before the first section"))
                    .at(1)
                    .hint(format!("add `{name}: <value>` under the title")),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::adr::Adr;
    use crate::config::{Preset, RuleSet};
    use crate::rules::testing::{Files, ids};

    fn run(preset: Preset, text: &str) -> Vec<crate::diagnostic::Finding> {
        let rules = RuleSet::parse(preset.rules_text().unwrap(), "t").unwrap();
        let repo = Files(std::collections::BTreeSet::new());
        crate::rules::check(
            &Adr::parse(text),
            &crate::rules::Context {
                path: Path::new("doc/adr/0001-x.md"),
                rules: &rules,
                repo: &repo,
            },
        )
    }

    const NYGARD: &str = "# 1. Record architecture decisions\n\nDate: 2017-06-30\n\n## Status\n\nAccepted\n\n## Context\n\nWe need to record the architectural decisions made on this project.\n\n## Decision\n\nWe will use Architecture Decision Records, as described by Michael Nygard.\n\n## Consequences\n\nSee Michael Nygard's article, linked above.\n";

    #[test]
    fn nygard_passes_and_needs_title_date_sections_status() {
        assert!(run(Preset::Nygard, NYGARD).is_empty());
        let f = run(
            Preset::Nygard,
            &NYGARD
                .replace("# 1. Record", "# Record")
                .replace("Date: 2017-06-30\n", "")
                .replace("Accepted", "Done"),
        );
        assert_eq!(
            ids(&f),
            ["status-invalid", "title-format", "metadata-line-missing"]
        );
        let f = run(
            Preset::Nygard,
            &NYGARD.replace("## Decision\n", "## Proposal\n"),
        );
        assert_eq!(ids(&f), ["section-missing"]);
    }

    #[test]
    fn hook_summary_follows_the_preset() {
        let madr = RuleSet::parse(Preset::Madr.rules_text().unwrap(), "t").unwrap();
        let text = super::brief(&madr) + &super::criteria_brief(&madr);
        assert!(text.contains("status (proposed|"), "{text}");
        assert!(
            !text.contains("files") && !text.contains("checkbox"),
            "{text}"
        );
        let nygard = RuleSet::parse(Preset::Nygard.rules_text().unwrap(), "t").unwrap();
        assert!(super::brief(&nygard).contains("a `Date:` line"));
        let helix = RuleSet::builtin().unwrap();
        assert!(super::brief(&helix).contains("adr_id, title, status (Proposed|"));
        assert!(super::criteria_brief(&helix).starts_with("- Akzeptanzkriterien: at least 3"));
    }

    #[test]
    fn madr_front_matter_is_optional_and_bullets_count() {
        let madr4 = "---\nstatus: accepted\ndate: 2024-01-01\ndecision-makers: [a]\n---\n# Use X\n\n## Context and Problem Statement\n\nWe need a way to do things well.\n\n## Considered Options\n\n* X\n* Y\n\n## Decision Outcome\n\nChosen option: \"X\", because it is best.\n";
        assert!(
            run(Preset::Madr, madr4).is_empty(),
            "{:#?}",
            run(Preset::Madr, madr4)
        );
        let madr2 = madr4
            .replace(
                "---\nstatus: accepted\ndate: 2024-01-01\ndecision-makers: [a]\n---\n",
                "",
            )
            .replace("# Use X\n", "# Use X\n\n* Status: superseded by ADR-0005\n");
        assert!(run(Preset::Madr, &madr2).is_empty());
        let bad = madr2.replace("superseded by", "finished,");
        assert_eq!(ids(&run(Preset::Madr, &bad)), ["status-invalid"]);
        let lacking = madr4.replace("## Considered Options", "## Options");
        assert_eq!(ids(&run(Preset::Madr, &lacking)), ["section-missing"]);
    }
}
