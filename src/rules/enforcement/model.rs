//! The rules an ADR states about code: its `## Enforcement` section (German
//! `## Durchsetzung`) holds one fenced `yaml` block with a `rules:` list.
//!
//! ```yaml
//! rules:
//!   - id: no-direct-http
//!     kind: forbid_import
//!     why: "All outbound HTTP goes through the gateway client (Decision, first point)."
//!     modules: [requests, urllib3]
//!     paths: ["src/**/*.py"]
//!     examples:
//!       violates: "import requests"
//!       passes: "from app.gateway import client"
//! ```
//!
//! Parsing never fails: what cannot be read is a [`Problem`], and the rules that
//! can be read are kept, so one bad rule does not switch the others off.

use serde::Deserialize;

use crate::adr::Adr;
use crate::diagnostic::Severity;
use crate::yaml::{self, Value};

/// Section keys (normalised titles) that hold the rules.
pub const SECTION_KEYS: [&str; 2] = ["enforcement", "durchsetzung"];

/// The kinds of rule, as written in `kind:`.
pub const KINDS: [&str; 7] = [
    "forbid_import",
    "forbid_dependency",
    "forbid_path",
    "require_co_change",
    "forbid_pattern",
    "require_pattern",
    "llm_review",
];

/// What a rule forbids or requires.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Kind {
    /// No import/use/require/include of these modules (or their submodules).
    ForbidImport { modules: Vec<String> },
    /// No package added to a manifest.
    ForbidDependency { packages: Vec<String> },
    /// No new file under the rule's paths.
    ForbidPath,
    /// A change under the rule's paths needs a change under `with` in the same commit.
    RequireCoChange { with: Vec<String> },
    /// No added line matches the pattern.
    ForbidPattern { pattern: String },
    /// The file matches the pattern.
    RequirePattern { pattern: String },
    /// Plain language for the reviewer; never blocks without a verdict.
    LlmReview { check: String },
}

impl Kind {
    pub fn name(&self) -> &'static str {
        match self {
            Kind::ForbidImport { .. } => "forbid_import",
            Kind::ForbidDependency { .. } => "forbid_dependency",
            Kind::ForbidPath => "forbid_path",
            Kind::RequireCoChange { .. } => "require_co_change",
            Kind::ForbidPattern { .. } => "forbid_pattern",
            Kind::RequirePattern { .. } => "require_pattern",
            Kind::LlmReview { .. } => "llm_review",
        }
    }

    /// Whether the rule reads the text of a file, and so must carry examples.
    pub fn reads_text(&self) -> bool {
        matches!(
            self,
            Kind::ForbidImport { .. } | Kind::ForbidPattern { .. } | Kind::RequirePattern { .. }
        )
    }

    /// Whether helix-gate decides the rule itself (everything but `llm_review`).
    pub fn is_deterministic(&self) -> bool {
        !matches!(self, Kind::LlmReview { .. })
    }
}

/// `examples: {violates: "...", passes: "..."}`: text the rule flags, and text it
/// lets pass.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, serde::Serialize)]
pub struct Examples {
    pub violates: Option<String>,
    pub passes: Option<String>,
}

/// One rule of an ADR's `## Enforcement` block.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
pub struct CodeRule {
    /// Kebab-case id, unique within the ADR (`no-direct-http`).
    pub id: String,
    #[serde(flatten)]
    pub kind: Kind,
    /// What in the Decision the rule enforces.
    pub why: String,
    pub severity: Severity,
    /// Globs of the files it applies to; `None`: the paths the ADR governs.
    pub paths: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub examples: Option<Examples>,
}

/// Something in the block that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line in the ADR.
    pub line: usize,
    /// The id of the rule it concerns, when it has one.
    pub rule: Option<String>,
    pub message: String,
}

/// An ADR's `## Enforcement` section, read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Enforcement {
    /// 1-based line of the section heading.
    pub line: usize,
    /// 1-based line of the YAML block's first line (the heading's when there is none).
    pub block_line: usize,
    pub rules: Vec<CodeRule>,
    /// 1-based line of each rule's entry, in the order of `rules`.
    pub rule_lines: Vec<usize>,
    pub problems: Vec<Problem>,
}

/// The largest block read: far more than a hand-written rule list needs.
const MAX_BLOCK_BYTES: usize = 64 * 1024;

/// The `## Enforcement` section of `adr`, or `None` when it has none.
pub fn parse(adr: &Adr) -> Option<Enforcement> {
    let keys: Vec<String> = SECTION_KEYS.iter().map(|k| (*k).to_owned()).collect();
    let section = adr.section(&keys)?;
    let line = adr.line_of(section.heading_start);
    let mut out = Enforcement {
        line,
        block_line: line,
        ..Enforcement::default()
    };
    let content = adr.content(section);
    let Some((offset, yaml)) = yaml_block(content) else {
        out.problems.push(Problem {
            line,
            rule: None,
            message: "the section holds no fenced ```yaml block with `rules:`".to_owned(),
        });
        return Some(out);
    };
    out.block_line = adr.line_of(section.content_start + offset);
    if yaml.len() > MAX_BLOCK_BYTES {
        out.problems.push(Problem {
            line: out.block_line,
            rule: None,
            message: format!("the block is larger than {} KiB", MAX_BLOCK_BYTES / 1024),
        });
        return Some(out);
    }
    let value = match yaml::parse_value(yaml) {
        Ok(value) => value,
        Err(err) => {
            out.problems.push(Problem {
                line: out.block_line + err.line.unwrap_or(1).saturating_sub(1),
                rule: None,
                message: format!("the YAML does not parse: {}", err.message),
            });
            return Some(out);
        }
    };
    let items = match rule_items(&value) {
        Ok((items, unknown)) => {
            if let Some(key) = unknown {
                out.problems.push(Problem {
                    line: out.block_line,
                    rule: None,
                    message: format!("unknown key `{key}` (the block holds `rules:` only)"),
                });
            }
            items
        }
        Err(message) => {
            out.problems.push(Problem {
                line: out.block_line,
                rule: None,
                message: message.to_owned(),
            });
            return Some(out);
        }
    };
    let mut seen = std::collections::BTreeSet::new();
    for (n, item) in items.into_iter().enumerate() {
        let rule_line = line_of_item(yaml, n).map_or(out.block_line, |l| out.block_line + l);
        match read_rule(item) {
            Ok(rule) => {
                if !seen.insert(rule.id.clone()) {
                    out.problems.push(Problem {
                        line: rule_line,
                        rule: Some(rule.id.clone()),
                        message: format!("the id `{}` is used twice", rule.id),
                    });
                    continue;
                }
                out.rules.push(rule);
                out.rule_lines.push(rule_line);
            }
            Err((id, message)) => out.problems.push(Problem {
                line: rule_line,
                rule: id,
                message,
            }),
        }
    }
    Some(out)
}

/// The entries of the block's `rules:` list, and a key beside it that does not
/// belong there; `Err` when there is no list.
fn rule_items(value: &Value) -> Result<(Vec<Value>, Option<String>), &'static str> {
    let Value::Mapping(map) = value else {
        return Err("the block must be a mapping with a `rules:` list");
    };
    let unknown = map
        .keys()
        .filter_map(yaml::scalar_text)
        .find(|k| k != "rules");
    match map.get("rules") {
        Some(Value::Sequence(items)) => Ok((items.clone(), unknown)),
        Some(_) => Err("`rules:` must be a list"),
        None => Err("the block has no `rules:` list"),
    }
}

/// The first fenced block with the info string `yaml` or `yml`: its offset in
/// `content` (of its first line) and its text.
fn yaml_block(content: &str) -> Option<(usize, &str)> {
    let mut offset = 0;
    let mut open: Option<(String, usize)> = None;
    for line in content.split_inclusive('\n') {
        let trimmed = line.trim();
        match &open {
            None => {
                let fence: String = trimmed
                    .chars()
                    .take_while(|c| *c == '`' || *c == '~')
                    .collect();
                if fence.len() >= 3
                    && fence
                        .chars()
                        .all(|c| c == fence.chars().next().unwrap_or('`'))
                {
                    let info = trimmed[fence.len()..].trim().to_ascii_lowercase();
                    if info == "yaml" || info == "yml" {
                        open = Some((fence, offset + line.len()));
                    } else {
                        // Another language's block: skip to its end.
                        open = Some((fence, usize::MAX));
                    }
                }
            }
            Some((fence, start)) => {
                if trimmed.starts_with(fence.as_str())
                    && trimmed
                        .chars()
                        .all(|c| c == fence.chars().next().unwrap_or('`'))
                {
                    if *start != usize::MAX {
                        return Some((*start, &content[*start..offset]));
                    }
                    open = None;
                }
            }
        }
        offset += line.len();
    }
    match open {
        Some((_, start)) if start != usize::MAX => Some((start, &content[start..])),
        _ => None,
    }
}

/// The 0-based line of the `n`th top-level `- ` entry under `rules:` in `yaml`.
fn line_of_item(yaml: &str, n: usize) -> Option<usize> {
    let mut indent: Option<usize> = None;
    let mut count = 0;
    for (i, line) in yaml.lines().enumerate() {
        let stripped = line.trim_start();
        if !stripped.starts_with("- ") && stripped != "-" {
            continue;
        }
        let here = line.len() - stripped.len();
        let level = *indent.get_or_insert(here);
        if here != level {
            continue;
        }
        if count == n {
            return Some(i);
        }
        count += 1;
    }
    None
}

/// A string or a list of strings.
#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(one) => vec![one],
            OneOrMany::Many(many) => many,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawExamples {
    violates: Option<String>,
    passes: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    id: String,
    kind: String,
    why: Option<String>,
    severity: Option<String>,
    paths: Option<OneOrMany>,
    modules: Option<OneOrMany>,
    packages: Option<OneOrMany>,
    with: Option<OneOrMany>,
    pattern: Option<String>,
    check: Option<String>,
    examples: Option<RawExamples>,
}

/// Fields each kind takes besides the common ones.
fn fields_of(kind: &str) -> &'static [&'static str] {
    match kind {
        "forbid_import" => &["modules"],
        "forbid_dependency" => &["packages"],
        "require_co_change" => &["with"],
        "forbid_pattern" | "require_pattern" => &["pattern"],
        "llm_review" => &["check"],
        _ => &[],
    }
}

/// The kind is known and the rule has exactly the kind's fields.
fn check_fields(raw: &RawRule) -> Result<(), String> {
    if !KINDS.contains(&raw.kind.as_str()) {
        return Err(format!(
            "unknown kind `{}` (one of {})",
            raw.kind,
            KINDS.join(", ")
        ));
    }
    let given: Vec<&str> = [
        ("modules", raw.modules.is_some()),
        ("packages", raw.packages.is_some()),
        ("with", raw.with.is_some()),
        ("pattern", raw.pattern.is_some()),
        ("check", raw.check.is_some()),
    ]
    .into_iter()
    .filter_map(|(name, set)| set.then_some(name))
    .collect();
    let wanted = fields_of(&raw.kind);
    if let Some(extra) = given.iter().find(|f| !wanted.contains(f)) {
        return Err(format!(
            "`{extra}` is not a field of {} (it takes {})",
            raw.kind,
            if wanted.is_empty() {
                "only the common fields".to_owned()
            } else {
                wanted
                    .iter()
                    .map(|w| format!("`{w}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        ));
    }
    if let Some(missing) = wanted.iter().find(|f| !given.contains(f)) {
        return Err(format!("{} needs `{missing}`", raw.kind));
    }
    Ok(())
}

/// One rule from its YAML, or its id (when it has one) and what is wrong.
fn read_rule(item: Value) -> Result<CodeRule, (Option<String>, String)> {
    let id_of = |item: &Value| match item {
        Value::Mapping(map) => map.get("id").and_then(yaml::scalar_text),
        _ => None,
    };
    let id = id_of(&item);
    let raw: RawRule = yaml::from_value(item).map_err(|err| (id.clone(), err.message))?;
    let fail = |message: String| (Some(raw.id.clone()), message);
    if raw.id.trim().is_empty()
        || !raw
            .id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.')
    {
        return Err(fail(format!(
            "the id `{}` must be a word of letters, digits, `-`, `_` or `.`",
            raw.id
        )));
    }
    check_fields(&raw).map_err(fail)?;
    let why = match raw.why.as_deref().map(str::trim) {
        Some(why) if !why.is_empty() => why.to_owned(),
        _ => {
            return Err(fail(
                "`why` is missing: say what in the Decision the rule enforces".to_owned(),
            ));
        }
    };
    let severity = match raw.severity.as_deref() {
        None | Some("error") => Severity::Error,
        Some("warning") => Severity::Warning,
        Some(other) => {
            return Err(fail(format!(
                "severity `{other}` is neither `error` nor `warning`"
            )));
        }
    };
    let list =
        |value: Option<OneOrMany>, field: &str| -> Result<Vec<String>, (Option<String>, String)> {
            let items: Vec<String> = value
                .map(OneOrMany::into_vec)
                .unwrap_or_default()
                .into_iter()
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect();
            if items.is_empty() {
                Err((Some(raw.id.clone()), format!("`{field}` is empty")))
            } else {
                Ok(items)
            }
        };
    let kind = match raw.kind.as_str() {
        "forbid_import" => Kind::ForbidImport {
            modules: list(raw.modules, "modules")?,
        },
        "forbid_dependency" => Kind::ForbidDependency {
            packages: list(raw.packages, "packages")?,
        },
        "forbid_path" => Kind::ForbidPath,
        "require_co_change" => Kind::RequireCoChange {
            with: list(raw.with, "with")?,
        },
        "forbid_pattern" | "require_pattern" => {
            let pattern = raw.pattern.unwrap_or_default();
            if pattern.is_empty() {
                return Err(fail("`pattern` is empty".to_owned()));
            }
            if raw.kind == "forbid_pattern" {
                Kind::ForbidPattern { pattern }
            } else {
                Kind::RequirePattern { pattern }
            }
        }
        _ => {
            let check = raw.check.unwrap_or_default().trim().to_owned();
            if check.is_empty() {
                return Err(fail("`check` is empty".to_owned()));
            }
            Kind::LlmReview { check }
        }
    };
    let paths = match raw.paths {
        Some(paths) => Some(list(Some(paths), "paths")?),
        None => None,
    };
    Ok(CodeRule {
        id: raw.id,
        kind,
        why,
        severity,
        paths,
        examples: raw.examples.map(|e| Examples {
            violates: e.violates,
            passes: e.passes,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn adr(block: &str) -> Adr {
        Adr::parse(&format!(
            "---\nstatus: Accepted\n---\n# T\n\n## Decision\n\nUse the gateway.\n\n## Enforcement\n\n```yaml\n{block}```\n\n## Consequences\n\nNone.\n"
        ))
    }

    #[test]
    fn reads_every_kind_with_its_fields() {
        let got = parse(&adr("rules:\n  - id: no-http\n    kind: forbid_import\n    why: gateway only\n    modules: requests\n    paths: [\"src/**/*.py\"]\n    examples: {violates: \"import requests\", passes: \"import json\"}\n  - id: no-lodash\n    kind: forbid_dependency\n    why: w\n    packages: [lodash]\n    severity: warning\n  - id: no-legacy\n    kind: forbid_path\n    why: w\n    paths: legacy/**\n  - id: docs\n    kind: require_co_change\n    why: w\n    with: [docs/**]\n  - id: todo\n    kind: forbid_pattern\n    why: w\n    pattern: 'TODO'\n  - id: header\n    kind: require_pattern\n    why: w\n    pattern: '^// SPDX'\n  - id: review\n    kind: llm_review\n    why: w\n    check: Errors are wrapped.\n")).unwrap();
        assert!(got.problems.is_empty(), "{:?}", got.problems);
        assert_eq!(got.line, 10);
        assert_eq!(got.block_line, 13);
        let kinds: Vec<_> = got.rules.iter().map(|r| r.kind.name()).collect();
        assert_eq!(kinds, KINDS);
        assert_eq!(
            got.rules[0].kind,
            Kind::ForbidImport {
                modules: vec!["requests".into()]
            }
        );
        assert_eq!(got.rules[1].severity, Severity::Warning);
        assert_eq!(got.rules[2].paths, Some(vec!["legacy/**".to_owned()]));
        assert_eq!(got.rules[3].paths, None);
    }

    #[test]
    fn bad_rules_are_problems_and_the_good_ones_stay() {
        let got = parse(&adr("rules:\n  - id: a\n    kind: forbid_imports\n    why: w\n  - id: b\n    kind: forbid_path\n    why: w\n    modules: [x]\n  - id: c\n    kind: forbid_import\n    why: w\n  - id: d\n    kind: forbid_path\n  - id: e\n    kind: forbid_path\n    why: w\n    colour: red\n  - id: f\n    kind: forbid_path\n    why: w\n    severity: fatal\n  - id: g\n    kind: forbid_path\n    why: w\n  - id: g\n    kind: forbid_path\n    why: w\n")).unwrap();
        let messages: Vec<_> = got
            .problems
            .iter()
            .map(|p| (p.rule.clone().unwrap_or_default(), p.line))
            .collect();
        assert_eq!(
            messages,
            [
                ("a".to_owned(), 14),
                ("b".to_owned(), 17),
                ("c".to_owned(), 21),
                ("d".to_owned(), 24),
                ("e".to_owned(), 26),
                ("f".to_owned(), 30),
                ("g".to_owned(), 37),
            ]
        );
        assert!(
            got.problems[0]
                .message
                .contains("unknown kind `forbid_imports`")
        );
        assert!(
            got.problems[1]
                .message
                .contains("`modules` is not a field of forbid_path")
        );
        assert!(
            got.problems[2]
                .message
                .contains("forbid_import needs `modules`")
        );
        assert!(got.problems[3].message.contains("`why` is missing"));
        assert!(
            got.problems[4].message.contains("colour"),
            "{}",
            got.problems[4].message
        );
        assert_eq!(got.rules.len(), 1);
    }

    #[test]
    fn a_section_without_a_block_or_with_broken_yaml_is_a_problem() {
        let none = Adr::parse("# T\n\n## Enforcement\n\nWe will be careful.\n");
        assert!(
            parse(&none).unwrap().problems[0]
                .message
                .contains("no fenced")
        );
        let broken = parse(&adr("rules: [\n")).unwrap();
        assert!(broken.problems[0].message.contains("does not parse"));
        let german = Adr::parse("# T\n\n## Durchsetzung\n\n~~~yml\nrules: []\n~~~\n");
        let got = parse(&german).unwrap();
        assert!(got.problems.is_empty() && got.rules.is_empty());
        assert!(parse(&Adr::parse("# T\n\n## Decision\n\nX.\n")).is_none());
        // A block of another language first is skipped.
        let other = Adr::parse(
            "# T\n\n## Enforcement\n\n```python\nimport x\n```\n\n```yaml\nrules:\n  - {id: a, kind: forbid_path, why: w}\n```\n",
        );
        assert_eq!(parse(&other).unwrap().rules.len(), 1);
    }
}
