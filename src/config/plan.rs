//! The HELIX phase plan (`phases.yaml`) as helix-gate reads it: the model ([`Plan`],
//! [`Phase`], [`Gate`]) that the plan check (`crate::rules::phases`) builds and the `gate`
//! command runs, so the checks and the gate runner agree on what a phase says.
//!
//! A plan is configuration of a HELIX project read from a file, like the rules and the
//! settings; the gate runner and the MCP server take it from here, not from the rules.
//! Its schema is the seeds' (004: `id`, `name`, `type`, `input`/`output` with `files`,
//! `quality_gate`; 001/002: the gate types `adr_complete`, `approval`,
//! `approval_passed`).

use crate::yaml::{self, Mapping, Value};

/// The file name of a phase plan.
pub const FILE_NAME: &str = "phases.yaml";

/// The gate types of the seeds (004: `files_exist`, `python_syntax`, `tests_pass`;
/// 001/002: `adr_complete`, `approval`, `approval_passed`).
pub const GATE_TYPES: [&str; 6] = [
    "files_exist",
    "python_syntax",
    "tests_pass",
    "adr_complete",
    "approval",
    "approval_passed",
];

/// Whether `path` names a phase plan (its file name is `phases.yaml`).
pub fn is_plan(path: &std::path::Path) -> bool {
    path.file_name().is_some_and(|n| n == FILE_NAME)
}

/// Whether the project-relative path `rel` is a consultant's phase plan, which
/// the hook checks on save: `output/phases.yaml` at the project root or in any
/// folder below it (`projects/sessions/<id>/output/phases.yaml`).
pub fn is_session_plan(rel: &str) -> bool {
    rel == "output/phases.yaml" || rel.ends_with("/output/phases.yaml")
}

/// A phase plan as far as helix-gate reads it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub phases: Vec<Phase>,
}

/// One phase.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Phase {
    pub id: String,
    /// The phases named by `depends_on` (a string or a list), as written.
    pub depends_on: Vec<String>,
    /// The `input` files (paths or globs).
    pub input: Vec<String>,
    pub output: Vec<String>,
    pub gates: Vec<Gate>,
}

/// One quality gate, decoded from what the plan (or the command line) wrote by
/// [`Gate::decode`], the one place a gate's keys are read: the plan check reports
/// what it found wrong, and the runner (`crate::gate`) takes only gates that decoded.
#[derive(Debug, Clone, PartialEq)]
pub enum Gate {
    /// The engine's checks of every file the `file` globs match, then the reviewer by
    /// `semantic`.
    AdrComplete {
        file: Vec<String>,
        concept: Option<String>,
        semantic: Semantic,
    },
    /// `helix-gate approve` of `files` with `approval_type`, passed when the verdict is
    /// what `required_result` accepts.
    Approval {
        approval_type: String,
        files: Vec<String>,
        required_result: RequiredResult,
    },
    /// A result file `helix-gate approve --out` signed, for the current content of
    /// `files` (or else the phase's output files, or else its input files).
    ApprovalPassed {
        result_file: String,
        files: Vec<String>,
        required_result: RequiredResult,
    },
    /// The `files` (or the phase's output files) exist.
    FilesExist { files: Vec<String> },
    /// Valid in a plan; run by the HELIX orchestrator, not by helix-gate.
    PythonSyntax,
    /// Valid in a plan; run by the HELIX orchestrator, not by helix-gate.
    TestsPass,
    /// A type none of the seeds names (the plan check reports it; the runner cannot run it).
    Unknown(String),
}

/// `semantic` of an `adr_complete` gate: when the reviewer is asked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Semantic {
    /// Only when `approvals.adr.enabled` is true in `config/approvals.yaml`.
    #[default]
    Auto,
    /// Always (`true`), after the deterministic checks pass.
    Always,
    /// Never (`false`).
    Never,
}

impl Semantic {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "auto" => Some(Semantic::Auto),
            "true" => Some(Semantic::Always),
            "false" => Some(Semantic::Never),
            _ => None,
        }
    }

    /// As written in a plan: `auto`, `true`, `false`.
    pub fn as_str(self) -> &'static str {
        match self {
            Semantic::Auto => "auto",
            Semantic::Always => "true",
            Semantic::Never => "false",
        }
    }
}

/// `required_result` of an approval gate: the verdict it requires (the seed's rule:
/// `needs_revision` also accepts `approved`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum RequiredResult {
    #[default]
    Approved,
    NeedsRevision,
}

impl RequiredResult {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "approved" => Some(RequiredResult::Approved),
            "needs_revision" => Some(RequiredResult::NeedsRevision),
            _ => None,
        }
    }

    /// As written in a plan: `approved`, `needs_revision`.
    pub fn as_str(self) -> &'static str {
        match self {
            RequiredResult::Approved => "approved",
            RequiredResult::NeedsRevision => "needs_revision",
        }
    }
}

/// The approval type of an `approval` gate that names none.
pub const DEFAULT_APPROVAL_TYPE: &str = "adr";

/// What keeps a gate of a known type from decoding; the plan check reports each one
/// (`phase-gate-invalid`, with [`GateProblem::hint`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GateProblem {
    /// A field the type needs is missing.
    #[error("gate {kind} has no `{field}`")]
    Missing {
        kind: &'static str,
        field: &'static str,
    },
    /// `semantic` is not auto, true or false.
    #[error("gate adr_complete: semantic `{0}` is not auto, true or false")]
    Semantic(String),
    /// `required_result` is not `approved` or `needs_revision`.
    #[error("gate {kind}: required_result `{value}` is not approved or needs_revision")]
    RequiredResult { kind: &'static str, value: String },
}

impl GateProblem {
    /// How to fix it in the plan.
    pub fn hint(&self) -> &'static str {
        match self {
            GateProblem::Missing { field: "file", .. } => "add `file: output/ADR-*.md`",
            GateProblem::Missing { field: "files", .. } => {
                "list the files under review: `files: [output/ADR-feature.md]`"
            }
            GateProblem::Missing { .. } => "add `result_file: output/approval-result.json`",
            GateProblem::Semantic(_) => "write `semantic: auto`",
            GateProblem::RequiredResult { .. } => "write `required_result: approved`",
        }
    }
}

impl Gate {
    /// Decode a gate of type `kind` from its keys `fields`: a known type with what it
    /// needs, a type none of the seeds names ([`Gate::Unknown`]), or every problem of a
    /// known type whose fields are missing or wrong.
    pub fn decode(kind: &str, fields: &Mapping) -> Result<Gate, Vec<GateProblem>> {
        let text = |key: &str| fields.get(key).and_then(yaml::scalar_text);
        let paths = |key: &str| string_list(fields.get(key));
        let mut problems = Vec::new();
        let required = |kind: &'static str, key: &'static str, problems: &mut Vec<_>| {
            let list = paths(key);
            if list.is_empty() {
                problems.push(GateProblem::Missing { kind, field: key });
            }
            list
        };
        let required_result =
            |kind: &'static str, problems: &mut Vec<_>| match text("required_result") {
                None => RequiredResult::default(),
                Some(value) => RequiredResult::parse(&value).unwrap_or_else(|| {
                    problems.push(GateProblem::RequiredResult { kind, value });
                    RequiredResult::default()
                }),
            };
        let gate = match kind {
            "adr_complete" => {
                let file = required("adr_complete", "file", &mut problems);
                let semantic = match text("semantic") {
                    None => Semantic::default(),
                    Some(value) => Semantic::parse(&value).unwrap_or_else(|| {
                        problems.push(GateProblem::Semantic(value));
                        Semantic::default()
                    }),
                };
                Gate::AdrComplete {
                    file,
                    concept: text("concept"),
                    semantic,
                }
            }
            "approval" => {
                let files = required("approval", "files", &mut problems);
                Gate::Approval {
                    approval_type: text("approval_type")
                        .unwrap_or_else(|| DEFAULT_APPROVAL_TYPE.to_owned()),
                    files,
                    required_result: required_result("approval", &mut problems),
                }
            }
            "approval_passed" => {
                let result_file = text("result_file");
                if result_file.is_none() {
                    problems.push(GateProblem::Missing {
                        kind: "approval_passed",
                        field: "result_file",
                    });
                }
                Gate::ApprovalPassed {
                    result_file: result_file.unwrap_or_default(),
                    files: paths("files"),
                    required_result: required_result("approval_passed", &mut problems),
                }
            }
            "files_exist" => Gate::FilesExist {
                files: paths("files"),
            },
            "python_syntax" => Gate::PythonSyntax,
            "tests_pass" => Gate::TestsPass,
            unknown => Gate::Unknown(unknown.to_owned()),
        };
        if problems.is_empty() {
            Ok(gate)
        } else {
            Err(problems)
        }
    }

    /// The type as written (`adr_complete`, ..., or the unknown type's name).
    pub fn kind(&self) -> &str {
        match self {
            Gate::AdrComplete { .. } => "adr_complete",
            Gate::Approval { .. } => "approval",
            Gate::ApprovalPassed { .. } => "approval_passed",
            Gate::FilesExist { .. } => "files_exist",
            Gate::PythonSyntax => "python_syntax",
            Gate::TestsPass => "tests_pass",
            Gate::Unknown(kind) => kind,
        }
    }
}

/// Whether a relative path climbs above its start (`a/../../b`).
pub fn escapes(path: &str) -> bool {
    let mut depth: i64 = 0;
    for part in path.split(['/', '\\']) {
        match part {
            ".." => depth -= 1,
            "" | "." => {}
            _ => depth += 1,
        }
        if depth < 0 {
            return true;
        }
    }
    false
}

/// One string or a list of strings (other entries are ignored).
pub fn string_list(value: Option<&Value>) -> Vec<String> {
    match value {
        Some(Value::Sequence(list)) => list.iter().filter_map(yaml::scalar_text).collect(),
        Some(v) => yaml::scalar_text(v).into_iter().collect(),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_reads_each_type_once_with_its_defaults() {
        let fields = |yaml: &str| {
            yaml::parse_value(yaml)
                .unwrap()
                .as_mapping()
                .unwrap()
                .clone()
        };
        assert_eq!(
            Gate::decode("approval_passed", &fields("{result_file: r.json}")),
            Ok(Gate::ApprovalPassed {
                result_file: "r.json".to_owned(),
                files: Vec::new(),
                required_result: RequiredResult::Approved,
            })
        );
        assert_eq!(
            Gate::decode(
                "approval_passed",
                &fields("{result_file: r.json, files: [a.md]}")
            ),
            Ok(Gate::ApprovalPassed {
                result_file: "r.json".to_owned(),
                files: vec!["a.md".to_owned()],
                required_result: RequiredResult::Approved,
            })
        );
        assert_eq!(
            Gate::decode("adr_complete", &fields("{file: a.md, semantic: false}")),
            Ok(Gate::AdrComplete {
                file: vec!["a.md".to_owned()],
                concept: None,
                semantic: Semantic::Never,
            })
        );
        assert_eq!(
            Gate::decode("files_exist", &fields("{}")),
            Ok(Gate::FilesExist { files: Vec::new() })
        );
        assert_eq!(
            Gate::decode("lint", &fields("{}")),
            Ok(Gate::Unknown("lint".to_owned()))
        );
        assert_eq!(
            Gate::decode("approval", &fields("{required_result: maybe}")),
            Err(vec![
                GateProblem::Missing {
                    kind: "approval",
                    field: "files"
                },
                GateProblem::RequiredResult {
                    kind: "approval",
                    value: "maybe".to_owned()
                },
            ])
        );
    }

    #[test]
    fn a_path_escapes_only_when_it_climbs_above_its_start() {
        assert!(!escapes("a/../b"));
        assert!(escapes("a/../../b"));
    }
}
