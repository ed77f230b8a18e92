//! `pre-commit`: what git's hook (and Claude Code's Bash tool, when it commits)
//! shows of a checked commit-to-be. Everything goes to stderr: that is what git
//! shows for a hook, and what Claude Code hands the model after "Exit code 1".

use anyhow::Context as _;

use super::ExitStatus;
use super::terminal::{print_stderr, use_color_stderr};
use crate::diagnostic::{Severity, Summary};
use crate::env;
use crate::git::{GitEnv, GitError};
use crate::precommit::{self, APPROVALS_FILE, Outcome, PreCommitError};
use crate::render::{self, plural};

/// Entry point of `helix-gate pre-commit`, run by git from the work tree root.
pub(super) fn run() -> anyhow::Result<ExitStatus> {
    let claude = env::var(env::CLAUDECODE).as_deref() == Some("1");
    let start = std::env::current_dir().context("cannot determine the current directory")?;
    let (text, status) = match precommit::check_commit(&start, &GitEnv::from_process()) {
        Ok(outcome) => {
            let status = if outcome.blocks() {
                ExitStatus::Failure
            } else {
                ExitStatus::Success
            };
            let text = if claude {
                render_compact(&outcome)
            } else {
                render_human(&outcome, use_color_stderr())
            };
            (text, status)
        }
        Err(err) => (failure_message(&err, claude), ExitStatus::Error),
    };
    print_stderr(&text);
    Ok(status)
}

const BYPASS: &str = "git commit --no-verify";

/// The path to name in "see details" hints: the failing file when there is exactly one.
fn details_target(outcome: &Outcome) -> String {
    let failing: Vec<&str> = outcome
        .reports
        .iter()
        .filter(|r| r.has_errors())
        .map(|r| r.path.as_str())
        .collect();
    match failing.as_slice() {
        [one] if one.contains([' ', '\'', '"']) => format!("'{one}'"),
        [one] => (*one).to_owned(),
        _ => "<file>".to_owned(),
    }
}

fn merge_note(outcome: &Outcome) -> Option<String> {
    (outcome.merge_in_progress && !outcome.reports.is_empty()).then(|| {
        format!(
            "merge in progress (MERGE_HEAD): checking the {} of the merge result",
            plural(outcome.reports.len(), "staged ADR")
        )
    })
}

fn unapproved_line(path: &str) -> String {
    format!(
        "`{path}` has no approved review of its staged content (commit.required_on_commit in {APPROVALS_FILE}); \
with that content in the working tree, run `helix-gate approve {path}`, then commit again"
    )
}

fn unmerged_line(path: &str) -> String {
    format!("`{path}` has unresolved merge conflicts in the index; resolve them and `git add` it")
}

/// Terminal output: the same diagnostics as `validate`, then how to see details and bypass.
/// A clean commit prints nothing but notes.
fn render_human(outcome: &Outcome, color: bool) -> String {
    let mut out = String::new();
    let mut line = |text: &str| {
        out.push_str("helix-gate: ");
        out.push_str(text);
        out.push('\n');
    };
    if let Some(note) = merge_note(outcome) {
        line(&note);
    }
    for note in &outcome.notes {
        line(&format!("note: {note}"));
    }
    for path in &outcome.unmerged {
        line(&format!("error: {}", unmerged_line(path)));
    }
    for path in &outcome.unapproved {
        line(&format!("error: {}", unapproved_line(path)));
    }
    let has_findings = outcome.reports.iter().any(|r| !r.findings.is_empty());
    if has_findings {
        out.push_str(&render::human(&outcome.reports, color));
    }
    if outcome.blocks() {
        out.push_str(&format!(
            "helix-gate: commit blocked: staged ADRs have errors (checked as staged, not as in the working tree). \
Details: `helix-gate validate {}`; emergency bypass: `{BYPASS}`\n",
            details_target(outcome)
        ));
    }
    out
}

/// Output for Claude Code (`CLAUDECODE=1`): the model reads it as the failed command's
/// error text, so it is short, names each problem with its fix, and says what to do next.
fn render_compact(outcome: &Outcome) -> String {
    let mut out = String::new();
    let summary = Summary::of(&outcome.reports);
    if let Some(note) = merge_note(outcome) {
        out.push_str(&format!("helix-gate: {note}\n"));
    }
    for note in &outcome.notes {
        out.push_str(&format!("helix-gate: note: {note}\n"));
    }
    if outcome.blocks() {
        let failing = outcome.reports.iter().filter(|r| r.has_errors()).count();
        out.push_str(&format!(
            "helix-gate blocked this commit: {} in {} (checked as staged in the index, not the working tree).\n",
            plural(
                summary.errors + outcome.unmerged.len() + outcome.unapproved.len(),
                "error"
            ),
            plural(
                failing + outcome.unmerged.len() + outcome.unapproved.len(),
                "staged ADR"
            )
        ));
        for path in &outcome.unmerged {
            out.push_str(&format!("- {}\n", unmerged_line(path)));
        }
        for path in &outcome.unapproved {
            out.push_str(&format!("- {}\n", unapproved_line(path)));
        }
        out.push_str(&render::compact::lines(&outcome.reports, Severity::Error));
        if summary.warnings > 0 {
            out.push_str(&format!(
                "({} not shown: they do not block; see `helix-gate validate {}`)\n",
                plural(summary.warnings, "warning"),
                details_target(outcome)
            ));
        }
        out.push_str(
            "Fix these errors in the files, stage them again with `git add`, then retry the same commit.\n",
        );
    } else if summary.warnings > 0 {
        out.push_str(&format!(
            "helix-gate: the staged ADRs pass with {}:\n",
            plural(summary.warnings, "warning")
        ));
        out.push_str(&render::compact::lines(&outcome.reports, Severity::Warning));
    }
    out
}

/// The message for a commit that could not be checked (exit 2, which also blocks the commit).
fn failure_message(err: &PreCommitError, claude: bool) -> String {
    // Outside a work tree there is no commit to bypass, so the bypass is only offered when a
    // real commit is stuck on a failure that is not the author's.
    let (what, next, bypass) = match err {
        PreCommitError::Git(GitError::NotARepository { path }) => (
            format!(
                "not inside a git repository ({}); there is no commit to check",
                path.display()
            ),
            "run it inside a work tree; it normally runs from the git pre-commit hook",
            false,
        ),
        PreCommitError::Git(GitError::Bare) => (
            "this is a bare repository: there is no work tree and no index a commit could be made from, so nothing to check".to_owned(),
            "run it inside a work tree (or a linked worktree) of the repository",
            false,
        ),
        PreCommitError::Config(_) | PreCommitError::Approvals(_) => (
            err.to_string(),
            "fix the configuration (`helix-gate validate` shows the same error), then commit again",
            true,
        ),
        PreCommitError::Git(_) => (
            format!("cannot read the commit-to-be: {err}"),
            "this is a problem with the repository or helix-gate, not with an ADR",
            true,
        ),
    };
    if claude {
        format!(
            "helix-gate pre-commit failed (infrastructure, not an ADR finding): {what}. {next}. Tell the user; do not change ADRs because of this message.\n"
        )
    } else if bypass {
        format!(
            "helix-gate pre-commit: error: {what}\n  hint: {next}; emergency bypass: `{BYPASS}`\n"
        )
    } else {
        format!("helix-gate pre-commit: error: {what}\n  hint: {next}\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{FileReport, Finding};

    fn outcome(findings: Vec<Finding>) -> Outcome {
        Outcome {
            reports: vec![FileReport {
                path: "adr/001 x.md".into(),
                findings,
            }],
            ..Outcome::default()
        }
    }

    #[test]
    fn human_output_ends_with_details_and_bypass_when_blocked() {
        let o = outcome(vec![
            Finding::new("section-missing", Severity::Error, "no Kontext")
                .at(3)
                .hint("add it"),
        ]);
        let text = render_human(&o, false);
        assert!(text.starts_with("adr/001 x.md:3: error[section-missing] no Kontext\n  hint: add it\n1 file checked: 1 error, 0 warnings\n"), "{text}");
        assert!(
            text.ends_with("Details: `helix-gate validate 'adr/001 x.md'`; emergency bypass: `git commit --no-verify`\n"),
            "{text}"
        );
        assert_eq!(render_human(&outcome(vec![]), false), "");
    }

    #[test]
    fn compact_output_lists_errors_with_fixes_and_no_bypass() {
        let o = outcome(vec![
            Finding::new("section-missing", Severity::Error, "no Kontext")
                .at(3)
                .hint("add it"),
            Finding::new("acceptance-criteria-min", Severity::Warning, "few criteria"),
        ]);
        let text = render_compact(&o);
        assert_eq!(
            text,
            "helix-gate blocked this commit: 1 error in 1 staged ADR (checked as staged in the index, not the working tree).\n\
- adr/001 x.md:3 [section-missing] no Kontext. Fix: add it\n\
(1 warning not shown: they do not block; see `helix-gate validate 'adr/001 x.md'`)\n\
Fix these errors in the files, stage them again with `git add`, then retry the same commit.\n"
        );
        assert!(!text.contains("--no-verify"));
    }
}
