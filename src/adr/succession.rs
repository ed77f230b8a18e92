//! Which ADRs an ADR replaces and which replace it, as the ADR itself says:
//! front matter `supersedes:` and `superseded_by:` (a list in the form
//! `depends_on` uses, `["001"]`, or one value; the seeds also write
//! `superseded-by`), and for formats without front matter the status text
//! (`Superseded by ADR-0005`, adr-tools' `Superceded by [3. Y](0003-y.md)` and
//! `Supersedes [1. X](0001-x.md)` lines in a `## Status` section).

use super::Adr;
use crate::yaml::{self, Value};

/// Front matter keys naming the successors.
pub const SUPERSEDED_BY_KEYS: [&str; 2] = ["superseded_by", "superseded-by"];

/// The values listed under `key` in the front matter (a scalar or a list), as written.
pub fn listed(adr: &Adr, key: &str) -> Vec<String> {
    let Some(fm) = adr.front_matter() else {
        return Vec::new();
    };
    match fm.map.get(key) {
        Some(Value::Sequence(items)) => items.iter().filter_map(yaml::scalar_text).collect(),
        Some(value @ (Value::String(_) | Value::Number(_))) => {
            yaml::scalar_text(value).into_iter().collect()
        }
        _ => Vec::new(),
    }
}

/// The first word of a status, lower-cased (`Superseded by ADR-0005` is `superseded`).
pub fn status_word(status: &str) -> String {
    status
        .trim()
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// The ADR's status: the front matter's, else the body's.
pub fn status(adr: &Adr) -> Option<String> {
    adr.front_matter()
        .and_then(|fm| fm.status.valid().cloned())
        .or_else(|| adr.body_status().map(|v| v.value))
}

/// The number after `phrase` (case-insensitive) in `text`: `superseded by ADR-0005`,
/// `Superseded by [2. X](0002-x.md)`.
fn number_after(text: &str, phrases: &[&str]) -> Option<u32> {
    let lower = text.to_ascii_lowercase();
    let (at, len) = phrases
        .iter()
        .find_map(|p| lower.find(p).map(|at| (at, p.len())))?;
    let rest = &text[at + len..];
    let start = rest.find(|c: char| c.is_ascii_digit())?;
    // The number must follow closely (`by ADR-0005`, `by [2. X]`), not a digit far away.
    if start > 8 {
        return None;
    }
    let digits: String = rest[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The lines of the status text: the `Status:` line, or the `## Status` section.
fn status_lines(adr: &Adr) -> Vec<String> {
    let keys = ["status".to_owned()];
    if let Some(section) = adr.section(&keys) {
        return adr
            .content(section)
            .lines()
            .map(|l| l.trim().to_owned())
            .filter(|l| !l.is_empty())
            .collect();
    }
    adr.body_status().map(|v| v.value).into_iter().collect()
}

/// Numbers of the ADRs that replace `adr`, as it says.
pub fn successors(adr: &Adr) -> Vec<u32> {
    let mut out: Vec<u32> = SUPERSEDED_BY_KEYS
        .iter()
        .flat_map(|key| listed(adr, key))
        .filter_map(|id| super::number_in_id(&id))
        .collect();
    let phrases = ["superseded by", "superceded by"];
    out.extend(status(adr).and_then(|s| number_after(&s, &phrases)));
    out.extend(
        status_lines(adr)
            .iter()
            .filter_map(|l| number_after(l, &phrases)),
    );
    out.sort_unstable();
    out.dedup();
    out
}

/// Numbers of the ADRs `adr` says it replaces.
pub fn predecessors(adr: &Adr) -> Vec<u32> {
    let mut out: Vec<u32> = listed(adr, "supersedes")
        .iter()
        .filter_map(|id| super::number_in_id(id))
        .collect();
    out.extend(status_lines(adr).iter().filter_map(|line| {
        let lower = line.to_ascii_lowercase();
        let lower = lower.trim_start_matches(['*', '-', ' ']);
        if lower.starts_with("supersedes") || lower.starts_with("supercedes") {
            number_after(line, &["supersedes", "supercedes"])
        } else {
            None
        }
    }));
    out.sort_unstable();
    out.dedup();
    out
}

/// Whether the status says the ADR is superseded.
pub fn is_superseded(adr: &Adr) -> bool {
    status(adr).is_some_and(|s| matches!(status_word(&s).as_str(), "superseded" | "superceded"))
}

/// Whether the status makes the ADR binding (Accepted or Implemented, any case).
pub fn is_binding(adr: &Adr) -> bool {
    status(adr).is_some_and(|s| matches!(status_word(&s).as_str(), "accepted" | "implemented"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_lists_and_scalars() {
        let adr = Adr::parse(
            "---\nstatus: Superseded\nsuperseded_by: [\"004\", 5]\nsupersedes: \"001\"\n---\n# T\n",
        );
        assert_eq!(successors(&adr), [4, 5]);
        assert_eq!(predecessors(&adr), [1]);
        assert!(is_superseded(&adr));
        assert!(!is_binding(&adr));
    }

    #[test]
    fn status_text_of_formats_without_front_matter() {
        let old = Adr::parse("# 1. Old\n\n## Status\n\nSuperceded by [3. New](0003-new.md)\n");
        assert_eq!(successors(&old), [3]);
        assert!(is_superseded(&old));
        let new = Adr::parse(
            "# 3. New\n\n## Status\n\nAccepted\n\nSupersedes [1. Old](0001-old.md)\n\n## Context\n\nSee ADR 7.\n",
        );
        assert_eq!(predecessors(&new), [1]);
        assert!(successors(&new).is_empty());
        assert!(is_binding(&new));
        let madr = Adr::parse("---\nstatus: superseded by ADR-0005\n---\n# T\n");
        assert_eq!(successors(&madr), [5]);
        assert!(is_superseded(&madr));
        assert_eq!(status_word("Superseded by [2. X](0002-x.md)"), "superseded");
    }
}
