//! The retry lines: each block the hook gives (a save at `PostToolUse`, a Stop)
//! can also reach the person as one `helix-gate retry: <target> attempt N/M:
//! <rules>` line in the answer's `systemMessage` (seed 003, Pattern 4: every
//! retry visible to the orchestrator as it happens). In `stream-json` a Stop
//! block shows only as Claude Code's "stop hook error" and a `PostToolUse` block
//! not at all; a `systemMessage` is streamed as it is.
//!
//! Added to the finished ruling in one place, from its block decisions (each
//! knows its attempt and budget, [`Decision::retry_of`]), so that every path
//! that blocks (Write, Edit, Bash, `apply_patch`, phase plans, the Stop's budget
//! and its reviews) gets it. Only a block reads the settings again.

use std::path::Path;

use super::ctx::Context;

use super::ruling::Ruling;
use super::{project, step_marker};
use crate::agent::event::{EventKind, HookEvent};
use crate::agent::output::retry_line;
use crate::decision_log::{Decision, Verdict};

/// Add one retry line per retried target to a blocking `ruling`, when
/// `hook.retry_lines` asks for them (unset: where the STEP marker is required).
pub(super) fn add_lines(event: &HookEvent, root: &Path, ctx: &Context, ruling: &mut Ruling) {
    if !matches!(
        event.kind,
        EventKind::PostToolUse | EventKind::PostToolUseFailure | EventKind::Stop
    ) || ruling.output.as_ref().and_then(|o| o.decision) != Some("block")
    {
        return;
    }
    let lines = lines(&ruling.decisions);
    if lines.is_empty() {
        return;
    }
    let Ok(settings) = ctx.settings() else {
        return;
    };
    let wanted = settings.hook.retry_lines.unwrap_or_else(|| {
        step_marker::required_in(
            &settings.step_marker,
            root,
            &project::session_folders(event),
        )
    });
    if !wanted {
        return;
    }
    if let Some(output) = ruling.output.take() {
        ruling.output = Some(output.add_message(lines.join("\n")));
    }
}

/// The retry lines of these decisions: one per blocked target with a budget.
fn lines(decisions: &[Decision]) -> Vec<String> {
    decisions
        .iter()
        .filter(|d| d.verdict == Verdict::Block && d.retry_of > 0)
        .map(|d| retry_line(&d.target, d.attempt, d.retry_of, &d.rules))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_retried_block() {
        let block = |target: &str, attempt, retry_of| Decision {
            target: target.into(),
            verdict: Verdict::Block,
            rules: vec!["step-marker".into()],
            attempt,
            retry_of,
            ..Decision::default()
        };
        let decisions = [
            block("step-marker", 2, 3),
            // A block that is no retry (a write into .helix-gate/): no line.
            block(".helix-gate/x", 0, 0),
            Decision {
                verdict: Verdict::Escalate,
                ..block("adr/1.md", 4, 3)
            },
        ];
        assert_eq!(
            lines(&decisions),
            ["helix-gate retry: step-marker attempt 2/3: step-marker"]
        );
    }
}
