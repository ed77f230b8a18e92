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
    Literals(Vec<Vec<u8>>, OnceLock<Option<Finder>>),
    /// Literal alternatives with ASCII word boundaries (`\b(alt|new)\b`, `\bcommands?\b`
    /// with its optional parts spelled out), ASCII-lower-cased, in the order a regex
    /// tries them. Aho-Corasick finds where one starts, and the first whose boundaries
    /// hold there is taken, leftmost-first, as the regex would: the same matches
    /// without compiling a regex (1.3 M instructions for the shipped old/new word
    /// list, a seventh of a hook call on the seed ADR).
    Bounded(Vec<BoundedLiteral>, OnceLock<Option<Finder>>),
    Regex(OnceLock<Result<Compiled, PatternError>>),
}

/// Finds literals leftmost-first (the first listed wins at one place): Teddy, the
/// SIMD searcher `aho-corasick` packs a few literals into, where it can be built
/// (a rule's word list: built in a fraction of an automaton's time), else an
/// Aho-Corasick automaton (a contiguous NFA: one search of one document does not
/// repay a DFA's build).
#[derive(Debug)]
enum Finder {
    Packed(aho_corasick::packed::Searcher),
    Automaton(AhoCorasick),
}

impl Finder {
    fn build<I, P>(literals: I) -> Option<Finder>
    where
        I: IntoIterator<Item = P> + Clone,
        P: AsRef<[u8]>,
    {
        if let Some(packed) = aho_corasick::packed::Config::new()
            .match_kind(aho_corasick::packed::MatchKind::LeftmostFirst)
            .builder()
            .extend(literals.clone())
            .build()
        {
            return Some(Finder::Packed(packed));
        }
        AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .kind(Some(AhoCorasickKind::ContiguousNFA))
            .build(literals)
            .ok()
            .map(Finder::Automaton)
    }

    /// The first match at or after `from`: (start, end).
    fn find_from(&self, haystack: &[u8], from: usize) -> Option<(usize, usize)> {
        let span = aho_corasick::Span::from(from..haystack.len());
        match self {
            Finder::Packed(searcher) => searcher.find_in(haystack, span),
            Finder::Automaton(ac) => ac.find(aho_corasick::Input::new(haystack).span(span)),
        }
        .map(|m| (m.start(), m.end()))
    }
}

/// One alternative of [`Matcher::Bounded`].
#[derive(Debug, Clone, PartialEq, Eq)]
struct BoundedLiteral {
    literal: Vec<u8>,
    /// `\b` before it.
    start: bool,
    /// `\b` after it.
    end: bool,
}

/// At most this many alternatives after spelling out optional parts.
const MAX_BOUNDED: usize = 256;

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

/// Why a pattern cannot be used; the text is the cause the regex crates give (the last
/// line of their multi-line messages).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    /// Not a regex: checked when the rules file is read, so a bad pattern is a
    /// rules-file error.
    #[error("{0}")]
    Syntax(String),
    /// A valid regex that cannot be built within the size limit: found the first
    /// time a rule searches with it, so it is a finding of that rule.
    #[error("{0}")]
    TooBig(String),
}

impl Pattern {
    /// Validate `source`; the error text is the regex parser's.
    pub fn new(source: &str) -> Result<Pattern, PatternError> {
        // Word lists (`Schritt|Step`, `\b(alt|new)\b`, escaped literal text) are read
        // directly; only the rest goes through the regex parser.
        let matcher = match quick::matcher(source) {
            Some(matcher) => matcher,
            None => Pattern::parsed_matcher(source)?,
        };
        Ok(Pattern {
            source: source.to_owned(),
            matcher,
        })
    }

    /// The matcher of `source` from the regex parser's HIR.
    fn parsed_matcher(source: &str) -> Result<Matcher, PatternError> {
        let hir = regex_syntax::ParserBuilder::new()
            .unicode(false)
            .utf8(true)
            .build()
            .parse(source)
            .map_err(|e| PatternError::Syntax(last_line(&e)))?;
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
        let bounded = if case_sensitive_part || literals.is_some() {
            None
        } else {
            bounded_alternatives(&hir)
        };
        Ok(match (literals, bounded) {
            (Some(literals), _) => Matcher::Literals(
                literals.iter().map(|l| l.to_ascii_lowercase()).collect(),
                OnceLock::new(),
            ),
            (None, Some(bounded)) => Matcher::Bounded(bounded, OnceLock::new()),
            (None, None) => Matcher::Regex(OnceLock::new()),
        })
    }

    /// A pattern that matches `text` literally.
    pub fn literal(text: &str) -> Result<Pattern, PatternError> {
        Pattern::new(&regex::escape(text))
    }

    pub fn source(&self) -> &str {
        &self.source
    }

    /// Number of non-overlapping matches in `haystack`, counting at most `limit`.
    pub fn count(&self, haystack: &str, limit: usize) -> Result<usize, PatternError> {
        self.count_in(haystack, &haystack.to_ascii_lowercase(), limit)
    }

    /// Like [`Pattern::count`], with `lowered` = `haystack` with ASCII letters
    /// lower-cased (callers that search one document many times compute it once).
    pub fn count_in(
        &self,
        haystack: &str,
        lowered: &str,
        limit: usize,
    ) -> Result<usize, PatternError> {
        match &self.matcher {
            Matcher::Literals(literals, searcher) => {
                let searcher = searcher.get_or_init(|| Finder::build(literals));
                Ok(match searcher {
                    Some(finder) => {
                        let haystack = lowered.as_bytes();
                        let mut count = 0;
                        let mut from = 0;
                        while count < limit
                            && let Some((_, end)) = finder.find_from(haystack, from)
                        {
                            count += 1;
                            from = end;
                        }
                        count
                    }
                    None => count_literals(lowered.as_bytes(), literals, limit),
                })
            }
            Matcher::Bounded(alternatives, searcher) => {
                let searcher =
                    searcher.get_or_init(|| Finder::build(alternatives.iter().map(|a| &a.literal)));
                Ok(count_bounded(
                    lowered.as_bytes(),
                    alternatives,
                    searcher.as_ref(),
                    limit,
                ))
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

    pub fn is_match(&self, haystack: &str) -> Result<bool, PatternError> {
        self.count(haystack, 1).map(|n| n > 0)
    }
}

/// The common rule patterns read without the regex parser: parsing them into a HIR was
/// about 50,000 instructions each, 0.6 M of a hook call on the seed ADR with the
/// repository's rules file (12 patterns), for what is a word list.
///
/// Read here: alternatives (`|`) of an optional `\b`, a sequence, an optional `\b`;
/// a sequence is characters (a regex meta character escaped, `-` also unescaped),
/// groups (`(...)`, `(?:...)`) of alternatives of sequences, and greedy `?` after a
/// character or group. Anything else (classes, repetitions, anchors, other escapes,
/// flags, an empty alternative, too many spelled-out literals) is `None`, and the
/// regex parser decides, so every pattern read here is valid regex syntax. The
/// literals are spelled out in the order a regex tries them (leftmost-first), so
/// [`Matcher::Literals`] and [`Matcher::Bounded`] count exactly what the regex would.
mod quick {
    use std::sync::OnceLock;

    use super::{BoundedLiteral, MAX_BOUNDED, Matcher};

    pub(super) fn matcher(source: &str) -> Option<Matcher> {
        let mut reader = Reader {
            rest: source.as_bytes(),
        };
        let mut items: Vec<BoundedLiteral> = Vec::new();
        loop {
            let start = reader.eat(b"\\b");
            let literals = reader.sequence()?;
            let end = reader.eat(b"\\b");
            for literal in literals {
                if literal.is_empty() {
                    return None;
                }
                items.push(BoundedLiteral {
                    literal: literal.to_ascii_lowercase(),
                    start,
                    end,
                });
            }
            if items.len() > MAX_BOUNDED {
                return None;
            }
            match reader.rest {
                [] => break,
                [b'|', rest @ ..] => reader.rest = rest,
                _ => return None,
            }
        }
        Some(if items.iter().any(|i| i.start || i.end) {
            Matcher::Bounded(items, OnceLock::new())
        } else {
            Matcher::Literals(
                items.into_iter().map(|i| i.literal).collect(),
                OnceLock::new(),
            )
        })
    }

    struct Reader<'a> {
        rest: &'a [u8],
    }

    impl Reader<'_> {
        fn eat(&mut self, prefix: &[u8]) -> bool {
            match self.rest.strip_prefix(prefix) {
                Some(rest) => {
                    self.rest = rest;
                    true
                }
                None => false,
            }
        }

        /// Alternatives of sequences, up to a `)` (left unread) or the end.
        fn alternation(&mut self) -> Option<Vec<Vec<u8>>> {
            let mut all = self.sequence()?;
            while self.eat(b"|") {
                all.extend(self.sequence()?);
                if all.len() > MAX_BOUNDED {
                    return None;
                }
            }
            Some(all)
        }

        /// The literals a sequence matches, up to `|`, `)`, a `\b` or the end (left
        /// unread; the caller decides whether it may stand there).
        fn sequence(&mut self) -> Option<Vec<Vec<u8>>> {
            let mut all: Vec<Vec<u8>> = vec![Vec::new()];
            loop {
                let choices: Vec<Vec<u8>> = match self.rest {
                    [] | [b'|' | b')', ..] | [b'\\', b'b', ..] => return Some(all),
                    [b'(', ..] => {
                        self.rest = &self.rest[1..];
                        if self.rest.first() == Some(&b'?') && !self.eat(b"?:") {
                            return None; // flags or a named group
                        }
                        let inner = self.alternation()?;
                        if !self.eat(b")") {
                            return None;
                        }
                        inner
                    }
                    [b'\\', c, ..]
                        if c.is_ascii() && regex_syntax::is_meta_character(char::from(*c)) =>
                    {
                        let (_, rest) = self.rest.split_at(1);
                        self.rest = rest;
                        self.character(&mut all, 1)?;
                        continue;
                    }
                    [c, ..]
                        if c.is_ascii()
                            && *c != b'-'
                            && regex_syntax::is_meta_character(char::from(*c)) =>
                    {
                        return None;
                    }
                    // One character (a UTF-8 sequence: the source is a `str`).
                    [c, ..] => {
                        self.character(&mut all, utf8_len(*c))?;
                        continue;
                    }
                };
                let choices = self.optional(choices)?;
                if let [only] = choices.as_slice() {
                    for head in &mut all {
                        head.extend_from_slice(only);
                    }
                } else {
                    all = cross(&all, &choices)?;
                }
            }
        }

        /// The next `len` bytes as one character, and a `?` after it: grown in place
        /// (no copies) when it is not optional.
        fn character(&mut self, all: &mut Vec<Vec<u8>>, len: usize) -> Option<()> {
            let (char, rest) = self.rest.split_at_checked(len)?;
            self.rest = rest;
            if self.rest.first() == Some(&b'?') {
                let choices = self.optional(vec![char.to_vec()])?;
                *all = cross(all, &choices)?;
            } else {
                if matches!(self.rest.first(), Some(b'*' | b'+' | b'{')) {
                    return None;
                }
                for head in all.iter_mut() {
                    head.extend_from_slice(char);
                }
            }
            Some(())
        }

        /// `choices` with a greedy `?` after them read (the empty choice last), or as
        /// they are; `None` for any other repetition.
        fn optional(&mut self, choices: Vec<Vec<u8>>) -> Option<Vec<Vec<u8>>> {
            let choices = if self.eat(b"?") {
                if matches!(self.rest.first(), Some(b'?' | b'+')) {
                    return None; // lazy or possessive
                }
                choices.into_iter().chain([Vec::new()]).collect()
            } else {
                choices
            };
            if matches!(self.rest.first(), Some(b'*' | b'+' | b'{' | b'?')) {
                return None;
            }
            Some(choices)
        }
    }

    /// Every head followed by every tail, heads outermost; `None` past [`MAX_BOUNDED`].
    fn cross(heads: &[Vec<u8>], tails: &[Vec<u8>]) -> Option<Vec<Vec<u8>>> {
        if heads.len() * tails.len() > MAX_BOUNDED {
            return None;
        }
        Some(
            heads
                .iter()
                .flat_map(|head| {
                    tails.iter().map(move |tail| {
                        let mut joined = head.clone();
                        joined.extend_from_slice(tail);
                        joined
                    })
                })
                .collect(),
        )
    }

    fn utf8_len(first: u8) -> usize {
        match first {
            0..0x80 => 1,
            0xE0..0xF0 => 3,
            0xF0.. => 4,
            _ => 2,
        }
    }
}

/// `hir` as literal alternatives with ASCII word boundaries ([`Matcher::Bounded`]):
/// an alternation (or one item) of `[\b] core [\b]`, where the core is made of
/// literals, groups of literal alternatives and optional (`?`) literal parts.
/// `None` for anything else, and when there is no boundary at all (plain literals
/// have their own, faster path).
fn bounded_alternatives(hir: &Hir) -> Option<Vec<BoundedLiteral>> {
    use regex_syntax::hir::Look;
    let items: Vec<&Hir> = match hir.kind() {
        HirKind::Alternation(subs) => subs.iter().collect(),
        _ => vec![hir],
    };
    let mut out = Vec::new();
    for item in items {
        let mut parts: Vec<&Hir> = match item.kind() {
            HirKind::Concat(subs) => subs.iter().collect(),
            _ => vec![item],
        };
        let is_boundary = |h: &&Hir| matches!(h.kind(), HirKind::Look(Look::WordAscii));
        let start = parts.first().is_some_and(is_boundary);
        if start {
            parts.remove(0);
        }
        let end = parts.last().is_some_and(is_boundary);
        if end {
            parts.pop();
        }
        for literal in sequence(&parts)? {
            if literal.is_empty() {
                return None;
            }
            out.push(BoundedLiteral {
                literal: literal.to_ascii_lowercase(),
                start,
                end,
            });
        }
        if out.len() > MAX_BOUNDED {
            return None;
        }
    }
    out.iter().any(|a| a.start || a.end).then_some(out)
}

/// The literals a sequence of parts matches, in the order a backtracking regex
/// tries them (the first part's choices outermost).
fn sequence(parts: &[&Hir]) -> Option<Vec<Vec<u8>>> {
    let mut all: Vec<Vec<u8>> = vec![Vec::new()];
    for part in parts {
        let choices = choices(part)?;
        all = all
            .iter()
            .flat_map(|head| {
                choices.iter().map(move |tail| {
                    let mut joined = head.clone();
                    joined.extend_from_slice(tail);
                    joined
                })
            })
            .collect();
        if all.len() > MAX_BOUNDED {
            return None;
        }
    }
    Some(all)
}

/// The literals one part matches, in the order a regex tries them: a literal, a
/// group, an alternation, a sequence, or an optional part (greedy: with it first).
fn choices(hir: &Hir) -> Option<Vec<Vec<u8>>> {
    match hir.kind() {
        HirKind::Literal(lit) => Some(vec![lit.0.to_vec()]),
        HirKind::Capture(capture) => choices(&capture.sub),
        HirKind::Concat(subs) => sequence(&subs.iter().collect::<Vec<_>>()),
        HirKind::Alternation(subs) => {
            let mut all = Vec::new();
            for sub in subs {
                all.extend(choices(sub)?);
            }
            Some(all)
        }
        HirKind::Repetition(rep) if rep.min == 0 && rep.max == Some(1) => {
            let with = choices(&rep.sub)?;
            Some(if rep.greedy {
                with.into_iter().chain([Vec::new()]).collect()
            } else {
                [Vec::new()].into_iter().chain(with).collect()
            })
        }
        _ => None,
    }
}

/// Non-overlapping matches of `alternatives` in `haystack` (lower-cased), counting
/// at most `limit`: at the leftmost place where one matches with its boundaries,
/// the first in order, then on after its end, as a regex counts. The searcher
/// (leftmost-first, with its prefilter) finds the next place where any of them
/// starts; the alternatives are then tried there in order, and if none holds its
/// boundaries the search goes on one byte later.
fn count_bounded(
    haystack: &[u8],
    alternatives: &[BoundedLiteral],
    searcher: Option<&Finder>,
    limit: usize,
) -> usize {
    let word = |i: usize| {
        haystack
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
    };
    let boundary = |i: usize| (i > 0 && word(i - 1)) != word(i);
    let next_start = |from: usize| match searcher {
        Some(finder) => finder.find_from(haystack, from).map(|(start, _)| start),
        // Only if the automaton cannot be built: look at every place.
        None => (from..haystack.len()).find(|&at| {
            alternatives
                .iter()
                .any(|a| haystack[at..].starts_with(&a.literal))
        }),
    };
    let mut count = 0;
    let mut from = 0;
    while count < limit && from < haystack.len() {
        let Some(start) = next_start(from) else {
            break;
        };
        let matched = alternatives.iter().find(|a| {
            let end = start + a.literal.len();
            haystack[start..].starts_with(&a.literal)
                && (!a.start || boundary(start))
                && (!a.end || boundary(end))
        });
        match matched {
            Some(a) => {
                count += 1;
                from = start + a.literal.len();
            }
            None => from = start + 1,
        }
    }
    count
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
fn compile(source: &str) -> Result<Compiled, PatternError> {
    let hir = regex_syntax::ParserBuilder::new()
        .unicode(false)
        .utf8(true)
        .case_insensitive(true)
        .build()
        .parse(source)
        .map_err(|e| PatternError::Syntax(last_line(&e)))?;
    let as_written = || {
        RegexBuilder::new(source)
            .case_insensitive(true)
            .unicode(false)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map(Compiled::AsWritten)
            .map_err(|e| match e {
                regex::Error::Syntax(_) => PatternError::Syntax(last_line(&e)),
                _ => PatternError::TooBig(last_line(&e)),
            })
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

    #[test]
    fn a_bad_pattern_is_refused_up_front_and_a_huge_one_when_it_is_built() {
        assert!(matches!(
            Pattern::new("(unclosed"),
            Err(PatternError::Syntax(_))
        ));
        let huge = Pattern::new("[a-z]{1000}{1000}").unwrap();
        let err = huge.is_match("abc").unwrap_err();
        assert!(matches!(err, PatternError::TooBig(_)), "{err:?}");
        assert!(err.to_string().contains("size limit"), "{err}");
    }

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
            // (`Endpunkte?n?` is spelled out into literals: the same counts.)
            assert!(
                !is_literal(&p) || quick::matcher(source).is_some(),
                "{source}"
            );
            // (Word lists with boundaries are counted without a regex: the same counts.)
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

    fn is_bounded(p: &Pattern) -> bool {
        matches!(p.matcher, Matcher::Bounded(..))
    }

    /// Word lists with `\b` are counted without a regex, and exactly as the regex
    /// crate's case-insensitive ASCII build counts them, on texts made to trip
    /// boundaries, overlaps, prefixes, optional parts and non-ASCII letters.
    #[test]
    fn bounded_word_lists_count_as_the_regex_does() {
        let shipped = [
            r"\b(vorher|nachher|alt|alte|alten|alter|altes|altem|neu|neue|neuen|neuer|neues|neuem|before|after|old|new)\b",
            r"--help|python -m|\b(CLI|commands?)\b|\b(Befehl|Kommando|Aufruf)",
            r"\b(GET|POST|PUT|PATCH|DELETE|endpoints?|Endpunkte?n?|APIs?|OpenAPI|Schnittstellen?)\b",
        ];
        let tricky = [
            r"\bja\b",
            r"\b(a|ab|abc)\b",
            r"\b(abc|ab|a)",
            r"(ab|b)\b",
            r"\b--x|y\b",
            r"\bfoo(bar)?s?\b",
            r"\bfoo(?:bar)??\b",
        ];
        let texts = [
            "Alte und neue Werte: vorher/nachher, ALT, altes_x, Inhalt erneut, new-old, renewed, OLDER",
            "cli client Commands --HELP command_x python -m Befehle Kommandos aufrufen",
            "GET /x, POSTs, api APIS Kapitel apix, ENDPUNKTEN endpunkt endpunktn openapi Schnittstelle",
            "ja JA jaja ja_ ja- -ja zurück ja\u{fc}",
            "a ab abc abcd aab ab_ a-b",
            "--x --xy y yy xy _y --x--x",
            "foo foobar foos foobars foobarss foob",
            "",
            "ä a ü ab ö",
        ];
        for source in shipped.iter().chain(&tricky) {
            let p = Pattern::new(source).unwrap();
            assert!(is_bounded(&p), "{source}");
            let reference = RegexBuilder::new(source)
                .case_insensitive(true)
                .unicode(false)
                .build()
                .unwrap();
            for text in texts {
                for limit in [1, 2, 100] {
                    assert_eq!(
                        p.count(text, limit).unwrap(),
                        reference.find_iter(text).take(limit).count(),
                        "{source} in {text:?}, limit {limit}"
                    );
                }
            }
        }
        // A boundary inside the core, or a class, stays a regex.
        for source in [r"a\bb", r"\b[ab]x\b", r"\bx+\b", r"(?-i)\bA\b"] {
            assert!(!is_bounded(&Pattern::new(source).unwrap()), "{source}");
        }
    }

    /// Patterns read without the regex parser ([`quick`]) are valid regexes and count
    /// exactly what the regex crate's case-insensitive ASCII build counts: every
    /// pattern of up to seven pieces drawn from a set made to trip groups, optional
    /// parts, boundaries, escapes and empty alternatives, on texts made to trip them.
    #[test]
    fn patterns_read_without_the_parser_count_as_the_regex_does() {
        const PIECES: [&str; 18] = [
            "a", "b", "ab", "A", "\u{fc}", "-", "|", "(", ")", "(?:", "?", "\\b", "\\.", "\\(",
            "*", "[a]", "(?i)", " ",
        ];
        const TEXTS: [&str; 4] = [
            "a ab b A AB aab ba -a a-b \u{fc} \u{dc} x . ( ab_ abab a.b",
            "",
            "bA-a(ab) .a\u{fc}b bb aa\u{fc}",
            "a",
        ];
        // A fixed linear congruential sequence: the same patterns on every run.
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(state >> 33).unwrap() % n
        };
        let mut quick_read = 0;
        for _ in 0..20_000 {
            let len = 1 + next(7);
            let source: String = (0..len).map(|_| PIECES[next(PIECES.len())]).collect();
            let Some(matcher) = quick::matcher(&source) else {
                continue;
            };
            quick_read += 1;
            let slow = Pattern::parsed_matcher(&source);
            assert!(slow.is_ok(), "{source:?} read, but the parser refuses it");
            let reference = RegexBuilder::new(&source)
                .case_insensitive(true)
                .unicode(false)
                .build()
                .unwrap();
            let pattern = Pattern {
                source: source.clone(),
                matcher,
            };
            for text in TEXTS {
                for limit in [1, 2, 100] {
                    assert_eq!(
                        pattern.count(text, limit).unwrap(),
                        reference.find_iter(text).take(limit).count(),
                        "{source:?} in {text:?}, limit {limit}"
                    );
                }
            }
        }
        assert!(
            quick_read > 2_000,
            "only {quick_read} patterns read quickly"
        );
        // The shipped rules' patterns and escaped literal text are all read quickly.
        for source in [
            "(rollback|zur\u{fc}ckrollen|revert)",
            r"\b(vorher|nachher|alt|alte|alten|alter|altes|altem|neu|neue|neuen|neuer|neues|neuem|before|after|old|new)\b",
            r"--help|python -m|\b(CLI|commands?)\b|\b(Befehl|Kommando|Aufruf)",
            r"\b(GET|POST|PUT|PATCH|DELETE|endpoints?|Endpunkte?n?|APIs?|OpenAPI|Schnittstellen?)\b",
            "Phase",
            "Schritt|Step",
            "```",
            &regex::escape("breaking change (v2.0) [draft]"),
        ] {
            assert!(quick::matcher(source).is_some(), "{source}");
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
