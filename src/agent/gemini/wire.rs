//! Gemini CLI's hook protocol (`@google/gemini-cli` 0.61.0, run against a fake
//! model API; `../shared/agent-hooks.md`, and the client's bundled source).
//!
//! **In.** The envelope shares Claude Code's field names (`session_id`, `cwd`,
//! `hook_event_name`, `tool_name`, `tool_input` with `file_path` or `command`,
//! `stop_hook_active`), so the shared decoder reads it; what differs is mapped
//! here onto the one [`HookEvent`]:
//! - events: `BeforeTool` is `PreToolUse`, `AfterTool` is `PostToolUse` (also
//!   after a failed tool: Gemini has no separate event), `AfterAgent` is the
//!   Stop, `BeforeAgent` is `UserPromptSubmit`, `SessionStart` is itself;
//! - tools: `write_file` is a Write, `replace` an Edit (it carries only
//!   `old_string`/`new_string`: the file is read from disk after the tool, as
//!   for Claude Code's Edit), `run_shell_command` is Bash;
//! - the final answer at `AfterAgent` is `prompt_response`; after a deny,
//!   Gemini fires `AfterAgent` again with `stop_hook_active: true` and the
//!   answers so far joined by a line break (`"first answer\nsecond answer"`),
//!   so the last line is still the retry's own.
//!
//! **Out.** Gemini reads `decision` (`allow`, `deny` or its alias `block`,
//! `ask`), `reason`, `systemMessage`, `continue`/`stopReason` and
//! `hookSpecificOutput.additionalContext` (HTML-escaped by Gemini, then wrapped
//! in `<hook_context>`). A deny at `BeforeTool` keeps the tool from running
//! ("Tool execution blocked: REASON"), at `AfterTool` replaces the tool's result
//! ("Tool result blocked: REASON"; the file stays written, and any context is
//! dropped, so it goes into the reason), at `AfterAgent` sends REASON as the
//! next user message. A deny at `SessionStart` or `BeforeAgent` would stop the
//! prompt: helix-gate never blocks there, and whatever an event cannot carry
//! goes into `systemMessage`, never dropped. Exit code 0 always: Gemini reads
//! stdout as JSON (an empty stdout makes it read stderr as plain text, shown to
//! the person as a `systemMessage`).

use serde::Serialize;
use serde_json::Value;

use crate::agent::event::{self, BrokenField, DecodeError, EventKind, HookEvent};
use crate::agent::name::Agent;
use crate::agent::output::HookOutput;

/// Gemini's event names, and the one kind each is decided as.
const EVENTS: [(&str, EventKind); 5] = [
    ("BeforeTool", EventKind::PreToolUse),
    ("AfterTool", EventKind::PostToolUse),
    ("AfterAgent", EventKind::Stop),
    ("BeforeAgent", EventKind::UserPromptSubmit),
    ("SessionStart", EventKind::SessionStart),
];

/// Gemini's tools helix-gate looks at, and the tool each is checked as.
pub(crate) const TOOLS: [(&str, &str); 3] = [
    ("write_file", "Write"),
    ("replace", "Edit"),
    ("run_shell_command", "Bash"),
];

/// Decode a Gemini CLI event into the one event.
pub(super) fn decode(bytes: &[u8]) -> Result<HookEvent, DecodeError> {
    let mut event = event::decode(bytes)?;
    event.agent = Agent::Gemini;
    event.kind = EVENTS
        .iter()
        .find(|(name, _)| *name == event.hook_event_name)
        .map_or(EventKind::Other, |(_, kind)| *kind);
    if let Some(tool) = event.tool_name.as_deref()
        && let Some((_, as_tool)) = TOOLS.iter().find(|(name, _)| *name == tool)
    {
        event.tool_name = Some((*as_tool).to_owned());
    }
    if event.kind == EventKind::Stop {
        // Small (no file content): read it whole for the one field.
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        let response = serde_json::from_slice::<Value>(bytes)
            .ok()
            .and_then(|mut v| v.get_mut("prompt_response").map(Value::take));
        match response {
            None | Some(Value::Null) => {}
            Some(Value::String(text)) => event.last_assistant_message = Some(text),
            Some(_) => event.broken.push(BrokenField {
                name: "prompt_response",
                expected: "a string",
                found: "another type",
            }),
        }
    }
    Ok(event)
}

/// Gemini's name of the event a `kind` was decoded from.
fn wire_name(kind: EventKind) -> Option<&'static str> {
    EVENTS
        .iter()
        .find(|(_, k)| *k == kind)
        .map(|(name, _)| *name)
        .or((kind == EventKind::PostToolUseFailure).then_some("AfterTool"))
}

/// The answer in the fields Gemini CLI reads (`DefaultHookOutput`).
#[derive(Debug, Default, Serialize)]
struct Answer {
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    specific: Option<Specific>,
    #[serde(rename = "systemMessage", skip_serializing_if = "Option::is_none")]
    system_message: Option<String>,
}

#[derive(Debug, Serialize)]
struct Specific {
    #[serde(rename = "hookEventName")]
    event: &'static str,
    #[serde(rename = "additionalContext")]
    additional_context: String,
}

/// `output` as the one JSON line Gemini CLI acts on for an event of `kind`.
pub(super) fn encode(output: &HookOutput, kind: Option<EventKind>) -> String {
    let can_deny = matches!(
        kind,
        Some(
            EventKind::PreToolUse
                | EventKind::PostToolUse
                | EventKind::PostToolUseFailure
                | EventKind::Stop
        )
    );
    // Context reaches the model after a tool, at session start and before a prompt.
    let context_event = match kind {
        Some(
            k @ (EventKind::PostToolUse
            | EventKind::PostToolUseFailure
            | EventKind::SessionStart
            | EventKind::UserPromptSubmit),
        ) => wire_name(k),
        _ => None,
    };
    let blank = |text: &Option<String>| text.as_deref().is_none_or(|t| t.trim().is_empty());
    let mut for_model: Vec<String> = Vec::new();
    let mut for_person: Vec<String> = output.system_message.iter().cloned().collect();
    let mut denied = false;
    if output.decision == Some("block") && !blank(&output.reason) {
        denied = can_deny;
        for_model.extend(output.reason.clone());
    } else {
        for_person.extend(output.reason.clone().filter(|r| !r.trim().is_empty()));
    }
    let mut context = None;
    if let Some(specific) = &output.hook_specific {
        if specific.permission_decision.is_some_and(|d| d != "allow") {
            let reason = specific
                .permission_decision_reason
                .clone()
                .filter(|r| !r.trim().is_empty())
                .unwrap_or_else(|| "helix-gate refused this tool call".to_owned());
            if kind == Some(EventKind::PreToolUse) {
                denied = true;
                for_model.push(reason);
            } else {
                for_person.push(reason);
            }
        }
        if let Some(text) = &specific.additional_context {
            match context_event {
                // A deny replaces the tool's result: the context goes with the reason.
                Some(_) if denied => for_model.push(text.clone()),
                Some(event) => {
                    context = Some(Specific {
                        event,
                        additional_context: text.clone(),
                    });
                }
                None => for_person.push(text.clone()),
            }
        }
    }
    if !denied {
        for_person.append(&mut for_model);
    }
    let answer = Answer {
        decision: denied.then_some("deny"),
        reason: denied.then(|| for_model.join("\n\n")),
        specific: context,
        system_message: (!for_person.is_empty()).then(|| for_person.join("\n")),
    };
    serde_json::to_string(&answer).unwrap_or_else(|_| "{}".to_owned())
}

/// Gemini's name of the event helix-gate decides as `kind` (`None`: Gemini
/// has no such event; its `AfterTool` fires after a failed tool too).
pub(super) fn event_name(kind: EventKind) -> Option<&'static str> {
    EVENTS
        .iter()
        .find(|(_, k)| *k == kind)
        .map(|(name, _)| *name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Payloads recorded from Gemini CLI 0.61.0 (`gemini -p` against a fake
    /// Gemini API, hooks from `~/.gemini/settings.json`); `tool_response`
    /// shortened.
    const AFTER_WRITE: &str = r#"{"session_id":"4502e05e-93b4-43c5-ab96-5a095516a6fa","transcript_path":"/tmp/gemrec/home/.gemini/tmp/repo/chats/session-2026-11-26T16-09-4502e05e.jsonl","cwd":"/tmp/gemrec/repo","hook_event_name":"AfterTool","timestamp":"2026-11-26T16:09:13.367Z","tool_name":"write_file","tool_input":{"file_path":"/tmp/gemrec/repo/adr/001-x.md","content":"hello\n"},"tool_response":{"llmContent":"Successfully created and wrote to new file: /tmp/gemrec/repo/adr/001-x.md. Here is the updated code:\nhello\n","returnDisplay":{"fileName":"001-x.md","filePath":"/tmp/gemrec/repo/adr/001-x.md","originalContent":"","newContent":"hello\n"}}}"#;
    const BEFORE_REPLACE: &str = r#"{"session_id":"4502e05e-93b4-43c5-ab96-5a095516a6fa","transcript_path":"/tmp/gemrec/home/.gemini/tmp/repo/chats/session-2026-11-26T16-09-4502e05e.jsonl","cwd":"/tmp/gemrec/repo","hook_event_name":"BeforeTool","timestamp":"2026-11-26T16:09:13.421Z","tool_name":"replace","tool_input":{"file_path":"/tmp/gemrec/repo/adr/001-x.md","instruction":"x","old_string":"hello","new_string":"bye"}}"#;
    const AFTER_SHELL: &str = r#"{"session_id":"e09cc9ae-ec99-4078-9c81-c3ee87499ff6","transcript_path":"/tmp/gemrec/home/.gemini/tmp/repo/chats/session-2026-11-26T16-09-e09cc9ae.jsonl","cwd":"/tmp/gemrec/repo","hook_event_name":"AfterTool","timestamp":"2026-11-26T16:09:25.792Z","tool_name":"run_shell_command","tool_input":{"command":"exit 3","description":"fail"},"tool_response":{"llmContent":"<untrusted_context>\nOutput: (empty)\nExit Code: 3\nProcess Group PGID: 6863\n</untrusted_context>","returnDisplay":"Command exited with code: 3"}}"#;
    /// The second `AfterAgent` after a deny: the answers so far, joined.
    const AFTER_AGENT_RETRY: &str = r#"{"session_id":"4502e05e-93b4-43c5-ab96-5a095516a6fa","transcript_path":"/tmp/gemrec/home/.gemini/tmp/repo/chats/session-2026-11-26T16-09-4502e05e.jsonl","cwd":"/tmp/gemrec/repo","hook_event_name":"AfterAgent","timestamp":"2026-11-26T16:09:13.849Z","prompt":"go","prompt_response":"first answer\nsecond answer","stop_hook_active":true}"#;
    const SESSION_START: &str = r#"{"session_id":"4502e05e-93b4-43c5-ab96-5a095516a6fa","transcript_path":"/tmp/gemrec/home/.gemini/tmp/repo/chats/session-2026-11-26T16-09-4502e05e.jsonl","cwd":"/tmp/gemrec/repo","hook_event_name":"SessionStart","timestamp":"2026-11-26T16:09:12.440Z","source":"startup"}"#;

    #[test]
    fn recorded_payloads_decode_as_the_one_event() {
        let write = decode(AFTER_WRITE.as_bytes()).unwrap();
        assert_eq!(write.agent, Agent::Gemini);
        assert_eq!(
            (write.kind, write.tool_name.as_deref(), write.file_path()),
            (
                EventKind::PostToolUse,
                Some("Write"),
                Some("/tmp/gemrec/repo/adr/001-x.md")
            )
        );
        assert_eq!(write.hook_event_name, "AfterTool", "logged as sent");
        let replace = decode(BEFORE_REPLACE.as_bytes()).unwrap();
        assert_eq!(
            (replace.kind, replace.tool_name.as_deref()),
            (EventKind::PreToolUse, Some("Edit"))
        );
        let shell = decode(AFTER_SHELL.as_bytes()).unwrap();
        assert_eq!(
            (
                shell.kind,
                shell.tool_name.as_deref(),
                shell.command.as_deref()
            ),
            (EventKind::PostToolUse, Some("Bash"), Some("exit 3"))
        );
        let stop = decode(AFTER_AGENT_RETRY.as_bytes()).unwrap();
        assert_eq!(
            (
                stop.kind,
                stop.stop_hook_active,
                stop.last_assistant_message.as_deref()
            ),
            (
                EventKind::Stop,
                Some(true),
                Some("first answer\nsecond answer")
            )
        );
        let start = decode(SESSION_START.as_bytes()).unwrap();
        assert_eq!(
            (start.kind, start.source.as_deref()),
            (EventKind::SessionStart, Some("startup"))
        );
        let broken = decode(br#"{"hook_event_name":"AfterAgent","prompt_response":[1]}"#).unwrap();
        assert!(broken.broken("prompt_response").is_some());
        let other = decode(br#"{"hook_event_name":"BeforeModel"}"#).unwrap();
        assert_eq!(other.kind, EventKind::Other);
        // Claude Code's names mean nothing to Gemini's decoder.
        assert_eq!(
            decode(br#"{"hook_event_name":"Stop"}"#).unwrap().kind,
            EventKind::Other
        );
        let unknown_tool = decode(
            br#"{"hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"file_path":"/r/a.md"}}"#,
        )
        .unwrap();
        assert_eq!(unknown_tool.tool_name.as_deref(), Some("read_file"));
    }

    /// Every shape of answer helix-gate builds (as in the Codex encoder's test).
    fn every_answer() -> Vec<(&'static str, HookOutput)> {
        let r = || "R".to_owned();
        vec![
            ("block", HookOutput::block(r())),
            ("block + message", HookOutput::block(r()).with_message(r())),
            ("block, blank reason", HookOutput::block(" \n".to_owned())),
            ("deny", HookOutput::deny(r())),
            ("deny + message", HookOutput::deny(r()).add_message(r())),
            ("ask", HookOutput::ask(r())),
            ("message", HookOutput::message(r())),
            ("context", HookOutput::context("PostToolUse", "C")),
            (
                "context + message",
                HookOutput::context("PostToolUse", "C").with_message(r()),
            ),
            ("context of Stop", HookOutput::context("Stop", "C")),
            (
                "block + context",
                HookOutput::block(r()).with_context("PostToolUse", "C"),
            ),
            ("empty", HookOutput::default()),
        ]
    }

    #[test]
    fn every_answer_is_one_gemini_reads_and_nothing_is_lost() {
        // The fields of Gemini 0.61.0's DefaultHookOutput.
        const FIELDS: [&str; 7] = [
            "continue",
            "stopReason",
            "suppressOutput",
            "systemMessage",
            "decision",
            "reason",
            "hookSpecificOutput",
        ];
        let kinds = [
            EventKind::PreToolUse,
            EventKind::PostToolUse,
            EventKind::Stop,
            EventKind::SessionStart,
            EventKind::UserPromptSubmit,
            EventKind::Other,
        ];
        for kind in kinds {
            for (shape, output) in every_answer() {
                for known in [Some(kind), None] {
                    let line = encode(&output, known);
                    let value: Value = serde_json::from_str(&line).unwrap();
                    let map = value.as_object().unwrap();
                    assert!(
                        map.keys().all(|k| FIELDS.contains(&k.as_str())),
                        "{shape} for {kind:?}: {line}"
                    );
                    match map.get("decision") {
                        None => assert!(map.get("reason").is_none(), "{shape}: {line}"),
                        Some(d) => {
                            assert_eq!(d, "deny", "{shape}: {line}");
                            assert!(
                                known.is_some_and(|k| matches!(
                                    k,
                                    EventKind::PreToolUse
                                        | EventKind::PostToolUse
                                        | EventKind::Stop
                                )),
                                "{shape}: a deny here would stop the prompt: {line}"
                            );
                            assert!(!map["reason"].as_str().unwrap().trim().is_empty());
                        }
                    }
                    // Every text of the answer arrives somewhere.
                    let all = line.clone();
                    for text in [&output.reason, &output.system_message]
                        .into_iter()
                        .flatten()
                        .filter(|t| !t.trim().is_empty())
                    {
                        assert!(all.contains(text.as_str()), "{shape} lost {text}: {line}");
                    }
                    if let Some(specific) = &output.hook_specific {
                        for text in [
                            &specific.additional_context,
                            &specific.permission_decision_reason,
                        ]
                        .into_iter()
                        .flatten()
                        {
                            assert!(all.contains(text.as_str()), "{shape} lost {text}: {line}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn answers_in_gemini_form() {
        assert_eq!(
            encode(&HookOutput::block("R".into()), Some(EventKind::Stop)),
            r#"{"decision":"deny","reason":"R"}"#
        );
        assert_eq!(
            encode(&HookOutput::ask("R".into()), Some(EventKind::PreToolUse)),
            r#"{"decision":"deny","reason":"R"}"#
        );
        assert_eq!(
            encode(
                &HookOutput::block("R".into()).with_context("PostToolUse", "C"),
                Some(EventKind::PostToolUse)
            ),
            r#"{"decision":"deny","reason":"R\n\nC"}"#
        );
        assert_eq!(
            encode(
                &HookOutput::context("SessionStart", "C"),
                Some(EventKind::SessionStart)
            ),
            r#"{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"C"}}"#
        );
        assert_eq!(
            encode(
                &HookOutput::context("PostToolUse", "C").with_message("M".into()),
                Some(EventKind::PostToolUse)
            ),
            r#"{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"C"},"systemMessage":"M"}"#
        );
        assert_eq!(
            encode(
                &HookOutput::message("M".into()).with_context("Stop", "C"),
                Some(EventKind::Stop)
            ),
            r#"{"systemMessage":"M\nC"}"#
        );
        assert_eq!(
            encode(
                &HookOutput::block("R".into()),
                Some(EventKind::SessionStart)
            ),
            r#"{"systemMessage":"R"}"#
        );
    }
}
