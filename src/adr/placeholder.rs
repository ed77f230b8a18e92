//! Template placeholders left in an ADR: `<Konkretes, testbares Kriterium 1>`,
//! `<Titel>`, `<src/pfad/zur/datei.py>`. The HELIX template and `helix-gate new`
//! mark every gap with angle brackets; one that survives means the ADR is still a
//! half-filled template, however complete its sections look.
//!
//! Angle brackets have other meanings that must not count, so the Markdown is parsed:
//! code spans and code blocks (`Vec<T>`, `a < b > c`), HTML comments, autolinks
//! (`<https://...>`, `<a@b.org>`) and link destinations are skipped, and of what is
//! left only `<` + a letter ... `>` on one line counts, when it is not an HTML tag
//! (`<br>`, `<details>`, `<a href="...">`, `</div>`) and not a generic glued to a
//! name (`Option<String>`).

use std::ops::Range;

use super::Adr;

/// The longest text between `<` and `>` taken for a placeholder.
const MAX_CHARS: usize = 200;

/// HTML elements that appear in Markdown ADRs; `<name ...>` with one of these is markup.
const HTML_TAGS: &[&str] = &[
    "a",
    "abbr",
    "address",
    "area",
    "article",
    "aside",
    "audio",
    "b",
    "bdi",
    "bdo",
    "blockquote",
    "body",
    "br",
    "button",
    "caption",
    "center",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "embed",
    "fieldset",
    "figcaption",
    "figure",
    "font",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hr",
    "html",
    "i",
    "iframe",
    "img",
    "input",
    "ins",
    "kbd",
    "label",
    "legend",
    "li",
    "link",
    "main",
    "map",
    "mark",
    "meta",
    "nav",
    "noscript",
    "object",
    "ol",
    "optgroup",
    "option",
    "p",
    "param",
    "picture",
    "pre",
    "q",
    "s",
    "samp",
    "script",
    "section",
    "select",
    "small",
    "source",
    "span",
    "strike",
    "strong",
    "style",
    "sub",
    "summary",
    "sup",
    "svg",
    "table",
    "tbody",
    "td",
    "template",
    "textarea",
    "tfoot",
    "th",
    "thead",
    "time",
    "title",
    "tr",
    "track",
    "tt",
    "u",
    "ul",
    "var",
    "video",
    "wbr",
];

/// One placeholder: its byte offset in the document and its text with the brackets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placeholder {
    pub offset: usize,
    pub text: String,
}

/// Every placeholder in the front matter and the body, in document order.
pub fn find(adr: &Adr) -> Vec<Placeholder> {
    if !adr.text.contains('<') {
        return Vec::new();
    }
    let mut found = Vec::new();
    // Front matter: YAML, so only `#` comments are skipped.
    let yaml = adr.yaml_range.clone();
    let mut line_start = yaml.start;
    for line in adr.text[yaml.clone()].split_inclusive('\n') {
        let end = yaml_comment_start(line).unwrap_or(line.len());
        scan(
            &adr.text,
            line_start..line_start + end,
            &[],
            false,
            &mut found,
        );
        line_start += line.len();
    }
    let body = adr.body_start..adr.text.len();
    scan(&adr.text, body, &adr.literals, false, &mut found);
    found
}

/// Every placeholder in a YAML document (a phase plan), outside `#` comments. A
/// gap that is a whole path segment (`output/<erwartete_datei.md>`) counts here:
/// a plan's paths name files, not patterns; one glued into a name
/// (`test_<name>.py`, `<id>/output`) still does not.
pub fn in_yaml(text: &str) -> Vec<Placeholder> {
    let mut found = Vec::new();
    if !text.contains('<') {
        return found;
    }
    let mut line_start = 0;
    for line in text.split_inclusive('\n') {
        let end = yaml_comment_start(line).unwrap_or(line.len());
        scan(text, line_start..line_start + end, &[], true, &mut found);
        line_start += line.len();
    }
    found
}

/// Where a YAML comment starts in `line` (a `#` at the start or after a blank,
/// outside quotes).
fn yaml_comment_start(line: &str) -> Option<usize> {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && previous.is_whitespace() => return Some(i),
            Some(_) | None => {}
        }
        previous = c;
    }
    None
}

/// Whether `at` lies inside one of `skipped` (sorted, disjoint).
fn is_skipped(skipped: &[Range<usize>], at: usize) -> bool {
    let after = skipped.partition_point(|r| r.start <= at);
    after > 0 && skipped[after - 1].contains(&at)
}

/// Find the placeholders of `text[range]` outside `skipped` (sorted, disjoint);
/// with `path_segments`, also a gap right after a `/`.
fn scan(
    text: &str,
    range: Range<usize>,
    skipped: &[Range<usize>],
    path_segments: bool,
    out: &mut Vec<Placeholder>,
) {
    let mut at = range.start;
    while let Some(i) = text[at..range.end].find('<') {
        let start = at + i;
        at = start + 1;
        if is_skipped(skipped, start) {
            continue;
        }
        let before = text[..start].chars().next_back();
        // `Vec<T>`, `\<`, `](<dest>)`, `0-23/<number>`: a generic, an escape, a link
        // destination, a pattern inside a path or an expression.
        if before.is_some_and(|c| {
            (c.is_alphanumeric() || "\\(_</-.=$%{".contains(c)) && !(path_segments && c == '/')
        }) {
            continue;
        }
        let rest = &text[start + 1..range.end];
        let Some(close) = rest.find(['>', '<', '\n']) else {
            continue;
        };
        if !rest[close..].starts_with('>') {
            continue;
        }
        let inner = &rest[..close];
        // `ADR-<slug>.md`, `<id>/output`: a name pattern, glued to what follows.
        let mut after = rest[close + 1..].chars();
        let glued = match after.next() {
            Some(c) if c.is_alphanumeric() || "/_-".contains(c) => true,
            Some('.') => after.next().is_some_and(char::is_alphanumeric),
            _ => false,
        };
        if !glued && is_placeholder(inner) {
            out.push(Placeholder {
                offset: start,
                text: format!("<{inner}>"),
            });
            at = start + 1 + close + 1;
        }
    }
}

/// Whether the text between `<` and `>` is a placeholder rather than markup, an
/// address or an operator.
fn is_placeholder(inner: &str) -> bool {
    let Some(first) = inner.chars().next() else {
        return false;
    };
    // `<-`, `<=`, `< b`, `</div>`, `<!DOCTYPE`, `<?xml`: not a gap to fill.
    if !first.is_alphabetic() || inner.chars().count() > MAX_CHARS {
        return false;
    }
    if inner.ends_with(char::is_whitespace) {
        return false;
    }
    // Addresses: `<https://...>`, `<mailto:x>`, `<x@y.org>` (when not an autolink already).
    if inner.contains("://")
        || inner.starts_with("mailto:")
        || (inner.contains('@') && !inner.contains(' '))
    {
        return false;
    }
    let name: String = inner
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
        .collect();
    let after_name = &inner[name.len()..];
    // An HTML element, or any tag with attributes (`<my-widget id="x">`) or self-closing.
    // A known element name followed by words is a tag only when it is written in lower
    // case and every word is an attribute name (`<details open>`): `<Option 1>`,
    // `<A force ...>` and `<Title of option 1>` are a template's gaps.
    let words_are_attributes = || {
        name.chars().all(|c| !c.is_ascii_uppercase())
            && after_name.split_whitespace().all(|word| {
                let mut chars = word.chars();
                chars.next().is_some_and(|c| c.is_ascii_alphabetic())
                    && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | ':'))
            })
    };
    let is_tag = HTML_TAGS.contains(&name.to_ascii_lowercase().as_str())
        && (after_name.is_empty()
            || after_name.starts_with('/')
            || (after_name.starts_with(char::is_whitespace) && words_are_attributes()));
    let has_attributes = inner.contains("=\"") || inner.contains("='");
    !(is_tag || has_attributes || inner.ends_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(body: &str) -> Vec<String> {
        let doc = format!("---\ntitle: x\n---\n{body}");
        find(&Adr::parse(&doc))
            .into_iter()
            .map(|p| p.text)
            .collect()
    }

    /// Many code spans, each with a `<`: about linear (a check of every span per `<`
    /// took about 9 s here in a debug build; a 5 MB body would have taken hours).
    #[test]
    fn many_code_spans_with_brackets_are_scanned_without_a_quadratic_check() {
        let body = "`<x".repeat(50_000) + "\n\n<Option 1>\n";
        let adr = Adr::parse(&body);
        let started = std::time::Instant::now();
        let found = find(&adr);
        let took = started.elapsed();
        assert_eq!(
            found.iter().map(|p| p.text.as_str()).collect::<Vec<_>>(),
            ["<Option 1>"]
        );
        assert!(took < std::time::Duration::from_secs(3), "{took:?}");
    }

    /// An unclosed comment reported line by line: about linear (each line searched the
    /// rest of the body for `-->`).
    #[test]
    fn an_unclosed_comment_of_many_lines_is_scanned_without_a_quadratic_search() {
        let body = "<!-- x\n".repeat(40_000) + "<Option 1>\n";
        let adr = Adr::parse(&body);
        let started = std::time::Instant::now();
        let found = find(&adr);
        let took = started.elapsed();
        assert!(found.is_empty(), "all inside the comment: {found:?}");
        let closed = "<!-- x\n".repeat(3) + "-->\n\n<Option 1>\n<!-- y -->\n<Option 2>\n";
        let texts: Vec<String> = find(&Adr::parse(&closed))
            .into_iter()
            .map(|p| p.text)
            .collect();
        assert_eq!(texts, ["<Option 1>", "<Option 2>"]);
        assert!(took < std::time::Duration::from_secs(3), "{took:?}");
    }

    #[test]
    fn template_gaps_are_found() {
        let body = "# ADR-XXX: <Titel>\n\n## Kontext\n\n<Warum wird dieses Feature gebraucht? Was ist das Problem?>\n\n- [ ] <Konkretes, testbares Kriterium 1>\n- [ ] <Dokumentation aktualisiert>\n- <Vorteil 1>\n";
        assert_eq!(
            texts(body),
            [
                "<Titel>",
                "<Warum wird dieses Feature gebraucht? Was ist das Problem?>",
                "<Konkretes, testbares Kriterium 1>",
                "<Dokumentation aktualisiert>",
                "<Vorteil 1>"
            ]
        );
    }

    #[test]
    fn front_matter_gaps_are_found_but_not_comments() {
        let doc = "---\nadr_id: \"<naechste freie Nummer>\"\ndomain: x  # <helix|pdm>\nfiles:\n  create:\n    - <src/pfad/datei.py>\n---\n# T\n";
        let found: Vec<String> = find(&Adr::parse(doc)).into_iter().map(|p| p.text).collect();
        assert_eq!(found, ["<naechste freie Nummer>", "<src/pfad/datei.py>"]);
    }

    #[test]
    fn markup_code_addresses_and_generics_are_not_placeholders() {
        let body = "Line one<br>line two <br/> and <BR>.\n\n<!-- <Konkretes Kriterium> stays a comment -->\n\n<!--\n<multi line>\n-->\n\nSee <https://example.org/x> and <mailto:a@b.org> and <a@b.org>.\n\nA `Vec<T>` in code, and Vec<T> or HashMap<K, V> or Option<Box<T>> in prose.\n\n```rust\nlet x: <T as Trait>::Out = y;\n```\n\n    <indented code>\n\n<details>\n<summary>More</summary>\n</details>\n\n<a href=\"x\">link</a>, <img src=\"a.png\" />, a <-> b, x < y > z, 1 <= 2, \\<escaped>.\n\n[doc](<my file.md>) and <custom-element id=\"x\">.\n\nDrafts live in output/ADR-<name>.md, <id>/output and <name>.md; skip \"/<number>\" steps.\n";
        assert_eq!(texts(body), Vec::<String>::new());
    }

    #[test]
    fn gaps_that_start_with_an_element_name_are_still_gaps() {
        let body = "- <Option 1>\n- <A force that drives the decision>\n- <Title of option 1>\n- <Select one ...>\n\n<details open>\n<summary>More</summary>\n</details>\n";
        assert_eq!(
            texts(body),
            [
                "<Option 1>",
                "<A force that drives the decision>",
                "<Title of option 1>",
                "<Select one ...>"
            ]
        );
    }

    #[test]
    fn the_offset_points_at_the_bracket() {
        let doc = "---\ntitle: x\n---\nText <Gap here> end\n";
        let adr = Adr::parse(doc);
        let found = find(&adr);
        assert_eq!(&doc[found[0].offset..found[0].offset + 5], "<Gap ");
        assert_eq!(adr.line_of(found[0].offset), 4);
    }
}
