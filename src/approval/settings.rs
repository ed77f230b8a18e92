//! `config/approvals.yaml`: approval types, reviewer settings, `on_rejection`.
//!
//! Same approach as [`crate::config::settings`]: the file shipped with
//! helix-gate is embedded and is the base layer; a repository's own
//! `config/approvals.yaml` is merged over it key by key; the result is
//! deserialized strictly (unknown keys fail) and checked.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use crate::yaml;

/// The approvals config shipped with helix-gate and embedded in the binary.
pub const DEFAULT_APPROVALS: &str = include_str!("../../config/approvals.yaml");

/// Repository-relative location of a repository's own approvals config.
pub const APPROVALS_PATH: &str = crate::config::protected::APPROVALS_PATH;

/// Placeholders `on_rejection.feedback_template` may use, as `{name}` or as
/// the seeds' `{{name}}`. `blocking_issues` and `suggestions` are the seeds'
/// names (the error findings; the recommendations and the other findings).
pub const TEMPLATE_PLACEHOLDERS: [&str; 9] = [
    "file",
    "result",
    "confidence",
    "findings",
    "recommendations",
    "attempt",
    "max_attempts",
    "blocking_issues",
    "suggestions",
];

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawFile {
    defaults: RawDefaults,
    approvals: BTreeMap<String, RawType>,
    on_rejection: RawOnRejection,
    commit: RawCommit,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawDefaults {
    model: String,
    timeout: u64,
    required_confidence: f64,
    max_budget_usd: f64,
    command: String,
    /// The seeds' key: start the reviewer once more when a run ends without a verdict
    /// because it crashed, exited non-zero or answered unusably; never after a timeout,
    /// the cost cap or a missing command (a second run would not fare better). The second
    /// run decides; both runs' cost and time are recorded.
    #[serde(default)]
    retry_on_failure: bool,
    #[serde(default = "default_max_parallel")]
    max_parallel: usize,
}

/// Reviews the Stop gate runs at once when `defaults.max_parallel` is not set.
pub const DEFAULT_MAX_PARALLEL: usize = 4;

fn default_max_parallel() -> usize {
    DEFAULT_MAX_PARALLEL
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawType {
    /// Whether helix-gate runs this reviewer at all; when false, `approve --type` on it
    /// is exit 2 and the Stop gate skips it.
    enabled: bool,
    /// A short text for people; not used by any check.
    #[serde(default)]
    description: String,
    /// Absent (the seeds' `adr` and `docs` entries): every `checks/*.md` of the type.
    #[serde(default)]
    checks: Option<Vec<String>>,
    #[serde(default)]
    retry_on_failure: Option<bool>,
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    timeout: Option<u64>,
    #[serde(default)]
    required_confidence: Option<f64>,
    #[serde(default)]
    max_budget_usd: Option<f64>,
    #[serde(default)]
    command: Option<String>,
    /// This type's own keys of `on_rejection`; the others come from `on_rejection`.
    #[serde(default)]
    on_rejection: Option<RawOnRejectionOverride>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawOnRejection {
    action: RejectionAction,
    max_retries: u32,
    /// The message the author gets when a review does not pass. Placeholders: `{file}`,
    /// `{result}`, `{confidence}`, `{findings}`, `{recommendations}`, `{attempt}`,
    /// `{max_attempts}` (the most reviews of one file: `max_retries` + 1), and the
    /// seeds' `{blocking_issues}` (the error findings) and
    /// `{suggestions}` (the recommendations, then the warnings and infos); each may also
    /// be written `{{name}}`.
    feedback_template: String,
    /// The seeds' HELIX phase that gets the feedback. A Claude Code session
    /// has one author, so it is accepted, has no effect, and `doctor` says so.
    #[serde(default)]
    target_phase: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawOnRejectionOverride {
    #[serde(default)]
    action: Option<RejectionAction>,
    #[serde(default)]
    max_retries: Option<u32>,
    #[serde(default)]
    feedback_template: Option<String>,
    #[serde(default)]
    target_phase: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawCommit {
    required_on_commit: bool,
}

/// What the Stop gate does with a verdict that is not `approved`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum RejectionAction {
    /// Feed the verdict back to the author and review again, up to
    /// `max_retries` failed reviews; then escalate to a human. The seeds'
    /// `retry_phase` means the same here: the phase that wrote the file is the
    /// Claude Code session, and the feedback goes back to it.
    #[serde(alias = "retry_phase")]
    Retry,
    /// No feedback loop: hand the verdict to a human at once (allow the stop,
    /// loud message, escalation record).
    Escalate,
    /// Feed back up to `max_retries` failed reviews; then keep blocking.
    Fail,
}

impl RejectionAction {
    pub fn as_str(self) -> &'static str {
        match self {
            RejectionAction::Retry => "retry",
            RejectionAction::Escalate => "escalate",
            RejectionAction::Fail => "fail",
        }
    }
}

/// What a caller (the Stop gate) should do after a failed review.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NextStep {
    /// Block and send [`crate::approval::Approval::feedback`] to the author.
    Feedback,
    /// Retries are spent (or `action: escalate`): allow, tell the user loudly,
    /// record the escalation ([`crate::approval::record_escalation`]).
    Escalate,
    /// Retries are spent and `action: fail`: keep blocking.
    Block,
}

/// `on_rejection` for one type (the global block with the type's overrides).
#[derive(Debug, Clone, PartialEq)]
pub struct OnRejection {
    pub action: RejectionAction,
    /// Failed reviews of one file that may end in feedback.
    pub max_retries: u32,
    /// Feedback text with `{placeholders}` (see [`TEMPLATE_PLACEHOLDERS`]).
    pub feedback_template: String,
}

impl OnRejection {
    /// The most reviews one file gets in a session before the person decides:
    /// the first and `max_retries` more (`action: escalate`: the first). The one
    /// count every message states, `review N of` this (`{max_attempts}`).
    pub fn max_reviews(&self) -> u32 {
        match self.action {
            RejectionAction::Escalate => 1,
            _ => self.max_retries.saturating_add(1),
        }
    }

    /// The step after review number `failed_reviews` (1-based, counting the
    /// one that just failed) did not pass.
    pub fn next_step(&self, failed_reviews: u32) -> NextStep {
        match self.action {
            RejectionAction::Escalate => NextStep::Escalate,
            _ if failed_reviews < self.max_retries => NextStep::Feedback,
            RejectionAction::Retry => NextStep::Escalate,
            RejectionAction::Fail => NextStep::Block,
        }
    }
}

/// Resolved settings of one approval type (defaults applied).
#[derive(Debug, Clone, PartialEq)]
pub struct TypeSettings {
    /// Type name = folder name under `approvals/`.
    pub name: String,
    pub enabled: bool,
    pub description: String,
    /// Check file stems, in order (`checks/<name>.md`); `None`: every
    /// `checks/*.md` of the type's folder.
    pub checks: Option<Vec<String>>,
    /// Start the reviewer a second time when the first run ends without a
    /// verdict because it crashed, exited non-zero or answered unusably. Not
    /// for a timeout or the cost cap (a second run would double the time or the
    /// money), nor a missing command.
    pub retry_on_failure: bool,
    /// Passed to `--model`.
    pub model: String,
    /// Wall-clock limit of one reviewer run.
    pub timeout: Duration,
    /// Lowest confidence at which `approved` stays `approved`.
    pub required_confidence: f64,
    /// Passed to `--max-budget-usd`.
    pub max_budget_usd: f64,
    /// The reviewer executable (a name looked up on PATH, or a path; a relative
    /// path with a `/` is relative to the repository root).
    pub command: String,
    pub on_rejection: OnRejection,
}

/// Everything in `config/approvals.yaml`, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalSettings {
    /// Approval types by name.
    pub types: BTreeMap<String, TypeSettings>,
    /// `commit.required_on_commit`: pre-commit requires an approved cache entry
    /// for every staged ADR.
    pub required_on_commit: bool,
    /// `defaults.max_parallel`: reviews the Stop gate runs at once.
    pub max_parallel: usize,
    /// Where the repository layer came from (for messages).
    pub origin: String,
    /// Keys that were accepted but mean nothing outside the HELIX
    /// orchestrator, as `path: value` (for `helix-gate doctor`).
    pub orchestrator_keys: Vec<String>,
}

impl ApprovalSettings {
    /// The settings of type `kind`, if it is configured.
    pub fn get(&self, kind: &str) -> Option<&TypeSettings> {
        self.types.get(kind)
    }

    /// Configured type names, sorted.
    pub fn type_names(&self) -> Vec<&str> {
        self.types.keys().map(String::as_str).collect()
    }

    /// The largest `timeout` of the enabled types (`None` when none is
    /// enabled): the longest one review may take, which the Stop hook's
    /// installed timeout must cover.
    pub fn longest_enabled_timeout(&self) -> Option<Duration> {
        self.types
            .values()
            .filter(|t| t.enabled)
            .map(|t| t.timeout)
            .max()
    }
}

/// An approvals config that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid approvals config in {origin}: {message}")]
pub struct ConfigError {
    pub origin: String,
    pub message: String,
}

/// Defaults merged with `<root>/config/approvals.yaml` when it exists.
pub fn load(root: &Path) -> Result<ApprovalSettings, ConfigError> {
    let path = root.join(APPROVALS_PATH);
    let origin = path.display().to_string();
    let overlay = match crate::fs::read::optional_text(&path, crate::fs::read::CONFIG_LIMIT) {
        Ok(text) => text,
        Err(e) => {
            return Err(ConfigError {
                origin,
                message: e.to_string(),
            });
        }
    };
    from_layers(overlay.as_deref(), &origin)
}

/// Defaults merged with `overlay` (the text of an approvals file named `origin`).
pub fn from_layers(overlay: Option<&str>, origin: &str) -> Result<ApprovalSettings, ConfigError> {
    let err = |origin: &str, message: String| ConfigError {
        origin: origin.to_owned(),
        message,
    };
    let mut base = yaml::parse_value(DEFAULT_APPROVALS)
        .map_err(|e| err("built-in config/approvals.yaml", e.to_string()))?;
    let mut used_origin = "built-in config/approvals.yaml".to_owned();
    if let Some(text) = overlay {
        let value = yaml::parse_value(text).map_err(|e| err(origin, e.to_string()))?;
        if !value.is_null() {
            if !value.is_mapping() {
                return Err(err(origin, "expected a map of settings".to_owned()));
            }
            yaml::merge(&mut base, value);
            origin.clone_into(&mut used_origin);
        }
    }
    let raw: RawFile = yaml::from_value(base).map_err(|e| err(&used_origin, e.to_string()))?;
    resolve(raw, &used_origin).map_err(|e| err(&used_origin, e.to_string()))
}

/// A value of the approvals config out of its range, or a name that cannot be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InvalidApproval {
    #[error("{at}.timeout must be between 1 and 86400 seconds, got {value}")]
    Timeout { at: String, value: u64 },
    #[error("{at}.required_confidence must be between 0.0 and 1.0, got {value}")]
    Confidence { at: String, value: f64 },
    #[error("{at}.max_budget_usd must be a positive number of US dollars, got {value}")]
    Budget { at: String, value: f64 },
    #[error("{at} must not be empty")]
    EmptyText { at: String },
    #[error("{at} must not start with `-`: {value}")]
    Option { at: String, value: String },
    #[error("defaults.max_parallel must be between 1 and 32, got {0}")]
    MaxParallel(usize),
    #[error("approval type name `{0}` must use only a-z, 0-9, `-` and `_` (it names a folder)")]
    TypeName(String),
    #[error(
        "approvals.{approval_type}.checks: check name `{check}` must use only a-z, 0-9, `-` and `_` (it names checks/<name>.md)"
    )]
    CheckName {
        approval_type: String,
        check: String,
    },
    #[error(
        "{at}: unknown placeholder {{{name}}}; known: {}",
        TEMPLATE_PLACEHOLDERS.iter().map(|p| format!("{{{p}}}")).collect::<Vec<_>>().join(", ")
    )]
    Placeholder { at: String, name: String },
}

fn resolve(raw: RawFile, origin: &str) -> Result<ApprovalSettings, InvalidApproval> {
    let d = &raw.defaults;
    check_common(
        "defaults",
        d.timeout,
        d.required_confidence,
        d.max_budget_usd,
    )?;
    check_text("defaults.model", &d.model)?;
    check_text("defaults.command", &d.command)?;
    if !(1..=32).contains(&d.max_parallel) {
        return Err(InvalidApproval::MaxParallel(d.max_parallel));
    }
    check_template(
        "on_rejection.feedback_template",
        &raw.on_rejection.feedback_template,
    )?;
    let mut orchestrator_keys = Vec::new();
    if let Some(phase) = &raw.on_rejection.target_phase {
        orchestrator_keys.push(format!("on_rejection.target_phase: {phase}"));
    }
    let mut types = BTreeMap::new();
    for (name, t) in raw.approvals {
        if !is_simple_name(&name) {
            return Err(InvalidApproval::TypeName(name));
        }
        let at = |field: &str| format!("approvals.{name}.{field}");
        for check in t.checks.iter().flatten() {
            if !is_simple_name(check) {
                return Err(InvalidApproval::CheckName {
                    approval_type: name.clone(),
                    check: check.clone(),
                });
            }
        }
        let model = t.model.unwrap_or_else(|| d.model.clone());
        let command = t.command.unwrap_or_else(|| d.command.clone());
        check_text(&at("model"), &model)?;
        check_text(&at("command"), &command)?;
        let timeout = t.timeout.unwrap_or(d.timeout);
        let required_confidence = t.required_confidence.unwrap_or(d.required_confidence);
        let max_budget_usd = t.max_budget_usd.unwrap_or(d.max_budget_usd);
        check_common(
            &format!("approvals.{name}"),
            timeout,
            required_confidence,
            max_budget_usd,
        )?;
        let over = t.on_rejection.unwrap_or(RawOnRejectionOverride {
            action: None,
            max_retries: None,
            feedback_template: None,
            target_phase: None,
        });
        if let Some(phase) = &over.target_phase {
            orchestrator_keys.push(format!("{}: {phase}", at("on_rejection.target_phase")));
        }
        if let Some(template) = &over.feedback_template {
            check_template(&at("on_rejection.feedback_template"), template)?;
        }
        let on_rejection = OnRejection {
            action: over.action.unwrap_or(raw.on_rejection.action),
            max_retries: over.max_retries.unwrap_or(raw.on_rejection.max_retries),
            feedback_template: over
                .feedback_template
                .unwrap_or_else(|| raw.on_rejection.feedback_template.clone()),
        };
        types.insert(
            name.clone(),
            TypeSettings {
                name,
                enabled: t.enabled,
                description: t.description,
                checks: t.checks,
                retry_on_failure: t.retry_on_failure.unwrap_or(d.retry_on_failure),
                model,
                timeout: Duration::from_secs(timeout),
                required_confidence,
                max_budget_usd,
                command,
                on_rejection,
            },
        );
    }
    Ok(ApprovalSettings {
        types,
        required_on_commit: raw.commit.required_on_commit,
        max_parallel: raw.defaults.max_parallel,
        origin: origin.to_owned(),
        orchestrator_keys,
    })
}

fn check_common(
    at: &str,
    timeout: u64,
    required_confidence: f64,
    max_budget_usd: f64,
) -> Result<(), InvalidApproval> {
    let at = at.to_owned();
    if !(1..=86_400).contains(&timeout) {
        return Err(InvalidApproval::Timeout { at, value: timeout });
    }
    if !(0.0..=1.0).contains(&required_confidence) {
        return Err(InvalidApproval::Confidence {
            at,
            value: required_confidence,
        });
    }
    if !(max_budget_usd.is_finite() && max_budget_usd > 0.0) {
        return Err(InvalidApproval::Budget {
            at,
            value: max_budget_usd,
        });
    }
    Ok(())
}

fn check_text(at: &str, value: &str) -> Result<(), InvalidApproval> {
    if value.trim().is_empty() {
        return Err(InvalidApproval::EmptyText { at: at.to_owned() });
    }
    if value.starts_with('-') {
        return Err(InvalidApproval::Option {
            at: at.to_owned(),
            value: value.to_owned(),
        });
    }
    Ok(())
}

/// `a-z`, `0-9`, `-`, `_`, not starting with `-`: safe as a file or folder name.
pub fn is_simple_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('-')
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// Every `{word}` in the template must be a known placeholder.
fn check_template(at: &str, template: &str) -> Result<(), InvalidApproval> {
    match placeholders(template).find(|name| !TEMPLATE_PLACEHOLDERS.contains(name)) {
        Some(name) => Err(InvalidApproval::Placeholder {
            at: at.to_owned(),
            name: name.to_owned(),
        }),
        None => Ok(()),
    }
}

/// Names of `{word}` placeholders (word = `[a-z_]+`) in `template`.
fn placeholders(template: &str) -> impl Iterator<Item = &str> {
    template.split('{').skip(1).filter_map(|part| {
        let end = part.find('}')?;
        let name = &part[..end];
        (!name.is_empty() && name.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'))
            .then_some(name)
    })
}

/// The JSON Schema of `config/approvals.yaml`, for editors (`helix-gate schema`), generated by `generator`.
pub fn json_schema(generator: schemars::SchemaGenerator) -> schemars::Schema {
    generator.into_root_schema_for::<RawFile>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_parse() {
        let s = from_layers(None, "none").unwrap();
        let adr = s.get("adr").unwrap();
        assert!(adr.enabled);
        assert_eq!(adr.checks, None, "adr uses every check of its folder");
        assert!(!adr.retry_on_failure);
        let docs = s.get("docs").unwrap();
        assert!(!docs.enabled, "docs is off by default, as in the seeds");
        assert_eq!(docs.checks, None);
        assert!(s.orchestrator_keys.is_empty());
        assert_eq!(adr.command, "claude");
        assert_eq!(adr.timeout, Duration::from_secs(300));
        assert!((adr.max_budget_usd - 0.30).abs() < 1e-9);
        assert!((adr.required_confidence - 0.8).abs() < 1e-9);
        let code = s.get("code").unwrap();
        assert!(!code.enabled);
        assert_eq!(code.timeout, Duration::from_secs(600));
        let security = s.get("security").unwrap();
        assert!(!security.enabled, "security is off by default, like code");
        assert_eq!(
            security.checks.as_deref(),
            Some(
                &[
                    "injection".to_owned(),
                    "secrets".to_owned(),
                    "authz".to_owned()
                ][..]
            )
        );
        assert_eq!(adr.on_rejection.action, RejectionAction::Retry);
        assert!(
            adr.on_rejection
                .feedback_template
                .contains("Approval not granted")
        );
        assert!(!s.required_on_commit);
        assert_eq!(s.max_parallel, 4);
        assert_eq!(s.longest_enabled_timeout(), Some(Duration::from_secs(300)));
    }

    #[test]
    fn max_parallel_and_the_longest_enabled_timeout() {
        let s = from_layers(
            Some("defaults: {max_parallel: 2}\napprovals:\n  adr: {timeout: 900}\n  code: {enabled: false, timeout: 2000}\n"),
            "x",
        )
        .unwrap();
        assert_eq!(s.max_parallel, 2);
        assert_eq!(s.longest_enabled_timeout(), Some(Duration::from_secs(900)));
        let s = from_layers(Some("approvals: {adr: {enabled: false}}\n"), "x").unwrap();
        assert_eq!(s.longest_enabled_timeout(), None);
        for bad in ["0", "33"] {
            let err = from_layers(Some(&format!("defaults: {{max_parallel: {bad}}}\n")), "x")
                .unwrap_err();
            assert!(err.message.contains("max_parallel"), "{err}");
        }
    }

    #[test]
    fn overlay_merges_and_is_strict() {
        let s = from_layers(
            Some("approvals:\n  adr:\n    timeout: 5\n    command: ./fake.sh\n    on_rejection: {action: fail}\n  docs:\n    enabled: true\n    checks: [consistency]\n"),
            "x",
        )
        .unwrap();
        let adr = s.get("adr").unwrap();
        assert_eq!(adr.timeout, Duration::from_secs(5));
        assert_eq!(adr.command, "./fake.sh");
        assert_eq!(adr.on_rejection.action, RejectionAction::Fail);
        assert_eq!(adr.on_rejection.max_retries, 3);
        assert_eq!(adr.checks, None, "untouched keys keep their default");
        let docs = s.get("docs").unwrap();
        assert_eq!(docs.model, "sonnet");
        assert_eq!(
            docs.checks.as_deref(),
            Some(&["consistency".to_owned()][..])
        );

        let err = from_layers(Some("defaults: {timout: 5}\n"), "x").unwrap_err();
        assert!(err.message.contains("timout"), "{err}");
        let err =
            from_layers(Some("approvals: {adr: {required_confidence: 1.5}}\n"), "x").unwrap_err();
        assert!(err.message.contains("required_confidence"), "{err}");
        let err = from_layers(Some("approvals: {adr: {checks: ['../x']}}\n"), "x").unwrap_err();
        assert!(err.message.contains("check name"), "{err}");
        let err = from_layers(
            Some("approvals: {'../evil': {enabled: true, checks: []}}\n"),
            "x",
        )
        .unwrap_err();
        assert!(err.message.contains("type name"), "{err}");
        let err = from_layers(
            Some("on_rejection: {feedback_template: 'x {blocking}'}\n"),
            "x",
        )
        .unwrap_err();
        assert!(err.message.contains("{blocking}"), "{err}");
        let err = from_layers(Some("on_rejection: {action: later}\n"), "x").unwrap_err();
        assert!(err.message.contains("later"), "{err}");
        assert!(from_layers(Some("defaults: {max_budget_usd: 0}\n"), "x").is_err());
        assert!(from_layers(Some("defaults: {timeout: 0}\n"), "x").is_err());
        assert!(from_layers(Some("defaults: {model: '--evil'}\n"), "x").is_err());
        assert!(from_layers(Some("- a\n"), "x").is_err());
        assert!(from_layers(Some(""), "x").is_ok());
    }

    /// The `config/approvals.yaml` of the Freigabe-Konzept (seed 001, 4.4) and
    /// of ADR-015 (seed 002, section 10), verbatim.
    #[test]
    fn the_seeds_approvals_files_load_as_written() {
        for (name, text, adr_model) in [
            (
                "freigabe-konzept",
                include_str!("../../tests/fixtures/seeds/approvals-freigabe-konzept.yaml"),
                "claude-opus-4-5",
            ),
            (
                "adr-015",
                include_str!("../../tests/fixtures/seeds/approvals-adr-015.yaml"),
                "claude-sonnet-4-20250514",
            ),
        ] {
            let s = from_layers(Some(text), name).unwrap_or_else(|e| panic!("{name}: {e}"));
            let adr = s.get("adr").unwrap();
            assert!(adr.enabled);
            assert_eq!(adr.model, adr_model, "{name}");
            assert!(adr.retry_on_failure, "{name}");
            assert_eq!(adr.checks, None, "{name}: no list = every check file");
            let code = s.get("code").unwrap();
            assert!(code.enabled, "{name}");
            assert_eq!(code.timeout, Duration::from_secs(600));
            assert!(code.retry_on_failure, "{name}: inherited from defaults");
            assert_eq!(
                code.checks.as_deref(),
                Some(&["security".to_owned(), "tests".to_owned()][..])
            );
            let docs = s.get("docs").unwrap();
            assert!(!docs.enabled);
            assert_eq!(docs.model, "claude-sonnet-4-20250514");
            assert!(s.orchestrator_keys.is_empty());
        }
    }

    /// The seed's `on_rejection` handler (Freigabe-Konzept 4.3), globally and
    /// per type: `retry_phase` is `retry`, `target_phase` is accepted and
    /// listed, `{{blocking_issues}}`/`{{suggestions}}` are known placeholders.
    #[test]
    fn the_seeds_on_rejection_handler_loads() {
        let text = include_str!("../../tests/fixtures/seeds/approvals-on-rejection.yaml");
        let s = from_layers(Some(text), "seed").unwrap();
        let adr = s.get("adr").unwrap();
        assert_eq!(adr.on_rejection.action, RejectionAction::Retry);
        assert_eq!(adr.on_rejection.max_retries, 2);
        assert!(
            adr.on_rejection
                .feedback_template
                .contains("{{blocking_issues}}")
        );
        assert_eq!(
            s.orchestrator_keys,
            ["on_rejection.target_phase: consultant"]
        );
        let s = from_layers(
            Some("approvals:\n  adr:\n    on_rejection:\n      action: retry_phase\n      target_phase: consultant\n      feedback_template: '{{suggestions}} {file}'\n"),
            "x",
        )
        .unwrap();
        assert_eq!(
            s.orchestrator_keys,
            ["approvals.adr.on_rejection.target_phase: consultant"]
        );
        let err = from_layers(
            Some("on_rejection: {feedback_template: '{{blocker}}'}\n"),
            "x",
        )
        .unwrap_err();
        assert!(err.message.contains("{blocker}"), "{err}");
    }

    #[test]
    fn next_step_follows_the_action() {
        let mut o = OnRejection {
            action: RejectionAction::Retry,
            max_retries: 3,
            feedback_template: String::new(),
        };
        assert_eq!(o.next_step(1), NextStep::Feedback);
        assert_eq!(o.next_step(2), NextStep::Feedback);
        assert_eq!(o.next_step(3), NextStep::Escalate);
        o.action = RejectionAction::Fail;
        assert_eq!(o.next_step(2), NextStep::Feedback);
        assert_eq!(o.next_step(3), NextStep::Block);
        o.action = RejectionAction::Escalate;
        assert_eq!(o.next_step(1), NextStep::Escalate);
    }

    #[test]
    fn a_value_out_of_range_is_named_by_its_kind() {
        let mut raw: RawFile = yaml::parse(DEFAULT_APPROVALS).unwrap();
        raw.defaults.max_parallel = 0;
        assert_eq!(
            resolve(raw, "x").unwrap_err(),
            InvalidApproval::MaxParallel(0)
        );
        let err = check_template("t", "{blocking}").unwrap_err();
        assert_eq!(
            err,
            InvalidApproval::Placeholder {
                at: "t".to_owned(),
                name: "blocking".to_owned()
            }
        );
        assert!(
            err.to_string()
                .starts_with("t: unknown placeholder {blocking}; known: {"),
            "{err}"
        );
    }

    #[test]
    fn placeholder_scan() {
        let names: Vec<&str> =
            placeholders("a {file} {x y} {} {{result}} json {\"a\": 1}").collect();
        assert_eq!(names, ["file", "result"]);
    }
}
