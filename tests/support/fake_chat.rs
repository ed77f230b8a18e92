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
//! Std only (plus `serde_json`), one request per connection, the HTTP reading
//! shared with the Responses fake; dropping the server stops it.

use std::fmt::Write as _;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::{Value, json};

use super::fake_responses::{http, read_request};

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

type Responder = Box<dyn Fn(&Request) -> Vec<Reply> + Send + Sync>;

struct Shared {
    responder: Responder,
    shutdown: AtomicBool,
    requests: Mutex<Vec<Request>>,
    errors: Mutex<Vec<String>>,
}

/// A running fake Chat Completions API; stops on drop.
pub(crate) struct FakeChat {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl FakeChat {
    pub(crate) fn start(
        responder: impl Fn(&Request) -> Vec<Reply> + Send + Sync + 'static,
    ) -> FakeChat {
        let listener = TcpListener::bind("127.0.0.1:0").expect("fake chat: bind");
        let addr = listener.local_addr().expect("fake chat: addr");
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
        FakeChat {
            addr,
            shared,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:PORT/v1`, for `COPILOT_PROVIDER_BASE_URL`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn errors(&self) -> Vec<String> {
        self.shared
            .errors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for FakeChat {
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

fn serve(mut stream: TcpStream, shared: &Shared) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let Some((path, body)) = read_request(&mut stream) else {
        return;
    };
    let response = if path.ends_with("/chat/completions") {
        let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
        let request = {
            let mut requests = shared
                .requests
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let request = Request {
                index: requests.len(),
                body,
            };
            requests.push(request.clone());
            request
        };
        if let Ok(replies) = catch_unwind(AssertUnwindSafe(|| (shared.responder)(&request))) {
            sse(request.index, &replies)
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
