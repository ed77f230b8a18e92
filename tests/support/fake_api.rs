//! A fake Anthropic Messages API for end-to-end tests with the real `claude` CLI.
//!
//! Why it exists: helix-gate is a Claude Code hook, and the only trustworthy way
//! to test what Claude Code does with a hook's answer is to run the real client
//! and look at the next request it sends to the model. This module serves
//! `POST /v1/messages` on `127.0.0.1:<random port>`, answers with scripted
//! assistant turns as server-sent events (the shape documented in section 9 of
//! `claude-code-hooks.md`), and records every request for later assertions.
//!
//! Std only (plus `serde_json`): one background thread accepts connections, one
//! thread per connection serves it. Dropping [`FakeApi`] stops the server
//! without hanging (shutdown flag + a self-connect to unblock `accept`; idle
//! connections poll the flag through a short read timeout).
//!
//! Wire facts observed with claude 2.1.329 (beyond the reference): every
//! request is `POST /v1/messages?beta=true` with `Content-Length` (no chunked
//! bodies, no `Expect: 100-continue`) and `Connection: keep-alive`, plus
//! `X-Stainless-*` SDK headers. The server still decodes chunked bodies and
//! answers `100 Continue`, and always answers with `content-length` +
//! `connection: close` (one request per connection), which the client handles
//! fine.
//!
//! Writing a responder:
//!
//! ```ignore
//! let api = FakeApi::start(|_req: &RecordedRequest, conv: &Conversation| {
//!     let repo = conv.working_dir().expect("working dir in the request");
//!     match conv.request_index() {
//!         0 => Turn::text("Writing.").with_tool("Write", json!({
//!             "file_path": repo.join("hello.txt"), "content": "hi\n"})),
//!         _ => Turn::text("All done."),
//!     }
//! });
//! // or a plain per-session queue:
//! let api = FakeApi::start(Script::new([Turn::tool_use("Write", json!({...})), Turn::text("done")]));
//! ```
//!
//! Side requests Claude Code makes on its own (prompt-type hooks, `/compact`
//! summaries) are answered by [`default_side_turn`] before the responder is
//! asked, unless the server is started with [`FakeApi::start_raw`].

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::{Value, json};

/// Model id echoed back when the request does not name one.
pub(crate) const DEFAULT_MODEL: &str = "claude-opus-5-5";
/// Default usage reported per response (what the reference used).
pub(crate) const DEFAULT_INPUT_TOKENS: u64 = 100;
pub(crate) const DEFAULT_OUTPUT_TOKENS: u64 = 20;

/// How long an idle connection waits between checks of the shutdown flag.
const POLL_INTERVAL: Duration = Duration::from_millis(200);
/// Upper bound on request head size; larger heads get a 431.
const MAX_HEAD_BYTES: usize = 256 * 1024;

// ---------------------------------------------------------------------------
// Turns: what the fake model answers
// ---------------------------------------------------------------------------

/// One content block of a scripted assistant message.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Block {
    Text(String),
    /// `id: None` → the server assigns `toolu_fakeNNNN`.
    ToolUse {
        id: Option<String>,
        name: String,
        input: Value,
    },
}

/// One scripted assistant message (one API response).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Turn {
    pub blocks: Vec<Block>,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// `None` → `tool_use` if any block is a tool use, else `end_turn`.
    pub stop_reason: Option<String>,
    /// `Some((status, body))` → answer with this HTTP error instead of a message.
    pub http_error: Option<(u16, Value)>,
}

impl Turn {
    fn empty() -> Self {
        Turn {
            blocks: Vec::new(),
            input_tokens: DEFAULT_INPUT_TOKENS,
            output_tokens: DEFAULT_OUTPUT_TOKENS,
            stop_reason: None,
            http_error: None,
        }
    }

    /// An assistant message with a single text block.
    pub(crate) fn text(text: impl Into<String>) -> Self {
        Turn::empty().with_text(text)
    }

    /// An assistant message with a single `tool_use` block (no text).
    pub(crate) fn tool_use(name: impl Into<String>, input: Value) -> Self {
        Turn::empty().with_tool(name, input)
    }

    /// A `StructuredOutput` tool call (for runs with `--json-schema`).
    pub(crate) fn structured_output(value: Value) -> Self {
        Turn::tool_use("StructuredOutput", value)
    }

    /// An HTTP error answer, e.g. `Turn::api_error(400, "invalid_request_error", "boom")`.
    /// Sent with `x-should-retry: false` so the client does not retry it.
    pub(crate) fn api_error(status: u16, error_type: &str, message: &str) -> Self {
        let mut turn = Turn::empty();
        turn.http_error = Some((
            status,
            json!({"type": "error", "error": {"type": error_type, "message": message}}),
        ));
        turn
    }

    /// Appends a text block.
    pub(crate) fn with_text(mut self, text: impl Into<String>) -> Self {
        self.blocks.push(Block::Text(text.into()));
        self
    }

    /// Appends a `tool_use` block; the server assigns the id.
    pub(crate) fn with_tool(mut self, name: impl Into<String>, input: Value) -> Self {
        self.blocks.push(Block::ToolUse {
            id: None,
            name: name.into(),
            input,
        });
        self
    }

    /// Appends a `tool_use` block with a fixed id (e.g. `toolu_write1`).
    pub(crate) fn with_tool_id(
        mut self,
        id: impl Into<String>,
        name: impl Into<String>,
        input: Value,
    ) -> Self {
        self.blocks.push(Block::ToolUse {
            id: Some(id.into()),
            name: name.into(),
            input,
        });
        self
    }

    /// Usage reported for this response (drives `total_cost_usd`, budgets).
    pub(crate) fn with_usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.input_tokens = input_tokens;
        self.output_tokens = output_tokens;
        self
    }

    /// Overrides the computed stop reason (e.g. `"max_tokens"`).
    pub(crate) fn with_stop_reason(mut self, stop_reason: impl Into<String>) -> Self {
        self.stop_reason = Some(stop_reason.into());
        self
    }

    pub(crate) fn has_tool_use(&self) -> bool {
        self.blocks
            .iter()
            .any(|b| matches!(b, Block::ToolUse { .. }))
    }

    fn effective_stop_reason(&self) -> String {
        match &self.stop_reason {
            Some(reason) => reason.clone(),
            None if self.has_tool_use() => "tool_use".to_owned(),
            None => "end_turn".to_owned(),
        }
    }
}

// ---------------------------------------------------------------------------
// Recorded requests
// ---------------------------------------------------------------------------

/// One HTTP request as received by the fake server.
#[derive(Clone, Debug)]
pub(crate) struct RecordedRequest {
    /// Position in the server's log (0-based, all sessions).
    pub seq: usize,
    pub method: String,
    /// Request target including the query, e.g. `/v1/messages?beta=true`.
    pub path: String,
    /// Header names lowercased, values trimmed, in arrival order.
    pub headers: Vec<(String, String)>,
    /// Parsed JSON body; `Value::Null` when empty or not JSON.
    pub body: Value,
    /// The body as (lossy) UTF-8 text.
    pub raw_body: String,
    /// `X-Claude-Code-Session-Id`.
    pub session_id: Option<String>,
}

impl RecordedRequest {
    /// First header with this (case-insensitive) name.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    /// `x-claude-code-agent-id` (present on Agent-tool subagent requests).
    pub(crate) fn agent_id(&self) -> Option<&str> {
        self.header("x-claude-code-agent-id")
    }

    /// `POST /v1/messages` (any query string).
    pub(crate) fn is_messages_call(&self) -> bool {
        self.method == "POST" && path_without_query(&self.path) == "/v1/messages"
    }

    /// The `messages` array (empty when absent).
    pub(crate) fn messages(&self) -> &[Value] {
        self.body
            .get("messages")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// Names in the `tools` array.
    pub(crate) fn tool_names(&self) -> Vec<&str> {
        self.body
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default()
    }

    pub(crate) fn has_tool(&self, name: &str) -> bool {
        self.tool_names().contains(&name)
    }

    /// `--json-schema` run: the `StructuredOutput` tool is offered.
    pub(crate) fn is_structured_output(&self) -> bool {
        self.has_tool("StructuredOutput")
    }

    /// Prompt-type hook request: `"tools": []` and a JSON-schema output format.
    pub(crate) fn is_prompt_hook(&self) -> bool {
        let tools_empty = self
            .body
            .get("tools")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty);
        let schema_format = self
            .body
            .pointer("/output_config/format/type")
            .and_then(Value::as_str)
            == Some("json_schema");
        tools_empty && schema_format
    }

    /// `/compact` summary request.
    pub(crate) fn is_compaction(&self) -> bool {
        !self.tool_names().is_empty()
            && self
                .last_text_of_role("user")
                .is_some_and(|t| t.contains("Respond with TEXT ONLY") && t.contains("<summary>"))
    }

    /// Classification following the table in section 9 of the reference.
    pub(crate) fn kind(&self) -> RequestKind {
        if !self.is_messages_call() {
            RequestKind::NotMessages
        } else if self.is_prompt_hook() {
            RequestKind::PromptHook
        } else if self.is_compaction() {
            RequestKind::Compaction
        } else if self.agent_id().is_some() {
            RequestKind::Subagent
        } else if self.is_structured_output() {
            RequestKind::StructuredOutput
        } else {
            RequestKind::Main
        }
    }

    /// All text of the `messages` array: every string leaf, joined by `\n`
    /// (so searching is not confused by JSON escaping).
    pub(crate) fn messages_text(&self) -> String {
        let mut out = String::new();
        for message in self.messages() {
            collect_strings(message, &mut out);
        }
        out
    }

    /// Whether any string in `messages` contains `text`.
    pub(crate) fn contains(&self, text: &str) -> bool {
        self.messages_text().contains(text)
    }

    /// Text pieces of each message with this role, in order: one entry per
    /// message, holding the message's text blocks (string content counts as
    /// one block; `tool_result` contents are included).
    pub(crate) fn texts_of_role(&self, role: &str) -> Vec<Vec<String>> {
        self.messages()
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some(role))
            .map(message_texts)
            .collect()
    }

    /// Every text block of every message with this role, flattened.
    pub(crate) fn blocks_of_role(&self, role: &str) -> Vec<String> {
        self.texts_of_role(role).into_iter().flatten().collect()
    }

    /// The last message with this role, its text blocks joined by `\n`.
    pub(crate) fn last_text_of_role(&self, role: &str) -> Option<String> {
        self.texts_of_role(role)
            .pop()
            .map(|blocks| blocks.join("\n"))
    }

    /// The user's prompt: last text block of `messages[0]`.
    pub(crate) fn prompt(&self) -> Option<String> {
        self.messages().first().and_then(|m| message_texts(m).pop())
    }

    /// Working directory of the session: ` - Primary working directory: <repo>`
    /// in the messages (normal mode) or `CWD: <repo>` in `system` (`--bare`).
    pub(crate) fn working_dir(&self) -> Option<PathBuf> {
        const MARKER: &str = " - Primary working directory: ";
        let text = self.messages_text();
        if let Some(pos) = text.find(MARKER) {
            let rest = &text[pos + MARKER.len()..];
            let line = rest.lines().next().unwrap_or("").trim();
            if !line.is_empty() {
                return Some(PathBuf::from(line));
            }
        }
        let mut system = String::new();
        if let Some(s) = self.body.get("system") {
            collect_strings(s, &mut system);
        }
        for line in system.lines() {
            if let Some(dir) = line.trim_start().strip_prefix("CWD: ") {
                return Some(PathBuf::from(dir.trim()));
            }
        }
        None
    }

    /// All `tool_result` blocks in the conversation, in order.
    pub(crate) fn tool_results(&self) -> Vec<ToolResult> {
        let mut out = Vec::new();
        for message in self.messages() {
            let Some(blocks) = message.get("content").and_then(Value::as_array) else {
                continue;
            };
            for block in blocks {
                if block.get("type").and_then(Value::as_str) != Some("tool_result") {
                    continue;
                }
                let mut content = String::new();
                if let Some(c) = block.get("content") {
                    collect_strings(c, &mut content);
                }
                out.push(ToolResult {
                    tool_use_id: block
                        .get("tool_use_id")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_owned(),
                    content: content.trim_end_matches('\n').to_owned(),
                    is_error: block
                        .get("is_error")
                        .and_then(Value::as_bool)
                        .unwrap_or(false),
                });
            }
        }
        out
    }
}

/// A `tool_result` block seen in a request.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct ToolResult {
    pub tool_use_id: String,
    pub content: String,
    pub is_error: bool,
}

/// Request kinds from the reference's section 9 table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RequestKind {
    /// Main conversation of a `claude` process.
    Main,
    /// Agent-tool subagent (`x-claude-code-agent-id`).
    Subagent,
    /// `"tools": []` + `output_config.format.type == "json_schema"`.
    PromptHook,
    /// `/compact` summary request.
    Compaction,
    /// `StructuredOutput` tool offered (`--json-schema`).
    StructuredOutput,
    /// Anything but `POST /v1/messages` (answered 404).
    NotMessages,
}

fn path_without_query(path: &str) -> &str {
    path.split('?').next().unwrap_or(path)
}

/// Appends every string leaf of `v` to `out`, each followed by `\n`.
fn collect_strings(v: &Value, out: &mut String) {
    match v {
        Value::String(s) => {
            out.push_str(s);
            out.push('\n');
        }
        Value::Array(items) => items.iter().for_each(|i| collect_strings(i, out)),
        Value::Object(map) => map.values().for_each(|i| collect_strings(i, out)),
        _ => {}
    }
}

/// Text blocks of one message: string content, `text` blocks, and the text of
/// `tool_result` blocks.
fn message_texts(message: &Value) -> Vec<String> {
    match message.get("content") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|block| match block.get("type").and_then(Value::as_str) {
                Some("text") => block.get("text").and_then(Value::as_str).map(str::to_owned),
                Some("tool_result") => block.get("content").map(|c| {
                    let mut s = String::new();
                    collect_strings(c, &mut s);
                    s.trim_end_matches('\n').to_owned()
                }),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

// ---------------------------------------------------------------------------
// Conversation: what a responder gets besides the raw request
// ---------------------------------------------------------------------------

/// A request seen in the context of its session.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Conversation<'a> {
    request: &'a RecordedRequest,
    request_index: usize,
    session_index: usize,
}

impl<'a> Conversation<'a> {
    pub(crate) fn request(&self) -> &'a RecordedRequest {
        self.request
    }

    /// Index of this request among all requests with the same session id
    /// (0 = first request of the session; side requests count too).
    pub(crate) fn request_index(&self) -> usize {
        self.request_index
    }

    /// Order in which the server first saw this session id (0 = first
    /// `claude` process; a `claude -p` started by a hook gets 1, ...).
    pub(crate) fn session_index(&self) -> usize {
        self.session_index
    }

    pub(crate) fn session_id(&self) -> Option<&'a str> {
        self.request.session_id.as_deref()
    }

    pub(crate) fn agent_id(&self) -> Option<&'a str> {
        self.request.agent_id()
    }

    pub(crate) fn kind(&self) -> RequestKind {
        self.request.kind()
    }

    pub(crate) fn messages(&self) -> &'a [Value] {
        self.request.messages()
    }

    /// Text of the last `user` message (text blocks and tool results joined by `\n`).
    pub(crate) fn last_user_text(&self) -> Option<String> {
        self.request.last_text_of_role("user")
    }

    /// Text of the last `system`-role message in `messages`.
    pub(crate) fn last_system_text(&self) -> Option<String> {
        self.request.last_text_of_role("system")
    }

    /// Role of the last message (`user` or `system` normally).
    pub(crate) fn last_role(&self) -> Option<&'a str> {
        self.messages()
            .last()
            .and_then(|m| m.get("role"))
            .and_then(Value::as_str)
    }

    /// Whether `text` occurs in any string of the `messages` array.
    pub(crate) fn contains(&self, text: &str) -> bool {
        self.request.contains(text)
    }

    pub(crate) fn has_tool(&self, name: &str) -> bool {
        self.request.has_tool(name)
    }

    pub(crate) fn is_structured_output(&self) -> bool {
        self.request.is_structured_output()
    }

    pub(crate) fn prompt(&self) -> Option<String> {
        self.request.prompt()
    }

    pub(crate) fn working_dir(&self) -> Option<PathBuf> {
        self.request.working_dir()
    }

    pub(crate) fn tool_results(&self) -> Vec<ToolResult> {
        self.request.tool_results()
    }

    /// Number of assistant messages so far in this conversation.
    pub(crate) fn assistant_turns(&self) -> usize {
        self.messages()
            .iter()
            .filter(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            .count()
    }
}

// ---------------------------------------------------------------------------
// Responders
// ---------------------------------------------------------------------------

/// Decides the fake model's answer to one request.
pub(crate) trait Responder: Send + Sync + 'static {
    fn respond(&self, request: &RecordedRequest, conversation: &Conversation<'_>) -> Turn;
}

impl<F> Responder for F
where
    F: Fn(&RecordedRequest, &Conversation<'_>) -> Turn + Send + Sync + 'static,
{
    fn respond(&self, request: &RecordedRequest, conversation: &Conversation<'_>) -> Turn {
        self(request, conversation)
    }
}

/// Answers for side requests that Claude Code makes on its own, so they do not
/// consume scripted turns: prompt-type hooks get `{"ok": true, "reason": "ok"}`,
/// `/compact` gets a minimal analysis + summary. `None` for everything else.
pub(crate) fn default_side_turn(request: &RecordedRequest) -> Option<Turn> {
    match request.kind() {
        RequestKind::PromptHook => Some(Turn::text(r#"{"ok": true, "reason": "ok"}"#)),
        RequestKind::Compaction => Some(Turn::text(
            "<analysis>fake analysis</analysis>\n<summary>fake summary of the conversation</summary>",
        )),
        _ => None,
    }
}

/// `(session id, agent id)`: one scripted conversation.
type ConversationKey = (Option<String>, Option<String>);

/// A queue of turns replayed per conversation: the first request of every new
/// session id (and, separately, of every Agent-tool subagent within it) gets
/// `turns[0]`, the next `turns[1]`, ...; once exhausted, the default turn
/// (`Turn::text("done")`) is answered.
pub(crate) struct Script {
    turns: Vec<Turn>,
    default_turn: Turn,
    first_session_only: bool,
    positions: Mutex<HashMap<ConversationKey, usize>>,
}

impl Script {
    pub(crate) fn new(turns: impl IntoIterator<Item = Turn>) -> Self {
        Script {
            turns: turns.into_iter().collect(),
            default_turn: Turn::text("done"),
            first_session_only: false,
            positions: Mutex::new(HashMap::new()),
        }
    }

    /// Turn answered once the queue is exhausted.
    pub(crate) fn with_default(mut self, turn: Turn) -> Self {
        self.default_turn = turn;
        self
    }

    /// Only the main conversation of the first session plays the script; other
    /// sessions and subagents get the default turn right away (useful when a
    /// hook launches its own `claude -p`).
    pub(crate) fn first_session_only(mut self) -> Self {
        self.first_session_only = true;
        self
    }
}

impl Responder for Script {
    fn respond(&self, request: &RecordedRequest, conversation: &Conversation<'_>) -> Turn {
        if self.first_session_only
            && (conversation.session_index() != 0 || request.agent_id().is_some())
        {
            return self.default_turn.clone();
        }
        let key = (
            request.session_id.clone(),
            request.agent_id().map(str::to_owned),
        );
        let mut positions = lock(&self.positions);
        let position = positions.entry(key).or_insert(0);
        let turn = self
            .turns
            .get(*position)
            .cloned()
            .unwrap_or_else(|| self.default_turn.clone());
        *position += 1;
        turn
    }
}

// ---------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------

struct Shared {
    responder: Box<dyn Responder>,
    answer_side_requests: bool,
    shutdown: AtomicBool,
    log: Mutex<Log>,
    ids: AtomicUsize,
    errors: Mutex<Vec<String>>,
}

#[derive(Default)]
struct Log {
    requests: Vec<RecordedRequest>,
    /// session key → (`session_index`, requests so far)
    sessions: HashMap<Option<String>, (usize, usize)>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking responder must not make the log unusable.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Handle of a running fake API. Stops serving on drop.
pub(crate) struct FakeApi {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept_thread: Option<JoinHandle<()>>,
}

impl FakeApi {
    /// Starts the server; side requests are answered by [`default_side_turn`],
    /// everything else by `responder`.
    pub(crate) fn start(responder: impl Responder) -> FakeApi {
        FakeApi::spawn(Box::new(responder), true)
    }

    /// Like [`FakeApi::start`], but every messages request goes to `responder`
    /// (use [`default_side_turn`] inside it as needed).
    pub(crate) fn start_raw(responder: impl Responder) -> FakeApi {
        FakeApi::spawn(Box::new(responder), false)
    }

    fn spawn(responder: Box<dyn Responder>, answer_side_requests: bool) -> FakeApi {
        let listener = TcpListener::bind("127.0.0.1:0").expect("fake api: bind 127.0.0.1:0");
        let addr = listener.local_addr().expect("fake api: local_addr");
        let shared = Arc::new(Shared {
            responder,
            answer_side_requests,
            shutdown: AtomicBool::new(false),
            log: Mutex::new(Log::default()),
            ids: AtomicUsize::new(0),
            errors: Mutex::new(Vec::new()),
        });
        let accept_shared = Arc::clone(&shared);
        let accept_thread = thread::Builder::new()
            .name("fake-api-accept".into())
            .spawn(move || accept_loop(&listener, &accept_shared))
            .expect("fake api: spawn accept thread");
        FakeApi {
            addr,
            shared,
            accept_thread: Some(accept_thread),
        }
    }

    /// `http://127.0.0.1:PORT`, the value for `ANTHROPIC_BASE_URL`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub(crate) fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Snapshot of every request received so far, in arrival order.
    pub(crate) fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.shared.log).requests.clone()
    }

    /// Only `POST /v1/messages` requests of the main conversation(s), i.e.
    /// without prompt-hook / compaction side requests and subagents.
    pub(crate) fn main_requests(&self) -> Vec<RecordedRequest> {
        self.requests()
            .into_iter()
            .filter(|r| matches!(r.kind(), RequestKind::Main | RequestKind::StructuredOutput))
            .collect()
    }

    /// Distinct session ids in order of first appearance.
    pub(crate) fn session_ids(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for r in self.requests() {
            if let Some(id) = r.session_id
                && !out.contains(&id)
            {
                out.push(id);
            }
        }
        out
    }

    /// Problems the server hit (responder panics, malformed requests, I/O
    /// errors while answering). Tests can assert this is empty.
    pub(crate) fn errors(&self) -> Vec<String> {
        lock(&self.shared.errors).clone()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        // Unblock accept(); errors are irrelevant (the listener may be gone).
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(handle) = self.accept_thread.take() {
            let _ = handle.join();
        }
        // Connection threads are detached: they notice the flag within
        // POLL_INTERVAL when idle, or finish their single response.
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for stream in listener.incoming() {
        if shared.shutdown.load(Ordering::SeqCst) {
            break;
        }
        match stream {
            Ok(stream) => {
                let conn_shared = Arc::clone(shared);
                let spawned = thread::Builder::new()
                    .name("fake-api-conn".into())
                    .spawn(move || serve_connection(stream, &conn_shared));
                if let Err(e) = spawned {
                    lock(&shared.errors).push(format!("spawn connection thread: {e}"));
                }
            }
            Err(e) => {
                lock(&shared.errors).push(format!("accept: {e}"));
                thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

struct ParsedRequest {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

enum ReadOutcome {
    Request(ParsedRequest),
    /// Peer closed (or shutdown) before a new request started.
    Closed,
    /// Malformed request: answer this status + message, then close.
    Bad(u16, String),
}

fn serve_connection(mut stream: TcpStream, shared: &Shared) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(POLL_INTERVAL));
    let mut buf: Vec<u8> = Vec::new();
    // One request per connection: we always answer `connection: close`
    // (what the reference used), so no keep-alive bookkeeping is needed.
    let outcome = match read_request(&mut stream, &mut buf, shared) {
        Ok(outcome) => outcome,
        Err(e) => {
            lock(&shared.errors).push(format!("read request: {e}"));
            return;
        }
    };
    let response = match outcome {
        ReadOutcome::Closed => return,
        ReadOutcome::Bad(status, message) => {
            lock(&shared.errors).push(format!("bad request ({status}): {message}"));
            error_response(
                status,
                &json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}}),
            )
        }
        ReadOutcome::Request(parsed) => handle_request(parsed, shared),
    };
    if let Err(e) = stream.write_all(&response).and_then(|()| stream.flush()) {
        lock(&shared.errors).push(format!("write response: {e}"));
        return;
    }
    // Half-close, then drain until the client closes, so the kernel never
    // turns unread bytes into a RST that could truncate the response.
    let _ = stream.shutdown(Shutdown::Write);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut sink = [0u8; 4096];
    while let Ok(n) = stream.read(&mut sink) {
        if n == 0 {
            break;
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Reads more bytes into `buf`. `Ok(false)` on EOF or on shutdown while idle.
fn fill(stream: &mut TcpStream, buf: &mut Vec<u8>, shared: &Shared) -> io::Result<bool> {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        match stream.read(&mut chunk) {
            Ok(0) => return Ok(false),
            Ok(n) => {
                buf.extend_from_slice(&chunk[..n]);
                return Ok(true);
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) =>
            {
                if shared.shutdown.load(Ordering::SeqCst) {
                    return Ok(false);
                }
            }
            Err(e) => return Err(e),
        }
    }
}

fn read_request(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    shared: &Shared,
) -> io::Result<ReadOutcome> {
    // Head.
    let head_end = loop {
        if let Some(pos) = find(buf, b"\r\n\r\n") {
            break pos;
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Ok(ReadOutcome::Bad(431, "request head too large".into()));
        }
        if !fill(stream, buf, shared)? {
            return Ok(if buf.is_empty() {
                ReadOutcome::Closed
            } else {
                ReadOutcome::Bad(400, "connection closed inside the request head".into())
            });
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    buf.drain(..head_end + 4);
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or("");
    let mut parts = request_line.split_whitespace();
    let (Some(method), Some(target), Some(_version)) = (parts.next(), parts.next(), parts.next())
    else {
        return Ok(ReadOutcome::Bad(
            400,
            format!("bad request line: {request_line:?}"),
        ));
    };
    let mut headers = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Ok(ReadOutcome::Bad(400, format!("bad header line: {line:?}")));
        };
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_owned()));
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    if header("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }

    // Body.
    let chunked =
        header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked"));
    let body = if chunked {
        match read_chunked_body(stream, buf, shared)? {
            Ok(body) => body,
            Err(bad) => return Ok(bad),
        }
    } else {
        let length = match header("content-length") {
            None => 0,
            Some(v) => match v.parse::<usize>() {
                Ok(n) => n,
                Err(_) => return Ok(ReadOutcome::Bad(400, format!("bad content-length {v:?}"))),
            },
        };
        while buf.len() < length {
            if !fill(stream, buf, shared)? {
                return Ok(ReadOutcome::Bad(400, "eof in request body".into()));
            }
        }
        buf.drain(..length).collect()
    };
    Ok(ReadOutcome::Request(ParsedRequest {
        method: method.to_owned(),
        target: target.to_owned(),
        headers,
        body,
    }))
}

/// A chunked request body (trailers are read and dropped), or the answer to a malformed one.
fn read_chunked_body(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    shared: &Shared,
) -> io::Result<Result<Vec<u8>, ReadOutcome>> {
    let mut body = Vec::new();
    loop {
        let line_end = loop {
            if let Some(pos) = find(buf, b"\r\n") {
                break pos;
            }
            if !fill(stream, buf, shared)? {
                return Ok(Err(ReadOutcome::Bad(400, "eof in chunk size".into())));
            }
        };
        let size_line = String::from_utf8_lossy(&buf[..line_end]).into_owned();
        buf.drain(..line_end + 2);
        let size_hex = size_line.split(';').next().unwrap_or("").trim();
        let Ok(size) = usize::from_str_radix(size_hex, 16) else {
            return Ok(Err(ReadOutcome::Bad(
                400,
                format!("bad chunk size {size_line:?}"),
            )));
        };
        if size == 0 {
            // Trailers, terminated by an empty line.
            loop {
                let end = loop {
                    if let Some(pos) = find(buf, b"\r\n") {
                        break pos;
                    }
                    if !fill(stream, buf, shared)? {
                        return Ok(Err(ReadOutcome::Bad(400, "eof in trailers".into())));
                    }
                };
                buf.drain(..end + 2);
                if end == 0 {
                    break;
                }
            }
            break;
        }
        while buf.len() < size + 2 {
            if !fill(stream, buf, shared)? {
                return Ok(Err(ReadOutcome::Bad(400, "eof in chunk data".into())));
            }
        }
        body.extend_from_slice(&buf[..size]);
        buf.drain(..size + 2);
    }
    Ok(Ok(body))
}

/// Log `parsed`; returns it as recorded, with its index in its session and its session's index.
fn record(parsed: ParsedRequest, shared: &Shared) -> (RecordedRequest, usize, usize) {
    let raw_body = String::from_utf8_lossy(&parsed.body).into_owned();
    let body = serde_json::from_slice(&parsed.body).unwrap_or(Value::Null);
    let session_id = parsed
        .headers
        .iter()
        .find(|(n, _)| n == "x-claude-code-session-id")
        .map(|(_, v)| v.clone());

    let mut log = lock(&shared.log);
    let next_session = log.sessions.len();
    let entry = log
        .sessions
        .entry(session_id.clone())
        .or_insert((next_session, 0));
    let (session_index, request_index) = *entry;
    entry.1 += 1;
    let request = RecordedRequest {
        seq: log.requests.len(),
        method: parsed.method,
        path: parsed.target,
        headers: parsed.headers,
        body,
        raw_body,
        session_id,
    };
    log.requests.push(request.clone());
    (request, request_index, session_index)
}

fn handle_request(parsed: ParsedRequest, shared: &Shared) -> Vec<u8> {
    // Record first, so the request is logged even if the responder panics.
    let (request, request_index, session_index) = record(parsed, shared);

    if !request.is_messages_call() {
        return error_response(
            404,
            &json!({"type": "error", "error": {"type": "not_found_error",
                "message": format!("fake api: no route for {} {}", request.method, request.path)}}),
        );
    }

    let conversation = Conversation {
        request: &request,
        request_index,
        session_index,
    };
    let side = if shared.answer_side_requests {
        default_side_turn(&request)
    } else {
        None
    };
    let turn = match side {
        Some(turn) => turn,
        None => {
            match catch_unwind(AssertUnwindSafe(|| {
                shared.responder.respond(&request, &conversation)
            })) {
                Ok(turn) => turn,
                Err(panic) => {
                    let message = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                        .unwrap_or_else(|| "non-string panic".to_owned());
                    lock(&shared.errors).push(format!(
                        "responder panicked on request #{}: {message}",
                        request.seq
                    ));
                    // 400 + x-should-retry:false → the client gives up at once.
                    return error_response(
                        400,
                        &json!({"type": "error", "error": {"type": "invalid_request_error",
                            "message": format!("fake api responder panicked: {message}")}}),
                    );
                }
            }
        }
    };
    if let Some((status, error_body)) = &turn.http_error {
        return error_response(*status, error_body);
    }

    let model = request
        .body
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or(DEFAULT_MODEL)
        .to_owned();
    let message_id = format!(
        "msg_fake{:04}",
        shared.ids.fetch_add(1, Ordering::SeqCst) + 1
    );
    let blocks: Vec<Value> = turn
        .blocks
        .iter()
        .map(|block| match block {
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => json!({
                "type": "tool_use",
                "id": id.clone().unwrap_or_else(|| format!(
                    "toolu_fake{:04}", shared.ids.fetch_add(1, Ordering::SeqCst) + 1)),
                "name": name,
                "input": input,
            }),
        })
        .collect();
    let streaming = request.body.get("stream").and_then(Value::as_bool) == Some(true);
    if streaming {
        let body = sse_message(&message_id, &model, &blocks, &turn);
        http_response(
            200,
            "text/event-stream",
            &[("cache-control", "no-cache")],
            body.as_bytes(),
        )
    } else {
        let body = json!({
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": turn.effective_stop_reason(), "stop_sequence": null,
            "usage": usage_json(turn.input_tokens, turn.output_tokens),
        });
        http_response(200, "application/json", &[], body.to_string().as_bytes())
    }
}

fn usage_json(input_tokens: u64, output_tokens: u64) -> Value {
    json!({
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    })
}

fn sse_event(out: &mut String, data: &Value) {
    let name = data
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("message");
    out.push_str("event: ");
    out.push_str(name);
    out.push_str("\ndata: ");
    out.push_str(&data.to_string());
    out.push_str("\n\n");
}

/// The SSE stream of one assistant message (section 9 of the reference).
fn sse_message(message_id: &str, model: &str, blocks: &[Value], turn: &Turn) -> String {
    let mut out = String::new();
    sse_event(
        &mut out,
        &json!({"type": "message_start", "message": {
            "id": message_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": usage_json(turn.input_tokens, 1)}}),
    );
    sse_event(&mut out, &json!({"type": "ping"}));
    for (index, block) in blocks.iter().enumerate() {
        if block.get("type").and_then(Value::as_str) == Some("tool_use") {
            sse_event(
                &mut out,
                &json!({"type": "content_block_start", "index": index, "content_block": {
                    "type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}}),
            );
            // Split the input JSON in two like the real API streams it.
            let input = block["input"].to_string();
            let mut mid = input.len() / 2;
            while !input.is_char_boundary(mid) {
                mid -= 1;
            }
            for part in [&input[..mid], &input[mid..]] {
                sse_event(
                    &mut out,
                    &json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": part}}),
                );
            }
        } else {
            sse_event(
                &mut out,
                &json!({"type": "content_block_start", "index": index,
                    "content_block": {"type": "text", "text": ""}}),
            );
            sse_event(
                &mut out,
                &json!({"type": "content_block_delta", "index": index,
                    "delta": {"type": "text_delta", "text": block["text"]}}),
            );
        }
        sse_event(
            &mut out,
            &json!({"type": "content_block_stop", "index": index}),
        );
    }
    sse_event(
        &mut out,
        &json!({"type": "message_delta",
            "delta": {"stop_reason": turn.effective_stop_reason(), "stop_sequence": null},
            "usage": {"output_tokens": turn.output_tokens}}),
    );
    sse_event(&mut out, &json!({"type": "message_stop"}));
    out
}

fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        413 => "Payload Too Large",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        529 => "Overloaded",
        _ => "Status",
    }
}

fn http_response(
    status: u16,
    content_type: &str,
    extra_headers: &[(&str, &str)],
    body: &[u8],
) -> Vec<u8> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\nrequest-id: req_fake\r\n",
        reason_phrase(status),
        body.len()
    );
    for (name, value) in extra_headers {
        head.push_str(name);
        head.push_str(": ");
        head.push_str(value);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

fn error_response(status: u16, body: &Value) -> Vec<u8> {
    http_response(
        status,
        "application/json",
        &[("x-should-retry", "false")],
        body.to_string().as_bytes(),
    )
}
