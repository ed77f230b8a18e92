//! JSON-RPC 2.0 as MCP's stdio transport uses it: one message per line, no batches
//! (removed by MCP 2025-06-18), requests with a string or number `id`, notifications
//! without one. Decoding is tolerant of extra members and strict about what it needs;
//! a message it cannot use becomes an error response, never a panic.

use std::io::BufRead;

use serde_json::{Map, Value, json};

/// Invalid JSON.
pub(super) const PARSE_ERROR: i64 = -32700;
/// Valid JSON that is not a usable request.
pub(super) const INVALID_REQUEST: i64 = -32600;
pub(super) const METHOD_NOT_FOUND: i64 = -32601;
pub(super) const INVALID_PARAMS: i64 = -32602;
/// helix-gate failed while answering (a bug: a panic was caught).
pub(super) const INTERNAL_ERROR: i64 = -32603;
/// A request that needs the session before `initialize` was answered. MCP defines no
/// code for it; this is LSP's `ServerNotInitialized`, in JSON-RPC's range for
/// implementation-defined server errors (-32000 to -32099).
pub(super) const SERVER_NOT_INITIALIZED: i64 = -32002;

/// The largest message read: an ADR's text travels JSON-escaped inside one line, and
/// `adr.max_file_size` is 5 MB by default. A longer line is answered with an error
/// and skipped without being kept in memory.
pub const MAX_MESSAGE: usize = 16 * 1024 * 1024;

/// How much of the start and the end of an over-long line is kept, to find its `id`.
const KEPT: usize = 4096;

/// One line of input.
#[derive(Debug)]
pub enum Line {
    /// A complete line (without its line break), at most [`MAX_MESSAGE`] bytes.
    Message(Vec<u8>),
    /// A line longer than [`MAX_MESSAGE`]: its first and last bytes.
    TooLong { head: Vec<u8>, tail: Vec<u8> },
}

/// Newline-delimited messages from a byte stream, each bounded in size.
pub struct LineReader<R> {
    input: R,
}

impl<R: BufRead> LineReader<R> {
    pub fn new(input: R) -> Self {
        LineReader { input }
    }

    /// The next line; None at the end of the input. A last line without a line break
    /// still counts.
    pub fn next_line(&mut self) -> std::io::Result<Option<Line>> {
        let mut line = Vec::new();
        let mut tail: Option<Vec<u8>> = None;
        let mut any = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(chunk) => chunk,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            any = true;
            let (part, done) = match memchr_newline(chunk) {
                Some(at) => (&chunk[..at], Some(at + 1)),
                None => (chunk, None),
            };
            match &mut tail {
                None if line.len() + part.len() <= MAX_MESSAGE => line.extend_from_slice(part),
                None => {
                    // Over the limit: keep the head, roll the tail from here on.
                    line.truncate(KEPT);
                    let mut rolling = Vec::with_capacity(2 * KEPT);
                    push_rolling(&mut rolling, part);
                    tail = Some(rolling);
                }
                Some(rolling) => push_rolling(rolling, part),
            }
            let used = done.unwrap_or(chunk.len());
            self.input.consume(used);
            if done.is_some() {
                return Ok(Some(finish(line, tail)));
            }
        }
        Ok(any.then(|| finish(line, tail)))
    }
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|b| *b == b'\n')
}

/// Append `part` to `rolling`, keeping only its last [`KEPT`] bytes.
fn push_rolling(rolling: &mut Vec<u8>, part: &[u8]) {
    rolling.extend_from_slice(part);
    if rolling.len() > KEPT {
        rolling.drain(..rolling.len() - KEPT);
    }
}

fn finish(line: Vec<u8>, tail: Option<Vec<u8>>) -> Line {
    match tail {
        None => Line::Message(line),
        Some(tail) => Line::TooLong { head: line, tail },
    }
}

/// A decoded message.
#[derive(Debug)]
pub(super) enum Message {
    /// A request: it gets exactly one answer.
    Request {
        id: Value,
        method: String,
        params: Option<Value>,
    },
    /// A notification (no `id`): never answered, whatever it says.
    Notification,
    /// A response to a request of ours (helix-gate sends none): ignored.
    Response,
    /// Unusable: answered with this error (and `id`, when one could be read).
    Invalid {
        id: Value,
        code: i64,
        message: String,
    },
}

/// Decode one line.
pub(super) fn decode(line: &[u8]) -> Option<Message> {
    let text = line.trim_ascii();
    if text.is_empty() {
        return None;
    }
    let value: Value = match serde_json::from_slice(text) {
        Ok(value) => value,
        Err(e) => {
            return Some(Message::Invalid {
                id: Value::Null,
                code: PARSE_ERROR,
                message: format!("parse error: {e}"),
            });
        }
    };
    Some(match value {
        Value::Object(map) => message(map),
        Value::Array(_) => invalid(
            Value::Null,
            "batches are not supported (MCP removed JSON-RPC batching in 2025-06-18); send one message per line",
        ),
        _ => invalid(Value::Null, "a message must be a JSON object"),
    })
}

fn invalid(id: Value, message: &str) -> Message {
    Message::Invalid {
        id,
        code: INVALID_REQUEST,
        message: format!("invalid request: {message}"),
    }
}

fn message(mut map: Map<String, Value>) -> Message {
    let method = map.remove("method");
    let id = map.remove("id");
    if method.is_none() && (map.contains_key("result") || map.contains_key("error")) {
        return Message::Response;
    }
    let Some(id) = id else {
        // A notification: nothing is answered, also when it is malformed.
        return Message::Notification;
    };
    if !(id.is_string() || id.is_number()) {
        return invalid(Value::Null, "`id` must be a string or a number");
    }
    if map.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return invalid(id, "`jsonrpc` must be \"2.0\"");
    }
    let Some(Value::String(method)) = method else {
        return invalid(id, "`method` must be a string");
    };
    Message::Request {
        id,
        method,
        params: map.remove("params"),
    }
}

/// The `id` of a line too long to parse, when it can be read from the line's start (a
/// top-level `"id"` before anything nested) or its end (`"id": <value>}` closing the
/// message); else null.
pub(super) fn salvage_id(head: &[u8], tail: &[u8]) -> Value {
    id_at_start(head)
        .or_else(|| id_at_end(tail))
        .unwrap_or(Value::Null)
}

/// `{"jsonrpc":"2.0","id":7,...`: the members of the top-level object up to the first
/// nested value, read as text.
fn id_at_start(head: &[u8]) -> Option<Value> {
    // The cut may split a character at the end, which is never reached before an `id`.
    let text = String::from_utf8_lossy(head);
    let mut rest = text.trim_start().strip_prefix('{')?;
    loop {
        rest = rest.trim_start();
        let (key, after) = json_string(rest)?;
        let after = after.trim_start().strip_prefix(':')?.trim_start();
        let (value, after) = scalar(after)?;
        if key == "id" {
            return (value.is_string() || value.is_number()).then_some(value);
        }
        rest = after.trim_start().strip_prefix(',')?;
    }
}

/// `...,"id":7}` at the very end of the line.
fn id_at_end(tail: &[u8]) -> Option<Value> {
    let text = String::from_utf8_lossy(tail);
    let body = text.trim_end().strip_suffix('}')?;
    let at = body.rfind("\"id\"")?;
    let value = body[at + 4..].trim_start().strip_prefix(':')?.trim();
    let parsed: Value = serde_json::from_str(value).ok()?;
    (parsed.is_string() || parsed.is_number()).then_some(parsed)
}

/// A JSON string at the start of `text`: its value and the rest.
fn json_string(text: &str) -> Option<(String, &str)> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<String>();
    let value = stream.next()?.ok()?;
    Some((value, &text[stream.byte_offset()..]))
}

/// A JSON string, number, boolean or null at the start of `text`.
fn scalar(text: &str) -> Option<(Value, &str)> {
    if text.starts_with(['{', '[']) {
        return None;
    }
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    let value = stream.next()?.ok()?;
    Some((value, &text[stream.byte_offset()..]))
}

/// A success response, one line of compact JSON.
pub(super) fn result(id: &Value, result: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// An error response, one line of compact JSON.
pub(super) fn error(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(input: &[u8]) -> Vec<Line> {
        let mut reader = LineReader::new(std::io::BufReader::with_capacity(7, input));
        let mut out = Vec::new();
        while let Some(line) = reader.next_line().unwrap() {
            out.push(line);
        }
        out
    }

    #[test]
    fn lines_are_split_on_newlines_and_the_last_needs_none() {
        let got = lines(b"{\"a\":1}\n\n{\"b\":2}\r\n{\"c\":3}");
        let texts: Vec<Vec<u8>> = got
            .into_iter()
            .map(|l| match l {
                Line::Message(m) => m,
                Line::TooLong { .. } => panic!("too long"),
            })
            .collect();
        assert_eq!(
            texts,
            [
                b"{\"a\":1}".to_vec(),
                Vec::new(),
                b"{\"b\":2}\r".to_vec(),
                b"{\"c\":3}".to_vec()
            ]
        );
        assert!(lines(b"").is_empty());
    }

    #[test]
    fn an_over_long_line_keeps_its_ends_and_the_next_line_is_read() {
        let mut input =
            br#"{"jsonrpc":"2.0","id":41,"method":"tools/call","params":{"x":""#.to_vec();
        input.extend(std::iter::repeat_n(b'a', MAX_MESSAGE + 10));
        input.extend_from_slice(b"\"}}\n{\"next\":1}\n");
        let got = lines(&input);
        assert_eq!(got.len(), 2);
        let Line::TooLong { head, tail } = &got[0] else {
            panic!("not too long")
        };
        assert!(head.len() <= KEPT && tail.len() <= KEPT);
        assert_eq!(salvage_id(head, tail), json!(41));
        assert!(matches!(&got[1], Line::Message(m) if m == b"{\"next\":1}"));
    }

    #[test]
    fn the_id_of_an_over_long_line_is_read_only_where_it_is_certain() {
        let end = br#"aaaa"}},"jsonrpc":"2.0","id":"req-9"}"#;
        assert_eq!(
            salvage_id(br#"{"method":"x","params":{"a":"#, end),
            json!("req-9")
        );
        // An `id` inside the arguments is not the request's.
        assert_eq!(
            salvage_id(br#"{"params":{"id":3,"#, br#"aaa","id":5}}}"#),
            Value::Null
        );
        assert_eq!(salvage_id(b"garbage", b"garbage"), Value::Null);
    }

    #[test]
    fn messages_are_told_apart() {
        let decode = |s: &str| decode(s.as_bytes());
        assert!(decode("   ").is_none());
        assert!(matches!(
            decode("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}"),
            Some(Message::Notification)
        ));
        assert!(matches!(
            decode("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"),
            Some(Message::Response)
        ));
        assert!(matches!(
            decode("{\"jsonrpc\":\"2.0\",\"id\":\"a\",\"method\":\"ping\"}"),
            Some(Message::Request { id, method, .. }) if id == json!("a") && method == "ping"
        ));
        for (bad, code) in [
            ("{", PARSE_ERROR),
            ("[]", INVALID_REQUEST),
            ("3", INVALID_REQUEST),
            (
                "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}",
                INVALID_REQUEST,
            ),
            (
                "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"ping\"}",
                INVALID_REQUEST,
            ),
            (
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":7}",
                INVALID_REQUEST,
            ),
        ] {
            assert!(
                matches!(decode(bad), Some(Message::Invalid { code: c, .. }) if c == code),
                "{bad}"
            );
        }
    }
}
