//! What `pre-commit` shows of a checked commit-to-be: terminal text for a person
//! ([`human`]) and the compact form Claude Code's Bash tool hands the model after
//! "Exit code 1" ([`compact`]). Both take the per-path reports (checked ADRs, and ADRs
//! that could not be checked with why) and the notes about the commit as a whole
//! (findings without a path). The framing around them (a merge in progress, the
//! blocked line with its bypass, a failure to check at all) is the CLI's; [`Blocking`]
//! tells it what blocks.

use std::fmt::Write as _;

use super::{compact, plural, summary_line};
use crate::diagnostic::{FileReport, Finding, Severity, Summary};
use crate::rules::commit::{APPROVAL_REQUIRED, STAGED_CONFLICT, STAGED_SYMLINK, was_checked};
use crate::text::escape_controls;

/// The location shown for a note about the commit as a whole.
const TOOL: &str = "helix-gate";

/// The staged ADRs that block a commit, grouped by what the author has to do.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Blocking<'a> {
    /// Unresolved merge conflicts in the index ([`STAGED_CONFLICT`]): resolve, `git add`.
    pub conflicted: Vec<&'a str>,
    /// Symbolic links that lead to no file of the commit ([`STAGED_SYMLINK`]): replace them.
    pub links: Vec<&'a str>,
    /// Errors of the ADR rules: fix the file, `git add` it.
    pub invalid: Vec<&'a str>,
    /// No approved review of the staged content ([`APPROVAL_REQUIRED`]): `helix-gate approve`.
    pub unapproved: Vec<&'a str>,
}

impl<'a> Blocking<'a> {
    /// Sort each report with errors into the groups its errors call for (one ADR may be in
    /// two: a duplicate `adr_id` is found after the approval was looked up).
    pub fn of(reports: &'a [FileReport]) -> Blocking<'a> {
        let mut blocking = Blocking::default();
        for report in reports {
            let errors = || {
                report
                    .findings
                    .iter()
                    .filter(|f| f.severity == Severity::Error)
            };
            let path = report.path.as_str();
            if errors().any(|f| f.rule == STAGED_CONFLICT.id) {
                blocking.conflicted.push(path);
            }
            if errors().any(|f| f.rule == STAGED_SYMLINK.id) {
                blocking.links.push(path);
            }
            if errors().any(|f| {
                f.rule != STAGED_CONFLICT.id
                    && f.rule != STAGED_SYMLINK.id
                    && f.rule != APPROVAL_REQUIRED.id
            }) {
                blocking.invalid.push(path);
            }
            if errors().any(|f| f.rule == APPROVAL_REQUIRED.id) {
                blocking.unapproved.push(path);
            }
        }
        blocking
    }

    pub fn blocks(&self) -> bool {
        !(self.conflicted.is_empty()
            && self.links.is_empty()
            && self.invalid.is_empty()
            && self.unapproved.is_empty())
    }
}

/// A path as one word of a suggested shell command: quoted when it holds a space or a quote,
/// control characters escaped (it is shown, not run).
pub fn shell_word(path: &str) -> String {
    let path = escape_controls(path);
    if path.contains([' ', '\'', '"']) {
        format!("'{path}'")
    } else {
        path.into_owned()
    }
}

/// The file to name in a suggested command: the one path, or `<file>` for none or several.
pub fn command_target(paths: &[&str]) -> String {
    match paths {
        [one] => shell_word(one),
        _ => "<file>".to_owned(),
    }
}

/// Terminal text: the notes, every finding of `reports` in the form `validate` uses, and, when
/// a checked ADR has findings, the summary line over the checked ADRs (ADRs that could not be
/// checked have a report that says why, but are not counted). A clean commit prints nothing.
pub fn human(reports: &[FileReport], notes: &[Finding], color: bool) -> String {
    let mut out = String::new();
    for note in notes {
        super::human::finding(&mut out, TOOL, note, color);
    }
    super::human::findings(&mut out, reports, color);
    let mut summary = Summary::default();
    for report in reports.iter().filter(|r| was_checked(r)) {
        let one = Summary::of(std::slice::from_ref(report));
        summary.files += 1;
        summary.errors += one.errors;
        summary.warnings += one.warnings;
        summary.infos += one.infos;
    }
    if summary.errors + summary.warnings + summary.infos > 0 {
        out.push_str(&summary_line(&summary));
        out.push('\n');
    }
    out
}

/// The compact form for Claude Code: short, each problem with its fix, then what to do next.
/// Notes (what was not checked) come first; warnings are listed only when nothing blocks.
pub fn compact(reports: &[FileReport], notes: &[Finding]) -> String {
    let mut out = String::new();
    for note in notes {
        note_line(&mut out, None, note);
    }
    for report in reports {
        for f in report
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Info)
        {
            note_line(&mut out, Some(&report.location(f)), f);
        }
    }
    let summary = Summary::of(reports);
    let blocking = Blocking::of(reports);
    if blocking.blocks() {
        let failing = reports.iter().filter(|r| r.has_errors()).count();
        let _ = writeln!(
            out,
            "helix-gate blocked this commit: {} in {} (checked as staged in the index, not the working tree).",
            plural(summary.errors, "error"),
            plural(failing, "staged ADR")
        );
        out.push_str(&compact::lines(reports, Severity::Error));
        if summary.warnings > 0 {
            let _ = writeln!(
                out,
                "({} not shown: they do not block; see `helix-gate validate {}`)",
                plural(summary.warnings, "warning"),
                command_target(&blocking.invalid)
            );
        }
        out.push_str(&next_steps(&blocking));
    } else if summary.warnings > 0 {
        let _ = writeln!(
            out,
            "helix-gate: the staged ADRs pass with {}:",
            plural(summary.warnings, "warning")
        );
        out.push_str(&compact::lines(reports, Severity::Warning));
    }
    out
}

/// Terminal text of the governing ADRs' rules on the staged files: every finding (an
/// overridden error is a note that says who overrode it and why) and a summary line.
pub fn code_human(reports: &[FileReport], color: bool) -> String {
    let mut out = String::new();
    if reports.is_empty() {
        return out;
    }
    super::human::findings(&mut out, reports, color);
    let summary = Summary::of(reports);
    let _ = writeln!(
        out,
        "rules of the governing ADRs on {}: {}, {}",
        plural(summary.files, "staged file"),
        plural(summary.errors, "error"),
        plural(summary.warnings, "warning")
    );
    out
}

/// The compact form of [`code_human`] for Claude Code: the errors with their fixes and
/// what to do next; warnings only when nothing blocks. An override is the person's.
pub fn code_compact(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for report in reports {
        for f in report
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Info)
        {
            note_line(&mut out, Some(&report.location(f)), f);
        }
    }
    let summary = Summary::of(reports);
    if summary.errors > 0 {
        let failing = reports.iter().filter(|r| r.has_errors()).count();
        let _ = writeln!(
            out,
            "helix-gate blocked this commit: {} of the rules of accepted ADRs in {} (checked as staged in the index).",
            plural(summary.errors, "error"),
            plural(failing, "staged file")
        );
        out.push_str(&compact::lines(reports, Severity::Error));
        out.push_str("Change the code so it follows each decision named above, stage it again with `git add`, then retry the same commit. If a decision itself is wrong, that is a new ADR; an override is only the user's to give.\n");
    } else if summary.warnings > 0 {
        let _ = writeln!(
            out,
            "helix-gate: the staged files pass with {} of the rules of governing ADRs:",
            plural(summary.warnings, "warning")
        );
        out.push_str(&compact::lines(reports, Severity::Warning));
    }
    out
}

/// `helix-gate: note: path [rule] message`.
fn note_line(out: &mut String, location: Option<&str>, f: &Finding) {
    let _ = write!(out, "helix-gate: note: ");
    if let Some(location) = location {
        let _ = write!(out, "{} ", escape_controls(location));
    }
    let _ = write!(
        out,
        "[{}] {}",
        escape_controls(&f.rule),
        escape_controls(&f.message)
    );
    if let Some(hint) = &f.hint {
        let _ = write!(out, ". Fix: {}", escape_controls(hint));
    }
    out.push('\n');
}

/// What the model does next, in the order the problems have to be solved.
fn next_steps(blocking: &Blocking<'_>) -> String {
    let mut steps = Vec::new();
    if !blocking.conflicted.is_empty() {
        steps.push("resolve the merge conflicts and `git add` the resolved files");
    }
    if !blocking.links.is_empty() {
        steps.push(
            "replace each symbolic link named above with the ADR file itself (or point it at an ADR file of the commit) and `git add` it",
        );
    }
    if !blocking.invalid.is_empty() {
        steps.push("fix these errors in the files, stage them again with `git add`");
    }
    if !blocking.unapproved.is_empty() {
        steps.push(
            "run the `helix-gate approve` named above for each ADR without an approved review (its staged content must be in the working tree)",
        );
    }
    let mut text = steps.join(", then ");
    if let Some(first) = text.get(..1) {
        let upper = first.to_uppercase();
        text.replace_range(..1, &upper);
    }
    format!("{text}, then retry the same commit.\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn report(path: &str, findings: Vec<Finding>) -> FileReport {
        FileReport {
            path: path.into(),
            findings,
        }
    }

    fn section_missing() -> Finding {
        Finding::new("section-missing", Severity::Error, "no Kontext")
            .at(3)
            .hint("add it")
    }

    #[test]
    fn blocking_groups_by_what_to_do() {
        let reports = [
            report("a.md", vec![STAGED_CONFLICT.finding("conflict")]),
            report(
                "b.md",
                vec![
                    APPROVAL_REQUIRED.finding("no review"),
                    Finding::new("adr-id-duplicate", Severity::Error, "dup"),
                ],
            ),
            report("c.md", vec![APPROVAL_REQUIRED.finding("no review")]),
            report(
                "d.md",
                vec![Finding::new("w", Severity::Warning, "just a warning")],
            ),
        ];
        let blocking = Blocking::of(&reports);
        assert_eq!(blocking.conflicted, ["a.md"]);
        assert_eq!(blocking.invalid, ["b.md"]);
        assert_eq!(blocking.unapproved, ["b.md", "c.md"]);
        assert!(blocking.blocks());
        assert!(!Blocking::of(&reports[3..]).blocks());
    }

    #[test]
    fn command_target_quotes_and_falls_back() {
        assert_eq!(command_target(&["adr/001 x.md"]), "'adr/001 x.md'");
        assert_eq!(command_target(&["adr/001-x.md"]), "adr/001-x.md");
        assert_eq!(command_target(&[]), "<file>");
        assert_eq!(command_target(&["a", "b"]), "<file>");
    }

    #[test]
    fn human_counts_only_checked_adrs_and_prints_notes_first() {
        let reports = [
            report("adr/001-x.md", vec![section_missing()]),
            report(
                "adr/002-link.md",
                vec![crate::rules::commit::STAGED_SKIPPED.finding("not checked: a link")],
            ),
            report("adr/003-y.md", vec![]),
        ];
        let notes = [crate::rules::commit::COMMITTED_UNREADABLE.finding("2 unreadable")];
        assert_eq!(
            human(&reports, &notes, false),
            "helix-gate: info[committed-adr-unreadable] 2 unreadable\n\
adr/001-x.md:3: error[section-missing] no Kontext\n  hint: add it\n\
adr/002-link.md: info[staged-skipped] not checked: a link\n\
2 files checked: 1 error, 0 warnings\n"
        );
        // No checked ADR has findings: no summary line.
        assert_eq!(
            human(&reports[1..], &[], false),
            "adr/002-link.md: info[staged-skipped] not checked: a link\n"
        );
        assert_eq!(human(&reports[2..], &[], false), "");
    }

    #[test]
    fn compact_lists_errors_with_fixes_and_the_next_steps() {
        let reports = [
            report("adr/001 x.md", vec![section_missing()]),
            report(
                "adr/002-y.md",
                vec![APPROVAL_REQUIRED.finding("no review").hint("approve it")],
            ),
            report(
                "adr/003-z.md",
                vec![Finding::new("w", Severity::Warning, "few")],
            ),
        ];
        assert_eq!(
            compact(&reports, &[]),
            "helix-gate blocked this commit: 2 errors in 2 staged ADRs (checked as staged in the index, not the working tree).\n\
- adr/001 x.md:3 [section-missing] no Kontext. Fix: add it\n\
- adr/002-y.md [approval-required] no review. Fix: approve it\n\
(1 warning not shown: they do not block; see `helix-gate validate 'adr/001 x.md'`)\n\
Fix these errors in the files, stage them again with `git add`, then run the `helix-gate approve` named above for each ADR without an approved review (its staged content must be in the working tree), then retry the same commit.\n"
        );
        assert_eq!(
            compact(&reports[2..], &[]),
            "helix-gate: the staged ADRs pass with 1 warning:\n- adr/003-z.md [w] few\n"
        );
    }
}
