//! Encoding a decision as the JSON Claude Code acts on (section 4 of the reference).
//!
//! Stdout carries exactly one JSON object or nothing: any other line makes
//! Claude Code treat the answer as plain text and drop the decision.

use serde::Serialize;

use crate::text::truncate;

/// Claude Code's additionalContext is inlined up to 10 000 characters; longer
/// text is saved to a file and only a 2 KB preview reaches the model.
pub const MAX_CONTEXT_CHARS: usize = 9_500;

/// The fixed start of every escalation line in a `systemMessage`: the contract
/// with orchestrators (docs/src/orchestrators.md). Never change it.
pub const ESCALATION_PREFIX: &str = "helix-gate escalation:";

/// The fixed start of every retry line in a `systemMessage`: each block the hook
/// gives, for the person (docs/src/orchestrators.md). Never change it.
pub const RETRY_PREFIX: &str = "helix-gate retry:";

/// One block as one line, in the documented format:
///
/// `helix-gate retry: <target> attempt <n>/<m>: <rules>`
///
/// `target` is the file (repository-relative), `step-marker`, or `-`; `rules` the
/// rule ids joined by `,`, or `-`. Line breaks in any part become spaces.
pub fn retry_line(target: &str, attempt: u32, of: u32, rules: &[String]) -> String {
    format!(
        "{RETRY_PREFIX} {} attempt {attempt}/{of}: {}",
        line_target(target),
        line_rules(rules)
    )
}

/// `text` on one line: every run of white space (line breaks too) one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The rule ids of a retry or escalation line: sorted, once each, joined by `,`; `-` for none.
fn line_rules(rules: &[String]) -> String {
    let mut ids: Vec<&str> = rules.iter().map(String::as_str).collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        "-".to_owned()
    } else {
        one_line(&ids.join(","))
    }
}

/// The target of a retry or escalation line: the file on one line, `-` for none.
fn line_target(target: &str) -> String {
    if target.is_empty() {
        "-".to_owned()
    } else {
        one_line(target)
    }
}

/// What escalated; the second word of an escalation line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EscalationKind {
    /// A file's retry budget is spent (on a save or at Stop): no more blocks.
    Budget,
    /// The STEP marker's budget is spent: the heuristic fallback was applied.
    StepMarker,
    /// A reviewer's refusal was escalated: no further review in this session.
    Review,
    /// helix-gate or the reviewer could not decide; under fail-open the check is skipped.
    Infrastructure,
}

impl EscalationKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EscalationKind::Budget => "budget",
            EscalationKind::StepMarker => "step-marker",
            EscalationKind::Review => "review",
            EscalationKind::Infrastructure => "infrastructure",
        }
    }
}

/// One escalation as one line, in the documented format:
///
/// `helix-gate escalation: <kind> <target>: <rules> after <attempts>; <what happens now>`
///
/// `target` is the file (repository-relative) or `-`; `rules` the rule ids joined
/// by `,` or `-`; `attempts` e.g. `attempt 3/3` or `review 4 of 4` (never past the budget). Line breaks in
/// any part become spaces, so one escalation is always one line.
pub fn escalation_line(
    kind: EscalationKind,
    target: &str,
    rules: &[String],
    attempts: &str,
    next: &str,
) -> String {
    format!(
        "{ESCALATION_PREFIX} {} {}: {} after {}; {}",
        kind.as_str(),
        line_target(target),
        line_rules(rules),
        one_line(attempts),
        one_line(next)
    )
}

/// One hook answer. `None` fields are omitted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HookOutput {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decision: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(rename = "hookSpecificOutput", skip_serializing_if = "Option::is_none")]
    pub hook_specific: Option<HookSpecific>,
    /// Shown to the user, never to the model.
    #[serde(rename = "systemMessage", skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HookSpecific {
    /// Must equal the event, or Claude Code ignores the context.
    #[serde(rename = "hookEventName")]
    pub event: String,
    #[serde(rename = "additionalContext", skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// `PreToolUse` only: `deny` keeps the tool from running.
    #[serde(rename = "permissionDecision", skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<&'static str>,
    /// What the model reads as `PreToolUse:<tool> hook error: <reason>`.
    #[serde(
        rename = "permissionDecisionReason",
        skip_serializing_if = "Option::is_none"
    )]
    pub permission_decision_reason: Option<String>,
}

impl HookOutput {
    /// Block: `PostToolUse` and Stop send `reason` to the model.
    pub fn block(reason: String) -> Self {
        HookOutput {
            decision: Some("block"),
            reason: Some(reason),
            ..HookOutput::default()
        }
    }

    /// Context for the model without blocking.
    pub fn context(event: &str, text: &str) -> Self {
        HookOutput {
            hook_specific: Some(HookSpecific {
                event: event.to_owned(),
                additional_context: Some(truncate(text, MAX_CONTEXT_CHARS)),
                ..HookSpecific::default()
            }),
            ..HookOutput::default()
        }
    }

    /// `PreToolUse`: the tool does not run; the model gets `reason` as the tool's error.
    pub fn deny(reason: String) -> Self {
        HookOutput {
            hook_specific: Some(HookSpecific {
                event: "PreToolUse".to_owned(),
                permission_decision: Some("deny"),
                permission_decision_reason: Some(reason),
                ..HookSpecific::default()
            }),
            ..HookOutput::default()
        }
    }

    /// `PreToolUse`: the person is asked whether the tool may run (Claude Code
    /// shows `reason`); where nobody can be asked (`-p`), the tool does not run
    /// and the model gets `reason`.
    pub fn ask(reason: String) -> Self {
        HookOutput {
            hook_specific: Some(HookSpecific {
                event: "PreToolUse".to_owned(),
                permission_decision: Some("ask"),
                permission_decision_reason: Some(reason),
                ..HookSpecific::default()
            }),
            ..HookOutput::default()
        }
    }

    /// A message for the user only.
    pub fn message(text: String) -> Self {
        HookOutput {
            system_message: Some(text),
            ..HookOutput::default()
        }
    }

    #[must_use]
    pub fn with_message(mut self, text: String) -> Self {
        self.system_message = Some(text);
        self
    }

    /// Add `text` for the user, after a message already there.
    #[must_use]
    pub fn add_message(mut self, text: String) -> Self {
        self.system_message = Some(match self.system_message.take() {
            Some(first) if !first.is_empty() => format!("{first}\n{text}"),
            _ => text,
        });
        self
    }

    #[must_use]
    pub fn with_context(mut self, event: &str, text: &str) -> Self {
        self.hook_specific = HookOutput::context(event, text).hook_specific;
        self
    }

    /// The single line written to stdout.
    pub fn to_json_line(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_match_the_observed_forms() {
        assert_eq!(
            HookOutput::block("R".into()).to_json_line(),
            r#"{"decision":"block","reason":"R"}"#
        );
        assert_eq!(
            HookOutput::context("PostToolUse", "C").to_json_line(),
            r#"{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"C"}}"#
        );
        assert_eq!(
            HookOutput::deny("R".into()).to_json_line(),
            r#"{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}"#
        );
        assert_eq!(
            HookOutput::message("M".into()).to_json_line(),
            r#"{"systemMessage":"M"}"#
        );
        let both = HookOutput::message("M".into()).with_context("Stop", "C");
        let v: serde_json::Value = serde_json::from_str(&both.to_json_line()).unwrap();
        assert_eq!(v["hookSpecificOutput"]["hookEventName"], "Stop");
        assert_eq!(v["systemMessage"], "M");
    }

    #[test]
    fn an_escalation_is_one_line_in_the_documented_format() {
        let line = escalation_line(
            EscalationKind::Budget,
            "adr/001-x.md",
            &["sections.required".into(), "a.b".into(), "a.b".into()],
            "attempt 3/3",
            "no longer blocked;\nrun `helix-gate validate adr/001-x.md`",
        );
        assert_eq!(
            line,
            "helix-gate escalation: budget adr/001-x.md: a.b,sections.required after attempt 3/3; no longer blocked; run `helix-gate validate adr/001-x.md`"
        );
        assert!(
            escalation_line(
                EscalationKind::Infrastructure,
                "",
                &[],
                "1 failure",
                "skipped"
            )
            .starts_with("helix-gate escalation: infrastructure -: - after 1 failure;")
        );
    }

    #[test]
    fn a_retry_is_one_line_in_the_documented_format() {
        assert_eq!(
            retry_line(
                "adr/001-x.md",
                2,
                3,
                &["sections.required".into(), "a.b".into(), "a.b".into()]
            ),
            "helix-gate retry: adr/001-x.md attempt 2/3: a.b,sections.required"
        );
        assert_eq!(
            retry_line("a\nb.md", 1, 4, &[]),
            "helix-gate retry: a b.md attempt 1/4: -"
        );
    }

    #[test]
    fn long_context_is_cut_below_the_inline_limit() {
        let long = "x".repeat(20_000);
        let out = HookOutput::context("PostToolUse", &long);
        assert!(
            out.hook_specific
                .unwrap()
                .additional_context
                .unwrap()
                .chars()
                .count()
                <= MAX_CONTEXT_CHARS
        );
        assert_eq!(truncate("äöü", 2), "ä…");
    }
}
