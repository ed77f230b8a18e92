//! How an ADR's status may change: the ADR as it is now compared with the ADR as
//! the last commit (or the base of a branch) has it, against the table of
//! `lifecycle.transitions` in `config/helix-gate.yaml`.

use crate::adr::{Adr, succession};
use crate::config::settings::LifecycleSettings;
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// Compares the ADR's status with the status of the same ADR in the last commit (the
    /// hook and pre-commit) or at the base of a branch (`check --base`): the change must be
    /// one that `lifecycle.transitions` allows, and a new ADR must start with a status of
    /// `lifecycle.initial`. HELIX: Proposed -> Accepted | Rejected; Accepted -> Implemented |
    /// Superseded | Deprecated; Implemented -> Superseded | Deprecated; Rejected, Superseded
    /// and Deprecated are final. The madr and nygard presets bring their own tables.
    ///
    /// ## Why
    /// A status says where a decision stands; one that jumps (Rejected back to Accepted, a
    /// new ADR born Accepted) misleads every reader and every agent that trusts it, and
    /// accepted ADRs bind code.
    ///
    /// ## Example
    /// ```yaml
    /// # before: status: Superseded
    /// status: Accepted
    /// ```
    ///
    /// ## Fix
    /// Set a status the table allows from the old one; to revive a decision, write a new ADR
    /// that supersedes the old one.
    pub const TRANSITION {
        id: "status-transition-illegal",
        severity: Error,
        category: FrontMatter,
        summary: "the status changed in a way lifecycle.transitions does not allow",
    }
}

/// The lifecycle state a status is in: the longest key of `states` that the
/// status starts with at a word boundary, compared case-insensitively
/// (`superseded by ADR-0005` is `Superseded`; adr-tools' `Superceded` too).
fn state_of<'a>(status: &str, known: impl Iterator<Item = &'a String>) -> Option<&'a String> {
    let status = status
        .trim()
        .trim_matches(['*', '_', '`'])
        .to_lowercase()
        .replace("superceded", "superseded");
    known
        .filter(|state| {
            let key = state.to_lowercase();
            status == key
                || status
                    .strip_prefix(&key)
                    .is_some_and(|rest| rest.starts_with(|c: char| !c.is_alphanumeric()))
        })
        .max_by_key(|state| state.len())
}

/// Every state the table names, as keys or as targets.
fn states(lifecycle: &LifecycleSettings) -> Vec<&String> {
    let mut all: Vec<&String> = lifecycle
        .transitions
        .iter()
        .flat_map(|(from, to)| std::iter::once(from).chain(to.iter()))
        .chain(lifecycle.initial.iter())
        .collect();
    all.sort();
    all.dedup();
    all
}

fn listed(items: &[String]) -> String {
    if items.is_empty() {
        "none: it is final".to_owned()
    } else {
        items.join(", ")
    }
}

/// The finding when `after`'s status is not a legal change from `before`'s
/// (`before`: the ADR in the last commit; `None`: a new ADR). An ADR without a
/// status, or with one the table does not know, is left to the status rules.
pub fn transition(
    before: Option<&Adr>,
    after: &Adr,
    lifecycle: &LifecycleSettings,
) -> Option<Finding> {
    let status = succession::status(after)?;
    let known = states(lifecycle);
    let new = state_of(&status, known.iter().copied())?;
    let line = after
        .front_matter()
        .and_then(|fm| fm.key_lines.get("status").copied())
        .or_else(|| after.body_status().map(|v| v.line))
        .unwrap_or(1);
    let Some(before) = before else {
        if lifecycle.initial.iter().any(|s| s == new) {
            return None;
        }
        return Some(
            TRANSITION
                .finding(format!(
                    "a new ADR starts as {new}; it may start as: {}",
                    listed(&lifecycle.initial)
                ))
                .at(line)
                .hint(format!("set the status to {}", listed(&lifecycle.initial))),
        );
    };
    let old_status = succession::status(before)?;
    let old = state_of(&old_status, known.iter().copied())?;
    if old == new {
        return None;
    }
    let allowed = lifecycle
        .transitions
        .get(old)
        .map(Vec::as_slice)
        .unwrap_or_default();
    if allowed.contains(new) {
        return None;
    }
    Some(
        TRANSITION
            .finding(format!(
                "the status changed from {old} to {new}; from {old} it may change to: {}",
                listed(allowed)
            ))
            .at(line)
            .hint(if allowed.is_empty() {
                format!("{old} is final: write a new ADR that supersedes this one")
            } else {
                format!(
                    "set the status back to {old}, or to one of: {}",
                    allowed.join(", ")
                )
            }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Settings;

    fn adr(status: &str) -> Adr {
        Adr::parse(&format!("---\nstatus: {status}\n---\n# T\n"))
    }

    fn check(before: Option<&str>, after: &str) -> Option<String> {
        let lifecycle = Settings::builtin().lifecycle;
        let before = before.map(adr);
        transition(before.as_ref(), &adr(after), &lifecycle).map(|f| f.message)
    }

    #[test]
    fn helix_transitions() {
        assert_eq!(check(Some("Proposed"), "Accepted"), None);
        assert_eq!(check(Some("Accepted"), "Implemented"), None);
        assert_eq!(check(Some("Accepted"), "superseded by ADR-0005"), None);
        assert_eq!(check(Some("Accepted"), "Accepted"), None);
        assert_eq!(
            check(Some("Proposed"), "Implemented").as_deref(),
            Some(
                "the status changed from Proposed to Implemented; from Proposed it may change to: Accepted, Rejected"
            )
        );
        assert_eq!(
            check(Some("Rejected"), "Accepted").as_deref(),
            Some(
                "the status changed from Rejected to Accepted; from Rejected it may change to: none: it is final"
            )
        );
        assert_eq!(check(None, "Proposed"), None);
        assert_eq!(
            check(None, "Accepted").as_deref(),
            Some("a new ADR starts as Accepted; it may start as: Proposed")
        );
        // Unknown statuses are the status rules' business.
        assert_eq!(check(Some("Wip"), "Accepted"), None);
        assert_eq!(check(Some("Proposed"), "Whatever"), None);
    }

    #[test]
    fn madr_and_nygard_tables() {
        let madr = Settings::from_layers_with(None, "test", Some(crate::config::Preset::Madr))
            .unwrap()
            .lifecycle;
        let body = |status: &str| Adr::parse(&format!("# T\n\n* Status: {status}\n"));
        assert!(transition(Some(&body("proposed")), &body("accepted"), &madr).is_none());
        assert!(transition(Some(&body("on hold")), &body("accepted"), &madr).is_none());
        assert!(
            transition(
                Some(&body("accepted")),
                &body("superseded by ADR-0005"),
                &madr
            )
            .is_none()
        );
        assert!(transition(Some(&body("deprecated")), &body("accepted"), &madr).is_some());
        let nygard = Settings::from_layers_with(None, "test", Some(crate::config::Preset::Nygard))
            .unwrap()
            .lifecycle;
        let section = |status: &str| Adr::parse(&format!("# 1. T\n\n## Status\n\n{status}\n"));
        // adr-tools writes new ADRs as Accepted.
        assert!(transition(None, &section("Accepted"), &nygard).is_none());
        assert!(
            transition(
                Some(&section("Accepted")),
                &section("Superceded by [2. X](0002-x.md)"),
                &nygard
            )
            .is_none()
        );
        assert!(transition(Some(&section("Superseded")), &section("Accepted"), &nygard).is_some());
    }
}
