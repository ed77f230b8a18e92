//! `helix-gate gate`: the HELIX quality gates, one phase of a `phases.yaml` or one gate given
//! by flags. Prints one JSON object on stdout (or, with `--format`, the gate's findings in a
//! CI format, or text); exit 0 passed, 1 failed, 2 could not run, whatever the format.

use std::path::PathBuf;

use clap::Args;

use super::terminal::{current_root, print, use_color};
use super::{ExitStatus, ReportFormat};
use crate::gate::{run_given, run_phase};
use crate::render::gate::{self as gate_render, Outcome, gate_json, phase_json};
use crate::yaml::Value;

/// Both ways to call `gate`, for `--help` and for the error when neither is given: clap's own
/// usage line would call the gate type required in the error and optional in `--help`.
const USAGE: &str = "helix-gate gate [OPTIONS] <GATE_TYPE>
       helix-gate gate [OPTIONS] --phases <FILE> --phase <ID>";

#[derive(Debug, Args)]
#[expect(
    clippy::doc_markdown,
    reason = "clap prints these docs as the arguments' help; backticks would show there"
)]
#[command(
    override_usage = USAGE,
    // One of the two is needed; the error names both (`<GATE_TYPE|--phases <FILE>>`).
    group = clap::ArgGroup::new("what").required(true).args(["gate_type", "phases"]),
)]
pub struct GateArgs {
    /// Gate type to run by itself: adr_complete, approval, approval_passed, files_exist. Not
    /// with --phases.
    #[arg(conflicts_with_all = ["phases", "phase"])]
    gate_type: Option<String>,
    /// The phase plan whose phase to run (with --phase).
    #[arg(long, value_name = "FILE", requires = "phase")]
    phases: Option<PathBuf>,
    /// The id of the phase whose quality gate(s) to run.
    #[arg(long, value_name = "ID", requires = "phases")]
    phase: Option<String>,
    /// adr_complete: glob of the ADR file(s), relative to the current directory.
    #[arg(long, value_name = "GLOB")]
    file: Vec<String>,
    /// adr_complete: concept document the ADR(s) must cover.
    #[arg(long, value_name = "FILE")]
    concept: Option<String>,
    /// adr_complete: when the reviewer runs (auto: when enabled in approvals.yaml).
    #[arg(long, value_parser = ["auto", "true", "false"])]
    semantic: Option<String>,
    /// approval: the approval type (a folder under approvals/; default adr).
    #[arg(long = "type", visible_alias = "approval-type", value_name = "TYPE")]
    approval_type: Option<String>,
    /// approval, files_exist: the files; approval_passed: the files the result must have judged.
    #[arg(long, value_name = "FILE", num_args = 1..)]
    files: Vec<String>,
    /// approval, approval_passed: the verdict required (needs_revision also accepts approved).
    #[arg(long, value_parser = ["approved", "needs_revision"])]
    required_result: Option<String>,
    /// approval_passed: the approval-result.json to read.
    #[arg(long, value_name = "FILE")]
    result_file: Option<String>,
    /// Output: json (the GateResult the HELIX orchestrator reads), a CI format of the
    /// gate's findings, or human text.
    #[arg(long, value_enum, default_value_t = ReportFormat::Json)]
    format: ReportFormat,
    #[command(flatten)]
    choice: super::RuleChoiceArgs,
}

/// The gate's findings through the CI renderers `validate` uses; SARIF documents the
/// contextual rules of the repository's rules file too (when it loads: the gate itself
/// reported a broken one already).
fn ci_output(
    root: &std::path::Path,
    reports: &[crate::diagnostic::FileReport],
    format: ReportFormat,
) -> anyhow::Result<()> {
    let rules = (format == ReportFormat::Sarif)
        .then(|| crate::config::load_rules(root, None).ok())
        .flatten();
    super::validate::output(reports, format, rules.as_ref())
}

fn status(outcome: Outcome) -> ExitStatus {
    match outcome {
        Outcome::Passed => ExitStatus::Success,
        Outcome::Failed => ExitStatus::Failure,
        Outcome::Error => ExitStatus::Error,
    }
}

pub(super) fn run(args: GateArgs) -> anyhow::Result<ExitStatus> {
    args.choice.clone().record();
    let root = current_root();
    if let (Some(plan), Some(phase)) = (&args.phases, &args.phase) {
        let result = run_phase(&root, plan, phase);
        match args.format {
            ReportFormat::Json => print(&phase_json(&result))?,
            ReportFormat::Human => print(&gate_render::phase_human(&result, use_color()))?,
            ci => ci_output(&root, &gate_render::phase_reports(&result), ci)?,
        }
        return Ok(status(result.outcome));
    }
    let kind = args.gate_type.unwrap_or_default();
    let list = |items: Vec<String>| {
        (!items.is_empty()).then(|| Value::Sequence(items.into_iter().map(Value::from).collect()))
    };
    let text = |item: Option<String>| item.map(Value::from);
    let base = crate::paths::absolute(std::path::Path::new("."));
    let result = run_given(
        &root,
        &base,
        &kind,
        &[
            ("file", list(args.file)),
            ("concept", text(args.concept)),
            ("semantic", text(args.semantic)),
            ("approval_type", text(args.approval_type)),
            ("files", list(args.files)),
            ("required_result", text(args.required_result)),
            ("result_file", text(args.result_file)),
        ],
    );
    match args.format {
        ReportFormat::Json => print(&gate_json(&result))?,
        ReportFormat::Human => print(&gate_render::human(&result, use_color()))?,
        ci => ci_output(&root, &gate_render::reports(&result), ci)?,
    }
    Ok(status(result.outcome()))
}
