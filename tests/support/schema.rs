//! The keys a JSON Schema of helix-gate's configuration describes, as the docs
//! tests look them up (`tests/it/readme.rs`, `tests/it/reference.rs`).

use serde_json::Value;

/// Dotted paths of every property of `schema`, `$ref`s into `definitions` and
/// `anyOf`/`allOf`/`oneOf` branches followed, children before their parent.
pub(crate) fn keys(schema: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(schema, schema, "", &mut out);
    out
}

fn walk(schema: &Value, node: &Value, prefix: &str, out: &mut Vec<String>) {
    let node = match node.get("$ref").and_then(Value::as_str) {
        Some(r) => &schema["definitions"][r.rsplit('/').next().unwrap()],
        None => node,
    };
    for combinator in ["anyOf", "allOf", "oneOf"] {
        for branch in node[combinator].as_array().into_iter().flatten() {
            walk(schema, branch, prefix, out);
        }
    }
    for (name, sub) in node["properties"].as_object().into_iter().flatten() {
        let path = format!("{prefix}{name}");
        walk(schema, sub, &format!("{path}."), out);
        out.push(path);
    }
}
