//! `config/adr-completeness-rules.yaml`: base rules, section aliases and the
//! contextual rule language (`when` / `require` / `severity` / `message`).
//!
//! Parsed strictly: an unknown key, a bad regex or a wrong type is an error that
//! names the rule id and the field. Every error in the file is reported, not only
//! the first, and no rule is ever dropped silently.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::pattern::Pattern;

use crate::adr::normalize_title;
use crate::diagnostic::Severity;
use crate::yaml::{self, Mapping, Value};

/// The rules file shipped with helix-gate and embedded in the binary.
pub const DEFAULT_RULES: &str = include_str!("../../config/adr-completeness-rules.yaml");

/// The same rules as JSON, generated from the YAML and kept equal to it by a test
/// (`UPDATE_GENERATED=1 cargo test --lib rules_file` rewrites it): the hook parses
/// the built-in rules on every ADR event, and JSON parses several times faster.
pub const DEFAULT_RULES_JSON: &str = include_str!("../../config/adr-completeness-rules.json");

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawFile {
    /// Free-form notes about the file (`version`, `description`); not read by any check.
    #[serde(rename = "_meta", default)]
    #[schemars(with = "Option<serde_json::Value>")]
    _meta: Option<Value>,
    #[serde(default)]
    base_rules: RawBase,
    /// Other names accepted for a section, by the section's name: `Kontext: [Context]`
    /// lets an ADR call `## Kontext` `## Context`.
    #[serde(default)]
    section_aliases: BTreeMap<String, Vec<String>>,
    /// Rules that apply when the ADR's front matter or content matches their `when`.
    #[serde(default)]
    #[schemars(with = "Vec<RawRule>")]
    contextual_rules: Vec<Value>,
    #[serde(default)]
    document: RawDocument,
}

/// `document:`, the shape of an ADR outside its sections. Every default is HELIX's,
/// so a rules file written before presets existed keeps its meaning.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawDocument {
    /// A document without `---` front matter is an error; when false, front matter is
    /// optional.
    #[serde(default = "yes")]
    front_matter_required: bool,
    /// Front matter fields every ADR must have.
    #[serde(default = "helix_fields")]
    required_fields: Vec<String>,
    /// The `files:` block with `create`, `modify` and `docs` lists is required.
    #[serde(default = "yes")]
    files_required: bool,
    #[serde(default)]
    status: RawStatus,
    /// A regular expression the first `# ` heading must match (case-insensitive); unset:
    /// no title check.
    #[serde(default)]
    title_pattern: Option<String>,
    /// `Name: value` lines that must come before the first section (Nygard's `Date:`).
    #[serde(default)]
    metadata_lines: Vec<String>,
}

impl Default for RawDocument {
    fn default() -> Self {
        RawDocument {
            front_matter_required: true,
            required_fields: helix_fields(),
            files_required: true,
            status: RawStatus::default(),
            title_pattern: None,
            metadata_lines: Vec::new(),
        }
    }
}

/// Which values of `status` are valid, and where it is read.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawStatus {
    /// The valid values of `status`, compared case-insensitively.
    #[serde(default = "helix_statuses")]
    values: Vec<String>,
    /// A status is valid when it starts with a value followed by a non-letter
    /// (`Superseded by ADR-0005`); when false it must equal one.
    #[serde(default)]
    prefix: bool,
    /// Without a front matter `status`, read it from the body: a `Status: x` line or
    /// bullet before the first section, else the first line of a `## Status` section.
    #[serde(default)]
    in_body: bool,
}

impl Default for RawStatus {
    fn default() -> Self {
        RawStatus {
            values: helix_statuses(),
            prefix: false,
            in_body: false,
        }
    }
}

fn yes() -> bool {
    true
}
fn helix_fields() -> Vec<String> {
    ["adr_id", "title", "status"].map(str::to_owned).to_vec()
}
fn helix_statuses() -> Vec<String> {
    HELIX_STATUSES.map(str::to_owned).to_vec()
}

/// HELIX's values of `status`, the default of `document.status.values`.
pub const HELIX_STATUSES: [&str; 5] = [
    "Proposed",
    "Accepted",
    "Implemented",
    "Superseded",
    "Rejected",
];

/// The sections and thresholds that apply to every ADR.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawBase {
    /// The `## ` sections every ADR must have (or one of their `section_aliases`).
    #[serde(default)]
    required_sections: Vec<String>,
    /// Fewest checkbox items (`- [ ]`) in the acceptance section (a warning below it).
    #[serde(default = "default_min_criteria")]
    min_acceptance_criteria: usize,
    /// Fewest characters of text in a required section (a warning below it).
    #[serde(default = "default_min_length")]
    min_section_length: usize,
    /// The section that holds the acceptance criteria.
    #[serde(default = "default_acceptance_section")]
    acceptance_section: String,
}

impl Default for RawBase {
    fn default() -> Self {
        RawBase {
            required_sections: Vec::new(),
            min_acceptance_criteria: default_min_criteria(),
            min_section_length: default_min_length(),
            acceptance_section: default_acceptance_section(),
        }
    }
}

fn default_min_criteria() -> usize {
    3
}
fn default_min_length() -> usize {
    50
}
fn default_acceptance_section() -> String {
    "Akzeptanzkriterien".to_owned()
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawRule {
    /// The rule's id (kebab-case), as findings and `helix-gate explain` name it.
    id: String,
    /// A title for people (`helix-gate rules`); default: the id.
    #[serde(default)]
    name: Option<String>,
    /// When the rule applies: front matter fields and their values (`change_scope:
    /// major`; a list means any of them), `any: [...]`, `all: [...]`,
    /// `content_contains: text`, `<field>_not_empty: true`. Every key must match.
    #[schemars(with = "BTreeMap<String, serde_json::Value>")]
    when: Mapping,
    /// What an ADR the rule applies to must contain.
    require: RawRequire,
    /// `error`, `warning` or `info`; default `error`.
    #[serde(default)]
    severity: Option<String>,
    /// The finding's text.
    message: String,
    /// How to fix it, shown under the finding.
    #[serde(default)]
    hint: Option<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawRequire {
    /// Sections the ADR must have, with a least length and elements.
    #[serde(default)]
    sections: Vec<RawSectionReq>,
    /// Regular expressions that must match often enough in a part of the ADR.
    #[serde(default)]
    content_patterns: Vec<RawPattern>,
    /// At least one acceptance criterion mentions one of these words.
    #[serde(default)]
    acceptance_criteria_keywords: Vec<String>,
    /// Every ADR named in `depends_on` is mentioned in the body (`ADR-NNN`,
    /// any zero padding), other than in the ADR's own title.
    #[serde(default)]
    mentions_dependencies: bool,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawSectionReq {
    /// The section's name (`## Migration`; its `section_aliases` count too).
    name: String,
    /// Fewest characters of text in it.
    #[serde(default)]
    min_length: usize,
    /// Regular expressions (case-insensitive) that must each match in the section.
    #[serde(default)]
    required_elements: Vec<String>,
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawPattern {
    /// A regular expression, case-insensitive.
    pattern: String,
    /// Where it must match: `any` (default), `header` (the front matter), `content`
    /// (the body) or a section's name.
    #[serde(default)]
    location: Option<String>,
    /// Fewest matches.
    #[serde(default = "one")]
    min_matches: usize,
}

fn one() -> usize {
    1
}

/// Required sections and thresholds that apply to every ADR.
#[derive(Debug, Clone)]
pub struct BaseRules {
    pub required_sections: Vec<String>,
    pub min_acceptance_criteria: usize,
    pub min_section_length: usize,
    /// Name of the section that holds the checkbox criteria.
    pub acceptance_section: String,
}

/// `document:` compiled: what an ADR must have outside its sections.
#[derive(Debug, Clone)]
#[expect(
    clippy::struct_excessive_bools,
    reason = "each bool is one independent yes/no key of the rules file"
)]
pub struct DocumentRules {
    /// A document without `---` front matter is an error (HELIX); otherwise it is optional.
    pub front_matter_required: bool,
    /// Front matter fields that must be present (HELIX: `adr_id`, title, status).
    pub required_fields: Vec<String>,
    /// The `files:` block with create/modify/docs lists is required (HELIX).
    pub files_required: bool,
    /// Valid statuses, compared case-insensitively.
    pub statuses: Vec<String>,
    /// A status is valid when it starts with a value followed by a non-letter
    /// (`superseded by ADR-0005`); otherwise it must equal one.
    pub status_prefix: bool,
    /// Without a front matter `status`, read it from the body: a `Status: x` line (or
    /// bullet) before the first section, else the first line of a `## Status` section.
    pub status_in_body: bool,
    /// The first level-1 heading must exist and match this (case-insensitive).
    pub title: Option<Pattern>,
    /// Lines `Name: value` that must appear before the first section (Nygard's `Date:`).
    pub metadata_lines: Vec<String>,
}

impl DocumentRules {
    /// Whether `status` is one of [`DocumentRules::statuses`].
    pub fn status_is_valid(&self, status: &str) -> bool {
        let status = status.trim();
        self.statuses.iter().any(|value| {
            if status.eq_ignore_ascii_case(value) {
                return true;
            }
            self.status_prefix
                && status
                    .get(..value.len())
                    .is_some_and(|head| head.eq_ignore_ascii_case(value))
                && !status[value.len()..].starts_with(char::is_alphanumeric)
        })
    }
}

/// Canonical section names and their aliases, normalised for matching.
#[derive(Debug, Clone, Default)]
pub struct SectionNames {
    /// normalised name (canonical or alias) -> every normalised spelling of that section.
    spellings: BTreeMap<String, Vec<String>>,
}

impl SectionNames {
    fn new(aliases: &BTreeMap<String, Vec<String>>) -> Self {
        let mut spellings = BTreeMap::new();
        for (canonical, alternatives) in aliases {
            let mut all = vec![normalize_title(canonical)];
            all.extend(alternatives.iter().map(|a| normalize_title(a)));
            for key in &all {
                spellings.insert(key.clone(), all.clone());
            }
        }
        SectionNames { spellings }
    }

    /// Every normalised spelling under which the section `name` may appear.
    pub fn keys(&self, name: &str) -> std::borrow::Cow<'_, [String]> {
        let key = normalize_title(name);
        match self.spellings.get(&key) {
            Some(all) => std::borrow::Cow::Borrowed(all),
            None => std::borrow::Cow::Owned(vec![key]),
        }
    }
}

/// When a contextual rule applies.
#[derive(Debug, Clone)]
pub enum Condition {
    All(Vec<Condition>),
    Any(Vec<Condition>),
    /// Case-insensitive substring of the whole document.
    ContentContains(Pattern),
    /// `<field>_not_empty: true|false`.
    NotEmpty {
        field: String,
        expected: bool,
    },
    /// `<field>: value` (a list of values means any of them).
    Equals {
        field: String,
        expected: Value,
    },
}

/// Where a content pattern is searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// The whole document, front matter included.
    Any,
    /// The front matter YAML only.
    Header,
    /// The Markdown body only.
    Content,
    /// One section (by name or alias).
    Section(String),
}

#[derive(Debug, Clone)]
pub struct SectionRequirement {
    pub name: String,
    pub min_length: usize,
    /// Case-insensitive patterns.
    pub required_elements: Vec<Pattern>,
}

#[derive(Debug, Clone)]
pub struct ContentPattern {
    pub pattern: Pattern,
    pub location: Location,
    pub min_matches: usize,
}

#[derive(Debug, Clone, Default)]
pub struct Requirements {
    pub sections: Vec<SectionRequirement>,
    pub content_patterns: Vec<ContentPattern>,
    pub acceptance_criteria_keywords: Vec<String>,
    /// Every `depends_on` ADR is mentioned in the body as `ADR-NNN`.
    pub mentions_dependencies: bool,
}

/// One rule of `contextual_rules`, compiled.
#[derive(Debug, Clone)]
pub struct ContextualRule {
    pub id: String,
    pub name: String,
    pub when: Condition,
    pub require: Requirements,
    pub severity: Severity,
    pub message: String,
    pub hint: Option<String>,
    /// The rule as written, for `helix-gate explain`.
    pub source: Value,
}

/// The compiled rules file.
#[derive(Debug, Clone)]
pub struct RuleSet {
    /// Where the rules came from (`built-in` or a path).
    pub origin: String,
    pub base: BaseRules,
    pub names: SectionNames,
    pub contextual: Vec<ContextualRule>,
    pub document: DocumentRules,
}

/// Every problem found in a rules file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RulesFileError {
    pub origin: String,
    pub problems: Vec<String>,
}

impl std::fmt::Display for RulesFileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The problems quote the file (keys, values): each stays on its own line, escaped.
        let escape = crate::text::escape_controls;
        write!(f, "invalid rules file {}:", escape(&self.origin))?;
        for problem in &self.problems {
            write!(f, "\n  - {}", escape(problem))?;
        }
        Ok(())
    }
}

impl std::error::Error for RulesFileError {}

fn compile_condition(map: &Mapping, rule: &str, problems: &mut Vec<String>) -> Condition {
    let mut all = Vec::new();
    for (key, value) in map {
        let Some(key) = key.as_str() else {
            problems.push(format!("rule `{rule}`: when: keys must be field names"));
            continue;
        };
        match key {
            "any" | "all" => {
                let Some(items) = value.as_sequence() else {
                    problems.push(format!(
                        "rule `{rule}`: when.{key} must be a list of conditions"
                    ));
                    continue;
                };
                let mut parts = Vec::new();
                for item in items {
                    match item.as_mapping() {
                        Some(inner) => parts.push(compile_condition(inner, rule, problems)),
                        None => problems.push(format!(
                            "rule `{rule}`: when.{key} entries must be maps such as `content_contains: text`"
                        )),
                    }
                }
                all.push(if key == "any" {
                    Condition::Any(parts)
                } else {
                    Condition::All(parts)
                });
            }
            "content_contains" => match value.as_str().map(Pattern::literal) {
                Some(Ok(pattern)) => all.push(Condition::ContentContains(pattern)),
                Some(Err(e)) => problems.push(format!("rule `{rule}`: when.content_contains: {e}")),
                None => problems.push(format!(
                    "rule `{rule}`: when.content_contains must be a string"
                )),
            },
            _ if key.ends_with("_not_empty") => match value.as_bool() {
                Some(expected) => all.push(Condition::NotEmpty {
                    field: key.trim_end_matches("_not_empty").to_owned(),
                    expected,
                }),
                None => problems.push(format!("rule `{rule}`: when.{key} must be true or false")),
            },
            _ => {
                if matches!(value, Value::Mapping(_)) {
                    problems.push(format!(
                        "rule `{rule}`: when.{key} must be a value or a list of values (use `{key}.sub: value` for nested fields)"
                    ));
                    continue;
                }
                all.push(Condition::Equals {
                    field: key.to_owned(),
                    expected: value.clone(),
                });
            }
        }
    }
    Condition::All(all)
}

fn compile_rule(value: &Value, index: usize, problems: &mut Vec<String>) -> Option<ContextualRule> {
    let label = value
        .get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("#{}", index + 1), str::to_owned);
    // Read in place (a copy of each rule's value was 0.12 M instructions of a hook
    // call); only a rule that does not read is copied, for the owned reader's message.
    let raw: RawRule =
        match yaml::from_value_ref(value).map_or_else(|| yaml::from_value(value.clone()), Ok) {
            Ok(raw) => raw,
            Err(err) => {
                problems.push(format!("rule `{label}`: {}", err.message));
                return None;
            }
        };
    let id = raw.id.clone();
    let before = problems.len();
    if id.is_empty()
        || !id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        problems.push(format!("rule `{id}`: id must be kebab-case (a-z, 0-9, -)"));
    }
    let severity = match raw.severity.as_deref() {
        None => Severity::Warning,
        Some(text) => Severity::parse(text).unwrap_or_else(|| {
            problems.push(format!(
                "rule `{id}`: severity must be error, warning or info, found `{text}`"
            ));
            Severity::Warning
        }),
    };
    let when = compile_condition(&raw.when, &id, problems);
    let mut require = Requirements {
        acceptance_criteria_keywords: raw.require.acceptance_criteria_keywords.clone(),
        ..Requirements::default()
    };
    for section in &raw.require.sections {
        let mut elements = Vec::new();
        for element in &section.required_elements {
            match Pattern::new(element) {
                Ok(pattern) => elements.push(pattern),
                Err(e) => problems.push(format!(
                    "rule `{id}`: require.sections[{}].required_elements: bad regex `{element}`: {e}",
                    section.name
                )),
            }
        }
        require.sections.push(SectionRequirement {
            name: section.name.clone(),
            min_length: section.min_length,
            required_elements: elements,
        });
    }
    for pattern in &raw.require.content_patterns {
        let location = match pattern.location.as_deref() {
            None | Some("any") => Location::Any,
            Some("header") => Location::Header,
            Some("content") => Location::Content,
            Some(section) => Location::Section(section.to_owned()),
        };
        match Pattern::new(&pattern.pattern) {
            Ok(compiled) => require.content_patterns.push(ContentPattern {
                pattern: compiled,
                location,
                min_matches: pattern.min_matches,
            }),
            Err(e) => problems.push(format!(
                "rule `{id}`: require.content_patterns: bad regex `{}`: {e}",
                pattern.pattern
            )),
        }
    }
    require.mentions_dependencies = raw.require.mentions_dependencies;
    if require.sections.is_empty()
        && require.content_patterns.is_empty()
        && require.acceptance_criteria_keywords.is_empty()
        && !require.mentions_dependencies
        && problems.len() == before
    {
        problems.push(format!(
            "rule `{id}`: require: names no requirement, so the rule could never fail"
        ));
    }
    (problems.len() == before).then(|| ContextualRule {
        name: raw.name.unwrap_or_else(|| id.clone()),
        id,
        when,
        require,
        severity,
        message: raw.message,
        hint: raw.hint,
        source: value.clone(),
    })
}

impl RuleSet {
    /// Parse and compile a rules file; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<RuleSet, RulesFileError> {
        let fail = |problems: Vec<String>| RulesFileError {
            origin: origin.to_owned(),
            problems,
        };
        let raw: RawFile = yaml::parse(text).map_err(|e| fail(vec![e.to_string()]))?;
        RuleSet::compile(raw, origin)
    }

    fn compile(raw: RawFile, origin: &str) -> Result<RuleSet, RulesFileError> {
        let fail = |problems: Vec<String>| RulesFileError {
            origin: origin.to_owned(),
            problems,
        };
        let mut problems = Vec::new();
        let mut contextual = Vec::new();
        let mut seen = std::collections::BTreeSet::new();
        for (index, value) in raw.contextual_rules.iter().enumerate() {
            if let Some(rule) = compile_rule(value, index, &mut problems) {
                if !seen.insert(rule.id.clone()) {
                    problems.push(format!("rule `{}`: id used twice", rule.id));
                }
                contextual.push(rule);
            }
        }
        let document = &raw.document;
        let title = document
            .title_pattern
            .as_deref()
            .and_then(|text| match Pattern::new(text) {
                Ok(pattern) => Some(pattern),
                Err(e) => {
                    problems.push(format!("document.title_pattern: bad regex `{text}`: {e}"));
                    None
                }
            });
        if !problems.is_empty() {
            return Err(fail(problems));
        }
        let document = DocumentRules {
            front_matter_required: document.front_matter_required,
            required_fields: document.required_fields.clone(),
            files_required: document.files_required,
            statuses: document.status.values.clone(),
            status_prefix: document.status.prefix,
            status_in_body: document.status.in_body,
            title,
            metadata_lines: document.metadata_lines.clone(),
        };
        Ok(RuleSet {
            document,
            origin: origin.to_owned(),
            names: SectionNames::new(&raw.section_aliases),
            base: BaseRules {
                required_sections: raw.base_rules.required_sections,
                min_acceptance_criteria: raw.base_rules.min_acceptance_criteria,
                min_section_length: raw.base_rules.min_section_length,
                acceptance_section: raw.base_rules.acceptance_section,
            },
            contextual,
        })
    }

    /// The embedded default rules.
    /// Rules from their JSON form (a rules file converted to JSON, as the built-in
    /// rules and a snapshot's twin are).
    pub fn from_json(json: &str, origin: &str) -> Result<RuleSet, RulesFileError> {
        let raw: RawFile = serde_json::from_str(json).map_err(|e| RulesFileError {
            origin: origin.to_owned(),
            problems: vec![e.to_string()],
        })?;
        RuleSet::compile(raw, origin)
    }

    pub fn builtin() -> Result<RuleSet, RulesFileError> {
        let origin = "built-in config/adr-completeness-rules.yaml";
        match serde_json::from_str::<RawFile>(DEFAULT_RULES_JSON) {
            Ok(raw) => RuleSet::compile(raw, origin),
            Err(_) => RuleSet::parse(DEFAULT_RULES, origin),
        }
    }
}

/// The JSON Schema of a rules file, for editors (`helix-gate schema`), generated by `generator`.
pub fn json_schema(generator: schemars::SchemaGenerator) -> schemars::Schema {
    generator.into_root_schema_for::<RawFile>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_has_the_seven_seed_rules() {
        let rules = RuleSet::builtin().unwrap();
        let ids: Vec<_> = rules.contextual.iter().map(|r| r.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "major-needs-migration",
                "major-needs-rollback",
                "new-needs-examples",
                "breaking-needs-upgrade",
                "deps-need-references",
                "tools-need-cli",
                "service-needs-api"
            ]
        );
        assert_eq!(rules.base.required_sections.len(), 6);
        assert!(rules.names.keys("Context").contains(&"kontext".to_owned()));
    }

    /// A finding's text is `message: detail` in one line, so the shipped messages (and the
    /// names `rules` and SARIF show) are English like every detail; the German words the
    /// rules accept in an ADR live in their patterns and hints.
    #[test]
    fn builtin_messages_and_names_are_english() {
        let german = [
            "erfordert",
            "erfordern",
            "sollten",
            "brauchen",
            "einen",
            "im",
            "Neue",
            "Abhängig",
        ];
        for rule in RuleSet::builtin().unwrap().contextual {
            for text in [&rule.message, &rule.name] {
                assert!(
                    text.is_ascii()
                        && !text
                            .split(|c: char| !c.is_alphanumeric())
                            .any(|word| german.contains(&word)),
                    "{}: {text}",
                    rule.id
                );
            }
        }
    }

    #[test]
    fn generated_json_equals_the_yaml_rules() {
        let from_yaml: serde_json::Value =
            serde_json::to_value(yaml::parse_value(DEFAULT_RULES).unwrap()).unwrap();
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/config/adr-completeness-rules.json"
        );
        if std::env::var_os("UPDATE_GENERATED").is_some() {
            let text = serde_json::to_string_pretty(&from_yaml).unwrap() + "\n";
            std::fs::write(path, text).unwrap();
        }
        let from_json: serde_json::Value = serde_json::from_str(DEFAULT_RULES_JSON).unwrap();
        assert_eq!(
            from_json, from_yaml,
            "config/adr-completeness-rules.json is stale: run UPDATE_GENERATED=1 cargo test --lib rules_file"
        );
        assert!(serde_json::from_str::<RawFile>(DEFAULT_RULES_JSON).is_ok());
    }

    #[test]
    fn unknown_key_bad_regex_and_type_are_all_reported() {
        let text = r#"
contextual_rules:
  - id: one
    when: {change_scope: major}
    require: {sections: [{name: X}]}
    message: m
    severty: error
  - id: two
    when: {change_scope: major}
    require: {content_patterns: [{pattern: "(unclosed"}]}
    message: m
  - id: three
    when: {content_contains: [a]}
    require: {sections: [{name: X, min_length: "long"}]}
    message: m
"#;
        let err = RuleSet::parse(text, "test.yaml").unwrap_err();
        let all = err.problems.join("\n");
        assert!(
            all.contains("rule `one`") && all.contains("severty"),
            "{all}"
        );
        assert!(
            all.contains("rule `two`") && all.contains("bad regex"),
            "{all}"
        );
        assert!(all.contains("rule `three`"), "{all}");
    }

    #[test]
    fn unknown_top_level_key_is_an_error() {
        let err = RuleSet::parse("contextual_rule: []\n", "t").unwrap_err();
        assert!(err.problems[0].contains("contextual_rule"), "{err}");
    }

    #[test]
    fn rule_without_requirements_is_rejected() {
        let err = RuleSet::parse(
            "contextual_rules:\n  - {id: x, when: {a: b}, require: {}, message: m}\n",
            "t",
        )
        .unwrap_err();
        assert!(err.problems[0].contains("could never fail"), "{err}");
    }

    #[test]
    fn catastrophic_regex_is_linear_in_the_regex_crate() {
        // `(a+)+$` backtracks exponentially in PCRE-style engines. The regex crate
        // guarantees linear-time matching, so a rules file cannot hang the hook.
        let rules = RuleSet::parse(
            "contextual_rules:\n  - {id: x, when: {}, require: {content_patterns: [{pattern: '(a+)+$'}]}, message: m}\n",
            "t",
        )
        .unwrap();
        let haystack = format!("{}b", "a".repeat(100_000));
        let pattern = &rules.contextual[0].require.content_patterns[0].pattern;
        assert!(!pattern.is_match(&haystack).unwrap());
    }
}
