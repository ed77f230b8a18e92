//! `helix-gate mcp`: the checks as an MCP server on stdio, for any agent that speaks the
//! Model Context Protocol (Claude Code, Codex, Gemini CLI).
//!
//! A small JSON-RPC loop rather than the official SDK (`rmcp`): the binary is also the
//! hook, whose no-op is mostly process start-up, and rmcp brings tokio, futures,
//! tracing, chrono and proc macros (86 crates against 27 for a `serde_json` loop, and
//! +1.8 MB in a release build of a one-tool server) for a protocol that is five methods
//! over newline-delimited JSON. The numbers are in docs/src/mcp.md.
//!
//! The server is [`Server::handle`]: one line in, at most one line out, no I/O of its
//! own on stdin or stdout (`cli` reads the lines with [`LineReader`] and writes the
//! answers). It is read-only except for `new_adr_template` with `write: true`, which
//! writes exactly what `helix-gate new` would; every path argument must resolve inside
//! the repository ([`scope`]); the tools reuse the engine, the renderers and the gate
//! runner, so a finding reads the same as from `validate`.

mod rpc;
mod scope;
mod tools;

use std::path::Path;

use serde_json::{Value, json};

pub use rpc::{Line, LineReader, MAX_MESSAGE};

/// The protocol versions the server speaks, newest first. A client asking for another
/// one is answered with the newest (MCP's version negotiation: it may then disconnect).
pub const PROTOCOL_VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// The first version with `structuredContent` in tool results.
const STRUCTURED_SINCE: &str = "2025-06-18";

/// One MCP session over one stdio connection.
pub struct Server {
    scope: scope::Scope,
    /// The version `initialize` agreed on (the newest before it).
    version: &'static str,
    /// Whether `initialize` was answered: until then only `initialize` and `ping` are
    /// served (the MCP lifecycle).
    initialized: bool,
}

impl Server {
    /// A server for the repository at `root`; relative paths in tool arguments are
    /// taken from `cwd` (the agent's project folder) when it lies inside `root`, else
    /// from `root`.
    pub fn new(root: &Path, cwd: &Path) -> Server {
        Server {
            scope: scope::Scope::new(root, cwd),
            version: PROTOCOL_VERSIONS[0],
            initialized: false,
        }
    }

    /// The answer to one line of input, if it gets one (a request does, a notification
    /// never). Never panics: a panic while answering is an internal error response.
    pub fn handle(&mut self, line: &Line) -> Option<String> {
        let message = match line {
            Line::Message(bytes) => rpc::decode(bytes)?,
            Line::TooLong { head, tail } => {
                return Some(rpc::error(
                    &rpc::salvage_id(head, tail),
                    rpc::INVALID_REQUEST,
                    &format!(
                        "invalid request: the message is longer than {} MiB; not read (give a path instead of the content)",
                        MAX_MESSAGE / (1024 * 1024)
                    ),
                ));
            }
        };
        match message {
            rpc::Message::Notification | rpc::Message::Response => None,
            rpc::Message::Invalid { id, code, message } => Some(rpc::error(&id, code, &message)),
            rpc::Message::Request { id, method, params } => {
                let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.request(&method, params)
                }));
                Some(match answer {
                    Ok(Ok(result)) => rpc::result(&id, &result),
                    Ok(Err((code, message))) => rpc::error(&id, code, &message),
                    Err(_) => rpc::error(
                        &id,
                        rpc::INTERNAL_ERROR,
                        "internal error: helix-gate failed while answering (a bug; see the server's stderr)",
                    ),
                })
            }
        }
    }

    /// MCP's lifecycle: "the client SHOULD NOT send requests other than pings before the
    /// server has responded to the initialize request". The server holds the client to
    /// it: `tools/list` and `tools/call` (`new_adr_template` may write a file) before
    /// `initialize` are refused with [`rpc::SERVER_NOT_INITIALIZED`]. `initialize` is
    /// enough; `notifications/initialized` is not awaited (the server sends no requests
    /// of its own, which is all the notification gates). A method the server does not
    /// have stays "method not found" at any time: Claude Code probes `server/discover`
    /// before `initialize` and falls back on `-32601`.
    fn request(&mut self, method: &str, params: Option<Value>) -> Result<Value, (i64, String)> {
        if !self.initialized && matches!(method, "tools/list" | "tools/call") {
            return Err((
                rpc::SERVER_NOT_INITIALIZED,
                format!(
                    "server not initialized: {method} before `initialize`; send `initialize` (then `notifications/initialized`) first"
                ),
            ));
        }
        match method {
            "initialize" => {
                let result = self.initialize(params.as_ref());
                self.initialized = true;
                Ok(result)
            }
            "ping" => Ok(json!({})),
            "tools/list" => Ok(json!({"tools": tools::list()})),
            "tools/call" => {
                let call = tools::Call::decode(params)
                    .map_err(|e| (rpc::INVALID_PARAMS, e.to_string()))?;
                let outcome = tools::call(&self.scope, &call)
                    .map_err(|e| (rpc::INVALID_PARAMS, e.to_string()))?;
                Ok(outcome.to_result(self.version >= STRUCTURED_SINCE))
            }
            other => Err((
                rpc::METHOD_NOT_FOUND,
                format!(
                    "method not found: {other} (this server has initialize, ping, tools/list and tools/call)"
                ),
            )),
        }
    }

    fn initialize(&mut self, params: Option<&Value>) -> Value {
        let asked = params
            .and_then(|p| p.get("protocolVersion"))
            .and_then(Value::as_str);
        self.version = PROTOCOL_VERSIONS
            .iter()
            .find(|v| Some(**v) == asked)
            .copied()
            .unwrap_or(PROTOCOL_VERSIONS[0]);
        json!({
            "protocolVersion": self.version,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": {
                "name": "helix-gate",
                "title": "helix-gate: deterministic ADR checks",
                "version": env!("CARGO_PKG_VERSION"),
            },
            "instructions": format!(
                "Deterministic checks of the Architecture Decision Records (ADRs) and HELIX phase plans of the repository at {}. \
                 Call validate_adr on an ADR (by path, or its text as content before you save it) and fix every error finding \
                 (each names its rule and usually a hint); explain_rule tells what a rule wants. new_adr_template gives the \
                 template of a new ADR and the next free number; run_gate runs a phase's quality gates; governing_adrs \
                 names the ADRs that govern a file (before you change it: keep to the binding ones). Paths are relative \
                 to {} and must stay inside the repository.",
                self.scope.root().display(),
                self.scope.base().display()
            ),
        })
    }
}
