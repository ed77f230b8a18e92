//! A fake `OpenAI` Chat Completions API for end-to-end tests with the real
//! GitHub Copilot CLI.
//!
//! Copilot CLI 1.0.102 uses such an endpoint when its BYOK variables name one
//! (`COPILOT_PROVIDER_BASE_URL=http://127.0.0.1:PORT/v1`, `COPILOT_MODEL`;
//! `COPILOT_OFFLINE=true` keeps it off GitHub): it posts every turn to
//! `/v1/chat/completions` with `stream: true` and reads SSE `data:` chunks
//! (`chat.completion.chunk` with a `delta` holding text or `tool_calls`, then
//! one with `finish_reason`, then `[DONE]`). Tool results come back as
//! `role: "tool"` messages with the call's `tool_call_id`; a `Stop` hook's block
//! reason as a `role: "user"` message. With a Claude model name Copilot offers
//! its `create` / `edit` / `bash` tools (with a GPT name it offers
//! `apply_patch` instead).
//!
//! Served by [`super::fake_server`].

use serde_json::{Value, json};
use std::fmt::Write as _;

use super::fake_server::{FakeServer, http};

/// What the fake model answers with.
pub(crate) enum Reply {
    Text(String),
    /// A function call of `name` with the JSON `args`.
    Call(&'static str, Value),
}

/// A recorded `chat/completions` request.
#[derive(Clone, Debug)]
pub(crate) struct Request {
    pub index: usize,
    pub body: Value,
}

impl Request {
    /// The messages after the model's last turn: tool results and user text.
    pub(crate) fn since_last_turn(&self) -> Vec<Value> {
        let messages = self.body["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let last_assistant = messages
            .iter()
            .rposition(|m| m["role"] == "assistant")
            .map_or(0, |i| i + 1);
        messages[last_assistant..].to_vec()
    }

    /// The text of the messages of `role` after the model's last turn.
    pub(crate) fn new_texts(&self, role: &str) -> Vec<String> {
        self.since_last_turn()
            .iter()
            .filter(|m| m["role"] == role)
            .map(|m| match &m["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect()
    }
}

/// A running fake Chat Completions API; stops on drop.
pub(crate) struct FakeChat(FakeServer<Request>);

impl FakeChat {
    pub(crate) fn start(
        responder: impl Fn(&Request) -> Vec<Reply> + Send + Sync + 'static,
    ) -> FakeChat {
        FakeChat(FakeServer::start(
            |path| path.ends_with("/chat/completions"),
            |index, _, body| Request { index, body },
            move |request: &Request| sse(request.index, &responder(request)),
        ))
    }

    /// `http://127.0.0.1:PORT/v1`, for `COPILOT_PROVIDER_BASE_URL`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}/v1", self.0.addr())
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.0.requests()
    }

    pub(crate) fn errors(&self) -> Vec<String> {
        self.0.errors()
    }
}

/// The SSE stream of one answer.
fn sse(index: usize, replies: &[Reply]) -> Vec<u8> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": format!("chatcmpl-fake{index}"), "object": "chat.completion.chunk", "created": 1,
               "model": "fake", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let mut out = String::new();
    let text: String = replies
        .iter()
        .filter_map(|r| match r {
            Reply::Text(t) => Some(t.as_str()),
            Reply::Call(..) => None,
        })
        .collect();
    let calls: Vec<Value> = replies
        .iter()
        .filter_map(|r| match r {
            Reply::Call(name, args) => Some((name, args)),
            Reply::Text(_) => None,
        })
        .enumerate()
        .map(|(n, (name, args))| {
            json!({"index": n, "id": format!("call_{index}_{n}"), "type": "function",
                   "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    let mut delta = json!({"role": "assistant"});
    if !text.is_empty() {
        delta["content"] = Value::from(text);
    }
    let finish = if calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    };
    if !calls.is_empty() {
        delta["tool_calls"] = Value::Array(calls);
    }
    let _ = write!(out, "data: {}\n\n", chunk(delta, Value::Null));
    let mut last = chunk(json!({}), Value::from(finish));
    last["usage"] = json!({"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120});
    let _ = write!(out, "data: {last}\n\ndata: [DONE]\n\n");
    http(200, "text/event-stream", out.as_bytes())
}
