//! `helix-gate schema NAME`: the JSON Schemas of the three YAML config files, generated
//! from the types that read them, so editors (yaml-language-server) can complete and
//! check them. `schemas/*.schema.json` are these outputs, kept equal by a test.

use clap::ValueEnum;
use schemars::generate::SchemaSettings;
use serde_json::Value;

use super::ExitStatus;
use super::terminal::print;
use crate::config::Settings;

/// The config files with a schema; the value name is the file's name without `.yaml`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SchemaName {
    /// config/helix-gate.yaml
    HelixGate,
    /// config/adr-completeness-rules.yaml
    AdrCompletenessRules,
    /// config/approvals.yaml
    Approvals,
}

pub(super) fn run(name: SchemaName) -> anyhow::Result<ExitStatus> {
    print(&schema(name))?;
    Ok(ExitStatus::Success)
}

/// The schema of `name` as pretty JSON with a trailing newline.
pub(super) fn schema(name: SchemaName) -> String {
    // Draft 7: the newest draft every yaml-language-server release understands.
    let generator = SchemaSettings::draft07().into_generator();
    let (schema, file, overlay) = match name {
        SchemaName::HelixGate => (
            generator.into_root_schema_for::<Settings>(),
            "config/helix-gate.yaml",
            true,
        ),
        SchemaName::AdrCompletenessRules => (
            crate::config::rules_file::json_schema(generator),
            "config/adr-completeness-rules.yaml",
            false,
        ),
        SchemaName::Approvals => (
            crate::approval::settings::json_schema(generator),
            "config/approvals.yaml",
            true,
        ),
    };
    let mut value = schema.to_value();
    if overlay {
        // A repository's settings and approvals files are merged over the shipped ones
        // key by key, so any key may be left out; helix-gate checks the merged result.
        drop_required(&mut value);
    }
    // `$schema` and a title first, where a reader of the file looks.
    let mut head = serde_json::Map::new();
    if let Value::Object(map) = &mut value {
        if let Some(draft) = map.remove("$schema") {
            head.insert("$schema".into(), draft);
        }
        // The type's name (`Settings`, `RawFile`) means nothing to a user.
        map.remove("title");
        head.insert("title".into(), Value::String(format!("helix-gate {file}")));
        head.insert(
            "description".into(),
            Value::String(format!(
                "Generated from helix-gate's types by `helix-gate schema {}`.",
                name.to_possible_value()
                    .map(|v| v.get_name().to_owned())
                    .unwrap_or_default()
            )),
        );
        head.append(map);
    }
    serde_json::to_string_pretty(&Value::Object(head)).unwrap_or_default() + "\n"
}

fn drop_required(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if map.get("required").is_some_and(Value::is_array) {
                map.remove("required");
            }
            map.values_mut().for_each(drop_required);
        }
        Value::Array(items) => items.iter_mut().for_each(drop_required),
        _ => {}
    }
}
