//! Decoding one Claude Code hook event from stdin.
//!
//! Tolerant by design: Claude Code adds fields between versions, so unknown keys
//! are ignored and every field is optional. Intolerant of damage: a BOM is
//! stripped, but trailing garbage, two objects, NUL bytes or non-JSON are errors.

use std::io::Read;
use std::sync::mpsc;
use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// Largest accepted payload (a Write of a 5 MB ADR carries the content twice).
pub const MAX_STDIN_BYTES: usize = 16 * 1024 * 1024;
/// How long to wait for stdin to close once no more bytes arrive.
pub const STDIN_TIMEOUT: Duration = Duration::from_secs(5);

/// The fields helix-gate reads from any hook event.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct HookEvent {
    pub hook_event_name: String,
    pub session_id: Option<String>,
    pub cwd: Option<String>,
    pub tool_name: Option<String>,
    pub tool_input: Option<Value>,
    pub stop_hook_active: bool,
    pub last_assistant_message: Option<String>,
    pub background_tasks: Option<Vec<Value>>,
    pub agent_type: Option<String>,
    pub agent_id: Option<String>,
    pub source: Option<String>,
}

impl HookEvent {
    /// `tool_input.file_path` of Write / Edit / `MultiEdit`.
    pub fn file_path(&self) -> Option<&str> {
        self.tool_input.as_ref()?.get("file_path")?.as_str()
    }
}

/// Why stdin could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("no hook event on stdin (empty input)")]
    Empty,
    #[error("hook event larger than {MAX_STDIN_BYTES} bytes")]
    TooLarge,
    #[error("stdin did not close within {} s and held no complete event", STDIN_TIMEOUT.as_secs())]
    Timeout,
    #[error("cannot read stdin: {0}")]
    Io(String),
    #[error("hook event is not valid JSON: {0}")]
    Json(String),
    #[error("hook event has no hook_event_name")]
    NoEventName,
}

/// Read stdin to its end, bounded in size and time: a stdin that never closes
/// cannot hang the hook (the reader thread is abandoned at exit).
pub fn read_stdin() -> Result<Vec<u8>, DecodeError> {
    let (tx, rx) = mpsc::channel::<Result<Vec<u8>, String>>();
    std::thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut chunk = vec![0u8; 64 * 1024];
        loop {
            match stdin.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    if tx.send(Ok(chunk[..n].to_vec())).is_err() {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    let _ = tx.send(Err(e.to_string()));
                    break;
                }
            }
        }
    });
    let mut buffer = Vec::new();
    loop {
        match rx.recv_timeout(STDIN_TIMEOUT) {
            Ok(Ok(chunk)) => {
                buffer.extend_from_slice(&chunk);
                if buffer.len() > MAX_STDIN_BYTES {
                    return Err(DecodeError::TooLarge);
                }
            }
            Ok(Err(e)) => return Err(DecodeError::Io(e)),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(buffer),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // Still open: accept what arrived if it is a complete event.
                return if decode(&buffer).is_ok() {
                    Ok(buffer)
                } else {
                    Err(DecodeError::Timeout)
                };
            }
        }
    }
}

/// Decode one event from raw bytes.
pub fn decode(bytes: &[u8]) -> Result<HookEvent, DecodeError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(DecodeError::Empty);
    }
    let event: HookEvent =
        serde_json::from_slice(bytes).map_err(|e| DecodeError::Json(e.to_string()))?;
    if event.hook_event_name.is_empty() {
        return Err(DecodeError::NoEventName);
    }
    Ok(event)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Payloads as recorded from Claude Code 2.1.329 (../shared/claude-code-hooks.md, section 3).
    const POST_WRITE: &str = r#"{"session_id":"2fff056a-7461-46c5-8d9d-f67517547ebb","transcript_path":"/h/.claude/projects/-r/2fff.jsonl","cwd":"/r","prompt_id":"455134f6","permission_mode":"acceptEdits","effort":{"level":"medium"},"hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"/r/hello.txt","content":"hello world\n"},"tool_response":{"type":"create","filePath":"/r/hello.txt","content":"hello world\n","structuredPatch":[],"originalFile":null,"userModified":false},"tool_use_id":"toolu_fake0001","duration_ms":7}"#;
    const POST_EDIT: &str = r#"{"hook_event_name":"PostToolUse","tool_name":"Edit","tool_input":{"file_path":"/r/hello.txt","old_string":"world","new_string":"there","replace_all":false},"tool_response":{"filePath":"/r/hello.txt","oldString":"world","newString":"there","originalFile":"hello world\n","structuredPatch":[],"userModified":false,"replaceAll":false},"tool_use_id":"toolu_fake0002","duration_ms":9,"session_id":"s","transcript_path":"t","cwd":"/r","prompt_id":"p","permission_mode":"acceptEdits","effort":{"level":"medium"}}"#;
    const STOP: &str = r#"{"session_id":"2fff056a","transcript_path":"t","cwd":"/r","prompt_id":"p","permission_mode":"acceptEdits","effort":{"level":"medium"},"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"All done.","background_tasks":[],"session_crons":[]}"#;
    const SUBAGENT_STOP_COMPACT: &str = r#"{"session_id":"s","transcript_path":"t","cwd":"/r","prompt_id":"p","permission_mode":"acceptEdits","agent_id":"a1","agent_type":"","effort":{"level":"medium"},"hook_event_name":"SubagentStop","stop_hook_active":false,"agent_transcript_path":"x","last_assistant_message":"summary","background_tasks":[],"session_crons":[]}"#;
    const SESSION_START: &str = r#"{"session_id":"2fff056a","transcript_path":"t","cwd":"/r","hook_event_name":"SessionStart","source":"startup"}"#;
    const PROMPT: &str = r#"{"session_id":"s","transcript_path":"t","cwd":"/r","prompt_id":"p","permission_mode":"acceptEdits","hook_event_name":"UserPromptSubmit","prompt":"Create hello.txt"}"#;
    const BASH_FAILURE: &str = r#"{"session_id":"cc40","transcript_path":"t","cwd":"/r","prompt_id":"p","permission_mode":"acceptEdits","effort":{"level":"medium"},"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"exit 3","description":"Fail"},"tool_use_id":"toolu_fake0001","error":"Exit code 3","is_interrupt":false,"duration_ms":111}"#;

    #[test]
    fn observed_payloads_decode() {
        let w = decode(POST_WRITE.as_bytes()).unwrap();
        assert_eq!(
            (w.hook_event_name.as_str(), w.tool_name.as_deref()),
            ("PostToolUse", Some("Write"))
        );
        assert_eq!(w.file_path(), Some("/r/hello.txt"));
        assert_eq!(
            decode(POST_EDIT.as_bytes()).unwrap().file_path(),
            Some("/r/hello.txt")
        );
        let s = decode(STOP.as_bytes()).unwrap();
        assert_eq!(s.last_assistant_message.as_deref(), Some("All done."));
        assert_eq!(s.background_tasks.map(|b| b.len()), Some(0));
        let c = decode(SUBAGENT_STOP_COMPACT.as_bytes()).unwrap();
        assert_eq!(c.agent_type.as_deref(), Some(""));
        assert_eq!(
            decode(SESSION_START.as_bytes()).unwrap().source.as_deref(),
            Some("startup")
        );
        assert_eq!(
            decode(PROMPT.as_bytes()).unwrap().hook_event_name,
            "UserPromptSubmit"
        );
        assert_eq!(decode(BASH_FAILURE.as_bytes()).unwrap().file_path(), None);
    }

    #[test]
    fn damaged_input_is_an_error() {
        assert_eq!(decode(b"").unwrap_err(), DecodeError::Empty);
        assert_eq!(decode(b" \n").unwrap_err(), DecodeError::Empty);
        assert!(matches!(
            decode(b"not json").unwrap_err(),
            DecodeError::Json(_)
        ));
        let two = format!("{STOP}{STOP}");
        assert!(matches!(
            decode(two.as_bytes()).unwrap_err(),
            DecodeError::Json(_)
        ));
        let garbage = format!("{STOP}\ngarbage");
        assert!(matches!(
            decode(garbage.as_bytes()).unwrap_err(),
            DecodeError::Json(_)
        ));
        assert!(matches!(
            decode(b"{\"hook_event_name\":\"Stop\0\"}").unwrap_err(),
            DecodeError::Json(_)
        ));
        assert_eq!(decode(b"{}").unwrap_err(), DecodeError::NoEventName);
        let bom = format!("\u{feff}{STOP}\n");
        assert_eq!(decode(bom.as_bytes()).unwrap().hook_event_name, "Stop");
    }
}
