//! GitHub Copilot CLI's hook protocol (`@github/copilot` 1.0.102, run against a
//! fake model API through its BYOK variables; the GitHub docs' "Copilot CLI
//! hooks reference").
//!
//! **In.** helix-gate registers Copilot's Pascal-case event names
//! (`PreToolUse`, `PostToolUse`, `PostToolUseFailure`, `Stop`, `SessionStart`,
//! `UserPromptSubmit`), for which Copilot sends its "VS Code compatible"
//! payload: Claude Code's envelope (`hook_event_name`, `session_id`, `cwd`,
//! `tool_name`, `tool_input`, `stop_hook_active`), with its tools already
//! named `Write` (`create`), `Edit` (`edit`) and `Bash`. The shared decoder
//! reads it; what differs is filled in here:
//! - the edited file is `tool_input.path` (not `file_path`);
//! - `Stop` carries no final answer, only `transcript_path`: Copilot's
//!   `events.jsonl`, where the last `assistant.message` before this `Stop`'s
//!   own `hook.start` line (same `timestamp`) is the answer. The decoder only
//!   notes where; the Stop gate reads it when the STEP check needs it
//!   ([`crate::agent::final_answer`]). Copilot writes that file behind the hook, so
//!   its tail is read until the line is there (at most 3 s); a transcript
//!   without it is a broken field, so the STEP check applies the failure
//!   policy instead of guessing. The path is opened like every file
//!   helix-gate reads (`crate::fs::read`): without blocking, and anything but
//!   a regular file (a FIFO nobody writes) is a broken field at once.
//!
//! **Out.** Copilot reads, per event: `PreToolUse` `permissionDecision`
//! (`allow`, `deny`, `ask`) with `permissionDecisionReason`; `PostToolUse` and
//! `Stop` `decision: "block"` with `reason` (after a tool the reason replaces
//! its result, "Tool result blocked: REASON"; at `Stop` it is the next
//! prompt); `additionalContext` at the top level (`SessionStart`,
//! `UserPromptSubmit`, after a tool). It drops `systemMessage` (observed: the
//! hook's recorded output is `{}`), so what is meant for the person only is
//! kept there for other clients but reaches nobody in Copilot: the decision
//! log has it.

use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::Path;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::agent::event::{self, BrokenField, DecodeError, EventKind, HookEvent, Transcript};
use crate::agent::name::Agent;
use crate::agent::output::HookOutput;

/// How much of the transcript's end is read for the last answer.
const TRANSCRIPT_TAIL: u64 = 1 << 20;
/// How long the `Stop` hook waits for Copilot to write the turn's end into
/// its transcript.
const TRANSCRIPT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// Decode a Copilot CLI event (Pascal-case registration) into the one event.
pub(super) fn decode(bytes: &[u8]) -> Result<HookEvent, DecodeError> {
    let mut event = event::decode(bytes)?;
    event.agent = Agent::Copilot;
    let wants_path =
        event.file_path.is_none() && matches!(event.tool_name.as_deref(), Some("Write" | "Edit"));
    if wants_path || event.kind == EventKind::Stop {
        let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
        let raw: std::collections::HashMap<String, &RawValue> =
            serde_json::from_slice(bytes).unwrap_or_default();
        if wants_path {
            let path = raw
                .get("tool_input")
                .and_then(|input| {
                    serde_json::from_str::<std::collections::HashMap<String, &RawValue>>(
                        input.get(),
                    )
                    .ok()
                })
                .and_then(|input| input.get("path").map(|p| p.get().to_owned()));
            match path.map(|p| serde_json::from_str::<Value>(&p)) {
                Some(Ok(Value::String(path))) => event.file_path = Some(path),
                Some(_) => event.broken.push(BrokenField {
                    name: "tool_input.file_path",
                    expected: "a string (Copilot's tool_input.path)",
                    found: "another type",
                }),
                None => {}
            }
        }
        if event.kind == EventKind::Stop && event.last_assistant_message.is_none() {
            let field = |name: &str| {
                raw.get(name)
                    .and_then(|v| serde_json::from_str::<String>(v.get()).ok())
            };
            match field("transcript_path") {
                Some(path) => {
                    event.transcript = Some(Transcript {
                        path,
                        timestamp: field("timestamp").unwrap_or_default(),
                    });
                }
                None => event.broken.push(BrokenField {
                    name: "transcript_path",
                    expected: "a string (Copilot's transcript, where the final answer is)",
                    found: "nothing",
                }),
            }
        }
    }
    Ok(event)
}

/// The final answer of the turn whose `Stop` the transcript names (read at
/// Stop, and only when the STEP check needs it: [`crate::agent::final_answer`]), or
/// what the transcript's path was instead.
pub(super) fn final_answer(transcript: &Transcript) -> Result<String, &'static str> {
    last_answer(Path::new(&transcript.path), &transcript.timestamp)
}

/// The final answer of the turn whose `Stop` was sent at `timestamp`: the
/// `content` of the last `assistant.message` before that `Stop`'s own
/// `hook.start` line in Copilot's `events.jsonl` (its last
/// [`TRANSCRIPT_TAIL`] bytes). Copilot writes the transcript behind the hook
/// (observed: at `Stop` the file may hold one line), so it is read again until
/// that line is there, at most [`TRANSCRIPT_WAIT`]; an older answer is never
/// taken for this one.
/// A path that is no regular file (a FIFO, a device, a folder) is given up at
/// once: it never becomes the transcript, and it is never read. The error names
/// what was found.
fn last_answer(path: &Path, timestamp: &str) -> Result<String, &'static str> {
    let until = std::time::Instant::now() + TRANSCRIPT_WAIT;
    loop {
        if let Some(found) = answer_before_stop(path, timestamp)? {
            return Ok(found);
        }
        if std::time::Instant::now() >= until {
            return Err("a file without them");
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
    }
}

/// `None`: the `Stop`'s line is not there (yet); an empty answer: it is, with
/// no answer before it. Opened like every file helix-gate reads
/// ([`crate::fs::read::open_regular`]): without blocking, decided on `fstat`;
/// the error is the kind of file a non-regular path names.
fn answer_before_stop(path: &Path, timestamp: &str) -> Result<Option<String>, &'static str> {
    let mut file = match crate::fs::read::open_regular(path, crate::fs::read::Links::Follow) {
        Ok(file) => file,
        Err(err) => return crate::fs::read::not_regular(&err).map_or(Ok(None), Err),
    };
    Ok(tail_answer(&mut file, timestamp))
}

/// The answer before the `Stop` at `timestamp` in the tail of the open transcript.
fn tail_answer(file: &mut std::fs::File, timestamp: &str) -> Option<String> {
    let meta = file.metadata().ok()?;
    let start = meta.len().saturating_sub(TRANSCRIPT_TAIL);
    file.seek(SeekFrom::Start(start)).ok()?;
    let mut tail = Vec::new();
    file.take(TRANSCRIPT_TAIL).read_to_end(&mut tail).ok()?;
    let text = String::from_utf8_lossy(&tail);
    // A cut first line is not JSON and is skipped.
    let lines: Vec<Value> = text
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect();
    // The hook's input in the line carries the event's own time in milliseconds; the
    // line's `timestamp` is when Copilot wrote it, at times a millisecond later
    // (observed: input 05:01:45.078, line 05:01:45.079).
    let sent = epoch_ms(timestamp);
    let stop = lines.iter().rposition(|line| {
        line["type"] == "hook.start"
            && line["data"]["hookType"] == "agentStop"
            && (line["timestamp"] == timestamp
                || sent.is_some_and(|ms| line["data"]["input"]["timestamp"].as_i64() == Some(ms)))
    })?;
    Some(
        lines[..stop]
            .iter()
            .rev()
            .find_map(|line| {
                (line["type"] == "assistant.message")
                    .then(|| line["data"]["content"].as_str().map(str::to_owned))
                    .flatten()
            })
            .unwrap_or_default(),
    )
}

/// Milliseconds since the Unix epoch of an RFC 3339 UTC time as Copilot writes it
/// (`2026-11-28T05:01:45.078Z`); `None` for any other form.
fn epoch_ms(time: &str) -> Option<i64> {
    let b = time.as_bytes();
    if b.len() != 24 || b[23] != b'Z' || b[10] != b'T' || b[19] != b'.' {
        return None;
    }
    let num = |range: std::ops::Range<usize>| time.get(range)?.parse::<i64>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hh, mm, ss, ms) = (num(11..13)?, num(14..16)?, num(17..19)?, num(20..23)?);
    // Days from civil (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(((days * 24 + hh) * 60 + mm) * 60_000 + ss * 1000 + ms)
}

/// The answer in the fields Copilot CLI reads.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
struct Answer {
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    permission_decision_reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_context: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    system_message: Option<String>,
}

/// `output` as the one JSON line Copilot CLI acts on for an event of `kind`.
pub(super) fn encode(output: &HookOutput, kind: Option<EventKind>) -> String {
    let blocks = matches!(kind, Some(EventKind::PostToolUse | EventKind::Stop));
    let takes_context = matches!(
        kind,
        Some(
            EventKind::PreToolUse
                | EventKind::PostToolUse
                | EventKind::PostToolUseFailure
                | EventKind::SessionStart
                | EventKind::UserPromptSubmit
        )
    );
    let mut answer = Answer::default();
    let mut for_model: Vec<String> = Vec::new();
    let mut for_person: Vec<String> = output.system_message.iter().cloned().collect();
    let reason = output.reason.clone().filter(|r| !r.trim().is_empty());
    match (output.decision, reason) {
        (Some("block"), Some(reason)) if blocks => {
            answer.decision = Some("block");
            answer.reason = Some(reason);
        }
        // After a failed tool the reason can still reach the model as context.
        (Some("block"), Some(reason)) if kind == Some(EventKind::PostToolUseFailure) => {
            for_model.push(reason);
        }
        (_, reason) => for_person.extend(reason),
    }
    if let Some(specific) = &output.hook_specific {
        if specific.permission_decision.is_some_and(|d| d != "allow") {
            let reason = specific
                .permission_decision_reason
                .clone()
                .filter(|r| !r.trim().is_empty())
                .unwrap_or_else(|| "helix-gate refused this tool call".to_owned());
            if kind == Some(EventKind::PreToolUse) {
                answer.permission_decision = Some("deny");
                answer.permission_decision_reason = Some(reason);
            } else {
                for_person.push(reason);
            }
        }
        if let Some(text) = &specific.additional_context {
            if takes_context {
                for_model.push(text.clone());
            } else {
                for_person.push(text.clone());
            }
        }
    }
    if !for_model.is_empty() {
        if answer.decision.is_some() {
            // A block replaces the tool's result: the context goes with the reason.
            let reason = answer.reason.take().unwrap_or_default();
            answer.reason = Some(
                std::iter::once(reason)
                    .chain(for_model)
                    .collect::<Vec<_>>()
                    .join("\n\n"),
            );
        } else {
            answer.additional_context = Some(for_model.join("\n\n"));
        }
    }
    answer.system_message = (!for_person.is_empty()).then(|| for_person.join("\n"));
    serde_json::to_string(&answer).unwrap_or_else(|_| "{}".to_owned())
}

/// Copilot's name of the event of `kind`: the Pascal-case names helix-gate
/// registers, Claude Code's (no `SubagentStop`).
pub(super) fn event_name(kind: EventKind) -> Option<&'static str> {
    kind.name().filter(|_| kind != EventKind::SubagentStop)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Payloads recorded from Copilot CLI 1.0.102 (`copilot -p` against a fake
    /// Chat Completions API, Pascal-case hooks from `.github/hooks/*.json`).
    const PRE_CREATE: &str = r#"{"hook_event_name":"PreToolUse","session_id":"283cca61-7fe9-42fc-8887-6ce3b2029545","timestamp":"2026-11-26T16:14:20.146Z","cwd":"/tmp/cprec/repo","tool_name":"Write","tool_input":{"path":"/tmp/cprec/repo/adr/001-x.md","file_text":"hello\n"}}"#;
    const POST_EDIT: &str = r#"{"hook_event_name":"PostToolUse","session_id":"283cca61-7fe9-42fc-8887-6ce3b2029545","timestamp":"2026-11-26T16:14:20.404Z","cwd":"/tmp/cprec/repo","tool_name":"Edit","tool_input":{"path":"/tmp/cprec/repo/adr/001-x.md","old_str":"hello","new_str":"bye"},"tool_result":{"result_type":"success","text_result_for_llm":"File /tmp/cprec/repo/adr/001-x.md updated with changes."}}"#;
    const POST_BASH: &str = r#"{"hook_event_name":"PostToolUse","session_id":"283cca61-7fe9-42fc-8887-6ce3b2029545","timestamp":"2026-11-26T16:14:20.546Z","cwd":"/tmp/cprec/repo","tool_name":"Bash","tool_input":{"command":"exit 3","description":"fail"},"tool_result":{"result_type":"success","text_result_for_llm":"\n<shellId: 0 completed with exit code 3>"}}"#;
    /// The transcript's lines around a `Stop` (shortened).
    const TRANSCRIPT: &str = concat!(
        r#"{"type":"assistant.message","data":{"messageId":"f4","content":"","toolRequests":[{"toolCallId":"call_2_0","name":"bash"}]}}"#,
        "\n",
        r#"{"type":"tool.execution_complete","data":{"toolCallId":"call_2_0","success":false}}"#,
        "\n",
        r#"{"type":"assistant.message","data":{"messageId":"6e","content":"Done.\n<!-- STEP: done -->","toolRequests":[]}}"#,
        "\n",
        r#"{"type":"assistant.turn_end","data":{"turnId":"3"}}"#,
        "\n",
        r#"{"type":"hook.start","data":{"hookType":"agentStop","input":{"stop_hook_active":false}},"timestamp":"2026-11-26T16:21:04.211Z"}"#,
        "\n",
    );

    fn stop(transcript: &Path) -> String {
        serde_json::json!({"hook_event_name": "Stop", "session_id": "s", "timestamp": "2026-11-26T16:21:04.211Z", "cwd": "/r",
            "transcript_path": transcript, "stop_reason": "end_turn", "stop_hook_active": false})
        .to_string()
    }

    #[test]
    fn the_stops_line_is_found_by_the_time_in_its_input() {
        assert_eq!(
            epoch_ms("2026-11-28T05:01:45.078Z"),
            Some(1_795_842_105_078)
        );
        assert_eq!(epoch_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(epoch_ms("2026-11-28"), None);
        // As recorded: the line written a millisecond after the event's time.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("events.jsonl");
        std::fs::write(
            &path,
            concat!(
                r#"{"type":"assistant.message","data":{"content":"Die Entscheidung steht."},"timestamp":"2026-11-28T05:01:45.073Z"}"#,
                "\n",
                r#"{"type":"hook.start","data":{"hookType":"agentStop","input":{"stopReason":"end_turn","timestamp":1795842105078}},"timestamp":"2026-11-28T05:01:45.079Z"}"#,
                "\n",
            ),
        )
        .unwrap();
        let mut file = std::fs::File::open(&path).unwrap();
        assert_eq!(
            tail_answer(&mut file, "2026-11-28T05:01:45.078Z").as_deref(),
            Some("Die Entscheidung steht.")
        );
        let mut file = std::fs::File::open(&path).unwrap();
        assert_eq!(tail_answer(&mut file, "2026-11-28T05:01:45.070Z"), None);
    }

    #[test]
    fn recorded_payloads_decode_as_the_one_event() {
        let create = decode(PRE_CREATE.as_bytes()).unwrap();
        assert_eq!(create.agent, Agent::Copilot);
        assert_eq!(
            (create.kind, create.tool_name.as_deref(), create.file_path()),
            (
                EventKind::PreToolUse,
                Some("Write"),
                Some("/tmp/cprec/repo/adr/001-x.md")
            )
        );
        let edit = decode(POST_EDIT.as_bytes()).unwrap();
        assert_eq!(
            (edit.kind, edit.file_path()),
            (EventKind::PostToolUse, Some("/tmp/cprec/repo/adr/001-x.md"))
        );
        let bash = decode(POST_BASH.as_bytes()).unwrap();
        assert_eq!(bash.command.as_deref(), Some("exit 3"));
        let dir = tempfile::tempdir().unwrap();
        let transcript = dir.path().join("events.jsonl");
        std::fs::write(&transcript, TRANSCRIPT).unwrap();
        let stop_event = decode(stop(&transcript).as_bytes()).unwrap();
        assert_eq!(stop_event.kind, EventKind::Stop);
        // Not read unless the STEP check needs it.
        assert_eq!(
            crate::agent::final_answer(&stop_event, false),
            (String::new(), None)
        );
        assert_eq!(
            crate::agent::final_answer(&stop_event, true),
            ("Done.\n<!-- STEP: done -->".to_owned(), None)
        );
        // No transcript: the answer is unknown, and said so.
        let missing = decode(stop(&dir.path().join("nope.jsonl")).as_bytes()).unwrap();
        assert!(crate::agent::final_answer(&missing, true).1.is_some());
        // A transcript not yet written up to this Stop: an older answer is not taken.
        let (older, _) = TRANSCRIPT.split_once(r#"{"type":"hook.start""#).unwrap();
        std::fs::write(&transcript, older).unwrap();
        let started = std::time::Instant::now();
        let (late, broken) = crate::agent::final_answer(&stop_event, true);
        assert!(late.is_empty() && broken.is_some());
        assert!(started.elapsed() >= TRANSCRIPT_WAIT);
    }

    #[test]
    fn answers_in_copilot_form_and_nothing_is_lost() {
        assert_eq!(
            encode(&HookOutput::deny("R".into()), Some(EventKind::PreToolUse)),
            r#"{"permissionDecision":"deny","permissionDecisionReason":"R"}"#
        );
        assert_eq!(
            encode(&HookOutput::ask("R".into()), Some(EventKind::PreToolUse)),
            r#"{"permissionDecision":"deny","permissionDecisionReason":"R"}"#
        );
        assert_eq!(
            encode(&HookOutput::block("R".into()), Some(EventKind::Stop)),
            r#"{"decision":"block","reason":"R"}"#
        );
        assert_eq!(
            encode(
                &HookOutput::block("R".into()).with_context("PostToolUse", "C"),
                Some(EventKind::PostToolUse)
            ),
            r#"{"decision":"block","reason":"R\n\nC"}"#
        );
        assert_eq!(
            encode(
                &HookOutput::context("SessionStart", "C"),
                Some(EventKind::SessionStart)
            ),
            r#"{"additionalContext":"C"}"#
        );
        assert_eq!(
            encode(
                &HookOutput::block("R".into()),
                Some(EventKind::PostToolUseFailure)
            ),
            r#"{"additionalContext":"R"}"#
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
        assert_eq!(encode(&HookOutput::default(), None), "{}");
    }
}
