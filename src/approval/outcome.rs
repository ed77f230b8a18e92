//! What an approval is asked and what it answers: the options of one [`approve`]
//! call, its usage errors ([`ApprovalError`]), the result document written to
//! `output/approval-result.json` ([`ResultDocument`]) and the [`Approval`] with the
//! feedback the agent reads.
//!
//! [`approve`]: super::approve

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::claude::RunnerError;
use super::history::{FileRun, Stage};
use super::instructions::InstructionsError;
use super::settings::{ConfigError, OnRejection};
use super::verdict::Verdict;
use super::wire;
use crate::diagnostic::{Finding, Severity};
use crate::env;

/// The approval type of ADRs (the folder `approvals/adr/`), the default of
/// `helix-gate approve --type` and the type the Stop gate and pre-commit ask for.
pub const ADR_TYPE: &str = "adr";

/// Options of one [`approve`](super::approve) call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ApproveOptions {
    /// Start a reviewer even when an approved verdict is cached.
    pub no_cache: bool,
    /// Show a progress line (elapsed seconds) on stderr while the reviewer
    /// runs. Callers set this only when stderr is a terminal.
    pub progress: bool,
    /// The reviewer must have ended by then (the Stop hook's deadline): its
    /// timeout is shortened to it, and a reviewer stopped by it fails with
    /// [`RunnerError::Deadline`].
    pub deadline: Option<Instant>,
    /// Read the approvals settings, the rules and the reviewer instructions
    /// from this folder (a copy of the repository's configuration in its
    /// layout: the session's, which the session cannot change) instead of the
    /// repository itself.
    pub config_root: Option<PathBuf>,
    /// Refuse ([`ApprovalError::NotTrusted`]) to start a reviewer command the
    /// repository chose (anything but the built-in `claude`) unless the person
    /// trusted the repository's configuration as it is now (`helix-gate trust`,
    /// [`consent_problem`](super::consent_problem)). The user-scope hook sets it: there the repository
    /// did not ask for helix-gate, it merely ships `config/helix-gate.yaml`.
    pub require_consent: bool,
}

/// Why [`approve`](super::approve) could not produce a verdict at all (usage or setup
/// problems: exit 2). Failures of the reviewer itself are not errors: they are
/// `rejected` verdicts with an infrastructure finding ([`Approval::failure`]).
#[derive(Debug, thiserror::Error)]
pub enum ApprovalError {
    #[error("unknown approval type `{kind}` (configured in config/approvals.yaml: {known})")]
    UnknownType { kind: String, known: String },
    #[error(
        "approval type `{kind}` is disabled (approvals.{kind}.enabled is false in config/approvals.yaml)"
    )]
    Disabled { kind: String },
    #[error(
        "refusing to start a reviewer from inside a reviewer ({} is set)",
        env::HELIX_GATE_CHILD
    )]
    NestedReviewer,
    #[error("no files to approve")]
    NoFiles,
    /// The repository's own reviewer command without the person's consent
    /// ([`ApproveOptions::require_consent`]); nothing was started. `command`
    /// is the exact text, shown escaped.
    #[error(
        "refusing to run the reviewer command `{}` from this repository's config/approvals.yaml: its configuration is not trusted (or changed since it was). Read config/approvals.yaml and approvals/, then run `helix-gate trust` in the repository to consent",
        crate::text::escape_controls(command)
    )]
    NotTrusted { command: String },
    /// The reviewer program the configuration names inside the repository is
    /// not the one the session's configuration holds ([`ApproveOptions::config_root`]):
    /// it changed during the session, so it is not run (what it approved would
    /// be the session's own word). `programs` are repository-relative, shown escaped.
    #[error(
        "refusing to run the reviewer program {}: it changed during this session, which keeps the configuration it started with. Restore it (`git checkout -- FILE`), or a person runs `helix-gate trust` to accept the new program",
        crate::text::escape_controls(&programs.join(", "))
    )]
    ProgramChanged { programs: Vec<String> },
    /// A file name that could steer the reviewer or the terminal: paths are
    /// part of the reviewer's prompt. `path` is shown escaped.
    #[error(
        "refusing to review {path}: its name contains the control character {character}; a file name reaches the reviewer's prompt and may not carry line breaks, terminal escapes or text-direction controls. Rename the file."
    )]
    UnsafePath { path: String, character: String },
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Instructions(#[from] InstructionsError),
    /// The cause is not in the message: it is the error's source, which
    /// the caller prints after it (`{:#}`).
    #[error("cannot read {path}")]
    Read {
        path: String,
        #[source]
        source: std::io::Error,
    },
}

/// `agent_context` of the result document (as in the seed schema, plus `cost`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AgentContext {
    /// Model that answered (as reported by the reviewer), else the configured one.
    #[serde(default)]
    pub model: Option<String>,
    pub duration_seconds: f64,
    pub tokens_used: u64,
    /// US dollars, as reported by the reviewer.
    pub cost: f64,
}

/// A person's override as a result document carries it (`override`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersonOverride {
    /// Why the person approved.
    pub reason: String,
    /// The reviewer's approval the person overrode.
    pub overridden_approval_id: String,
    /// That approval's verdict (`rejected` or `needs_revision`).
    pub overridden_result: Verdict,
}

/// `output/approval-result.json`: the seed's result schema plus helix-gate's
/// fields (`files`, `required_confidence`, `reviewer_result`, `stage`,
/// `infrastructure_failure`, `summary`, `source` per finding).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResultDocument {
    pub approval_id: String,
    pub approval_type: String,
    pub timestamp: String,
    pub files: Vec<String>,
    pub result: Verdict,
    /// The reviewer's own result when helix-gate's gate changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewer_result: Option<Verdict>,
    pub confidence: f64,
    pub required_confidence: f64,
    /// Stored in the seed's shape `{severity, check, message, location?,
    /// source}`, which earlier versions wrote too (the `wire` module).
    #[serde(with = "wire::findings")]
    pub findings: Vec<Finding>,
    pub recommendations: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    pub stage: Stage,
    /// Short name of the reviewer failure (`timeout`, `missing-command`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub infrastructure_failure: Option<String>,
    pub agent_context: AgentContext,
    /// A person's override (`approve --override FILE approved`): who decided
    /// against which verdict, and why. Only on documents of [`Stage::Override`].
    #[serde(rename = "override", default, skip_serializing_if = "Option::is_none")]
    pub person_override: Option<PersonOverride>,
}

/// The outcome of [`approve`](super::approve).
#[derive(Debug, Clone)]
pub struct Approval {
    /// Everything that is written to `approval-result.json`. For a cache hit:
    /// the stored document of the original approval, with `stage: cache`.
    pub document: ResultDocument,
    /// The reviewed files and their run numbers (from the history).
    pub files: Vec<FileRun>,
    /// Every file as it was judged: its shown path and the SHA-256 of the exact
    /// bytes the checks and the reviewer saw (for `approve --out`).
    pub judged: Vec<JudgedFile>,
    /// Why the reviewer produced no verdict (then `verdict` is `rejected`).
    pub failure: Option<RunnerError>,
    /// Spent by this call (0 for deterministic rejections and cache hits).
    pub cost_usd: f64,
    /// Wall-clock time of the whole call.
    pub duration: Duration,
    /// The verdict came from the cache.
    pub cached: bool,
    /// A reviewer process was started by this call.
    pub reviewer_ran: bool,
    /// `output/approval-result.json` when a run folder was created.
    pub result_path: Option<PathBuf>,
    /// The type's `on_rejection` settings (for [`Approval::feedback`]).
    pub on_rejection: OnRejection,
    /// Things worth telling the person that do not change the verdict: an
    /// ignored cache entry, a verdict that could not be cached, damaged
    /// history lines.
    pub notes: Vec<String>,
}

impl Approval {
    /// The final verdict (after the confidence gate).
    pub fn verdict(&self) -> Verdict {
        self.document.result
    }

    pub fn is_approved(&self) -> bool {
        self.document.result == Verdict::Approved
    }

    pub fn confidence(&self) -> f64 {
        self.document.confidence
    }

    pub fn findings(&self) -> &[Finding] {
        &self.document.findings
    }

    pub fn recommendations(&self) -> &[String] {
        &self.document.recommendations
    }

    pub fn stage(&self) -> Stage {
        self.document.stage
    }

    /// The `on_rejection.feedback_template` filled in, with `{attempt}` = the
    /// run number of the first file from the history.
    pub fn feedback(&self) -> String {
        self.feedback_for_attempt(self.files.first().map_or(1, |f| f.run))
    }

    /// The feedback template filled in for review number `attempt` (the Stop
    /// gate counts attempts per session and passes its own number).
    pub fn feedback_for_attempt(&self, attempt: u32) -> String {
        let files = self
            .files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let findings = crate::render::feedback::approval_findings(&self.document.findings);
        let recommendations = if self.document.recommendations.is_empty() {
            "- none".to_owned()
        } else {
            self.document
                .recommendations
                .iter()
                .map(|r| format!("- {}", crate::text::truncate(r, 500)))
                .collect::<Vec<_>>()
                .join("\n")
        };
        let (blocking, other): (Vec<Finding>, Vec<Finding>) = self
            .document
            .findings
            .iter()
            .cloned()
            .partition(|f| f.severity == Severity::Error);
        let blocking_issues = crate::render::feedback::approval_findings(&blocking);
        let suggestions = seed_suggestions(&self.document.recommendations, &other);
        render_template(
            &self.on_rejection.feedback_template,
            &[
                ("file", files),
                ("result", self.document.result.as_str().to_owned()),
                ("confidence", format!("{:.2}", self.document.confidence)),
                ("findings", findings),
                ("recommendations", recommendations),
                ("attempt", attempt.to_string()),
                ("max_attempts", self.on_rejection.max_reviews().to_string()),
                ("blocking_issues", blocking_issues),
                ("suggestions", suggestions),
            ],
        )
    }

    /// One line for a user-facing message (the Stop gate's `systemMessage`):
    /// result, confidence, cost and time.
    pub fn one_line(&self) -> String {
        let d = &self.document;
        let files = self
            .files
            .iter()
            .map(|f| f.path.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        match d.stage {
            Stage::Deterministic => format!(
                "helix-gate approval {files}: rejected by the deterministic checks, no reviewer started"
            ),
            Stage::Cache if d.person_override.is_some() => format!(
                "helix-gate approval {files}: {} (a person's override, approval {})",
                d.result, d.approval_id
            ),
            Stage::Cache => format!(
                "helix-gate approval {files}: {} (cached, confidence {:.2}, approval {})",
                d.result, d.confidence, d.approval_id
            ),
            Stage::Override => format!(
                "helix-gate approval {files}: {} (a person's override, approval {})",
                d.result, d.approval_id
            ),
            Stage::Reviewer => match &self.failure {
                Some(failure) => format!(
                    "helix-gate approval {files}: rejected, reviewer failed ({}): {failure}",
                    failure.kind()
                ),
                None => format!(
                    "helix-gate approval {files}: {} (confidence {:.2}, ${:.4}, {:.1} s)",
                    d.result, d.confidence, d.agent_context.cost, d.agent_context.duration_seconds
                ),
            },
        }
    }
}

/// The seeds' `{{suggestions}}`: the recommendations, then the findings
/// that do not block (warnings, infos), one line each; "- none" if empty.
fn seed_suggestions(recommendations: &[String], other: &[Finding]) -> String {
    let mut lines: Vec<String> = recommendations
        .iter()
        .map(|r| format!("- {}", crate::text::truncate(r, 500)))
        .collect();
    if !other.is_empty() {
        lines.push(crate::render::feedback::approval_findings(other));
    }
    if lines.is_empty() {
        "- none".to_owned()
    } else {
        lines.join("\n")
    }
}

/// Replace `{name}` and the seeds' `{{name}}` placeholders in one pass
/// (values are not scanned again).
fn render_template(template: &str, values: &[(&str, String)]) -> String {
    let mut out = String::with_capacity(template.len() + 256);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        // `{{name}}` first, so that its outer braces do not stay in the text.
        let doubled = after.strip_prefix('{').and_then(|inner| {
            let end = inner.find("}}")?;
            let name = &inner[..end];
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (v, &inner[end + 2..]))
        });
        if let Some((value, tail)) = doubled {
            out.push_str(value);
            rest = tail;
            continue;
        }
        let replaced = after.find('}').and_then(|end| {
            let name = &after[..end];
            values
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (v, end))
        });
        if let Some((value, end)) = replaced {
            out.push_str(value);
            rest = &after[end + 1..];
        } else {
            out.push('{');
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

/// One file as it was judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgedFile {
    /// Relative to the repository root.
    pub path: String,
    /// SHA-256 (hex) of its bytes as judged.
    pub sha256: String,
}

impl JudgedFile {
    /// The file at `display` with these judged `bytes`.
    pub fn new(display: &str, bytes: &[u8]) -> Self {
        JudgedFile {
            path: display.to_owned(),
            sha256: crate::text::hex(&Sha256::digest(bytes)),
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::approval::settings;
    use crate::diagnostic::Source;

    pub(crate) fn approval(findings: Vec<Finding>, recommendations: Vec<String>) -> Approval {
        let settings = settings::from_layers(None, "none").unwrap();
        Approval {
            document: ResultDocument {
                approval_id: "id".into(),
                approval_type: "adr".into(),
                timestamp: "t".into(),
                files: vec!["adr/001-x.md".into()],
                result: Verdict::NeedsRevision,
                reviewer_result: None,
                confidence: 0.7,
                required_confidence: 0.8,
                findings,
                recommendations,
                summary: None,
                stage: Stage::Reviewer,
                infrastructure_failure: None,
                agent_context: AgentContext::default(),
                person_override: None,
            },
            files: vec![FileRun {
                path: "adr/001-x.md".into(),
                run: 2,
            }],
            judged: Vec::new(),
            failure: None,
            cost_usd: 0.0,
            duration: Duration::ZERO,
            cached: false,
            reviewer_ran: true,
            result_path: None,
            on_rejection: settings.get("adr").unwrap().on_rejection.clone(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn feedback_fills_the_seed_shaped_template() {
        let a = approval(
            vec![
                Finding::new("acceptance", Severity::Warning, "criterion 2 is vague")
                    .from_source(Source::Reviewer),
                Finding::new("migration", Severity::Error, "no rollback")
                    .in_file("adr/001-x.md#Migration")
                    .from_source(Source::Reviewer),
            ],
            vec!["Add a rollback plan.".into()],
        );
        let text = a.feedback();
        assert!(
            text.starts_with("## Approval not granted: adr/001-x.md"),
            "{text}"
        );
        // One count: max_retries 3 = at most 4 reviews (the first and 3 more).
        assert!(text.contains("review 2 of 4"), "{text}");
        assert!(text.contains("### Blocking Issues:\n- [error] migration: no rollback (adr/001-x.md#Migration)\n- [warning] acceptance: criterion 2 is vague"), "{text}");
        assert!(
            text.contains("### Recommendations:\n- Add a rollback plan."),
            "{text}"
        );
        assert!(text.contains("### Please revise:"), "{text}");
        assert!(text.contains("needs_revision (confidence 0.70)"), "{text}");
        assert!(a.feedback_for_attempt(3).contains("review 3 of 4"));
        let empty = approval(vec![], vec![]).feedback();
        assert!(empty.contains("### Blocking Issues:\n- none"), "{empty}");
    }

    #[test]
    fn template_rendering_is_single_pass() {
        let out = render_template(
            "{a} {b} {unknown} {",
            &[("a", "{b}".to_owned()), ("b", "B".to_owned())],
        );
        assert_eq!(out, "{b} B {unknown} {");
        let out = render_template(
            "{{a}}|{{b}} {{unknown}} {{a}",
            &[("a", "{{b}}".to_owned()), ("b", "B".to_owned())],
        );
        assert_eq!(out, "{{b}}|B {{unknown}} {{{b}}");
    }

    /// The seed's `feedback_template` (Freigabe-Konzept 4.3) as the block
    /// reason: `{{blocking_issues}}` = the errors, `{{suggestions}}` = the
    /// recommendations and then the findings that do not block.
    #[test]
    fn the_seeds_feedback_template_is_filled_from_the_findings() {
        let mut a = approval(
            vec![
                Finding::new("acceptance", Severity::Warning, "criterion 2 is vague")
                    .from_source(Source::Reviewer),
                Finding::new("migration", Severity::Error, "no rollback")
                    .in_file("adr/001-x.md#Migration")
                    .from_source(Source::Reviewer),
            ],
            vec!["Add a rollback plan.".into()],
        );
        let seed = settings::from_layers(
            Some(include_str!(
                "../../tests/fixtures/seeds/approvals-on-rejection.yaml"
            )),
            "seed",
        )
        .unwrap();
        a.on_rejection = seed.get("adr").unwrap().on_rejection.clone();
        assert_eq!(
            a.feedback(),
            "## Freigabe nicht erteilt\n\n### Blocking Issues:\n- [error] migration: no rollback (adr/001-x.md#Migration)\n\n### Bitte überarbeiten:\n- Add a rollback plan.\n- [warning] acceptance: criterion 2 is vague\n"
        );
        let none = Approval {
            on_rejection: a.on_rejection.clone(),
            ..approval(vec![], vec![])
        };
        assert!(
            none.feedback()
                .ends_with("Issues:\n- none\n\n### Bitte überarbeiten:\n- none\n"),
            "{}",
            none.feedback()
        );
    }
}
