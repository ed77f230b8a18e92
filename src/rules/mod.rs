//! The rules engine: a registry of every built-in rule and one file per rule family.
//!
//! Rules read the parsed [`Adr`] and a [`Context`]; they never know whether the
//! CLI, the Claude Code hook, the git pre-commit hook or the approval called them.

pub mod across;
pub mod concept;
pub mod contextual;
pub mod file_refs;
pub mod front_matter;
pub mod input;
pub mod sections;

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
    /// One line for `helix-gate rules`.
    pub summary: &'static str,
    /// Full documentation for `helix-gate explain`: what it does, why, example, fix.
    pub doc: &'static str,
}

impl RuleMeta {
    pub fn finding(&self, message: impl Into<String>) -> Finding {
        Finding::new(self.id, self.severity, message)
    }
}

/// Every built-in rule, in the order `helix-gate rules` lists them.
pub fn registry() -> Vec<&'static RuleMeta> {
    let mut all = Vec::new();
    all.extend_from_slice(input::RULES);
    all.extend_from_slice(front_matter::RULES);
    all.extend_from_slice(sections::RULES);
    all.extend_from_slice(file_refs::RULES);
    all.extend_from_slice(across::RULES);
    all.extend_from_slice(concept::RULES);
    all.extend_from_slice(crate::adr_dir::RULES);
    all
}

/// Answers "does this repository-relative path exist?" for the file-reference rules:
/// the working tree for `validate` and the hook, the index for `pre-commit`.
pub trait RepoFiles: Sync {
    fn exists(&self, rel: &str) -> bool;
}

/// The working tree below `root`.
pub struct WorkTree<'a> {
    pub root: &'a Path,
}

impl RepoFiles for WorkTree<'_> {
    fn exists(&self, rel: &str) -> bool {
        std::fs::symlink_metadata(self.root.join(rel)).is_ok()
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
    sections::check(adr, ctx, &mut findings);
    contextual::check(adr, ctx, &mut findings);
    file_refs::check(adr, ctx, &mut findings);
    findings
}

#[cfg(test)]
pub(crate) mod testing {
    use super::*;
    use std::collections::BTreeSet;

    /// A fake repository that holds exactly the listed paths.
    pub struct Files(pub BTreeSet<String>);

    impl RepoFiles for Files {
        fn exists(&self, rel: &str) -> bool {
            self.0.contains(rel)
        }
    }

    pub fn run(text: &str, name: &str, files: &[&str]) -> Vec<Finding> {
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

    pub fn ids(findings: &[Finding]) -> Vec<&str> {
        findings.iter().map(|f| f.rule.as_str()).collect()
    }

    /// A complete, passing ADR (minor change) used as the base of rule tests.
    pub const GOOD: &str = include_str!("../../tests/fixtures/good/001-minimal-valid.md");
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
            assert!(
                rule.doc.contains("## What it does"),
                "{} lacks docs",
                rule.id
            );
        }
        let contextual = RuleSet::builtin().unwrap();
        for rule in &contextual.contextual {
            assert!(!ids.contains(rule.id.as_str()), "{} clashes", rule.id);
        }
    }

    #[test]
    fn good_fixture_is_clean() {
        let findings = testing::run(testing::GOOD, "adr/001-minimal-valid.md", &["src/lib.rs"]);
        assert!(findings.is_empty(), "{findings:#?}");
    }
}
