//! JSON Schemas of the config files: `schemas/*.schema.json` equal what `helix-gate
//! schema NAME` generates from the types (`HELIX_GATE_UPDATE_SCHEMAS=1` rewrites them),
//! the shipped config files point editors at them and are valid under them, and a
//! typo in a key is caught by them as it is by helix-gate.

use serde_json::Value;

use crate::support::cli::{code, manifest_dir, run, stderr, stdout};

const NAMES: [&str; 3] = ["helix-gate", "adr-completeness-rules", "approvals"];

fn generated(name: &str) -> Value {
    let out = run(&manifest_dir(), &["schema", name]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

#[test]
fn checked_in_schemas_equal_the_generated_ones() {
    let update = std::env::var("HELIX_GATE_UPDATE_SCHEMAS").as_deref() == Ok("1");
    for name in NAMES {
        let out = run(&manifest_dir(), &["schema", name]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let path = manifest_dir().join(format!("schemas/{name}.schema.json"));
        if update {
            std::fs::write(&path, stdout(&out)).unwrap();
        }
        let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            checked_in == stdout(&out),
            "{} is out of date: run `HELIX_GATE_UPDATE_SCHEMAS=1 cargo test --test it schemas`",
            path.display()
        );
    }
    let out = run(&manifest_dir(), &["schema", "nope"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn shipped_config_files_point_at_their_schema_and_are_valid() {
    for name in NAMES {
        let text =
            std::fs::read_to_string(manifest_dir().join(format!("config/{name}.yaml"))).unwrap();
        assert_eq!(
            text.lines().next().unwrap(),
            format!("# yaml-language-server: $schema=../schemas/{name}.schema.json")
        );
        let config: Value = yaml_serde::from_str(&text).unwrap();
        let schema = generated(name);
        let errors = validate(&schema, &schema, &config, "");
        assert!(errors.is_empty(), "config/{name}.yaml: {errors:#?}");
    }
}

#[test]
fn schemas_reject_unknown_keys_and_wrong_types() {
    let schema = generated("helix-gate");
    let ok: Value = yaml_serde::from_str("hook:\n  budget: 5\n").unwrap();
    assert!(
        validate(&schema, &schema, &ok, "").is_empty(),
        "a partial file is fine"
    );
    let typo: Value = yaml_serde::from_str("hook:\n  budgte: 5\n").unwrap();
    assert_eq!(
        validate(&schema, &schema, &typo, ""),
        ["/hook: unknown key budgte"]
    );
    let wrong: Value = yaml_serde::from_str("adr:\n  globs: adr/*.md\n").unwrap();
    assert_eq!(
        validate(&schema, &schema, &wrong, ""),
        ["/adr/globs: expected array"]
    );

    let schema = generated("approvals");
    let bad: Value = yaml_serde::from_str("on_rejection:\n  action: shrug\n").unwrap();
    assert_eq!(validate(&schema, &schema, &bad, "").len(), 1);

    let schema = generated("adr-completeness-rules");
    let rule: Value = yaml_serde::from_str(
        "contextual_rules:\n  - id: x\n    when: {a: b}\n    require: {sections: [{name: S}]}\n    message: m\n    colour: red\n",
    )
    .unwrap();
    assert_eq!(
        validate(&schema, &schema, &rule, ""),
        ["/contextual_rules/0: unknown key colour"]
    );
}

/// The subset of JSON Schema draft 7 that schemars writes for these types: `$ref` into
/// `definitions`, `type` (one or several), `properties`, `additionalProperties`,
/// `required`, `items`, `enum`, `const`, `oneOf`/`anyOf`, `minimum`. Returns the problems found.
fn validate(root: &Value, schema: &Value, value: &Value, at: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let Some(schema) = schema.as_object() else {
        return errors; // `true`: anything goes
    };
    if let Some(reference) = schema.get("$ref").and_then(Value::as_str) {
        let name = reference.strip_prefix("#/definitions/").unwrap();
        return validate(root, &root["definitions"][name], value, at);
    }
    if let Some(types) = schema.get("type") {
        let types: Vec<&str> = match types {
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            other => vec![other.as_str().unwrap()],
        };
        let fits = types.iter().any(|t| match *t {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "boolean" => value.is_boolean(),
            "integer" => value.is_i64() || value.is_u64(),
            "number" => value.is_number(),
            "null" => value.is_null(),
            other => panic!("type {other}"),
        });
        if !fits {
            errors.push(format!("{at}: expected {}", types.join(" or ")));
            return errors;
        }
    }
    if let Some(options) = schema.get("enum").and_then(Value::as_array)
        && !options.contains(value)
    {
        errors.push(format!("{at}: {value} is not one of {options:?}"));
    }
    if let Some(constant) = schema.get("const")
        && constant != value
    {
        errors.push(format!("{at}: {value} is not {constant}"));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            let fitting = options
                .iter()
                .filter(|option| validate(root, option, value, at).is_empty())
                .count();
            if fitting == 0 || (key == "oneOf" && fitting > 1) {
                errors.push(format!("{at}: {fitting} of the {key} options fit"));
            }
        }
    }
    if let (Some(minimum), Some(number)) = (
        schema.get("minimum").and_then(Value::as_f64),
        value.as_f64(),
    ) && number < minimum
    {
        errors.push(format!("{at}: {number} is below {minimum}"));
    }
    if let Some(map) = value.as_object() {
        let properties = schema.get("properties").and_then(Value::as_object);
        for (key, item) in map {
            match properties.and_then(|p| p.get(key)) {
                Some(sub) => errors.extend(validate(root, sub, item, &format!("{at}/{key}"))),
                None => match schema.get("additionalProperties") {
                    Some(Value::Bool(false)) => {
                        errors.push(format!("{at}: unknown key {key}"));
                    }
                    Some(sub) => errors.extend(validate(root, sub, item, &format!("{at}/{key}"))),
                    None => {}
                },
            }
        }
        for key in schema
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if !map.contains_key(key.as_str().unwrap()) {
                errors.push(format!("{at}: missing {key}"));
            }
        }
    }
    if let (Some(items), Some(list)) = (schema.get("items"), value.as_array()) {
        for (i, item) in list.iter().enumerate() {
            errors.extend(validate(root, items, item, &format!("{at}/{i}")));
        }
    }
    errors
}

/// `helix-gate schema` without a name shows the usage of `--help`, which names the three
/// files to choose from.
#[test]
fn schema_without_a_name_shows_the_usage_of_help_with_the_names() {
    let usage = |text: &str| {
        text.lines()
            .find(|line| line.starts_with("Usage:"))
            .unwrap_or_default()
            .to_owned()
    };
    let help = run(&manifest_dir(), &["schema", "--help"]);
    assert_eq!(code(&help), 0, "{}", stderr(&help));
    assert_eq!(
        usage(&stdout(&help)),
        format!("Usage: helix-gate schema [OPTIONS] <{}>", NAMES.join("|"))
    );
    let out = run(&manifest_dir(), &["schema"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("<NAME>"), "{}", stderr(&out));
    assert_eq!(
        usage(&stderr(&out)),
        usage(&stdout(&help)),
        "{}",
        stderr(&out)
    );
}
