//! The MCP server's tools: what `tools/list` offers and what `tools/call` runs.
//!
//! Each tool is a thin adapter over what the CLI command of the same purpose calls: the
//! engine and the JSON renderer (`validate --format json`), the rule documentation
//! (`rules`, `explain`), `new`'s template filling and numbering, and the gate runner
//! (`gate --phases`). A tool that cannot do what it was asked (a path outside the
//! repository, a file that is not there, a rule that does not exist) answers with
//! `isError: true` and a sentence the model can act on; findings are never an error,
//! they are the result.

use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::scope::{Kind, Scope};
use crate::adr_dir::new::{self as new_adr, Mode, Outcome, Place};
use crate::config::Preset;
use crate::engine::Engine;
use crate::gate::Reviewer;
use crate::rules::WorkTree;

/// The tools, as `tools/list` returns them.
pub(super) fn list() -> Value {
    json!([
        {
            "name": "validate_adr",
            "title": "Validate an ADR",
            "description": "Check an Architecture Decision Record (or a HELIX phases.yaml) with helix-gate's deterministic rules: \
                the same findings, rule ids and hints as `helix-gate validate --format json`. Give `path` (a file, or a folder \
                checked as an ADR directory), or `content` (the text, e.g. before saving it) with `path` naming where it would \
                be saved (its folder and file name matter: numbering, concept next to it). An error finding means the ADR is not \
                done; a warning should be looked at.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "The ADR file or folder, relative to the server's working folder or absolute, inside the repository. With `content`: the name the text is checked under (need not exist; default ADR.md)."
                    },
                    "content": {
                        "type": "string",
                        "description": "The ADR's text, checked instead of the file (nothing is written)."
                    }
                },
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        },
        {
            "name": "explain_rule",
            "title": "Explain a rule",
            "description": "The documentation of one rule by its id (as a finding names it): what it checks, why, and how to satisfy it.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "id": {"type": "string", "description": "The rule id, e.g. section-missing or major-needs-migration."}
                },
                "required": ["id"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        },
        {
            "name": "list_rules",
            "title": "List the rules",
            "description": "Every rule helix-gate checks: the built-in ones and the repository's contextual rules, with id, severity and summary.",
            "inputSchema": {"type": "object", "additionalProperties": false},
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        },
        {
            "name": "new_adr_template",
            "title": "Template for a new ADR",
            "description": "The template of a new ADR with its fields filled in (title, number, date), the file it belongs in and the next \
                free ADR number, as `helix-gate new` makes it. Nothing is written unless `write` is true; then the file is created \
                exactly as `helix-gate new` would (never over an existing file). Replace every <...> placeholder before validating.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "title": {"type": "string", "description": "The ADR's title (one line)."},
                    "preset": {
                        "type": "string",
                        "enum": ["helix", "madr", "nygard"],
                        "description": "The ADR format, instead of the repository's configured one (as `helix-gate new --preset`)."
                    },
                    "write": {"type": "boolean", "description": "Create the file (default false: only return it).", "default": false}
                },
                "required": ["title"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false}
        },
        {
            "name": "run_gate",
            "title": "Run a phase's quality gates",
            "description": "Run the HELIX quality gate(s) of one phase of a phases.yaml, as `helix-gate gate --phases FILE --phase ID` \
                (the plan is checked first). The independent reviewer is never started here: a gate that needs it reports outcome \
                `error` and says so.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "phases": {"type": "string", "description": "The phase plan (e.g. output/phases.yaml), inside the repository."},
                    "phase": {"type": "string", "description": "The id of the phase whose gates to run."}
                },
                "required": ["phases", "phase"],
                "additionalProperties": false
            },
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        }
    ])
}

/// A decoded `tools/call`.
pub(super) struct Call {
    name: String,
    args: Map<String, Value>,
}

impl Call {
    /// The call in `params`; `Err` for a request the protocol rejects (-32602).
    pub(super) fn decode(params: Option<Value>) -> Result<Call, String> {
        let Some(Value::Object(mut params)) = params else {
            return Err("invalid params: tools/call needs an object with `name`".to_owned());
        };
        let Some(Value::String(name)) = params.remove("name") else {
            return Err("invalid params: `name` must be the tool's name (a string)".to_owned());
        };
        let args = match params.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args,
            Some(_) => return Err("invalid params: `arguments` must be an object".to_owned()),
        };
        Ok(Call { name, args })
    }

    /// Refuse arguments the tool does not take (a misspelt one would be ignored silently).
    fn only(&self, known: &[&str]) -> Result<(), String> {
        match self.args.keys().find(|k| !known.contains(&k.as_str())) {
            None => Ok(()),
            Some(key) if known.is_empty() => Err(format!(
                "{} takes no arguments; `{key}` is not one",
                self.name
            )),
            Some(key) => Err(format!(
                "{} has no argument `{key}` (its arguments: {})",
                self.name,
                known.join(", ")
            )),
        }
    }

    fn text(&self, key: &str) -> Result<Option<&str>, String> {
        match self.args.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(text)) => Ok(Some(text)),
            Some(_) => Err(format!("`{key}` must be a string")),
        }
    }

    fn required(&self, key: &str) -> Result<&str, String> {
        self.text(key)?
            .ok_or_else(|| format!("{} needs `{key}`", self.name))
    }

    fn flag(&self, key: &str) -> Result<bool, String> {
        match self.args.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(flag)) => Ok(*flag),
            Some(_) => Err(format!("`{key}` must be true or false")),
        }
    }
}

/// What a tool answered.
pub(super) struct Answer {
    text: String,
    /// The same answer as data, for clients that read `structuredContent`.
    structured: Option<Value>,
    is_error: bool,
}

impl Answer {
    fn ok(text: String, structured: Option<Value>) -> Self {
        Answer {
            text,
            structured,
            is_error: false,
        }
    }

    fn failed(text: String) -> Self {
        Answer {
            text,
            structured: None,
            is_error: true,
        }
    }

    /// The `tools/call` result; `structured`: the client's protocol version has
    /// `structuredContent`.
    pub(super) fn to_result(&self, structured: bool) -> Value {
        let mut result = json!({
            "content": [{"type": "text", "text": self.text}],
            "isError": self.is_error,
        });
        if structured && let Some(value) = &self.structured {
            result["structuredContent"] = value.clone();
        }
        result
    }
}

/// Run `call`; `Err` only for a tool that does not exist (a protocol error, -32602).
pub(super) fn call(scope: &Scope, call: &Call) -> Result<Answer, String> {
    let run = match call.name.as_str() {
        "validate_adr" => validate,
        "explain_rule" => explain,
        "list_rules" => list_rules,
        "new_adr_template" => new_template,
        "run_gate" => gate,
        other => {
            return Err(format!(
                "invalid params: unknown tool `{other}` (tools: validate_adr, explain_rule, list_rules, new_adr_template, run_gate)"
            ));
        }
    };
    Ok(run(scope, call).unwrap_or_else(Answer::failed))
}

fn engine(scope: &Scope) -> Result<Engine, String> {
    Engine::load(scope.root(), None).map_err(|e| format!("{e:#}"))
}

fn validate(scope: &Scope, call: &Call) -> Result<Answer, String> {
    call.only(&["path", "content"])?;
    let engine = engine(scope)?;
    let limit = engine.settings.adr.max_file_size;
    let path = call.text("path")?;
    let (reports, read_errors) = match (call.text("content")?, path) {
        (Some(content), named) => {
            if content.len() as u64 > limit {
                return Err(format!(
                    "the content is {} bytes, larger than adr.max_file_size ({limit} bytes); not checked",
                    content.len()
                ));
            }
            let (path, kind) = scope.entry(named.unwrap_or("ADR.md"), u64::MAX, true, true)?;
            if kind == Kind::Directory {
                return Err(format!(
                    "`{}` is a folder; with `content`, `path` names the file the text would be saved as",
                    named.unwrap_or_default()
                ));
            }
            let checked = engine.check_bytes(
                &path,
                content.as_bytes().to_vec(),
                &WorkTree::new(scope.root()),
            );
            (vec![checked.report], Vec::new())
        }
        (None, Some(named)) => match scope.entry(named, limit, true, false)? {
            (dir, Kind::Directory) => {
                let files = engine.directory_adrs(&dir).map_err(|e| format!("{e:#}"))?;
                engine.check_files(&files, true)
            }
            (file, _) => engine.check_files(&[file], false),
        },
        (None, None) => {
            return Err(
                "validate_adr needs `path` (a file or folder) or `content` (the ADR's text)"
                    .to_owned(),
            );
        }
    };
    let mut text = crate::render::json(&reports);
    if read_errors.is_empty() {
        return Ok(Answer::ok(
            text,
            Some(crate::render::json::document(&reports)),
        ));
    }
    for err in &read_errors {
        let _ = writeln!(text, "helix-gate: error: {err}");
    }
    Ok(Answer::failed(text))
}

fn explain(scope: &Scope, call: &Call) -> Result<Answer, String> {
    call.only(&["id"])?;
    let id = call.required("id")?;
    match crate::rule_docs::explain(scope.root(), id, None).map_err(|e| format!("{e:#}"))? {
        Some(text) => Ok(Answer::ok(text, None)),
        None => Err(format!(
            "no rule with id `{}`{} (list_rules lists every rule)",
            crate::text::escape_controls(id),
            crate::rule_docs::nearest(scope.root(), id, None)
                .map(|near| format!("; did you mean `{}`?", crate::text::escape_controls(&near)))
                .unwrap_or_default()
        )),
    }
}

fn list_rules(scope: &Scope, call: &Call) -> Result<Answer, String> {
    call.only(&[])?;
    let list = crate::rule_docs::list(scope.root(), None).map_err(|e| format!("{e:#}"))?;
    let structured = serde_json::to_value(&list).ok();
    Ok(Answer::ok(list.text(), structured))
}

fn new_template(scope: &Scope, call: &Call) -> Result<Answer, String> {
    call.only(&["title", "preset", "write"])?;
    let title = call.required("title")?;
    let preset = match call.text("preset")? {
        None => crate::config::preset::cli_override(),
        Some(name) => Some(
            Preset::parse(name)
                .ok_or_else(|| format!("unknown preset `{name}` (helix, madr or nygard)"))?,
        ),
    };
    let write = call.flag("write")?;
    let mode = if write { Mode::Write } else { Mode::Preview };
    let outcome = new_adr::make(scope.root(), scope.base(), title, preset, mode)
        .map_err(|e| format!("{e:#}"))?;
    let (path, place, template, text) = match outcome {
        Outcome::Created {
            path,
            place,
            template,
            text,
            ..
        } => (path, place, template, text),
        Outcome::Exists { display } => {
            return Err(format!(
                "{display} already exists; nothing was written (choose another title, or edit that file)"
            ));
        }
        Outcome::Skipped { display, reason } => {
            return Err(format!(
                "{display} would never be checked: {reason}; nothing was written (choose another title, or change adr.globs / adr.exclude)"
            ));
        }
    };
    let shown = crate::paths::display(scope.root(), &path);
    // A draft takes no number; the next free one is told all the same.
    let next = match &place {
        Place::AdrDirectory(id) => id.clone(),
        Place::Session(_) => next_number(scope, preset)?,
    };
    let (place_name, session, where_) = match &place {
        Place::Session(session) => (
            "session",
            Some(session.clone()),
            format!(
                "a draft in session {session} (no number until `helix-gate finalize {shown}` assigns one; the next free number now is {next})"
            ),
        ),
        Place::AdrDirectory(id) => ("adr-directory", None, format!("ADR-{id}")),
    };
    let state = if write {
        format!("written: {shown}")
    } else {
        format!("not written: save it as {shown} (or call new_adr_template again with write: true)")
    };
    let header = format!(
        "{state}\nfile: {shown} ({where_}, template {template})\nnext free ADR number: {next}\nreplace every <...> placeholder, then validate_adr\n\n"
    );
    let structured = json!({
        "written": write,
        "path": shown,
        "place": place_name,
        "session": session,
        "template": template,
        "next_number": next,
        "text": text,
    });
    Ok(Answer::ok(header + &text, Some(structured)))
}

/// The next free number of the ADR directory (1, padded, when there is none yet).
fn next_number(scope: &Scope, preset: Option<Preset>) -> Result<String, String> {
    let settings =
        crate::config::Settings::load_with(scope.root(), preset).map_err(|e| e.to_string())?;
    let width = settings.adr.number_width;
    let dir = crate::paths::absolute(&scope.root().join(&settings.adr.directory));
    if !dir.is_dir() {
        return Ok(crate::adr_dir::catalog::format_number_width(1, width));
    }
    let engine =
        Engine::with_settings(scope.root(), settings, None).map_err(|e| format!("{e:#}"))?;
    let number = crate::adr_dir::catalog::Catalog::load(&engine, &dir)
        .and_then(|c| c.next_number())
        .map_err(|e| format!("{e:#}"))?;
    Ok(crate::adr_dir::catalog::format_number_width(number, width))
}

fn gate(scope: &Scope, call: &Call) -> Result<Answer, String> {
    call.only(&["phases", "phase"])?;
    let phase = call.required("phase")?;
    let (plan, _) = scope.entry(call.required("phases")?, MAX_PLAN, false, false)?;
    let result = crate::gate::run_phase_with(scope.root(), &plan, phase, Reviewer::Withheld);
    let structured = serde_json::to_value(&result).ok();
    Ok(Answer::ok(
        crate::render::gate::phase_json(&result),
        structured,
    ))
}

/// The largest phase plan read (the gate's own limit).
const MAX_PLAN: u64 = 1024 * 1024;
