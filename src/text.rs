//! Cutting text to a length in characters, never inside a UTF-8 character, and
//! making text from a repository safe to show on a terminal.
//!
//! Messages quoted to the model or the user (findings, reviewer errors, hook
//! context) are cut with [`truncate`] or [`truncate_start`]: the limit is a
//! real maximum, the `…` marker included, so a receiver with a hard limit
//! (Claude Code's inline `additionalContext`) never sees more. Cuts with a
//! rule of their own (an index summary cut at a word, a slug cut at a hyphen)
//! stay with their format and use [`prefix`] for the character boundary.

use std::borrow::Cow;
use std::fmt::Write as _;

pub mod find;

/// Marks the place where text was cut.
pub const ELLIPSIS: char = '…';

/// The longest prefix of `text` with at most `max` characters.
pub fn prefix(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((i, _)) => &text[..i],
        None => text,
    }
}

/// The longest suffix of `text` with at most `max` characters.
pub fn suffix(text: &str, max: usize) -> &str {
    let Some(last) = max.checked_sub(1) else {
        return "";
    };
    match text.char_indices().rev().nth(last) {
        Some((i, _)) => &text[i..],
        None => text,
    }
}

/// `text` unchanged when it has at most `max` characters; otherwise its start
/// and [`ELLIPSIS`], `max` characters in all.
pub fn truncate(text: &str, max: usize) -> String {
    let head = prefix(text, max);
    if head.len() == text.len() {
        return text.to_owned();
    }
    let mut out = prefix(head, max.saturating_sub(1)).to_owned();
    out.push(ELLIPSIS);
    out
}

/// `text` unchanged when it has at most `max` characters; otherwise
/// [`ELLIPSIS`] and its end, `max` characters in all (for error output, where
/// the last lines say most).
pub fn truncate_start(text: &str, max: usize) -> String {
    let tail = suffix(text, max);
    if tail.len() == text.len() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(tail.len() + ELLIPSIS.len_utf8());
    out.push(ELLIPSIS);
    out.push_str(suffix(tail, max.saturating_sub(1)));
    out
}

/// `1 error`, `2 errors`: `n` and `word`, with an `s` unless `n` is 1.
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("{n} {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// `text` with every control character shown as an escape, for one line of terminal output.
///
/// Paths, YAML values, rules-file messages and reviewer text come from the repository or a
/// model: an ESC in them could recolour, hide or rewrite what the terminal shows (or, through
/// OSC sequences, set the window title or the clipboard), and a newline could forge a line of
/// helix-gate's own output. Renderers pass every such text through here at the place it is
/// written out, never earlier: findings stay data, and JSON output keeps the exact text
/// (serde escapes control characters itself).
///
/// Escaped: C0 controls except tab (`\n`, `\r`, others as `\x1b`), DEL (`\x7f`) and the C1
/// controls U+0080..U+009F (`\u{9b}`), which some terminals act on like ESC sequences, and
/// the line separators and text-direction characters of [`is_unsafe_char`] (`\u{202e}`).
/// A backslash is left as it is, so escaping twice changes nothing; the price is that a path
/// really containing `\n` looks like one with a newline.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    escape(text, false)
}

/// Like [`escape_controls`], but newlines stay: for text that is several lines on purpose
/// (an error with a list of problems).
pub fn escape_controls_multiline(text: &str) -> Cow<'_, str> {
    escape(text, true)
}

/// `text` with no line that a CI runner reads as a workflow command: a line whose first
/// non-blank characters are `::` gets its first colon escaped (`\x3a:error::…`). For text
/// on stderr that may carry a repository's lines (a GitHub runner scans stderr too).
pub fn defuse_workflow_commands(text: &str) -> Cow<'_, str> {
    let starts_command = |line: &str| line.trim_start().starts_with("::");
    if !text.split('\n').any(starts_command) {
        return Cow::Borrowed(text);
    }
    let lines: Vec<String> = text
        .split('\n')
        .map(|line| {
            if starts_command(line) {
                let blank = line.len() - line.trim_start().len();
                format!("{}\\x3a{}", &line[..blank], &line[blank + 1..])
            } else {
                line.to_owned()
            }
        })
        .collect();
    Cow::Owned(lines.join("\n"))
}

/// Whether `c` can change what a terminal, or a reader of a prompt, sees around
/// it: control characters (line breaks, ESC, DEL, C1 controls), the Unicode line
/// and paragraph separators, and the characters that reorder displayed text.
pub fn is_unsafe_char(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// Whether [`escape_controls`] changes `c`.
fn needs_escape(c: char, keep_newlines: bool) -> bool {
    match c {
        '\t' => false,
        '\n' => !keep_newlines,
        _ => is_unsafe_char(c),
    }
}

fn escape(text: &str, keep_newlines: bool) -> Cow<'_, str> {
    // The common case (no control character) costs one scan and no allocation.
    if !text.chars().any(|c| needs_escape(c, keep_newlines)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !needs_escape(c, keep_newlines) {
            out.push(c);
            continue;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c.is_ascii() => {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            }
            c => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

/// Lower-case hex of `bytes` (digests, MACs, keys of records).
/// The candidate nearest to `word` by edit distance, if it is near enough to be what was
/// meant (at most a third of the word's length, and at least one edit): a "did you mean".
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The Levenshtein distance of `a` and `b` in characters.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

pub fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Bytes from lower- or upper-case hex; `None` for anything else.
pub fn unhex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    text.as_bytes()
        .chunks(2)
        .map(|pair| {
            let digit = |c: u8| char::from(c).to_digit(16);
            u8::try_from(digit(pair[0])? * 16 + digit(pair[1])?).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_direction_characters_are_escaped_like_controls() {
        assert_eq!(escape_controls("a\u{202e}b\x1bc"), "a\\u{202e}b\\x1bc");
        assert_eq!(escape_controls("tab\tstays"), "tab\tstays");
        assert_eq!(
            defuse_workflow_commands("a\n::error::x\n  ::warning::y\nb::c"),
            "a\n\\x3a:error::x\n  \\x3a:warning::y\nb::c"
        );
    }

    #[test]
    fn prefixes_and_suffixes_count_characters() {
        assert_eq!(prefix("äöü", 2), "äö");
        assert_eq!(prefix("äöü", 9), "äöü");
        assert_eq!(prefix("äöü", 0), "");
        assert_eq!(suffix("äöü", 2), "öü");
        assert_eq!(suffix("äöü", 9), "äöü");
        assert_eq!(suffix("äöü", 0), "");
    }

    #[test]
    fn truncation_keeps_the_limit_with_the_marker() {
        assert_eq!(truncate("abcdef", 6), "abcdef");
        assert_eq!(truncate("abcdef", 4), "abc…");
        assert_eq!(truncate("äöü", 2), "ä…");
        assert_eq!(truncate("äöü", 1), "…");
        assert_eq!(truncate("äöü", 0), "…");
        assert_eq!(truncate_start("abcdef", 4), "…def");
        assert_eq!(truncate_start("äöü", 3), "äöü");
        assert_eq!(truncate_start("äöü", 2), "…ü");
    }

    #[test]
    fn control_characters_are_escaped_for_the_terminal() {
        assert!(matches!(
            escape_controls("adr/001-süße Entscheidung.md\tx"),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            escape_controls("adr/001-\x1b[31mred\n.md"),
            "adr/001-\\x1b[31mred\\n.md"
        );
        assert_eq!(escape_controls("a\r\0\x07\x7fb"), "a\\r\\x00\\x07\\x7fb");
        // C1: CSI (U+009B) and NEL (U+0085).
        assert_eq!(escape_controls("x\u{9b}2Jy\u{85}"), "x\\u{9b}2Jy\\u{85}");
        // Escaping twice changes nothing: the backslash is kept.
        let once = escape_controls("a\x1bb\\n").into_owned();
        assert_eq!(escape_controls(&once), once);
        assert_eq!(
            escape_controls_multiline("one\ntwo\x1b]0;title\x07"),
            "one\ntwo\\x1b]0;title\\x07"
        );
    }
}
