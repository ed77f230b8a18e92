//! `helix-gate check`: the changes of a branch against the rules of the ADRs
//! that govern them (CI), and `helix-gate override`: a person's override of one
//! rule for one commit.

use clap::ValueEnum;

use super::terminal::{current_root, print, print_stderr};
use super::{ExitStatus, ReportFormat};
use crate::adr_dir::{check, overrides};
use crate::diagnostic::FileReport;
use crate::env;
use crate::render::markdown::{self, Comment};
use crate::text::escape_controls;

/// The output formats of `check`: those of `validate`, and the pull request comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Human,
    Json,
    /// SARIF 2.1.0 (GitHub code scanning).
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
    /// GitLab Code Quality JSON.
    Gitlab,
    /// JUnit XML.
    Junit,
    /// A pull request comment: "Decisions governing this change".
    Markdown,
}

impl CheckFormat {
    fn report_format(self) -> Option<ReportFormat> {
        Some(match self {
            CheckFormat::Human => ReportFormat::Human,
            CheckFormat::Json => ReportFormat::Json,
            CheckFormat::Sarif => ReportFormat::Sarif,
            CheckFormat::Github => ReportFormat::Github,
            CheckFormat::Gitlab => ReportFormat::Gitlab,
            CheckFormat::Junit => ReportFormat::Junit,
            CheckFormat::Markdown => return None,
        })
    }
}

/// Where a link to the ADR `file` leads: its page on GitHub in a GitHub Actions
/// run, else the repository-relative path.
fn href(file: &str) -> String {
    match (
        env::var(env::GITHUB_SERVER_URL),
        env::var(env::GITHUB_REPOSITORY),
        env::var(env::GITHUB_SHA),
    ) {
        (Some(server), Some(repo), Some(sha)) => {
            format!("{}/{repo}/blob/{sha}/{file}", server.trim_end_matches('/'))
        }
        _ => file.to_owned(),
    }
}

pub(super) fn run(base: Option<&str>, format: CheckFormat) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    let mut checked = check::check_branch(&root, base)?;
    let status = if checked.reports.iter().any(FileReport::has_errors) {
        ExitStatus::Failure
    } else {
        ExitStatus::Success
    };
    print_stderr(&format!(
        "helix-gate check: {} changed since {} ({}); {} governing them{}\n",
        crate::text::plural(checked.changed.len(), "file"),
        escape_controls(&checked.base),
        checked
            .base_commit
            .get(..12)
            .unwrap_or(&checked.base_commit),
        crate::text::plural(checked.governing.len(), "ADR"),
        if checked.skipped.is_empty() {
            String::new()
        } else {
            format!(
                "; {} left out (binary or too large)",
                crate::text::plural(checked.skipped.len(), "file")
            )
        }
    ));
    if let Some(format) = format.report_format() {
        super::validate::output(&checked.reports, format, None)?;
    } else {
        for adr in &mut checked.governing {
            adr.href = href(&adr.href);
        }
        print(&markdown::comment(&Comment {
            base: &checked.base,
            base_commit: &checked.base_commit,
            changed: checked.changed.len(),
            adrs: &checked.governing,
        }))?;
    }
    Ok(status)
}

/// `helix-gate override RULE --reason TEXT`.
pub(super) fn override_rule(rule: &str, reason: &str) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    let index = check::governing_index(&root)?;
    match overrides::record(&root, &index, rule, reason) {
        Ok(made) => {
            print(&format!(
                "recorded: the next commit that {} would block goes through, once ({}). `helix-gate report` shows it.\n",
                escape_controls(&made.rule),
                escape_controls(&made.note())
            ))?;
            Ok(ExitStatus::Success)
        }
        Err(e) => {
            print_stderr(&format!(
                "helix-gate: error: {}\n",
                escape_controls(&e.to_string())
            ));
            Ok(ExitStatus::Error)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_report_format_is_a_check_format() {
        for f in CheckFormat::value_variants() {
            let name = f.to_possible_value().unwrap();
            let as_report = ReportFormat::from_str(name.get_name(), false);
            assert_eq!(as_report.ok(), f.report_format(), "{}", name.get_name());
        }
    }
}
