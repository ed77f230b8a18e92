//! Rules of the git pre-commit gate about the commit-to-be rather than an ADR's text:
//! staged ADRs it cannot check (an unresolved conflict, a symbolic link that leads nowhere
//! inside the commit, a submodule entry),
//! the approval a repository may require before an ADR is committed, and committed ADRs
//! left out of the checks across files.
//!
//! Their checks live in `precommit`, which alone sees the index; they are declared here
//! so `helix-gate explain` knows every id the gate prints, and so the gate and the
//! renderers name them by these constants instead of string literals.

use crate::diagnostic::FileReport;

declare_rules! {
    /// ## What it does
    /// Blocks a commit whose index still holds an ADR with unresolved merge conflicts (entries
    /// in stages 1-3). Such an ADR is not checked: there is no single staged content to check.
    ///
    /// ## Why
    /// git refuses to commit an index with conflicts anyway; saying which ADR is in conflict is
    /// more useful than checking half-merged text.
    ///
    /// ## Example
    /// ```text
    /// adr/007-cache.md: error[staged-conflict] unresolved merge conflicts in the index
    ///   hint: resolve them, then `git add adr/007-cache.md`
    /// ```
    ///
    /// ## Fix
    /// Resolve the conflicts in the file, `git add` it, and commit again; the resolved content is
    /// then checked like any staged ADR.
    pub const STAGED_CONFLICT {
        id: "staged-conflict",
        severity: Error,
        category: Gate,
        summary: "a staged ADR has unresolved merge conflicts in the index",
    }

    /// ## What it does
    /// When the repository's `config/approvals.yaml` sets `commit: {required_on_commit: true}`,
    /// blocks a staged ADR that has no errors but no approved review of exactly its staged
    /// content either. pre-commit only looks the approval up; it never starts a reviewer. An ADR
    /// with errors is reported for its errors only.
    ///
    /// ## Why
    /// The project asked for every committed ADR to have passed the independent review; an
    /// approval is for exact bytes, so any change after it needs a new one.
    ///
    /// ## Example
    /// ```yaml
    /// # config/approvals.yaml
    /// commit:
    ///   required_on_commit: true
    /// ```
    ///
    /// ## Fix
    /// With the staged content in the working tree, run `helix-gate approve <file>`; once the
    /// review is approved, commit again.
    pub const APPROVAL_REQUIRED {
        id: "approval-required",
        severity: Error,
        category: Gate,
        summary: "a staged ADR has no approved review (commit.required_on_commit)",
    }

    /// ## What it does
    /// Notes a submodule (gitlink) entry that matches the ADR globs. It is not checked and does
    /// not block. (Symbolic links are followed instead, see `staged-symlink`.)
    ///
    /// ## Why
    /// A submodule entry is a commit of another repository, not a file of this one: checking
    /// its id as an ADR would report nonsense, and saying it was skipped keeps the gate honest
    /// about what it did not check.
    ///
    /// ## Fix
    /// Nothing to fix; the submodule's own repository is where its ADRs are gated.
    pub const STAGED_SKIPPED {
        id: "staged-skipped",
        severity: Info,
        category: Gate,
        summary: "a staged submodule entry matching the ADR globs is not checked",
    }

    /// ## What it does
    /// An ADR path staged as a symbolic link is checked by what a checkout of the commit would
    /// show there: the link is followed inside the index (relative to the link's folder, links
    /// on the way followed, at most 40), and the staged file it leads to is checked under the
    /// link's name. When that does not lead to a file of the commit, the link is refused with
    /// this error: an absolute target, a `..` above the repository root, a dangling link, a
    /// directory, a submodule, a loop or a chain of more than 40 links. A link the commit does
    /// not change is checked again when the commit changes where it leads.
    ///
    /// ## Why
    /// A link is an ADR like any other for everyone who checks the repository out. Skipping it
    /// would let a link to any file, or to a file outside the repository, pass the gate that
    /// the same content would fail as a regular file.
    ///
    /// ## Example
    /// ```text
    /// adr/009-cache.md: error[staged-symlink] a symbolic link that points to `../../notes.md`, which leads out of the repository
    /// ```
    ///
    /// ## Fix
    /// Commit the ADR as a regular file (`git rm --cached <link>`, put the file there, `git add`
    /// it), or point the link at an ADR file the commit contains.
    pub const STAGED_SYMLINK {
        id: "staged-symlink",
        severity: Error,
        category: Gate,
        summary: "a staged ADR is a symbolic link that does not lead to a file of the commit",
    }

    /// ## What it does
    /// Notes how many committed ADRs of the commit-to-be (unchanged by the commit) could not be
    /// read, e.g. in a partial clone without their blobs. They are left out of the checks across
    /// files (duplicate adr_id, unknown depends_on); the commit is not blocked because of them.
    ///
    /// ## Why
    /// They belong to earlier commits, so they must not block this one; but a duplicate of one
    /// of them cannot be found, and the note says so.
    ///
    /// ## Fix
    /// Make their objects available (e.g. `git fetch` in a partial clone) or run
    /// `helix-gate validate` on the working tree.
    pub const COMMITTED_UNREADABLE {
        id: "committed-adr-unreadable",
        severity: Info,
        category: Gate,
        summary: "committed ADRs could not be read and were left out of the duplicate adr_id check",
    }
}

/// Whether a pre-commit report stands for a staged ADR whose content was checked, rather than
/// one that could not be (its [`STAGED_CONFLICT`], [`STAGED_SYMLINK`] or [`STAGED_SKIPPED`]
/// finding says why).
pub fn was_checked(report: &FileReport) -> bool {
    !report.findings.iter().any(|f| {
        f.rule == STAGED_CONFLICT.id || f.rule == STAGED_SYMLINK.id || f.rule == STAGED_SKIPPED.id
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_conflicted_and_skipped_entries_count_as_unchecked() {
        let report = |findings| FileReport {
            path: "adr/001-x.md".into(),
            findings,
        };
        assert!(was_checked(&report(vec![])));
        assert!(was_checked(&report(vec![APPROVAL_REQUIRED.finding("x")])));
        assert!(!was_checked(&report(vec![STAGED_CONFLICT.finding("x")])));
        assert!(!was_checked(&report(vec![STAGED_SKIPPED.finding("x")])));
        assert!(!was_checked(&report(vec![STAGED_SYMLINK.finding("x")])));
    }
}
