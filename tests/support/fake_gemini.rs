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
//! Served by [`super::fake_server`].

use serde_json::{Value, json};

use super::fake_server::{FakeServer, http};

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

/// A running fake Gemini API; stops on drop.
pub(crate) struct FakeGemini(FakeServer<Request>);

impl FakeGemini {
    /// Answer each model request with the parts `responder` returns.
    pub(crate) fn start(
        responder: impl Fn(&Request) -> Vec<Value> + Send + Sync + 'static,
    ) -> FakeGemini {
        FakeGemini(FakeServer::start(
            |path| path.contains(":streamGenerateContent"),
            |index, _, body| Request { index, body },
            move |request: &Request| {
                let chunk = json!({
                    "candidates": [{"content": {"role": "model", "parts": responder(request)}, "finishReason": "STOP", "index": 0}],
                    "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 20, "totalTokenCount": 120},
                });
                http(
                    200,
                    "text/event-stream",
                    format!("data: {chunk}\r\n\r\n").as_bytes(),
                )
            },
        ))
    }

    /// `http://127.0.0.1:PORT`, for `GOOGLE_GEMINI_BASE_URL`.
    pub(crate) fn base_url(&self) -> String {
        format!("http://{}", self.0.addr())
    }

    pub(crate) fn requests(&self) -> Vec<Request> {
        self.0.requests()
    }

    /// Requests the fake did not expect, and responder panics.
    pub(crate) fn errors(&self) -> Vec<String> {
        self.0.errors()
    }
}
