//! The rules engine: a registry of every built-in rule and one file per rule family.
//!
//! Rules read the parsed [`Adr`] and a [`Context`]; they never know whether the
//! CLI, the Claude Code hook, the git pre-commit hook or the approval called them.
//!
//! Each rule is declared once with `declare_rules!`: its doc comment is the text
//! `helix-gate explain` prints, and the family's `RULES` slice that [`registry`]
//! collects is generated from the same declarations, so a rule cannot exist without
//! its documentation or be documented without being registered.

/// Declare a family's rules: one `pub const NAME: RuleMeta` per rule, whose doc
/// comment (`## What it does`, `## Why`, optionally `## Example` and `## Fix`)
/// becomes both its rustdoc and its `explain` text, plus `pub const RULES`, the
/// family's rules in declaration order (the order `helix-gate rules` lists them).
///
/// ```text
/// declare_rules! {
///     /// ## What it does
///     /// ...
///     pub const NAME {
///         id: "kebab-case-id",
///         severity: Error,
///         category: FrontMatter,
///         summary: "one line for `helix-gate rules`",
///     }
/// }
/// ```
///
/// Code blocks in the docs carry a language (`yaml`, `markdown`), so rustdoc never
/// tries to compile them as Rust doctests.
macro_rules! declare_rules {
    ($(
        $(#[doc = $doc:literal])+
        $vis:vis const $name:ident {
            id: $id:literal,
            severity: $severity:ident,
            category: $category:ident,
            summary: $summary:literal $(,)?
        }
    )+) => {
        $(
            $(#[doc = $doc])+
            // Not `expect`: most rule docs have nothing for the lint to find.
            #[allow(
                clippy::doc_markdown,
                reason = "the doc is the `explain` text, printed verbatim: \
                          backticks would change what users read"
            )]
            $vis const $name: $crate::rules::RuleMeta = $crate::rules::RuleMeta {
                id: $id,
                severity: $crate::diagnostic::Severity::$severity,
                category: $crate::rules::Category::$category,
                summary: $summary,
                doc: $crate::rules::RuleDoc::new(concat!($($doc, "\n"),+)),
            };
        )+

        /// This family's rules, in the order `helix-gate rules` lists them.
        pub const RULES: &[&$crate::rules::RuleMeta] = &[$(&$name),+];
    };
}

pub mod across;
pub mod commit;
pub mod concept;
pub mod contextual;
pub mod document;
pub mod enforcement;
pub mod file_refs;
pub mod front_matter;
pub mod gate;
pub mod index;
pub mod input;
pub mod lifecycle;
pub mod numbering;
pub mod phases;
pub mod sections;
pub mod selection;
pub mod template;

use std::fmt;
use std::path::Path;

use crate::adr::Adr;
use crate::config::RuleSet;
use crate::diagnostic::{Finding, Severity};

/// A built-in rule's identity and documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleMeta {
    /// Stable kebab-case id; never reused.
    pub id: &'static str,
    pub severity: Severity,
    /// What the rule checks; the hook's feedback names passing checks by it.
    pub category: Category,
    /// One line for `helix-gate rules`.
    pub summary: &'static str,
    /// Full documentation for `helix-gate explain`: what it does, why, example, fix.
    pub doc: RuleDoc,
}

impl RuleMeta {
    pub fn finding(&self, message: impl Into<String>) -> Finding {
        Finding::new(self.id, self.severity, message)
    }
}

/// What part of an ADR, or of the process around it, a rule checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Category {
    /// The file itself, before parsing: size, encoding, content.
    FileContent,
    FrontMatter,
    RequiredSections,
    AcceptanceCriteria,
    /// The paths in `files.create`, `files.modify` and `files.docs`.
    FileReferences,
    /// Several ADRs checked together.
    AcrossAdrs,
    /// The ADR compared with its concept document.
    Concept,
    /// `INDEX.md` compared with the ADR directory.
    Index,
    /// Numbers and succession links across the ADR directory.
    Numbering,
    /// The gates themselves: the answer's STEP marker, the reviewer's verdict, and
    /// failures of the tool or the reviewer.
    Gate,
    /// The HELIX phase plan (`phases.yaml`) and its quality gates.
    Phases,
    /// The rules an ADR states about code (its `## Enforcement` section).
    Enforcement,
}

impl Category {
    /// The name shown to people (the hook's PASSED line).
    pub fn label(self) -> &'static str {
        match self {
            Category::FileContent => "file content",
            Category::FrontMatter => "front matter",
            Category::RequiredSections => "required sections",
            Category::AcceptanceCriteria => "acceptance criteria",
            Category::FileReferences => "file references",
            Category::AcrossAdrs => "rules across ADRs",
            Category::Concept => "concept coverage",
            Category::Index => "ADR index",
            Category::Numbering => "ADR numbering",
            Category::Gate => "gate",
            Category::Phases => "phase plan",
            Category::Enforcement => "enforcement rules",
        }
    }
}

/// A rule's documentation as captured from its doc comment: every line still
/// carries the one space that follows `///`. [`fmt::Display`] gives the Markdown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleDoc(&'static str);

impl RuleDoc {
    /// Wrap doc-attribute text (lines joined with `\n`); used by `declare_rules!`.
    pub const fn new(raw: &'static str) -> RuleDoc {
        RuleDoc(raw)
    }

    /// The lines of the Markdown text.
    pub fn lines(&self) -> impl Iterator<Item = &'static str> {
        let raw: &'static str = self.0;
        raw.trim_end()
            .lines()
            .map(|line| line.strip_prefix(' ').unwrap_or(line))
    }

    /// Whether the documentation has the `## <title>` section.
    pub fn has_section(&self, title: &str) -> bool {
        self.lines()
            .any(|line| line.strip_prefix("## ").is_some_and(|t| t.trim() == title))
    }
}

impl fmt::Display for RuleDoc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, line) in self.lines().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            f.write_str(line)?;
        }
        Ok(())
    }
}

/// Every built-in rule, in the order `helix-gate rules` lists them.
pub fn registry() -> Vec<&'static RuleMeta> {
    [
        input::RULES,
        front_matter::RULES,
        lifecycle::RULES,
        document::RULES,
        sections::RULES,
        template::RULES,
        file_refs::RULES,
        enforcement::RULES,
        across::RULES,
        concept::RULES,
        index::RULES,
        numbering::RULES,
        gate::RULES,
        commit::RULES,
        phases::RULES,
    ]
    .concat()
}

/// The built-in rule with `id`.
pub fn find(id: &str) -> Option<&'static RuleMeta> {
    registry().into_iter().find(|rule| rule.id == id)
}

/// Answers "does this repository-relative path exist?" for the file-reference rules:
/// the working tree for `validate` and the hook, the index for `pre-commit`.
pub trait RepoFiles: Sync {
    fn exists(&self, rel: &str) -> bool;

    /// [`RepoFiles::exists`], plus what the caller knows of a path it does not hold: the
    /// rules word their finding with it and never need to know who the caller is.
    fn presence(&self, rel: &str) -> Presence {
        if self.exists(rel) {
            Presence::Present
        } else {
            Presence::Missing
        }
    }

    /// Whether any file the caller holds satisfies `matches` (`None`: the caller
    /// cannot list its files, so the question stays open).
    fn any_path(&self, matches: &dyn Fn(&str) -> bool) -> Option<bool> {
        let _ = matches;
        None
    }
}

/// Whether a path is part of what is checked, as [`RepoFiles::presence`] answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Present,
    /// Nowhere the caller can see.
    Missing,
    /// Not part of what is checked, though the caller sees it elsewhere (pre-commit: in the
    /// working tree, not staged). `message` completes "`path` ..." and `hint` says how to
    /// bring it in.
    MissingHere {
        message: &'static str,
        hint: &'static str,
    },
}

/// The working tree below `root`.
pub struct WorkTree<'a> {
    root: &'a Path,
    /// The index, read at the first path the work tree lacks, then kept.
    tracked: std::sync::OnceLock<Option<crate::git::Tracked>>,
}

impl<'a> WorkTree<'a> {
    pub fn new(root: &'a Path) -> WorkTree<'a> {
        WorkTree {
            root,
            tracked: std::sync::OnceLock::new(),
        }
    }
}

impl RepoFiles for WorkTree<'_> {
    /// In the work tree, or tracked by git though the work tree lacks it (a sparse
    /// checkout, skip-worktree): git is asked only for a path that is missing, and
    /// the repository and its index are opened once for all of them (an ADR that
    /// names forty files still to be written opened them forty times).
    fn exists(&self, rel: &str) -> bool {
        std::fs::symlink_metadata(self.root.join(rel)).is_ok()
            || self
                .tracked
                .get_or_init(|| crate::git::Tracked::open(self.root))
                .as_ref()
                .is_some_and(|tracked| tracked.tracks(rel))
    }

    /// The files git tracks (a work tree outside git cannot say).
    fn any_path(&self, matches: &dyn Fn(&str) -> bool) -> Option<bool> {
        self.tracked
            .get_or_init(|| crate::git::Tracked::open(self.root))
            .as_ref()
            .map(|tracked| tracked.any(matches))
    }
}

/// What a per-file rule may know besides the document.
pub struct Context<'a> {
    /// The file's path (its name is compared with `adr_id`).
    pub path: &'a Path,
    pub rules: &'a RuleSet,
    pub repo: &'a dyn RepoFiles,
}

/// Run every per-file rule on one parsed ADR.
pub fn check(adr: &Adr, ctx: &Context<'_>) -> Vec<Finding> {
    let mut findings = Vec::new();
    front_matter::check(adr, ctx, &mut findings);
    document::check(adr, ctx, &mut findings);
    sections::check(adr, ctx, &mut findings);
    template::check(adr, ctx, &mut findings);
    contextual::check(adr, ctx, &mut findings);
    file_refs::check(adr, ctx, &mut findings);
    enforcement::check(adr, ctx, &mut findings);
    findings
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use std::collections::BTreeSet;

    /// A fake repository that holds exactly the listed paths.
    pub(crate) struct Files(pub BTreeSet<String>);

    impl RepoFiles for Files {
        fn exists(&self, rel: &str) -> bool {
            self.0.contains(rel)
        }

        fn any_path(&self, matches: &dyn Fn(&str) -> bool) -> Option<bool> {
            Some(self.0.iter().any(|p| matches(p)))
        }
    }

    pub(crate) fn run(text: &str, name: &str, files: &[&str]) -> Vec<Finding> {
        let rules = RuleSet::builtin().expect("builtin rules");
        let repo = Files(files.iter().map(|s| (*s).to_owned()).collect());
        let adr = Adr::parse(text);
        check(
            &adr,
            &Context {
                path: Path::new(name),
                rules: &rules,
                repo: &repo,
            },
        )
    }

    pub(crate) fn ids(findings: &[Finding]) -> Vec<&str> {
        findings.iter().map(|f| f.rule.as_str()).collect()
    }

    /// A complete, passing ADR (minor change) used as the base of rule tests.
    pub(crate) const GOOD: &str = include_str!("../../tests/fixtures/good/001-minimal-valid.md");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_ids_are_unique_kebab_case_and_documented() {
        let all = registry();
        let mut ids = std::collections::BTreeSet::new();
        for rule in &all {
            assert!(ids.insert(rule.id), "duplicate id {}", rule.id);
            assert!(
                rule.id
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                rule.id
            );
            for section in ["What it does", "Why", "Fix"] {
                assert!(
                    rule.doc.has_section(section),
                    "{} lacks the section {section}",
                    rule.id
                );
            }
            assert!(!rule.summary.is_empty(), "{} lacks a summary", rule.id);
            assert_eq!(find(rule.id), Some(*rule));
        }
        let contextual = RuleSet::builtin().unwrap();
        for rule in &contextual.contextual {
            assert!(!ids.contains(rule.id.as_str()), "{} clashes", rule.id);
        }
    }

    #[test]
    fn doc_text_is_the_doc_comment_without_the_space_after_slashes() {
        let doc = front_matter::MISSING.doc.to_string();
        assert!(
            doc.starts_with("## What it does\nRequires the file to start"),
            "{doc}"
        );
        assert!(doc.contains("files:\n  create: []\n"), "{doc}");
        assert!(doc.ends_with("---\n```"), "{doc}");
    }

    #[test]
    fn good_fixture_is_clean() {
        let findings = testing::run(testing::GOOD, "adr/001-minimal-valid.md", &["src/lib.rs"]);
        assert!(findings.is_empty(), "{findings:#?}");
    }
}
