//! Integration tests: one test binary that runs the real `helix-gate` executable.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]

mod adr_dir;
mod approval;
mod corpus;
mod hook;
mod hostile_approval;
mod hostile_fs;
mod hostile_hook;
mod hostile_input;
mod hostile_precommit;
mod hostile_terminal;
mod precommit;
mod sessions;
mod snapshots;
#[path = "../support/mod.rs"]
mod support;
mod validate;
