//! `pre-commit`: what git's hook (and Claude Code's Bash tool, when it commits)
//! shows of a checked commit-to-be. Everything goes to stderr: that is what git
//! shows for a hook, and what Claude Code hands the model after "Exit code 1".

use std::fmt::Write as _;

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::terminal::{print_stderr, use_color_stderr};
use super::{ExitStatus, ReportFormat};
use crate::diagnostic::FileReport;
use crate::env;
use crate::git::{GitEnv, GitError};
use crate::precommit::{self, CommitCheck, PreCommitError};
use crate::render::commit::{Blocking, command_target};
use crate::render::{self, plural};

/// Entry point of `helix-gate pre-commit`, run by git from the work tree root.
pub(super) fn run(format: Option<ReportFormat>, files: &[PathBuf]) -> anyhow::Result<ExitStatus> {
    let claude = env::var(env::CLAUDECODE).as_deref() == Some("1");
    let start = std::env::current_dir().context("cannot determine the current directory")?;
    if !files.is_empty() {
        return run_files(&start, format, files, claude);
    }
    let (text, status) = match precommit::check_commit(&start, &GitEnv::from_process()) {
        Ok(outcome) => {
            // git runs the hook from the work tree's root: the governing index's
            // cache follows the ADRs the commit holds.
            crate::adr_dir::governs::refresh_cache_if_used(&start);
            // Nothing found says nothing here: a commit that stages no ADR (or deletes
            // the last one) passes in silence, as it always has.
            if let Some(found) = &outcome.detected {
                eprintln!("{}", found.note());
            }
            let status = if outcome.blocks() {
                ExitStatus::Failure
            } else {
                ExitStatus::Success
            };
            if let Some(format) = format.filter(|f| *f != ReportFormat::Human) {
                // A machine format is for CI or a report file: the staged ADRs' findings
                // (and the governing ADRs' rules on the staged files) on stdout, the same
                // exit status as the hook. `human` is the hook's own text.
                let rules = crate::config::load_rules(&start, None).ok();
                let mut all = outcome.reports.clone();
                all.extend(outcome.code.iter().cloned());
                super::validate::output(&all, format, rules.as_ref())?;
                return Ok(status);
            }
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

/// `pre-commit FILE...`: the named files from the work tree, as the pre-commit framework
/// passes them (`pre-commit run --all-files` names every ADR). Findings go to stderr
/// like the hook's, or to stdout in a machine `--format`.
fn run_files(
    start: &Path,
    format: Option<ReportFormat>,
    files: &[PathBuf],
    claude: bool,
) -> anyhow::Result<ExitStatus> {
    let outcome = match precommit::check_files(start, &GitEnv::from_process(), files) {
        Ok(outcome) => outcome,
        Err(err) => {
            print_stderr(&failure_message(&err, claude));
            return Ok(ExitStatus::Error);
        }
    };
    if let Some(found) = &outcome.detected {
        eprintln!("{}", found.note());
    } else if outcome.nothing_found && outcome.reports.is_empty() {
        eprintln!("{}", crate::config::detect::nothing_found_note());
    }
    for err in &outcome.read_errors {
        eprintln!(
            "helix-gate: error: {}",
            crate::text::escape_controls(&err.to_string())
        );
    }
    if let Some(format) = format.filter(|f| *f != ReportFormat::Human) {
        super::validate::output(&outcome.reports, format, None)?;
    } else if !outcome.reports.is_empty() {
        print_stderr(&render::human(&outcome.reports, use_color_stderr()));
    }
    Ok(if !outcome.read_errors.is_empty() {
        ExitStatus::Error
    } else if outcome.reports.iter().any(FileReport::has_errors) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    })
}

const BYPASS: &str = "git commit --no-verify";

fn merge_note(outcome: &CommitCheck) -> Option<String> {
    let checked = outcome.checked();
    (outcome.merge_in_progress && checked > 0).then(|| {
        format!(
            "merge in progress (MERGE_HEAD): checking the {} of the merge result",
            plural(checked, "staged ADR")
        )
    })
}

/// `1 staged ADR has` / `2 staged ADRs have`.
fn staged_adrs(n: usize, singular: &str, plural_verb: &str) -> String {
    let verb = if n == 1 { singular } else { plural_verb };
    format!("{} {verb}", plural(n, "staged ADR"))
}

/// The last line of a blocked commit: what blocks it, what to run next, and the bypass.
fn blocked_line(blocking: &Blocking<'_>, code_failing: &[&FileReport]) -> String {
    let mut reasons = Vec::new();
    if !code_failing.is_empty() {
        let rule = code_failing
            .iter()
            .flat_map(|r| &r.findings)
            .find(|f| f.severity == crate::diagnostic::Severity::Error)
            .map_or("<ADR-rule>", |f| f.rule.as_str());
        reasons.push(format!(
            "{} {} a rule of an accepted ADR; follow the decision, or a person overrides the rule for one commit with `helix-gate override {} --reason \"...\"`",
            plural(code_failing.len(), "staged file"),
            if code_failing.len() == 1 { "breaks" } else { "break" },
            crate::text::escape_controls(rule)
        ));
    }
    if !blocking.conflicted.is_empty() {
        reasons.push(format!(
            "{} unresolved merge conflicts; resolve them, then `git add {}`",
            staged_adrs(blocking.conflicted.len(), "has", "have"),
            command_target(&blocking.conflicted)
        ));
    }
    if !blocking.links.is_empty() {
        reasons.push(if blocking.links.len() == 1 {
            "1 staged ADR is a symbolic link that leads to no file of the commit; commit the ADR as a regular file".to_owned()
        } else {
            format!(
                "{} staged ADRs are symbolic links that lead to no file of the commit; commit the ADRs as regular files",
                blocking.links.len()
            )
        });
    }
    if !blocking.invalid.is_empty() {
        reasons.push(format!(
            "{} errors (checked as staged, not as in the working tree). Details: `helix-gate validate {}`",
            staged_adrs(blocking.invalid.len(), "has", "have"),
            command_target(&blocking.invalid)
        ));
    }
    if !blocking.unapproved.is_empty() {
        reasons.push(format!(
            "{} an approved review of the staged content; `helix-gate approve {}`",
            staged_adrs(blocking.unapproved.len(), "lacks", "lack"),
            command_target(&blocking.unapproved)
        ));
    }
    format!(
        "helix-gate: commit blocked: {}; emergency bypass: `{BYPASS}`\n",
        reasons.join("; ")
    )
}

/// Terminal output: the same diagnostics as `validate`, then how to see details and bypass.
/// A clean commit prints nothing but notes.
fn render_human(outcome: &CommitCheck, color: bool) -> String {
    let mut out = String::new();
    if let Some(note) = merge_note(outcome) {
        let _ = writeln!(out, "helix-gate: {note}");
    }
    out.push_str(&render::commit::human(
        &outcome.reports,
        &outcome.notes,
        color,
    ));
    out.push_str(&render::commit::code_human(&outcome.code, color));
    let blocking = Blocking::of(&outcome.reports);
    let code_failing: Vec<&FileReport> = outcome.code.iter().filter(|r| r.has_errors()).collect();
    if blocking.blocks() || !code_failing.is_empty() {
        out.push_str(&blocked_line(&blocking, &code_failing));
    }
    out
}

/// Output for Claude Code (`CLAUDECODE=1`): the model reads it as the failed command's
/// error text, so it is short, names each problem with its fix, and says what to do next.
fn render_compact(outcome: &CommitCheck) -> String {
    let mut out = String::new();
    if let Some(note) = merge_note(outcome) {
        let _ = writeln!(out, "helix-gate: {note}");
    }
    out.push_str(&render::commit::compact(&outcome.reports, &outcome.notes));
    out.push_str(&render::commit::code_compact(&outcome.code));
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
        PreCommitError::Config(_) => (
            err.to_string(),
            "fix the configuration (`helix-gate validate` shows the same error), then commit again",
            true,
        ),
        PreCommitError::Approvals(_) => (
            err.to_string(),
            "fix config/approvals.yaml (`helix-gate doctor` shows the same error), then commit again",
            true,
        ),
        PreCommitError::Git(_) => (
            format!("cannot read the commit-to-be: {err}"),
            "this is a problem with the repository or helix-gate, not with an ADR",
            true,
        ),
    };
    // Paths and git's messages inside `what` may come from the repository.
    let what = crate::text::escape_controls_multiline(&what);
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
    use crate::diagnostic::{FileReport, Finding, Severity};
    use crate::rules::commit::{APPROVAL_REQUIRED, STAGED_CONFLICT};

    fn outcome(findings: Vec<Finding>) -> CommitCheck {
        CommitCheck {
            reports: vec![FileReport {
                path: "adr/001 x.md".into(),
                findings,
            }],
            ..CommitCheck::default()
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

    #[test]
    fn blocked_line_says_what_blocks() {
        let text = render_human(
            &outcome(vec![APPROVAL_REQUIRED.finding("no review")]),
            false,
        );
        assert!(
            text.ends_with("helix-gate: commit blocked: 1 staged ADR lacks an approved review of the staged content; `helix-gate approve 'adr/001 x.md'`; emergency bypass: `git commit --no-verify`\n"),
            "{text}"
        );
        assert!(!text.contains("validate"), "{text}");

        let mut o = outcome(vec![Finding::new("section-missing", Severity::Error, "x")]);
        o.reports.push(FileReport {
            path: "adr/002-y.md".into(),
            findings: vec![STAGED_CONFLICT.finding("conflicts")],
        });
        let text = render_human(&o, false);
        assert!(
            text.ends_with("helix-gate: commit blocked: 1 staged ADR has unresolved merge conflicts; resolve them, then `git add adr/002-y.md`; 1 staged ADR has errors (checked as staged, not as in the working tree). Details: `helix-gate validate 'adr/001 x.md'`; emergency bypass: `git commit --no-verify`\n"),
            "{text}"
        );
    }
}
