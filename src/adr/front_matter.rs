//! Front matter: the YAML block between a leading `---` line and the next `---` line.
//!
//! Splitting happens at byte offsets (no regex over the document); parsing goes
//! through [`crate::yaml`]. Field types are checked here once, so rules read a
//! typed view and never re-parse YAML.

use std::collections::BTreeMap;

use crate::yaml::{self, Mapping, Value, YamlError};

/// Where the front matter sits in the document text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the first YAML byte (after the opening `---` line).
    pub yaml_start: usize,
    /// Byte offset one past the last YAML byte (start of the closing `---` line).
    pub yaml_end: usize,
    /// Byte offset where the body starts (after the closing `---` line).
    pub body_start: usize,
}

/// Outcome of splitting a document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// The document does not start with a `---` line.
    Missing,
    /// A `---` opening line without a closing one.
    Unclosed,
    Found(Span),
}

fn is_fence_line(line: &str) -> bool {
    line.trim_end_matches(['\r', '\n']).trim_end() == "---"
}

/// Split `text` (BOM already removed) into front matter and body.
pub fn split(text: &str) -> Split {
    let mut lines = text.split_inclusive('\n');
    let Some(first) = lines.next() else {
        return Split::Missing;
    };
    if !is_fence_line(first) {
        return Split::Missing;
    }
    let yaml_start = first.len();
    let mut offset = yaml_start;
    for line in lines {
        if is_fence_line(line) {
            return Split::Found(Span {
                yaml_start,
                yaml_end: offset,
                body_start: offset + line.len(),
            });
        }
        offset += line.len();
    }
    Split::Unclosed
}

/// A field whose type was checked.
#[derive(Debug, Clone, PartialEq)]
pub enum Field<T> {
    Missing,
    /// Present but of the wrong type; the text says what was found.
    Invalid(String),
    Valid(T),
}

impl<T> Field<T> {
    pub fn valid(&self) -> Option<&T> {
        match self {
            Field::Valid(v) => Some(v),
            _ => None,
        }
    }
}

/// The `files:` block.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Files {
    pub create: Vec<String>,
    pub modify: Vec<String>,
    pub docs: Vec<String>,
}

/// Typed view of the front matter; `map` keeps every field, known or not.
#[derive(Debug, Clone)]
pub struct FrontMatter {
    pub map: Mapping,
    /// `adr_id` as written (string or number), normalised to text.
    pub adr_id: Field<String>,
    pub title: Field<String>,
    pub status: Field<String>,
    pub files: Field<Files>,
    /// ADR numbers from `depends_on` (strings or numbers).
    pub depends_on: Vec<String>,
    /// 1-based document line of each top-level key.
    pub key_lines: BTreeMap<String, usize>,
}

/// Why the front matter could not be read as a map.
#[derive(Debug, Clone, PartialEq)]
pub enum FrontMatterError {
    Missing,
    Unclosed,
    /// YAML error with its 1-based document line.
    Invalid(YamlError),
    /// Valid YAML, but not a mapping (a list, a scalar, empty).
    NotAMap(&'static str),
    /// Refused before parsing: beyond [`LIMITS`] (line counted in the document).
    TooComplex(yaml::TooComplex),
}

/// What a front matter may hold before it is parsed. The largest front matter among
/// the 122 public and HELIX ADRs at hand is 1,078 bytes with three levels of nesting,
/// a few `[` and no aliases; the worst text within these limits parses in about 40 ms
/// (`scripts/bench.sh worst`: yaml-flow-at-limits, yaml-quoted-brackets).
pub const LIMITS: yaml::Limits = yaml::Limits {
    max_bytes: 64 * 1024,
    max_depth: 32,
    max_flow_brackets: 256,
    aliases: false,
};

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "empty",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a map",
        Value::Tagged(_) => "a tagged value",
    }
}

/// A front matter field that must be a single text or number value.
pub fn text_field(map: &Mapping, key: &str) -> Field<String> {
    match map.get(key) {
        None | Some(Value::Null) => Field::Missing,
        Some(value @ (Value::String(_) | Value::Number(_))) => match yaml::scalar_text(value) {
            Some(text) if text.trim().is_empty() => Field::Missing,
            Some(text) => Field::Valid(text),
            None => Field::Missing,
        },
        Some(other) => Field::Invalid(format!("expected text, found {}", kind_of(other))),
    }
}

fn string_list(value: Option<&Value>, name: &str) -> Result<Vec<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Sequence(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(format!(
                    "files.{name}[{i}] must be a string, found {}",
                    kind_of(other)
                )),
            })
            .collect(),
        Some(other) => Err(format!(
            "files.{name} must be a list of strings, found {}",
            kind_of(other)
        )),
    }
}

fn files_field(map: &Mapping) -> Field<Files> {
    match map.get("files") {
        None => Field::Missing,
        Some(Value::Null) => Field::Valid(Files::default()),
        Some(Value::Mapping(files)) => {
            let parts = (
                string_list(files.get("create"), "create"),
                string_list(files.get("modify"), "modify"),
                string_list(files.get("docs"), "docs"),
            );
            match parts {
                (Ok(create), Ok(modify), Ok(docs)) => Field::Valid(Files {
                    create,
                    modify,
                    docs,
                }),
                (Err(e), _, _) | (_, Err(e), _) | (_, _, Err(e)) => Field::Invalid(e),
            }
        }
        Some(other) => Field::Invalid(format!(
            "files must be a map with create/modify/docs lists, found {}",
            kind_of(other)
        )),
    }
}

fn depends_on(map: &Mapping) -> Vec<String> {
    match map.get("depends_on") {
        Some(Value::Sequence(items)) => items.iter().filter_map(yaml::scalar_text).collect(),
        Some(value @ (Value::String(_) | Value::Number(_))) => {
            yaml::scalar_text(value).into_iter().collect()
        }
        _ => Vec::new(),
    }
}

fn key_lines(yaml_text: &str, first_line: usize) -> BTreeMap<String, usize> {
    let mut lines = BTreeMap::new();
    for (i, line) in yaml_text.lines().enumerate() {
        if line.starts_with([' ', '\t', '-', '#']) {
            continue;
        }
        if let Some((key, _)) = line.split_once(':') {
            let key = key.trim().trim_matches(['"', '\'']);
            if !key.is_empty() {
                lines.entry(key.to_owned()).or_insert(first_line + i);
            }
        }
    }
    lines
}

/// Parse the YAML between the fences. `first_line` is the document line of the first YAML line.
pub fn parse(yaml_text: &str, first_line: usize) -> Result<FrontMatter, FrontMatterError> {
    yaml::check_limits(yaml_text, &LIMITS).map_err(|mut err| {
        err.line += first_line - 1;
        FrontMatterError::TooComplex(err)
    })?;
    let value = yaml::parse_value_within(yaml_text, &LIMITS).map_err(|mut err| {
        err.line = err.line.map(|l| l + first_line - 1);
        FrontMatterError::Invalid(err)
    })?;
    let map = match value {
        Value::Mapping(map) => map,
        other => return Err(FrontMatterError::NotAMap(kind_of(&other))),
    };
    Ok(FrontMatter {
        adr_id: text_field(&map, "adr_id"),
        title: text_field(&map, "title"),
        status: text_field(&map, "status"),
        files: files_field(&map),
        depends_on: depends_on(&map),
        key_lines: key_lines(yaml_text, first_line),
        map,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_finds_fences_with_crlf() {
        let text = "---\r\nadr_id: 1\r\n---\r\n# Body\r\n";
        let Split::Found(span) = split(text) else {
            panic!("not found")
        };
        assert_eq!(&text[span.yaml_start..span.yaml_end], "adr_id: 1\r\n");
        assert_eq!(&text[span.body_start..], "# Body\r\n");
    }

    #[test]
    fn split_missing_and_unclosed() {
        assert_eq!(split("# Title\n"), Split::Missing);
        assert_eq!(split(""), Split::Missing);
        assert_eq!(split("---\nadr_id: 1\n"), Split::Unclosed);
    }

    #[test]
    fn parse_types_fields() {
        let fm = parse(
            "adr_id: 15\ntitle: T\nstatus: Proposed\nfiles:\n  create: [a.rs]\n  modify: 3\ndepends_on: [\"002\", 3]\nextra: yes\n",
            2,
        )
        .unwrap();
        assert_eq!(fm.adr_id, Field::Valid("15".into()));
        assert!(matches!(fm.files, Field::Invalid(ref m) if m.contains("files.modify")));
        assert_eq!(fm.depends_on, vec!["002", "3"]);
        assert_eq!(fm.key_lines["status"], 4);
        assert!(fm.map.contains_key("extra"));
    }

    #[test]
    fn parse_rejects_list_and_reports_yaml_line() {
        assert_eq!(
            parse("- a\n- b\n", 2).unwrap_err(),
            FrontMatterError::NotAMap("a list")
        );
        let FrontMatterError::Invalid(err) = parse("a: 1\nb: [x\n", 2).unwrap_err() else {
            panic!()
        };
        assert!(err.line.unwrap() >= 3, "{err:?}");
    }
}
