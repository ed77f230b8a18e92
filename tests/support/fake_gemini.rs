//! A fake Gemini API for end-to-end tests with the real `gemini` CLI.
//!
//! Why it exists: as for Codex ([`super::fake_responses`]), what Gemini CLI
//! does with a hook's answer shows only in the next request the real client
//! sends to the model. Gemini CLI 0.61.0 honours `GOOGLE_GEMINI_BASE_URL` and,
//! with `-m <model>`, posts each turn to
//! `/v1beta/models/<model>:streamGenerateContent?alt=sse`; one SSE `data:`
//! chunk with a candidate whose `content.parts` are the scripted parts (text,
//! or a `functionCall` such as `write_file` / `replace`) answers it
//! (`../shared/agent-hooks.md`). Tool results come back in the next request's
//! `contents` as `functionResponse` parts; an `AfterAgent` deny's reason as a
//! plain user text part.
//!
//! Std only (plus `serde_json`), one request per connection, the HTTP reading
//! shared with the Responses fake; dropping the server stops it.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use serde_json::{Value, json};

use super::fake_responses::{http, read_request};

/// A model part: text.
pub(crate) fn text(text: &str) -> Value {
    json!({"text": text})
}

/// A model part: a call of the tool `name` with `args`.
pub(crate) fn call(name: &str, args: &Value) -> Value {
    json!({"functionCall": {"name": name, "args": args}})
}

/// A recorded `streamGenerateContent` request.
#[derive(Clone, Debug)]
pub(crate) struct Request {
    pub index: usize,
    pub body: Value,
}

impl Request {
    /// Every string in the last entry of `contents` (what the client added
    /// since the model's previous turn: tool results, or a hook's retry reason).
    pub(crate) fn last_texts(&self) -> Vec<String> {
        let mut found = Vec::new();
        if let Some(last) = self.body["contents"].as_array().and_then(|c| c.last()) {
            strings(last, &mut found);
        }
        found
    }

    /// Whether the last entry of `contents` mentions `text`.
    pub(crate) fn last_contains(&self, text: &str) -> bool {
        self.last_texts().iter().any(|t| t.contains(text))
    }
}

fn strings(value: &Value, found: &mut Vec<String>) {
    match value {
        Value::String(s) => found.push(s.clone()),
        Value::Array(items) => items.iter().for_each(|v| strings(v, found)),
        Value::Object(map) => map.values().for_each(|v| strings(v, found)),
        _ => {}
    }
}

type Responder = Box<dyn Fn(&Request) -> Vec<Value> + Send + Sync>;

struct Shared {
    responder: Responder,
    shutdown: AtomicBool,
    requests: Mutex<Vec<Request>>,
    errors: Mutex<Vec<String>>,
}

/// A running fake Gemini API; stops on drop.
pub(crate) struct FakeGemini {
    addr: SocketAddr,
    shared: Arc<Shared>,
    accept: Option<JoinHandle<()>>,
}

impl FakeGemini {
    /// Answer each model request with the parts `responder` returns.
    pub(crate) fn start(
        responder: impl Fn(&Request) -> Vec<Value> + Send + Sync + 'static,
    ) -> FakeGemini {
        let listener = TcpListener::bind("127.0.0.1:0").expect("fake gemini: bind");
        let addr = listener.local_addr().expect("fake gemini: addr");
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
        FakeGemini {
            addr,
            shared,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:PORT`, for `GOOGLE_GEMINI_BASE_URL`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.shared
            .requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Requests the fake did not expect, and responder panics.
    pub(crate) fn errors(&self) -> Vec<String> {
        self.shared
            .errors
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl Drop for FakeGemini {
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
    let response = if path.contains(":streamGenerateContent") {
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
        if let Ok(parts) = catch_unwind(AssertUnwindSafe(|| (shared.responder)(&request))) {
            let chunk = json!({
                "candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
            });
            http(
                200,
                "text/event-stream",
                format!("data: {chunk}\r\n\r\n").as_bytes(),
            )
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
