//! Integration tests: one test binary that runs the real `helix-gate` executable.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    reason = "tests fail loudly"
)]
// On Windows the tests that need Unix (modes, FIFOs, symbolic links, sh) are left
// out, and some helpers and imports serve only those.
#![cfg_attr(windows, allow(dead_code, unused_imports))]

mod adr_dir;
mod approval;
mod book;
mod budget;
mod check;
mod ci_recipes;
mod codex;
mod completions;
mod concept;
mod consultant;
mod copilot;
mod corpus;
mod decision_review;
mod decisions;
mod economy;
mod enforce_session;
mod formats;
mod gate;
mod gate_formats;
mod gemini;
mod governs;
mod hook;
// Unix only: file modes, FIFOs, symbolic links and sh scripts throughout.
#[cfg(unix)]
mod hostile_approval;
// Unix only: file modes, FIFOs, symbolic links and sh scripts throughout.
#[cfg(unix)]
mod hostile_fs;
mod hostile_hook;
mod hostile_input;
mod hostile_integrity;
mod hostile_journal;
// Unix only: file modes, FIFOs, symbolic links and sh scripts throughout.
#[cfg(unix)]
mod hostile_precommit;
mod hostile_terminal;
mod ignore;
mod init;
mod language;
mod lifecycle;
mod list;
mod marketplace;
mod mcp;
mod new;
mod new_presets;
mod orchestrator;
mod packages;
mod phases;
// Builds for x86_64 musl and runs the result: only where that binary runs.
#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod platforms;
mod precommit;
mod preset_edges;
mod presets;
mod probe;
mod readme;
mod reference;
mod report;
mod review_config;
mod schemas;
mod session_config;
mod sessions;
mod snapshots;
mod status_file;
mod structure;
#[path = "../support/mod.rs"]
mod support;
// Unix only: file modes, FIFOs, symbolic links and sh scripts throughout.
#[cfg(unix)]
mod trust;
mod validate;
mod walkaround;
