//! `helix-gate gate`: the HELIX quality gates (seeds 001 section 4, 002 section 9) as a
//! command a phase can call.
//!
//! A gate is read from a phase of a `phases.yaml` ([`run_phase`]) or given on the command line
//! ([`run_gate`] with a [`Gate`](crate::config::plan::Gate) the CLI builds from its flags), so both go through the same
//! runner. The gates reuse the rest of helix-gate and check nothing themselves:
//!
//! - `adr_complete`: the engine's checks of every file the `file` glob matches, and of
//!   the ADR a matching draft became when `helix-gate finalize` moved it (the concept
//!   diff included, from the ADR's front matter or the gate's `concept`), then the reviewer
//!   by `semantic` (`auto`: only when `approvals.adr.enabled` and the checks pass; `true`:
//!   after the checks pass; `false`: never);
//! - `approval`: [`approval::approve`](crate::approval::approve) with `approval_type` and `files`, passed when the
//!   verdict is `required_result` (`needs_revision` also accepts `approved`, as in the seed);
//! - `approval_passed`: a result file that `helix-gate approve --out` wrote and signed
//!   with this user's key ([`approval::result_file`](crate::approval::result_file)), for exactly the current content of
//!   the files it names, says `approved` at the type's `required_confidence`, and judged
//!   the files the gate needs (its `files`, else the phase's outputs but the result file,
//!   else the phase's inputs); a result written by hand, signed by another key, for
//!   content changed since or for other files (an older ADR's free cache hit) fails;
//! - `files_exist`: the phase's output files (or the gate's `files`) exist.
//!
//! Seed 004 finalizes the draft inside the session, before the plan's gates run, so every
//! gate follows a draft `helix-gate finalize` moved to the ADR it became (only to an ADR
//! inside the project: the record is writable by anything in the repository): `approval`
//! gates review it, the plan check counts it as matched, and `approval_passed` accepts the
//! draft's signed result while the ADR is exactly what finalize made of it
//! (`Ctx::finalized_result`).
//!
//! A phase whose `depends_on` phases fail is blocked (`Dependencies`): their gates run
//! first, with the reviewer never started ([`Reviewer::CacheOnly`]).
//!
//! `python_syntax` and `tests_pass` are the orchestrator's: they are valid in a plan, and
//! `gate` reports that it cannot run them (outcome `error`).
//!
//! Paths of a gate are relative to its base directory: the current directory for a gate
//! given on the command line, the project directory of the plan for a phase (the folder of
//! `phases.yaml`, or its parent when that folder is `output/`, as for the consultant's
//! `output/phases.yaml`).

mod gates;
mod plan;

pub use gates::{GateError, PhaseFiles, Reviewer, accepts, run_gate, run_gate_with, run_given};
pub use plan::{plan_base, plan_project_findings, run_phase, run_phase_with};
