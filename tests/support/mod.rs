//! The one place for test support code of helix-gate's integration tests.
//!
//! The e2e tests run the real Claude Code CLI (`claude -p`, pinned by
//! `scripts/install-claude.sh`) against a fake Anthropic Messages API served on
//! 127.0.0.1 by the test process itself:
//!
//! * [`cli`]: the one isolated environment for every program a test starts
//!   ([`cli::isolated`]), running the real `helix-gate` binary, bounded runs,
//!   scratch directories, files.
//! * [`hook`]: `helix-gate hook` driven through stdin as Claude Code drives it.
//! * [`mcp`]: `helix-gate mcp` spoken to over pipes as an MCP client does.
//! * [`repo`]: real git repositories in temp dirs ([`repo::ScratchRepo`]).
//! * [`plugin`]: the Claude Code plugin's folder and its hook shim, run as Claude Code runs it.
//! * [`procs`]: the machine's processes from `/proc` (nothing may outlive a test).
//! * [`fake_api`]: the scripted fake Messages API server and its request log.
//! * [`claude`]: running `claude` in an isolated environment, and helpers to
//!   search the captured requests.
//! * [`fake_server`]: the one HTTP server under the other agents' fake model APIs.
//! * [`fake_responses`], [`codex`]: the same for the Codex CLI (`codex exec`,
//!   `codex app-server`, pinned by `scripts/install-codex.sh`) against a fake
//!   `OpenAI` Responses API.
//! * [`fake_gemini`], [`gemini`]: the same for Gemini CLI (`gemini -p`, pinned
//!   by `scripts/install-gemini.sh`) against a fake Gemini API.
//! * [`fake_chat`], [`copilot`]: the same for GitHub Copilot CLI (`copilot -p`,
//!   pinned by `scripts/install-copilot.sh`) against a fake Chat Completions API.
//! * [`schema`]: the keys a configuration file's JSON Schema describes.
//! * [`agents`]: what the Codex, Gemini and Copilot CLI tests share (numbered
//!   fixtures, a repository with the reviewer off, the decision log).
//!
//! Each integration test crate declares `mod support;` and uses a subset.
#![allow(dead_code)]
// Test code: failing loudly with a message is the desired behaviour.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub(crate) mod agents;
pub(crate) mod claude;
pub(crate) mod cli;
pub(crate) mod codex;
pub(crate) mod copilot;
pub(crate) mod fake_api;
pub(crate) mod fake_chat;
pub(crate) mod fake_gemini;
pub(crate) mod fake_responses;
pub(crate) mod fake_server;
pub(crate) mod gemini;
pub(crate) mod hook;
pub(crate) mod mcp;
pub(crate) mod plugin;
pub(crate) mod procs;
pub(crate) mod repo;
pub(crate) mod schema;

/// Make `path` executable (mode 0755 on Unix; Windows runs by extension).
pub(crate) fn make_executable(path: &std::path::Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod 755");
    }
    #[cfg(not(unix))]
    let _ = path;
}

/// Start `cmd` in a process group of its own (Unix), so its whole tree can be killed.
pub(crate) fn own_group(cmd: &mut std::process::Command) -> &mut std::process::Command {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        cmd.process_group(0);
    }
    cmd
}
