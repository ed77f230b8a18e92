//! Template placeholders: an ADR written from a template (`helix-gate new`, the HELIX
//! consultant's prompt) is not done while a `<...>` gap of the template is left in it.

use super::Context;
use crate::adr::{Adr, placeholder};
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
}
