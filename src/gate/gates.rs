//! One quality gate run: `adr_complete`, `approval`, `approval_passed` and
//! `files_exist` (the list in the module doc of [`crate::gate`]), for a gate of a plan's
//! phase or one given on the command line ([`run_given`]), with why a gate could not
//! judge ([`GateError`]).

use std::path::{Path, PathBuf};

use crate::approval::result_file::Trust;
use crate::approval::signing::SigningKey;
use crate::approval::{self, ApproveOptions, Stage, Verdict};
use crate::config::plan::{GATE_TYPES, Gate, GateProblem, RequiredResult, Semantic, escapes};
use crate::diagnostic::{Finding, Severity, Source};
use crate::engine::Engine;
use crate::render::gate::{GateDetails, GateResult, Outcome};
use crate::rules::phases::GATE_FILE_MISSING;
use crate::text::escape_controls;
use crate::yaml::Value;

/// The largest `phases.yaml` or result file read (both are small, hand- or tool-written).
pub(super) const MAX_FILE: u64 = 1024 * 1024;
/// The largest judged file hashed again (as the result file's own check does).
const MAX_JUDGED: u64 = 64 * 1024 * 1024;

/// Whether a gate may start the independent reviewer (`adr_complete` with `semantic`,
/// `approval`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reviewer {
    /// As configured: the command line.
    Allowed,
    /// Never: the MCP server, which is read-only (a review writes the approval cache and
    /// history, and starts a model run of its own). A gate that would ask the reviewer
    /// could not run (outcome `error`), and its message says where to run it.
    Withheld,
    /// Never started, but a signed `approved` verdict cached for the current content of
    /// every file counts as the reviewer's: how the gates of a phase's dependencies run
    /// (`Dependencies`), so checking that a dependency passed never repeats its review.
    CacheOnly,
}

/// The files of the phase a gate belongs to, as the plan writes them (none for a
/// gate given on the command line).
#[derive(Debug, Clone, Copy, Default)]
pub struct PhaseFiles<'a> {
    /// `input` (paths or globs): the files under review of an approval phase.
    pub input: &'a [String],
    /// `output`: what `files_exist` checks, and what `approval_passed` needs judged.
    pub output: &'a [String],
}

/// Run one gate; its paths are relative to `base`. `phase` holds the files of the
/// gate's phase (for `files_exist` and `approval_passed`).
pub fn run_gate(root: &Path, base: &Path, gate: &Gate, phase: PhaseFiles<'_>) -> GateResult {
    run_gate_with(root, base, gate, phase, Reviewer::Allowed)
}

/// [`run_gate`], with or without the reviewer.
pub fn run_gate_with(
    root: &Path,
    base: &Path,
    gate: &Gate,
    phase: PhaseFiles<'_>,
    reviewer: Reviewer,
) -> GateResult {
    let ctx = Ctx {
        root,
        base,
        reviewer,
    };
    match gate {
        Gate::AdrComplete {
            file,
            concept,
            semantic,
        } => ctx.adr_complete(file, concept.as_deref(), *semantic),
        Gate::Approval {
            approval_type,
            files,
            required_result,
        } => ctx.approval(approval_type, files, *required_result),
        Gate::ApprovalPassed {
            result_file,
            files,
            required_result,
        } => ctx.approval_passed(result_file, files, phase, *required_result),
        Gate::FilesExist { files } => ctx.files_exist(files, phase.output),
        Gate::PythonSyntax | Gate::TestsPass => error(
            gate.kind(),
            format!(
                "helix-gate does not run `{}` gates; the HELIX orchestrator does",
                gate.kind()
            ),
        ),
        Gate::Unknown(other) => error(
            other,
            format!(
                "unknown gate type `{other}` (known: {})",
                GATE_TYPES.join(", ")
            ),
        ),
    }
}

/// Run a gate given on the command line: its type and flags, decoded as the plan's
/// would be ([`Gate::decode`]). A gate that lacks what its type needs could not run.
pub fn run_given(
    root: &Path,
    base: &Path,
    kind: &str,
    fields: &[(&str, Option<Value>)],
) -> GateResult {
    let mut map = crate::yaml::Mapping::new();
    map.insert(Value::from("type"), Value::from(kind));
    for (key, value) in fields {
        if let Some(value) = value {
            map.insert(Value::from(*key), value.clone());
        }
    }
    match Gate::decode(kind, &map) {
        Ok(gate) => run_gate(root, base, &gate, PhaseFiles::default()),
        Err(problems) => {
            let message = match problems.first() {
                Some(GateProblem::Missing { field: "file", .. }) => {
                    "the gate has no `file` (a glob such as output/ADR-*.md)".to_owned()
                }
                Some(GateProblem::Missing { field, .. }) => format!("the gate has no `{field}`"),
                Some(other) => other.to_string(),
                None => format!("gate {kind} is invalid"),
            };
            error(kind, message)
        }
    }
}

pub(super) fn error(kind: &str, message: impl std::fmt::Display) -> GateResult {
    GateResult::new(
        kind,
        Outcome::Error,
        message.to_string(),
        GateDetails::default(),
    )
}

/// Why a gate could not do its work (its outcome is `error`), or why the result file
/// of an `approval_passed` gate is not accepted (the gate fails).
#[derive(Debug, thiserror::Error)]
pub enum GateError {
    /// A path of the gate that is absolute or climbs out of the gate's folder.
    #[error("path `{path}` must be relative to {base} and stay inside it")]
    Escapes { path: String, base: String },
    #[error("bad glob `{pattern}`: {cause}")]
    Glob { pattern: String, cause: String },
    #[error("{0}")]
    GlobSet(String),
    #[error("cannot list {dir}: {cause}")]
    List { dir: String, cause: std::io::Error },
    /// The project's ADR globs.
    #[error(transparent)]
    Settings(#[from] crate::config::settings::GlobError),
    /// The configuration, the engine or the approval settings did not load (the
    /// message has their causes).
    #[error("{0}")]
    Load(String),
    /// The gate's concept cannot be used.
    #[error(transparent)]
    Concept(#[from] crate::engine::ConceptError),
    /// A result file that is not genuine, or stale.
    #[error("{0}")]
    Rejected(String),
}

impl GateError {
    /// An error of the layers below, with its chain of causes (`{:#}`).
    pub(super) fn load(error: impl std::fmt::Display) -> Self {
        GateError::Load(format!("{error:#}"))
    }

    /// The gate's outcome for this error: a rejected result fails the gate, anything
    /// else kept it from judging.
    fn outcome(&self) -> Outcome {
        match self {
            GateError::Rejected(_) => Outcome::Failed,
            _ => Outcome::Error,
        }
    }
}

pub(super) fn count(findings: &[Finding], severity: Severity) -> usize {
    findings.iter().filter(|f| f.severity == severity).count()
}

/// Where a gate runs.
pub(super) struct Ctx<'a> {
    pub(super) root: &'a Path,
    pub(super) base: &'a Path,
    pub(super) reviewer: Reviewer,
}

impl Ctx<'_> {
    /// A gate's path made absolute against the base; `Err` for an absolute path or one
    /// that climbs out of the base.
    fn path(&self, rel: &str) -> Result<PathBuf, GateError> {
        // `has_root`: on Windows `\x` is not absolute but leaves the base.
        if Path::new(rel).is_absolute() || Path::new(rel).has_root() || escapes(rel) {
            return Err(GateError::Escapes {
                path: rel.to_owned(),
                base: self.shown(self.base),
            });
        }
        Ok(crate::paths::absolute(&self.base.join(rel)))
    }

    fn shown(&self, path: &Path) -> String {
        crate::paths::display(self.root, path)
    }

    /// The globs of a gate (relative to the base, `/` matched literally).
    fn globs(&self, patterns: &[String]) -> Result<globset::GlobSet, GateError> {
        let mut builder = globset::GlobSetBuilder::new();
        for pattern in patterns {
            self.path(pattern)?;
            let glob = globset::GlobBuilder::new(pattern.trim_start_matches("./"))
                .literal_separator(true)
                .case_insensitive(crate::paths::WINDOWS)
                .build()
                .map_err(|e| GateError::Glob {
                    pattern: pattern.clone(),
                    cause: e.to_string(),
                })?;
            builder.add(glob);
        }
        builder
            .build()
            .map_err(|e| GateError::GlobSet(e.to_string()))
    }

    /// Files below the base matching any of the globs, sorted.
    fn expand(&self, patterns: &[String]) -> Result<Vec<PathBuf>, GateError> {
        let set = self.globs(patterns)?;
        let mut out = Vec::new();
        crate::engine::walk(self.base, &mut |path| {
            if let Some(rel) = crate::paths::relative_to(self.base, path)
                && set.is_match(&rel)
            {
                out.push(path.to_path_buf());
            }
        })
        .map_err(|cause| GateError::List {
            dir: self.shown(self.base),
            cause,
        })?;
        out.sort();
        Ok(out)
    }

    /// The ADRs that drafts matching the globs became: every draft `helix-gate
    /// finalize` moved ([`crate::adr_dir::moves`]) whose path below the base
    /// matches, that is gone, and whose destination is an ADR (by the project's
    /// globs) inside the project. The record is writable by anything in the
    /// repository, so a planted line can add an ADR to check, never a file
    /// outside the project or one that is not an ADR.
    fn finalized(&self, engine: &Engine, patterns: &[String]) -> Result<Vec<PathBuf>, GateError> {
        let adrs = engine.settings.adr_matcher()?;
        Ok(self
            .moves(&adrs, patterns)?
            .into_iter()
            .map(|(_, adr)| adr)
            .collect())
    }

    /// [`Ctx::finalized`] as pairs: each moved draft and the ADR it became.
    fn moves(
        &self,
        adrs: &crate::config::AdrMatcher,
        patterns: &[String],
    ) -> Result<Vec<(PathBuf, PathBuf)>, GateError> {
        let drafts = crate::adr_dir::moves::drafts(self.root);
        if drafts.is_empty() {
            return Ok(Vec::new());
        }
        let set = self.globs(patterns)?;
        let mut out = Vec::new();
        for draft in drafts {
            let path = self.root.join(&draft);
            if crate::paths::relative_to(self.base, &path).is_some_and(|rel| set.is_match(&rel))
                && let Some(adr) = self.became(adrs, &draft)
            {
                out.push((crate::paths::absolute(&path), adr));
            }
        }
        Ok(out)
    }

    /// The ADR the draft `draft` (repository-relative) became, when it is gone and
    /// the move record leads to an ADR inside the project.
    fn became(&self, adrs: &crate::config::AdrMatcher, draft: &str) -> Option<PathBuf> {
        let to = crate::adr_dir::moves::destination(self.root, draft)?;
        let path = self.root.join(&to);
        (std::fs::symlink_metadata(self.root.join(draft)).is_err()
            && adrs.is_adr(&to)
            && crate::fs::confine::inside(self.root, &path)
            && path.is_file())
        .then(|| crate::paths::absolute(&path))
    }

    /// The drafts matching `patterns` that `finalize` moved, with their ADRs; no
    /// record (or no settings to tell ADRs by) means none.
    fn moved(&self, patterns: &[String]) -> Result<Vec<(PathBuf, PathBuf)>, GateError> {
        if crate::adr_dir::moves::drafts(self.root).is_empty() {
            return Ok(Vec::new());
        }
        let engine = Engine::load(self.root, None).map_err(GateError::load)?;
        let adrs = engine.settings.adr_matcher()?;
        self.moves(&adrs, patterns)
    }

    /// The files an approval input (`files` of an `approval` gate, `input` of an
    /// approval phase) names now: a glob's matches, or the named file, and for a
    /// draft `finalize` moved the ADR it became. A named file that is neither is
    /// returned as it is (the reviewer reports it missing); an empty list means
    /// the glob matches nothing.
    pub(super) fn approval_inputs(&self, pattern: &str) -> Result<Vec<PathBuf>, GateError> {
        let one = vec![pattern.to_owned()];
        let moved = || -> Result<Vec<PathBuf>, GateError> {
            Ok(self.moved(&one)?.into_iter().map(|(_, adr)| adr).collect())
        };
        if is_glob(pattern) {
            let mut files = self.expand(&one)?;
            files.extend(moved()?);
            files.sort();
            files.dedup();
            return Ok(files);
        }
        let path = self.path(pattern)?;
        if std::fs::symlink_metadata(&path).is_ok() {
            return Ok(vec![path]);
        }
        let adrs = moved()?;
        Ok(if adrs.is_empty() { vec![path] } else { adrs })
    }

    fn adr_complete(
        &self,
        patterns: &[String],
        concept: Option<&str>,
        semantic: Semantic,
    ) -> GateResult {
        const KIND: &str = "adr_complete";
        let mut files = match self.expand(patterns) {
            Ok(files) => files,
            Err(why) => return error(KIND, why),
        };
        let engine = match Engine::load(self.root, None) {
            Ok(engine) => engine,
            Err(e) => return error(KIND, format!("{e:#}")),
        };
        match self.finalized(&engine, patterns) {
            Ok(moved) => {
                files.extend(moved);
                files.sort();
                files.dedup();
            }
            Err(why) => return error(KIND, why),
        }
        let mut details = GateDetails {
            files: files.iter().map(|f| self.shown(f)).collect(),
            ..GateDetails::default()
        };
        if files.is_empty() {
            let message = format!("no file matches {}", patterns.join(", "));
            details.findings.push(
                GATE_FILE_MISSING
                    .finding(format!("{message} (below {})", self.shown(self.base)))
                    .hint("write the ADR where the phase plan says, or correct `file`"),
            );
            return GateResult::new(KIND, Outcome::Failed, message, details);
        }
        let (reports, read_errors) = engine.check_files(&files, false);
        if let Some(e) = read_errors.first() {
            return error(KIND, e.to_string());
        }
        // The gate's concept is read once, and compared with every file.
        let concept = concept.map(|named| {
            let read = self.read_concept(&engine, named);
            (named, read)
        });
        for (report, file) in reports.into_iter().zip(&files) {
            let mut findings = report.findings;
            if let Some((named, read)) = &concept {
                details.concept = Some((*named).to_owned());
                for finding in self.concept_diff(&engine, file, named, read) {
                    if !findings.contains(&finding) {
                        findings.push(finding);
                    }
                }
            }
            details
                .findings
                .extend(findings.into_iter().map(|f| f.in_file(report.path.clone())));
        }
        let errors = count(&details.findings, Severity::Error);
        if errors > 0 {
            details.semantic = Some("not run: the deterministic checks failed".to_owned());
            let message = format!(
                "{} {errors} deterministic check(s)",
                subject(&details.files, "fails", "fail")
            );
            return GateResult::new(KIND, Outcome::Failed, message, details);
        }
        let run_reviewer = match semantic {
            Semantic::Never => {
                details.semantic = Some("not run (semantic: false)".to_owned());
                false
            }
            Semantic::Auto => match approval::settings(self.root) {
                Ok(settings) if settings.get(approval::ADR_TYPE).is_some_and(|t| t.enabled) => true,
                Ok(_) => {
                    details.semantic =
                        Some("not run (semantic: auto, approvals.adr.enabled is false)".to_owned());
                    false
                }
                Err(e) => return error(KIND, format!("{e:#}")),
            },
            Semantic::Always => true,
        };
        if !run_reviewer {
            let message = format!(
                "{} the deterministic checks",
                subject(&details.files, "passes", "pass")
            );
            return GateResult::new(KIND, Outcome::Passed, message, details);
        }
        // Only the review's outcome says whether it ran ([`Ctx::review`]).
        details.semantic = Some("requested".to_owned());
        self.review(
            KIND,
            &files,
            approval::ADR_TYPE,
            RequiredResult::Approved,
            details,
        )
    }

    /// The gate's own concept `named` (relative to the gate's directory, inside the
    /// repository): its path and text, or why it cannot be used.
    fn read_concept(&self, engine: &Engine, named: &str) -> Result<(PathBuf, String), GateError> {
        let path = self.path(named)?;
        if !crate::fs::confine::inside(self.root, &path)
            || crate::paths::relative_to(self.root, &path).is_none()
        {
            return Err(crate::engine::ConceptError::Outside.into());
        }
        engine
            .read_concept(&path)
            .map(|text| (path, text))
            .map_err(GateError::Concept)
    }

    /// The gate's concept (as [`Ctx::read_concept`] read it) compared with the ADR at
    /// `file`; an unusable concept is a finding, as when the front matter names it.
    fn concept_diff(
        &self,
        engine: &Engine,
        file: &Path,
        named: &str,
        read: &Result<(PathBuf, String), GateError>,
    ) -> Vec<Finding> {
        match read {
            Ok((path, text)) => {
                let adr_text = crate::engine::read_limited(file, engine.settings.adr.max_file_size)
                    .ok()
                    .and_then(|b| String::from_utf8(b).ok())
                    .unwrap_or_default();
                let adr = crate::adr::Adr::parse(&adr_text);
                crate::rules::concept::compare(&adr, text, &self.shown(path), &engine.rules)
            }
            Err(why) => vec![
                crate::rules::concept::UNREADABLE
                    .finding(format!("cannot use the gate's concept `{named}`: {why}"))
                    .hint("correct `concept` in the gate (relative to its directory)"),
            ],
        }
    }

    /// Ask the reviewer (`approve`) and compare its verdict with `required`.
    fn review(
        &self,
        kind: &str,
        files: &[PathBuf],
        approval_type: &str,
        required: RequiredResult,
        mut details: GateDetails,
    ) -> GateResult {
        if self.reviewer == Reviewer::Withheld {
            let why = "`helix-gate mcp` never starts the reviewer (a review writes the approval \
                       cache and history and is a model run of its own)";
            if details.semantic.is_some() {
                details.semantic = Some(format!("not run: {why}"));
            }
            let message = format!(
                "the {kind} gate needs the independent reviewer, which was not run: {why}; \
                 run `helix-gate gate` in a terminal for its verdict"
            );
            return GateResult::new(kind, Outcome::Error, message, details);
        }
        if self.reviewer == Reviewer::CacheOnly {
            return self.cached_review(kind, files, approval_type, details);
        }
        let approval =
            match approval::approve(self.root, files, approval_type, &ApproveOptions::default()) {
                Ok(approval) => approval,
                Err(e) => {
                    if details.semantic.is_some() {
                        details.semantic = Some(format!("not run: {e}"));
                    }
                    return GateResult::new(kind, Outcome::Error, format!("{e:#}"), details);
                }
            };
        details.approval = serde_json::to_value(&approval.document).ok();
        // `adr_complete` says whether the reviewer ran: a verdict from the cache is
        // no new review, and saying "ran" would claim one.
        if details.semantic.is_some() {
            details.semantic = Some(match (approval.stage(), &approval.failure) {
                (Stage::Cache, _) => "answered from the cache".to_owned(),
                (Stage::Override, _) => "not run: a person's override approved it".to_owned(),
                (Stage::Deterministic, _) => "not run: the deterministic checks failed".to_owned(),
                // Started, but no verdict came back (timeout, crash, no answer).
                (Stage::Reviewer, Some(failure)) => {
                    format!("started, but gave no verdict ({})", failure.kind())
                }
                (Stage::Reviewer, None) => "ran".to_owned(),
            });
        }
        details.findings.extend(
            approval
                .findings()
                .iter()
                .filter(|f| !f.source.is_deterministic())
                .cloned(),
        );
        let result = approval.verdict();
        let message = format!(
            "Approval {} (confidence: {:.0}%)",
            result.as_str(),
            approval.confidence() * 100.0
        );
        let outcome = if approval.failure.is_some() {
            Outcome::Error
        } else if accepts(required, result) {
            Outcome::Passed
        } else {
            Outcome::Failed
        };
        GateResult::new(kind, outcome, message, details)
    }

    /// [`Ctx::review`] without the reviewer: passed when a signed `approved` verdict of
    /// `approval_type` is cached for the current content of every file, else failed.
    fn cached_review(
        &self,
        kind: &str,
        files: &[PathBuf],
        approval_type: &str,
        mut details: GateDetails,
    ) -> GateResult {
        if details.semantic.is_some() {
            details.semantic = Some("not run: only a cached verdict counts here".to_owned());
        }
        let engine = match Engine::load(self.root, None) {
            Ok(engine) => engine,
            Err(e) => return GateResult::new(kind, Outcome::Error, format!("{e:#}"), details),
        };
        let lookup = approval::ApprovalLookup::load(self.root, approval_type);
        let limit = engine.settings.adr.max_file_size;
        let unapproved: Vec<String> = files
            .iter()
            .filter(|file| {
                !lookup.as_ref().is_some_and(|lookup| {
                    crate::engine::read_limited(file, limit)
                        .is_ok_and(|bytes| lookup.is_approved(&engine, file, &bytes))
                })
            })
            .map(|file| self.shown(file))
            .collect();
        if unapproved.is_empty() {
            let message = "Approval approved (a cached verdict for the current content)".to_owned();
            return GateResult::new(kind, Outcome::Passed, message, details);
        }
        let message = format!(
            "no approved verdict of approval type `{}` is cached for the current content of {} (the reviewer is not started for a dependency)",
            escape_controls(approval_type),
            escape_controls(&unapproved.join(", "))
        );
        GateResult::new(kind, Outcome::Failed, message, details)
    }

    fn approval(
        &self,
        approval_type: &str,
        patterns: &[String],
        required: RequiredResult,
    ) -> GateResult {
        const KIND: &str = "approval";
        let mut files = Vec::new();
        let mut unmatched = Vec::new();
        for pattern in patterns {
            match self.approval_inputs(pattern) {
                Ok(found) if found.is_empty() => unmatched.push(pattern.clone()),
                Ok(found) => files.extend(found),
                Err(why) => return error(KIND, why),
            }
        }
        files.dedup();
        let mut details = GateDetails {
            files: files.iter().map(|f| self.shown(f)).collect(),
            required_result: Some(required.as_str().to_owned()),
            ..GateDetails::default()
        };
        if !unmatched.is_empty() {
            let message = format!("no file matches {}", unmatched.join(", "));
            details.findings.push(
                GATE_FILE_MISSING
                    .finding(format!("{message} (below {})", self.shown(self.base)))
                    .hint("correct the glob in `files` (or the phase's `input`)"),
            );
            return GateResult::new(KIND, Outcome::Failed, message, details);
        }
        // Files listed by name are judged together, as one approval; the files a
        // glob matched are judged each by itself, and every verdict must be
        // `required_result`.
        if !patterns.iter().any(|p| is_glob(p)) || files.len() == 1 {
            return self.review(KIND, &files, approval_type, required, details);
        }
        let results: Vec<GateResult> = files
            .iter()
            .map(|file| {
                let one = GateDetails {
                    files: vec![self.shown(file)],
                    required_result: Some(required.as_str().to_owned()),
                    ..GateDetails::default()
                };
                self.review(
                    KIND,
                    std::slice::from_ref(file),
                    approval_type,
                    required,
                    one,
                )
            })
            .collect();
        let outcome = results
            .iter()
            .fold(Outcome::Passed, |acc, r| acc.and(r.outcome()));
        let mut approvals = Vec::new();
        let mut lines = Vec::new();
        for (result, file) in results.into_iter().zip(&details.files) {
            if !result.passed {
                lines.push(format!("{file}: {}", result.message));
            }
            details.findings.extend(result.details.findings);
            approvals.extend(result.details.approval);
        }
        details.approval = Some(serde_json::Value::Array(approvals));
        let passed = files.len() - lines.len();
        let mut message = format!(
            "{passed} of {} file(s) passed the approval (required: {})",
            files.len(),
            required.as_str()
        );
        if !lines.is_empty() {
            message = format!("{message}; {}", lines.join("; "));
        }
        GateResult::new(KIND, outcome, message, details)
    }

    fn approval_passed(
        &self,
        rel: &str,
        files: &[String],
        phase: PhaseFiles<'_>,
        required: RequiredResult,
    ) -> GateResult {
        const KIND: &str = "approval_passed";
        let path = match self.path(rel) {
            Ok(path) => path,
            Err(why) => return error(KIND, why),
        };
        let shown = self.shown(&path);
        let mut details = GateDetails {
            files: vec![shown.clone()],
            required_result: Some(required.as_str().to_owned()),
            ..GateDetails::default()
        };
        if crate::engine::leaves_project(self.root, &path) {
            let message =
                format!("{shown} is a symbolic link that leads outside the project; not read");
            return GateResult::new(KIND, Outcome::Error, message, details);
        }
        let read = crate::engine::read_limited(&path, MAX_FILE).map_err(|e| e.to_string());
        let parsed = read.and_then(|bytes| {
            serde_json::from_slice::<serde_json::Value>(&bytes)
                .map(|document| (bytes, document))
                .map_err(|e| e.to_string())
        });
        let (bytes, document) = match parsed {
            Ok(read) => read,
            Err(why) => {
                let message = format!(
                    "cannot read the approval result {shown}: {why} (has the approval run?)"
                );
                return GateResult::new(KIND, Outcome::Error, message, details);
            }
        };
        let Some(result) = document
            .get("result")
            .and_then(serde_json::Value::as_str)
            .and_then(Verdict::parse)
        else {
            let message = format!(
                "{shown} is no approval result: `result` is not approved, rejected or needs_revision"
            );
            return GateResult::new(KIND, Outcome::Error, message, details);
        };
        details.findings = seed_findings(&document);
        details.approval = Some(document);
        let key = match approval::signing::load() {
            Ok(key) => key,
            Err(e) => return GateResult::new(KIND, Outcome::Error, e.to_string(), details),
        };
        let document = details.approval.clone().unwrap_or_default();
        let Followed {
            document: trusted,
            judged,
            moves: followed,
        } = match self.genuine(&shown, &bytes, &document, key.as_ref()) {
            Ok(followed) => followed,
            Err(why) => return GateResult::new(KIND, why.outcome(), why.to_string(), details),
        };
        let needed = match self.needed_judged(&path, files, phase) {
            Ok(needed) => self.across_moves(needed, &judged, &followed),
            Err(why) => return GateResult::new(KIND, why.outcome(), why.to_string(), details),
        };
        if let Some(message) = not_covered(&shown, &judged, &needed) {
            return GateResult::new(KIND, Outcome::Failed, message, details);
        }
        let required_confidence = match approval::settings(self.root) {
            Ok(settings) => settings
                .get(&trusted.approval_type)
                .map(|t| t.required_confidence),
            Err(e) => return GateResult::new(KIND, Outcome::Error, format!("{e:#}"), details),
        };
        let Some(required_confidence) = required_confidence else {
            let message = format!(
                "{shown} is the result of approval type `{}`, which config/approvals.yaml does not configure",
                escape_controls(&trusted.approval_type)
            );
            return GateResult::new(KIND, Outcome::Failed, message, details);
        };
        let confidence = trusted.confidence;
        let mut message = format!("Approval {result} (confidence: {:.0}%)", confidence * 100.0);
        // The type's required confidence as configured now: an approval below it
        // counts as `needs_revision`, as the confidence gate would decide today.
        let result = if trusted.result == Verdict::Approved && confidence < required_confidence {
            message = format!(
                "{message}, below the {:.0}% approval type `{}` requires now: counts as needs_revision",
                required_confidence * 100.0,
                escape_controls(&trusted.approval_type)
            );
            Verdict::NeedsRevision
        } else {
            result
        };
        message.push_str(&followed_note(&followed));
        let outcome = if accepts(required, result) {
            Outcome::Passed
        } else {
            Outcome::Failed
        };
        GateResult::new(KIND, outcome, message, details)
    }

    /// The result file `bytes` (`document` parsed) if genuine: signed with this user's
    /// key for the current content of what it judged, or of what `finalize` made of a
    /// judged draft ([`Ctx::finalized_result`]); else why not.
    fn genuine(
        &self,
        shown: &str,
        bytes: &[u8],
        document: &serde_json::Value,
        key: Option<&SigningKey>,
    ) -> Result<Followed, GateError> {
        match approval::result_file::verify(self.root, bytes, key) {
            Trust::Trusted { document, judged } => Ok(Followed {
                document,
                judged,
                moves: Vec::new(),
            }),
            Trust::Stale { path: gone, .. } if self.became_adr(&gone).is_some() => {
                self.finalized_result(shown, document)
            }
            untrusted => Err(GateError::Rejected(untrusted_message(
                shown, &untrusted, key,
            ))),
        }
    }

    /// The files a result must have judged, across `finalize`'s moves: a needed ADR
    /// that a judged draft became (`followed`) stands for that draft, and a needed draft
    /// stands for the ADR it became when the result judged that ADR (a newer approval,
    /// written after the finalize).
    fn across_moves(
        &self,
        needed: Vec<String>,
        judged: &[String],
        followed: &[(String, String)],
    ) -> Vec<String> {
        needed
            .into_iter()
            .map(|n| {
                followed
                    .iter()
                    .find(|(draft, adr)| *draft == n || *adr == n)
                    .map_or(n, |(draft, _)| draft.clone())
            })
            .map(|n| match self.became_adr(&n) {
                Some(adr) if !judged.contains(&n) && judged.contains(&adr) => adr,
                _ => n,
            })
            .collect()
    }

    /// The ADR (repository-relative) the draft `draft` (repository-relative) became
    /// by `finalize`, as [`Ctx::became`] finds it.
    fn became_adr(&self, draft: &str) -> Option<String> {
        if !crate::paths::is_plain_relative(draft) {
            return None;
        }
        let engine = Engine::load(self.root, None).ok()?;
        let adrs = engine.settings.adr_matcher().ok()?;
        self.became(&adrs, draft).map(|adr| self.shown(&adr))
    }

    /// A genuine result (signed with this user's key: [`approval::result_file::verify`]
    /// checks the signature before any judged file, so `Stale` means genuine) of
    /// which a judged draft is gone because `finalize` moved it. It still holds when
    /// every judged file has its judged content, or is a draft whose ADR is exactly
    /// what finalize made of the judged draft.
    ///
    /// The proof of the last: finalize signs the draft's cached `approved` verdict
    /// for the content it wrote ([`approval::finalize`]); a signed cache entry for
    /// the ADR's current content with the result's `approval_id` exists only when
    /// the ADR is finalize's output from a draft judged by this very approval (the
    /// cache key is the content, and an approval id names one review). Reversing
    /// finalize's edits on the ADR and hashing that is no proof: the draft's own
    /// `adr_id` (absent, `XXX`, a guess), title number and `concept:` form are lost
    /// in the move, and a rule that normalises them would accept hand edits there.
    /// Returns the result, the files it covers (judged paths) and the moves followed
    /// (draft, ADR), else why the result is stale.
    fn finalized_result(
        &self,
        shown: &str,
        document: &serde_json::Value,
    ) -> Result<Followed, GateError> {
        let again = "run `helix-gate approve --out` again";
        let trusted: approval::ResultDocument =
            serde_json::from_value(document.clone()).map_err(|e| {
                GateError::Rejected(format!(
                    "{shown} is not in helix-gate's form ({e}); {again}"
                ))
            })?;
        let judged: Vec<approval::result_file::JudgedFile> = document
            .get("judged")
            .cloned()
            .and_then(|j| serde_json::from_value(j).ok())
            .unwrap_or_default();
        let engine = Engine::load(self.root, None).map_err(GateError::load)?;
        let lookup = approval::ApprovalLookup::load(self.root, &trusted.approval_type);
        let limit = engine.settings.adr.max_file_size;
        let mut moves = Vec::new();
        for file in &judged {
            let stale = |why: &str| {
                GateError::Rejected(format!(
                    "{shown} is stale: {} was judged, but {why}; {again}",
                    escape_controls(&file.path)
                ))
            };
            if !crate::paths::is_plain_relative(&file.path) {
                return Err(stale("it is not a path inside the repository"));
            }
            let at = self.root.join(&file.path);
            if std::fs::symlink_metadata(&at).is_ok() {
                let same = !crate::engine::leaves_project(self.root, &at)
                    && crate::engine::read_limited(&at, MAX_JUDGED).is_ok_and(|bytes| {
                        approval::result_file::JudgedFile::new(&file.path, &bytes) == *file
                    });
                if !same {
                    return Err(stale("its content changed since it was judged"));
                }
                continue;
            }
            let Some(adr) = self.became_adr(&file.path) else {
                return Err(stale("it no longer exists"));
            };
            let carried = lookup.as_ref().and_then(|lookup| {
                let path = self.root.join(&adr);
                let bytes = crate::engine::read_limited(&path, limit).ok()?;
                lookup.approval(&lookup.key(&engine, &path, &bytes))
            });
            if carried.is_none_or(|d| d.approval_id != trusted.approval_id) {
                return Err(GateError::Rejected(format!(
                    "{shown} is stale: {} was judged and finalized into {}, but {} is not what finalize made of the judged draft (changed since, or finalize carried no approval over); run `helix-gate approve --out {shown} {}` in the repository root",
                    escape_controls(&file.path),
                    escape_controls(&adr),
                    escape_controls(&adr),
                    escape_controls(&adr)
                )));
            }
            moves.push((file.path.clone(), adr));
        }
        Ok(Followed {
            document: Box::new(trusted),
            judged: judged.into_iter().map(|f| f.path).collect(),
            moves,
        })
    }

    /// The files (repository-relative) an `approval_passed` result must have judged:
    /// the gate's `files`, else the phase's outputs but the result file itself, else
    /// the phase's inputs (an approval phase's files under review). Globs are expanded.
    fn needed_judged(
        &self,
        result: &Path,
        files: &[String],
        phase: PhaseFiles<'_>,
    ) -> Result<Vec<String>, GateError> {
        let outputs: Vec<String> = phase
            .output
            .iter()
            .filter(|o| self.path(o).ok().as_deref() != Some(result))
            .cloned()
            .collect();
        let wanted = [files, &outputs, phase.input]
            .into_iter()
            .find(|list| !list.is_empty())
            .unwrap_or_default();
        let mut needed = Vec::new();
        for rel in wanted {
            if is_glob(rel) {
                let one = std::slice::from_ref(rel);
                needed.extend(self.expand(one)?.iter().map(|p| self.shown(p)));
                // The drafts it matched before `finalize` moved them.
                needed.extend(self.moved(one)?.iter().map(|(draft, _)| self.shown(draft)));
            } else {
                needed.push(self.shown(&self.path(rel)?));
            }
        }
        Ok(needed)
    }

    fn files_exist(&self, files: &[String], outputs: &[String]) -> GateResult {
        const KIND: &str = "files_exist";
        let wanted = if files.is_empty() { outputs } else { files };
        let mut details = GateDetails::default();
        for rel in wanted {
            match self.path(rel) {
                Ok(path) => {
                    details.files.push(self.shown(&path));
                    if let Some(why) = absent(&path) {
                        details.findings.push(
                            GATE_FILE_MISSING
                                .finding(format!("{} {why}", self.shown(&path)))
                                .in_file(self.shown(&path)),
                        );
                    }
                }
                Err(why) => return error(KIND, why),
            }
        }
        let missing = details.findings.len();
        let (outcome, message) = if wanted.is_empty() {
            (
                Outcome::Passed,
                "no files to check (the phase names no output files)".to_owned(),
            )
        } else if missing == 0 {
            (Outcome::Passed, format!("{} file(s) exist", wanted.len()))
        } else {
            (
                Outcome::Failed,
                format!("{missing} of {} file(s) missing", wanted.len()),
            )
        };
        GateResult::new(KIND, outcome, message, details)
    }
}

/// A genuine approval result: its document, the files it judged (repository-relative),
/// and the judged drafts `finalize` moved, each with the ADR it became.
struct Followed {
    document: Box<approval::ResultDocument>,
    judged: Vec<String>,
    moves: Vec<(String, String)>,
}

/// What an `approval_passed` message adds for each judged draft it followed.
fn followed_note(moves: &[(String, String)]) -> String {
    use std::fmt::Write as _;
    moves.iter().fold(String::new(), |mut out, (draft, adr)| {
        let _ = write!(
            out,
            "; {} was judged and finalized into {}, which is what finalize made of it (finalize carried this approval over to it)",
            escape_controls(draft),
            escape_controls(adr)
        );
        out
    })
}

/// Why `path` does not count as an existing output: missing, a link to nothing,
/// or a folder with nothing in it (an output never written). `None` when it exists.
fn absent(path: &Path) -> Option<&'static str> {
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return Some("does not exist");
    };
    let meta = if meta.file_type().is_symlink() {
        match std::fs::metadata(path) {
            Ok(target) => target,
            Err(_) => return Some("does not exist (dangling link)"),
        }
    } else {
        meta
    };
    let empty = |p: &Path| std::fs::read_dir(p).is_ok_and(|mut entries| entries.next().is_none());
    (meta.is_dir() && empty(path)).then_some("is an empty directory")
}

/// Why a genuine result `shown` that judged `judged` does not cover
/// `needed`; None when it covers every file.
fn not_covered(shown: &str, judged: &[String], needed: &[String]) -> Option<String> {
    let list = |files: &[String], sep: &str| escape_controls(&files.join(sep)).into_owned();
    if needed.is_empty() {
        return Some(format!(
            "{shown} judged {}, but the gate names no file it must cover (give it `files`, on the command line --files, or the phase its output files); a result for other files proves nothing here",
            list(judged, ", ")
        ));
    }
    let missing: Vec<String> = needed
        .iter()
        .filter(|n| !judged.contains(n))
        .cloned()
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "{shown} judged {}, not {}, which the phase needs: a genuine result, but for other files; run `helix-gate approve --out {shown} {}` in the repository root",
            list(judged, ", "),
            list(&missing, ", "),
            list(needed, " ")
        )
    })
}

/// Why the result file `shown` is not trusted.
fn untrusted_message(shown: &str, trust: &Trust, key: Option<&SigningKey>) -> String {
    let again = "run `helix-gate approve --out` again";
    match trust {
        Trust::Trusted { .. } => format!("{shown} is trusted"),
        Trust::Unsigned => format!(
            "{shown} is not signed by helix-gate: it has no signature (written by hand or by another tool); {again}"
        ),
        Trust::Malformed(why) => format!(
            "{shown} is not signed by helix-gate: its signature part is {}; {again}",
            escape_controls(why)
        ),
        Trust::NoKey => format!(
            "{shown} is not signed by helix-gate for this user: this user has no signing key yet; {again}"
        ),
        Trust::ForeignKey(theirs) => format!(
            "{shown} is not signed by helix-gate with this user's key: it names key {} (this user's is {}), which is not in {} either: a result copied from elsewhere, or a teammate's whose key was not exported (`helix-gate key export`); {again}",
            escape_controls(theirs),
            key.map(SigningKey::id).unwrap_or_default(),
            approval::keys::KEYS_DIR
        ),
        Trust::UntrustedKey { key_id, file, why } => format!(
            "{shown} is signed with key {} from {}, which verifies nothing yet: {why}; read {} and run `helix-gate trust` to trust its keys",
            escape_controls(key_id),
            escape_controls(file),
            approval::keys::KEYS_DIR
        ),
        Trust::Tampered => format!(
            "{shown} is not signed by helix-gate: its signature does not match its content (changed after helix-gate signed it); {again}"
        ),
        Trust::Stale { path, why } => format!(
            "{shown} is stale: {} was judged, but {why}; {again}",
            escape_controls(path)
        ),
    }
}

/// Whether a gate's path is a glob (each file it matches is judged) rather than a name.
fn is_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{'])
}

/// `a.md fails` or `2 files fail`.
fn subject(files: &[String], one: &str, many: &str) -> String {
    match files {
        [file] => format!("{file} {one}"),
        _ => format!("{} files {many}", files.len()),
    }
}

/// The seed's rule (001 section 5.4): the verdict must be `required`, and `needs_revision`
/// also accepts `approved`.
pub fn accepts(required: RequiredResult, result: Verdict) -> bool {
    match required {
        RequiredResult::Approved => result == Verdict::Approved,
        RequiredResult::NeedsRevision => {
            matches!(result, Verdict::Approved | Verdict::NeedsRevision)
        }
    }
}

/// The findings of a result document in the seed's form (`severity`, `check`, `message`,
/// `location`) as the one Finding model, marked as the reviewer's.
fn seed_findings(document: &serde_json::Value) -> Vec<Finding> {
    let Some(list) = document
        .get("findings")
        .and_then(serde_json::Value::as_array)
    else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|f| {
            let text = |key: &str| f.get(key).and_then(serde_json::Value::as_str);
            let severity = Severity::parse(text("severity")?)?;
            let mut finding = Finding::new(
                text("check").unwrap_or("reviewer"),
                severity,
                text("message").unwrap_or(""),
            )
            .from_source(Source::Reviewer);
            if let Some(location) = text("location") {
                finding = finding.in_file(location);
            }
            Some(finding)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn needs_revision_accepts_approved_but_approved_accepts_only_approved() {
        use RequiredResult as R;
        assert!(accepts(R::Approved, Verdict::Approved));
        assert!(!accepts(R::Approved, Verdict::NeedsRevision));
        assert!(!accepts(R::Approved, Verdict::Rejected));
        assert!(accepts(R::NeedsRevision, Verdict::Approved));
        assert!(accepts(R::NeedsRevision, Verdict::NeedsRevision));
        assert!(!accepts(R::NeedsRevision, Verdict::Rejected));
    }

    #[test]
    fn a_rejected_result_fails_the_gate_and_anything_else_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = Ctx {
            root: dir.path(),
            base: dir.path(),
            reviewer: Reviewer::Withheld,
        };
        let err = ctx.path("../elsewhere.md").unwrap_err();
        assert!(matches!(err, GateError::Escapes { .. }), "{err}");
        assert_eq!(err.outcome(), Outcome::Error);
        let Err(err) = ctx.genuine("result.json", b"{}", &serde_json::json!({}), None) else {
            panic!("a result without a signature was accepted");
        };
        assert!(matches!(err, GateError::Rejected(_)), "{err}");
        assert_eq!(err.outcome(), Outcome::Failed);
    }
}
