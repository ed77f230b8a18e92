//! Case-insensitive text patterns of the rules file.
//!
//! Compiling a case-insensitive regex costs about 100-200 µs, which would be most
//! of a hook call. Most rule patterns are literals or alternations of literals
//! (`Phase`, `(rollback|zurückrollen|revert)`), so those are matched with a plain
//! ASCII-case-insensitive scan; only real regexes (`ADR-\d{3}`) are compiled, and
//! only the first time a rule needs them. Syntax is always checked up front, so a
//! bad pattern is still a rules-file error, never a silently ignored rule.
//!
//! Case-insensitivity is ASCII-only (the regex crate's `unicode(false)` mode),
//! for literals and regexes alike.

use std::sync::OnceLock;

use aho_corasick::{AhoCorasick, MatchKind};
use regex::{Regex, RegexBuilder};
use regex_syntax::hir::{Hir, HirKind};

/// Compiled size limit per regex: keeps a hostile rules file from eating memory.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

#[derive(Debug)]
enum Matcher {
    /// ASCII-lower-cased alternatives tried in order at each position (leftmost-first,
    /// like a regex), searched case-sensitively in ASCII-lower-cased text with
    /// Aho-Corasick (SIMD prefilters), built on first use.
    Literals(Vec<Vec<u8>>, OnceLock<Option<AhoCorasick>>),
    Regex(OnceLock<Result<Regex, String>>),
}

/// A validated pattern.
#[derive(Debug)]
pub struct Pattern {
    source: String,
    matcher: Matcher,
}

impl Clone for Pattern {
    fn clone(&self) -> Self {
        // Re-validating a pattern that already validated cannot fail.
        Pattern::new(&self.source).unwrap_or_else(|_| Pattern {
            source: self.source.clone(),
            matcher: Matcher::Regex(OnceLock::new()),
        })
    }
}

fn literal_alternatives(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Literal(lit) if !lit.0.is_empty() => Some(vec![lit.0.to_vec()]),
        HirKind::Capture(capture) => literal_alternatives(&capture.sub),
        HirKind::Alternation(alternatives) => {
            let mut all = Vec::new();
            for alt in alternatives {
                let HirKind::Literal(lit) = alt.kind() else {
                    return None;
                };
                if lit.0.is_empty() {
                    return None;
                }
                all.push(lit.0.to_vec());
            }
            Some(all)
        }
        _ => None,
    }
}

impl Pattern {
    /// Validate `source`; the error text is the regex parser's.
    pub fn new(source: &str) -> Result<Pattern, String> {
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(true)
            .build()
            .parse(source)
            .map_err(|e| last_line(&e))?;
        let matcher = match literal_alternatives(&hir) {
            Some(literals) => Matcher::Literals(
                literals.iter().map(|l| l.to_ascii_lowercase()).collect(),
                OnceLock::new(),
            ),
            None => Matcher::Regex(OnceLock::new()),
        };
        Ok(Pattern {
            source: source.to_owned(),
            matcher,
        })
    }

    /// A pattern that matches `text` literally.
    pub fn literal(text: &str) -> Result<Pattern, String> {
        Pattern::new(&regex::escape(text))
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Number of non-overlapping matches in `haystack`, counting at most `limit`.
    pub fn count(&self, haystack: &str, limit: usize) -> Result<usize, String> {
        match &self.matcher {
            Matcher::Literals(..) => self.count_in(haystack, &haystack.to_ascii_lowercase(), limit),
            Matcher::Regex(_) => self.count_in(haystack, haystack, limit),
        }
    }

    /// Like [`Pattern::count`], with `lowered` = `haystack` with ASCII letters
    /// lower-cased (callers that search one document many times compute it once).
    pub fn count_in(&self, haystack: &str, lowered: &str, limit: usize) -> Result<usize, String> {
        match &self.matcher {
            Matcher::Literals(literals, searcher) => {
                let searcher = searcher.get_or_init(|| {
                    AhoCorasick::builder()
                        .match_kind(MatchKind::LeftmostFirst)
                        .build(literals)
                        .ok()
                });
                Ok(match searcher {
                    Some(ac) => ac.find_iter(lowered).take(limit).count(),
                    None => count_literals(lowered.as_bytes(), literals, limit),
                })
            }
            Matcher::Regex(cell) => {
                let regex = cell.get_or_init(|| {
                    RegexBuilder::new(&self.source)
                        .case_insensitive(true)
                        .unicode(false)
                        .size_limit(REGEX_SIZE_LIMIT)
                        .build()
                        .map_err(|e| last_line(&e))
                });
                match regex {
                    Ok(regex) => Ok(regex.find_iter(haystack).take(limit).count()),
                    Err(e) => Err(e.clone()),
                }
            }
        }
    }

    pub fn is_match(&self, haystack: &str) -> Result<bool, String> {
        self.count(haystack, 1).map(|n| n > 0)
    }
}

/// The regex crates put the cause on the last line of their multi-line errors.
fn last_line(error: &dyn std::fmt::Display) -> String {
    error
        .to_string()
        .lines()
        .last()
        .unwrap_or_default()
        .trim()
        .to_owned()
}

/// Plain scan, used only if the Aho-Corasick automaton cannot be built.
fn count_literals(haystack: &[u8], literals: &[Vec<u8>], limit: usize) -> usize {
    let mut first = [false; 256];
    for lit in literals {
        first[usize::from(lit[0].to_ascii_lowercase())] = true;
        first[usize::from(lit[0].to_ascii_uppercase())] = true;
    }
    let mut count = 0;
    let mut i = 0;
    'scan: while i < haystack.len() && count < limit {
        if first[usize::from(haystack[i])] {
            for lit in literals {
                if haystack.len() - i >= lit.len()
                    && haystack[i..i + lit.len()].eq_ignore_ascii_case(lit)
                {
                    count += 1;
                    i += lit.len();
                    continue 'scan;
                }
            }
        }
        i += 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_literal(p: &Pattern) -> bool {
        matches!(p.matcher, Matcher::Literals(..))
    }

    #[test]
    fn literal_patterns_skip_the_regex_engine() {
        for source in [
            "Phase",
            "(rollback|zurückrollen|revert)",
            "```",
            "Beispiel|Example|Usage",
            "python -m|CLI|--help|command",
        ] {
            assert!(is_literal(&Pattern::new(source).unwrap()), "{source}");
        }
        assert!(!is_literal(&Pattern::new("ADR-\\d{3}").unwrap()));
    }

    #[test]
    fn literal_and_regex_agree() {
        let text = "Der ROLLBACK erfolgt per Revert. Zurückrollen: ja. ADR-001 and adr-002, adr-3";
        for source in [
            "(rollback|zurückrollen|revert)",
            "adr-\\d{3}",
            "\\bja\\b",
            "Revert",
        ] {
            let p = Pattern::new(source).unwrap();
            let regex = RegexBuilder::new(source)
                .case_insensitive(true)
                .unicode(false)
                .build()
                .unwrap();
            assert_eq!(
                p.count(text, 100).unwrap(),
                regex.find_iter(text).count(),
                "{source}"
            );
        }
        assert_eq!(
            Pattern::new("Phase")
                .unwrap()
                .count("phase PHASE Phase", 2)
                .unwrap(),
            2
        );
    }

    #[test]
    fn bad_syntax_is_an_error() {
        assert!(Pattern::new("(unclosed").is_err());
        assert!(
            Pattern::new("\\p{Greek}").is_err(),
            "Unicode classes need Unicode mode"
        );
    }

    #[test]
    fn literal_text_is_escaped() {
        let p = Pattern::literal("breaking change (v2)").unwrap();
        assert!(p.is_match("A BREAKING CHANGE (V2) here").unwrap());
        assert!(!p.is_match("breaking change v2").unwrap());
    }
}
