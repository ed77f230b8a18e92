//! The one place that knows which YAML library helix-gate uses.
//!
//! `yaml_serde`, the YAML organization's maintained fork of the deprecated
//! `serde_yaml` (same API, libyaml translated to Rust underneath); every YAML read
//! in the crate (ADR front matter, rules file, settings) goes through these
//! functions so the library can be swapped without touching callers.

use serde::de::DeserializeOwned;

/// A parsed YAML value (re-exported so callers never name `yaml_serde`).
pub type Value = yaml_serde::Value;
/// A YAML mapping.
pub type Mapping = yaml_serde::Mapping;

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

impl From<yaml_serde::Error> for YamlError {
    fn from(err: yaml_serde::Error) -> Self {
        let line = err.location().map(|l| l.line());
        // yaml_serde appends " at line X column Y" to the message; keep only the cause.
        let mut message = err.to_string();
        if let Some(idx) = message.find(" at line ") {
            message.truncate(idx);
        }
        YamlError { message, line }
    }
}

/// Parse YAML text into an untyped value, within [`CONFIG_LIMITS`].
pub fn parse_value(text: &str) -> Result<Value, YamlError> {
    parse_value_within(text, &CONFIG_LIMITS)
}

/// Parse YAML text into an untyped value after checking it against `limits`.
pub fn parse_value_within(text: &str, limits: &Limits) -> Result<Value, YamlError> {
    check_limits(text, limits)?;
    Ok(yaml_serde::from_str(text)?)
}

/// Parse YAML text into a typed value, within [`CONFIG_LIMITS`].
pub fn parse<T: DeserializeOwned>(text: &str) -> Result<T, YamlError> {
    check_limits(text, &CONFIG_LIMITS)?;
    Ok(yaml_serde::from_str(text)?)
}

/// What a YAML text may contain before it reaches the parser.
///
/// The parser has two costs that grow faster than the text: libyaml's scanner walks
/// every open flow collection for each token, so `x: [[[[...` takes quadratic time
/// (40 KB took 3.3 s, 150 KB more than 30 s), and `yaml_serde` copies an anchor's
/// content for every alias (`[*a, *a, ...]` of 100 KB took 7 s; aliases of aliases
/// multiply). [`check_limits`] measures both in one linear pass and refuses the text
/// before parsing; the limits are far above what a hand-written file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Size of the text in bytes.
    pub max_bytes: usize,
    /// Levels of nesting: block levels (indentation, `- ` and `? ` entries) plus
    /// open flow collections (`[`, `{`).
    pub max_depth: usize,
    /// `[` and `{` anywhere in the text, quoted or not. The depth above is measured
    /// without tracking quotes (a `]` inside a string could lower it); this count
    /// bounds the real flow depth whatever the quoting.
    pub max_flow_brackets: usize,
    /// Whether aliases (`*name`) may refer to anchors (`&name`); when they may, nothing
    /// bounds what they expand to.
    pub aliases: bool,
}

/// Limits for configuration files (settings, rules, approvals), which a cloned
/// repository brings along: 40 times the largest real one (6 KB, 18 `[`), and small
/// enough that the worst text within them parses in about 0.15 s (256 KiB at a real
/// flow depth of 480, hidden from the depth count by quoted `]`).
pub const CONFIG_LIMITS: Limits = Limits {
    max_bytes: 256 * 1024,
    max_depth: 64,
    max_flow_brackets: 512,
    aliases: false,
};

/// Why a text was refused before parsing, with the 1-based line where a limit was passed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooComplex {
    pub message: String,
    pub line: usize,
}

impl From<TooComplex> for YamlError {
    fn from(err: TooComplex) -> Self {
        YamlError {
            message: format!("the text {}; refused before parsing", err.message),
            line: Some(err.line),
        }
    }
}

/// Whether an `&` or `*` after `prev` can start a token (an anchor or an alias).
/// A superset of libyaml's token starts: after a blank, a line break (also the last
/// byte of NEL, LS and PS), a flow indicator or an indicator that may precede a node.
fn may_start_token(prev: Option<u8>) -> bool {
    matches!(
        prev,
        None | Some(
            b' ' | b'\t'
                | b'\n'
                | b'\r'
                | b'['
                | b'{'
                | b','
                | b':'
                | b'-'
                | b'?'
                | 0x85
                | 0xA8
                | 0xA9
        )
    )
}

/// Whether `byte` can be the first character of an anchor or alias name.
fn is_name_start(byte: Option<u8>) -> bool {
    byte.is_some_and(|b| {
        !matches!(
            b,
            b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
        )
    })
}

/// Block levels a line opens: its place in the indentation stack plus the compact
/// entries (`- - x`, `? x`) at its start. Blank and comment lines open none (`None`).
fn block_depth(line: &[u8], indents: &mut Vec<usize>) -> Option<usize> {
    let indent = line.iter().take_while(|&&b| b == b' ').count();
    let rest = &line[indent..];
    if matches!(rest.first(), None | Some(b'\n' | b'\r' | b'#')) {
        return None;
    }
    while indents.last().is_some_and(|&top| top > indent) {
        indents.pop();
    }
    if indents.last() != Some(&indent) {
        indents.push(indent);
    }
    let mut compact = 0;
    let mut i = 0;
    while i < rest.len()
        && matches!(rest[i], b'-' | b'?')
        && matches!(rest.get(i + 1), None | Some(b' ' | b'\t' | b'\n' | b'\r'))
    {
        compact += 1;
        i += 1;
        while matches!(rest.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
    }
    Some(indents.len() + compact)
}

/// Check `text` against `limits` in one pass over its bytes, without parsing it.
///
/// Every measure errs on the side of counting too much (brackets inside strings count;
/// an `&` or `*` in the middle of text may count as an anchor or alias), so a text that
/// passes cannot be expensive to parse, and only contrived hand-written text is refused.
pub fn check_limits(text: &str, limits: &Limits) -> Result<(), TooComplex> {
    if text.len() > limits.max_bytes {
        return Err(TooComplex {
            message: format!(
                "is {} bytes, more than the {} allowed",
                text.len(),
                limits.max_bytes
            ),
            line: 1,
        });
    }
    let bytes = text.as_bytes();
    let too_deep = |line: usize| TooComplex {
        message: format!(
            "nests more than {} levels deep (indentation, - entries, [ and {{)",
            limits.max_depth
        ),
        line,
    };
    let mut line = 1;
    let mut indents = Vec::new();
    let mut block = 0;
    let mut flow: usize = 0;
    let mut brackets = 0;
    let mut anchor = false;
    let mut alias = false;
    let mut line_start = true;
    for (i, &byte) in bytes.iter().enumerate() {
        if line_start {
            line_start = false;
            // Inside a flow collection, indentation is not structure.
            if flow == 0
                && let Some(depth) = block_depth(&bytes[i..], &mut indents)
            {
                block = depth;
                if block > limits.max_depth {
                    return Err(too_deep(line));
                }
            }
        }
        match byte {
            b'\n' => {
                line += 1;
                line_start = true;
            }
            b'[' | b'{' => {
                flow += 1;
                brackets += 1;
                if brackets > limits.max_flow_brackets {
                    return Err(TooComplex {
                        message: format!(
                            "has more than {} [ or {{ (flow collections)",
                            limits.max_flow_brackets
                        ),
                        line,
                    });
                }
                if block + flow > limits.max_depth {
                    return Err(too_deep(line));
                }
            }
            b']' | b'}' => flow = flow.saturating_sub(1),
            b'&' | b'*'
                if may_start_token(i.checked_sub(1).map(|p| bytes[p]))
                    && is_name_start(bytes.get(i + 1).copied()) =>
            {
                if byte == b'&' {
                    anchor = true;
                } else {
                    alias = true;
                }
                if anchor && alias && !limits.aliases {
                    return Err(TooComplex {
                        message: "uses YAML aliases (*name refers to an &name anchor)".to_owned(),
                        line,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Convert an untyped value into a typed one (used after merging layers).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, YamlError> {
    Ok(yaml_serde::from_value(value)?)
}

/// [`from_value`] without taking the value (no deep copy of it). Its errors may be
/// worded differently: callers that report them use [`from_value`] to say why.
pub fn from_value_ref<T: DeserializeOwned>(value: &Value) -> Option<T> {
    T::deserialize(value).ok()
}

/// Render a value as YAML text (for `explain` and diagnostics).
pub fn to_string(value: &Value) -> String {
    yaml_serde::to_string(value).unwrap_or_default()
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

    const SMALL: Limits = Limits {
        max_bytes: 200,
        max_depth: 4,
        max_flow_brackets: 6,
        aliases: false,
    };

    fn refusal(text: &str) -> Option<(String, usize)> {
        check_limits(text, &SMALL)
            .err()
            .map(|err| (err.message, err.line))
    }

    #[test]
    fn limits_pass_ordinary_yaml() {
        for text in [
            "a: [1, {b: 2}]\nc:\n  d:\n    - e\n",
            "# comment\n\na:\n  b: 1\n        # deeper comment\n  c: 2\n",
            // Inside a flow collection, indentation is not structure.
            "a: [\n        b,\n          c]\n",
            // Mid-text `*` and `&` are no aliases; an alias without an anchor is the
            // parser's error to report.
            "a: R&D decided *this* & that\nb: *x\n",
            "",
        ] {
            assert_eq!(refusal(text), None, "{text:?}");
        }
    }

    #[test]
    fn limits_refuse_with_the_line_where_they_were_passed() {
        let (message, line) = refusal(&"x".repeat(201)).unwrap();
        assert_eq!(
            (message.as_str(), line),
            ("is 201 bytes, more than the 200 allowed", 1)
        );
        let (message, line) = refusal("a: 1\nb: [[[[x]]]]\n").unwrap();
        assert!(
            message.starts_with("nests more than 4 levels deep"),
            "{message}"
        );
        assert_eq!(line, 2);
        assert_eq!(refusal("a:\n b:\n  c:\n   d:\n    e: 1\n").unwrap().1, 5);
        assert_eq!(refusal("a:\n- - - - x\n").unwrap().1, 2);
        let (message, line) =
            refusal("a: [1]\nb: [2]\nc: [3]\nd: [4]\ne: [5]\nf: [6]\ng: [7]\n").unwrap();
        assert_eq!(
            (message.as_str(), line),
            ("has more than 6 [ or { (flow collections)", 7)
        );
        // Quotes are not tracked: `]` in a string lowers the depth, never the count.
        assert!(
            refusal("a: [[[\"]]]\", [[[\"]]]\", [[[\"]]]\", x]]]\n")
                .unwrap()
                .0
                .starts_with("has more")
        );
        let (message, line) = refusal("a: &x 1\nb: *x\n").unwrap();
        assert_eq!(
            (message.as_str(), line),
            ("uses YAML aliases (*name refers to an &name anchor)", 2)
        );
        assert_eq!(refusal("a: [&x 1,*x]\n").unwrap().1, 1);
    }

    #[test]
    fn aliases_may_be_allowed() {
        let limits = Limits {
            aliases: true,
            ..SMALL
        };
        assert_eq!(check_limits("a: &x 1\nb: *x\n", &limits), Ok(()));
    }

    #[test]
    fn deep_nesting_is_rejected() {
        let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
        assert!(parse_value(&deep).is_err());
    }
}
