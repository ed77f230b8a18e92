//! The Stop gate follows a draft the session finalized: a touched ADR that is
//! gone, but that `helix-gate finalize` moved (recorded in
//! `.helix-gate/finalized.jsonl`, see [`crate::adr_dir::moves`]), is replaced
//! by the ADR it became, so that file gets the Stop's checks and its review.
//!
//! Why here and not in `finalize`: finalize runs outside any session (through
//! the Bash tool or by a person) and does not know which session wrote the
//! draft; the session's state knows what it wrote, the record knows where it went.
//!
//! The record lives in the repository, so anything that can write there (a
//! cloned repository, a Bash command) can plant lines. A destination is
//! followed only when it is an ADR by the project's globs and lies inside the
//! project after every link: a planted line can never make the gate read,
//! block on, or send to the reviewer a file outside the project or one that
//! is not an ADR.

use std::path::Path;

use crate::config::settings::AdrMatcher;

/// Replace every touched path whose file is gone by where finalize moved it
/// (when that file exists, is an ADR and is inside the project); keeps the
/// order and drops duplicates. Returns the notes for the decision log
/// (`draft -> ADR`).
pub(super) fn follow(root: &Path, adrs: &AdrMatcher, touched: &mut Vec<String>) -> Vec<String> {
    let mut notes = Vec::new();
    let mut out: Vec<String> = Vec::with_capacity(touched.len());
    for rel in touched.drain(..) {
        let now = if root.join(&rel).symlink_metadata().is_err()
            && let Some(to) = crate::adr_dir::moves::destination(root, &rel)
            && adrs.is_adr(&to)
            && crate::fs::confine::inside(root, &root.join(&to))
            && root.join(&to).is_file()
        {
            notes.push(format!("{rel} was finalized into {to}; checking {to}"));
            to
        } else {
            rel
        };
        if !out.contains(&now) {
            out.push(now);
        }
    }
    *touched = out;
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher() -> AdrMatcher {
        crate::config::settings::Settings::builtin()
            .adr_matcher()
            .unwrap()
    }

    #[test]
    fn a_finalized_draft_is_replaced_by_its_adr_and_others_stay() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("adr")).unwrap();
        std::fs::write(root.join("adr/003-x.md"), "x").unwrap();
        std::fs::write(root.join("adr/001-a.md"), "a").unwrap();
        crate::adr_dir::moves::record(root, "s/output/ADR-x.md", "adr/003-x.md").unwrap();
        // Recorded, but its ADR is gone too: nothing to follow.
        crate::adr_dir::moves::record(root, "s/output/ADR-y.md", "adr/004-y.md").unwrap();
        let mut touched = vec![
            "adr/001-a.md".to_owned(),
            "s/output/ADR-x.md".to_owned(),
            "s/output/ADR-y.md".to_owned(),
            "adr/003-x.md".to_owned(),
        ];
        let notes = follow(root, &matcher(), &mut touched);
        assert_eq!(
            touched,
            ["adr/001-a.md", "adr/003-x.md", "s/output/ADR-y.md"]
        );
        assert_eq!(
            notes,
            ["s/output/ADR-x.md was finalized into adr/003-x.md; checking adr/003-x.md"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_record_never_leads_out_of_the_project_or_to_a_non_adr() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
        std::fs::create_dir_all(root.join("adr")).unwrap();
        std::fs::write(root.join("README.md"), "readme").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("adr/out")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.md"),
            root.join("adr/009-link.md"),
        )
        .unwrap();
        let secret = outside.path().join("secret.md");
        let planted = [
            ("s/a.md", secret.to_str().unwrap()),
            ("s/b.md", "adr/out/secret.md"),
            ("s/c.md", "adr/009-link.md"),
            ("s/d.md", "README.md"),
        ];
        for (from, to) in planted {
            crate::adr_dir::moves::record(root, from, to).unwrap();
        }
        let mut touched: Vec<String> = planted.iter().map(|(f, _)| (*f).to_owned()).collect();
        let before = touched.clone();
        let notes = follow(root, &matcher(), &mut touched);
        assert_eq!(touched, before);
        assert!(notes.is_empty(), "{notes:?}");
    }
}
