//! Rules across ADRs, applied when several ADRs are checked together:
//! duplicate `adr_id`s and `depends_on` entries that name no known ADR.

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
}
