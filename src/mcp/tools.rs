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

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};

use super::scope::{Kind, Refused, Scope};
use crate::adr_dir::new::{self as new_adr, Mode, Outcome, Place};
use crate::config::Preset;
use crate::engine::Engine;
use crate::gate::Reviewer;
use crate::rules::WorkTree;

// The arguments of each tool. `tools/list` shows their JSON Schema (generated from these
// types: one line of doc per field is its description) and `tools/call` reads them with
// serde, after `Call::arguments` has checked them against that schema for its own messages.

// validate_adr
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ValidateArgs {
    /// The ADR file or folder, relative to the server's working folder or absolute, inside the repository. With `content`: the name the text is checked under (need not exist; default ADR.md).
    path: Option<String>,
    /// The ADR's text, checked instead of the file (nothing is written).
    content: Option<String>,
}

// explain_rule
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExplainArgs {
    /// The rule id, e.g. section-missing or major-needs-migration.
    id: String,
}

// list_rules: none
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NoArgs {}

// new_adr_template
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NewTemplateArgs {
    /// The ADR's title (one line).
    title: String,
    /// The ADR format, instead of the repository's configured one (as `helix-gate new --preset`).
    #[schemars(extend("enum" = ["helix", "madr", "nygard"]))]
    preset: Option<String>,
    /// Create the file (default false: only return it).
    #[serde(default)]
    write: bool,
}

// run_gate
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GateArgs {
    /// The phase plan (e.g. output/phases.yaml), inside the repository.
    phases: String,
    /// The id of the phase whose gates to run.
    phase: String,
}

// governing_adrs
#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct GoverningArgs {
    /// The files (or folders) to ask about, relative to the server's working folder or absolute, inside the repository; they need not exist yet.
    paths: Vec<String>,
}

/// The JSON Schema of `T` as an MCP `inputSchema`: inline (no `$schema`, no title, no
/// empty `properties`), an optional argument as its plain type (`["string", "null"]`
/// becomes `"string"`: a null argument is taken as an absent one).
fn input_schema<T: JsonSchema>() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    settings.meta_schema = None;
    let mut schema = settings
        .into_generator()
        .into_root_schema_for::<T>()
        .to_value();
    let Value::Object(object) = &mut schema else {
        return schema;
    };
    object.remove("title");
    if let Some(Value::Object(properties)) = object.get_mut("properties") {
        for property in properties.values_mut() {
            if let Some(Value::Array(types)) = property.get("type")
                && let [plain, Value::String(null)] = types.as_slice()
                && null == "null"
            {
                property["type"] = plain.clone();
            }
        }
        if properties.is_empty() {
            object.remove("properties");
        }
    }
    schema
}

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
            "inputSchema": input_schema::<ValidateArgs>(),
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        },
        {
            "name": "explain_rule",
            "title": "Explain a rule",
            "description": "The documentation of one rule by its id (as a finding names it): what it checks, why, and how to satisfy it.",
            "inputSchema": input_schema::<ExplainArgs>(),
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        },
        {
            "name": "list_rules",
            "title": "List the rules",
            "description": "Every rule helix-gate checks: the built-in ones and the repository's contextual rules, with id, severity and summary.",
            "inputSchema": input_schema::<NoArgs>(),
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        },
        {
            "name": "new_adr_template",
            "title": "Template for a new ADR",
            "description": "The template of a new ADR with its fields filled in (title, number, date), the file it belongs in and the next \
                free ADR number, as `helix-gate new` makes it. Nothing is written unless `write` is true; then the file is created \
                exactly as `helix-gate new` would (never over an existing file). Replace every <...> placeholder before validating.",
            "inputSchema": input_schema::<NewTemplateArgs>(),
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false}
        },
        {
            "name": "run_gate",
            "title": "Run a phase's quality gates",
            "description": "Run the HELIX quality gate(s) of one phase of a phases.yaml, as `helix-gate gate --phases FILE --phase ID` \
                (the plan is checked first). The independent reviewer is never started here: a gate that needs it reports outcome \
                `error` and says so.",
            "inputSchema": input_schema::<GateArgs>(),
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        },
        {
            "name": "governing_adrs",
            "title": "Decisions that govern a file",
            "description": "The ADRs that govern each path, as `helix-gate governs --format json`: linked through a HELIX ADR's \
                files.create/files.modify, a `governs:` glob in its front matter, or a marker (`ADR-014`, `@adr 014`) in a comment \
                of the file; each with its status and force: binding (Accepted, Implemented: follow it), pending (Proposed), \
                context (only a marker links it) or none (Superseded, Deprecated, Rejected; a superseded ADR's successor is listed). \
                Ask before changing a file, and keep to the binding decisions.",
            "inputSchema": input_schema::<GoverningArgs>(),
            "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
        }
    ])
}

/// A `tools/call` the protocol rejects (JSON-RPC `-32602`, invalid params).
#[derive(Debug, thiserror::Error)]
pub(super) enum CallError {
    #[error("invalid params: tools/call needs an object with `name`")]
    NoObject,
    #[error("invalid params: `name` must be the tool's name (a string)")]
    NoName,
    #[error("invalid params: `arguments` must be an object")]
    ArgumentsNotObject,
    #[error(
        "invalid params: unknown tool `{0}` (tools: validate_adr, explain_rule, list_rules, new_adr_template, run_gate, governing_adrs)"
    )]
    UnknownTool(String),
}

/// Why a tool did not do what it was asked: its answer, with `isError: true`.
#[derive(Debug, thiserror::Error)]
enum ToolError {
    #[error("{tool} takes no arguments; `{key}` is not one")]
    NoArguments { tool: String, key: String },
    #[error("{tool} has no argument `{key}` (its arguments: {known})")]
    UnknownArgument {
        tool: String,
        key: String,
        known: String,
    },
    #[error("`{key}` must be a string")]
    NotAString { key: String },
    #[error("`{key}` must be true or false")]
    NotABool { key: String },
    #[error("{tool} needs `{key}`")]
    Missing { tool: String, key: String },
    /// Arguments the schema allowed that serde still refused.
    #[error("{tool}: {message}")]
    Arguments { tool: String, message: String },
    #[error("validate_adr needs `path` (a file or folder) or `content` (the ADR's text)")]
    NothingToValidate,
    #[error(
        "the content is {size} bytes, larger than adr.max_file_size ({limit} bytes); not checked"
    )]
    ContentTooLarge { size: usize, limit: u64 },
    #[error("`{0}` is a folder; with `content`, `path` names the file the text would be saved as")]
    ContentNamesFolder(String),
    #[error(
        "no rule with id `{}`{} (list_rules lists every rule)",
        crate::text::escape_controls(id),
        did_you_mean(nearest.as_deref())
    )]
    NoSuchRule { id: String, nearest: Option<String> },
    #[error("unknown preset `{0}` (helix, madr or nygard)")]
    UnknownPreset(String),
    #[error("{0} already exists; nothing was written (choose another title, or edit that file)")]
    Exists(String),
    #[error(
        "{display} would never be checked: {reason}; nothing was written (choose another title, or change adr.globs / adr.exclude)"
    )]
    NeverChecked { display: String, reason: String },
    #[error(transparent)]
    Path(#[from] Refused),
    /// What the engine, the configuration or the file system said (with its causes).
    #[error("{0}")]
    Failed(String),
}

/// "; did you mean `x`?" for the nearest rule id, when there is one.
fn did_you_mean(nearest: Option<&str>) -> String {
    nearest
        .map(|near| format!("; did you mean `{}`?", crate::text::escape_controls(near)))
        .unwrap_or_default()
}

impl ToolError {
    /// An error of the layers below, with its chain of causes (`{:#}`).
    fn failed(error: impl std::fmt::Display) -> Self {
        ToolError::Failed(format!("{error:#}"))
    }
}

/// A decoded `tools/call`.
pub(super) struct Call {
    name: String,
    args: Map<String, Value>,
}

impl Call {
    /// The call in `params`; `Err` for a request the protocol rejects (-32602).
    pub(super) fn decode(params: Option<Value>) -> Result<Call, CallError> {
        let Some(Value::Object(mut params)) = params else {
            return Err(CallError::NoObject);
        };
        let Some(Value::String(name)) = params.remove("name") else {
            return Err(CallError::NoName);
        };
        let args = match params.remove("arguments") {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(args)) => args,
            Some(_) => return Err(CallError::ArgumentsNotObject),
        };
        Ok(Call { name, args })
    }

    /// The arguments as `T`, checked against `T`'s schema first: an argument the tool
    /// does not take (a misspelt one would be ignored silently), one of the wrong type,
    /// a required one missing. A null argument is an absent one.
    fn arguments<T: DeserializeOwned + JsonSchema>(&self) -> Result<T, ToolError> {
        let schema = input_schema::<T>();
        let empty = Map::new();
        let properties = schema
            .get("properties")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let mut args = Map::new();
        for (key, value) in &self.args {
            let Some(property) = properties.get(key) else {
                return Err(if properties.is_empty() {
                    ToolError::NoArguments {
                        tool: self.name.clone(),
                        key: key.clone(),
                    }
                } else {
                    ToolError::UnknownArgument {
                        tool: self.name.clone(),
                        key: key.clone(),
                        known: properties
                            .keys()
                            .map(String::as_str)
                            .collect::<Vec<_>>()
                            .join(", "),
                    }
                });
            };
            let key = key.clone();
            match (property.get("type").and_then(Value::as_str), value) {
                (_, Value::Null) => continue,
                (Some("string"), value) if !value.is_string() => {
                    return Err(ToolError::NotAString { key });
                }
                (Some("boolean"), value) if !value.is_boolean() => {
                    return Err(ToolError::NotABool { key });
                }
                _ => args.insert(key, value.clone()),
            };
        }
        let required = schema.get("required").and_then(Value::as_array);
        if let Some(key) = required
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .find(|key| !args.contains_key(*key))
        {
            return Err(ToolError::Missing {
                tool: self.name.clone(),
                key: key.to_owned(),
            });
        }
        serde_json::from_value(Value::Object(args)).map_err(|e| ToolError::Arguments {
            tool: self.name.clone(),
            message: e.to_string(),
        })
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
pub(super) fn call(scope: &Scope, call: &Call) -> Result<Answer, CallError> {
    let run = match call.name.as_str() {
        "validate_adr" => validate,
        "explain_rule" => explain,
        "list_rules" => list_rules,
        "new_adr_template" => new_template,
        "run_gate" => gate,
        "governing_adrs" => governing,
        other => return Err(CallError::UnknownTool(other.to_owned())),
    };
    Ok(run(scope, call).unwrap_or_else(|e| Answer::failed(e.to_string())))
}

fn engine(scope: &Scope) -> Result<Engine, ToolError> {
    Engine::load(scope.root(), None).map_err(ToolError::failed)
}

fn validate(scope: &Scope, call: &Call) -> Result<Answer, ToolError> {
    let args: ValidateArgs = call.arguments()?;
    let engine = engine(scope)?;
    let limit = engine.settings.adr.max_file_size;
    let path = args.path.as_deref();
    let (reports, read_errors) = match (args.content.as_deref(), path) {
        (Some(content), named) => {
            if content.len() as u64 > limit {
                return Err(ToolError::ContentTooLarge {
                    size: content.len(),
                    limit,
                });
            }
            let (path, kind) = scope.entry(named.unwrap_or("ADR.md"), u64::MAX, true, true)?;
            if kind == Kind::Directory {
                return Err(ToolError::ContentNamesFolder(
                    named.unwrap_or_default().to_owned(),
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
                let files = engine.directory_adrs(&dir).map_err(ToolError::failed)?;
                engine.check_files(&files, true)
            }
            (file, _) => engine.check_files(&[file], false),
        },
        (None, None) => return Err(ToolError::NothingToValidate),
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

fn explain(scope: &Scope, call: &Call) -> Result<Answer, ToolError> {
    let ExplainArgs { id } = call.arguments()?;
    match crate::rule_docs::explain(scope.root(), &id, None).map_err(ToolError::failed)? {
        Some(text) => Ok(Answer::ok(text, None)),
        None => Err(ToolError::NoSuchRule {
            nearest: crate::rule_docs::nearest(scope.root(), &id, None),
            id,
        }),
    }
}

fn list_rules(scope: &Scope, call: &Call) -> Result<Answer, ToolError> {
    let NoArgs {} = call.arguments()?;
    let list = crate::rule_docs::list(scope.root(), None).map_err(ToolError::failed)?;
    let structured = serde_json::to_value(&list).ok();
    Ok(Answer::ok(list.text(), structured))
}

fn new_template(scope: &Scope, call: &Call) -> Result<Answer, ToolError> {
    let NewTemplateArgs {
        title,
        preset,
        write,
    } = call.arguments()?;
    let preset = match preset {
        None => crate::config::preset::cli_override(),
        Some(name) => Some(Preset::parse(&name).ok_or(ToolError::UnknownPreset(name))?),
    };
    let mode = if write { Mode::Write } else { Mode::Preview };
    let outcome = new_adr::make(scope.root(), scope.base(), &title, preset, mode, &[])
        .map_err(ToolError::failed)?;
    let (path, place, template, text) = match outcome {
        Outcome::Created {
            path,
            place,
            template,
            text,
            ..
        } => (path, place, template, text),
        Outcome::Exists { display } => return Err(ToolError::Exists(display)),
        Outcome::Skipped { display, reason } => {
            return Err(ToolError::NeverChecked { display, reason });
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
fn next_number(scope: &Scope, preset: Option<Preset>) -> Result<String, ToolError> {
    let settings = crate::config::Settings::load_with(scope.root(), preset)
        .map_err(|e| ToolError::Failed(e.to_string()))?;
    let width = settings.adr.number_width;
    let dir = crate::paths::absolute(&scope.root().join(&settings.adr.directory));
    if !dir.is_dir() {
        return Ok(crate::adr_dir::catalog::format_number_width(1, width));
    }
    let engine = Engine::with_settings(scope.root(), settings, None).map_err(ToolError::failed)?;
    let number = crate::adr_dir::catalog::Catalog::load(&engine, &dir)
        .and_then(|c| c.next_number())
        .map_err(ToolError::failed)?;
    Ok(crate::adr_dir::catalog::format_number_width(number, width))
}

fn gate(scope: &Scope, call: &Call) -> Result<Answer, ToolError> {
    let GateArgs { phases, phase } = call.arguments()?;
    let (plan, _) = scope.entry(&phases, MAX_PLAN, false, false)?;
    let result = crate::gate::run_phase_with(scope.root(), &plan, &phase, Reviewer::Withheld);
    let structured = serde_json::to_value(&result).ok();
    Ok(Answer::ok(
        crate::render::gate::phase_json(&result),
        structured,
    ))
}

fn governing(scope: &Scope, call: &Call) -> Result<Answer, ToolError> {
    let GoverningArgs { paths } = call.arguments()?;
    if paths.is_empty() {
        return Err(ToolError::Missing {
            tool: call.name.clone(),
            key: "paths".to_owned(),
        });
    }
    // Each path is confined to the repository (links followed) before its comments are read.
    let mut rels = Vec::new();
    for path in &paths {
        let place = scope.place(path)?;
        rels.push(crate::adr_dir::governs::shown(crate::paths::display(
            scope.root(),
            &place,
        )));
    }
    let index = crate::adr_dir::governs::index(scope.root()).map_err(ToolError::failed)?;
    let governance = crate::adr_dir::governs::resolve_all(scope.root(), &index, &rels);
    let structured = serde_json::to_value(&governance).ok();
    let text = serde_json::to_string_pretty(&governance).map_err(ToolError::failed)?;
    Ok(Answer::ok(text, structured))
}

/// The largest phase plan read (the gate's own limit).
const MAX_PLAN: u64 = 1024 * 1024;

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, args: Value) -> Call {
        let mut params = Map::new();
        params.insert("name".to_owned(), json!(name));
        params.insert("arguments".to_owned(), args);
        Call::decode(Some(Value::Object(params))).unwrap()
    }

    #[test]
    fn the_input_schema_is_the_argument_type() {
        assert_eq!(
            input_schema::<NewTemplateArgs>(),
            json!({
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
            })
        );
        assert_eq!(
            input_schema::<NoArgs>(),
            json!({"type": "object", "additionalProperties": false})
        );
    }

    #[test]
    fn arguments_are_checked_against_the_schema() {
        let err = |name: &str, args: Value| -> String {
            match name {
                "list_rules" => call(name, args).arguments::<NoArgs>().err(),
                _ => call(name, args).arguments::<NewTemplateArgs>().err(),
            }
            .unwrap()
            .to_string()
        };
        assert_eq!(
            err("list_rules", json!({"x": 1})),
            "list_rules takes no arguments; `x` is not one"
        );
        assert_eq!(
            err("new_adr_template", json!({"titel": "x"})),
            "new_adr_template has no argument `titel` (its arguments: title, preset, write)"
        );
        assert_eq!(
            err("new_adr_template", json!({"title": 1})),
            "`title` must be a string"
        );
        assert_eq!(
            err("new_adr_template", json!({"title": "x", "write": "yes"})),
            "`write` must be true or false"
        );
        assert_eq!(
            err("new_adr_template", json!({"title": null})),
            "new_adr_template needs `title`"
        );
        // null is absent: the default applies.
        let args: NewTemplateArgs = call(
            "new_adr_template",
            json!({"title": "x", "write": null, "preset": null}),
        )
        .arguments()
        .unwrap();
        assert!(!args.write && args.preset.is_none() && args.title == "x");
    }

    #[test]
    fn an_unknown_rule_names_the_nearest_one() {
        let err = |nearest: Option<&str>| {
            ToolError::NoSuchRule {
                id: "section-mising".to_owned(),
                nearest: nearest.map(str::to_owned),
            }
            .to_string()
        };
        assert_eq!(
            err(Some("section-missing")),
            "no rule with id `section-mising`; did you mean `section-missing`? (list_rules lists every rule)"
        );
        assert_eq!(
            err(None),
            "no rule with id `section-mising` (list_rules lists every rule)"
        );
    }

    #[test]
    fn a_malformed_call_is_a_protocol_error() {
        assert!(matches!(
            Call::decode(Some(json!({"name": 7}))),
            Err(CallError::NoName)
        ));
        assert!(matches!(
            Call::decode(Some(json!({"name": "x", "arguments": []}))),
            Err(CallError::ArgumentsNotObject)
        ));
        assert!(matches!(Call::decode(None), Err(CallError::NoObject)));
    }
}
