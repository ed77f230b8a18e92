//! Running a phase of a `phases.yaml`: the plan is read and checked, the phases it
//! `depends_on` are judged first (`Dependencies`), then the phase's gates run through
//! [`run_gate_with`]; and the plan checks that need the project.

use std::path::{Path, PathBuf};

use super::gates::{Ctx, GateError, MAX_FILE, PhaseFiles, Reviewer, count, run_gate_with};
use crate::approval;
use crate::config::plan::{Gate, Phase, Plan};
use crate::diagnostic::{Finding, Severity};
use crate::render::gate::{Blocker, Outcome, PhaseResult};
use crate::rules::phases;

/// The project directory of a plan: its folder, or the folder above `output/`.
pub fn plan_base(plan: &Path) -> PathBuf {
    let dir = crate::paths::absolute(plan)
        .parent()
        .map_or_else(|| PathBuf::from("/"), Path::to_path_buf);
    if dir.file_name().is_some_and(|n| n == "output")
        && let Some(parent) = dir.parent()
    {
        return parent.to_path_buf();
    }
    dir
}

/// How many phases deep `depends_on` is followed; a longer chain blocks the phase.
const MAX_DEPTH: usize = 32;

/// Whether the phases a phase `depends_on` pass: each dependency's own dependencies
/// first, then its gates, run now with the reviewer as [`Reviewer::CacheOnly`]. Each
/// phase is judged once per run (a diamond of dependencies costs one run each), and a
/// cycle ends at the first phase met again, which counts as passing on that path (its
/// own gates still decide where it is run).
struct Dependencies<'a> {
    root: &'a Path,
    base: &'a Path,
    plan: &'a Plan,
    /// Phase id -> why it fails (None: it passes), for phases judged already.
    judged: std::collections::HashMap<String, Option<String>>,
    /// The phases being judged now (the path from the phase run).
    open: std::collections::HashSet<String>,
}

impl<'a> Dependencies<'a> {
    fn new(root: &'a Path, base: &'a Path, plan: &'a Plan) -> Self {
        Dependencies {
            root,
            base,
            plan,
            judged: std::collections::HashMap::new(),
            open: std::collections::HashSet::new(),
        }
    }

    /// The dependencies of `phase` that fail, each with why.
    fn blockers(&mut self, phase: &Phase) -> Vec<Blocker> {
        self.open.insert(phase.id.clone());
        let mut out: Vec<Blocker> = Vec::new();
        for dep in &phase.depends_on {
            if out.iter().any(|b| &b.phase == dep) {
                continue;
            }
            if let Some(reason) = self.fails(dep, 1) {
                out.push(Blocker {
                    phase: dep.clone(),
                    reason,
                });
            }
        }
        out
    }

    /// Why phase `id` fails now; None when it passes (or is on the current path).
    fn fails(&mut self, id: &str, depth: usize) -> Option<String> {
        if let Some(known) = self.judged.get(id) {
            return known.clone();
        }
        if self.open.contains(id) {
            return None;
        }
        let plan = self.plan;
        // The plan check reported a dependency that names no phase.
        let phase = plan.phases.iter().find(|p| p.id == id)?;
        let why = if depth > MAX_DEPTH {
            Some(format!(
                "depends_on is followed at most {MAX_DEPTH} phases deep"
            ))
        } else {
            self.open.insert(id.to_owned());
            let why = phase
                .depends_on
                .iter()
                .find_map(|dep| self.fails(dep, depth + 1).map(|_| dep.clone()))
                .map(|dep| format!("blocked by phase `{dep}`"))
                .or_else(|| self.gates_fail(phase));
            self.open.remove(id);
            why
        };
        self.judged.insert(id.to_owned(), why.clone());
        why
    }

    /// Why the gates of `phase` fail when run now (without starting the reviewer).
    fn gates_fail(&self, phase: &Phase) -> Option<String> {
        let files = PhaseFiles {
            input: &phase.input,
            output: &phase.output,
        };
        let failing: Vec<String> = phase
            .gates
            .iter()
            .map(|gate| run_gate_with(self.root, self.base, gate, files, Reviewer::CacheOnly))
            .filter(|r| r.outcome() != Outcome::Passed)
            .map(|r| {
                let how = if r.outcome() == Outcome::Error {
                    "could not run"
                } else {
                    "failed"
                };
                format!("gate {} {how}: {}", r.gate_type, r.message)
            })
            .collect();
        (!failing.is_empty()).then(|| failing.join("; "))
    }
}

/// Run the gates of phase `phase_id` of the plan `plan` (after checking the plan).
pub fn run_phase(root: &Path, plan: &Path, phase_id: &str) -> PhaseResult {
    run_phase_with(root, plan, phase_id, Reviewer::Allowed)
}

/// [`run_phase`], with or without the reviewer.
pub fn run_phase_with(root: &Path, plan: &Path, phase_id: &str, reviewer: Reviewer) -> PhaseResult {
    let shown = crate::paths::display(root, &crate::paths::absolute(plan));
    let mut result = PhaseResult {
        passed: false,
        phase: phase_id.to_owned(),
        phases_file: shown.clone(),
        outcome: Outcome::Error,
        message: String::new(),
        findings: Vec::new(),
        blocked_by: Vec::new(),
        gates: Vec::new(),
    };
    // A plan inside the project that a link leads out of is not read: its gates
    // would run on what someone outside the project wrote (as for an ADR).
    if crate::engine::leaves_project(root, &crate::paths::absolute(plan)) {
        result.message =
            format!("cannot read {shown}: a symbolic link leads it outside the project; not read");
        return result;
    }
    let text = match crate::engine::read_limited(plan, MAX_FILE)
        .map_err(|e| e.to_string())
        .and_then(|bytes| String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_owned()))
    {
        Ok(text) => text,
        Err(why) => {
            result.message = format!("cannot read {shown}: {why}");
            return result;
        }
    };
    let (read, mut findings) = phases::check(&text);
    let base = plan_base(plan);
    if let Some(read) = &read
        && !findings.iter().any(|f| f.severity == Severity::Error)
    {
        match project_findings(root, &base, &text, read, Some(phase_id)) {
            Ok(more) => findings.extend(more),
            Err(why) => {
                result.message = why.to_string();
                return result;
            }
        }
    }
    result.findings = findings
        .into_iter()
        .map(|f| f.in_file(shown.clone()))
        .collect();
    let errors = count(&result.findings, Severity::Error);
    if errors > 0 {
        result.outcome = Outcome::Failed;
        result.message = format!(
            "{shown} fails {errors} check(s) of the phase plan; no gate was run (`helix-gate validate {shown}`)"
        );
        return result;
    }
    let Some(read) = read else {
        result.message = format!("{shown} has no phase `{phase_id}`");
        return result;
    };
    let Some(phase) = read.phases.iter().find(|p| p.id == phase_id) else {
        result.message = format!("{shown} has no phase `{phase_id}`");
        return result;
    };
    result.blocked_by = Dependencies::new(root, &base, &read).blockers(phase);
    if !result.blocked_by.is_empty() {
        blocked(&mut result);
        return result;
    }
    result.gates = phase
        .gates
        .iter()
        .map(|gate| {
            let files = PhaseFiles {
                input: &phase.input,
                output: &phase.output,
            };
            run_gate_with(root, &base, gate, files, reviewer)
        })
        .collect();
    result.outcome = result
        .gates
        .iter()
        .fold(Outcome::Passed, |acc, g| acc.and(g.outcome()));
    result.passed = result.outcome == Outcome::Passed;
    result.message = match result.gates.len() {
        0 => format!("phase `{phase_id}` has no quality gate"),
        n => format!(
            "phase `{phase_id}`: {} of {n} gate(s) passed",
            result.gates.iter().filter(|g| g.passed).count()
        ),
    };
    result
}

/// A phase whose dependencies `result.blocked_by` fail: failed, with a `phase-blocked`
/// finding for each, and no gate run.
fn blocked(result: &mut PhaseResult) {
    let named: Vec<String> = result
        .blocked_by
        .iter()
        .map(|b| format!("`{}` ({})", b.phase, b.reason))
        .collect();
    result.outcome = Outcome::Failed;
    result.message = format!(
        "phase `{}` is blocked: it depends on {}; its gates were not run",
        result.phase,
        named.join(", ")
    );
    let shown = &result.phases_file;
    result.findings = result
        .blocked_by
        .iter()
        .map(|b| {
            phases::BLOCKED
                .finding(format!(
                    "phase `{}` depends on phase `{}`, which fails: {}",
                    result.phase, b.phase, b.reason
                ))
                .in_file(shown.clone())
                .hint(format!(
                    "run `helix-gate gate --phases {shown} --phase {}` and fix what it reports",
                    b.phase
                ))
        })
        .collect();
}

/// The findings of the plan at `plan` that need its project, for every phase (what
/// `validate` adds to the plan's own checks, so that it reports what `gate --phase`
/// would for each phase). None when the plan cannot be read or fails its own checks
/// (they are `validate`'s already); `Err` when the approval settings cannot be read.
pub fn plan_project_findings(root: &Path, plan: &Path) -> Result<Vec<Finding>, GateError> {
    let Ok(text) = crate::engine::read_limited(plan, MAX_FILE)
        .map_err(|e| e.to_string())
        .and_then(|bytes| String::from_utf8(bytes).map_err(|_| String::new()))
    else {
        return Ok(Vec::new());
    };
    let (Some(read), findings) = phases::check(&text) else {
        return Ok(Vec::new());
    };
    if findings.iter().any(|f| f.severity == Severity::Error) {
        return Ok(Vec::new());
    }
    project_findings(root, &plan_base(plan), &text, &read, None)
}

/// The plan checks that need the project ([`phases::check_in_project`]): the approval
/// types of `config/approvals.yaml`, and the files below `base` the running phase's
/// approval inputs match. `Err` when the approval settings cannot be read.
fn project_findings(
    root: &Path,
    base: &Path,
    text: &str,
    plan: &Plan,
    running: Option<&str>,
) -> Result<Vec<Finding>, GateError> {
    let approvals = plan
        .phases
        .iter()
        .any(|p| p.gates.iter().any(|g| matches!(g, Gate::Approval { .. })));
    if !approvals {
        return Ok(Vec::new());
    }
    let types = approval::settings(root)
        .map_err(GateError::load)?
        .type_names()
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    let ctx = Ctx {
        root,
        base,
        reviewer: Reviewer::Withheld,
    };
    Ok(phases::check_in_project(
        text,
        plan,
        &types,
        running,
        // What the gate will judge: a draft `finalize` moved matches as the ADR it
        // became, as in [`Ctx::approval`]. A bad glob or path is the gate's to
        // report, with its reason.
        &mut |input| {
            ctx.approval_inputs(input).map_or(true, |files| {
                files
                    .iter()
                    .any(|file| std::fs::symlink_metadata(file).is_ok())
            })
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_consultants_plan_is_relative_to_its_session_folder() {
        let top = Path::new(if cfg!(windows) { r"C:\" } else { "/" });
        assert_eq!(
            plan_base(&top.join("p/sessions/a/output/phases.yaml")),
            top.join("p/sessions/a")
        );
        assert_eq!(
            plan_base(&top.join("p/plan/phases.yaml")),
            top.join("p/plan")
        );
    }
}
