//! Codex CLI's hook protocol (observed with `@openai/codex` 0.169.0,
//! `../shared/agent-hooks.md`).
//!
//! **In.** The envelope is Claude Code's (`hook_event_name`, `session_id`,
//! `cwd`, `tool_name`, `tool_input`, `stop_hook_active`,
//! `last_assistant_message`; plus `turn_id`, `model`, `permission_mode`, which
//! nothing here needs), so the shared decoder reads it. Two tools matter:
//! shell commands arrive as `tool_name: "Bash"` with `tool_input.command`
//! (Codex maps its `exec_command` onto that name), and every file edit as
//! `tool_name: "apply_patch"` with the raw patch in `tool_input.command` and no
//! `file_path`: its paths are read from the patch here ([`crate::agent::patch`]).
//! There is no `PostToolUseFailure` (a failing command fires `PostToolUse`)
//! and no project-directory variable.
//!
//! **Out.** Codex's output schemas are closed (`additionalProperties: false`,
//! `tests/fixtures/codex/*.command.output.schema.json`, extracted from the
//! pinned client), and it rejects some fields the schemas allow at run time
//! (`permissionDecision: ask`, a `reason` without `decision`). A rejected
//! answer is logged by Codex as a failed hook and the action proceeds: a
//! silent pass. So [`encode`] keeps to what each event accepts, and whatever
//! an event cannot carry is moved into `systemMessage` (shown to the person),
//! never dropped.

use crate::agent::event::{self, DecodeError, EventKind, HookEvent};
use crate::agent::name::Agent;
use crate::agent::output::{HookOutput, HookSpecific};
use crate::agent::patch;

/// Codex's one file-editing tool.
pub(crate) const APPLY_PATCH: &str = "apply_patch";

/// Decode a Codex event: the shared envelope, and an `apply_patch` call's paths.
pub(super) fn decode(bytes: &[u8]) -> Result<HookEvent, DecodeError> {
    let mut event = event::decode(bytes)?;
    event.agent = Agent::Codex;
    if event.tool_name.as_deref() == Some(APPLY_PATCH) {
        let broken = event
            .broken("tool_input")
            .or_else(|| event.broken("tool_input.command"))
            .map(ToString::to_string);
        event.patch = Some(match (broken, event.command.as_deref()) {
            (Some(broken), _) => Err(broken),
            (None, Some(text)) => patch::parse(text).map_err(|e| e.to_string()),
            (None, None) => Err(format!(
                "the {} event of apply_patch has no tool_input.command (the patch)",
                event.hook_event_name
            )),
        });
    }
    Ok(event)
}

/// What the answer to one event may carry, beyond `systemMessage` (which
/// every Codex event accepts).
#[derive(Debug, Clone, Copy)]
struct Accepts {
    /// `decision: "block"` with a non-blank `reason`.
    block: bool,
    /// `hookSpecificOutput` with `additionalContext`, named after this event.
    context: Option<&'static str>,
    /// `hookSpecificOutput.permissionDecision: "deny"` (`PreToolUse`).
    deny: bool,
}

impl Accepts {
    fn of(kind: Option<EventKind>) -> Accepts {
        let only_message = Accepts {
            block: false,
            context: None,
            deny: false,
        };
        match kind {
            Some(EventKind::PreToolUse) => Accepts {
                block: true,
                context: Some("PreToolUse"),
                deny: true,
            },
            Some(EventKind::PostToolUse) => Accepts {
                block: true,
                context: Some("PostToolUse"),
                deny: false,
            },
            Some(EventKind::UserPromptSubmit) => Accepts {
                block: true,
                context: Some("UserPromptSubmit"),
                deny: false,
            },
            Some(EventKind::SessionStart) => Accepts {
                context: Some("SessionStart"),
                ..only_message
            },
            // No hookSpecificOutput at all: additionalContext would make the
            // whole answer invalid.
            Some(EventKind::Stop | EventKind::SubagentStop) => Accepts {
                block: true,
                ..only_message
            },
            // Codex sends no PostToolUseFailure; for it, and for every event
            // helix-gate does not answer, only the message is safe.
            Some(EventKind::PostToolUseFailure | EventKind::Other) | None => only_message,
        }
    }
}

/// `output` as the one JSON line Codex accepts for an event of `kind`.
pub(super) fn encode(output: &HookOutput, kind: Option<EventKind>) -> String {
    let accepts = Accepts::of(kind);
    let mut for_person: Vec<String> = Vec::new();
    let mut out = HookOutput {
        decision: None,
        reason: None,
        hook_specific: None,
        system_message: output.system_message.clone(),
    };
    // A block needs a non-blank reason (Codex: "decision:block without a
    // non-empty reason" fails the hook); a reason alone is rejected too.
    let reason = output.reason.clone().filter(|r| !r.trim().is_empty());
    match (output.decision, reason) {
        (Some("block"), Some(reason)) if accepts.block => {
            out.decision = Some("block");
            out.reason = Some(reason);
        }
        (_, reason) => for_person.extend(reason),
    }
    if let Some(specific) = &output.hook_specific {
        let refusal = specific.permission_decision.is_some_and(|d| d != "allow");
        if refusal && accepts.deny {
            // `ask` is not supported by Codex: the call is refused, and the
            // reason says what the person can do.
            out.hook_specific = Some(HookSpecific {
                event: "PreToolUse".to_owned(),
                permission_decision: Some("deny"),
                permission_decision_reason: Some(
                    specific
                        .permission_decision_reason
                        .clone()
                        .filter(|r| !r.trim().is_empty())
                        .unwrap_or_else(|| "helix-gate refused this tool call".to_owned()),
                ),
                additional_context: None,
            });
        } else if refusal {
            for_person.extend(specific.permission_decision_reason.clone());
        }
        if let Some(context) = &specific.additional_context {
            match accepts.context {
                Some(event) => {
                    let target = out.hook_specific.get_or_insert_with(|| HookSpecific {
                        event: event.to_owned(),
                        ..HookSpecific::default()
                    });
                    target.additional_context = Some(context.clone());
                }
                None => for_person.push(context.clone()),
            }
        }
    }
    for text in for_person {
        out = out.add_message(text);
    }
    out.to_json_line()
}

/// Codex's name of the event of `kind`: Claude Code's, and Codex has no
/// `PostToolUseFailure` (a failing command fires `PostToolUse`).
pub(super) fn event_name(kind: EventKind) -> Option<&'static str> {
    kind.name()
        .filter(|_| kind != EventKind::PostToolUseFailure)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::patch::Change;

    /// Payloads recorded from Codex CLI 0.169.0 (`codex exec` against a fake
    /// Responses API, hooks from `.codex/hooks.json`).
    const PRE_PATCH: &str = r#"{"session_id":"01a21868-9037-7962-9159-b2051e5f78fc","turn_id":"01a21868-9051-73c0-9df2-d57376534ea4","transcript_path":"/h/sessions/2026/11/26/rollout.jsonl","cwd":"/tmp/cx/run1/repo","hook_event_name":"PreToolUse","model":"gpt-5.5","permission_mode":"bypassPermissions","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch\n"},"tool_use_id":"call_1"}"#;
    const POST_MOVE: &str = r#"{"session_id":"s","turn_id":"t","transcript_path":"/h/r.jsonl","cwd":"/tmp/cx/run2/repo","hook_event_name":"PostToolUse","model":"gpt-5.5","permission_mode":"bypassPermissions","tool_name":"apply_patch","tool_input":{"command":"*** Begin Patch\n*** Update File: sub/m.txt\n*** Move to: moved/n.txt\n@@\n-m\n+n\n*** End Patch\n"},"tool_response":"Exit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM moved/n.txt\n","tool_use_id":"call_3"}"#;
    const POST_BASH: &str = r#"{"session_id":"s","turn_id":"t","transcript_path":"/h/r.jsonl","cwd":"/tmp/cx/run2/repo","hook_event_name":"PostToolUse","model":"gpt-5.5","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"exit 3"},"tool_response":"","tool_use_id":"call_5"}"#;
    const STOP: &str = r#"{"session_id":"s","turn_id":"t","transcript_path":"/h/r.jsonl","cwd":"/tmp/cx/run1/repo","hook_event_name":"Stop","model":"gpt-5.5","permission_mode":"bypassPermissions","stop_hook_active":false,"last_assistant_message":"done"}"#;

    #[test]
    fn recorded_payloads_decode_with_the_patch_paths() {
        let pre = decode(PRE_PATCH.as_bytes()).unwrap();
        assert_eq!(pre.agent, Agent::Codex);
        assert_eq!(pre.kind, EventKind::PreToolUse);
        let touched = pre.patch.clone().unwrap().unwrap();
        assert_eq!(
            (touched[0].path.as_str(), touched[0].change),
            ("hello.txt", Change::Add)
        );
        let moved = decode(POST_MOVE.as_bytes())
            .unwrap()
            .patch
            .unwrap()
            .unwrap();
        let moved: Vec<_> = moved.iter().map(|t| (t.path.as_str(), t.change)).collect();
        assert_eq!(
            moved,
            [
                ("sub/m.txt", Change::MovedAway),
                ("moved/n.txt", Change::MovedTo)
            ]
        );
        let bash = decode(POST_BASH.as_bytes()).unwrap();
        assert_eq!(
            (bash.tool_name.as_deref(), bash.command.as_deref()),
            (Some("Bash"), Some("exit 3"))
        );
        assert!(bash.patch.is_none());
        let stop = decode(STOP.as_bytes()).unwrap();
        assert_eq!(
            (stop.kind, stop.last_assistant_message.as_deref()),
            (EventKind::Stop, Some("done"))
        );
        assert!(
            decode(
                br#"{"hook_event_name":"PostToolUse","tool_name":"apply_patch","tool_input":{}}"#
            )
            .unwrap()
            .patch
            .unwrap()
            .is_err()
        );
    }

    /// Codex's output schema for an event of `kind`, and its wire name.
    fn schema(kind: EventKind) -> (&'static str, serde_json::Value) {
        let (name, text) = match kind {
            EventKind::PreToolUse => (
                "pre-tool-use",
                include_str!(
                    "../../../tests/fixtures/codex/pre-tool-use.command.output.schema.json"
                ),
            ),
            EventKind::PostToolUse | EventKind::PostToolUseFailure => (
                "post-tool-use",
                include_str!(
                    "../../../tests/fixtures/codex/post-tool-use.command.output.schema.json"
                ),
            ),
            EventKind::Stop => (
                "stop",
                include_str!("../../../tests/fixtures/codex/stop.command.output.schema.json"),
            ),
            EventKind::SubagentStop => (
                "subagent-stop",
                include_str!(
                    "../../../tests/fixtures/codex/subagent-stop.command.output.schema.json"
                ),
            ),
            EventKind::SessionStart => (
                "session-start",
                include_str!(
                    "../../../tests/fixtures/codex/session-start.command.output.schema.json"
                ),
            ),
            EventKind::UserPromptSubmit => (
                "user-prompt-submit",
                include_str!(
                    "../../../tests/fixtures/codex/user-prompt-submit.command.output.schema.json"
                ),
            ),
            // The narrowest of Codex's schemas: an event helix-gate does not answer.
            EventKind::Other => (
                "interrupt",
                include_str!("../../../tests/fixtures/codex/interrupt.command.output.schema.json"),
            ),
        };
        (name, serde_json::from_str(text).unwrap())
    }

    /// Every shape of answer helix-gate builds (the constructors of `HookOutput`
    /// and their combinations in `hook::*`), named for the failure message.
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
                "context of SessionStart",
                HookOutput::context("SessionStart", "C"),
            ),
            (
                "message + context of UserPromptSubmit",
                HookOutput::message(r()).with_context("UserPromptSubmit", "C"),
            ),
            (
                "block + context",
                HookOutput::block(r()).with_context("PostToolUse", "C"),
            ),
            ("empty", HookOutput::default()),
        ]
    }

    #[test]
    fn every_answer_for_every_event_is_valid_for_codex() {
        let kinds = [
            EventKind::PreToolUse,
            EventKind::PostToolUse,
            EventKind::PostToolUseFailure,
            EventKind::Stop,
            EventKind::SubagentStop,
            EventKind::SessionStart,
            EventKind::UserPromptSubmit,
            EventKind::Other,
        ];
        // The validator bites: Claude Code's forms that Codex rejects.
        let stop = jsonschema::draft7::new(&schema(EventKind::Stop).1).unwrap();
        let claude_stop_context: serde_json::Value = serde_json::from_str(
            &HookOutput::message("M".into())
                .with_context("Stop", "C")
                .to_json_line(),
        )
        .unwrap();
        assert!(!stop.is_valid(&claude_stop_context));
        let pre = jsonschema::draft7::new(&schema(EventKind::PreToolUse).1).unwrap();
        let wrong_event: serde_json::Value =
            serde_json::from_str(&HookOutput::context("PostToolUse", "C").to_json_line()).unwrap();
        assert!(!pre.is_valid(&wrong_event));
        for kind in kinds {
            let (name, schema) = schema(kind);
            let validator = jsonschema::draft7::new(&schema).unwrap();
            for (shape, output) in every_answer() {
                for known in [Some(kind), None] {
                    let line = encode(&output, known);
                    let value: serde_json::Value = serde_json::from_str(&line).unwrap();
                    let errors: Vec<String> = validator
                        .iter_errors(&value)
                        .map(|e| e.to_string())
                        .collect();
                    assert!(
                        errors.is_empty(),
                        "{shape} for {kind:?} (known: {}) is not a valid {name} answer: {line}\n{errors:#?}",
                        known.is_some()
                    );
                    // Codex's rules beyond the schema (codex-rs/hooks output parsing).
                    assert!(
                        value.get("reason").is_none() || value["decision"] == "block",
                        "{shape}: a reason without decision is rejected: {line}"
                    );
                    if value["decision"] == "block" {
                        assert!(
                            value["reason"]
                                .as_str()
                                .is_some_and(|r| !r.trim().is_empty()),
                            "{shape}: a block needs a non-blank reason: {line}"
                        );
                    }
                    assert_ne!(
                        value.pointer("/hookSpecificOutput/permissionDecision"),
                        Some(&serde_json::json!("ask")),
                        "{shape}: Codex rejects ask: {line}"
                    );
                }
            }
        }
    }

    #[test]
    fn nothing_is_lost_where_an_event_cannot_carry_it() {
        // Stop takes no hookSpecificOutput: the context goes to the person.
        let stop = encode(
            &HookOutput::message("M".into()).with_context("Stop", "C"),
            Some(EventKind::Stop),
        );
        assert_eq!(stop, r#"{"systemMessage":"M\nC"}"#);
        // SessionStart takes no decision: the reason goes to the person.
        assert_eq!(
            encode(
                &HookOutput::block("R".into()),
                Some(EventKind::SessionStart)
            ),
            r#"{"systemMessage":"R"}"#
        );
        // ask becomes deny, with the reason for the model.
        assert_eq!(
            encode(&HookOutput::ask("R".into()), Some(EventKind::PreToolUse)),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}"#
        );
        // The forms Codex and Claude Code share stay identical.
        for (output, kind) in [
            (HookOutput::block("R".into()), EventKind::PostToolUse),
            (HookOutput::block("R".into()), EventKind::Stop),
            (HookOutput::deny("R".into()), EventKind::PreToolUse),
            (
                HookOutput::context("PostToolUse", "C").with_message("M".into()),
                EventKind::PostToolUse,
            ),
            (HookOutput::message("M".into()), EventKind::Stop),
        ] {
            assert_eq!(encode(&output, Some(kind)), output.to_json_line());
        }
    }
}
