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

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
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
    Regex(OnceLock<Result<Compiled, String>>),
}

/// A validated pattern.
/// A compiled regex and the text it runs on.
#[derive(Debug)]
enum Compiled {
    /// Lower-cased pattern, case-sensitive, on the lower-cased text.
    Lowered(regex_automata::meta::Regex),
    /// The pattern as written, case-insensitive, on the original text.
    AsWritten(Regex),
}

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
        // A pattern with inline flags may turn case-insensitivity off (`(?-i)ABC`): the
        // case-insensitive literal search would then match too much, so it is a regex.
        let case_sensitive_part = source.contains("(?")
            && regex_syntax::ParserBuilder::new()
                .unicode(false)
                .utf8(true)
                .case_insensitive(true)
                .build()
                .parse(source)
                .is_ok_and(|folded| needs_upper_case(&folded));
        let literals = if case_sensitive_part {
            None
        } else {
            literal_alternatives(&hir)
        };
        let matcher = match literals {
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
        self.count_in(haystack, &haystack.to_ascii_lowercase(), limit)
    }

    /// Like [`Pattern::count`], with `lowered` = `haystack` with ASCII letters
    /// lower-cased (callers that search one document many times compute it once).
    pub fn count_in(&self, haystack: &str, lowered: &str, limit: usize) -> Result<usize, String> {
        match &self.matcher {
            Matcher::Literals(literals, searcher) => {
                let searcher = searcher.get_or_init(|| {
                    // A contiguous NFA, not the DFA `build` picks for a few literals:
                    // one search of one document does not repay the DFA's build.
                    AhoCorasick::builder()
                        .match_kind(MatchKind::LeftmostFirst)
                        .kind(Some(AhoCorasickKind::ContiguousNFA))
                        .build(literals)
                        .ok()
                });
                Ok(match searcher {
                    Some(ac) => ac.find_iter(lowered).take(limit).count(),
                    None => count_literals(lowered.as_bytes(), literals, limit),
                })
            }
            Matcher::Regex(cell) => {
                let regex = cell.get_or_init(|| compile(&self.source));
                match regex {
                    // Lowered: matched case-sensitively in its lower-cased form against
                    // the lower-cased text (ASCII only, same offsets): the same matches
                    // as the case-insensitive regex, without the case variants a
                    // case-insensitive build expands every literal into (compiling the
                    // shipped rules' word lists that way was a third of a hook call).
                    Ok(Compiled::Lowered(regex)) => {
                        Ok(regex.find_iter(lowered).take(limit).count())
                    }
                    Ok(Compiled::AsWritten(regex)) => {
                        Ok(regex.find_iter(haystack).take(limit).count())
                    }
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
/// `source` as a case-sensitive regex for ASCII-lower-cased text. It is parsed
/// case-insensitively (so classes are folded before any negation, as the regex crate
/// does), then every upper-case ASCII letter is taken out of it: the text it runs on
/// has none. Without Unicode mode the pattern only knows ASCII case, so it matches
/// exactly what the case-insensitive pattern matches on the original text, while the
/// literal prefilter sees plain lower-case words instead of every case variant.
/// A pattern with a case-sensitive part (`(?-i)ABC`) cannot be lowered and runs as
/// written, case-insensitively, on the original text.
fn compile(source: &str) -> Result<Compiled, String> {
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(true)
        .case_insensitive(true)
        .build()
        .parse(source)
        .map_err(|e| last_line(&e))?;
    let as_written = || {
        RegexBuilder::new(source)
            .case_insensitive(true)
            .unicode(false)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map(Compiled::AsWritten)
            .map_err(|e| last_line(&e))
    };
    if needs_upper_case(&hir) {
        return as_written();
    }
    // Built from the lowered HIR itself: printing it and parsing the text again
    // cost as much as the build. Should the build fail, the pattern runs as written.
    regex_automata::meta::Regex::builder()
        .configure(regex_automata::meta::Regex::config().nfa_size_limit(Some(REGEX_SIZE_LIMIT)))
        .build_from_hir(&lower_hir(&hir))
        .map(Compiled::Lowered)
        .or_else(|_| as_written())
}

/// Whether the case-insensitively parsed `hir` still tells upper from lower case
/// somewhere: an upper-case literal, or a class with an upper-case ASCII letter but
/// not its lower-case one (only a `(?-i)` part makes either).
fn needs_upper_case(hir: &Hir) -> bool {
    use regex_syntax::hir::{Class, Literal};
    match hir.kind() {
        HirKind::Literal(Literal(bytes)) => bytes.iter().any(u8::is_ascii_uppercase),
        HirKind::Class(Class::Bytes(class)) => class.iter().any(|r| {
            (r.start()..=r.end()).any(|b| {
                b.is_ascii_uppercase()
                    && !class
                        .iter()
                        .any(|o| (o.start()..=o.end()).contains(&b.to_ascii_lowercase()))
            })
        }),
        HirKind::Class(Class::Unicode(class)) => class.iter().any(|r| {
            ('A'..='Z').any(|c| {
                (r.start()..=r.end()).contains(&c)
                    && !class
                        .iter()
                        .any(|o| (o.start()..=o.end()).contains(&c.to_ascii_lowercase()))
            })
        }),
        HirKind::Repetition(rep) => needs_upper_case(&rep.sub),
        HirKind::Capture(cap) => needs_upper_case(&cap.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs.iter().any(needs_upper_case),
        HirKind::Empty | HirKind::Look(_) => false,
    }
}

/// `hir` without upper-case ASCII letters: literals lower-cased, `A-Z` taken out of
/// every class (a class left with one byte becomes a literal).
fn lower_hir(hir: &Hir) -> Hir {
    use regex_syntax::hir::{
        Capture, Class, ClassBytes, ClassBytesRange, ClassUnicode, ClassUnicodeRange, Literal,
        Repetition,
    };
    match hir.kind() {
        HirKind::Literal(Literal(bytes)) => Hir::literal(bytes.to_ascii_lowercase()),
        HirKind::Class(Class::Bytes(class)) => {
            let mut class = class.clone();
            class.difference(&ClassBytes::new([ClassBytesRange::new(b'A', b'Z')]));
            Hir::class(Class::Bytes(class))
        }
        HirKind::Class(Class::Unicode(class)) => {
            let mut class = class.clone();
            class.difference(&ClassUnicode::new([ClassUnicodeRange::new('A', 'Z')]));
            Hir::class(Class::Unicode(class))
        }
        HirKind::Repetition(rep) => Hir::repetition(Repetition {
            sub: Box::new(lower_hir(&rep.sub)),
            ..rep.clone()
        }),
        HirKind::Capture(cap) => Hir::capture(Capture {
            sub: Box::new(lower_hir(&cap.sub)),
            ..cap.clone()
        }),
        HirKind::Concat(subs) => Hir::concat(subs.iter().map(lower_hir).collect()),
        HirKind::Alternation(subs) => Hir::alternation(subs.iter().map(lower_hir).collect()),
        HirKind::Empty | HirKind::Look(_) => hir.clone(),
    }
}

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
    fn regexes_match_case_insensitively_on_the_lowered_text() {
        let cases: [(&str, &str, usize); 9] = [
            (r"\b(GET|POST|APIs?)\b", "get Post api APIS Kapitel apix", 4),
            (r"ADR-\d{3}", "adr-014 and ADR-7 and Adr-015", 2),
            (r"[A-Z]{2}", "ab CD e", 2),
            (r"\b(zurück|Straße)\b", "ZURÜCK zurück straße", 2),
            (r"(?-i)[A-Z]{2}|x", "AB ab X", 1),
            (r"Endpunkte?n?", "ENDPUNKTEN endpunkt", 2),
            (r"^\d+\.\s+(?u:\S)", "12. Title", 1),
            (r"(?-i)ABC", "abc ABC", 1),
            (
                r"--help|python -m|\b(CLI|commands?)\b",
                "cli client Commands --HELP",
                3,
            ),
        ];
        for (source, text, expected) in cases {
            let p = Pattern::new(source).unwrap();
            assert!(!is_literal(&p), "{source}");
            assert_eq!(
                p.count(text, 100).unwrap(),
                expected,
                "{source} in {text:?}"
            );
            // The same count as the regex crate's own case-insensitive build.
            let reference = RegexBuilder::new(source)
                .case_insensitive(true)
                .unicode(false)
                .build()
                .unwrap();
            assert_eq!(reference.find_iter(text).count(), expected, "{source}");
        }
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
