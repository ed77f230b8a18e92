//! The one typed hook event every agent's decoder makes ([`HookEvent`],
//! [`EventKind`]), and the decoding of Claude Code's envelope (which Codex and
//! Copilot CLI share: their decoders start here).
//!
//! Tolerant by design: Claude Code adds fields between versions, so unknown keys
//! are ignored, every field is optional, and each field is decoded on its own. A
//! field of the wrong type (`background_tasks: {}`, `stop_hook_active: null`,
//! `tool_input: "x"`) does not drop the event: it is recorded in
//! [`HookEvent::broken`] and treated as absent, and the gate that needs it applies
//! the failure policy (see `hook::policy::needed`). Intolerant of damage: a BOM is
//! stripped, but trailing garbage, two objects, NUL bytes, non-JSON or a JSON
//! value that is not an object are errors.

use std::time::Duration;

use serde_json::{Map, Value};

use super::name::Agent;
use super::patch::Patch;

/// Largest accepted payload (a Write of a 5 MB ADR carries the content twice).
pub const MAX_STDIN_BYTES: usize = 16 * 1024 * 1024;
/// How long reading stdin may take in all, from the hook's start: a stdin that
/// trickles a byte now and then cannot stretch it.
pub const STDIN_TIMEOUT: Duration = Duration::from_secs(5);

/// The events helix-gate answers, by `hook_event_name`. Every decision
/// dispatches on this, never on the name's text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum EventKind {
    PreToolUse,
    PostToolUse,
    /// A tool that ran and failed (a Bash command with a non-zero exit): it
    /// may have written files all the same.
    PostToolUseFailure,
    Stop,
    /// Never blocked (`agent_type` "" is `/compact`); the main Stop checks the session.
    SubagentStop,
    SessionStart,
    UserPromptSubmit,
    /// Any other event: nothing to decide.
    #[default]
    Other,
}

impl EventKind {
    /// Every kind helix-gate answers, in the order hooks are registered.
    pub const ANSWERED: [EventKind; 7] = [
        EventKind::PreToolUse,
        EventKind::PostToolUse,
        EventKind::PostToolUseFailure,
        EventKind::Stop,
        EventKind::SubagentStop,
        EventKind::SessionStart,
        EventKind::UserPromptSubmit,
    ];

    /// The kind's name in Claude Code's envelope (`None` for `Other`), which
    /// Codex and Copilot CLI share.
    pub fn name(self) -> Option<&'static str> {
        Some(match self {
            EventKind::PreToolUse => "PreToolUse",
            EventKind::PostToolUse => "PostToolUse",
            EventKind::PostToolUseFailure => "PostToolUseFailure",
            EventKind::Stop => "Stop",
            EventKind::SubagentStop => "SubagentStop",
            EventKind::SessionStart => "SessionStart",
            EventKind::UserPromptSubmit => "UserPromptSubmit",
            EventKind::Other => return None,
        })
    }

    /// The kind named `name` (`Other` for every event helix-gate does not answer).
    pub fn parse(name: &str) -> EventKind {
        EventKind::ANSWERED
            .into_iter()
            .find(|kind| kind.name() == Some(name))
            .unwrap_or(EventKind::Other)
    }

    /// Whether this event follows a tool that ran (`PostToolUse`, `PostToolUseFailure`).
    pub fn after_tool(self) -> bool {
        matches!(self, EventKind::PostToolUse | EventKind::PostToolUseFailure)
    }
}

/// The fields helix-gate reads from any hook event, whichever agent sent it
/// ([`Agent::decode`](super::Agent::decode)).
#[derive(Debug, Clone, Default)]
pub struct HookEvent {
    /// The agent whose protocol the event came in (and the answer goes out) in.
    pub agent: Agent,
    pub kind: EventKind,
    /// As sent (for the log and the context answer, which must echo it).
    pub hook_event_name: String,
    pub session_id: Option<String>,
    /// Claude Code's id of the user prompt the event belongs to: the same for
    /// every event of one turn (its tool calls and its Stops), new with the next
    /// prompt. helix-gate tells an answer file written this turn by it.
    pub prompt_id: Option<String>,
    pub cwd: Option<String>,
    pub tool_name: Option<String>,
    /// `tool_input.file_path` of Write / Edit / `MultiEdit` (a `tool_input` that
    /// is not an object counts as broken).
    pub file_path: Option<String>,
    /// What a Write, Edit or `MultiEdit` is about to write (`PreToolUse` only).
    pub write_text: Option<WriteText>,
    /// `tool_input.command` of Bash (and of Codex's `apply_patch`: the patch text).
    pub command: Option<String>,
    /// The paths a Codex `apply_patch` call touches, read from its patch by the
    /// Codex decoder (`Err`: the patch could not be read, and why); `None` for
    /// every other tool and agent.
    pub patch: Option<Result<Patch, String>>,
    pub stop_hook_active: Option<bool>,
    pub last_assistant_message: Option<String>,
    /// Where the agent records the final answer when its Stop does not carry
    /// it (Copilot CLI's transcript), and the Stop's timestamp there; read only
    /// when the STEP check needs the answer ([`super::final_answer`]).
    pub transcript: Option<Transcript>,
    pub background_tasks: Option<Vec<Value>>,
    pub agent_type: Option<String>,
    pub source: Option<String>,
    /// Fields present with a type helix-gate cannot use; each is treated as absent.
    pub broken: Vec<BrokenField>,
}

/// What a write tool is about to write: Write's `content`, or Edit's and
/// `MultiEdit`'s replacements, applied to the file as it is by [`WriteText::apply`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteText {
    Content(String),
    /// (`old_string`, `new_string`, `replace_all`), in order.
    Edits(Vec<(String, String, bool)>),
}

impl WriteText {
    /// Claude Code's and Gemini's fields (`content`; `old_string`,
    /// `new_string`), or Copilot CLI's (`file_text`; `old_str`, `new_str`).
    fn of(input: &Map<String, Value>) -> Option<WriteText> {
        let text = |a: &str, b: &str| input.get(a).or_else(|| input.get(b));
        if let Some(content) = text("content", "file_text").and_then(Value::as_str) {
            return Some(WriteText::Content(content.to_owned()));
        }
        let edit = |v: &Map<String, Value>| {
            let field = |a: &str, b: &str| v.get(a).or_else(|| v.get(b));
            Some((
                field("old_string", "old_str")?.as_str()?.to_owned(),
                field("new_string", "new_str")?.as_str()?.to_owned(),
                v.get("replace_all")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            ))
        };
        if let Some(edits) = input.get("edits").and_then(Value::as_array) {
            let edits: Option<Vec<_>> =
                edits.iter().map(|e| e.as_object().and_then(edit)).collect();
            return edits.map(WriteText::Edits);
        }
        edit(input).map(|e| WriteText::Edits(vec![e]))
    }

    /// The new text, in any of its parts, says `word` (ASCII case-insensitive):
    /// a screen before any file is read.
    pub fn mentions(&self, word: &str) -> bool {
        let has = |t: &str| t.to_ascii_lowercase().contains(word);
        match self {
            WriteText::Content(c) => has(c),
            WriteText::Edits(edits) => edits.iter().any(|(_, new, _)| has(new)),
        }
    }

    /// The file's text after the write (`current`: as it is now, `None`: no file);
    /// `None` when an edit's text is not there (the tool fails then).
    pub fn apply(&self, current: Option<&str>) -> Option<String> {
        match self {
            WriteText::Content(c) => Some(c.clone()),
            WriteText::Edits(edits) => {
                let mut text = current?.to_owned();
                for (old, new, all) in edits {
                    if old.is_empty() || !text.contains(old.as_str()) {
                        return None;
                    }
                    text = if *all {
                        text.replace(old.as_str(), new)
                    } else {
                        text.replacen(old.as_str(), new, 1)
                    };
                }
                Some(text)
            }
        }
    }
}

/// An agent's transcript file and the Stop's `timestamp` in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    pub path: String,
    pub timestamp: String,
}

/// A field of the event whose JSON type is not the one helix-gate reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenField {
    /// As in the payload; nested fields with a dot (`tool_input.file_path`).
    pub name: &'static str,
    pub expected: &'static str,
    pub found: &'static str,
}

impl std::fmt::Display for BrokenField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "field `{}` of the hook event is {}, expected {}",
            self.name, self.found, self.expected
        )
    }
}

impl HookEvent {
    /// `tool_input.file_path` of Write / Edit / `MultiEdit`.
    pub fn file_path(&self) -> Option<&str> {
        self.file_path.as_deref()
    }

    /// The final answer's field, if it is broken (`last_assistant_message`;
    /// Gemini CLI's `prompt_response`; Copilot CLI's transcript).
    pub fn broken_final_answer(&self) -> Option<&BrokenField> {
        [
            "last_assistant_message",
            "prompt_response",
            "transcript_path",
        ]
        .iter()
        .find_map(|name| self.broken(name))
    }

    /// The broken field `name`, if it is one.
    pub fn broken(&self, name: &str) -> Option<&BrokenField> {
        self.broken.iter().find(|b| b.name == name)
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
    #[error("hook event is not a JSON object but {0}")]
    NotAnObject(&'static str),
    #[error("hook event has no hook_event_name")]
    NoEventName,
    #[error("hook event's hook_event_name is {0}, expected a string")]
    EventNameType(&'static str),
}

/// The JSON type of `value`, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Takes fields out of one JSON object, each on its own; records the broken ones.
struct Fields<'a> {
    map: &'a Map<String, Value>,
    broken: Vec<BrokenField>,
}

impl Fields<'_> {
    /// `name` converted by `convert`; absent stays `None`, any other type is broken.
    fn get<T>(
        &mut self,
        name: &'static str,
        expected: &'static str,
        convert: impl Fn(&Value) -> Option<T>,
    ) -> Option<T> {
        let value = self.map.get(name)?;
        let converted = convert(value);
        if converted.is_none() {
            self.broken.push(BrokenField {
                name,
                expected,
                found: kind(value),
            });
        }
        converted
    }

    fn string(&mut self, name: &'static str) -> Option<String> {
        self.get(name, "a string", |v| v.as_str().map(str::to_owned))
    }
}

/// The top-level fields helix-gate reads (and of `tool_input` only `file_path`
/// and `command`), each parsed on its own. Every other field is checked as
/// JSON but never converted: a number out of range (`1e999`) or a 5 MB
/// `content` in a field no decision needs costs nothing and breaks nothing.
fn known_fields(bytes: &[u8]) -> Result<Map<String, Value>, DecodeError> {
    use serde_json::value::RawValue;
    const TOP: [&str; 11] = [
        "hook_event_name",
        "session_id",
        "prompt_id",
        "cwd",
        "tool_name",
        "tool_input",
        "stop_hook_active",
        "last_assistant_message",
        "background_tasks",
        "agent_type",
        "source",
    ];
    const TOOL_INPUT: [&str; 2] = ["file_path", "command"];
    // Before a write lands, its new text too: the hook refuses a write that makes
    // an ADR Accepted ([`WriteText`]).
    // Claude Code's and Gemini's names, then Copilot CLI's.
    const WRITE_TEXT: [&str; 8] = [
        "content",
        "old_string",
        "new_string",
        "replace_all",
        "edits",
        "file_text",
        "old_str",
        "new_str",
    ];
    type Raw<'a> = std::collections::HashMap<std::borrow::Cow<'a, str>, &'a RawValue>;
    let json_error = |e: serde_json::Error| DecodeError::Json(e.to_string());
    let raw: Raw<'_> = match serde_json::from_slice(bytes) {
        Ok(raw) => raw,
        Err(e) => {
            // Not an object (or not JSON): say which, as before.
            return Err(match serde_json::from_slice::<Value>(bytes) {
                Ok(value) => DecodeError::NotAnObject(kind(&value)),
                Err(_) => json_error(e),
            });
        }
    };
    // Claude Code's, Codex's and Copilot's name, and Gemini's.
    let before_write = raw
        .get("hook_event_name")
        .is_some_and(|name| matches!(name.get(), "\"PreToolUse\"" | "\"BeforeTool\""));
    let mut map = Map::new();
    for name in TOP {
        let Some(raw_value) = raw.get(name) else {
            continue;
        };
        let value = if name == "tool_input" {
            match serde_json::from_str::<Raw<'_>>(raw_value.get()) {
                Ok(input) => Value::Object(
                    TOOL_INPUT
                        .iter()
                        .chain(WRITE_TEXT.iter().filter(|_| before_write))
                        .filter_map(|key| {
                            let value = serde_json::from_str(input.get(*key)?.get()).ok()?;
                            Some(((*key).to_owned(), value))
                        })
                        .collect(),
                ),
                // Not an object: kept as it is, so the decision sees its type.
                Err(_) => serde_json::from_str(raw_value.get()).unwrap_or(Value::Null),
            }
        } else {
            // A known field that cannot be converted counts as broken (null), like
            // any field of the wrong type.
            serde_json::from_str(raw_value.get()).unwrap_or(Value::Null)
        };
        map.insert(name.to_owned(), value);
    }
    Ok(map)
}

/// Decode one event from raw bytes.
pub fn decode(bytes: &[u8]) -> Result<HookEvent, DecodeError> {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(DecodeError::Empty);
    }
    let map = known_fields(bytes)?;
    let hook_event_name = match map.get("hook_event_name") {
        None | Some(Value::Null) => return Err(DecodeError::NoEventName),
        Some(Value::String(name)) if name.is_empty() => return Err(DecodeError::NoEventName),
        Some(Value::String(name)) => name.clone(),
        Some(other) => return Err(DecodeError::EventNameType(kind(other))),
    };
    let mut fields = Fields {
        map: &map,
        broken: Vec::new(),
    };
    let write_text = match map.get("tool_input") {
        Some(Value::Object(input)) => WriteText::of(input),
        _ => None,
    };
    // By reference: a Write's tool_input carries the whole file content.
    let (file_path, command) = match map.get("tool_input") {
        None => (None, None),
        Some(Value::Object(input)) => {
            let mut inner = Fields {
                map: input,
                broken: Vec::new(),
            };
            let path = inner.string("file_path");
            let command = inner.string("command");
            fields
                .broken
                .extend(inner.broken.into_iter().map(|b| BrokenField {
                    name: if b.name == "command" {
                        "tool_input.command"
                    } else {
                        "tool_input.file_path"
                    },
                    ..b
                }));
            (path, command)
        }
        Some(other) => {
            fields.broken.push(BrokenField {
                name: "tool_input",
                expected: "an object",
                found: kind(other),
            });
            (None, None)
        }
    };
    let event = HookEvent {
        agent: Agent::Claude,
        kind: EventKind::parse(&hook_event_name),
        hook_event_name,
        session_id: fields.string("session_id"),
        prompt_id: fields.string("prompt_id"),
        cwd: fields.string("cwd"),
        tool_name: fields.string("tool_name"),
        file_path,
        command,
        write_text,
        patch: None,
        stop_hook_active: fields.get("stop_hook_active", "a boolean", Value::as_bool),
        last_assistant_message: fields.string("last_assistant_message"),
        transcript: None,
        background_tasks: fields.get("background_tasks", "an array", |v| v.as_array().cloned()),
        agent_type: fields.string("agent_type"),
        source: fields.string("source"),
        broken: Vec::new(),
    };
    Ok(HookEvent {
        broken: fields.broken,
        ..event
    })
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
    fn a_number_out_of_range_in_a_field_no_decision_needs_is_ignored() {
        let e = decode(
            br#"{"hook_event_name":"PostToolUse","tool_name":"Write","duration_ms":1e999,"tool_input":{"file_path":"/r/a.md","content":"x","offset":1e999},"session_id":"s"}"#,
        )
        .unwrap();
        assert_eq!(e.file_path(), Some("/r/a.md"));
        assert!(e.broken.is_empty(), "{:?}", e.broken);
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
        assert_eq!(
            decode(b"[1]").unwrap_err(),
            DecodeError::NotAnObject("an array")
        );
        assert_eq!(
            decode(b"{\"hook_event_name\":7}").unwrap_err(),
            DecodeError::EventNameType("a number")
        );
        let bom = format!("\u{feff}{STOP}\n");
        assert_eq!(decode(bom.as_bytes()).unwrap().hook_event_name, "Stop");
    }

    #[test]
    fn a_field_of_the_wrong_type_is_recorded_and_the_rest_decodes() {
        let e = decode(
            br#"{"hook_event_name":"Stop","session_id":"s","background_tasks":{},"last_assistant_message":["x"],"stop_hook_active":null,"cwd":5}"#,
        )
        .unwrap();
        assert_eq!(e.session_id.as_deref(), Some("s"));
        assert!(e.background_tasks.is_none() && e.last_assistant_message.is_none());
        assert!(e.stop_hook_active.is_none() && e.cwd.is_none());
        let names: Vec<&str> = e.broken.iter().map(|b| b.name).collect();
        assert_eq!(
            names,
            [
                "cwd",
                "stop_hook_active",
                "last_assistant_message",
                "background_tasks"
            ]
        );
        assert_eq!(
            e.broken("background_tasks").unwrap().to_string(),
            "field `background_tasks` of the hook event is an object, expected an array"
        );
        let w =
            decode(br#"{"hook_event_name":"PostToolUse","tool_name":"Write","tool_input":"x"}"#)
                .unwrap();
        assert_eq!((w.file_path(), w.broken[0].name), (None, "tool_input"));
        let w = decode(br#"{"hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":[]}}"#).unwrap();
        assert_eq!(w.broken("tool_input.file_path").unwrap().found, "an array");
    }
}
