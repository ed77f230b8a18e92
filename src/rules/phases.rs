//! The HELIX phase plan (`phases.yaml`, written by the consultant as `output/phases.yaml`):
//! checked as a document of its own before any of its quality gates runs.
//!
//! The file is read through [`crate::yaml`] like every other YAML of the crate. Its schema
//! is the seeds' (004: `id`, `name`, `type`, `input`/`output` with `files`, `quality_gate`;
//! 001/002: the gate types `adr_complete`, `approval`, `approval_passed`); keys the seeds do
//! not name are left alone, because the HELIX orchestrator reads this file too.
//!
//! The check builds the phase model ([`Plan`], [`Phase`], [`Gate`], in
//! [`crate::config::plan`]) once, and the `gate` command runs what it built, so the checks
//! and the gate runner agree on what a phase says.

use std::collections::{HashMap, HashSet};

use crate::config::plan::{GATE_TYPES, Gate, GateProblem, Phase, Plan, escapes, string_list};
use crate::diagnostic::Finding;
use crate::rules::RuleMeta;
use crate::yaml::{self, Mapping, Value};

declare_rules! {
    /// ## What it does
    /// Requires a phase plan (`phases.yaml`) to be YAML with a top-level `phases:` list whose
    /// entries are mappings, each with a non-empty `id`.
    ///
    /// ## Why
    /// The HELIX orchestrator and `helix-gate gate` read the plan phase by phase; a plan they
    /// cannot read stops the whole workflow after the consultant has finished.
    ///
    /// ## Example
    /// ```yaml
    /// phases:
    ///   - id: consultant
    ///     type: consultant
    ///     output:
    ///       files: [output/ADR-feature.md]
    /// ```
    ///
    /// ## Fix
    /// Write `phases:` as a list of mappings, each with an `id`.
    pub const INVALID {
        id: "phases-invalid",
        severity: Error,
        category: Phases,
        summary: "phases.yaml is not a readable phase plan (phases: list of mappings with ids)",
    }

    /// ## What it does
    /// Reports a phase `id` that an earlier phase of the same plan already uses.
    ///
    /// ## Why
    /// `depends_on`, `on_rejection.target_phase` and `helix-gate gate --phase` name phases by
    /// id; a duplicate makes them ambiguous.
    ///
    /// ## Fix
    /// Give every phase its own id (`01-analysis`, `02-implementation`, ...).
    pub const ID_DUPLICATE {
        id: "phase-id-duplicate",
        severity: Error,
        category: Phases,
        summary: "two phases of phases.yaml share an id",
    }

    /// ## What it does
    /// Reports a `depends_on` (a string or a list) or an `on_rejection.target_phase` that names
    /// no phase of the plan, or the phase itself.
    ///
    /// ## Why
    /// A phase that waits for a phase that does not exist never runs.
    ///
    /// ## Fix
    /// Name an existing phase id, or remove the dependency.
    pub const DEPENDS_ON_UNKNOWN {
        id: "phase-depends-on-unknown",
        severity: Error,
        category: Phases,
        summary: "depends_on or target_phase names no phase of phases.yaml",
    }

    /// ## What it does
    /// Requires `quality_gate.type` (a gate given as a mapping, or each gate of a list) to be one
    /// of `files_exist`, `python_syntax`, `tests_pass`, `adr_complete`, `approval` and
    /// `approval_passed`, and the fields the type needs: `file` for `adr_complete` (with
    /// `semantic` one of auto, true, false), `files` for `approval` (with `required_result` one of
    /// approved, needs_revision), `result_file` for `approval_passed` (with the same
    /// `required_result`, and optionally `files`: the files the result must have judged).
    ///
    /// ## Why
    /// A gate the orchestrator does not know is skipped or fails the phase at run time, after the
    /// work was done; a typo here should be caught when the plan is written.
    ///
    /// ## Example
    /// ```yaml
    /// quality_gate:
    ///   type: adr_complete
    ///   file: output/ADR-*.md
    ///   concept: output/concept.md
    ///   semantic: auto
    /// ```
    ///
    /// ## Fix
    /// Use one of the known types and give it its fields.
    pub const GATE_INVALID {
        id: "phase-gate-invalid",
        severity: Error,
        category: Phases,
        summary: "a quality_gate of phases.yaml has an unknown type or lacks its fields",
    }

    /// ## What it does
    /// Requires every path of the plan (`input`/`output` files, and a gate's `file`, `files`,
    /// `concept` and `result_file`) to be relative, without `..` that climbs out of the project
    /// directory.
    ///
    /// ## Why
    /// The plan is run on other machines and in other folders; "absolute paths are a no-go"
    /// (seed 004), and a path that leaves the project lets a phase read or write elsewhere.
    ///
    /// ## Fix
    /// Write the path relative to the project directory (`phases/01-analysis/output/x.md`).
    pub const PATH_UNSAFE {
        id: "phase-path-unsafe",
        severity: Error,
        category: Phases,
        summary: "a path in phases.yaml is absolute or leaves the project directory",
    }

    /// ## What it does
    /// Reported by `helix-gate gate` when a file a quality gate expects is not there: a phase
    /// output of a `files_exist` gate, or no file at all matching the `file` glob of an
    /// `adr_complete` gate.
    ///
    /// ## Why
    /// A phase whose promised output is missing has not finished, whatever it answered.
    ///
    /// ## Fix
    /// Write the file where the plan says, or correct the path in `phases.yaml`.
    pub const GATE_FILE_MISSING {
        id: "gate-file-missing",
        severity: Error,
        category: Phases,
        summary: "a file a quality gate expects does not exist",
    }

    /// ## What it does
    /// Reported by `helix-gate gate --phases`: an approval phase (seed 002: `type: approval`)
    /// or an `approval` gate whose `approval_type` (default `adr`) is not a type of the
    /// project's `config/approvals.yaml` (built-in: adr, code, security, docs).
    ///
    /// ## Why
    /// The phase could never run: `helix-gate approve` refuses an unknown type, and the plan
    /// would stop there after every phase before it has run.
    ///
    /// ## Fix
    /// Use a configured type, or add the type (`approvals/<type>/` and its entry in
    /// `config/approvals.yaml`).
    pub const APPROVAL_TYPE_UNKNOWN {
        id: "phase-approval-type-unknown",
        severity: Error,
        category: Phases,
        summary: "an approval phase of phases.yaml names an approval type the project does not configure",
    }

    /// ## What it does
    /// Reports every template placeholder left in a phase plan: text in angle brackets that
    /// starts with a letter, such as `name: <Beschreibender Name>`, `skills:
    /// [<relevante_skills>]` or an output path `phases/01-analysis/output/<erwartete_datei.md>`
    /// (seed 004's phases template). One finding per placeholder, with its line. `#`
    /// comments and a name pattern glued into a name (`test_<name>.py`) do not count.
    ///
    /// ## Why
    /// Seed 004's template is valid YAML with ids and known gate types, so every other plan
    /// check passes; only the placeholders show that the phases were never planned. The
    /// orchestrator would run a phase named `<Beschreibender Name>` and wait for a file
    /// called `<erwartete_datei.md>`.
    ///
    /// ## Example
    /// ```yaml
    /// phases:
    ///   - id: 01-analysis
    ///     name: <Beschreibender Name>
    /// ```
    ///
    /// ## Fix
    /// Replace the placeholder, brackets included, with the real name, description, skill or
    /// path, or delete the line.
    pub const PLACEHOLDER {
        id: "phase-placeholder",
        severity: Error,
        category: Phases,
        summary: "a template placeholder <...> is still in phases.yaml",
    }

    /// ## What it does
    /// Reported by `helix-gate gate --phases` for the phase it is asked to run, and by
    /// `helix-gate validate` of a plan for every phase: an approval phase (or `approval` gate)
    /// whose `input` path or glob matches no file below the plan's project directory. An input
    /// that another phase of the plan lists among its `output` files is not reported: that
    /// phase writes it, and until it has, the approval gate finds no file. A draft that `helix-gate finalize` moved matches as
    /// the ADR it became (the move recorded in `.helix-gate/finalized.jsonl`, followed only to
    /// an ADR inside the project), as the gate then judges that ADR.
    ///
    /// ## Why
    /// An approval of nothing approves nothing; a glob such as `new/src/critical/*.py` that
    /// matches no file is a wrong path or a phase that did not write its output.
    ///
    /// ## Fix
    /// Correct `input` in `phases.yaml`, or run the phase that writes those files first.
    pub const APPROVAL_INPUT_UNMATCHED {
        id: "phase-input-unmatched",
        severity: Error,
        category: Phases,
        summary: "an input of an approval phase matches no file, and no phase writes it",
    }

    /// ## What it does
    /// Reported by `helix-gate gate --phases` for the phase it is asked to run when a phase
    /// it `depends_on` (directly or through other phases) fails: that phase's gates, run
    /// now, do not pass. A dependency's reviewer is never started again: its `approval`
    /// gates (and `adr_complete` with the reviewer) count as passed only when a signed
    /// `approved` verdict for the current content of its files is cached, and its
    /// `approval_passed` gates read their result files as always. The blocked phase's own
    /// gates are not run.
    ///
    /// ## Why
    /// A phase built on a rejected ADR or a missing approval must not report "passed":
    /// the orchestrator would carry on as if its prerequisites held.
    ///
    /// ## Fix
    /// Run `helix-gate gate --phases <plan> --phase <dependency>` for the phase named, fix
    /// what it reports, then run this phase's gate again.
    pub const BLOCKED {
        id: "phase-blocked",
        severity: Error,
        category: Phases,
        summary: "a phase that depends_on names fails, so the phase being run is blocked",
    }
}

/// path it names (checked whatever the type, an unknown one's included).
#[derive(Debug)]
struct Written {
    kind: String,
    gate: Result<Gate, Vec<GateProblem>>,
    paths: Vec<String>,
}

impl Written {
    fn read(kind: String, fields: &Mapping) -> Self {
        Written {
            gate: Gate::decode(&kind, fields),
            paths: ["file", "files", "concept", "result_file"]
                .into_iter()
                .flat_map(|key| string_list(fields.get(key)))
                .collect(),
            kind,
        }
    }
}

/// Check a phase plan's text; the plan is returned when it could be read at all.
pub fn check(text: &str) -> (Option<Plan>, Vec<Finding>) {
    let mut findings = Found::default();
    let value = match yaml::parse_value(text) {
        Ok(value) => value,
        Err(e) => {
            let finding = INVALID.finding(format!("not valid YAML: {}", e.message));
            return (None, vec![finding.at(e.line.unwrap_or(1))]);
        }
    };
    let Some(list) = value
        .as_mapping()
        .and_then(|m| m.get("phases"))
        .and_then(Value::as_sequence)
    else {
        let finding = INVALID
            .finding("no top-level `phases:` list")
            .at(1)
            .hint("start the file with `phases:` and list the phases below it");
        return (None, vec![finding]);
    };
    let lines = Lines::new(text);
    let mut plan = Plan::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut depends: Vec<(String, String, &'static str)> = Vec::new();
    for (index, entry) in list.iter().enumerate() {
        let Some(map) = entry.as_mapping() else {
            findings.push(&INVALID, || {
                INVALID
                    .finding(format!("phase {} is not a mapping", index + 1))
                    .at(1)
            });
            continue;
        };
        let Some(id) = map
            .get("id")
            .and_then(yaml::scalar_text)
            .filter(|s| !s.trim().is_empty())
        else {
            findings.push(&INVALID, || {
                INVALID
                    .finding(format!("phase {} has no `id`", index + 1))
                    .at(1)
                    .hint("give the phase an `id:` such as `01-analysis`")
            });
            continue;
        };
        if !seen.insert(id.clone()) {
            findings.push(&ID_DUPLICATE, || {
                let line = lines.of_id(&id);
                ID_DUPLICATE
                    .finding(format!("phase id `{id}` is used by an earlier phase"))
                    .at(lines.of_id_nth(&id, 2).unwrap_or(line))
            });
        }
        let depends_on = string_list(map.get("depends_on"));
        for dep in &depends_on {
            depends.push((id.clone(), dep.clone(), "depends_on"));
        }
        if let Some(target) = map
            .get("on_rejection")
            .and_then(Value::as_mapping)
            .and_then(|m| m.get("target_phase"))
            .and_then(yaml::scalar_text)
        {
            depends.push((id.clone(), target, "on_rejection.target_phase"));
        }
        let input = files_of(map.get("input"));
        let output = files_of(map.get("output"));
        for path in input.iter().chain(&output) {
            check_path(&lines, &id, path, &mut findings);
        }
        let mut gates = gates_of(map.get("quality_gate"));
        if gates.is_empty()
            && let Some(gate) = approval_phase_gate(map, &input)
        {
            gates.push(Ok(gate));
        }
        for gate in &gates {
            check_gate(&lines, &id, gate, &mut findings);
        }
        plan.phases.push(Phase {
            id,
            depends_on,
            input,
            output,
            gates: gates
                .into_iter()
                .filter_map(|written| written.ok()?.gate.ok())
                .collect(),
        });
    }
    check_depends(&lines, &plan, &seen, depends, &mut findings);
    check_placeholders(text, &mut findings);
    (Some(plan), findings.into_list())
}

/// Every `<...>` gap of a template left in the plan ([`PLACEHOLDER`]).
fn check_placeholders(text: &str, out: &mut Found) {
    for gap in crate::adr::placeholder::in_yaml(text) {
        out.push(&PLACEHOLDER, || {
            let line = text[..gap.offset].matches('\n').count() + 1;
            PLACEHOLDER
                .finding(format!(
                    "template placeholder {} is still in the plan",
                    crate::text::truncate(&gap.text, 80)
                ))
                .at(line)
                .hint("replace it, brackets included, with the real content (or delete the line)")
        });
    }
}

/// At most this many findings of one rule are listed for one plan; the rest are counted
/// in one more finding. A plan of N phases naming N unknown phases once gave N² lines of
/// output (a 242 KB plan, 847 MB).
pub const MAX_FINDINGS_PER_RULE: usize = 100;

/// The findings of one plan, capped per rule: a finding over the cap is counted, not built
/// (building it can cost a search of the text).
#[derive(Default)]
struct Found {
    list: Vec<Finding>,
    counts: HashMap<&'static str, usize>,
}

impl Found {
    fn push(&mut self, rule: &RuleMeta, build: impl FnOnce() -> Finding) {
        let count = self.counts.entry(rule.id).or_default();
        *count += 1;
        if *count <= MAX_FINDINGS_PER_RULE {
            self.list.push(build());
        }
    }

    fn into_list(self) -> Vec<Finding> {
        let Found { mut list, counts } = self;
        let mut over: Vec<(&str, usize)> = counts
            .into_iter()
            .filter(|&(_, n)| n > MAX_FINDINGS_PER_RULE)
            .collect();
        over.sort_unstable();
        for (id, n) in over {
            let Some(first) = list.iter().find(|f| f.rule == id) else {
                continue;
            };
            let more = Finding::new(
                id,
                first.severity,
                format!(
                    "… and {} more `{id}` findings not listed",
                    n - MAX_FINDINGS_PER_RULE
                ),
            )
            .at(1);
            list.push(more);
        }
        list
    }
}

/// The checks of a plan that need its project (so `gate --phases` and `validate` run
/// them, after [`check`]): every `approval` gate (an approval phase's included) must name
/// a type of `approval_types` ([`APPROVAL_TYPE_UNKNOWN`]), and in the phase `running`
/// (`gate`), or in every phase (`None`: `validate`), each of its `files` must match a
/// file by `matches` ([`APPROVAL_INPUT_UNMATCHED`]), unless another phase of the plan
/// lists it among its `output` files: that phase writes it, and until it has, the
/// approval gate itself finds no file. So `validate` and `gate --phase` report the
/// same inputs for a phase.
pub fn check_in_project(
    text: &str,
    plan: &Plan,
    approval_types: &[String],
    running: Option<&str>,
    matches: &mut dyn FnMut(&str) -> bool,
) -> Vec<Finding> {
    let lines = Lines::new(text);
    let mut findings = Vec::new();
    for phase in &plan.phases {
        let line = lines.of_id(&phase.id);
        for gate in &phase.gates {
            let Gate::Approval {
                approval_type: kind,
                files,
                ..
            } = gate
            else {
                continue;
            };
            if !approval_types.contains(kind) {
                findings.push(
                    APPROVAL_TYPE_UNKNOWN
                        .finding(format!(
                            "phase `{}`: approval type `{kind}` is not configured (config/approvals.yaml: {})",
                            phase.id,
                            approval_types.join(", ")
                        ))
                        .at(lines.of_word_from(kind, line).unwrap_or(line))
                        .hint("use a configured approval type, or add approvals/<type>/ and its entry in config/approvals.yaml"),
                );
            }
            if running.is_some_and(|running| phase.id != running) {
                continue;
            }
            for input in files {
                if !written_by_another(plan, &phase.id, input) && !matches(input) {
                    findings.push(
                        APPROVAL_INPUT_UNMATCHED
                            .finding(format!(
                                "phase `{}`: input `{input}` matches no file",
                                phase.id
                            ))
                            .at(lines.of_word_from(input, line).unwrap_or(line))
                            .hint(
                                "correct `input`, or run the phase that writes these files first",
                            ),
                    );
                }
            }
        }
    }
    findings
}

/// Whether a phase other than `phase` lists `input` (a path or a glob) among its
/// `output` files.
fn written_by_another(plan: &Plan, phase: &str, input: &str) -> bool {
    let bare = |p: &str| p.trim_start_matches("./").to_owned();
    let input = bare(input);
    let glob = globset::GlobBuilder::new(&input)
        .literal_separator(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher());
    plan.phases
        .iter()
        .filter(|p| p.id != phase)
        .flat_map(|p| &p.output)
        .map(|o| bare(o))
        .any(|o| o == input || glob.as_ref().is_some_and(|g| g.is_match(&o)))
}

/// `depends_on` and `on_rejection.target_phase` entries `(phase, named, field)` that name no
/// other phase of `plan`.
fn check_depends(
    lines: &Lines<'_>,
    plan: &Plan,
    ids: &HashSet<String>,
    depends: Vec<(String, String, &'static str)>,
    findings: &mut Found,
) {
    /// The hint names a few phases, not all of them (it was N names for each of N findings).
    const NAMED: usize = 10;
    for (phase, dep, field) in depends {
        let known = ids.contains(&dep);
        if !known || dep == phase {
            let why = if known {
                "the phase itself"
            } else {
                "no phase of this plan"
            };
            findings.push(&DEPENDS_ON_UNKNOWN, || {
                let others = plan.phases.iter().filter(|p| p.id != phase);
                let names: Vec<&str> = others.clone().take(NAMED).map(|p| p.id.as_str()).collect();
                let rest = others.count().saturating_sub(NAMED);
                let more = if rest > 0 {
                    format!(" … and {rest} more")
                } else {
                    String::new()
                };
                DEPENDS_ON_UNKNOWN
                    .finding(format!("phase `{phase}`: {field} `{dep}` names {why}"))
                    .at(lines.of_text(&dep).unwrap_or(1))
                    .hint(format!("name one of: {}{more}", names.join(", ")))
            });
        }
    }
}

/// A `quality_gate:` value: one mapping or a list of them. An entry that is not a mapping
/// with a `type` is `Err` with what was found.
fn gates_of(value: Option<&Value>) -> Vec<Result<Written, &'static str>> {
    let one = |v: &Value| match v.as_mapping() {
        Some(map) => match map.get("type").and_then(yaml::scalar_text) {
            Some(kind) => Ok(Written::read(kind, map)),
            None => Err("has no `type`"),
        },
        None => Err("is not a mapping"),
    };
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Sequence(list)) => list.iter().map(one).collect(),
        Some(other) => vec![one(other)],
    }
}

fn check_gate(
    lines: &Lines<'_>,
    phase: &str,
    written: &Result<Written, &'static str>,
    out: &mut Found,
) {
    // The phase's own `quality_gate:` (the first one after its `id:`), and its type's
    // line after that: not the first gate of the whole plan.
    let phase_line = lines.of_id(phase);
    let line = lines
        .of_word_from("quality_gate", phase_line)
        .unwrap_or(phase_line);
    let written = match written {
        Ok(written) => written,
        Err(why) => {
            out.push(&GATE_INVALID, || {
                GATE_INVALID
                    .finding(format!("phase `{phase}`: quality_gate {why}"))
                    .at(line)
                    .hint(format!("give it a `type:` ({})", GATE_TYPES.join(", ")))
            });
            return;
        }
    };
    let kind = written.kind.as_str();
    let at = || {
        if kind.chars().all(is_word) {
            lines.of_word_from(kind, line)
        } else {
            lines.of_text(kind)
        }
        .unwrap_or(line)
    };
    let mut problem = |message: String, hint: &str| {
        out.push(&GATE_INVALID, || {
            GATE_INVALID
                .finding(format!("phase `{phase}`: {message}"))
                .at(at())
                .hint(hint.to_owned())
        });
    };
    match &written.gate {
        Ok(Gate::Unknown(unknown)) => problem(
            format!("unknown quality_gate type `{unknown}`"),
            &format!("use one of: {}", GATE_TYPES.join(", ")),
        ),
        Ok(_) => {}
        Err(problems) => {
            for found in problems {
                problem(found.to_string(), found.hint());
            }
        }
    }
    for path in &written.paths {
        check_path(lines, phase, path, out);
    }
}

fn check_path(lines: &Lines<'_>, phase: &str, path: &str, out: &mut Found) {
    let absolute = path.starts_with('/') || path.starts_with('~') || path.get(1..3) == Some(":\\");
    let why = if absolute {
        "is absolute"
    } else if escapes(path) {
        "leaves the project directory (..)"
    } else {
        return;
    };
    out.push(&PATH_UNSAFE, || {
        PATH_UNSAFE
            .finding(format!("phase `{phase}`: path `{path}` {why}"))
            .at(lines.of_text(path).unwrap_or(1))
            .hint("write the path relative to the project directory")
    });
}

/// `input:`/`output:` as the seeds write them: a list of paths, or `{files: [...]}`.
fn files_of(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Mapping(map)) => string_list(map.get("files")),
        other => string_list(other),
    }
}

/// Seed 002 (section 9) writes the approval as a phase of its own, without a
/// `quality_gate`: `type: approval`, `approval_type` and the files in `input`. That
/// phase is its `approval` gate (files from `input`, `approval_type` and
/// `required_result` from the phase), so `gate --phase approval` runs the review
/// instead of passing a phase that "has no quality gate".
fn approval_phase_gate(phase: &Mapping, input: &[String]) -> Option<Written> {
    if phase.get("type").and_then(yaml::scalar_text).as_deref() != Some("approval") {
        return None;
    }
    let mut fields = Mapping::new();
    fields.insert("type".into(), "approval".into());
    for key in ["approval_type", "required_result"] {
        if let Some(value) = phase.get(key) {
            fields.insert(key.into(), value.clone());
        }
    }
    fields.insert(
        "files".into(),
        Value::Sequence(input.iter().map(|f| f.as_str().into()).collect()),
    );
    Some(Written::read("approval".to_owned(), &fields))
}

/// Finds the line of a value in the text (the YAML parser keeps no positions): good enough
/// to point at a phase or a path, which are rarely repeated.
///
/// Indexed once: every phase and every finding asks for a line, and a scan of the whole
/// text per question was quadratic (a 240 KB plan with 10,000 findings took 10 s).
struct Lines<'a> {
    text: &'a str,
    /// Each whole word (see [`is_word`]) and the lines (1-based, ascending) holding it.
    words: HashMap<&'a str, Vec<usize>>,
    /// Each phase id and the lines of its `id:` entries, in order.
    ids: HashMap<&'a str, Vec<usize>>,
}

/// A character that continues a name or path (a needle must not sit inside a longer one).
fn is_word(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | '*')
}

impl<'a> Lines<'a> {
    fn new(text: &'a str) -> Self {
        let mut words: HashMap<&str, Vec<usize>> = HashMap::new();
        let mut ids: HashMap<&str, Vec<usize>> = HashMap::new();
        for (i, line) in text.lines().enumerate() {
            for word in line.split(|c: char| !is_word(c)).filter(|w| !w.is_empty()) {
                let lines = words.entry(word).or_default();
                if lines.last() != Some(&(i + 1)) {
                    lines.push(i + 1);
                }
            }
            let entry = line.trim_start().trim_start_matches("- ").trim_start();
            if let Some(rest) = entry.strip_prefix("id:") {
                let id = rest.trim().trim_matches(|c| c == '"' || c == '\'');
                ids.entry(id).or_default().push(i + 1);
            }
        }
        Lines { text, words, ids }
    }

    /// The first line holding `needle` as a whole word (not inside a longer name).
    fn of_text(&self, needle: &str) -> Option<usize> {
        if !needle.is_empty() && needle.chars().all(is_word) {
            return self
                .words
                .get(needle)
                .and_then(|lines| lines.first().copied());
        }
        self.text
            .lines()
            .position(|line| {
                line.match_indices(needle).any(|(i, _)| {
                    !line[..i].chars().next_back().is_some_and(is_word)
                        && !line[i + needle.len()..].chars().next().is_some_and(is_word)
                })
            })
            .map(|i| i + 1)
    }

    /// The first line at or after `from` holding the whole word `word` (binary search:
    /// one lookup per gate stays cheap on a large plan).
    fn of_word_from(&self, word: &str, from: usize) -> Option<usize> {
        let lines = self.words.get(word)?;
        lines.get(lines.partition_point(|&l| l < from)).copied()
    }

    fn of_id_nth(&self, id: &str, nth: usize) -> Option<usize> {
        self.ids
            .get(id)
            .and_then(|lines| lines.get(nth.checked_sub(1)?))
            .copied()
    }

    fn of_id(&self, id: &str) -> usize {
        self.of_id_nth(id, 1).unwrap_or(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::plan::{RequiredResult, Semantic};

    fn ids(text: &str) -> Vec<(String, usize)> {
        check(text)
            .1
            .into_iter()
            .map(|f| (f.rule, f.line.unwrap_or(0)))
            .collect()
    }

    const GOOD: &str = "phases:
  - id: consultant
    type: consultant
    output:
      files:
        - output/ADR-feature.md
    quality_gate:
      type: adr_complete
      file: output/ADR-*.md
      concept: output/concept.md
      semantic: auto
  - id: approval
    type: approval
    depends_on: consultant
    input: [output/ADR-feature.md]
    quality_gate:
      type: approval_passed
      result_file: output/approval-result.json
    on_rejection:
      action: retry_phase
      target_phase: consultant
  - id: 03-dev
    depends_on: [approval]
    quality_gate:
      - type: approval
        approval_type: adr
        files: [output/ADR-feature.md]
        required_result: needs_revision
      - type: tests_pass
";

    /// A plan at the size limit with a finding on every line is checked in about
    /// linear time (the scan per finding took 10 s here in a debug build), and each rule
    /// lists at most [`MAX_FINDINGS_PER_RULE`] findings and counts the rest in one more.
    #[test]
    fn a_large_plan_full_of_findings_is_checked_without_a_quadratic_scan() {
        use std::fmt::Write as _;
        let mut text = "phases:\n".to_owned();
        for i in 0..2_600 {
            let _ = writeln!(
                text,
                "  - id: p\n    depends_on:\n      - z{i}\n    quality_gate:\n      type: b{i}\n      file: /a{i}"
            );
        }
        let started = std::time::Instant::now();
        let (_, findings) = check(&text);
        let took = started.elapsed();
        for rule in [
            ID_DUPLICATE.id,
            DEPENDS_ON_UNKNOWN.id,
            GATE_INVALID.id,
            PATH_UNSAFE.id,
        ] {
            let of_rule: Vec<&Finding> = findings.iter().filter(|f| f.rule == rule).collect();
            assert_eq!(of_rule.len(), MAX_FINDINGS_PER_RULE + 1, "{rule}");
            assert!(
                of_rule[MAX_FINDINGS_PER_RULE].message.contains("more"),
                "{rule}"
            );
        }
        let more = findings
            .iter()
            .find(|f| {
                f.message
                    .starts_with("… and 2500 more `phase-depends-on-unknown`")
            })
            .unwrap();
        assert_eq!(more.rule, DEPENDS_ON_UNKNOWN.id);
        // A listed unknown dependency points at its own line.
        let dep = findings
            .iter()
            .find(|f| f.message.contains("`z99`"))
            .unwrap();
        assert_eq!(dep.line, Some(2 + 99 * 6 + 2));
        assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    }

    /// N phases that each name an unknown phase: the hint names a few phases, not all N
    /// (N findings of N names each was the quadratic output).
    #[test]
    fn an_unknown_dependency_hint_names_a_few_phases() {
        use std::fmt::Write as _;
        let mut text = "phases:\n".to_owned();
        for i in 0..50 {
            let _ = writeln!(text, "  - id: p{i}\n    depends_on: [q{i}]");
        }
        let (_, findings) = check(&text);
        assert_eq!(findings.len(), 50);
        let hint = findings[0].hint.as_deref().unwrap();
        assert!(hint.ends_with("… and 39 more"), "{hint}");
        assert!(hint.len() < 120, "{hint}");
    }

    #[test]
    fn a_good_plan_has_no_findings_and_is_read() {
        let (plan, findings) = check(GOOD);
        assert!(findings.is_empty(), "{findings:#?}");
        let plan = plan.unwrap();
        assert_eq!(plan.phases.len(), 3);
        assert_eq!(plan.phases[0].output, ["output/ADR-feature.md"]);
        assert_eq!(
            plan.phases[0].gates[0],
            Gate::AdrComplete {
                file: vec!["output/ADR-*.md".to_owned()],
                concept: Some("output/concept.md".to_owned()),
                semantic: Semantic::Auto,
            }
        );
        assert_eq!(plan.phases[2].gates.len(), 2);
        assert_eq!(
            plan.phases[2].gates[0],
            Gate::Approval {
                approval_type: "adr".to_owned(),
                files: vec!["output/ADR-feature.md".to_owned()],
                required_result: RequiredResult::NeedsRevision,
            }
        );
        assert_eq!(plan.phases[2].gates[1], Gate::TestsPass);
    }

    #[test]
    fn template_placeholders_are_errors_with_their_lines() {
        let plan = "phases:
  - id: 01-analysis
    name: <Beschreibender Name>  # <not this comment>
    config:
      skills: [<relevante_skills>]
    output:
      files:
        - phases/01-analysis/output/<erwartete_datei.md>
        - phases/01-analysis/output/test_<name>.py
    description: uses Vec<T> and a <br> tag
";
        assert_eq!(
            ids(plan),
            [
                (PLACEHOLDER.id.to_owned(), 3),
                (PLACEHOLDER.id.to_owned(), 5),
                (PLACEHOLDER.id.to_owned(), 8)
            ]
        );
        assert!(check(GOOD).1.is_empty());
    }

    #[test]
    fn unreadable_plans() {
        assert_eq!(ids("phases: [\n"), [("phases-invalid".into(), 2)]);
        assert_eq!(ids("steps: []\n"), [("phases-invalid".into(), 1)]);
        assert_eq!(
            ids("phases:\n  - 3\n  - name: x\n"),
            [("phases-invalid".into(), 1), ("phases-invalid".into(), 1)]
        );
    }

    #[test]
    fn duplicate_ids_and_unknown_dependencies() {
        let text = "phases:\n  - id: a\n  - id: b\n    depends_on: [a, c]\n  - id: a\n    depends_on: a\n    on_rejection: {target_phase: zz}\n";
        assert_eq!(
            ids(text),
            [
                ("phase-id-duplicate".into(), 5),
                ("phase-depends-on-unknown".into(), 4),
                ("phase-depends-on-unknown".into(), 2),
                ("phase-depends-on-unknown".into(), 7),
            ]
        );
    }

    #[test]
    fn gate_types_and_their_fields() {
        let text = "phases:\n  - id: a\n    quality_gate:\n      type: adr_completed\n  - id: b\n    quality_gate: {type: adr_complete, semantic: maybe}\n  - id: c\n    quality_gate: {type: approval, required_result: rejected}\n  - id: d\n    quality_gate: {type: approval_passed}\n  - id: e\n    quality_gate: [files_exist]\n";
        let found: Vec<String> = check(text).1.into_iter().map(|f| f.message).collect();
        assert_eq!(
            found,
            [
                "phase `a`: unknown quality_gate type `adr_completed`",
                "phase `b`: gate adr_complete has no `file`",
                "phase `b`: gate adr_complete: semantic `maybe` is not auto, true or false",
                "phase `c`: gate approval has no `files`",
                "phase `c`: gate approval: required_result `rejected` is not approved or needs_revision",
                "phase `d`: gate approval_passed has no `result_file`",
                "phase `e`: quality_gate is not a mapping",
            ]
        );
    }

    /// `approval_passed` takes the `required_result` an `approval` gate takes (the command
    /// line's `--required-result` allows the same two), so a typo is caught in the plan.
    #[test]
    fn approval_passed_requires_a_known_required_result() {
        let text = "phases:\n  - id: a\n    quality_gate: {type: approval_passed, result_file: r.json, required_result: rejected}\n";
        let found: Vec<String> = check(text).1.into_iter().map(|f| f.message).collect();
        assert_eq!(
            found,
            [
                "phase `a`: gate approval_passed: required_result `rejected` is not approved or needs_revision"
            ]
        );
    }

    #[test]
    fn a_gate_finding_points_at_its_own_phase_not_the_first_gate() {
        let text = "phases:\n  - id: a\n    quality_gate:\n      type: approval_passed\n      result_file: r.json\n  - id: b\n    quality_gate:\n      type: approval_passed\n  - id: c\n    quality_gate: [files_exist]\n";
        assert_eq!(
            ids(text),
            [
                ("phase-gate-invalid".into(), 8),
                ("phase-gate-invalid".into(), 10),
            ]
        );
    }

    #[test]
    fn paths_must_stay_relative_and_inside() {
        let text = "phases:\n  - id: a\n    output:\n      files: [/home/x/out.md, ok/../fine.md]\n    input: [../secret.md]\n    quality_gate: {type: adr_complete, file: 'a/../../ADR-*.md'}\n";
        let found: Vec<(String, usize)> = ids(text);
        assert_eq!(
            found,
            [
                ("phase-path-unsafe".into(), 5),
                ("phase-path-unsafe".into(), 4),
                ("phase-path-unsafe".into(), 6),
            ]
        );
    }
}
