//! A fake `OpenAI` Responses API for end-to-end tests with the real `codex` CLI.
//!
//! Why it exists: the only trustworthy way to test what Codex does with a
//! hook's answer is to run the real client and read the next request it sends
//! to the model. This module serves `POST /v1/responses` on
//! `127.0.0.1:<random port>`, answers each request with scripted output items
//! as server-sent events, and records every request.
//!
//! Wire facts observed with Codex 0.169.0 (`../shared/agent-hooks.md`): the
//! client posts `stream: true` JSON bodies with `Content-Length`; two SSE event
//! types suffice: `response.output_item.done` per item (a `message` with
//! `output_text`, a `custom_tool_call` named `apply_patch`, a `function_call`
//! named `exec_command`) and `response.completed` with `usage`. Tool results
//! come back in the next request's `input` as `custom_tool_call_output` /
//! `function_call_output` with the call's `call_id`; a Stop hook's block reason
//! as a user message `<hook_prompt hook_run_id="...">REASON</hook_prompt>`.
//!
//! Served by [`super::fake_server`].

use std::fmt::Write as _;

use serde_json::{Value, json};

use super::fake_server::{FakeServer, http};

/// One output item of a scripted model response.
pub(crate) struct Item(pub Value);

impl Item {
    /// An assistant message with one `output_text`.
    pub(crate) fn message(text: impl Into<String>) -> Item {
        Item(json!({
            "type": "message", "role": "assistant", "id": "msg_fake",
            "content": [{"type": "output_text", "text": text.into(), "annotations": []}],
        }))
    }

    /// An `apply_patch` custom tool call with the patch `input`.
    pub(crate) fn patch(call_id: &str, input: impl Into<String>) -> Item {
        Item(json!({
            "type": "custom_tool_call", "id": format!("ctc_{call_id}"), "call_id": call_id,
            "name": "apply_patch", "input": input.into(),
        }))
    }

    /// An `exec_command` function call running `cmd` (Codex reports it to hooks as Bash).
    pub(crate) fn exec(call_id: &str, cmd: &str) -> Item {
        Item(json!({
            "type": "function_call", "id": format!("fc_{call_id}"), "call_id": call_id,
            "name": "exec_command", "arguments": json!({"cmd": cmd}).to_string(),
        }))
    }
}

/// A recorded `POST /v1/responses` request.
#[derive(Clone, Debug)]
pub(crate) struct Request {
    /// Position among all requests (0-based).
    pub index: usize,
    pub path: String,
    pub body: Value,
}

impl Request {
    /// The conversation Codex sent (`input`).
    pub(crate) fn input(&self) -> &[Value] {
        self.body
            .get("input")
            .and_then(Value::as_array)
            .map_or(&[], Vec::as_slice)
    }

    /// The output Codex returned to the model for the tool call `call_id`.
    pub(crate) fn tool_output(&self, call_id: &str) -> Option<String> {
        self.input()
            .iter()
            .filter(|item| {
                matches!(
                    item.get("type").and_then(Value::as_str),
                    Some("custom_tool_call_output" | "function_call_output")
                ) && item.get("call_id").and_then(Value::as_str) == Some(call_id)
            })
            .find_map(|item| {
                let output = item.get("output")?;
                Some(match output {
                    Value::String(text) => text.clone(),
                    other => texts(other).join("\n"),
                })
            })
    }

    /// The texts of the messages with `role`, in order.
    pub(crate) fn texts_of(&self, role: &str) -> Vec<String> {
        self.input()
            .iter()
            .filter(|item| {
                item.get("type").and_then(Value::as_str) == Some("message")
                    && item.get("role").and_then(Value::as_str) == Some(role)
            })
            .map(|item| {
                item.get("content")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|part| part.get("text").and_then(Value::as_str))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect()
    }

    /// The reasons of Stop hook blocks: the bodies of
    /// `<hook_prompt hook_run_id="...">REASON</hook_prompt>` user messages
    /// (XML-escaped by Codex; unescaped here).
    pub(crate) fn hook_prompts(&self) -> Vec<String> {
        self.texts_of("user")
            .iter()
            .filter_map(|text| {
                let start = text.strip_prefix("<hook_prompt")?;
                let body = &start[start.find('>')? + 1..];
                let body = body.strip_suffix("</hook_prompt>").unwrap_or(body);
                Some(unescape_xml(body))
            })
            .collect()
    }

    /// Whether any string in the request body contains `text`.
    pub(crate) fn contains(&self, text: &str) -> bool {
        texts(&self.body).iter().any(|t| t.contains(text))
    }
}

/// Every string leaf of `value`, in order.
fn texts(value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => out.push(s.clone()),
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
    }
    out
}

fn unescape_xml(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// What the fake model answers to a request: its output items.
pub(crate) trait Responder: Send + Sync + 'static {
    fn respond(&self, request: &Request) -> Vec<Item>;
}

impl<F> Responder for F
where
    F: Fn(&Request) -> Vec<Item> + Send + Sync + 'static,
{
    fn respond(&self, request: &Request) -> Vec<Item> {
        self(request)
    }
}

/// A running fake Responses API; stops on drop.
pub(crate) struct FakeResponses(FakeServer<Request>);

impl FakeResponses {
    pub(crate) fn start(responder: impl Responder) -> FakeResponses {
        FakeResponses(FakeServer::start(
            |path| path.starts_with("/v1/responses"),
            |index, path, body| Request { index, path, body },
            move |request: &Request| sse(request.index, &responder.respond(request)),
        ))
    }

    /// `http://127.0.0.1:PORT/v1`, the provider's `base_url`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}/v1", self.0.addr())
    }

    /// Every request so far, in arrival order.
    pub(crate) fn requests(&self) -> Vec<Request> {
        self.0.requests()
    }

    /// Problems the server hit (a responder panic, a request it could not read).
    pub(crate) fn errors(&self) -> Vec<String> {
        self.0.errors()
    }
}

/// The SSE stream of one response: each item, then `response.completed`.
fn sse(index: usize, items: &[Item]) -> Vec<u8> {
    let mut out = String::new();
    for (n, Item(item)) in items.iter().enumerate() {
        let event = json!({"type": "response.output_item.done", "output_index": n, "item": item});
        let _ = write!(out, "event: response.output_item.done\ndata: {event}\n\n");
    }
    let completed = json!({"type": "response.completed", "response": {
        "id": format!("resp_fake{index}"),
        "usage": {"input_tokens": 100, "input_tokens_details": null, "output_tokens": 20,
                  "output_tokens_details": null, "total_tokens": 120},
    }});
    let _ = write!(out, "event: response.completed\ndata: {completed}\n\n");
    http(200, "text/event-stream", out.as_bytes())
}
