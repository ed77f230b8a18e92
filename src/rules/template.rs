//! Template placeholders: an ADR written from a template (`helix-gate new`, the HELIX
//! consultant's prompt) is not done while a `<...>` gap of the template is left in it,
//! nor while a section still holds only the template's hint, its brackets removed.

use super::Context;
use crate::adr::{Adr, placeholder, template_hints};
use crate::diagnostic::Finding;
use crate::text::truncate;

/// The longest placeholder quoted in a message.
const MAX_QUOTED: usize = 80;

declare_rules! {
    /// ## What it does
    /// Reports every template placeholder left in the ADR: text in angle brackets that
    /// starts with a letter, such as `<Konkretes, testbares Kriterium 1>`, `<Titel>` or
    /// `<src/pfad/zur/datei.py>`, in the front matter or the body. One finding per
    /// placeholder, with its line. HTML tags (`<br>`, `<details>`, `<a href="...">`),
    /// autolinks (`<https://...>`, `<a@b.org>`), HTML comments, code spans and code blocks,
    /// generics glued to a name (`Vec<T>`) and name patterns inside a path
    /// (`output/ADR-<slug>.md`) do not count. A placeholder path in `files` is reported
    /// here only, not also as a missing file.
    ///
    /// ## Why
    /// A half-filled template has every required section and enough characters, so the other
    /// checks pass; only the placeholders show that the decision was never written down.
    ///
    /// ## Example
    /// ```markdown
    /// ## Akzeptanzkriterien
    /// - [ ] <Konkretes, testbares Kriterium 1>
    /// ```
    ///
    /// ## Fix
    /// Replace the placeholder, brackets included, with the real content, or delete the line.
    /// Write a literal `<word>` in a code span (`` `<word>` ``) or escape it (`\<word>`).
    pub const TEMPLATE_PLACEHOLDER {
        id: "template-placeholder",
        severity: Error,
        category: FileContent,
        summary: "a template placeholder <...> is still in the ADR",
    }

    /// ## What it does
    /// Reports a level-2 section whose content is still only the hint of a shipped template
    /// (`templates/helix.md`, `madr.md`, `nygard.md`, embedded) or of seed 004's ADR template
    /// (the HELIX consultant's prompt: `Warum wird dieses Feature gebraucht? Was ist das
    /// Problem?`, `Vorteil 1`, `Nachteil/Trade-off 1`): every line of it, with its
    /// brackets removed (whitespace and case aside), is a `<...>` gap of a template, a whole
    /// hint line or the hint's sentences. Headings, blank lines and HTML comments do not
    /// count; a section with one line of real content, or a code block, is not reported.
    ///
    /// ## Why
    /// Removing the brackets of every gap (`Warum wird das gebraucht?`, `Phase 1, Schritt 1
    /// ... Rollback`) satisfies `template-placeholder`, the required sections and their
    /// length, yet nothing was decided; the INDEX summary would show the hint.
    ///
    /// ## Example
    /// ```markdown
    /// ## Kontext
    /// Warum wird das gebraucht? Welches Problem gibt es heute, wen betrifft es, was kostet es?
    /// ```
    ///
    /// ## Fix
    /// Write the section's real content in place of the hint: the hint only says what
    /// belongs there.
    pub const TEMPLATE_HINT_LEFT {
        id: "template-hint-left",
        severity: Error,
        category: FileContent,
        summary: "a section still holds only the template's hint, its brackets removed",
    }
}

pub fn check(adr: &Adr, _ctx: &Context<'_>, out: &mut Vec<Finding>) {
    for gap in placeholder::find(adr) {
        out.push(
            TEMPLATE_PLACEHOLDER
                .finding(format!(
                    "template placeholder {} is still in the ADR",
                    truncate(&gap.text, MAX_QUOTED)
                ))
                .at(adr.line_of(gap.offset))
                .hint("replace it, brackets included, with the real content (or delete the line)"),
        );
    }
    for section in adr.sections.iter().filter(|s| s.level == 2) {
        if template_hints::only_hints(adr, section) {
            out.push(
                TEMPLATE_HINT_LEFT
                    .finding(format!(
                        "section \"{}\" holds only the template's hint, not content",
                        truncate(&section.title, MAX_QUOTED)
                    ))
                    .at(adr.line_of(section.heading_start))
                    .hint("write the section's real content in place of the hint (it only says what belongs there)"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{GOOD, ids, run};

    #[test]
    fn each_placeholder_is_one_error_with_its_line() {
        let text = GOOD.replace(
            "- [ ] A hook call for an ADR parses the rules file exactly once",
            "- [ ] <Konkretes, testbares Kriterium 1>\n- [ ] <Tests geschrieben>",
        );
        let f = run(&text, "adr/001-minimal-valid.md", &["src/lib.rs"]);
        assert_eq!(ids(&f), ["template-placeholder", "template-placeholder"]);
        assert_eq!(f[0].line, Some(44));
        assert!(f[0].message.contains("<Konkretes, testbares Kriterium 1>"));
        assert_eq!(f[0].severity, crate::diagnostic::Severity::Error);
    }

    #[test]
    fn a_section_left_as_the_unbracketed_hint_is_an_error_and_real_content_is_not() {
        let text = GOOD.replacen(
            "## Konsequenzen\n",
            "## Migration\n\nPhase 1, Schritt 1: was zuerst umgestellt wird; Phase 2, Schritt 2: was danach folgt; Rollback: wie die Änderung zurückgenommen wird. Bei minor, config oder docs: warum keine Migration nötig ist.\n\n## Konsequenzen\n",
            1,
        );
        let f = run(&text, "adr/001-minimal-valid.md", &["src/lib.rs"]);
        assert_eq!(ids(&f), ["template-hint-left"], "{f:#?}");
        assert!(f[0].message.contains("\"Migration\""), "{}", f[0].message);
        assert!(run(GOOD, "adr/001-minimal-valid.md", &["src/lib.rs"]).is_empty());
    }
}
