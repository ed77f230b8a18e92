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

    /// ## What it does
    /// Compares an ADR that was Accepted or Implemented in the last commit (or at the base of
    /// a branch) with the ADR now: its sections (the `## Enforcement` rules included) and its
    /// front matter must be as they were accepted. Allowed: the status (and a `## Status`
    /// section or `Status:` line), `superseded_by`, `status_history`, and lines appended to a
    /// references section (`## References`, `## Links`, `## More Information`,
    /// `## Referenzen`).
    ///
    /// ## Why
    /// An accepted decision binds code. If the agent whose code breaks a rule could edit the
    /// rule, or the Decision, to make its code pass, the binding would be worth nothing; a
    /// changed decision is a new ADR that supersedes the old one.
    ///
    /// ## Fix
    /// Undo the edit, and write a new ADR that supersedes or amends this one
    /// (`helix-gate new --supersedes N "Title"`). A typo a person must fix is fixed in a
    /// commit of its own with `helix-gate override accepted-adr-rewritten --reason "..."`.
    pub const REWRITTEN {
        id: "accepted-adr-rewritten",
        severity: Error,
        category: FrontMatter,
        summary: "the text of an accepted ADR changed (only status, succession and appended references may)",
    }

    /// ## What it does
    /// Compares the ADR's status with the last commit's (pre-commit; the hook after a
    /// shell command): a change into Accepted (HELIX `Accepted`, MADR `accepted`, Nygard
    /// `Accepted`) must be a person's, recorded by `helix-gate accept ADR --by NAME`: a
    /// record in `.helix-gate/status-history.jsonl` signed with the person's key over
    /// the ADR as accepted. A new ADR is judged by `lifecycle.initial` alone, and an ADR
    /// with no history is no error (history starts at adoption).
    ///
    /// ## Why
    /// An accepted ADR binds code. An agent that sets its own draft to Accepted makes
    /// its decision binding without anyone having decided it; the reviewer's approval
    /// ("the document is complete") is not a person's acceptance ("we decided this").
    ///
    /// ## Example
    /// ```yaml
    /// # before: status: Proposed (no `helix-gate accept` ran)
    /// status: Accepted
    /// ```
    ///
    /// ## Fix
    /// Set the status back, and have a person run `helix-gate accept ADR --by NAME
    /// [--reason TEXT]`: it sets the status and records who, when and why.
    pub const UNRECORDED {
        id: "acceptance-unrecorded",
        severity: Error,
        category: FrontMatter,
        summary: "the ADR became Accepted without a person's recorded `helix-gate accept`",
    }
}

/// Front matter keys an accepted ADR may still change.
const MUTABLE_KEYS: [&str; 5] = [
    "status",
    "superseded_by",
    "superseded-by",
    "status_history",
    "status-history",
];

/// Sections (normalised titles) that may grow by appended lines.
const REFERENCE_SECTIONS: [&str; 5] = [
    "references",
    "links",
    "more information",
    "referenzen",
    "weiterführende informationen",
];

/// The parts of an ADR that stay as accepted: (name, text), in order.
fn fixed_parts(adr: &Adr) -> Vec<(String, String)> {
    let mut parts = Vec::new();
    if let Some(fm) = adr.front_matter() {
        for (key, value) in &fm.map {
            let Some(key) = crate::yaml::scalar_text(key) else {
                continue;
            };
            if !MUTABLE_KEYS.contains(&key.as_str()) {
                parts.push((
                    format!("front matter `{key}`"),
                    crate::yaml::to_string(value),
                ));
            }
        }
    }
    // The body before the first level-2 section: the title and metadata lines,
    // less the status line.
    let first = adr
        .sections
        .iter()
        .find(|s| s.level == 2)
        .map_or(adr.text.len(), |s| s.heading_start);
    let preamble: Vec<&str> = adr.text[adr.body_start..first.max(adr.body_start)]
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .filter(|l| {
            !l.trim_start_matches(['*', '-', ' '])
                .to_ascii_lowercase()
                .trim_start_matches("**")
                .starts_with("status")
        })
        .collect();
    parts.push((
        "the title and the lines under it".to_owned(),
        preamble.join("\n"),
    ));
    for section in adr.sections.iter().filter(|s| s.level == 2) {
        if section.key == "status" {
            continue;
        }
        let text: Vec<&str> = adr
            .content(section)
            .lines()
            .map(str::trim_end)
            .filter(|l| !l.trim().is_empty())
            .collect();
        parts.push((format!("## {}", section.title), text.join("\n")));
    }
    parts
}

/// The finding when `after` rewrites `before`, an Accepted or Implemented ADR.
pub fn rewritten(before: &Adr, after: &Adr) -> Option<Finding> {
    if !succession::is_binding(before) {
        return None;
    }
    let old = fixed_parts(before);
    let new = fixed_parts(after);
    let changed: Vec<&str> = {
        let mut changed = Vec::new();
        for (name, text) in &old {
            match new.iter().find(|(n, _)| n == name) {
                Some((_, now)) if now == text => {}
                Some((_, now))
                    if REFERENCE_SECTIONS
                        .iter()
                        .any(|r| name.eq_ignore_ascii_case(&format!("## {r}")))
                        && now.starts_with(text.as_str()) => {}
                _ => changed.push(name.as_str()),
            }
        }
        for (name, _) in &new {
            if !old.iter().any(|(n, _)| n == name)
                && !REFERENCE_SECTIONS
                    .iter()
                    .any(|r| name.eq_ignore_ascii_case(&format!("## {r}")))
            {
                changed.push(name.as_str());
            }
        }
        changed
    };
    if changed.is_empty() {
        return None;
    }
    let status = succession::status(before).unwrap_or_default();
    Some(
        REWRITTEN
            .finding(format!(
                "this ADR is {status} and its text is as accepted: {} changed",
                changed.join(", ")
            ))
            .at(1)
            .hint("undo the edit; a changed decision is a new ADR: `helix-gate new --supersedes N \"Title\"`"),
    )
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

/// The lifecycle state (as the table spells it) of a status text.
pub fn state(status: &str, lifecycle: &LifecycleSettings) -> Option<String> {
    state_of(status, states(lifecycle).into_iter()).cloned()
}

/// The state of the table named `word` (case-insensitively): `Accepted`.
pub fn named_state(word: &str, lifecycle: &LifecycleSettings) -> Option<String> {
    states(lifecycle)
        .into_iter()
        .find(|s| s.eq_ignore_ascii_case(word))
        .cloned()
}

/// Whether a state is the accepted one.
pub fn is_accepted(state: &str) -> bool {
    state.eq_ignore_ascii_case("accepted")
}

/// The states the table allows after `from` (none: it is final, or unknown).
pub fn allowed_after<'a>(from: &str, lifecycle: &'a LifecycleSettings) -> &'a [String] {
    lifecycle
        .transitions
        .get(from)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The change `(from, to)` when `after` is Accepted and `before` (`None`: no
/// earlier version) was in another state or had none the table knows.
pub fn into_accepted(
    before: Option<&Adr>,
    after: &Adr,
    lifecycle: &LifecycleSettings,
) -> Option<(String, String)> {
    let to = state(&succession::status(after)?, lifecycle)?;
    if !is_accepted(&to) {
        return None;
    }
    let from = before
        .and_then(succession::status)
        .map(|s| state(&s, lifecycle).unwrap_or(s))
        .unwrap_or_default();
    (!is_accepted(&from)).then_some((from, to))
}

/// The finding for a change into Accepted that no person recorded (`adr`: how a
/// person names it to `helix-gate accept`).
pub fn unrecorded(after: &Adr, from: &str, to: &str, adr: &str) -> Finding {
    let line = after
        .front_matter()
        .and_then(|fm| fm.key_lines.get("status").copied())
        .or_else(|| after.body_status().map(|v| v.line))
        .unwrap_or(1);
    UNRECORDED
        .finding(format!(
            "the status changed from {from} to {to}, and no person's `helix-gate accept` recorded it"
        ))
        .at(line)
        .hint(format!(
            "accepting a decision is a person's act: set the status back to {from} and have a person run `helix-gate accept {adr} --by NAME [--reason TEXT]`"
        ))
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
    fn an_accepted_adr_stays_as_accepted() {
        let text = |status: &str, decision: &str, refs: &str| {
            Adr::parse(&format!(
                "---\nstatus: {status}\ndate: 2026-01-01\n---\n# Use X\n\n## Decision\n\n{decision}\n\n## Enforcement\n\n```yaml\nrules: []\n```\n\n## References\n\n{refs}\n"
            ))
        };
        let accepted = text("Accepted", "We use X.", "- a");
        // Status, succession and appended references may change.
        assert!(rewritten(&accepted, &text("Superseded", "We use X.", "- a\n- b")).is_none());
        let with_successor = Adr::parse(&accepted.text.replace(
            "status: Accepted",
            "status: Superseded\nsuperseded_by: [\"009\"]",
        ));
        assert!(rewritten(&accepted, &with_successor).is_none());
        // The Decision, a rule, the date or a reference rewritten: not.
        let found = rewritten(&accepted, &text("Accepted", "We use Y.", "- a")).unwrap();
        assert_eq!(
            found.message,
            "this ADR is Accepted and its text is as accepted: ## Decision changed"
        );
        let rule = Adr::parse(&accepted.text.replace("rules: []", "rules: [{id: x}]"));
        assert!(
            rewritten(&accepted, &rule)
                .unwrap()
                .message
                .contains("## Enforcement")
        );
        let date = Adr::parse(&accepted.text.replace("2026-01-01", "2026-02-02"));
        assert!(
            rewritten(&accepted, &date)
                .unwrap()
                .message
                .contains("front matter `date`")
        );
        assert!(rewritten(&accepted, &text("Accepted", "We use X.", "- changed")).is_some());
        // A proposed ADR is a draft: anything goes.
        assert!(
            rewritten(
                &text("Proposed", "We use X.", "- a"),
                &text("Proposed", "Y", "")
            )
            .is_none()
        );
        // Nygard: the status lives in the body.
        let nygard = |status: &str, decision: &str| {
            Adr::parse(&format!(
                "# 1. Use X\n\nDate: 2026-01-01\n\n## Status\n\n{status}\n\n## Decision\n\n{decision}\n"
            ))
        };
        assert!(
            rewritten(
                &nygard("Accepted", "X."),
                &nygard("Superseded by [2. Y](0002-y.md)", "X.")
            )
            .is_none()
        );
        assert!(rewritten(&nygard("Accepted", "X."), &nygard("Accepted", "Y.")).is_some());
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
