//! File-name slugs for finalized ADRs (`038-deterministic-llm-response-enforcement.md`).
//!
//! Titles in HELIX are often German, so umlauts are transliterated instead of
//! dropped; any other non-ASCII letter is dropped, because a file name that only
//! works with one locale's keyboard is worse than a slightly shorter one.

/// Used when a title yields no ASCII letter or digit at all.
pub const FALLBACK: &str = "adr";

/// Longest slug; longer titles are cut at a word boundary.
pub const MAX_LEN: usize = 60;

/// Lower case ASCII letters and digits joined by single hyphens.
pub fn slug(title: &str) -> String {
    let mut out = String::with_capacity(title.len());
    // A separator is written lazily, so leading, trailing and repeated ones vanish.
    let mut pending_hyphen = false;
    for c in title.chars() {
        let piece = match c {
            'a'..='z' | '0'..='9' => c.to_string(),
            'A'..='Z' => c.to_ascii_lowercase().to_string(),
            'ä' | 'Ä' => "ae".to_owned(),
            'ö' | 'Ö' => "oe".to_owned(),
            'ü' | 'Ü' => "ue".to_owned(),
            'ß' | 'ẞ' => "ss".to_owned(),
            c if c.is_ascii() => {
                pending_hyphen = true;
                continue;
            }
            // Other non-ASCII characters are dropped without a separator: "Café" -> "caf".
            _ => continue,
        };
        if pending_hyphen && !out.is_empty() {
            out.push('-');
        }
        pending_hyphen = false;
        out.push_str(&piece);
    }
    let cut = truncate(&out);
    if cut.is_empty() {
        FALLBACK.to_owned()
    } else {
        cut.to_owned()
    }
}

/// `slug` cut to [`MAX_LEN`] at the last hyphen before the limit (the slug is ASCII).
fn truncate(slug: &str) -> &str {
    if slug.len() <= MAX_LEN {
        return slug;
    }
    let head = &slug[..MAX_LEN];
    match head.rfind('-') {
        Some(i) if i > 0 => &head[..i],
        _ => head,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_case_ascii_with_hyphens() {
        assert_eq!(
            slug("Deterministic LLM Response Enforcement"),
            "deterministic-llm-response-enforcement"
        );
        assert_eq!(
            slug("  ADR: Cache -- parsed_rules (v2)! "),
            "adr-cache-parsed-rules-v2"
        );
    }

    #[test]
    fn umlauts_are_transliterated_other_non_ascii_dropped() {
        assert_eq!(
            slug("Größenänderung über Äpfel"),
            "groessenaenderung-ueber-aepfel"
        );
        assert_eq!(slug("Café déjà vu"), "caf-dj-vu");
    }

    #[test]
    fn only_non_ascii_falls_back() {
        assert_eq!(slug("日本語のタイトル"), FALLBACK);
        assert_eq!(slug("—…—"), FALLBACK);
        assert_eq!(slug(""), FALLBACK);
    }

    #[test]
    fn long_titles_are_cut_at_a_word() {
        let s = slug(&"word ".repeat(30));
        assert!(s.len() <= MAX_LEN, "{s}");
        assert!(!s.ends_with('-'));
        assert!(s.ends_with("word"));
        let one = slug(&"x".repeat(100));
        assert_eq!(one.len(), MAX_LEN);
    }
}
