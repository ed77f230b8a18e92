//! Rules of the git pre-commit gate about the commit-to-be rather than an ADR's text:
//! staged ADRs it cannot check (an unresolved conflict, a symlink or submodule entry),
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
    /// Notes an index entry that matches the ADR globs but is not a file: a symbolic link (its
    /// blob holds only the link target) or a submodule entry (a commit of another repository).
    /// It is not checked and does not block.
    ///
    /// ## Why
    /// Checking a link target's name or a commit id as an ADR would report nonsense; saying it
    /// was skipped keeps the gate honest about what it did not check.
    ///
    /// ## Fix
    /// Nothing to fix. A symlink's target is checked when the target itself is a staged ADR.
    pub const STAGED_SKIPPED {
        id: "staged-skipped",
        severity: Info,
        category: Gate,
        summary: "a staged symlink or submodule entry matching the ADR globs is not checked",
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
/// one that could not be (its [`STAGED_CONFLICT`] or [`STAGED_SKIPPED`] finding says why).
pub fn was_checked(report: &FileReport) -> bool {
    !report
        .findings
        .iter()
        .any(|f| f.rule == STAGED_CONFLICT.id || f.rule == STAGED_SKIPPED.id)
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
    }
}
