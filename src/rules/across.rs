//! Rules across ADRs, applied when several ADRs are checked together:
//! duplicate `adr_id`s, `depends_on` entries that name no known ADR, and
//! supersession links: both sides agree, no cycle, and an accepted successor's
//! predecessors are Superseded.

use std::collections::{BTreeMap, BTreeSet};

use crate::adr::{self, Adr};
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// When a directory (or the whole repository, or the staged set) is checked, reports every ADR
    /// whose adr_id number is also used by another ADR.
    ///
    /// ## Why
    /// Numbers identify ADRs in links, depends_on and the index; a collision makes them ambiguous.
    ///
    /// ## Fix
    /// Give one of them the number from `helix-gate next-number` (and rename its file).
    pub const DUPLICATE_ID {
        id: "adr-id-duplicate",
        severity: Error,
        category: AcrossAdrs,
        summary: "two ADRs share the same adr_id",
    }

    /// ## What it does
    /// When a directory is checked, warns about `depends_on` entries whose number matches no ADR in
    /// the set.
    ///
    /// ## Why
    /// A dependency on a missing ADR is a typo or a lost document.
    ///
    /// ## Fix
    /// Correct the number or add the missing ADR.
    pub const DEPENDS_ON_UNKNOWN {
        id: "depends-on-unknown",
        severity: Warning,
        category: AcrossAdrs,
        summary: "depends_on names an ADR number that does not exist",
    }

    /// ## What it does
    /// Requires both sides of a supersession: when ADR 7 lists 3 in `supersedes:`, ADR 3's
    /// `superseded_by:` names 7 (or its status says `Superseded by ADR-7`), and the other way
    /// round. A successor without front matter (adr-tools, Nygard) may name its predecessor in
    /// its `## Status` section (`Supersedes [3. X](0003-x.md)`) and is not required to.
    ///
    /// ## Why
    /// A link on one side only is how ADR tools lose track of which decision applies
    /// (adr-tools#61, madr#217): a reader of the old ADR does not learn of the new one, or
    /// the other way round.
    ///
    /// ## Example
    /// ```yaml
    /// # adr/007-grpc.md            # adr/003-rest.md
    /// supersedes: ["003"]          superseded_by: ["007"]
    /// ```
    ///
    /// ## Fix
    /// Add the missing side (`helix-gate new --supersedes 3 "Title"` writes both).
    pub const SUPERSESSION_ONE_SIDED {
        id: "supersession-one-sided",
        severity: Error,
        category: AcrossAdrs,
        summary: "one ADR says it replaces another, the other does not say it is replaced",
    }

    /// ## What it does
    /// Reports ADRs that replace each other in a circle (3 supersedes 7, 7 supersedes 3).
    ///
    /// ## Why
    /// With a cycle no ADR of it is the one that applies; the successor of a superseded
    /// ADR cannot be found.
    ///
    /// ## Fix
    /// Remove the link that points back.
    pub const SUPERSESSION_CYCLE {
        id: "supersession-cycle",
        severity: Error,
        category: AcrossAdrs,
        summary: "ADRs supersede each other in a cycle",
    }

    /// ## What it does
    /// When an ADR that replaces others is Accepted or Implemented, requires each ADR it
    /// replaces to be Superseded (in the same commit, when checked at commit).
    ///
    /// ## Why
    /// Two accepted decisions on the same matter both bind code; the old one must step back
    /// when the new one is accepted.
    ///
    /// ## Fix
    /// Set the predecessor's status to Superseded (and its `superseded_by`).
    pub const PREDECESSOR_ACTIVE {
        id: "supersession-predecessor-active",
        severity: Error,
        category: AcrossAdrs,
        summary: "an accepted ADR replaces one that is not Superseded",
    }
}

/// One ADR of the set: its display path, its parse and the file name's number.
#[derive(Clone, Copy)]
pub struct Member<'a> {
    pub path: &'a str,
    pub adr: &'a Adr,
    pub file_number: Option<u32>,
}

/// Findings per member index.
pub fn check(members: &[Member<'_>]) -> Vec<(usize, Finding)> {
    let mut out = Vec::new();
    let mut by_number: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    let mut known = BTreeSet::new();
    for (i, member) in members.iter().enumerate() {
        if let Some(number) = member
            .adr
            .front_matter()
            .and_then(|fm| fm.adr_id.valid())
            .and_then(|id| adr::number_in_id(id))
        {
            by_number.entry(number).or_default().push(i);
            known.insert(number);
        }
        known.extend(member.file_number);
    }
    for (number, users) in &by_number {
        if users.len() < 2 {
            continue;
        }
        for &i in users {
            let others: Vec<&str> = users
                .iter()
                .filter(|&&j| j != i)
                .map(|&j| members[j].path)
                .collect();
            let line = members[i]
                .adr
                .front_matter()
                .and_then(|fm| fm.key_lines.get("adr_id").copied())
                .unwrap_or(1);
            out.push((
                i,
                DUPLICATE_ID
                    .finding(format!(
                        "adr_id {number:03} is also used by {}",
                        others.join(", ")
                    ))
                    .at(line)
                    .hint("take a free number from `helix-gate next-number`"),
            ));
        }
    }
    for (i, member) in members.iter().enumerate() {
        let Some(fm) = member.adr.front_matter() else {
            continue;
        };
        let line = fm.key_lines.get("depends_on").copied().unwrap_or(1);
        for dep in &fm.depends_on {
            match adr::number_in_id(dep) {
                Some(number) if known.contains(&number) => {}
                _ => out.push((
                    i,
                    DEPENDS_ON_UNKNOWN
                        .finding(format!("depends_on: no ADR with number `{dep}`"))
                        .at(line)
                        .hint("correct the number or add the missing ADR"),
                )),
            }
        }
    }
    out.extend(succession(members));
    out
}

/// The number of a member: its `adr_id`, else its file name's.
fn number_of(member: &Member<'_>) -> Option<u32> {
    member
        .adr
        .front_matter()
        .and_then(|fm| fm.adr_id.valid())
        .and_then(|id| adr::number_in_id(id))
        .or(member.file_number)
}

/// A member's number as its file name writes it (`0003` in `0003-rest.md`), else
/// three digits.
fn shown(member: &Member<'_>, n: u32) -> String {
    let name = member.path.rsplit('/').next().unwrap_or(member.path);
    let width = name.chars().take_while(char::is_ascii_digit).count();
    if width > 0 {
        format!("{n:0width$}")
    } else {
        format!("{n:03}")
    }
}

/// The supersession findings of a set of ADRs.
fn succession(members: &[Member<'_>]) -> Vec<(usize, Finding)> {
    use crate::adr::succession;
    let mut out = Vec::new();
    let mut by_number: BTreeMap<u32, usize> = BTreeMap::new();
    for (i, member) in members.iter().enumerate() {
        if let Some(n) = number_of(member) {
            by_number.entry(n).or_insert(i);
        }
    }
    let successors: Vec<Vec<u32>> = members
        .iter()
        .map(|m| succession::successors(m.adr))
        .collect();
    let predecessors: Vec<Vec<u32>> = members
        .iter()
        .map(|m| succession::predecessors(m.adr))
        .collect();
    let line_of = |i: usize, key: &str| {
        members[i]
            .adr
            .front_matter()
            .and_then(|fm| fm.key_lines.get(key).copied())
            .unwrap_or(1)
    };
    // Every link "new replaces old", from either side, once.
    let mut links: BTreeSet<(usize, usize)> = BTreeSet::new();
    for i in 0..members.len() {
        for p in &predecessors[i] {
            if let Some(&j) = by_number.get(p) {
                links.insert((i, j));
            }
        }
        for s in &successors[i] {
            if let Some(&j) = by_number.get(s) {
                links.insert((j, i));
            }
        }
    }
    for &(new, old) in &links {
        if new == old {
            continue;
        }
        let (Some(new_n), Some(old_n)) = (number_of(&members[new]), number_of(&members[old]))
        else {
            continue;
        };
        let (new_s, old_s) = (shown(&members[new], new_n), shown(&members[old], old_n));
        let old_says = successors[old].contains(&new_n);
        let new_says = predecessors[new].contains(&old_n);
        if !old_says {
            let finding = |text: String| {
                SUPERSESSION_ONE_SIDED.finding(text).hint(format!(
                    "add superseded_by: [\"{new_s}\"] to {}",
                    members[old].path
                ))
            };
            out.push((
                old,
                finding(format!(
                    "{} replaces this ADR (its supersedes: names {old_s}), but superseded_by does not name {new_s}",
                    members[new].path
                ))
                .at(line_of(old, "status")),
            ));
            out.push((
                new,
                finding(format!(
                    "supersedes names {old_s}, but {} does not name this ADR in superseded_by",
                    members[old].path
                ))
                .at(line_of(new, "supersedes")),
            ));
        }
        if !new_says && members[new].adr.front_matter().is_some() {
            let finding = |text: String| {
                SUPERSESSION_ONE_SIDED.finding(text).hint(format!(
                    "add supersedes: [\"{old_s}\"] to {}",
                    members[new].path
                ))
            };
            out.push((
                new,
                finding(format!(
                    "{} names this ADR as its successor, but supersedes does not name {old_s}",
                    members[old].path
                ))
                .at(line_of(new, "status")),
            ));
            out.push((
                old,
                finding(format!(
                    "superseded_by names {new_s}, but {} does not name this ADR in supersedes",
                    members[new].path
                ))
                .at(line_of(old, "superseded_by")),
            ));
        }
        out.extend(still_active(members, new, (old, &old_s)));
    }
    out.extend(cycles(members, &links));
    out
}

/// An accepted `new` that replaces `old` while `old` is not Superseded: a finding on each.
fn still_active(
    members: &[Member<'_>],
    new: usize,
    (old, old_s): (usize, &str),
) -> Vec<(usize, Finding)> {
    use crate::adr::succession;
    let line_of = |i: usize| {
        members[i]
            .adr
            .front_matter()
            .and_then(|fm| fm.key_lines.get("status").copied())
            .unwrap_or(1)
    };
    let mut out = Vec::new();
    if succession::is_binding(members[new].adr) && !succession::is_superseded(members[old].adr) {
        let status = succession::status(members[old].adr).unwrap_or_else(|| "none".to_owned());
        out.push((
                new,
                PREDECESSOR_ACTIVE
                    .finding(format!(
                        "this ADR is accepted and replaces {} ({old_s}), whose status is still `{status}`",
                        members[old].path
                    ))
                    .at(line_of(new))
                    .hint(format!("set status: Superseded in {} in the same commit", members[old].path)),
            ));
        out.push((
                old,
                PREDECESSOR_ACTIVE
                    .finding(format!(
                        "{} replaces this ADR and is accepted, but this ADR's status is still `{status}`",
                        members[new].path
                    ))
                    .at(line_of(old))
                    .hint("set status: Superseded"),
            ));
    }
    out
}

/// Members from which following "replaces" links leads back to themselves.
fn cycles(members: &[Member<'_>], links: &BTreeSet<(usize, usize)>) -> Vec<(usize, Finding)> {
    let line_of = |i: usize| {
        members[i]
            .adr
            .front_matter()
            .and_then(|fm| fm.key_lines.get("supersedes").copied())
            .unwrap_or(1)
    };
    let mut out = Vec::new();
    // Cycles: follow "replaces" edges from each ADR.
    let mut edges: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for &(new, old) in links {
        edges.entry(new).or_default().push(old);
    }
    for start in 0..members.len() {
        let mut seen = BTreeSet::new();
        let mut stack: Vec<usize> = edges.get(&start).cloned().unwrap_or_default();
        let mut cyclic = false;
        while let Some(next) = stack.pop() {
            if next == start {
                cyclic = true;
                break;
            }
            if seen.insert(next) {
                stack.extend(edges.get(&next).into_iter().flatten().copied());
            }
        }
        if cyclic {
            out.push((
                start,
                SUPERSESSION_CYCLE
                    .finding("following supersedes from this ADR leads back to it")
                    .at(line_of(start))
                    .hint("remove the link that points back"),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adr(id: &str, deps: &str) -> Adr {
        Adr::parse(&format!("---\nadr_id: {id}\ndepends_on: {deps}\n---\n"))
    }

    #[test]
    fn duplicates_and_unknown_dependencies() {
        let a = adr("\"001\"", "[]");
        let b = adr("1", "[\"001\", \"009\"]");
        let c = adr("\"002\"", "[3]");
        let members = [
            Member {
                path: "adr/001-a.md",
                adr: &a,
                file_number: Some(1),
            },
            Member {
                path: "adr/001-b.md",
                adr: &b,
                file_number: Some(1),
            },
            Member {
                path: "adr/003-c.md",
                adr: &c,
                file_number: Some(3),
            },
        ];
        let found = check(&members);
        let summary: Vec<(usize, &str)> =
            found.iter().map(|(i, f)| (*i, f.rule.as_str())).collect();
        assert_eq!(
            summary,
            [
                (0, "adr-id-duplicate"),
                (1, "adr-id-duplicate"),
                (1, "depends-on-unknown")
            ]
        );
        assert!(found[0].1.message.contains("adr/001-b.md"));
    }

    fn members<'a>(adrs: &'a [(&'a str, Adr)]) -> Vec<Member<'a>> {
        adrs.iter()
            .map(|(path, adr)| Member {
                path,
                adr,
                file_number: adr::number_in_file_name(std::path::Path::new(path)),
            })
            .collect()
    }

    fn rules_of(adrs: &[(&str, Adr)]) -> Vec<(usize, String)> {
        check(&members(adrs))
            .into_iter()
            .map(|(i, f)| (i, f.rule))
            .collect()
    }

    #[test]
    fn supersession_both_sides_and_the_old_one_steps_back() {
        let fm = |text: &str| Adr::parse(&format!("---\n{text}\n---\n# T\n"));
        // Both sides, the successor accepted, the old one superseded: clean.
        let good = [
            (
                "adr/003-rest.md",
                fm("status: Superseded\nsuperseded_by: [\"007\"]"),
            ),
            (
                "adr/007-grpc.md",
                fm("status: Accepted\nsupersedes: [\"003\"]"),
            ),
        ];
        assert!(rules_of(&good).is_empty(), "{:?}", rules_of(&good));
        // One side only, each way.
        let one = [
            ("adr/003-rest.md", fm("status: Superseded")),
            (
                "adr/007-grpc.md",
                fm("status: Proposed\nsupersedes: [\"003\"]"),
            ),
        ];
        assert_eq!(
            rules_of(&one),
            [
                (0, "supersession-one-sided".to_owned()),
                (1, "supersession-one-sided".to_owned())
            ]
        );
        let other = [
            (
                "adr/003-rest.md",
                fm("status: Superseded\nsuperseded_by: 7"),
            ),
            ("adr/007-grpc.md", fm("status: Proposed")),
        ];
        assert_eq!(rules_of(&other).len(), 2);
        // Accepted successor, predecessor still accepted (as `new --supersedes` leaves it).
        let active = [
            (
                "adr/003-rest.md",
                fm("status: Accepted\nsuperseded_by: [\"007\"]"),
            ),
            (
                "adr/007-grpc.md",
                fm("status: Accepted\nsupersedes: [\"003\"]"),
            ),
        ];
        assert_eq!(
            rules_of(&active),
            [
                (1, "supersession-predecessor-active".to_owned()),
                (0, "supersession-predecessor-active".to_owned())
            ]
        );
        let proposed = [
            (
                "adr/003-rest.md",
                fm("status: Accepted\nsuperseded_by: [\"007\"]"),
            ),
            (
                "adr/007-grpc.md",
                fm("status: Proposed\nsupersedes: [\"003\"]"),
            ),
        ];
        assert!(rules_of(&proposed).is_empty());
    }

    #[test]
    fn supersession_cycles_and_adr_tools_status_text() {
        let fm = |text: &str| Adr::parse(&format!("---\n{text}\n---\n# T\n"));
        let cycle = [
            (
                "adr/003-a.md",
                fm("status: Superseded\nsupersedes: [\"007\"]\nsuperseded_by: [\"007\"]"),
            ),
            (
                "adr/007-b.md",
                fm("status: Superseded\nsupersedes: [\"003\"]\nsuperseded_by: [\"003\"]"),
            ),
        ];
        let found = rules_of(&cycle);
        assert!(
            found.contains(&(0, "supersession-cycle".to_owned())),
            "{found:?}"
        );
        assert!(
            found.contains(&(1, "supersession-cycle".to_owned())),
            "{found:?}"
        );
        // adr-tools: both sides in the status sections, no front matter.
        let tools = [
            (
                "doc/adr/0001-old.md",
                Adr::parse("# 1. Old\n\n## Status\n\nSuperceded by [2. New](0002-new.md)\n"),
            ),
            (
                "doc/adr/0002-new.md",
                Adr::parse(
                    "# 2. New\n\n## Status\n\nAccepted\n\nSupersedes [1. Old](0001-old.md)\n",
                ),
            ),
        ];
        assert!(rules_of(&tools).is_empty(), "{:?}", rules_of(&tools));
        // MADR without the successor's side in a body status: not required.
        let madr = [
            (
                "docs/decisions/0001-old.md",
                Adr::parse("# Old\n\n* Status: superseded by ADR-0002\n"),
            ),
            (
                "docs/decisions/0002-new.md",
                Adr::parse("# New\n\n* Status: accepted\n"),
            ),
        ];
        assert!(rules_of(&madr).is_empty(), "{:?}", rules_of(&madr));
    }
}
