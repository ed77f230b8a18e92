//! The reviewer of `llm_review` rules: does a change of code keep the accepted
//! decisions that govern it?
//!
//! An ADR's `## Enforcement` block may hold rules no pattern can check
//! (`kind: llm_review`, `check: "..."`, plain language). At the end of an agent's
//! turn, when every deterministic check passes, the hook hands the change (a
//! unified diff against `HEAD` of the files those rules cover) and the ADRs to
//! one fresh `claude -p`, the same reviewer process as an ADR's approval
//! ([`super::runner`]: read-only tools, its own run folder, hooks disabled, the
//! `adr` type's `command`, `model`, `timeout` and `max_budget_usd`), and the
//! reviewer answers per rule: `consistent`, `conflicts` or `unclear`, each with
//! a reason.
//!
//! - The answer is untrusted and checked here again: a rule it leaves out, or
//!   answers twice or in a form the schema does not allow, is `unclear`, never a
//!   pass that could hide a conflict.
//! - One change is reviewed once: the verdicts are cached under a SHA-256 of the
//!   diff, each rule (its ADR's id and content, the rule's id and check), the
//!   model and the instructions, in `.helix-gate/approval-cache/` with this
//!   user's HMAC like an approval ([`super::cache`]); an entry without a valid
//!   one is ignored. A run that gave no verdict is never cached.
//! - A reviewer that cannot run (not found, timeout, no answer) is a typed
//!   [`RunnerError`], never a verdict on the code.

use std::fmt::Write as _;
use std::path::Path;
use std::time::{Instant, SystemTime};

use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::claude::RunnerError;
use super::instructions::{Instructions, Origin};
use super::run_dir::{self, ReviewedFile};
use super::runner;
use super::settings::{self, TypeSettings};
use super::signed_entry;
use super::signing::SigningKey;
use crate::text::hex;

/// The approval type whose reviewer settings this review uses.
pub const SETTINGS_TYPE: &str = super::outcome::ADR_TYPE;
/// The largest diff handed to the reviewer; a larger one is cut, and the
/// reviewer is told so (it may read the files in the repository).
pub const DIFF_LIMIT: usize = 256 * 1024;
/// The reviewer's instructions (its run folder's `CLAUDE.md`).
const INSTRUCTIONS: &str = include_str!("decision_review.md");
/// The answer's schema, handed to `claude --json-schema`.
const SCHEMA: &str = r#"{"type":"object","additionalProperties":false,"required":["rules"],"properties":{"rules":{"type":"array","items":{"type":"object","additionalProperties":false,"required":["rule","verdict","reason"],"properties":{"rule":{"type":"string"},"verdict":{"type":"string","enum":["consistent","conflicts","unclear"]},"reason":{"type":"string"}}}}}}"#;
/// Version of the cache key; bump when the prompt or the key changes meaning.
const KEY_VERSION: &str = "helix-gate decision review v1";
/// Version of what an entry's HMAC covers.
const MAC_VERSION: &str = "helix-gate decision review entry v1";
/// Largest cache entry read.
const ENTRY_LIMIT: u64 = 1 << 20;
/// Longest reason kept from the reviewer.
const REASON_LIMIT: usize = 600;

/// One `llm_review` rule of one binding ADR, as the reviewer gets it.
#[derive(Debug, Clone)]
pub struct Rule {
    /// `ADR-014/no-ad-hoc-retries`.
    pub id: String,
    /// The ADR's file, relative to the repository root.
    pub adr_file: String,
    /// The rule's `check`: what the reviewer decides.
    pub check: String,
    /// The rule's `why`: what in the Decision it enforces.
    pub why: String,
}

/// What is reviewed: the change and the rules, with the ADRs' texts.
#[derive(Debug, Clone)]
pub struct Request {
    /// Unified diff of the covered files against `HEAD`.
    pub diff: String,
    pub rules: Vec<Rule>,
    /// `(repository path, bytes)` of each ADR a rule belongs to.
    pub adrs: Vec<(String, Vec<u8>)>,
}

/// The reviewer's word on one rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleVerdict {
    Consistent,
    Conflicts,
    Unclear,
}

impl RuleVerdict {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleVerdict::Consistent => "consistent",
            RuleVerdict::Conflicts => "conflicts",
            RuleVerdict::Unclear => "unclear",
        }
    }
}

/// One rule judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Judgement {
    pub rule: String,
    pub verdict: RuleVerdict,
    pub reason: String,
}

/// The verdicts of one review, one per requested rule in request order.
#[derive(Debug, Clone, PartialEq)]
pub struct Review {
    pub judgements: Vec<Judgement>,
    /// Taken from the cache: no reviewer ran.
    pub cached: bool,
    /// The run folder's id, when a reviewer ran.
    pub run: Option<String>,
    pub cost_usd: f64,
}

/// Why no review happened.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error("{0}")]
    Settings(String),
    #[error(
        "the reviewer command `{command}` is the repository's and needs the person's consent (`helix-gate trust`)"
    )]
    NotTrusted { command: String },
    #[error("the reviewer program {0} changed during this session and was not run")]
    ProgramChanged(String),
    #[error("cannot prepare the reviewer's run folder: {0}")]
    RunFolder(#[source] std::io::Error),
    #[error(transparent)]
    Runner(#[from] RunnerError),
}

/// How the review runs.
#[derive(Debug, Clone)]
pub struct Options<'a> {
    /// Where the session's configuration is (`config/approvals.yaml`).
    pub config_root: &'a Path,
    /// The reviewer must end by then (the Stop hook's deadline).
    pub deadline: Option<Instant>,
    /// A repository's reviewer command runs only with the person's consent.
    pub require_consent: bool,
}

/// Review `request`, or take its verdicts from the cache.
pub fn review(
    root: &Path,
    request: &Request,
    options: &Options<'_>,
) -> Result<Review, ReviewError> {
    let settings =
        settings::load(options.config_root).map_err(|e| ReviewError::Settings(e.to_string()))?;
    let Some(type_settings) = settings.get(SETTINGS_TYPE) else {
        return Err(ReviewError::Settings(format!(
            "config/approvals.yaml has no `{SETTINGS_TYPE}` type, whose reviewer settings the review of llm_review rules uses"
        )));
    };
    if options.require_consent
        && super::consent_problem_in(root, options.config_root, &settings, SETTINGS_TYPE).is_some()
    {
        return Err(ReviewError::NotTrusted {
            command: type_settings.command.clone(),
        });
    }
    let changed = crate::config::protected::changed_programs(root, options.config_root);
    if !changed.is_empty() {
        return Err(ReviewError::ProgramChanged(changed.join(", ")));
    }
    let key = key(&type_settings.model, request);
    let signing = super::signing::load_or_create().ok();
    if let Some(judgements) = signing.as_ref().and_then(|s| lookup(root, &key, s)) {
        return Ok(Review {
            judgements: complete(request, &judgements),
            cached: true,
            run: None,
            cost_usd: 0.0,
        });
    }
    let (run, outcome) = run_reviewer(root, request, type_settings, options)?;
    let output = outcome.output?;
    let judgements = complete(request, &parse(&output));
    if let Some(signing) = &signing {
        // Best effort: a verdict not cached is asked again next time.
        let _ = store(root, &key, &judgements, signing);
    }
    Ok(Review {
        judgements,
        cached: false,
        run: Some(run),
        cost_usd: outcome.metering.cost_usd,
    })
}

/// Start the reviewer in a run folder of its own holding `input/change.diff`
/// and the ADRs; its raw output is kept there.
fn run_reviewer(
    root: &Path,
    request: &Request,
    type_settings: &TypeSettings,
    options: &Options<'_>,
) -> Result<(String, runner::StructuredOutcome), ReviewError> {
    let instructions = Instructions {
        claude_md: INSTRUCTIONS.to_owned(),
        checks: Vec::new(),
        skills: Vec::new(),
        origin: Origin::BuiltIn,
    };
    let mut files = vec![ReviewedFile {
        path: root.join("change.diff"),
        display: "change.diff".to_owned(),
        bytes: request.diff.as_bytes().to_vec(),
    }];
    files.extend(request.adrs.iter().map(|(rel, bytes)| ReviewedFile {
        path: root.join(rel),
        display: rel.clone(),
        bytes: bytes.clone(),
    }));
    let run = run_dir::create(root, &instructions, &files, SystemTime::now())
        .map_err(ReviewError::RunFolder)?;
    let prompt = prompt(request, &run.inputs);
    let invocation = runner::Invocation::for_reviewer(
        type_settings,
        root,
        run.path.clone(),
        &prompt,
        SCHEMA,
        options.deadline,
    );
    let outcome = runner::run_structured(&invocation, &mut |_| {});
    run.keep_raw_output(&outcome.stdout, &outcome.stderr);
    Ok((run.id, outcome))
}

/// The task, naming every rule and where its ADR and the change are.
fn prompt(request: &Request, inputs: &[String]) -> String {
    let mut text = String::from(
        "Decide for each rule below whether the change in input/change.diff keeps the decision the rule enforces. Read the diff and the ADR of each rule (under input/); you may read the repository's files for context. Answer with the StructuredOutput tool: one entry per rule, with its id exactly as given.\n\nRules:\n",
    );
    for rule in &request.rules {
        let adr = inputs
            .iter()
            .find(|i| i.ends_with(&rule.adr_file))
            .map_or(rule.adr_file.as_str(), String::as_str);
        let _ = writeln!(
            text,
            "- {} (ADR: {adr})\n  check: {}\n  why: {}",
            rule.id,
            one_line(&rule.check),
            one_line(&rule.why)
        );
    }
    text
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[derive(Deserialize)]
struct RawAnswer {
    rules: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawJudgement {
    rule: String,
    verdict: RuleVerdict,
    reason: String,
}

/// The judgements an answer gives in a form the schema allows (the others are
/// dropped, and their rules become `unclear` in [`complete`]).
fn parse(output: &serde_json::Value) -> Vec<Judgement> {
    let Ok(answer) = serde_json::from_value::<RawAnswer>(output.clone()) else {
        return Vec::new();
    };
    answer
        .rules
        .into_iter()
        .filter_map(|value| serde_json::from_value::<RawJudgement>(value).ok())
        .map(|raw| Judgement {
            rule: raw.rule.trim().to_owned(),
            verdict: raw.verdict,
            reason: crate::text::truncate(raw.reason.trim(), REASON_LIMIT),
        })
        .collect()
}

/// One judgement per requested rule, in request order: the reviewer's when it
/// gave exactly one, else `unclear` with the reason why.
fn complete(request: &Request, given: &[Judgement]) -> Vec<Judgement> {
    request
        .rules
        .iter()
        .map(|rule| {
            let mut found = given.iter().filter(|j| j.rule == rule.id);
            match (found.next(), found.next()) {
                (Some(one), None) => one.clone(),
                (Some(_), Some(_)) => Judgement {
                    rule: rule.id.clone(),
                    verdict: RuleVerdict::Unclear,
                    reason: "the reviewer answered this rule more than once".to_owned(),
                },
                (None, _) => Judgement {
                    rule: rule.id.clone(),
                    verdict: RuleVerdict::Unclear,
                    reason: "the reviewer gave no verdict on this rule".to_owned(),
                },
            }
        })
        .collect()
}

/// Length-prefixed fields, so that boundaries are part of the digest.
fn field(h: &mut Sha256, data: &[u8]) {
    h.update((data.len() as u64).to_be_bytes());
    h.update(data);
}

/// The cache key (64 hex digits): everything a verdict depends on.
fn key(model: &str, request: &Request) -> String {
    let mut h = Sha256::new();
    field(&mut h, KEY_VERSION.as_bytes());
    field(&mut h, model.as_bytes());
    field(&mut h, SCHEMA.as_bytes());
    field(&mut h, INSTRUCTIONS.as_bytes());
    field(&mut h, request.diff.as_bytes());
    let mut rules: Vec<&Rule> = request.rules.iter().collect();
    rules.sort_by(|a, b| a.id.cmp(&b.id));
    field(&mut h, &(rules.len() as u64).to_be_bytes());
    for rule in rules {
        field(&mut h, rule.id.as_bytes());
        field(&mut h, rule.check.as_bytes());
        field(&mut h, rule.why.as_bytes());
        let adr = request
            .adrs
            .iter()
            .find(|(rel, _)| *rel == rule.adr_file)
            .map_or(&[][..], |(_, bytes)| bytes.as_slice());
        field(&mut h, &Sha256::digest(adr));
    }
    hex(&h.finalize())
}

#[derive(Serialize, Deserialize)]
struct Entry {
    key: String,
    mac: String,
    judgements: Vec<Judgement>,
}

fn entry_name(key: &str) -> String {
    format!("decisions-{key}.json")
}

fn entry_path(root: &Path, key: &str) -> std::path::PathBuf {
    signed_entry::path(root, &entry_name(key))
}

/// The cached judgements under `key`, when this user's key signed them. Read
/// as every data file of helix-gate: a symbolic link in an entry's place is
/// not followed (as in the approval cache).
fn lookup(root: &Path, key: &str, signing: &SigningKey) -> Option<Vec<Judgement>> {
    let bytes = crate::fs::read::regular(
        &entry_path(root, key),
        ENTRY_LIMIT,
        crate::fs::read::Links::Refuse,
    )
    .ok()?;
    let entry: Entry = serde_json::from_slice(&bytes).ok()?;
    let judgements = serde_json::to_vec(&entry.judgements).ok()?;
    (entry.key == key && signed_entry::verifies(signing, MAC_VERSION, key, &judgements, &entry.mac))
        .then_some(entry.judgements)
}

fn store(
    root: &Path,
    key: &str,
    judgements: &[Judgement],
    signing: &SigningKey,
) -> std::io::Result<()> {
    let body = serde_json::to_vec(judgements).map_err(std::io::Error::other)?;
    let entry = Entry {
        key: key.to_owned(),
        mac: signed_entry::mac(signing, MAC_VERSION, key, &body),
        judgements: judgements.to_vec(),
    };
    signed_entry::write(root, &entry_name(key), &entry)
}

/// A unified diff of `before` (`HEAD`'s, `None` for a new file) and `after`
/// (`None` for a deleted file) of the file at `rel`, three lines of context.
pub fn unified_diff(rel: &str, before: Option<&str>, after: Option<&str>) -> String {
    let old = before.unwrap_or("");
    let new = after.unwrap_or("");
    let from = if before.is_some() {
        format!("a/{rel}")
    } else {
        "/dev/null".to_owned()
    };
    let to = if after.is_some() {
        format!("b/{rel}")
    } else {
        "/dev/null".to_owned()
    };
    similar::TextDiff::from_lines(old, new)
        .unified_diff()
        .context_radius(3)
        .header(&from, &to)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn request() -> Request {
        Request {
            diff: "--- a/src/x.py\n+++ b/src/x.py\n@@ -1 +1 @@\n-a\n+b\n".to_owned(),
            rules: vec![
                Rule {
                    id: "ADR-014/retries".into(),
                    adr_file: "docs/adr/0014-x.md".into(),
                    check: "Retries go through the gateway.".into(),
                    why: "One retry policy.".into(),
                },
                Rule {
                    id: "ADR-015/naming".into(),
                    adr_file: "docs/adr/0015-y.md".into(),
                    check: "Names follow the glossary.".into(),
                    why: "One language.".into(),
                },
            ],
            adrs: vec![
                ("docs/adr/0014-x.md".into(), b"adr 14".to_vec()),
                ("docs/adr/0015-y.md".into(), b"adr 15".to_vec()),
            ],
        }
    }

    #[test]
    fn each_rule_gets_the_reviewers_one_answer_or_unclear() {
        let output = json!({"rules": [
            {"rule": "ADR-014/retries", "verdict": "conflicts", "reason": "a loop retries requests itself"},
            {"rule": "ADR-999/other", "verdict": "consistent", "reason": "not asked"},
        ]});
        let judged = complete(&request(), &parse(&output));
        assert_eq!(judged.len(), 2);
        assert_eq!(judged[0].verdict, RuleVerdict::Conflicts);
        assert_eq!(judged[0].reason, "a loop retries requests itself");
        assert_eq!(judged[1].rule, "ADR-015/naming");
        assert_eq!(judged[1].verdict, RuleVerdict::Unclear);
    }

    #[test]
    fn a_malformed_answer_is_unclear_never_consistent() {
        for output in [
            json!({"rules": "all fine"}),
            json!({"verdict": "consistent"}),
            json!({"rules": [{"rule": "ADR-014/retries", "verdict": "fine", "reason": "x"}]}),
            json!({"rules": [{"rule": "ADR-014/retries", "verdict": "consistent"}]}),
            json!({"rules": [
                {"rule": "ADR-014/retries", "verdict": "consistent", "reason": "x"},
                {"rule": "ADR-014/retries", "verdict": "conflicts", "reason": "y"},
            ]}),
        ] {
            let judged = complete(&request(), &parse(&output));
            assert_eq!(judged[0].verdict, RuleVerdict::Unclear, "{output}");
        }
    }

    #[test]
    fn the_key_follows_the_diff_the_rules_and_the_adrs_but_not_their_order() {
        let base = key("sonnet", &request());
        assert_eq!(base.len(), 64);
        let mut reordered = request();
        reordered.rules.reverse();
        assert_eq!(base, key("sonnet", &reordered));
        assert_ne!(base, key("opus", &request()));
        let mut diff = request();
        diff.diff.push('\n');
        assert_ne!(base, key("sonnet", &diff));
        let mut adr = request();
        adr.adrs[0].1.push(b'!');
        assert_ne!(base, key("sonnet", &adr));
        let mut check = request();
        check.rules[1].check.push('!');
        assert_ne!(base, key("sonnet", &check));
    }

    #[test]
    fn a_cached_entry_counts_only_with_this_users_signature() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let signing = SigningKey::from_secret([7; 32]);
        let judged = complete(&request(), &[]);
        store(root, "k", &judged, &signing).unwrap();
        assert_eq!(lookup(root, "k", &signing), Some(judged.clone()));
        assert_eq!(lookup(root, "k", &SigningKey::from_secret([8; 32])), None);
        // A verdict changed by hand no longer matches its signature.
        let path = entry_path(root, "k");
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("unclear", "consistent");
        std::fs::write(&path, text).unwrap();
        assert_eq!(lookup(root, "k", &signing), None);
    }

    /// A link in an entry's place is not followed, even to a valid entry.
    #[cfg(unix)]
    #[test]
    fn a_linked_entry_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let signing = SigningKey::from_secret([7; 32]);
        let judged = complete(&request(), &[]);
        store(root, "k", &judged, &signing).unwrap();
        let path = entry_path(root, "k");
        let real = path.with_file_name("elsewhere.json");
        std::fs::rename(&path, &real).unwrap();
        std::os::unix::fs::symlink(&real, &path).unwrap();
        assert_eq!(lookup(root, "k", &signing), None);
        // The same bytes in place are read.
        std::fs::remove_file(&path).unwrap();
        std::fs::rename(&real, &path).unwrap();
        assert_eq!(lookup(root, "k", &signing), Some(judged));
    }

    #[test]
    fn the_diff_is_unified_with_new_and_deleted_files() {
        let diff = unified_diff("src/x.py", Some("a\nb\n"), Some("a\nc\n"));
        assert!(
            diff.starts_with("--- a/src/x.py\n+++ b/src/x.py\n"),
            "{diff}"
        );
        assert!(diff.contains("-b\n+c\n"), "{diff}");
        let new = unified_diff("src/n.py", None, Some("x\n"));
        assert!(new.starts_with("--- /dev/null\n+++ b/src/n.py\n"), "{new}");
        let gone = unified_diff("src/g.py", Some("x\n"), None);
        assert!(gone.contains("+++ /dev/null"), "{gone}");
    }
}
