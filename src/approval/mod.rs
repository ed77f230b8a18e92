//! Sub-agent approval: an independent reviewer, only after every deterministic
//! check passes.
//!
//! The pipeline of [`approve`]:
//!
//! 1. **Deterministic checks** of the files (the same rules as `validate` for
//!    ADRs; size and binary checks for other files). Any error → verdict
//!    `rejected` with those findings; no reviewer process is started.
//! 2. **Cache**: the verdict (approved, rejected or `needs_revision`) for the
//!    same content, type, instructions and model is reused ([`cache`]) when
//!    its entry carries a valid HMAC made with this user's key ([`signing`]):
//!    one content is reviewed once. `no_cache` skips it.
//! 3. **Reviewer**: one `claude -p` child in its own run folder
//!    `.helix-gate/approvals/<id>/` ([`run_dir`], [`runner`]), read-only
//!    tools, the verdict through `--json-schema`. A timeout, a crash, a
//!    missing binary or an unusable answer becomes `rejected` with a finding
//!    `check: infrastructure` that names the failure as such.
//! 4. **Confidence gate**: `approved` below `required_confidence` becomes
//!    `needs_revision` ([`verdict::gate`]).
//! 5. **Records**: `output/approval-result.json` in the run folder, one line in
//!    `.helix-gate/approvals.jsonl` ([`history`], for run numbers and `stats`;
//!    it never grants an approval), and the signed cache entry of every
//!    reviewer verdict (never of an infrastructure failure).
//!
//! Entry points: `helix-gate approve` ([`approve`]), the Claude Code hook's Stop
//! gate ([`approve`], [`settings()`], [`Approval::feedback`],
//! [`record_escalation`]), the git pre-commit hook ([`ApprovalLookup`]),
//! `helix-gate finalize` ([`finalize`]), `helix-gate approve --override`
//! ([`judgement`]) and `helix-gate stats` ([`history_figures`]).

pub mod cache;
pub mod claude;
pub mod consent;
pub mod decision_review;
pub mod finalize;
pub mod history;
mod inputs;
pub mod instructions;
pub mod judgement;
pub mod keys;
pub mod lookup;
pub mod numbers;
pub mod outcome;
mod pipeline;
pub mod result_file;
pub mod run_dir;
pub mod runner;
pub mod settings;
mod signed_entry;
pub mod signing;
pub mod stop_timeout;
pub mod verdict;
mod wire;

pub use claude::RunnerError;
pub use consent::{consent_problem, consent_problem_in};
pub use history::{FileRun, HistorySummary, Stage};
pub use inputs::concept_digests;
pub use instructions::{InstructionsError, describe as describe_instructions};
pub use lookup::{
    ApprovalLookup, Coverage, coverage, history_figures, history_summary, record_escalation,
    reviewer_check, reviewer_numbers, settings,
};
pub use outcome::{
    ADR_TYPE, AgentContext, Approval, ApprovalError, ApproveOptions, ResultDocument,
};
pub use pipeline::{approve, round3};
pub use settings::{
    ApprovalSettings, ConfigError, NextStep, OnRejection, RejectionAction, TypeSettings,
};
pub use verdict::Verdict;
