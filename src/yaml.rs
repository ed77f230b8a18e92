//! The one place that knows which YAML library helix-gate uses.
//!
//! `serde_yaml` is deprecated upstream but stable; every YAML read in the crate
//! (ADR front matter, rules file, settings) goes through these functions so the
//! library can be swapped without touching callers.

use serde::de::DeserializeOwned;

/// A parsed YAML value (re-exported so callers never name `serde_yaml`).
pub type Value = serde_yaml::Value;
/// A YAML mapping.
pub type Mapping = serde_yaml::Mapping;

/// A YAML syntax or type error with the 1-based line it points at, when known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub message: String,
    pub line: Option<usize>,
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for YamlError {}

impl From<serde_yaml::Error> for YamlError {
    fn from(err: serde_yaml::Error) -> Self {
        let line = err.location().map(|l| l.line());
        // serde_yaml appends " at line X column Y" to the message; keep only the cause.
        let mut message = err.to_string();
        if let Some(idx) = message.find(" at line ") {
            message.truncate(idx);
        }
        YamlError { message, line }
    }
}

/// Parse YAML text into an untyped value.
pub fn parse_value(text: &str) -> Result<Value, YamlError> {
    Ok(serde_yaml::from_str(text)?)
}

/// Parse YAML text into a typed value.
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    Ok(serde_yaml::from_str(text)?)
}

/// Convert an untyped value into a typed one (used after merging layers).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, YamlError> {
    Ok(serde_yaml::from_value(value)?)
}

/// Render a value as YAML text (for `explain` and diagnostics).
pub fn to_string(value: &Value) -> String {
    serde_yaml::to_string(value).unwrap_or_default()
}

/// Deep-merge `overlay` into `base`: mappings merge key by key, everything else replaces.
pub fn merge(base: &mut Value, overlay: Value) {
    match (base, overlay) {
        (Value::Mapping(base_map), Value::Mapping(overlay_map)) => {
            for (key, value) in overlay_map {
                match base_map.get_mut(&key) {
                    Some(slot) => merge(slot, value),
                    None => {
                        base_map.insert(key, value);
                    }
                }
            }
        }
        (slot, value) => *slot = value,
    }
}

/// A short, human-readable form of a scalar value (`major`, `15`, `true`).
pub fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Tagged(tagged) => scalar_text(&tagged.value),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_keeps_line() {
        let err = parse_value("a: 1\nb: [unclosed\n").unwrap_err();
        assert!(err.line.is_some(), "{err:?}");
        assert!(!err.message.contains(" at line "));
    }

    #[test]
    fn merge_is_deep() {
        let mut base = parse_value("a: {x: 1, y: 2}\nb: 3").unwrap();
        merge(&mut base, parse_value("a: {y: 5}").unwrap());
        assert_eq!(base, parse_value("a: {x: 1, y: 5}\nb: 3").unwrap());
    }

    #[test]
    fn alias_bomb_is_rejected_not_expanded() {
        let bomb = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n\
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n\
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\n\
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\n\
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n";
        assert!(parse_value(bomb).is_err());
    }

    #[test]
    fn deep_nesting_is_rejected() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(parse_value(&deep).is_err());
    }
}
