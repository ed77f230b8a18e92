//! A code rule, compiled once, run on one file's change: what was there before
//! (`None`: a new file) and what is there now (`None`: deleted).
//!
//! Rules judge what the change does, not what the file already held: an import,
//! a pattern's line or a dependency that was there before is not this change's
//! doing (an accepted ADR does not make every old file fail at its next edit).
//! A line counts as added when no line of the old text equals it (leading and
//! trailing blanks aside); an import when the old text did not import that module.

use std::collections::HashSet;

use regex::Regex;

use super::imports::Lang;
use super::manifest;
use super::model::{CodeRule, Kind};
use crate::config::settings::{Globs, build_globs};

/// Size limit of a compiled pattern: a hand-written rule stays far below it,
/// and `x{1000}{1000}` does not build a huge automaton. The `regex` crate
/// matches in time linear in the text whatever the pattern.
const PATTERN_SIZE_LIMIT: usize = 1 << 20;

/// A [`CodeRule`] with its globs and pattern compiled.
#[derive(Debug, Clone)]
pub struct Compiled {
    pub rule: CodeRule,
    paths: Option<Globs>,
    with: Option<Globs>,
    regex: Option<Regex>,
}

/// One violation of a rule in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// 1-based line in the new text, when the violation has one.
    pub line: Option<usize>,
    pub message: String,
}

impl Compiled {
    /// Compile `rule`; `Err` says which glob or pattern does not compile.
    pub fn new(rule: CodeRule) -> Result<Compiled, String> {
        let globs = |list: &[String]| {
            let list: Vec<String> = list
                .iter()
                .map(|g| g.trim_start_matches("./").to_owned())
                .collect();
            build_globs(&list).map_err(|e| e.to_string())
        };
        let paths = rule.paths.as_deref().map(globs).transpose()?;
        let with = match &rule.kind {
            Kind::RequireCoChange { with } => Some(globs(with)?),
            _ => None,
        };
        let regex = match &rule.kind {
            Kind::ForbidPattern { pattern } | Kind::RequirePattern { pattern } => Some(
                regex::RegexBuilder::new(pattern)
                    .multi_line(true)
                    .size_limit(PATTERN_SIZE_LIMIT)
                    .build()
                    .map_err(|e| format!("the pattern `{pattern}` does not compile: {e}"))?,
            ),
            _ => None,
        };
        Ok(Compiled {
            rule,
            paths,
            with,
            regex,
        })
    }

    /// Whether the rule applies to the repository-relative `path`: its `paths`
    /// match it, or without `paths` the ADR governs it (`governed`).
    pub fn covers(&self, path: &str, governed: bool) -> bool {
        match &self.paths {
            Some(globs) => globs.is_match(path),
            None => governed,
        }
    }

    /// Whether the path is one of the `with` paths of a `require_co_change`.
    pub fn is_companion(&self, path: &str) -> bool {
        self.with.as_ref().is_some_and(|g| g.is_match(path))
    }

    /// Whether any of `paths` is matched by the rule's own `paths` globs (`None`
    /// when it has none).
    pub fn paths_match_any<'a>(&self, mut paths: impl Iterator<Item = &'a str>) -> Option<bool> {
        let globs = self.paths.as_ref()?;
        Some(paths.any(|p| globs.is_match(p)))
    }

    /// The violations of the rule in the change of one file at `path`.
    /// `require_co_change` and `llm_review` judge a change set, not a file: none here.
    pub fn check_file(&self, path: &str, before: Option<&str>, after: Option<&str>) -> Vec<Hit> {
        let Some(after) = after else {
            return Vec::new();
        };
        match &self.rule.kind {
            Kind::ForbidImport { modules } => {
                let langs: Vec<Lang> = match Lang::of_path(path) {
                    Some(lang) => vec![lang],
                    None => return Vec::new(),
                };
                forbidden_imports(&langs, modules, before, after)
            }
            Kind::ForbidDependency { packages } => manifest::added(path, before, after, packages)
                .into_iter()
                .map(|(line, name)| Hit {
                    line,
                    message: format!("adds the dependency `{name}`"),
                })
                .collect(),
            Kind::ForbidPath => {
                if before.is_none() {
                    vec![Hit {
                        line: None,
                        message: "creates a file where the rule allows none".to_owned(),
                    }]
                } else {
                    Vec::new()
                }
            }
            Kind::ForbidPattern { pattern } => {
                let Some(regex) = &self.regex else {
                    return Vec::new();
                };
                let old: HashSet<&str> = before
                    .map(|b| b.lines().map(str::trim).collect())
                    .unwrap_or_default();
                after
                    .lines()
                    .enumerate()
                    .filter(|(_, line)| !old.contains(line.trim()) && regex.is_match(line))
                    .map(|(i, _)| Hit {
                        line: Some(i + 1),
                        message: format!("adds a line matching `{pattern}`"),
                    })
                    .take(20)
                    .collect()
            }
            Kind::RequirePattern { pattern } => match &self.regex {
                Some(regex) if !regex.is_match(after) => vec![Hit {
                    line: None,
                    message: format!("does not match the required pattern `{pattern}`"),
                }],
                _ => Vec::new(),
            },
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

/// Imports of `modules` in `after` that `before` did not have, read in each of `langs`.
fn forbidden_imports(
    langs: &[Lang],
    modules: &[String],
    before: Option<&str>,
    after: &str,
) -> Vec<Hit> {
    let mut hits = Vec::new();
    for &lang in langs {
        let old: HashSet<String> = before
            .map(|b| lang.imports(b).into_iter().map(|(_, m)| m).collect())
            .unwrap_or_default();
        for (line, imported) in lang.imports(after) {
            if old.contains(&imported) {
                continue;
            }
            if let Some(module) = modules.iter().find(|m| lang.is_within(&imported, m)) {
                hits.push(Hit {
                    line: Some(line),
                    message: if imported == *module {
                        format!("imports `{module}`")
                    } else {
                        format!("imports `{imported}` (part of `{module}`)")
                    },
                });
            }
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Severity;

    fn rule(kind: Kind, paths: Option<&[&str]>) -> Compiled {
        Compiled::new(CodeRule {
            id: "r".into(),
            kind,
            why: "w".into(),
            severity: Severity::Error,
            paths: paths.map(|p| p.iter().map(|s| (*s).to_owned()).collect()),
            examples: None,
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
        assert!(bad.unwrap_err().contains("does not compile"));
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
