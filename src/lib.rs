//! helix-gate: deterministic gates for HELIX Architecture Decision Records.
//!
//! Pipeline: decode input (file, staged blob, hook event) -> parse the ADR once
//! ([`adr`]) -> run rules ([`rules`]) -> decide -> render for the caller
//! ([`render`], hook JSON, exit code).

pub mod adr;
pub mod adr_dir;
pub mod agent;
pub mod approval;
pub mod cli;
pub mod clock;
pub mod config;
pub mod decision_log;
pub mod diagnostic;
pub mod engine;
pub mod env;
pub mod fs;
pub mod gate;
pub mod git;
pub mod hook;
pub mod install;
pub mod mcp;
pub mod paths;
pub mod precommit;
pub mod process;
pub mod render;
pub mod report;
pub mod rule_docs;
pub mod rules;
pub mod text;
pub mod yaml;
