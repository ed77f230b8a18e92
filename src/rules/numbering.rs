//! The numbering rules: what only the whole ADR directory can tell about its
//! numbers: gaps, files that carry no number, `supersedes`/`superseded_by` links
//! to ADRs that do not exist, a Superseded ADR without a successor, and numbers
//! too large to be real.

use crate::adr::succession::{SUPERSEDED_BY_KEYS, listed as links};
use std::collections::BTreeSet;

use crate::adr::catalog::{Catalog, Entry, MAX_NUMBER, format_number_width};
use crate::adr::{self, Adr};
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// Lists the numbers between 001 and the highest ADR number that neither a file name nor an
    /// `adr_id` uses.
    ///
    /// ## Why
    /// A gap is usually a deleted or renamed ADR, or an ADR whose number was mistyped;
    /// `next-number` never fills it.
    ///
    /// ## Fix
    /// Restore or renumber the ADR; a gap left on purpose (a withdrawn ADR) can be ignored.
    pub const NUMBER_GAP {
        id: "adr-number-gap",
        severity: Warning,
        category: Numbering,
        summary: "no ADR has a number between 1 and the highest number",
    }

    /// ## What it does
    /// Reports files in the ADR directory whose name does not start with the ADR number and a
    /// hyphen.
    ///
    /// ## Why
    /// Finalized ADRs are found and ordered by the number in their name; a draft name
    /// (`ADR-foo.md`) there is an ADR that was never finalized.
    ///
    /// ## Fix
    /// Run `helix-gate finalize <file>`, or rename it to `NNN-slug.md` with NNN its adr_id.
    pub const FILE_UNNUMBERED {
        id: "adr-file-name-unnumbered",
        severity: Warning,
        category: Numbering,
        summary: "an ADR in the ADR directory is not named NNN-slug.md",
    }

    /// ## What it does
    /// Checks every number in `supersedes` and `superseded_by` (also `superseded-by`) against the
    /// ADRs of the ADR directory.
    ///
    /// ## Why
    /// A succession link to a missing ADR leaves readers of the old decision without the new one.
    ///
    /// ## Example
    /// ```yaml
    /// status: Superseded
    /// superseded_by: "041"
    /// ```
    ///
    /// ## Fix
    /// Correct the number or add the missing ADR.
    pub const SUPERSEDES_UNKNOWN {
        id: "supersedes-unknown",
        severity: Warning,
        category: Numbering,
        summary: "supersedes or superseded_by names an ADR that does not exist",
    }

    /// ## What it does
    /// Reports an ADR with status Superseded that has no `superseded_by` and that no other ADR
    /// lists in `supersedes`.
    ///
    /// ## Why
    /// A superseded decision must say what replaced it, or readers cannot find the rule that
    /// applies now.
    ///
    /// ## Fix
    /// Add `superseded_by: "NNN"`, or `supersedes: ["MMM"]` to the successor.
    pub const SUPERSEDED_WITHOUT_SUCCESSOR {
        id: "superseded-without-successor",
        severity: Warning,
        category: Numbering,
        summary: "status Superseded, but no ADR replaces it",
    }

    /// ## What it does
    /// Reports an ADR whose `adr_id` or file name carries a number above 99999.
    ///
    /// ## Why
    /// Such a number is a typo (`adr_id: 4294967295`). Counted, it would make the next number
    /// overflow or report a gap of billions; so it is ignored for numbering, and reported here.
    ///
    /// ## Example
    /// ```yaml
    /// adr_id: 4294967295
    /// ```
    ///
    /// ## Fix
    /// Set the ADR's real number (`helix-gate next-number` gives a free one) and rename the file
    /// to match.
    pub const NUMBER_TOO_LARGE {
        id: "adr-number-too-large",
        severity: Warning,
        category: Numbering,
        summary: "an ADR number above 99999 (ignored for numbering)",
    }

    /// ## What it does
    /// `doctor` reports that the ADR directory (`adr.directory` in config/helix-gate.yaml,
    /// default `adr`) does not exist or is not a directory. Nothing else of the ADR directory is
    /// checked then; the rest of doctor's report (Stop timeouts, hook registrations) still
    /// follows. `doctor` exits with 1, as for any error finding.
    ///
    /// ## Why
    /// Without the directory there are no ADRs to check, `next-number` and `finalize` cannot
    /// work, and a wrong `adr.directory` would otherwise pass unnoticed.
    ///
    /// ## Fix
    /// Create the directory (`mkdir adr`), or set `adr.directory` to where the ADRs are.
    pub const DIRECTORY_MISSING {
        id: "adr-directory-missing",
        severity: Error,
        category: Numbering,
        summary: "the ADR directory does not exist",
    }
}

/// `supersedes`/`superseded_by` findings of one ADR. `known` holds every taken
/// number; `replaced` the numbers some ADR lists in `supersedes`; `own` is the
/// ADR's own number.
pub fn succession_findings(
    adr: &Adr,
    own: Option<u32>,
    known: &BTreeSet<u32>,
    replaced: &BTreeSet<u32>,
) -> Vec<Finding> {
    let Some(fm) = adr.front_matter() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut successors = 0;
    for key in std::iter::once("supersedes").chain(SUPERSEDED_BY_KEYS) {
        let line = fm.key_lines.get(key).copied().unwrap_or(1);
        for link in links(adr, key) {
            if key != "supersedes" {
                successors += 1;
            }
            match adr::number_in_id(&link) {
                Some(n) if known.contains(&n) => {}
                _ => out.push(
                    SUPERSEDES_UNKNOWN
                        .finding(format!("{key}: no ADR with number `{link}`"))
                        .at(line)
                        .hint("correct the number or add the missing ADR"),
                ),
            }
        }
    }
    let superseded = fm
        .status
        .valid()
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("superseded"));
    let replaced_by_other = own.is_some_and(|n| replaced.contains(&n));
    if superseded && successors == 0 && !replaced_by_other {
        out.push(
            SUPERSEDED_WITHOUT_SUCCESSOR
                .finding("status is Superseded, but no ADR replaces it")
                .at(fm.key_lines.get("status").copied().unwrap_or(1))
                .hint("add superseded_by: \"NNN\" (or supersedes: on the successor)"),
        );
    }
    out
}

/// Numbers some ADR of `catalog` lists in `supersedes`.
pub fn replaced_numbers(catalog: &Catalog) -> BTreeSet<u32> {
    catalog
        .entries
        .iter()
        .filter_map(|e| e.adr.as_ref())
        .flat_map(|adr| links(adr, "supersedes"))
        .filter_map(|l| adr::number_in_id(&l))
        .collect()
}

/// One finding per run of missing numbers between 1 and the highest, the numbers
/// written with `width` digits (`adr.number_width`).
pub fn gap_findings(taken: &BTreeSet<u32>, width: usize) -> Vec<Finding> {
    let format_number = |n: u32| format_number_width(n, width);
    let mut out = Vec::new();
    let mut expected = 1u32;
    for &n in taken.iter().filter(|&&n| n > 0) {
        if n > expected {
            let last = n - 1;
            let message = if last == expected {
                format!("no ADR has number {}", format_number(expected))
            } else {
                format!(
                    "no ADR has a number from {} to {}",
                    format_number(expected),
                    format_number(last)
                )
            };
            out.push(
                NUMBER_GAP
                    .finding(message)
                    .hint("restore or renumber the ADR; ignore a gap left on purpose"),
            );
        }
        expected = n.saturating_add(1);
    }
    out
}

/// The finding for an ADR whose `adr_id` or file name carries a number above
/// [`MAX_NUMBER`] (which the numbering ignores).
pub fn too_large_finding(entry: &Entry) -> Option<Finding> {
    let (what, number, line) = match (entry.id_number(), entry.file_number) {
        (Some(n), _) if n > MAX_NUMBER => (
            "adr_id",
            n,
            entry
                .front_matter()
                .and_then(|fm| fm.key_lines.get("adr_id").copied()),
        ),
        (_, Some(n)) if n > MAX_NUMBER => ("the file name", n, None),
        _ => return None,
    };
    let finding = NUMBER_TOO_LARGE
        .finding(format!(
            "{what} carries the number {number}, above {MAX_NUMBER}; it is ignored for numbering"
        ))
        .hint("set the ADR's real number (`helix-gate next-number`) and rename the file to match");
    Some(finding.at(line.unwrap_or(1)))
}

/// The finding for an ADR of the directory whose file name carries no number.
pub fn unnumbered_finding(entry: &Entry) -> Option<Finding> {
    entry.file_number.is_none().then(|| {
        FILE_UNNUMBERED
            .finding(format!(
                "{} is in the ADR directory but not named NNN-slug.md",
                entry.link
            ))
            .at(1)
            .hint("finalize it with `helix-gate finalize`, or rename it after its adr_id")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_reported_as_runs() {
        let taken: BTreeSet<u32> = [1, 2, 5, 7].into();
        let messages: Vec<String> = gap_findings(&taken, 3)
            .into_iter()
            .map(|f| f.message)
            .collect();
        assert_eq!(
            messages,
            [
                "no ADR has a number from 003 to 004",
                "no ADR has number 006"
            ]
        );
        assert!(gap_findings(&[1, 2, 3].into(), 3).is_empty());
        assert_eq!(gap_findings(&[0, 2].into(), 3).len(), 1);
    }

    #[test]
    fn succession_links() {
        let old = Adr::parse("---\nadr_id: \"001\"\nstatus: Superseded\n---\n");
        let known: BTreeSet<u32> = [1, 2].into();
        let found = succession_findings(&old, Some(1), &known, &BTreeSet::new());
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, "superseded-without-successor");
        assert_eq!(found[0].line, Some(3));
        assert!(succession_findings(&old, Some(1), &known, &[1].into()).is_empty());
        let linked = Adr::parse(
            "---\nadr_id: \"001\"\nstatus: Superseded\nsuperseded-by: \"009\"\nsupersedes: [2]\n---\n",
        );
        let found = succession_findings(&linked, Some(1), &known, &BTreeSet::new());
        let rules: Vec<&str> = found.iter().map(|f| f.rule.as_str()).collect();
        assert_eq!(rules, ["supersedes-unknown"]);
        assert!(found[0].message.contains("superseded-by"), "{found:?}");
    }
}
