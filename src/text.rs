//! Cutting text to a length in characters, never inside a UTF-8 character.
//!
//! Messages quoted to the model or the user (findings, reviewer errors, hook
//! context) are cut with [`truncate`] or [`truncate_start`]: the limit is a
//! real maximum, the `…` marker included, so a receiver with a hard limit
//! (Claude Code's inline `additionalContext`) never sees more. Cuts with a
//! rule of their own (an index summary cut at a word, a slug cut at a hyphen)
//! stay with their format and use [`prefix`] for the character boundary.

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

#[cfg(test)]
mod tests {
    use super::*;

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
}
