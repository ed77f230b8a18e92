//! A code rule, compiled once, run on one file's change: what was there before
//! (`None`: a new file) and what is there now (`None`: deleted).
//!
//! Rules judge what the change does, not what the file already held: an import,
//! a pattern's line or a dependency that was there before is not this change's
//! doing (an accepted ADR does not make every old file fail at its next edit).
//! A line counts as added when no line of the old text equals it (leading and
//! trailing blanks aside); an import when the old text did not import that module.

use std::collections::HashSet;

use foldhash::fast::RandomState;
use std::sync::OnceLock;

use regex_automata::meta::{self, Regex};
use regex_automata::nfa::thompson::WhichCaptures;
use regex_automata::util::syntax;

use super::imports::Lang;
use super::manifest;
use super::model::{CodeRule, Kind};
use crate::config::settings::{Globs, build_accepted_globs, build_globs};

/// Size limit of a compiled pattern: a hand-written rule stays far below it,
/// and `x{1000}{1000}` does not build a huge automaton. The `regex` crate
/// matches in time linear in the text whatever the pattern.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// A [`CodeRule`] with its globs and pattern compiled, each on first use: a
/// repository with a thousand rules pays only for those that apply to the path
/// at hand ([`Compiled::deferred`]); [`Compiled::new`] compiles all at once, to
/// say what does not compile.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub rule: CodeRule,
    paths: OnceLock<Option<Globs>>,
    with: OnceLock<Option<Globs>>,
    regex: OnceLock<Option<Regex>>,
    prefilter: OnceLock<Prefilter>,
}

/// What a rule's pattern tells without compiling it. The cached governing index
/// keeps it with the rule ([`Compiled::deferred_with`]), so a hook call does not
/// parse the pattern again.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Prefilter {
    /// Literals one of which every match starts with (`None`: no short list).
    literals: Option<Vec<Vec<u8>>>,
    /// The whole pattern, when it is a literal (`TODO`) or a literal at a
    /// line's start (`^# License: `): matched as such, never compiled.
    exact: Option<Exact>,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
enum Exact {
    Anywhere(Vec<u8>),
    LineStart(Vec<u8>),
}

impl Exact {
    fn is_match(&self, text: &str) -> bool {
        let text = text.as_bytes();
        match self {
            Exact::Anywhere(literal) => crate::text::find::find(text, literal).is_some(),
            // Multi-line `^`: the text's start or after a `\n`.
            Exact::LineStart(literal) => {
                text.starts_with(literal)
                    || crate::text::find::find_iter(text, literal)
                        .any(|at| at > 0 && text[at - 1] == b'\n')
            }
        }
    }
}

/// One violation of a rule in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// 1-based line in the new text, when the violation has one.
    pub line: Option<usize>,
    pub message: String,
}

/// Compile rule globs (a leading `./` is dropped).
fn rule_globs(list: &[String]) -> Result<Globs, String> {
    let list: Vec<String> = list
        .iter()
        .map(|g| g.trim_start_matches("./").to_owned())
        .collect();
    build_globs(&list).map_err(|e| e.to_string())
}

/// [`rule_globs`] of a rule [`Compiled::new`] accepted before.
fn accepted_rule_globs(list: &[String]) -> Option<Globs> {
    let list: Vec<String> = list
        .iter()
        .map(|g| g.trim_start_matches("./").to_owned())
        .collect();
    build_accepted_globs(&list).ok()
}

/// The literal start of a glob, up to its first wildcard, alternative or escape:
/// a path that does not start with it cannot match the glob (matching is
/// case-sensitive), so most globs are ruled out without being compiled.
pub fn literal_prefix(glob: &str) -> &str {
    let glob = glob.trim_start_matches("./");
    let end = glob.find(['*', '?', '[', '{', '\\']).unwrap_or(glob.len());
    &glob[..end]
}

/// Whether some glob of `globs` may match `path`, by its [`literal_prefix`].
pub fn may_match(globs: &[String], path: &str) -> bool {
    globs.iter().any(|g| path.starts_with(literal_prefix(g)))
}

/// A set of the lines or modules of one file: `foldhash`, seeded per process,
/// hashes a file's lines several times faster than std's `SipHash`.
type Set<T> = HashSet<T, RandomState>;

/// One file's change as the rules read it: what each rule needs of it (the lines
/// it adds, its imports) is worked out once, on first use, for all of them.
#[derive(Debug)]
pub struct FileChange<'a> {
    /// Repository-relative.
    pub path: &'a str,
    /// `None`: a new file.
    pub before: Option<&'a str>,
    /// `None`: deleted.
    pub after: Option<&'a str>,
    added: OnceLock<Vec<(usize, &'a str)>>,
    /// The imports of the new text, in the language of the path.
    imports: OnceLock<Option<Vec<(usize, String)>>>,
    /// The modules the old text imported: read only when a new import is one
    /// that some rule forbids.
    old_imports: OnceLock<Set<String>>,
}

impl<'a> FileChange<'a> {
    pub fn new(path: &'a str, before: Option<&'a str>, after: Option<&'a str>) -> FileChange<'a> {
        FileChange {
            path,
            before,
            after,
            added: OnceLock::new(),
            imports: OnceLock::new(),
            old_imports: OnceLock::new(),
        }
    }

    /// The lines of the new text that no line of the old one equals (leading and
    /// trailing blanks aside), with their 0-based index.
    fn added_lines(&self) -> &[(usize, &'a str)] {
        self.added.get_or_init(|| {
            let Some(after) = self.after else {
                return Vec::new();
            };
            let old: Set<&str> = self
                .before
                .map(|b| b.lines().map(str::trim).collect())
                .unwrap_or_default();
            after
                .lines()
                .enumerate()
                .filter(|(_, line)| !old.contains(line.trim()))
                .collect()
        })
    }

    /// The imports of the new text, in the language of the path (None: a file
    /// without imports, or deleted).
    fn imports(&self) -> Option<&[(usize, String)]> {
        self.imports
            .get_or_init(|| Some(Lang::of_path(self.path)?.imports(self.after?)))
            .as_deref()
    }

    /// Whether the old text imported `module` (exactly as the new text names it).
    fn imported_before(&self, module: &str) -> bool {
        self.old_imports
            .get_or_init(|| match (Lang::of_path(self.path), self.before) {
                (Some(lang), Some(before)) => {
                    lang.imports(before).into_iter().map(|(_, m)| m).collect()
                }
                _ => Set::default(),
            })
            .contains(module)
    }
}

impl Compiled {
    /// Compile `rule`; `Err` says which glob or pattern does not compile.
    pub fn new(rule: CodeRule) -> Result<Compiled, String> {
        let paths = rule.paths.as_deref().map(rule_globs).transpose()?;
        let with = match &rule.kind {
            Kind::RequireCoChange { with } => Some(rule_globs(with)?),
            _ => None,
        };
        let regex = match &rule.kind {
            Kind::ForbidPattern { pattern } => Some(compile_pattern(pattern, Haystack::Lines)?),
            Kind::RequirePattern { pattern } => Some(compile_pattern(pattern, Haystack::File)?),
            _ => None,
        };
        Ok(Compiled {
            rule,
            paths: OnceLock::from(paths),
            with: OnceLock::from(with),
            regex: OnceLock::from(regex),
            // Compiled already: nothing to spare.
            prefilter: OnceLock::from(Prefilter::default()),
        })
    }

    /// A rule [`Compiled::new`] accepted before (the cached governing index holds
    /// such rules), compiled piece by piece on first use. Should a glob or the
    /// pattern not compile after all, it matches nothing.
    pub fn deferred(rule: CodeRule) -> Compiled {
        Compiled::deferred_with(rule, None)
    }

    /// [`Compiled::deferred`] with the pattern's [`Prefilter`] as
    /// [`Compiled::pattern_prefilter`] gave it before.
    pub fn deferred_with(rule: CodeRule, prefilter: Option<Prefilter>) -> Compiled {
        Compiled {
            rule,
            paths: OnceLock::new(),
            with: OnceLock::new(),
            regex: OnceLock::new(),
            prefilter: prefilter.map_or_else(OnceLock::new, OnceLock::from),
        }
    }

    /// The [`Prefilter`] of a pattern rule's pattern, to keep with the rule;
    /// None for the other kinds.
    pub fn pattern_prefilter(&self) -> Option<Prefilter> {
        match &self.rule.kind {
            Kind::ForbidPattern { pattern } | Kind::RequirePattern { pattern } => {
                Some(shared_prefilter(pattern))
            }
            _ => None,
        }
    }

    fn paths(&self) -> Option<&Globs> {
        self.paths
            .get_or_init(|| accepted_rule_globs(self.rule.paths.as_deref()?))
            .as_ref()
    }

    fn with(&self) -> Option<&Globs> {
        self.with
            .get_or_init(|| match &self.rule.kind {
                Kind::RequireCoChange { with } => accepted_rule_globs(with),
                _ => None,
            })
            .as_ref()
    }

    /// Literals one of which every match of the rule's pattern starts with
    /// (`None`: no such short list): a text holding none of them cannot match,
    /// and the pattern is not compiled for it.
    fn literals(&self) -> Option<&[Vec<u8>]> {
        self.prefilter().literals.as_deref()
    }

    fn prefilter(&self) -> &Prefilter {
        self.prefilter.get_or_init(|| match &self.rule.kind {
            Kind::ForbidPattern { pattern } | Kind::RequirePattern { pattern } => {
                shared_prefilter(pattern)
            }
            _ => Prefilter::default(),
        })
    }

    /// Whether `text` matches the rule's pattern: a literal one without
    /// compiling it. `None`: the pattern does not compile.
    fn is_match(&self, text: &str) -> Option<bool> {
        match &self.prefilter().exact {
            Some(exact) => Some(exact.is_match(text)),
            None => self.regex().map(|regex| regex.is_match(text)),
        }
    }

    /// Whether `text` may match the rule's pattern, by its literals alone.
    fn may_match_text(&self, text: &str) -> bool {
        self.literals().is_none_or(|literals| {
            literals
                .iter()
                .any(|literal| crate::text::find::find(text.as_bytes(), literal).is_some())
        })
    }

    fn regex(&self) -> Option<&Regex> {
        self.regex
            .get_or_init(|| match &self.rule.kind {
                Kind::ForbidPattern { pattern } => shared_pattern(pattern, Haystack::Lines),
                Kind::RequirePattern { pattern } => shared_pattern(pattern, Haystack::File),
                _ => None,
            })
            .as_ref()
    }

    /// Whether the rule applies to the repository-relative `path`: its `paths`
    /// match it, or without `paths` the ADR governs it (`governed`).
    pub fn covers(&self, path: &str, governed: bool) -> bool {
        match &self.rule.paths {
            Some(list) => may_match(list, path) && self.paths().is_some_and(|g| g.is_match(path)),
            None => governed,
        }
    }

    /// Whether the path is one of the `with` paths of a `require_co_change`.
    pub fn is_companion(&self, path: &str) -> bool {
        match &self.rule.kind {
            Kind::RequireCoChange { with } => {
                may_match(with, path) && self.with().is_some_and(|g| g.is_match(path))
            }
            _ => false,
        }
    }

    /// Whether any of `paths` is matched by the rule's own `paths` globs (`None`
    /// when it has none).
    pub fn paths_match_any<'a>(&self, mut paths: impl Iterator<Item = &'a str>) -> Option<bool> {
        self.rule.paths.as_ref()?;
        let globs = self.paths()?;
        Some(paths.any(|p| globs.is_match(p)))
    }

    /// The violations of the rule in the change of one file at `path`.
    /// `require_co_change` and `llm_review` judge a change set, not a file: none here.
    pub fn check_file(&self, path: &str, before: Option<&str>, after: Option<&str>) -> Vec<Hit> {
        self.check_change(&FileChange::new(path, before, after))
    }

    /// [`Compiled::check_file`] on a change read once for all the rules that judge it.
    pub fn check_change(&self, change: &FileChange<'_>) -> Vec<Hit> {
        let Some(after) = change.after else {
            return Vec::new();
        };
        match &self.rule.kind {
            Kind::ForbidImport { modules } => change
                .imports()
                .map(|new| {
                    forbidden(Lang::of_path(change.path), modules, new, |m| {
                        change.imported_before(m)
                    })
                })
                .unwrap_or_default(),
            Kind::ForbidDependency { packages } => {
                manifest::added(change.path, change.before, after, packages)
                    .into_iter()
                    .map(|(line, name)| Hit {
                        line,
                        message: format!("adds the dependency `{name}`"),
                    })
                    .collect()
            }
            Kind::ForbidPath => {
                if change.before.is_none() {
                    vec![Hit {
                        line: None,
                        message: "creates a file where the rule allows none".to_owned(),
                    }]
                } else {
                    Vec::new()
                }
            }
            Kind::ForbidPattern { pattern } => {
                // No added line can hold a literal the whole file does not.
                if !self.may_match_text(after) {
                    return Vec::new();
                }
                let added = change.added_lines();
                if added.is_empty() || !added.iter().any(|(_, line)| self.may_match_text(line)) {
                    return Vec::new();
                }
                // A pattern that does not compile fails nothing.
                if self.prefilter().exact.is_none() && self.regex().is_none() {
                    return Vec::new();
                }
                added
                    .iter()
                    .filter(|(_, line)| self.is_match(line) == Some(true))
                    .map(|(i, _)| Hit {
                        line: Some(i + 1),
                        message: format!("adds a line matching `{pattern}`"),
                    })
                    .take(20)
                    .collect()
            }
            // A text without the pattern's literals fails it without compiling it.
            Kind::RequirePattern { pattern } => {
                // A text without the pattern's literals fails it uncompiled; a
                // pattern that does not compile fails nothing.
                let matched = if self.may_match_text(after) {
                    self.is_match(after)
                } else {
                    Some(false)
                };
                if matched == Some(false) {
                    vec![Hit {
                        line: None,
                        message: format!("does not match the required pattern `{pattern}`"),
                    }]
                } else {
                    Vec::new()
                }
            }
            Kind::RequireCoChange { .. } | Kind::LlmReview { .. } => Vec::new(),
        }
    }

    /// Whether an example text is flagged by the rule, read as a new file (for
    /// `forbid_import`, in any language whose import syntax it uses, unless the
    /// rule's `paths` name the file type).
    pub fn flags_example(&self, text: &str) -> bool {
        match &self.rule.kind {
            Kind::ForbidImport { modules } => {
                let langs = self.example_langs();
                !forbidden_imports(&langs, modules, None, text).is_empty()
            }
            Kind::ForbidDependency { packages } => manifest::MANIFESTS
                .iter()
                .any(|name| !manifest::added(name, None, text, packages).is_empty()),
            _ => !self.check_file("example", None, Some(text)).is_empty(),
        }
    }

    /// The languages an example is read in: those the `paths` globs name by
    /// extension, or all of them.
    fn example_langs(&self) -> Vec<Lang> {
        let mut langs: Vec<Lang> = self
            .rule
            .paths
            .iter()
            .flatten()
            .filter_map(|glob| Lang::of_path(glob.trim_end_matches('}')))
            .collect();
        langs.dedup();
        if langs.is_empty() {
            Lang::ALL.to_vec()
        } else {
            langs
        }
    }
}

/// A rule's pattern, compiled: multi-line, its size bounded.
/// What a pattern is matched against, which decides how it is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Haystack {
    /// The lines a change adds, each short: the NFA simulation alone answers
    /// at once, and the lazy DFA would cost more to set up than it saves.
    Lines,
    /// A whole file.
    File,
}

/// The literals every match of `pattern` starts with, when they are few and
/// none is empty (regex-syntax's prefix extractor on the pattern as it is
/// compiled; `\b` and `^` take no text and are passed over). Parsing is a
/// small part of compiling, and most added lines hold none of the literals.
#[cfg(test)]
fn required_literals(pattern: &str) -> Option<Vec<Vec<u8>>> {
    prefilter_of(pattern).literals
}

/// The [`Prefilter`] of `pattern`, from one parse.
fn prefilter_of(pattern: &str) -> Prefilter {
    let Ok(hir) = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .build()
        .parse(pattern)
    else {
        return Prefilter::default();
    };
    Prefilter {
        literals: literals_of(&hir),
        exact: exact_of(&hir),
    }
}

/// The pattern `hir` as an [`Exact`], when it is one. A literal of more than 1 KB
/// is left to the compiler (whose size limit it might exceed).
fn exact_of(hir: &regex_syntax::hir::Hir) -> Option<Exact> {
    use regex_syntax::hir::{HirKind, Look};
    let literal = |hir: &regex_syntax::hir::Hir| match hir.kind() {
        HirKind::Literal(literal) if literal.0.len() <= 1024 => Some(literal.0.to_vec()),
        _ => None,
    };
    match hir.kind() {
        HirKind::Literal(_) => literal(hir).map(Exact::Anywhere),
        HirKind::Concat(parts) => match parts.as_slice() {
            [start, rest] if matches!(start.kind(), HirKind::Look(Look::StartLF)) => {
                literal(rest).map(Exact::LineStart)
            }
            _ => None,
        },
        _ => None,
    }
}

fn literals_of(hir: &regex_syntax::hir::Hir) -> Option<Vec<Vec<u8>>> {
    use regex_syntax::hir::literal::Extractor;
    let seq = Extractor::new().extract(hir);
    let literals = seq.literals()?;
    (!literals.is_empty() && literals.len() <= 16 && literals.iter().all(|l| !l.is_empty()))
        .then(|| literals.iter().map(|l| l.as_bytes().to_vec()).collect())
}

/// [`prefilter_of`], once per pattern in the process (ten ADRs requiring the same
/// license header parse it once).
fn shared_prefilter(pattern: &str) -> Prefilter {
    type Shared = std::collections::HashMap<String, Prefilter, RandomState>;
    static SHARED: std::sync::Mutex<Option<Shared>> = std::sync::Mutex::new(None);
    if let Some(found) = SHARED
        .lock()
        .ok()
        .and_then(|shared| shared.as_ref()?.get(pattern).cloned())
    {
        return found;
    }
    let prefilter = prefilter_of(pattern);
    if let Ok(mut shared) = SHARED.lock() {
        shared
            .get_or_insert_with(Shared::default)
            .insert(pattern.to_owned(), prefilter.clone());
    }
    prefilter
}

/// [`compile_pattern`], once per pattern in the process: ADRs often repeat a
/// pattern (a license header, a banned call), and a compiled one is shared at
/// the cost of a reference count. `None` when it does not compile.
fn shared_pattern(pattern: &str, haystack: Haystack) -> Option<Regex> {
    type Shared = std::collections::HashMap<(String, Haystack), Option<Regex>, RandomState>;
    static SHARED: std::sync::Mutex<Option<Shared>> = std::sync::Mutex::new(None);
    let key = (pattern.to_owned(), haystack);
    if let Some(found) = SHARED
        .lock()
        .ok()
        .and_then(|shared| shared.as_ref()?.get(&key).cloned())
    {
        return found;
    }
    let compiled = compile_pattern(pattern, haystack).ok();
    if let Ok(mut shared) = SHARED.lock() {
        shared
            .get_or_insert_with(Shared::default)
            .insert(key, compiled.clone());
    }
    compiled
}

/// Compile a rule's pattern as the `regex` crate would (multi-line, its size
/// limit), for `is_match` only. Each engine of `regex_automata::meta` gives the
/// same answer; the choice only moves the cost between compiling and matching.
fn compile_pattern(pattern: &str, haystack: Haystack) -> Result<Regex, String> {
    let mut config = meta::Config::new()
        .nfa_size_limit(Some(PATTERN_SIZE_LIMIT))
        .onepass_size_limit(Some(PATTERN_SIZE_LIMIT))
        .which_captures(WhichCaptures::None);
    if let Haystack::Lines = haystack {
        config = config.hybrid(false).dfa(false).onepass(false);
    }
    meta::Builder::new()
        .syntax(syntax::Config::new().multi_line(true))
        .configure(config)
        .build(pattern)
        .map_err(|e| {
            // The `regex` crate's message shows where the pattern went wrong.
            let why = regex::RegexBuilder::new(pattern)
                .multi_line(true)
                .size_limit(PATTERN_SIZE_LIMIT)
                .build()
                .err()
                .map_or_else(|| e.to_string(), |e| e.to_string());
            format!("the pattern `{pattern}` does not compile: {why}")
        })
}

/// Imports of `modules` in `after` that `before` did not have, read in each of `langs`.
fn forbidden_imports(
    langs: &[Lang],
    modules: &[String],
    before: Option<&str>,
    after: &str,
) -> Vec<Hit> {
    let mut hits = Vec::new();
    for &lang in langs {
        let old: Set<String> = before
            .map(|b| lang.imports(b).into_iter().map(|(_, m)| m).collect())
            .unwrap_or_default();
        hits.extend(forbidden(Some(lang), modules, &lang.imports(after), |m| {
            old.contains(m)
        }));
    }
    hits
}

/// The imports of `new` (in `lang`) of `modules` that the old text did not
/// import (`imported_before`, asked only about a forbidden one).
fn forbidden(
    lang: Option<Lang>,
    modules: &[String],
    new: &[(usize, String)],
    imported_before: impl Fn(&str) -> bool,
) -> Vec<Hit> {
    let Some(lang) = lang else {
        return Vec::new();
    };
    new.iter()
        .filter_map(|(line, imported)| {
            let module = modules.iter().find(|m| lang.is_within(imported, m))?;
            if imported_before(imported) {
                return None;
            }
            Some(Hit {
                line: Some(*line),
                message: if imported == module {
                    format!("imports `{module}`")
                } else {
                    format!("imports `{imported}` (part of `{module}`)")
                },
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    /// A rule `r` of `kind` for every path, an error, without examples.
    fn plain(kind: Kind) -> CodeRule {
        CodeRule {
            id: "r".into(),
            kind,
            why: "w".into(),
            severity: Severity::Error,
            paths: None,
            examples: None,
        }
    }

    fn rule(kind: Kind, paths: Option<&[&str]>) -> Compiled {
        Compiled::new(CodeRule {
            paths: paths.map(|p| p.iter().map(|s| (*s).to_owned()).collect()),
            ..plain(kind)
        })
        .unwrap()
    }

    #[test]
    fn forbid_import_flags_new_imports_only() {
        let r = rule(
            Kind::ForbidImport {
                modules: vec!["requests".into()],
            },
            None,
        );
        let hits = r.check_file("a.py", None, Some("import os\nimport requests.adapters\n"));
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].line, Some(2));
        assert!(hits[0].message.contains("requests.adapters"));
        // Already imported before: not this change's doing.
        let old = "import requests\n";
        assert!(
            r.check_file("a.py", Some(old), Some("import requests\nx = 1\n"))
                .is_empty()
        );
        // Not a language with imports, or deleted.
        assert!(
            r.check_file("a.txt", None, Some("import requests\n"))
                .is_empty()
        );
        assert!(r.check_file("a.py", Some(old), None).is_empty());
        assert!(r.flags_example("import requests"));
        assert!(!r.flags_example("import json"));
    }

    #[test]
    fn a_literal_pattern_is_matched_without_compiling_and_as_the_regex_does() {
        let exact = |p: &str| prefilter_of(p).exact;
        assert_eq!(exact("TODO"), Some(Exact::Anywhere(b"TODO".to_vec())));
        assert_eq!(
            exact("^# License: "),
            Some(Exact::LineStart(b"# License: ".to_vec()))
        );
        assert_eq!(exact(r"\(x\)"), Some(Exact::Anywhere(b"(x)".to_vec())));
        for pattern in [r"\bx", "(?i)todo", "a|b", "x$", "^", "", "a+", "(a)"] {
            assert_eq!(exact(pattern), None, "{pattern}");
        }
        let texts = [
            "",
            "# License: MIT\n",
            "x\n# License: MIT",
            "x # License: MIT\n",
            "\r\n# License: x",
            "TODO",
            "a TODO b\nc",
            "(x)",
        ];
        for pattern in ["^# License: ", "TODO", r"\(x\)", "^TODO"] {
            let exact = exact(pattern).unwrap();
            for haystack in [Haystack::Lines, Haystack::File] {
                let regex = compile_pattern(pattern, haystack).unwrap();
                for text in texts {
                    assert_eq!(
                        exact.is_match(text),
                        regex.is_match(text),
                        "{pattern:?} on {text:?}"
                    );
                }
            }
        }
        let license = Compiled::deferred(plain(Kind::RequirePattern {
            pattern: "^# License: ".into(),
        }));
        assert!(
            license
                .check_file("a.py", None, Some("# License: MIT\n"))
                .is_empty()
        );
        assert_eq!(
            license
                .check_file("a.py", None, Some("x # License: MIT\n"))
                .len(),
            1
        );
        assert!(license.regex.get().is_none(), "a literal is never compiled");
    }

    #[test]
    fn the_literals_of_a_pattern_spare_its_compilation_and_judge_alike() {
        assert_eq!(
            required_literals(r"\bcall_1_2\("),
            Some(vec![b"call_1_2(".to_vec()])
        );
        assert_eq!(
            required_literals("^# License: "),
            Some(vec![b"# License: ".to_vec()])
        );
        assert_eq!(
            required_literals(r"(?i)ab"),
            Some(vec![
                b"AB".to_vec(),
                b"Ab".to_vec(),
                b"aB".to_vec(),
                b"ab".to_vec()
            ])
        );
        // A pattern that may match without text, or starts with a wide class: none.
        for pattern in ["x*", r"\w+", "(", ""] {
            assert_eq!(required_literals(pattern), None, "{pattern}");
        }
        // A rule from the cache (deferred) judges as one compiled at once.
        for (kind, before, after) in [
            (
                Kind::ForbidPattern {
                    pattern: r"\bcall_1_2\(".into(),
                },
                "x = 1\n",
                "x = 1\ny = call_1_2(3)\nrecall_1_2(4)\n",
            ),
            (
                Kind::ForbidPattern {
                    pattern: r"(?i)todo".into(),
                },
                "",
                "# ToDo: later\n",
            ),
            (
                Kind::RequirePattern {
                    pattern: "^# License: ".into(),
                },
                "",
                "x = 1  # License: none\n",
            ),
            (
                Kind::RequirePattern {
                    pattern: "^# License: ".into(),
                },
                "",
                "# License: MIT\n",
            ),
        ] {
            let rule = plain(kind);
            let now = Compiled::new(rule.clone()).unwrap();
            let later = Compiled::deferred(rule);
            assert_eq!(
                now.check_file("a.py", Some(before), Some(after)),
                later.check_file("a.py", Some(before), Some(after)),
                "{after}"
            );
        }
        let later = Compiled::deferred(plain(Kind::ForbidPattern {
            pattern: r"\bcall_1_2\(".into(),
        }));
        assert!(
            later
                .check_file("a.py", None, Some("x = other(1)\n"))
                .is_empty()
        );
        assert!(
            later.regex.get().is_none(),
            "no line holds the literal: not compiled"
        );
    }

    #[test]
    fn patterns_judge_added_lines_and_whole_files() {
        let forbid = rule(
            Kind::ForbidPattern {
                pattern: r"\bprintln!".into(),
            },
            Some(&["src/**"]),
        );
        let old = "fn a() {\n    println!(\"old\");\n}\n";
        let new = "fn a() {\n    println!(\"old\");\n    println!(\"new\");\n}\n";
        let hits = forbid.check_file("src/a.rs", Some(old), Some(new));
        assert_eq!(hits.iter().map(|h| h.line).collect::<Vec<_>>(), [Some(3)]);
        assert!(forbid.covers("src/x/a.rs", false));
        assert!(!forbid.covers("tests/a.rs", true));
        let require = rule(
            Kind::RequirePattern {
                pattern: "^// SPDX-License-Identifier:".into(),
            },
            None,
        );
        assert_eq!(
            require
                .check_file("a.rs", None, Some("fn main() {}\n"))
                .len(),
            1
        );
        assert!(
            require
                .check_file("a.rs", None, Some("// SPDX-License-Identifier: MIT\n"))
                .is_empty()
        );
        assert!(!require.covers("a.rs", false));
        assert!(require.covers("a.rs", true));
    }

    #[test]
    fn forbid_path_flags_new_files() {
        let r = rule(Kind::ForbidPath, Some(&["legacy/**"]));
        assert_eq!(r.check_file("legacy/a.rs", None, Some("")).len(), 1);
        assert!(r.check_file("legacy/a.rs", Some(""), Some("x")).is_empty());
    }

    #[test]
    fn a_deferred_rule_judges_as_a_compiled_one_and_compiles_on_use() {
        let code = |kind: Kind, paths: Option<&[&str]>| CodeRule {
            id: "r".into(),
            kind,
            why: "w".into(),
            severity: Severity::Error,
            paths: paths.map(|p| p.iter().map(|s| (*s).to_owned()).collect()),
            examples: None,
        };
        let forbid = code(
            Kind::ForbidPattern {
                pattern: r"\bprintln!".into(),
            },
            Some(&["./src/**/*.rs", "lib/{a,b}/*.rs"]),
        );
        let eager = Compiled::new(forbid.clone()).unwrap();
        let lazy = Compiled::deferred(forbid);
        assert!(lazy.regex.get().is_none() && lazy.paths.get().is_none());
        // A path outside every glob's literal start compiles nothing.
        assert!(!lazy.covers("tests/a.rs", true));
        assert!(lazy.paths.get().is_none());
        for path in ["src/x/a.rs", "lib/b/c.rs", "lib/c/c.rs", "src/a.py"] {
            assert_eq!(
                lazy.covers(path, false),
                eager.covers(path, false),
                "{path}"
            );
        }
        let new = "fn a() {\n    println!(\"new\");\n}\n";
        assert_eq!(
            lazy.check_file("src/a.rs", Some("fn a() {\n}\n"), Some(new)),
            eager.check_file("src/a.rs", Some("fn a() {\n}\n"), Some(new))
        );
        assert!(lazy.regex.get().is_some());
        // Nothing added: the pattern is not even compiled.
        let quiet = Compiled::deferred(code(
            Kind::ForbidPattern {
                pattern: "x".into(),
            },
            None,
        ));
        assert!(
            quiet
                .check_file("a.rs", Some("x\n"), Some("x\n"))
                .is_empty()
        );
        assert!(quiet.regex.get().is_none());
        // What does not compile after all matches nothing, and does not panic.
        let broken = Compiled::deferred(code(
            Kind::ForbidPattern {
                pattern: "(".into(),
            },
            Some(&["src/["]),
        ));
        assert!(!broken.covers("src/[", true));
        assert!(broken.check_file("src/a", None, Some("(\n")).is_empty());
        assert_eq!(literal_prefix("./src/db/**"), "src/db/");
        assert_eq!(literal_prefix("{a,b}/x"), "");
        assert_eq!(literal_prefix("docs/x.md"), "docs/x.md");
    }

    #[test]
    fn one_file_change_serves_every_rule() {
        let a = rule(
            Kind::ForbidImport {
                modules: vec!["requests".into()],
            },
            None,
        );
        let b = rule(
            Kind::ForbidImport {
                modules: vec!["urllib3".into()],
            },
            None,
        );
        let change = FileChange::new(
            "a.py",
            Some("import urllib3\n"),
            Some("import urllib3\nimport requests\n"),
        );
        assert_eq!(a.check_change(&change)[0].line, Some(2));
        assert!(b.check_change(&change).is_empty(), "imported before");
        assert!(change.imports.get().is_some());
    }

    /// Lines and whole files are matched by differently compiled engines: both
    /// answer as the `regex` crate does.
    #[test]
    fn both_compilations_answer_as_the_regex_crate() {
        let patterns = [
            r"requests\.get\(",
            r"^\s*print\(",
            r"(?i)TODO|FIXME",
            r"\bunsafe\b",
            r"^$",
            r"[\p{Greek}]+",
            r"foo$",
            r"\d{3,}-\w+",
        ];
        let texts = [
            "requests.get(url)",
            "  print(x)",
            "todo: later",
            "let x = unsafe { y };",
            "",
            "alpha αβγ",
            "a foo\nbar",
            "call 1234-abc",
            "nothing here\nat all",
        ];
        for pattern in patterns {
            let reference = regex::RegexBuilder::new(pattern)
                .multi_line(true)
                .build()
                .unwrap();
            for haystack in [Haystack::Lines, Haystack::File] {
                let ours = compile_pattern(pattern, haystack).unwrap();
                for text in texts {
                    assert_eq!(
                        ours.is_match(text),
                        reference.is_match(text),
                        "{pattern:?} on {text:?} ({haystack:?})"
                    );
                }
            }
        }
    }

    #[test]
    fn a_bad_pattern_or_glob_does_not_compile() {
        let bad = Compiled::new(CodeRule {
            id: "r".into(),
            kind: Kind::ForbidPattern {
                pattern: "(".into(),
            },
            why: "w".into(),
            severity: Severity::Error,
            paths: None,
            examples: None,
        });
        let why = bad.unwrap_err();
        assert!(why.starts_with("the pattern `(` does not compile: regex parse error:"));
        assert!(why.contains("unclosed group"), "{why}");
        let huge = Compiled::new(CodeRule {
            id: "r".into(),
            kind: Kind::ForbidPattern {
                pattern: "a{1000}{1000}".into(),
            },
            why: "w".into(),
            severity: Severity::Error,
            paths: None,
            examples: None,
        });
        assert!(huge.is_err());
        let glob = Compiled::new(CodeRule {
            id: "r".into(),
            kind: Kind::ForbidPath,
            why: "w".into(),
            severity: Severity::Error,
            paths: Some(vec!["src/[".into()]),
            examples: None,
        });
        assert!(glob.unwrap_err().contains("bad glob"));
    }
}
