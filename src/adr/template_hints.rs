//! The hints of the shipped templates (`templates/*.md`, embedded) and of seed 004's ADR
//! template (the HELIX consultant's prompt, `tests/fixtures/seeds/004-adr-template.md`):
//! the text of every `<...>` gap, such as `<Warum wird das gebraucht? ...>`. A gap whose brackets were merely removed
//! is still no content: `template-hint-left` reports a section that holds nothing else,
//! and the INDEX summary never takes one.
//!
//! Text is compared normalised: brackets removed, heading and list markers dropped,
//! whitespace collapsed, lower-cased. A line is a hint when it is a whole hint line of a
//! template (or one gap's text), or when each of its sentences is a sentence of a hint
//! (someone kept half of a two-sentence hint).

use super::{Adr, Section};

/// The normalised hint lines of [`TEMPLATES`], sorted: built into the binary
/// (parsing three templates costs a hook call a tenth of its work); a test
/// keeps them equal to what the templates give.
const HINT_LINES: &[&str] = &[
    "adr-xxx: titel",
    "argument a",
    "argument b",
    "argument c",
    "argument d",
    "bad, because argument b",
    "bad, because argument d",
    "bad, because it compromises another",
    "benefit 1",
    "chosen option: \"the chosen option\", because justification: the decision driver it meets best.",
    "concrete, testable criterion 1",
    "concrete, testable criterion 2",
    "decision driver: a force or concern that shapes the decision",
    "describe the context and the problem in two or three sentences, or as a question.",
    "documentation is updated",
    "dokumentation aktualisiert",
    "dokumentation ist aktualisiert",
    "drawback or trade-off 1",
    "first option",
    "first option, in a few words",
    "good, because argument a",
    "good, because argument c",
    "good, because it improves one desired quality",
    "how the implementation of, and compliance with, this decision will be confirmed.",
    "it compromises another",
    "it improves one desired quality",
    "justification: the decision driver it meets best",
    "konkretes, testbares kriterium 1",
    "konkretes, testbares kriterium 2",
    "links, evidence, and when this decision should be revisited.",
    "migration and rollback are tested, or another testable criterion",
    "migration und rollback sind getestet, oder ein weiteres testbares kriterium",
    "nachteil oder trade-off 1",
    "nachteil/trade-off 1",
    "phase 1, schritt 1: was zuerst umgestellt wird; phase 2, schritt 2: was danach folgt; rollback: wie die änderung zurückgenommen wird. bei minor, config oder docs: warum keine migration nötig ist.",
    "phase 1, step 1: what changes first; phase 2, step 2: what follows; rollback: how the change is undone. for minor, config or docs: why no migration is needed.",
    "second option",
    "second option, in a few words",
    "technical details: structure, interfaces, data flow, files affected. for a new feature, an example as a code block with the call and its result.",
    "technische details, api-design, code-beispiele",
    "technische details: aufbau, schnittstellen, datenfluss, betroffene dateien. bei neuen features ein beispiel als codeblock mit aufruf und ergebnis.",
    "tests geschrieben",
    "the chosen option",
    "the forces at play: technical, political, social and project-local. value-neutral facts.",
    "titel",
    "vorteil 1",
    "warum wird das gebraucht? welches problem gibt es heute, wen betrifft es, was kostet es?",
    "warum wird dieses feature gebraucht? was ist das problem?",
    "was wird gebaut oder geändert, und wie löst das das problem? welche alternativen wurden verworfen und warum?",
    "was wird gebaut? wie loest es das problem?",
    "we will ... (the response to these forces, in full sentences, active voice).",
    "welche dokumentation wird angelegt oder geändert (readme, docs/...), und was steht dort danach?",
    "what becomes easier or more difficult because of this change, good and bad.",
    "what is built or changed, and how does it solve the problem? which alternatives were rejected, and why?",
    "which documentation is created or changed (readme, docs/...), and what does it say afterwards?",
    "why is this needed? what is the problem today, whom does it affect, what does it cost?",
];

/// The normalised sentences of those hints (at least 12
/// characters: shorter ones are not matched on their own),
/// sorted, kept equal the same way.
const HINT_SENTENCES: &[&str] = &[
    "(the response to these forces, in full sentences, active voice).",
    "adr-xxx: titel",
    "bad, because argument b",
    "bad, because argument d",
    "bad, because it compromises another",
    "bei minor, config oder docs: warum keine migration nötig ist.",
    "bei neuen features ein beispiel als codeblock mit aufruf und ergebnis.",
    "chosen option: \"the chosen option\", because justification: the decision driver it meets best.",
    "concrete, testable criterion 1",
    "concrete, testable criterion 2",
    "decision driver: a force or concern that shapes the decision",
    "describe the context and the problem in two or three sentences, or as a question.",
    "documentation is updated",
    "dokumentation aktualisiert",
    "dokumentation ist aktualisiert",
    "drawback or trade-off 1",
    "first option",
    "first option, in a few words",
    "for a new feature, an example as a code block with the call and its result.",
    "for minor, config or docs: why no migration is needed.",
    "good, because argument a",
    "good, because argument c",
    "good, because it improves one desired quality",
    "how the implementation of, and compliance with, this decision will be confirmed.",
    "it compromises another",
    "it improves one desired quality",
    "justification: the decision driver it meets best",
    "konkretes, testbares kriterium 1",
    "konkretes, testbares kriterium 2",
    "links, evidence, and when this decision should be revisited.",
    "migration and rollback are tested, or another testable criterion",
    "migration und rollback sind getestet, oder ein weiteres testbares kriterium",
    "nachteil oder trade-off 1",
    "nachteil/trade-off 1",
    "phase 1, schritt 1: was zuerst umgestellt wird;",
    "phase 1, step 1: what changes first;",
    "phase 2, schritt 2: was danach folgt;",
    "phase 2, step 2: what follows;",
    "rollback: how the change is undone.",
    "rollback: wie die änderung zurückgenommen wird.",
    "second option",
    "second option, in a few words",
    "technical details: structure, interfaces, data flow, files affected.",
    "technische details, api-design, code-beispiele",
    "technische details: aufbau, schnittstellen, datenfluss, betroffene dateien.",
    "tests geschrieben",
    "the chosen option",
    "the forces at play: technical, political, social and project-local.",
    "value-neutral facts.",
    "warum wird das gebraucht?",
    "warum wird dieses feature gebraucht?",
    "was ist das problem?",
    "was wird gebaut oder geändert, und wie löst das das problem?",
    "was wird gebaut?",
    "welche alternativen wurden verworfen und warum?",
    "welche dokumentation wird angelegt oder geändert (readme, docs/...), und was steht dort danach?",
    "welches problem gibt es heute, wen betrifft es, was kostet es?",
    "what becomes easier or more difficult because of this change, good and bad.",
    "what is built or changed, and how does it solve the problem?",
    "what is the problem today, whom does it affect, what does it cost?",
    "which alternatives were rejected, and why?",
    "which documentation is created or changed (readme, docs/...), and what does it say afterwards?",
    "why is this needed?",
    "wie loest es das problem?",
];

/// Whether the normalised `line` is a whole hint line.
fn is_hint_line(line: &str) -> bool {
    HINT_LINES.binary_search(&line).is_ok()
}

/// Whether the normalised `sentence` is a hint's sentence.
fn is_hint_sentence(sentence: &str) -> bool {
    HINT_SENTENCES.binary_search(&sentence).is_ok()
}

/// `line` as hints are compared: brackets removed, a heading marker, list marker or
/// checkbox dropped, whitespace collapsed, lower-cased.
pub fn normalize(line: &str) -> String {
    let rest = without_markers(line);
    if rest.is_ascii() {
        // One pass and one copy (the general way below makes four).
        return normalize_ascii(rest, usize::MAX);
    }
    normalize_any(rest)
}

/// [`normalize`] of any text `rest` (markers already dropped).
fn normalize_any(rest: &str) -> String {
    rest.replace(['<', '>'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// `line` trimmed, without its heading marker, list marker or checkbox and a
/// number's `1. `: what [`normalize`] goes on to clean up.
fn without_markers(line: &str) -> &str {
    let mut rest = line.trim().trim_start_matches('#').trim_start();
    for marker in ["- [ ]", "- [x]", "- [X]", "* [ ]", "* [x]", "-", "*", "+"] {
        if let Some(after) = rest.strip_prefix(marker)
            && (after.is_empty() || after.starts_with([' ', '\t']))
        {
            rest = after.trim_start();
            break;
        }
    }
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && rest[digits..].starts_with(". ") {
        rest = rest[digits + 2..].trim_start();
    }
    rest
}

/// The first words of the hint lines and sentences, sorted.
fn first_words() -> &'static [&'static str] {
    static WORDS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    WORDS.get_or_init(|| {
        let mut words: Vec<&str> = HINT_LINES
            .iter()
            .chain(HINT_SENTENCES)
            .filter_map(|hint| hint.split(' ').next())
            .collect();
        words.sort_unstable();
        words.dedup();
        words
    })
}

/// Whether `line` may be a hint, by its first word alone: the first word of
/// [`normalize`]`(line)`, which is the first word of its first sentence, must begin
/// a hint line or sentence. A word that begins with a sentence's end leaves an empty
/// sentence first, so it says nothing. Most lines are prose: normalising each of
/// them in full (three copies) was a tenth of `validate`'s work on 1,000 MADR ADRs.
fn may_be_hint(line: &str) -> bool {
    let Some(first) = without_markers(line)
        .split_whitespace()
        .map(|word| word.replace(['<', '>'], ""))
        .find(|word| !word.is_empty())
    else {
        return false;
    };
    if first.starts_with(['.', '?', '!', ';']) {
        return true;
    }
    if first_words()
        .binary_search(&first.to_lowercase().as_str())
        .is_err()
    {
        return false;
    }
    // Then by its beginning: a hint line, or a hint sentence ended by a space or the
    // line's end, must begin the normalised line. A prose line that begins with
    // "The" or "Good," is turned away after the longest hint's length, not
    // normalised to its end (a line of MADR is often a whole paragraph).
    let rest = without_markers(line);
    if !rest.is_ascii() {
        return true;
    }
    let head = normalize_ascii(rest, longest_hint() + 1);
    HINT_LINES.iter().chain(HINT_SENTENCES).any(|hint| {
        head.strip_prefix(hint)
            .is_some_and(|after| after.is_empty() || after.starts_with(' '))
    })
}

/// The length of the longest hint line or sentence, in bytes.
fn longest_hint() -> usize {
    static LONGEST: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *LONGEST.get_or_init(|| {
        HINT_LINES
            .iter()
            .chain(HINT_SENTENCES)
            .map(|hint| hint.len())
            .max()
            .unwrap_or(0)
    })
}

/// [`normalize`] of the ASCII text `rest` (markers already dropped), stopped once
/// `limit` bytes are out: the beginning of the whole normalised text.
fn normalize_ascii(rest: &str, limit: usize) -> String {
    let mut out = String::with_capacity(rest.len().min(limit.saturating_add(64)));
    for word in rest.split_whitespace() {
        if out.len() >= limit {
            break;
        }
        let before = out.len();
        if before > 0 {
            out.push(' ');
        }
        let start = out.len();
        out.extend(
            word.bytes()
                .filter(|b| !matches!(b, b'<' | b'>'))
                .map(|b| char::from(b.to_ascii_lowercase())),
        );
        if out.len() == start {
            out.truncate(before);
        }
    }
    out
}

/// The sentences of normalised text: split after `.`, `?`, `!` or `;` that ends the text
/// or is followed by a space.
fn sentences(text: &str) -> impl Iterator<Item = &str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '?' | '!' | ';') && chars.peek().is_none_or(|&(_, n)| n == ' ') {
            out.push(text[start..i + c.len_utf8()].trim());
            start = i + c.len_utf8();
        }
    }
    out.push(text[start..].trim());
    out.into_iter().filter(|s| !s.is_empty())
}

/// Whether `line` is (still) a hint of a shipped template or seed 004's, brackets or not.
pub fn is_hint(line: &str) -> bool {
    may_be_hint(line) && is_normalized_hint(&normalize(line))
}

/// Whether the normalised `line` is a hint line, or all its sentences are hints'.
fn is_normalized_hint(line: &str) -> bool {
    !line.is_empty()
        && (is_hint_line(line) || {
            let mut parts = sentences(line).peekable();
            parts.peek().is_some() && parts.all(is_hint_sentence)
        })
}

/// Whether the content of `section` is nothing but template hints: every line a hint
/// (headings, blank lines and HTML comments aside), and at least one without its brackets
/// (a gap left bracketed is `template-placeholder`'s). A code block is content.
pub fn only_hints(adr: &Adr, section: &Section) -> bool {
    let content = strip_comments(&adr.text[section.content_start..section.end]);
    let mut unbracketed = false;
    for line in content.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with("```") || line.starts_with("~~~") || !is_hint(line) {
            return false;
        }
        unbracketed |= !line.contains('<');
    }
    unbracketed
}

/// `text` without its HTML comments (an unclosed one runs to the end). Borrowed when
/// there is none: most sections have none, and a section whose first line is content
/// is answered from that line, so copying all of it (and searching it with the
/// two-way searcher) was most of this check (0.29 M instructions on the 51 KB seed ADR).
fn strip_comments(text: &str) -> std::borrow::Cow<'_, str> {
    let find = |haystack: &str, needle: &str| {
        crate::text::find::find(haystack.as_bytes(), needle.as_bytes())
    };
    let Some(first) = find(text, "<!--") else {
        return std::borrow::Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut next = Some(first);
    while let Some(open) = next {
        out.push_str(&rest[..open]);
        match find(&rest[open + 4..], "-->") {
            Some(close) => rest = &rest[open + 4 + close + 3..],
            None => return std::borrow::Cow::Owned(out),
        }
        next = find(rest, "<!--");
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::super::placeholder;
    use super::*;

    /// The shipped templates of every preset and language, and seed 004's ADR
    /// template (the HELIX consultant's prompt), which agents copy from.
    const TEMPLATES: [&str; 5] = [
        include_str!("../../templates/helix.md"),
        include_str!("../../templates/helix-de.md"),
        include_str!("../../templates/madr.md"),
        include_str!("../../templates/nygard.md"),
        include_str!("../../tests/fixtures/seeds/004-adr-template.md"),
    ];

    /// Hint sentences shorter than this (in characters) are not matched on their own.
    const MIN_SENTENCE: usize = 12;

    /// The hints as the templates give them: every `<...>` gap of the body, as its
    /// whole line and as the gap alone, and their sentences.
    fn from_templates() -> (BTreeSet<String>, BTreeSet<String>) {
        let (mut lines, mut sentences_of) = (BTreeSet::new(), BTreeSet::new());
        for template in TEMPLATES {
            let adr = Adr::parse(template);
            for gap in placeholder::find(&adr) {
                if gap.offset < adr.body_start {
                    continue;
                }
                let text = &adr.text;
                let start = text[..gap.offset].rfind('\n').map_or(0, |i| i + 1);
                let end = text[gap.offset..]
                    .find('\n')
                    .map_or(text.len(), |i| gap.offset + i);
                for hint in [normalize(&text[start..end]), normalize(&gap.text)] {
                    sentences_of.extend(
                        sentences(&hint)
                            .filter(|s| s.chars().count() >= MIN_SENTENCE)
                            .map(str::to_owned),
                    );
                    lines.insert(hint);
                }
            }
        }
        lines.remove("");
        (lines, sentences_of)
    }

    #[test]
    fn the_built_in_hints_are_the_templates_hints_sorted() {
        let (lines, sentences_of) = from_templates();
        assert_eq!(
            HINT_LINES
                .iter()
                .map(|s| (*s).to_owned())
                .collect::<Vec<_>>(),
            lines.into_iter().collect::<Vec<_>>(),
            "templates/*.md changed: update HINT_LINES"
        );
        assert_eq!(
            HINT_SENTENCES
                .iter()
                .map(|s| (*s).to_owned())
                .collect::<Vec<_>>(),
            sentences_of.into_iter().collect::<Vec<_>>(),
            "templates/*.md changed: update HINT_SENTENCES"
        );
    }

    #[test]
    fn hints_of_every_template_are_known_with_or_without_brackets() {
        assert!(is_hint(
            "<Warum wird das gebraucht? Welches Problem gibt es heute, wen betrifft es, was kostet es?>"
        ));
        assert!(is_hint(
            "Warum wird das gebraucht?  Welches Problem gibt es heute, wen betrifft es, was kostet es?"
        ));
        assert!(is_hint("Warum wird das gebraucht?"));
        assert!(is_hint("Why is this needed?"));
        assert!(is_hint("- [ ] <Concrete, testable criterion 2>"));
        assert!(is_hint("- [ ] Konkretes, testbares Kriterium 1"));
        assert!(is_hint("* Good, because it improves one desired quality"));
        assert!(is_hint(
            "We will ... (the response to these forces, in full sentences, active voice)."
        ));
        assert!(!is_hint(
            "Warum wird das gebraucht? Weil der Hook die Regeln bei jedem Aufruf neu liest."
        ));
        assert!(!is_hint("Proposed"));
        assert!(!is_hint(""));
        assert!(!is_hint(
            "- [ ] Ein Hook-Aufruf parst die Regeldatei genau einmal"
        ));
    }

    /// `is_hint` without the first-word shortcut.
    fn is_hint_in_full(line: &str) -> bool {
        is_normalized_hint(&normalize(line))
    }

    #[test]
    fn ascii_lines_are_normalised_as_any_other() {
        let general = |line: &str| normalize_any(without_markers(line));
        for line in [
            "",
            "  - [ ] <Concrete,  testable\tCriterion 2> ",
            "<> <",
            "## <>  Why <is> this\x0bneeded?",
            "1. <Phase 1>",
            "a<b c>d",
            "<< >> x",
        ] {
            assert_eq!(normalize(line), general(line), "{line:?}");
        }
    }

    #[test]
    fn the_first_word_shortcut_never_turns_a_hint_away() {
        let mut lines: Vec<String> = Vec::new();
        for template in TEMPLATES {
            lines.extend(template.lines().map(str::to_owned));
        }
        for hint in HINT_LINES.iter().chain(HINT_SENTENCES) {
            lines.push((*hint).to_owned());
            lines.push(format!("- [ ] <{}>", hint.to_uppercase()));
            lines.push(format!("1. < {hint} >"));
            lines.push(format!("## <>  {hint}"));
        }
        lines.extend(
            [
                ". Why is this needed?",
                "; why is this needed?",
                "<> <",
                "- ",
                "Why is this needed? We know.",
                "ÄÖÜ why",
                "The chosen option is the second one, because it keeps the hook fast.",
                "Good, because argument a. Good, because argument c.",
            ]
            .map(str::to_owned),
        );
        // Longer than any hint: judged by more than its beginning.
        lines.push(HINT_SENTENCES[5..9].join(" "));
        lines.push(format!("{} {}", HINT_LINES[35], HINT_SENTENCES[20]));
        lines.push(format!("{} and so on", HINT_LINES[35]));
        for line in &lines {
            assert_eq!(is_hint(line), is_hint_in_full(line), "{line:?}");
        }
        assert!(lines.iter().filter(|l| is_hint(l)).count() > 4 * HINT_SENTENCES.len());
    }

    #[test]
    fn a_section_of_hints_only_is_told_from_one_with_content() {
        let adr = Adr::parse(
            "## Kontext\n\nWarum wird das gebraucht?\n<!-- c -->\n\n## Konsequenzen\n\n### Positiv\n- Vorteil 1\n\n### Negativ\n- Der Hook wird langsamer, um 2 ms.\n\n## Migration\n\n<Phase 1>\n\n## Code\n\n```\nVorteil 1\n```\n",
        );
        let only: Vec<bool> = adr.sections.iter().map(|s| only_hints(&adr, s)).collect();
        assert_eq!(only, [true, false, false, false]);
    }
}
