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
//! Std only (plus `serde_json`): one accept thread, one thread per connection,
//! one request per connection (`connection: close`). Dropping the server stops
//! it without hanging.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::{Value, json};

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

struct Shared {
    responder: Box<dyn Responder>,
    shutdown: AtomicBool,
    requests: Mutex<Vec<Request>>,
    errors: Mutex<Vec<String>>,
}

/// A running fake Responses API; stops on drop.
pub(crate) struct FakeResponses {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl FakeResponses {
    pub(crate) fn start(responder: impl Responder) -> FakeResponses {
        let listener = TcpListener::bind("127.0.0.1:0").expect("fake responses: bind");
        let addr = listener.local_addr().expect("fake responses: addr");
        let shared = Arc::new(Shared {
            responder: Box::new(responder),
            shutdown: AtomicBool::new(false),
            requests: Mutex::new(Vec::new()),
            errors: Mutex::new(Vec::new()),
        });
        let accept_shared = Arc::clone(&shared);
        let accept = thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_shared.shutdown.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let conn = Arc::clone(&accept_shared);
                thread::spawn(move || serve(stream, &conn));
            }
        });
        FakeResponses {
            addr,
            shared,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:PORT/v1`, the provider's `base_url`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Every request so far, in arrival order.
    pub(crate) fn requests(&self) -> Vec<Request> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Problems the server hit (a responder panic, a request it could not read).
    pub(crate) fn errors(&self) -> Vec<String> {
        self.shared
            .errors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for FakeResponses {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
    }
}

fn error(shared: &Shared, message: String) {
    shared
        .errors
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .push(message);
}

fn serve(mut stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Some((path, body)) = read_request(&mut stream) else {
        return;
    };
    let response = if path.starts_with("/v1/responses") {
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let request = {
            let mut requests = shared
                .requests
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let request = Request {
                index: requests.len(),
                path,
                body,
            };
            requests.push(request.clone());
            request
        };
        if let Ok(items) = catch_unwind(AssertUnwindSafe(|| shared.responder.respond(&request))) {
            sse(request.index, &items)
        } else {
            error(
                shared,
                format!("responder panicked on request {}", request.index),
            );
            http(
                400,
                "application/json",
                b"{\"error\":{\"message\":\"responder panicked\"}}",
            )
        }
    } else {
        error(shared, format!("no route for {path}"));
        http(404, "application/json", b"{}")
    };
    let _ = stream.write_all(&response);
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Write);
    let mut sink = [0u8; 1024];
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    while matches!(stream.read(&mut sink), Ok(n) if n > 0) {}
}

/// The request target and body (`Content-Length` or chunked).
pub(crate) fn read_request(stream: &mut TcpStream) -> Option<(String, Vec<u8>)> {
    let mut buf = Vec::new();
    let mut chunk = vec![0u8; 64 * 1024];
    let head_end = loop {
        if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break pos;
        }
        let n = stream.read(&mut chunk).ok().filter(|n| *n > 0)?;
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut body = buf[head_end + 4..].to_vec();
    let mut lines = head.split("\r\n");
    let path = lines.next()?.split_whitespace().nth(1)?.to_owned();
    let header = |name: &str| {
        head.split("\r\n").skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim()
                .eq_ignore_ascii_case(name)
                .then(|| v.trim().to_owned())
        })
    };
    if header("expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue")) {
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").ok()?;
    }
    if header("transfer-encoding").is_some_and(|v| v.to_ascii_lowercase().contains("chunked")) {
        return Some((path, dechunk(stream, body)?));
    }
    let length: usize = header("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while body.len() < length {
        let n = stream.read(&mut chunk).ok().filter(|n| *n > 0)?;
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(length);
    Some((path, body))
}

/// A chunked body: read until the terminating zero-size chunk.
fn dechunk(stream: &mut TcpStream, mut raw: Vec<u8>) -> Option<Vec<u8>> {
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        if let Some(body) = try_dechunk(&raw) {
            return Some(body);
        }
        let n = stream.read(&mut chunk).ok().filter(|n| *n > 0)?;
        raw.extend_from_slice(&chunk[..n]);
    }
}

fn try_dechunk(raw: &[u8]) -> Option<Vec<u8>> {
    let mut body = Vec::new();
    let mut at = 0;
    loop {
        let line_end = at + raw[at..].windows(2).position(|w| w == b"\r\n")?;
        let size_text = String::from_utf8_lossy(&raw[at..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next()?.trim(), 16).ok()?;
        at = line_end + 2;
        if size == 0 {
            return Some(body);
        }
        if raw.len() < at + size + 2 {
            return None;
        }
        body.extend_from_slice(&raw[at..at + size]);
        at += size + 2;
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

pub(crate) fn http(status: u16, content_type: &str, body: &[u8]) -> Vec<u8> {
    let reason = if status == 200 { "OK" } else { "Error" };
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    )
    .into_bytes();
    out.extend_from_slice(body);
    out
}
