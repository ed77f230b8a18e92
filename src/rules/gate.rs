//! Rules of the gates themselves rather than of an ADR's text: the STEP marker the
//! hook requires at the end of an answer, the checks the approval applies to a
//! reviewer's verdict, and the id under which a failure of helix-gate or of the
//! reviewer is reported.
//!
//! Their checks live with the gate that applies them (`hook`, `approval`); they are
//! declared here so `helix-gate explain` knows every id those gates write into
//! their answers, the decision log and the approval records, and so the gates name
//! them by these constants instead of string literals.

declare_rules! {
    /// ## What it does
    /// At Stop, when `step_marker.enabled` is set in config/helix-gate.yaml (and, when
    /// `step_marker.paths` lists globs, only in sessions whose working directory matches one of
    /// them, e.g. `projects/sessions/**`), requires the
    /// assistant's last answer to end with exactly one `<!-- STEP: <step> -->` line whose step is
    /// one of `step_marker.steps` (default: what, why, constraints, generate, finalize, done).
    /// Only whitespace may follow the marker. The hook blocks the Stop with the format and an
    /// example; it is also the budget target `step-marker` in the session state and the log.
    ///
    /// ## Why
    /// The HELIX workflow reads the marker to know which step the consultant finished; a missing,
    /// misplaced or unknown marker leaves the next step to guesswork.
    ///
    /// ## Example
    /// ```markdown
    /// The ADR is saved as adr/038-response-enforcement.md.
    ///
    /// <!-- STEP: generate -->
    /// ```
    ///
    /// ## Fix
    /// Repeat the answer unchanged and end it with one marker line. When the retry budget
    /// (`hook.budget`) is spent, helix-gate escalates to the user and appends a heuristic marker
    /// to `step_marker.fallback_file` (relative to the session's working directory) when that file
    /// exists; the decision log says which step and why.
    pub const STEP_MARKER {
        id: "step-marker",
        severity: Error,
        category: Gate,
        summary: "the last answer does not end with a <!-- STEP: ... --> marker",
    }

    /// ## What it does
    /// Labels a failure of helix-gate itself or of the reviewer it started: a timeout, the cost
    /// cap, output that is not a valid verdict, a missing `claude` command. The approval records
    /// it as an `error` finding with `check: infrastructure` and `source: helix-gate`, gives
    /// `result: rejected` and exits with 2; `infrastructure_failure` names the kind of failure.
    ///
    /// ## Why
    /// A broken tool must never look like a problem of the ADR: nobody should change a document
    /// because a reviewer timed out. It is never a judgement of the reviewed file, and no
    /// approval was given.
    ///
    /// ## Fix
    /// Follow the recommendation in the result (install Claude Code, raise `timeout` or
    /// `max_budget_usd` in config/approvals.yaml, or read the reviewer's raw output in the run
    /// folder), then run the approval again. Do not edit the ADR because of it.
    pub const INFRASTRUCTURE {
        id: "infrastructure",
        severity: Error,
        category: Gate,
        summary: "helix-gate or the reviewer failed; not a problem of the ADR",
    }

    /// ## What it does
    /// Turns a reviewer's `approved` into `needs_revision` when the reviewer also reported an
    /// `error` finding, and records why with this finding (`source: helix-gate`).
    ///
    /// ## Why
    /// An approval that names an error contradicts itself; helix-gate takes the error seriously
    /// rather than the verdict.
    ///
    /// ## Fix
    /// Fix the reviewer's error findings and run the approval again.
    pub const VERDICT_INCONSISTENT {
        id: "verdict",
        severity: Error,
        category: Gate,
        summary: "the reviewer approved but reported an error finding",
    }

    /// ## What it does
    /// Turns a reviewer's `approved` into `needs_revision` when its confidence is below
    /// `required_confidence` (config/approvals.yaml, default 0.8), and records why with this
    /// finding (`source: helix-gate`); the reviewer's answer is kept as `reviewer_result`.
    ///
    /// ## Why
    /// An unsure approval is not an approval; the threshold is the project's, not the
    /// reviewer's.
    ///
    /// ## Fix
    /// Make the ADR clearer where the reviewer hesitated and run the approval again, or change
    /// `required_confidence` for the approval type.
    pub const CONFIDENCE_TOO_LOW {
        id: "confidence",
        severity: Error,
        category: Gate,
        summary: "the reviewer approved with a confidence below required_confidence",
    }

    /// ## What it does
    /// `helix-gate doctor` warns when helix-gate's Stop hook in `.claude/settings.json`,
    /// `.claude/settings.local.json` or `~/.claude/settings.json` has a `timeout` below what
    /// config/approvals.yaml needs: the largest `timeout` of an enabled approval type plus 60 s
    /// (90 s when no type is enabled). With `CLAUDE_PLUGIN_ROOT` set (the plugin's folder), it
    /// also checks the plugin's `hooks/hooks.json`, whose Stop timeout is fixed (360 s).
    ///
    /// ## Why
    /// Claude Code cancels a hook at its timeout without a word, and the stop goes through
    /// unreviewed. The Stop hook keeps its deadline below the installed timeout and stops a
    /// review that cannot finish in time, so a too short timeout means reviews that never end
    /// with a verdict.
    ///
    /// ## Example
    /// `approvals.adr.timeout: 900` with a Stop hook registered with `"timeout": 360`.
    ///
    /// ## Fix
    /// Run `helix-gate install claude` again (with the same `--scope`): it sets the Stop
    /// timeout from config/approvals.yaml. With the plugin, keep the approval timeouts at or
    /// below 300 s, or register the hooks with `helix-gate install claude` instead.
    pub const STOP_TIMEOUT {
        id: "stop-timeout",
        severity: Warning,
        category: Gate,
        summary: "the installed Stop hook timeout is shorter than a review may take",
    }
}
