//! `config/helix-gate.yaml`: which files are ADRs, limits, hook behaviour.
//!
//! The embedded default is the base layer; a repository's own file is merged over
//! it key by key, then the result is deserialized strictly (unknown keys fail).

use std::path::Path;

use globset::GlobBuilder;
use serde::Deserialize;

use super::Preset;
use crate::yaml;

/// The settings file shipped with helix-gate and embedded in the binary.
pub const DEFAULT_SETTINGS: &str = include_str!("../../config/helix-gate.yaml");

/// Repository-relative location of a repository's own settings file.
pub const SETTINGS_PATH: &str = "config/helix-gate.yaml";

#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The ADR format: selects the rules file and the defaults of `adr`.
    pub preset: Preset,
    pub adr: AdrSettings,
    pub hook: HookSettings,
    pub step_marker: StepMarkerSettings,
    pub new: NewSettings,
    pub sessions: SessionsSettings,
    pub concept: ConceptSettings,
    pub rules: RulesSettings,
    pub lifecycle: LifecycleSettings,
    /// Keys of the repository's file whose value was out of range or of the wrong
    /// type: each fell back to the built-in value ([`ValueProblem`]). Never read
    /// from a file.
    #[serde(skip)]
    #[schemars(skip)]
    pub problems: Vec<ValueProblem>,
}

/// A key of the settings file whose value could not be used, and what is used in
/// its place. A value mistake never switches the gate off: the key falls back,
/// the rest of the file applies, and the message names the key and what it allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueProblem {
    /// `hook.budget`.
    pub key: &'static str,
    /// What was wrong, with the allowed values: "1000 is out of range (allowed: 1 to 10)".
    pub wrong: String,
    /// The value used instead, as written in YAML.
    pub used: String,
    /// Where `used` came from: "built-in", or "last good" (the repository's last
    /// good configuration, in the hook).
    pub from: &'static str,
}

impl std::fmt::Display for ValueProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{SETTINGS_PATH}: {}: {}; using {} ({} value)",
            self.key,
            crate::text::escape_controls(&self.wrong),
            self.used,
            self.from
        )
    }
}

/// The scalar keys whose value mistakes fall back instead of failing the load:
/// key path, and the allowed values (`None`: true or false; `Some((min, max))`:
/// a whole number in that range).
const FALLBACK_KEYS: &[(&str, Option<(u64, u64)>)] = &[
    ("hook.budget", Some((1, MAX_BUDGET as u64))),
    ("hook.fail_closed", None),
    ("hook.session_start_context", None),
    ("hook.prompt_context", None),
    ("hook.state_retention_days", Some((0, 36_500))),
    ("hook.deadline_ms", Some((100, 60_000))),
    ("adr.max_file_size", Some((1, MAX_FILE_SIZE_LIMIT))),
    ("adr.number_width", Some((1, 9))),
    ("adr.index", None),
    ("step_marker.enabled", None),
];

/// Which files are ADRs and where the finalized ones live.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AdrSettings {
    pub globs: Vec<String>,
    pub exclude: Vec<String>,
    pub directory: String,
    pub max_file_size: u64,
    /// Digits of a finalized file's number (`NNN-slug.md` with 3).
    pub number_width: usize,
    /// Whether `<directory>/INDEX.md` is kept: finalize creates it and doctor requires
    /// it. When false, an INDEX.md that exists is still kept in step.
    pub index: bool,
}

/// The agent hook: its retry budget, failure policy, context and deadline.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HookSettings {
    #[schemars(range(min = 1, max = MAX_BUDGET))]
    pub budget: u32,
    pub fail_closed: bool,
    /// Give the model a short summary of the ADR rules when a session starts.
    pub session_start_context: bool,
    /// Inject the short summary of the ADR rules on every prompt too.
    pub prompt_context: bool,
    pub state_retention_days: u64,
    pub deadline_ms: u64,
    /// Tell the person about each block as one `helix-gate retry:` line in a
    /// `systemMessage`: true everywhere, false nowhere; unset: in the sessions
    /// where the STEP marker is required (the consultant's).
    #[serde(default)]
    pub retry_lines: Option<bool>,
}

/// The `<!-- STEP: ... -->` marker the last answer of a session must end with.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct StepMarkerSettings {
    pub enabled: bool,
    /// The steps a marker may name.
    pub steps: Vec<String>,
    pub fallback_file: String,
    /// Globs of session working directories (relative to the repository) the
    /// marker is required in; empty: every session (when enabled).
    pub paths: Vec<String>,
    /// A JSON file (relative to the session's working directory, like
    /// `fallback_file`) whose `step` and `updated_at` helix-gate sets at every
    /// Stop with a valid marker and when the fallback marker is applied. Unset: off.
    #[serde(default)]
    pub status_file: Option<String>,
}

/// How an ADR's status may change: from each status (a key) to the statuses listed;
/// a status that is no key, or has no list, is final. Statuses compare by their
/// leading words, case-insensitively (`superseded by ADR-0005` is `superseded`,
/// adr-tools' `superceded` too).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LifecycleSettings {
    pub transitions: std::collections::BTreeMap<String, Vec<String>>,
    /// The statuses a new ADR may start with.
    pub initial: Vec<String>,
}

/// Where Claude Code sessions of this repository run when they are started below
/// its root (the HELIX consultant's `projects/sessions/<id>/`): `new` writes its
/// drafts there, and `doctor` checks that the hook reaches them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SessionsSettings {
    /// Globs of session folders relative to the repository root.
    pub paths: Vec<String>,
}

impl SessionsSettings {
    /// The compiled session globs (their syntax was checked when the settings loaded).
    pub fn globs(&self) -> Result<Globs, GlobError> {
        build_globs(&self.paths)
    }
}

/// The concept document an ADR is compared with when its front matter names none.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConceptSettings {
    /// File-name patterns (`*` any run of characters, `?` one; case-insensitive), tried in
    /// order in the ADR's own folder: the first pattern that matches a file names the
    /// concept (of several files, the first by name). `{slug}` stands for the ADR's slug
    /// (its file name without `.md`, an `ADR-` prefix and a leading number): `{slug}.md`
    /// finds `output/subagent-approval.md` for `output/ADR-subagent-approval.md`. Empty:
    /// no discovery.
    pub discover: Vec<String>,
}

/// Rules switched off by id, everywhere or below some paths (`helix-gate rules` lists
/// the ids). Only here, in the protected configuration: an ADR's own text can never
/// silence a rule.
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RulesSettings {
    /// Rule ids whose findings are never shown and never count, in every file.
    pub ignore: Vec<String>,
    /// Globs of repository-relative paths (`/` separated) mapped to the rule ids ignored in
    /// the files they match: `{"adr/legacy/**": [section-too-short]}`.
    pub per_path_ignores: std::collections::BTreeMap<String, Vec<String>>,
}

/// What `{slug}` stands for in a `concept.discover` pattern.
pub const SLUG_PLACEHOLDER: &str = "{slug}";

impl ConceptSettings {
    /// The first pattern of `discover` that file name `name` matches (its index); a
    /// pattern with `{slug}` never matches here (see [`ConceptSettings::matches_for`]).
    pub fn matches(&self, name: &str) -> Option<usize> {
        self.matches_for(name, None)
    }

    /// The first pattern of `discover` that file name `name` matches for an ADR of slug
    /// `slug` (`{slug}` in a pattern stands for it; without a slug such a pattern
    /// matches nothing).
    pub fn matches_for(&self, name: &str, slug: Option<&str>) -> Option<usize> {
        self.matcher_for(slug).position(&name.to_lowercase())
    }

    /// [`ConceptSettings::matches_for`] for one slug and many names: the patterns are
    /// lower-cased and given the slug once (per name, that was most of the concept
    /// discovery of `validate` over a folder of 1,000 ADRs).
    pub fn matcher_for(&self, slug: Option<&str>) -> ConceptMatcher {
        self.matcher(slug, true)
    }

    /// [`ConceptSettings::matcher_for`] with the `{slug}` patterns only (the others
    /// match nothing): for the names a folder's listing already ranked by the
    /// patterns without `{slug}`.
    pub fn slug_matcher(&self, slug: &str) -> ConceptMatcher {
        self.matcher(Some(slug), false)
    }

    /// The patterns lower-cased, `{slug}` put in (without a slug, such a pattern
    /// matches nothing); those without `{slug}` only when `plain`.
    fn matcher(&self, slug: Option<&str>, plain: bool) -> ConceptMatcher {
        let slug = slug.map(str::to_lowercase);
        ConceptMatcher {
            patterns: self
                .discover
                .iter()
                .map(|pattern| {
                    let pattern = pattern.to_lowercase();
                    if pattern.contains(SLUG_PLACEHOLDER) {
                        slug.as_deref()
                            .map(|slug| pattern.replace(SLUG_PLACEHOLDER, slug))
                    } else {
                        plain.then_some(pattern)
                    }
                })
                .collect(),
        }
    }

    /// Whether `discover` has a pattern with `{slug}`.
    pub fn uses_slug(&self) -> bool {
        self.discover.iter().any(|p| p.contains(SLUG_PLACEHOLDER))
    }
}

/// The slug of an ADR's file name: without `.md`, an `ADR-` prefix and a leading
/// number (`ADR-subagent-approval.md`, `038-subagent-approval.md` and
/// `ADR-038-subagent-approval.md` all give `subagent-approval`). None when nothing
/// is left, or when the name has neither prefix (the slug would be the ADR itself).
pub fn adr_slug(file_name: &str) -> Option<String> {
    let stem = file_name
        .strip_suffix(".md")
        .or_else(|| file_name.strip_suffix(".MD"))?;
    let mut rest = stem;
    let mut stripped = false;
    if let Some(after) = rest
        .get(..4)
        .filter(|p| p.eq_ignore_ascii_case("adr-"))
        .map(|_| &rest[4..])
    {
        rest = after;
        stripped = true;
    }
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 && rest[digits..].starts_with(['-', '_']) {
        rest = &rest[digits + 1..];
        stripped = true;
    }
    (stripped && !rest.is_empty()).then(|| rest.to_owned())
}

/// Replace each value of `own` (the repository's settings) that is out of range
/// or of the wrong type for a key of [`FALLBACK_KEYS`] with the value of `lower`
/// (the built-in and preset layers), and say so. Other mistakes are left for the
/// strict deserialization, which fails the load.
fn fall_back(own: &mut yaml::Value, lower: &yaml::Value) -> Vec<ValueProblem> {
    let mut problems = Vec::new();
    for &(name, range) in FALLBACK_KEYS {
        let Some((section, key)) = name.split_once('.') else {
            continue;
        };
        let Some(slot) = own
            .get_mut(section)
            .and_then(yaml::Value::as_mapping_mut)
            .and_then(|m| m.get_mut(key))
        else {
            continue;
        };
        let shown = yaml::scalar_text(slot).map_or_else(
            || "a list or map".to_owned(),
            |text| format!("`{}`", crate::text::truncate(&text, 40)),
        );
        let wrong = match range {
            None if slot.as_bool().is_none() => Some(format!("{shown} is not true or false")),
            Some((min, max)) => match slot.as_u64() {
                Some(n) if (min..=max).contains(&n) => None,
                Some(n) => Some(format!("{n} is out of range (allowed: {min} to {max})")),
                None => Some(format!(
                    "{shown} is not a whole number (allowed: {min} to {max})"
                )),
            },
            None => None,
        };
        let Some(wrong) = wrong else { continue };
        let fallback = lower
            .get(section)
            .and_then(|s| s.get(key))
            .cloned()
            .unwrap_or(yaml::Value::Null);
        problems.push(ValueProblem {
            key: name,
            wrong,
            used: yaml::scalar_text(&fallback).unwrap_or_default(),
            from: "built-in",
        });
        *slot = fallback;
    }
    problems
}

/// The `concept.discover` patterns for one ADR's slug ([`ConceptSettings::matcher_for`]).
#[derive(Debug, Clone)]
pub struct ConceptMatcher {
    /// Lower-cased, `{slug}` put in; `None`: a `{slug}` pattern without a slug.
    patterns: Vec<Option<String>>,
}

impl ConceptMatcher {
    /// The first pattern that `lower_name` (a file name, `str::to_lowercase`d) matches.
    pub fn position(&self, lower_name: &str) -> Option<usize> {
        self.patterns
            .iter()
            .position(|pattern| pattern.as_deref().is_some_and(|p| wildcard(p, lower_name)))
    }

    /// The only (lower-case) names the patterns can match, when none of them has a
    /// wildcard: then a name is looked up instead of searched for.
    pub fn literal_names(&self) -> Option<Vec<&str>> {
        let patterns = self.patterns.iter().flatten();
        patterns
            .map(|p| (!p.contains(['*', '?'])).then_some(p.as_str()))
            .collect()
    }
}

/// Whether `name` matches `pattern` (`*` any run of characters, `?` one, else literal).
fn wildcard(pattern: &str, name: &str) -> bool {
    if pattern.is_ascii() && name.is_ascii() {
        // One byte is one character: no copies of either.
        return wildcard_in(pattern.as_bytes(), name.as_bytes(), b'*', b'?');
    }
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    wildcard_in(&p, &n, '*', '?')
}

fn wildcard_in<T: PartialEq + Copy>(p: &[T], n: &[T], any: T, one: T) -> bool {
    let (mut pi, mut ni) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ni < n.len() {
        if pi < p.len() && (p[pi] == one || p[pi] == n[ni]) {
            pi += 1;
            ni += 1;
        } else if pi < p.len() && p[pi] == any {
            star = Some((pi, ni));
            pi += 1;
        } else if let Some((sp, sn)) = star {
            pi = sp + 1;
            ni = sn + 1;
            star = Some((sp, sn + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == any)
}

/// Where `helix-gate new` writes a draft, and from which template.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewSettings {
    /// The drafts folder inside a session.
    pub drafts: String,
    /// The shipped template's name (`templates/<name>.md`): helix, helix-de (its guidance
    /// in German), madr or nygard.
    /// Unset: the preset's template; `new --preset NAME` uses that preset's.
    #[serde(default)]
    pub template: Option<String>,
}

impl NewSettings {
    /// The template `helix-gate new` uses: the `--preset` flag's, else `new.template`,
    /// else the preset's (`preset`, the settings' own).
    pub fn template_name(&self, preset: Preset) -> String {
        self.template_name_with(preset, super::preset::cli_override())
    }

    /// [`NewSettings::template_name`] with `chosen` in place of the `--preset` flag (the
    /// MCP server's `new_adr_template` names a preset per call).
    pub fn template_name_with(&self, preset: Preset, chosen: Option<Preset>) -> String {
        match (chosen, &self.template) {
            (None, Some(name)) => name.clone(),
            _ => preset.name().to_owned(),
        }
    }
}

/// A settings file that could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
// Both may quote the repository (a key, a value, a path): escaped, so a line break in a key
// cannot start a line of its own (a CI workflow command) on stderr.
#[error(
    "invalid settings in {}: {}",
    crate::text::escape_controls(.origin),
    crate::text::escape_controls(.message)
)]
pub struct SettingsError {
    pub origin: String,
    pub message: String,
}

/// The largest `hook.budget` accepted: failed attempts per ADR before the escalation.
/// A hard cap (seed 003: bound retries by count; 5 is its safe ceiling, 3 the
/// default): more attempts only burn the session's tokens on the same mistake,
/// and a typo such as `1000` must not switch the escalation off.
pub const MAX_BUDGET: u32 = 10;

/// The largest `adr.max_file_size` accepted: readers allocate up to it and
/// compute `limit + 1`, so it must stay far from `u64::MAX`.
pub const MAX_FILE_SIZE_LIMIT: u64 = 1 << 30;

impl Settings {
    /// Defaults merged with `<root>/config/helix-gate.yaml` when it exists.
    pub fn load(root: &Path) -> Result<Settings, SettingsError> {
        Settings::load_with(root, super::preset::cli_override())
    }

    /// [`Settings::load`] with `preset` in place of the `--preset` flag (None: the
    /// file's `preset:` key decides).
    pub fn load_with(root: &Path, preset: Option<Preset>) -> Result<Settings, SettingsError> {
        let path = root.join(SETTINGS_PATH);
        let overlay = match crate::fs::read::optional_text(&path, crate::fs::read::CONFIG_LIMIT) {
            // Missing means the defaults; a link whose target is missing means a
            // settings file that was meant and is gone: an error, not the defaults.
            Ok(None) if std::fs::symlink_metadata(&path).is_ok() => {
                return Err(SettingsError {
                    origin: path.display().to_string(),
                    message: "a symbolic link whose target does not exist (dangling link); \
                              the defaults are not used in its place"
                        .to_owned(),
                });
            }
            Ok(text) => text,
            Err(e) => {
                return Err(SettingsError {
                    origin: path.display().to_string(),
                    message: e.to_string(),
                });
            }
        };
        Settings::from_layers_with(overlay.as_deref(), &path.display().to_string(), preset)
    }

    /// The embedded defaults, built without parsing YAML: most repositories have no
    /// settings file of their own, and the hook should not pay for a YAML parse.
    /// A test keeps this equal to `config/helix-gate.yaml`.
    pub fn builtin() -> Settings {
        let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect();
        Settings {
            preset: Preset::Helix,
            adr: AdrSettings {
                globs: strings(&["adr/**/*.md", "**/ADR-*.md"]),
                exclude: strings(&[
                    "**/INDEX.md",
                    "**/README.md",
                    "**/templates/**",
                    "**/template.md",
                    "**/*.template.md",
                    "**/{adr,000,0000}-template.md",
                    "**/*-{000,0000}-template.md",
                ]),
                directory: "adr".to_owned(),
                max_file_size: 5 * 1024 * 1024,
                number_width: 3,
                index: true,
            },
            hook: HookSettings {
                budget: 3,
                fail_closed: false,
                session_start_context: true,
                prompt_context: false,
                state_retention_days: 7,
                deadline_ms: 8_000,
                retry_lines: None,
            },
            step_marker: StepMarkerSettings {
                enabled: true,
                steps: strings(&["what", "why", "constraints", "generate", "finalize", "done"]),
                fallback_file: "output/response.md".to_owned(),
                paths: strings(&["projects/sessions/**"]),
                status_file: None,
            },
            new: NewSettings {
                drafts: "output".to_owned(),
                template: None,
            },
            sessions: SessionsSettings {
                paths: strings(&["projects/sessions/*"]),
            },
            concept: ConceptSettings {
                discover: strings(&[
                    "concept.md",
                    "*-concept.md",
                    "konzept.md",
                    "konzept*.md",
                    "{slug}.md",
                ]),
            },
            rules: RulesSettings::default(),
            lifecycle: LifecycleSettings {
                transitions: [
                    ("Proposed", &["Accepted", "Rejected"][..]),
                    ("Accepted", &["Implemented", "Superseded", "Deprecated"][..]),
                    ("Implemented", &["Superseded", "Deprecated"][..]),
                ]
                .into_iter()
                .map(|(from, to)| (from.to_owned(), strings(to)))
                .collect(),
                initial: strings(&["Proposed"]),
            },
            problems: Vec::new(),
        }
    }

    /// Defaults merged with `overlay` (the text of a settings file named `origin`) and
    /// the `--preset` flag.
    pub fn from_layers(overlay: Option<&str>, origin: &str) -> Result<Settings, SettingsError> {
        Settings::from_layers_with(overlay, origin, super::preset::cli_override())
    }

    /// Layers, lowest first: the built-in settings, the preset's settings, `overlay`;
    /// `preset` (the `--preset` flag) wins over the overlay's `preset:` key.
    pub fn from_layers_with(
        overlay: Option<&str>,
        origin: &str,
        preset: Option<Preset>,
    ) -> Result<Settings, SettingsError> {
        if overlay.is_none() && preset.is_none_or(|p| p == Preset::Helix) {
            return Ok(Settings::builtin());
        }
        let err = |origin: &str, e: yaml::YamlError| SettingsError {
            origin: origin.to_owned(),
            message: e.to_string(),
        };
        let mut base =
            yaml::parse_value(DEFAULT_SETTINGS).map_err(|e| err("built-in settings", e))?;
        let mut own = None;
        if let Some(text) = overlay {
            let value = yaml::parse_value(text).map_err(|e| err(origin, e))?;
            if !value.is_null() {
                if !value.is_mapping() {
                    return Err(SettingsError {
                        origin: origin.to_owned(),
                        message: "expected a map of settings".to_owned(),
                    });
                }
                own = Some(value);
            }
        }
        // An unknown `preset:` value falls through to strict deserialization below,
        // which names it.
        let chosen = preset.or_else(|| {
            own.as_ref()
                .and_then(|v| v.get("preset"))
                .and_then(yaml::Value::as_str)
                .and_then(Preset::parse)
        });
        if let Some(text) = chosen.and_then(Preset::settings_text) {
            let layer = yaml::parse_value(text).map_err(|e| err("built-in preset settings", e))?;
            yaml::merge(&mut base, layer);
        }
        let mut problems = Vec::new();
        if let Some(mut value) = own {
            problems = fall_back(&mut value, &base);
            yaml::merge(&mut base, value);
        }
        if let Some(preset) = preset {
            yaml::merge(
                &mut base,
                yaml::parse_value(&format!("preset: {preset}\n"))
                    .map_err(|e| err("--preset", e))?,
            );
        }
        let mut settings: Settings = yaml::from_value(base).map_err(|e| err(origin, e))?;
        settings.check().map_err(|e| SettingsError {
            origin: origin.to_owned(),
            message: e.to_string(),
        })?;
        settings.problems = problems;
        Ok(settings)
    }

    /// Take the value of each key in [`Settings::problems`] from `good` (the
    /// repository's last good configuration) instead of the built-in one.
    pub fn fall_back_to(&mut self, good: &Settings, from: &'static str) {
        for problem in &mut self.problems {
            // Each key a problem can name: copy the good value's field and show it.
            macro_rules! fall_back {
                ($($key:literal => $section:ident . $field:ident),+ $(,)?) => {
                    match problem.key {
                        $($key => {
                            self.$section.$field = good.$section.$field;
                            good.$section.$field.to_string()
                        })+
                        _ => continue,
                    }
                };
            }
            let used = fall_back! {
                "hook.budget" => hook.budget,
                "hook.fail_closed" => hook.fail_closed,
                "hook.session_start_context" => hook.session_start_context,
                "hook.prompt_context" => hook.prompt_context,
                "hook.state_retention_days" => hook.state_retention_days,
                "hook.deadline_ms" => hook.deadline_ms,
                "adr.max_file_size" => adr.max_file_size,
                "adr.number_width" => adr.number_width,
                "adr.index" => adr.index,
                "step_marker.enabled" => step_marker.enabled,
            };
            problem.used = used;
            problem.from = from;
        }
    }

    fn check(&self) -> Result<(), InvalidSetting> {
        // Syntax only: compiling the glob set is left to the first caller that needs it.
        for pattern in self
            .adr
            .globs
            .iter()
            .chain(&self.adr.exclude)
            .chain(&self.step_marker.paths)
            .chain(&self.sessions.paths)
            .chain(self.rules.per_path_ignores.keys())
        {
            check_glob(pattern)?;
        }
        // Neither may leave its folder: a repository's settings must not point the
        // directory commands (doctor, index, next-number, finalize) or `new` at files
        // outside it; they would read and show them (writes there are refused anyway).
        if !stays_below(&self.new.drafts) {
            return Err(InvalidSetting::Drafts(self.new.drafts.clone()));
        }
        if !stays_below(&self.adr.directory) {
            return Err(InvalidSetting::Directory(self.adr.directory.clone()));
        }
        if let Some(bad) = self
            .concept
            .discover
            .iter()
            .find(|p| p.trim().is_empty() || p.contains(['/', '\\']))
        {
            return Err(InvalidSetting::ConceptDiscover(bad.clone()));
        }
        // A budget beyond any session's attempts would switch the escalation off.
        if !(1..=MAX_BUDGET).contains(&self.hook.budget) {
            return Err(InvalidSetting::Budget(self.hook.budget));
        }
        // Claude Code cancels a hook silently at its timeout (Stop: the reviewer's + 60 s).
        if !(100..=60_000).contains(&self.hook.deadline_ms) {
            return Err(InvalidSetting::DeadlineMs(self.hook.deadline_ms));
        }
        if !(1..=MAX_FILE_SIZE_LIMIT).contains(&self.adr.max_file_size) {
            return Err(InvalidSetting::MaxFileSize(self.adr.max_file_size));
        }
        if !(1..=9).contains(&self.adr.number_width) {
            return Err(InvalidSetting::NumberWidth(self.adr.number_width));
        }
        Ok(())
    }

    /// The compiled ADR globs; settings from [`Settings::load`] always compile (their
    /// syntax was checked), so a failure here yields a matcher that matches nothing.
    pub fn matcher(&self) -> AdrMatcher {
        self.adr_matcher().unwrap_or_else(|_| AdrMatcher {
            include: Globs::default(),
            exclude: Globs::default(),
            templates: Globs::default(),
            prefixes: Vec::new(),
        })
    }

    /// The compiled ADR globs.
    pub fn adr_matcher(&self) -> Result<AdrMatcher, GlobError> {
        Ok(AdrMatcher {
            include: build_globs(&self.adr.globs)?,
            // Case-insensitive by lower-casing pattern and path; the patterns of
            // template names apart ([`AdrMatcher::is_excluded`]).
            exclude: build_globs(&exclusions(&self.adr.exclude, false))?,
            templates: build_globs(&exclusions(&self.adr.exclude, true))?,
            prefixes: self.adr.globs.iter().map(|g| literal_prefix(g)).collect(),
        })
    }
}

/// The `exclude` patterns, lower-cased, that name templates (`templates`) or
/// the others.
fn exclusions(patterns: &[String], templates: bool) -> Vec<String> {
    patterns
        .iter()
        .map(|p| p.to_lowercase())
        .filter(|p| p.contains("template") == templates)
        .collect()
}

/// Whether the relative folder `path` stays below where it starts: not absolute, no `..`.
/// On Windows `\etc` and `C:adr` are not absolute but leave the folder: a root or a
/// drive counts as absolute too.
fn stays_below(path: &str) -> bool {
    let path = Path::new(path);
    !path.is_absolute()
        && !path.has_root()
        && !path
            .components()
            .any(|c| matches!(c, std::path::Component::Prefix(_)))
        && !path
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir))
}

/// Globs checked as globset reads them, matched without building an automaton.
///
/// globset compiles every glob it cannot match by a hash, prefix or suffix lookup
/// (`adr/**/*.md`, `**/{adr,000,0000}-template.md`) into one regex set, and that
/// build was 8 % of a hook call that checks one ADR, for one or two paths matched.
/// Here a glob is validated by globset's parser (its errors, its syntax), its
/// `{a,b}` alternatives are expanded, and each alternative is matched by git's
/// wildmatch (gitoxide's `gix-glob`, already in the tree), with `*` and `?` not
/// crossing `/` and `**` spanning folders, as globset's `literal_separator` does.
#[derive(Debug, Clone, Default)]
pub struct Globs {
    alternatives: Vec<Vec<u8>>,
    /// Per alternative, the literal text after its last wildcard, which a matching
    /// path ends with: most paths are turned away by it without a match
    /// (`**/README.md` against 1,000 ADRs was a tenth of `validate`'s serial work).
    tails: Vec<Vec<u8>>,
}

/// The literal end of the glob `alternative`: what follows its last `*`, `?`, `[`,
/// `]` or `\` (empty when it ends with one), without its leading `/` (`**/x.md`
/// matches `x.md`).
fn literal_tail(alternative: &[u8]) -> Vec<u8> {
    let from = alternative
        .iter()
        .rposition(|b| matches!(b, b'*' | b'?' | b'[' | b']' | b'\\'))
        .map_or(0, |i| i + 1);
    let tail = &alternative[from..];
    tail.strip_prefix(b"/").unwrap_or(tail).to_vec()
}

/// At most this many alternatives after expanding `{...}`: a hostile settings file
/// cannot make one glob into millions.
const MAX_GLOB_ALTERNATIVES: usize = 4096;

impl Globs {
    /// Whether a glob matches the repository-relative `path`; on Windows in any
    /// case and with `\` separators too, as NTFS names files ([`Globs::is_match_on`]).
    pub fn is_match(&self, path: impl AsRef<str>) -> bool {
        self.is_match_on(path.as_ref(), crate::paths::WINDOWS)
    }

    /// [`Globs::is_match`] for the platform `windows` says.
    pub fn is_match_on(&self, path: &str, windows: bool) -> bool {
        use gix_glob::wildmatch::Mode;
        let (path, mode) = if windows {
            (
                std::borrow::Cow::Owned(path.replace('\\', "/")),
                Mode::NO_MATCH_SLASH_LITERAL | Mode::IGNORE_CASE,
            )
        } else {
            (
                std::borrow::Cow::Borrowed(path),
                Mode::NO_MATCH_SLASH_LITERAL,
            )
        };
        self.alternatives
            .iter()
            .zip(&self.tails)
            .any(|(glob, tail)| {
                // In any case on Windows: the tail would have to be compared so too.
                (windows || path.as_bytes().ends_with(tail))
                    && gix_glob::wildmatch(glob.as_slice().into(), path.as_bytes().into(), mode)
            })
    }
}

/// Compile globs matched against repository-relative paths (`*` and `?` stop at `/`,
/// `**` spans folders, `{a,b}` alternatives).
pub fn build_globs(patterns: &[String]) -> Result<Globs, GlobError> {
    globs_of(patterns, true)
}

/// [`build_globs`] for globs it accepted before (the cached rules of the governing
/// index): their syntax is not checked again (globset's parser was a twentieth of
/// a governed write's work). A glob that would not pass matches as wildmatch reads it.
pub fn build_accepted_globs(patterns: &[String]) -> Result<Globs, GlobError> {
    globs_of(patterns, false)
}

fn globs_of(patterns: &[String], check: bool) -> Result<Globs, GlobError> {
    let mut alternatives = Vec::new();
    for pattern in patterns {
        if check && !plainly_valid(pattern) {
            check_glob(pattern)?;
        }
        expand_braces(pattern.as_bytes(), &mut alternatives).map_err(|TooManyAlternatives| {
            GlobError::TooManyAlternatives {
                pattern: pattern.clone(),
            }
        })?;
    }
    let tails = alternatives.iter().map(|a| literal_tail(a)).collect();
    Ok(Globs {
        alternatives,
        tails,
    })
}

/// Whether globset accepts `pattern` for sure, so its check is skipped (it builds
/// a regex: a tenth of a hook call that checks a code file went to checking the
/// default ADR globs): every error it reports needs a class, an alternation or an
/// escape, or a regex too large to build.
fn plainly_valid(pattern: &str) -> bool {
    pattern.len() <= 256 && !pattern.contains(['[', ']', '{', '}', '\\'])
}

/// The syntax of one glob, as globset reads it.
fn check_glob(pattern: &str) -> Result<(), GlobError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(drop)
        .map_err(|e| GlobError::Syntax {
            pattern: pattern.to_owned(),
            cause: e.to_string(),
        })
}

/// A glob of the settings that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GlobError {
    #[error("bad glob `{pattern}`: {cause}")]
    Syntax { pattern: String, cause: String },
    #[error("bad glob `{pattern}`: more than {MAX_GLOB_ALTERNATIVES} alternatives")]
    TooManyAlternatives { pattern: String },
}

/// A value of the settings out of its range or its place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidSetting {
    #[error(transparent)]
    Glob(#[from] GlobError),
    #[error("new.drafts must be a folder inside the session, got `{0}`")]
    Drafts(String),
    #[error("adr.directory must be a folder inside the repository, got `{0}`")]
    Directory(String),
    #[error("concept.discover takes file names in the ADR's folder (no `/`), got `{0}`")]
    ConceptDiscover(String),
    #[error("hook.budget must be between 1 and {MAX_BUDGET}, got {0}")]
    Budget(u32),
    #[error("hook.deadline_ms must be between 100 and 60000, got {0}")]
    DeadlineMs(u64),
    #[error("adr.max_file_size must be between 1 and {MAX_FILE_SIZE_LIMIT} bytes (1 GiB), got {0}")]
    MaxFileSize(u64),
    #[error("adr.number_width must be between 1 and 9, got {0}")]
    NumberWidth(usize),
}

/// [`expand_braces`] stopped at [`MAX_GLOB_ALTERNATIVES`].
#[derive(Debug)]
struct TooManyAlternatives;

/// Append every alternative of `glob`'s `{a,b}` groups (nested ones too) to `out`.
/// A `{` inside `[...]` or after `\` is literal, as in globset.
fn expand_braces(glob: &[u8], out: &mut Vec<Vec<u8>>) -> Result<(), TooManyAlternatives> {
    let Some((open, close, parts)) = first_group(glob) else {
        if out.len() >= MAX_GLOB_ALTERNATIVES {
            return Err(TooManyAlternatives);
        }
        out.push(glob.to_vec());
        return Ok(());
    };
    for part in parts {
        let mut expanded = glob[..open].to_vec();
        expanded.extend_from_slice(part);
        expanded.extend_from_slice(&glob[close + 1..]);
        expand_braces(&expanded, out)?;
    }
    Ok(())
}

/// The first top-level `{...}` of `glob`: where it opens and closes, and its
/// comma-separated parts (commas of nested groups stay in their part).
fn first_group(glob: &[u8]) -> Option<(usize, usize, Vec<&[u8]>)> {
    let mut i = 0;
    let mut in_class = false;
    let mut open = None;
    let mut depth = 0usize;
    let mut part_start = 0;
    let mut parts = Vec::new();
    while i < glob.len() {
        match glob[i] {
            b'\\' => i += 1,
            b'[' if !in_class => in_class = true,
            b']' if in_class => in_class = false,
            b'{' if !in_class => {
                if open.is_none() {
                    open = Some(i);
                    part_start = i + 1;
                } else {
                    depth += 1;
                }
            }
            b',' if !in_class && open.is_some() && depth == 0 => {
                parts.push(&glob[part_start..i]);
                part_start = i + 1;
            }
            b'}' if !in_class && open.is_some() => {
                if depth == 0 {
                    parts.push(&glob[part_start..i]);
                    return open.map(|open| (open, i, parts));
                }
                depth -= 1;
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The folder a glob starts in before its first wildcard (`adr` for
/// `adr/**/*.md`, empty for `**/ADR-*.md`).
fn literal_prefix(glob: &str) -> String {
    let mut parts = Vec::new();
    let mut rest = glob.split('/').peekable();
    while let Some(part) = rest.next() {
        if rest.peek().is_none() || part.contains(['*', '?', '[', '{', '\\']) {
            break;
        }
        parts.push(part);
    }
    parts.join("/")
}

/// Decides whether a repository-relative path is an ADR.
#[derive(Debug, Clone)]
pub struct AdrMatcher {
    include: Globs,
    /// `adr.exclude`'s patterns but those of template names.
    exclude: Globs,
    /// `adr.exclude`'s patterns that name templates (their text says `template`).
    templates: Globs,
    /// The literal folders the globs start in ([`literal_prefix`]).
    prefixes: Vec<String>,
}

impl AdrMatcher {
    /// `rel` is relative to the repository root with `/` separators.
    pub fn is_adr(&self, rel: &str) -> bool {
        self.include.is_match(rel) && !self.is_excluded(rel)
    }

    /// The folders the ADR globs start in, before any wildcard (`""` is the root).
    pub fn literal_prefixes(&self) -> Vec<String> {
        self.prefixes.clone()
    }

    /// Whether `rel` is excluded (INDEX.md, README.md, templates) regardless of globs.
    /// A pattern of template names (one that says `template`) does not exclude a
    /// numbered file (`002-x.template.md`: a number other than zero, then `-` or `_`)
    /// outside a `templates/` folder: it holds a number of the sequence, so it is a
    /// decision, and renaming a blocked ADR to a template's name must not hide it
    /// from every check. The repository's other patterns (`**/*-wip.md`) exclude
    /// numbered files as they say.
    pub fn is_excluded(&self, rel: &str) -> bool {
        let lower = rel.to_lowercase();
        self.exclude.is_match(&lower)
            || (self.templates.is_match(&lower) && !is_numbered_decision(rel))
    }
}

/// Whether `rel` names a numbered decision ([`AdrMatcher::is_excluded`]): its file
/// name starts with digits that are not all zeros, followed by `-` or `_`, and no
/// folder on its way is called `templates`.
fn is_numbered_decision(rel: &str) -> bool {
    let mut parts = rel.rsplit('/');
    let name = parts.next().unwrap_or_default();
    let digits = name.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0
        && matches!(name.as_bytes().get(digits), Some(b'-' | b'_'))
        && name.as_bytes()[..digits].iter().any(|&d| d != b'0')
        && !parts.any(|dir| dir.eq_ignore_ascii_case("templates"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn globs_plainly_valid_are_valid() {
        let alphabet = ['a', '*', '/', '.', '?', '-', '_', '!', ' ', 'é'];
        let mut state = 0x2545_f491_u32;
        for _ in 0..3000 {
            let mut pattern = String::new();
            for _ in 0..(state % 9) {
                state ^= state << 13;
                state ^= state >> 17;
                state ^= state << 5;
                pattern.push(alphabet[(state % 10) as usize]);
            }
            assert!(plainly_valid(&pattern), "{pattern}");
            assert_eq!(check_glob(&pattern), Ok(()), "{pattern}");
        }
        for bad in ["[a", "{a", "a\\", "a]", "}"] {
            assert!(!plainly_valid(bad), "{bad}");
        }
    }

    use super::*;

    #[test]
    fn wildcards_match_by_character_in_ascii_and_beyond() {
        for (pattern, name, expected) in [
            ("*-concept.md", "x-concept.md", true),
            ("*-concept.md", "x-concept.mdx", false),
            ("a*b*c", "aXbYbc", true),
            ("a?b", "ab", false),
            ("a?b", "axb", true),
            ("?\u{e4}*", "b\u{e4}z", true),
            ("a?c", "a\u{e4}c", true),
            ("*", "", true),
            ("", "x", false),
        ] {
            assert_eq!(wildcard(pattern, name), expected, "{pattern} {name}");
        }
    }

    /// The wildmatch-based [`Globs`] agree with globset (as it was used before,
    /// `literal_separator`) on the shipped globs, the presets' and tricky ones.
    #[test]
    fn globs_match_as_globset_does() {
        let globs = [
            "adr/**/*.md",
            "**/ADR-*.md",
            "**/index.md",
            "**/templates/**",
            "**/template.md",
            "**/*.template.md",
            "**/{adr,000,0000}-template.md",
            "**/*-{000,0000}-template.md",
            "docs/decisions/*.md",
            "doc/adr/[0-9][0-9][0-9][0-9]-*.md",
            "projects/sessions/*",
            "a/{b,{c,d}}/e?.md",
            "[!x]*.md",
            "adr/*",
            "*",
            "**",
        ];
        let paths = [
            "adr/001-x.md",
            "adr/sub/002-y.md",
            "adr",
            "adr/",
            "ADR-x.md",
            "output/ADR-foo.md",
            "a/b/ADR-1.md",
            "adr/index.md",
            "index.md",
            "x/templates/t.md",
            "templates/a/b.md",
            "templates",
            "adr/template.md",
            "adr/x.template.md",
            "adr/adr-template.md",
            "adr/0000-template.md",
            "adr/000-template.md",
            "adr/adr-000-template.md",
            "adr/x-0000-template.md",
            "docs/decisions/0001-a.md",
            "docs/decisions/sub/0001-a.md",
            "doc/adr/0001-record.md",
            "doc/adr/001-record.md",
            "projects/sessions/s1",
            "projects/sessions/s1/output",
            "a/b/e1.md",
            "a/c/e2.md",
            "a/d/e.md",
            "a/x/e1.md",
            "y.md",
            "x.md",
            "dir/y.md",
        ];
        for glob in globs {
            let set = {
                let mut builder = globset::GlobSetBuilder::new();
                builder.add(
                    GlobBuilder::new(glob)
                        .literal_separator(true)
                        // On Windows in any case, as NTFS names files.
                        .case_insensitive(crate::paths::WINDOWS)
                        .build()
                        .unwrap(),
                );
                builder.build().unwrap()
            };
            let ours = build_globs(&[glob.to_owned()]).unwrap();
            for path in paths {
                assert_eq!(
                    ours.is_match(path),
                    set.is_match(path),
                    "glob {glob} on {path}"
                );
            }
        }
    }

    #[test]
    fn brace_alternatives_are_expanded_and_bounded() {
        let mut out = Vec::new();
        expand_braces(b"a{b,c{d,e}}[{]\\{x", &mut out).unwrap();
        let out: Vec<String> = out
            .into_iter()
            .map(|a| String::from_utf8(a).unwrap())
            .collect();
        assert_eq!(out, ["ab[{]\\{x", "acd[{]\\{x", "ace[{]\\{x"]);
        let hostile = "{a,b}".repeat(13);
        let err = build_globs(std::slice::from_ref(&hostile)).unwrap_err();
        assert_eq!(err, GlobError::TooManyAlternatives { pattern: hostile });
        assert!(
            err.to_string().contains("more than 4096 alternatives"),
            "{err}"
        );
    }

    #[test]
    fn globs_start_in_their_literal_folder() {
        assert_eq!(literal_prefix("adr/**/*.md"), "adr");
        assert_eq!(literal_prefix("docs/decisions/*.md"), "docs/decisions");
        assert_eq!(literal_prefix("**/ADR-*.md"), "");
        assert_eq!(literal_prefix("ADR.md"), "");
    }

    #[test]
    fn max_file_size_is_bounded() {
        for bad in ["0", "18446744073709551615"] {
            let yaml = format!("adr:\n  max_file_size: {bad}\n");
            let s = Settings::from_layers(Some(&yaml), "test.yaml").unwrap();
            assert_eq!(s.adr.max_file_size, 5 * 1024 * 1024, "falls back");
            assert!(
                s.problems[0].to_string().contains("adr.max_file_size: ")
                    && s.problems[0]
                        .to_string()
                        .contains("(allowed: 1 to 1073741824)"),
                "{}",
                s.problems[0]
            );
        }
    }

    #[test]
    fn adr_directory_stays_inside_the_repository() {
        for bad in ["/etc", "../other/adr", "docs/../../adr"] {
            let yaml = format!("adr:\n  directory: \"{bad}\"\n");
            let err = Settings::from_layers(Some(&yaml), "test.yaml").unwrap_err();
            assert!(
                format!("{err:#}").contains("adr.directory must be a folder inside the repository"),
                "{err:#}"
            );
        }
        for good in ["adr", "docs/decisions", "."] {
            let yaml = format!("adr:\n  directory: \"{good}\"\n");
            assert!(
                Settings::from_layers(Some(&yaml), "test.yaml").is_ok(),
                "{good}"
            );
        }
    }

    #[test]
    fn defaults_parse_and_match() {
        let settings = Settings::from_layers(None, "none").unwrap();
        let m = settings.adr_matcher().unwrap();
        assert!(m.is_adr("adr/038-x.md"));
        assert!(m.is_adr("adr/sub/001-x.md"));
        assert!(m.is_adr("output/ADR-foo.md"));
        assert!(m.is_adr("ADR-foo.md"));
        assert!(!m.is_adr("adr/INDEX.md"));
        assert!(!m.is_adr("adr/README.md"));
        assert!(!m.is_adr("adr/000-Template.md"));
        assert!(!m.is_adr("adr/0000-template.md"));
        assert!(!m.is_adr("adr/template.md"));
        assert!(!m.is_adr("adr/adr-template.md"));
        assert!(!m.is_adr("adr/templates/decision.md"));
        assert!(!m.is_adr("templates/ADR-x.md"));
        assert!(!m.is_adr("adr/decision.template.md"));
        assert!(!m.is_adr("adr/ODH-ADR-0000-template.md"));
        assert!(m.is_adr("adr/1000-template.md"));
        // A numbered file is a decision, whatever its name says after the number.
        assert!(m.is_adr("adr/002-x.template.md"));
        assert!(m.is_adr("adr/sub/0002_x.template.md"));
        assert!(!m.is_adr("adr/templates/002-x.md"));
        assert!(!m.is_adr("adr/000-x.template.md"));
        assert!(!m.is_adr("adr/x002-x.template.md"));
        // A word in the title never excludes an ADR.
        assert!(m.is_adr("adr/039-template-engine-selection.md"));
        assert!(m.is_adr("adr/039-template.md"));
        assert!(m.is_adr("output/ADR-template-engine-selection.md"));
        assert!(!m.is_adr("src/main.rs"));
        assert!(!m.is_adr("docs/adr.md"));
    }

    #[test]
    fn builtin_equals_the_embedded_yaml() {
        let parsed: Settings = yaml::parse(DEFAULT_SETTINGS).unwrap();
        assert_eq!(Settings::builtin(), parsed);
        assert_eq!(Settings::from_layers(None, "none").unwrap(), parsed);
    }

    #[test]
    fn on_windows_globs_match_in_any_case_and_with_backslashes() {
        let globs =
            build_globs(&["docs/adr/**/*.md".to_owned(), "src/{a,b}/*.rs".to_owned()]).unwrap();
        for path in [r"Docs\ADR\0007-x.MD", "DOCS/adr/sub/x.md", r"src\B\x.rs"] {
            assert!(globs.is_match_on(path, true), "{path}");
            assert!(!globs.is_match_on(path, false), "{path}");
        }
        assert!(globs.is_match_on("docs/adr/0007-x.md", false));
        // `*` still stops at a folder, whichever separator it is written with.
        assert!(!globs.is_match_on(r"src\a\x\y.rs", true));
    }

    #[test]
    fn concept_patterns_match_file_names_case_insensitively_in_order() {
        let s = Settings::builtin();
        assert_eq!(s.concept.matches("concept.md"), Some(0));
        assert_eq!(s.concept.matches("Concept.MD"), Some(0));
        assert_eq!(s.concept.matches("payment-concept.md"), Some(1));
        assert_eq!(s.concept.matches("KONZEPT.md"), Some(2));
        assert_eq!(s.concept.matches("Konzept-Zahlung.md"), Some(3));
        assert_eq!(s.concept.matches("concept.txt"), None);
        assert_eq!(s.concept.matches("ADR-concept-x.md"), None);
        assert_eq!(s.concept.matches("preconcept.md"), None);
        assert_eq!(s.concept.matches("subagent-approval.md"), None);
        assert_eq!(
            s.concept
                .matches_for("Subagent-Approval.md", Some("subagent-approval")),
            Some(4)
        );
        assert_eq!(
            s.concept
                .matches_for("concept.md", Some("subagent-approval")),
            Some(0),
            "concept.md still comes first"
        );
        for (name, slug) in [
            ("ADR-subagent-approval.md", Some("subagent-approval")),
            ("038-subagent-approval.md", Some("subagent-approval")),
            ("ADR-038-x.md", Some("x")),
            ("adr-x.md", Some("x")),
            ("subagent-approval.md", None),
            ("ADR-.md", None),
            ("notes.txt", None),
        ] {
            assert_eq!(adr_slug(name).as_deref(), slug, "{name}");
        }
        let off = Settings::from_layers(Some("concept: {discover: []}\n"), "x").unwrap();
        assert_eq!(off.concept.matches("concept.md"), None);
        let err = Settings::from_layers(Some("concept: {discover: [a/concept.md]}\n"), "x");
        assert!(err.unwrap_err().message.contains("concept.discover"));
    }

    #[test]
    fn overlay_merges_and_unknown_keys_fail() {
        let s = Settings::from_layers(Some("hook: {budget: 5}\n"), "x").unwrap();
        assert_eq!(s.hook.budget, 5);
        assert!(s.hook.session_start_context);
        // A value mistake falls back to the built-in value with one problem; the
        // rest of the file still applies.
        for bad in ["0", "11", "1000", "4294967295", "five", "[3]"] {
            let s = Settings::from_layers(
                Some(&format!("hook: {{budget: {bad}, prompt_context: true}}\n")),
                "x",
            )
            .unwrap();
            assert_eq!(s.hook.budget, 3, "{bad}");
            assert!(s.hook.prompt_context);
            assert_eq!(s.problems.len(), 1, "{bad}");
            let shown = s.problems[0].to_string();
            assert!(
                shown.starts_with("config/helix-gate.yaml: hook.budget: ")
                    && shown.contains("(allowed: 1 to 10)")
                    && shown.ends_with("; using 3 (built-in value)"),
                "{shown}"
            );
        }
        assert_eq!(
            Settings::from_layers(Some("hook: {budget: 10}\n"), "x")
                .unwrap()
                .hook
                .budget,
            10
        );
        let mut s = Settings::from_layers(
            Some("hook: {fail_closed: yes please, deadline_ms: 5}\nadr: {number_width: 0}\n"),
            "x",
        )
        .unwrap();
        let keys: Vec<&str> = s.problems.iter().map(|p| p.key).collect();
        assert_eq!(
            keys,
            ["hook.fail_closed", "hook.deadline_ms", "adr.number_width"]
        );
        assert_eq!((s.hook.deadline_ms, s.adr.number_width), (8_000, 3));
        // The session's last good configuration wins over the built-in value.
        let mut good = Settings::builtin();
        good.hook.fail_closed = true;
        good.hook.deadline_ms = 4_000;
        s.fall_back_to(&good, "last good");
        assert!(s.hook.fail_closed);
        assert_eq!(s.hook.deadline_ms, 4_000);
        assert!(
            s.problems[1]
                .to_string()
                .ends_with("using 4000 (last good value)"),
            "{}",
            s.problems[1]
        );
        // A file that does not parse, or an unknown key, still fails the load.
        assert!(Settings::from_layers(Some("hook: {budget: [\n"), "x").is_err());
        let err = Settings::from_layers(Some("hook: {budgett: 5}\n"), "x").unwrap_err();
        assert!(err.message.contains("budgett"), "{err}");
        assert!(Settings::from_layers(Some("- a\n"), "x").is_err());
        assert!(Settings::from_layers(Some("adr: {globs: ['[']}\n"), "x").is_err());
    }
}
