//! Which rules' findings are shown and count: the configuration's `rules.ignore` and
//! `rules.per_path_ignores`, and `--ignore` / `--select` for one run, as ruff does it.
//!
//! Only the protected configuration and the command line choose; an ADR's own text never
//! does (there is no inline suppression), so the file being checked cannot silence a rule.

use std::collections::BTreeSet;

use crate::config::settings::{GlobError, Globs, RulesSettings, build_globs};
use crate::diagnostic::Finding;

/// Rule ids chosen on the command line for one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleChoice {
    /// `--ignore`: ids whose findings are dropped.
    pub ignore: Vec<String>,
    /// `--select`: when not empty, only these ids' findings are kept (the configuration's
    /// `rules.ignore` does not drop an id named here; `--ignore` and the per-path ignores do).
    pub select: Vec<String>,
}

static CLI_CHOICE: std::sync::OnceLock<RuleChoice> = std::sync::OnceLock::new();

/// Record `--ignore` / `--select` of the command line, once, before any command runs;
/// every engine then applies them over the configuration's ignores. Process-wide, as the
/// `--preset` flag ([`crate::config::preset::set_cli_override`]): `validate`, `pre-commit`
/// and `gate` load their engines in many places, and the flags must reach all alike.
pub fn set_cli_choice(choice: RuleChoice) {
    if choice != RuleChoice::default() {
        let _ = CLI_CHOICE.set(choice);
    }
}

/// The command line's `--ignore` / `--select`, when given.
pub fn cli_choice() -> Option<&'static RuleChoice> {
    CLI_CHOICE.get()
}

/// An id that names no rule, with where it was written and the nearest known id.
#[derive(Debug, thiserror::Error)]
#[error(
    "unknown rule `{id}` in {origin}{}; `helix-gate rules` lists the ids",
    suggestion.as_ref().map(|s| format!(" (did you mean `{s}`?)")).unwrap_or_default()
)]
pub struct UnknownRule {
    pub id: String,
    pub origin: String,
    pub suggestion: Option<String>,
}

/// Why the configuration's or the command line's choice of rules cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SelectionError {
    #[error(transparent)]
    UnknownRule(#[from] UnknownRule),
    /// A glob of `rules.per_path_ignores`.
    #[error(transparent)]
    Glob(#[from] GlobError),
}

/// The compiled choice of rules applied to every finding of a check.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    ignore: BTreeSet<String>,
    select: Option<BTreeSet<String>>,
    per_path: Vec<(Globs, BTreeSet<String>)>,
}

impl Selection {
    /// The configuration's choice; every id must be one of `known`.
    pub fn from_settings(
        settings: &RulesSettings,
        known: &[&str],
    ) -> Result<Selection, SelectionError> {
        let origin = crate::config::settings::SETTINGS_PATH;
        let ignore = checked(&settings.ignore, &format!("{origin}: rules.ignore"), known)?;
        let mut per_path = Vec::new();
        for (glob, ids) in &settings.per_path_ignores {
            let ids = checked(
                ids,
                &format!("{origin}: rules.per_path_ignores `{glob}`"),
                known,
            )?;
            per_path.push((build_globs(std::slice::from_ref(glob))?, ids));
        }
        Ok(Selection {
            ignore,
            select: None,
            per_path,
        })
    }

    /// Apply the command line's `choice` over the configuration's.
    pub fn choose(&mut self, choice: &RuleChoice, known: &[&str]) -> Result<(), SelectionError> {
        let ignore = checked(&choice.ignore, "--ignore", known)?;
        if !choice.select.is_empty() {
            // As in ruff: a rule selected by name on the command line is shown even when
            // the configuration ignores it everywhere.
            self.ignore.clear();
            self.select = Some(checked(&choice.select, "--select", known)?);
        }
        self.ignore.extend(ignore);
        Ok(())
    }

    /// Whether nothing is switched off (the common case costs nothing).
    pub fn is_empty(&self) -> bool {
        self.ignore.is_empty() && self.select.is_none() && self.per_path.is_empty()
    }

    /// Whether the finding of rule `id` in the file at repository-relative path `rel`
    /// (`/` separated; None: a path outside the repository) is kept.
    pub fn keeps(&self, id: &str, rel: Option<&str>) -> bool {
        if self.ignore.contains(id) || self.select.as_ref().is_some_and(|s| !s.contains(id)) {
            return false;
        }
        !rel.is_some_and(|rel| {
            self.per_path
                .iter()
                .any(|(globs, ids)| ids.contains(id) && globs.is_match(rel))
        })
    }

    /// Drop the findings of `findings` that are not kept for the file at `rel`.
    pub fn retain(&self, findings: &mut Vec<Finding>, rel: Option<&str>) {
        if !self.is_empty() {
            findings.retain(|f| self.keeps(&f.rule, rel));
        }
    }
}

/// `ids` as a set, each checked against `known`.
fn checked(ids: &[String], origin: &str, known: &[&str]) -> Result<BTreeSet<String>, UnknownRule> {
    ids.iter()
        .map(|id| {
            let id = id.trim();
            if known.contains(&id) {
                Ok(id.to_owned())
            } else {
                Err(UnknownRule {
                    id: crate::text::escape_controls(id).into_owned(),
                    origin: origin.to_owned(),
                    suggestion: crate::text::nearest(id, known.iter().copied()).map(str::to_owned),
                })
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const KNOWN: &[&str] = &[
        "section-missing",
        "section-too-short",
        "major-needs-rollback",
    ];

    fn settings(ignore: &[&str], per_path: &[(&str, &[&str])]) -> RulesSettings {
        RulesSettings {
            ignore: ignore.iter().map(|s| (*s).to_owned()).collect(),
            per_path_ignores: per_path
                .iter()
                .map(|(g, ids)| {
                    (
                        (*g).to_owned(),
                        ids.iter().map(|s| (*s).to_owned()).collect(),
                    )
                })
                .collect(),
        }
    }

    #[test]
    fn ignores_apply_everywhere_or_below_their_paths() {
        let sel = Selection::from_settings(
            &settings(
                &["section-missing"],
                &[("adr/legacy/**", &["section-too-short"])],
            ),
            KNOWN,
        )
        .unwrap();
        assert!(!sel.keeps("section-missing", Some("adr/001-x.md")));
        assert!(!sel.keeps("section-too-short", Some("adr/legacy/001-x.md")));
        assert!(sel.keeps("section-too-short", Some("adr/001-x.md")));
        assert!(sel.keeps("section-too-short", None));
        assert!(sel.keeps("major-needs-rollback", Some("adr/legacy/001-x.md")));
    }

    #[test]
    fn select_keeps_only_its_rules_and_overrides_the_config_ignore() {
        let mut sel =
            Selection::from_settings(&settings(&["section-missing"], &[]), KNOWN).unwrap();
        let choice = RuleChoice {
            ignore: vec!["section-too-short".into()],
            select: vec!["section-missing".into(), "section-too-short".into()],
        };
        sel.choose(&choice, KNOWN).unwrap();
        assert!(sel.keeps("section-missing", Some("adr/x.md")));
        assert!(!sel.keeps("section-too-short", Some("adr/x.md")));
        assert!(!sel.keeps("major-needs-rollback", Some("adr/x.md")));
    }

    #[test]
    fn an_unknown_id_is_an_error_with_the_nearest_id() {
        let err = Selection::from_settings(&settings(&["section-mising"], &[]), KNOWN).unwrap_err();
        assert!(
            matches!(&err, SelectionError::UnknownRule(unknown) if unknown.id == "section-mising"),
            "{err}"
        );
        let err = err.to_string();
        assert!(err.contains("unknown rule `section-mising`"), "{err}");
        assert!(err.contains("rules.ignore"), "{err}");
        assert!(err.contains("did you mean `section-missing`?"), "{err}");
        let err = Selection::default()
            .choose(
                &RuleChoice {
                    ignore: vec!["nothing-like-it".into()],
                    select: vec![],
                },
                KNOWN,
            )
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("--ignore") && !err.contains("did you mean"),
            "{err}"
        );
    }
}
