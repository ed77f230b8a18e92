//! `helix-gate approve`: the command line around [`crate::approval::approve`], and the
//! terminal and JSON renderings of an [`Approval`].

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::terminal::{current_root, print, print_stderr, use_color};
use super::{ExitStatus, Format};
use crate::approval::{
    Approval, ApproveOptions, FileRun, ResultDocument, Stage, Verdict, approve, round3,
};
use crate::diagnostic::Severity;
use crate::text::escape_controls;

/// Version of the `approve --format json` document.
const JSON_VERSION: u32 = 1;

#[derive(Serialize)]
struct JsonOutput<'a> {
    schema: &'static str,
    version: u32,
    #[serde(flatten)]
    document: &'a ResultDocument,
    runs: &'a [FileRun],
    /// `--out`: where the signed result was written.
    #[serde(skip_serializing_if = "Option::is_none")]
    out: Option<String>,
    cached: bool,
    reviewer_ran: bool,
    result_file: Option<String>,
    cost_usd: f64,
    duration_seconds: f64,
    exit_code: u8,
}

/// `helix-gate approve --override FILE approved|rejected --reason TEXT [--type T] [--out FILE]`.
pub(super) fn judge(
    judged: &[String],
    kind: &str,
    reason: &str,
    out: Option<&Path>,
    format: Format,
) -> anyhow::Result<ExitStatus> {
    let [file, judgement] = judged else {
        anyhow::bail!("--override takes a FILE and a judgement (approved or rejected)");
    };
    let judgement = match judgement.as_str() {
        "approved" => Verdict::Approved,
        "rejected" => Verdict::Rejected,
        other => anyhow::bail!(
            "a judgement is `approved` or `rejected`, not `{}`",
            escape_controls(other)
        ),
    };
    let root = current_root();
    if out.is_some() && judgement != Verdict::Approved {
        anyhow::bail!(
            "--out with --override writes a person's approval; a `rejected` judgement grants none"
        );
    }
    let recorded =
        crate::approval::judgement::record(&root, kind, Path::new(file), judgement, reason)?;
    let written = match (out, &recorded.granted) {
        (Some(out), Some((document, judged))) => {
            Some(crate::approval::result_file::write_document(
                &root,
                &crate::paths::absolute(out),
                document,
                std::slice::from_ref(judged),
            )?)
        }
        (Some(_), None) => anyhow::bail!(
            "recorded, but no result written: the latest verdict of {} is already approved, so nothing was overridden; `helix-gate approve --out FILE {}` writes its result",
            escape_controls(&recorded.file),
            escape_controls(&recorded.file)
        ),
        (None, _) => None,
    };
    let shown_out = written.as_ref().map(|p| crate::paths::display(&root, p));
    let text = match format {
        Format::Json => {
            serde_json::to_string_pretty(&serde_json::json!({
                "schema": "helix-gate/judgement",
                "version": 1,
                "file": recorded.file,
                "approval_id": recorded.verdict.approval_id,
                "verdict": recorded.verdict.result,
                "judgement": recorded.judgement,
                "kind": recorded.kind(),
                "override": recorded.granted.as_ref().map(|(document, _)| &document.approval_id),
                "out": shown_out,
            }))? + "\n"
        }
        Format::Human => {
            let mut text = format!(
                "recorded: a person judged {} for {} (approval {} said {}): {}; see `helix-gate stats`\n",
                recorded.judgement.as_str(),
                escape_controls(&recorded.file),
                escape_controls(&recorded.verdict.approval_id),
                recorded.verdict.result.as_str(),
                recorded.kind(),
            );
            if let Some((document, _)) = &recorded.granted {
                let _ = writeln!(
                    text,
                    "a person's override approves this content of {} (approval {}): the commit, `gate` and `approve` accept it until the file changes",
                    escape_controls(&recorded.file),
                    escape_controls(&document.approval_id)
                );
            }
            if let Some(out) = &shown_out {
                let _ = writeln!(text, "signed override result: {}", escape_controls(out));
            }
            text
        }
    };
    print(&text)?;
    Ok(ExitStatus::Success)
}

/// The switches of `helix-gate approve`.
#[derive(Clone, Copy)]
pub(super) struct Flags<'a> {
    pub no_cache: bool,
    pub require_consent: bool,
    /// `--out FILE`: write the signed result there.
    pub out: Option<&'a Path>,
}

/// `helix-gate approve FILE... [--type T] [--no-cache] [--out FILE] [--format F]`.
pub(super) fn run(
    files: &[PathBuf],
    kind: &str,
    flags: Flags<'_>,
    format: Format,
) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    let files: Vec<PathBuf> = files.iter().map(|f| crate::paths::absolute(f)).collect();
    let options = ApproveOptions {
        no_cache: flags.no_cache,
        progress: std::io::stderr().is_terminal(),
        deadline: None,
        config_root: None,
        require_consent: flags.require_consent,
    };
    let approval = approve(&root, &files, kind, &options)?;
    let out = flags
        .out
        .map(|out| {
            crate::approval::result_file::write(&root, &crate::paths::absolute(out), &approval)
        })
        .transpose()?;
    let status = exit_status(&approval);
    let text = match format {
        Format::Json => {
            let out = JsonOutput {
                schema: "helix-gate/approve",
                version: JSON_VERSION,
                document: &approval.document,
                runs: &approval.files,
                out: out.as_ref().map(|p| crate::paths::display(&root, p)),
                cached: approval.cached,
                reviewer_ran: approval.reviewer_ran,
                result_file: approval
                    .result_path
                    .as_ref()
                    .map(|p| crate::paths::display(&root, p)),
                cost_usd: approval.cost_usd,
                duration_seconds: round3(approval.duration.as_secs_f64()),
                exit_code: status.code(),
            };
            serde_json::to_string_pretty(&out)? + "\n"
        }
        Format::Human => {
            let mut text = human(&root, &approval, use_color());
            if let Some(out) = &out {
                let _ = writeln!(
                    text,
                    "signed result: {}",
                    escape_controls(&crate::paths::display(&root, out))
                );
            }
            text
        }
    };
    print(&text)?;
    for note in &approval.notes {
        print_stderr(&format!("helix-gate: note: {}\n", escape_controls(note)));
    }
    Ok(status)
}

/// Exit status of `helix-gate approve`: 0 approved, 1 rejected or
/// `needs_revision`, 2 when the reviewer failed (infrastructure).
fn exit_status(approval: &Approval) -> ExitStatus {
    if approval.failure.is_some() {
        ExitStatus::Error
    } else if approval.is_approved() {
        ExitStatus::Success
    } else {
        ExitStatus::Failure
    }
}

/// Terminal text of an approval. File names, the type, the reviewer's words and its failure
/// text are shown with control characters escaped.
fn human(root: &Path, approval: &Approval, color: bool) -> String {
    let paint = |code: &str, text: &str| {
        if color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    };
    let d = &approval.document;
    let mut out = String::new();
    let verdict = match d.result {
        Verdict::Approved => paint("1;32", "approved"),
        Verdict::Rejected => paint("1;31", "rejected"),
        Verdict::NeedsRevision => paint("1;33", "needs_revision"),
    };
    let _ = writeln!(
        out,
        "{verdict}: {} (type {})",
        escape_controls(&d.files.join(", ")),
        escape_controls(&d.approval_type)
    );
    match (&d.stage, &approval.failure) {
        (Stage::Deterministic, _) => {
            let errors = d
                .findings
                .iter()
                .filter(|f| f.severity == Severity::Error)
                .count();
            let _ = writeln!(
                out,
                "  the deterministic checks found {errors} error(s); no reviewer was started (no cost)"
            );
        }
        (Stage::Cache | Stage::Override, _) if d.person_override.is_some() => {
            let _ = writeln!(
                out,
                "  approved by a person's override earlier for this exact content (approval {}, {}); no reviewer was started",
                escape_controls(&d.approval_id),
                escape_controls(&d.timestamp)
            );
        }
        (Stage::Cache | Stage::Override, _) => {
            let _ = writeln!(
                out,
                "  {} earlier for this exact content (approval {}, {}); no reviewer was started (--no-cache forces one)",
                if d.result == Verdict::Approved {
                    "approved"
                } else {
                    "reviewed with this verdict"
                },
                escape_controls(&d.approval_id),
                escape_controls(&d.timestamp)
            );
        }
        (Stage::Reviewer, Some(failure)) => {
            let _ = writeln!(
                out,
                "  the reviewer failed ({}): {}\n  this is an infrastructure failure, not a verdict on the file",
                failure.kind(),
                escape_controls(&failure.to_string())
            );
        }
        (Stage::Reviewer, None) => {
            let c = &d.agent_context;
            let mut line = format!(
                "  reviewer: confidence {:.2} (required {:.2})",
                d.confidence, d.required_confidence
            );
            if let Some(reviewer) = d.reviewer_result {
                let _ = write!(line, ", reviewer said {reviewer}");
            }
            let _ = writeln!(
                out,
                "{line}; {}, {:.1} s, {} tokens, ${:.4}",
                escape_controls(c.model.as_deref().unwrap_or("unknown model")),
                c.duration_seconds,
                c.tokens_used,
                c.cost
            );
        }
    }
    out.push_str(&crate::render::human::approval_findings(&d.findings, color));
    if let Some(summary) = &d.summary {
        let _ = writeln!(out, "summary: {}", escape_controls(summary));
    }
    if !d.recommendations.is_empty() {
        out.push_str("recommendations:\n");
        for r in &d.recommendations {
            let _ = writeln!(out, "  - {}", escape_controls(r));
        }
    }
    if let Some(path) = &approval.result_path {
        let _ = writeln!(
            out,
            "result: {}",
            escape_controls(&crate::paths::display(root, path))
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::RunnerError;

    #[test]
    fn exit_status_mapping() {
        let mut a = crate::approval::outcome::tests::approval(vec![], vec![]);
        assert_eq!(exit_status(&a), ExitStatus::Failure);
        a.document.result = Verdict::Approved;
        assert_eq!(exit_status(&a), ExitStatus::Success);
        a.document.result = Verdict::Rejected;
        a.failure = Some(RunnerError::Timeout { seconds: 3 });
        assert_eq!(exit_status(&a), ExitStatus::Error);
    }
}
