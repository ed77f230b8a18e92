//! Rules an ADR states about code (its `## Enforcement` section), and the ADR
//! rules that prove them enforceable before they are trusted to block anyone:
//! the block parses, kinds and fields are known, patterns and globs compile,
//! each example is judged as it says, and the `paths` reach a file.

pub mod eval;
pub mod imports;
pub mod manifest;
pub mod model;

pub use eval::{Compiled, FileChange, Hit};
pub use model::{CodeRule, Enforcement, Examples, Kind};

use super::Context;
use crate::adr::Adr;
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// Checks the `## Enforcement` section (German `## Durchsetzung`): it holds one fenced
    /// `yaml` block with a `rules:` list; each rule has an `id` (unique in the ADR), a known
    /// `kind` (`forbid_import`, `forbid_dependency`, `forbid_path`, `require_co_change`,
    /// `forbid_pattern`, `require_pattern`, `llm_review`) with its own fields, a `why`, a
    /// `severity` of `error` or `warning`, and globs and patterns that compile.
    ///
    /// ## Why
    /// A rule that cannot be read enforces nothing, silently; an agent writing the ADR
    /// gets the error while it can still fix the rule.
    ///
    /// ## Fix
    /// Correct the rule as the message says; `helix-gate explain enforcement-invalid`
    /// lists the kinds and their fields.
    ///
    /// ## Example
    /// ```yaml
    /// rules:
    ///   - id: no-direct-http
    ///     kind: forbid_import
    ///     why: "All outbound HTTP goes through app.gateway (Decision, point 1)."
    ///     modules: [requests, urllib3]
    ///     paths: ["src/**/*.py"]
    ///     examples:
    ///       violates: "import requests"
    ///       passes: "from app.gateway import client"
    /// ```
    pub const INVALID {
        id: "enforcement-invalid",
        severity: Error,
        category: Enforcement,
        summary: "the ## Enforcement block does not parse, or a rule's kind, fields, glob or pattern is invalid",
    }

    /// ## What it does
    /// Runs each rule that reads text (`forbid_import`, `forbid_pattern`,
    /// `require_pattern`) on its own examples: the `violates` text must be flagged and the
    /// `passes` text must not. A rule of another kind is checked on the examples it has.
    ///
    /// ## Why
    /// The examples prove that the rule does what its `why` says: a pattern that flags
    /// nothing, or everything, would pass review and block the wrong code.
    ///
    /// ## Fix
    /// Correct the pattern or module list, or the example, until both are judged as
    /// written.
    pub const EXAMPLE_FAILS {
        id: "enforcement-example-fails",
        severity: Error,
        category: Enforcement,
        summary: "a rule does not flag its `violates` example, or flags its `passes` example",
    }

    /// ## What it does
    /// Requires `examples: {violates: ..., passes: ...}` on each rule that reads text
    /// (`forbid_import`, `forbid_pattern`, `require_pattern`).
    ///
    /// ## Why
    /// Without examples nobody can tell whether the rule catches what it should.
    ///
    /// ## Fix
    /// Add a line that breaks the decision as `violates` and one that keeps it as `passes`.
    pub const EXAMPLES_MISSING {
        id: "enforcement-examples-missing",
        severity: Error,
        category: Enforcement,
        summary: "a rule that reads text has no `violates` and `passes` examples",
    }

    /// ## What it does
    /// Warns when a rule's `paths` globs match no file git tracks.
    ///
    /// ## Why
    /// A rule whose paths reach no file enforces nothing; usually the glob has a typo or
    /// the code moved.
    ///
    /// ## Fix
    /// Correct the glob (`src/**/*.py`, not `/src/*.py`), or drop the rule.
    pub const PATHS_UNMATCHED {
        id: "enforcement-paths-unmatched",
        severity: Warning,
        category: Enforcement,
        summary: "a rule's `paths` globs match no tracked file",
    }

    /// ## What it does
    /// Checks the front matter's `governs:`: a list of globs relative to the repository
    /// root (or one glob, or a mapping with a `paths` list); `!glob` excludes. Each glob
    /// must compile and stay inside the repository (no leading `/`, no `..`).
    ///
    /// ## Why
    /// `governs:` decides which files an accepted ADR binds; a glob that cannot be read
    /// binds nothing, silently.
    ///
    /// ## Example
    /// ```yaml
    /// governs:
    ///   - "src/db/**"
    ///   - "!src/db/legacy/**"
    /// ```
    ///
    /// ## Fix
    /// Write each glob relative to the repository root, with balanced `[` and `{`.
    pub const GOVERNS_INVALID {
        id: "governs-invalid",
        severity: Error,
        category: Enforcement,
        summary: "`governs:` is not a list of globs, or a glob does not compile",
    }

    /// ## What it does
    /// Warns when a glob of `governs:` (not an exclusion) matches no file git tracks.
    ///
    /// ## Why
    /// An ADR that governs nothing binds nothing; usually the glob has a typo or the code
    /// moved. (A file the ADR will create can be named in a HELIX `files.create` instead.)
    ///
    /// ## Fix
    /// Correct the glob, or drop it.
    pub const GOVERNS_UNMATCHED {
        id: "governs-unmatched",
        severity: Warning,
        category: Enforcement,
        summary: "a `governs:` glob matches no tracked file",
    }
}

/// The globs of an ADR's `governs:` front matter as written (`!glob` excludes): a
/// list of strings, one string, or a mapping with a `paths` list. `Err` says why
/// the value is none of these; no `governs:` is an empty list.
pub fn governs_globs(adr: &Adr) -> Result<Vec<String>, String> {
    use crate::yaml::{self, Value};
    let Some(fm) = adr.front_matter() else {
        return Ok(Vec::new());
    };
    let value = match fm.map.get("governs") {
        Some(Value::Mapping(map)) => map.get("paths"),
        other => other,
    };
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Sequence(items)) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.trim().to_owned()),
                other => Err(format!(
                    "`governs:` lists {}, not a glob",
                    yaml::scalar_text(other)
                        .map_or_else(|| "a nested value".to_owned(), |t| format!("`{t}`"))
                )),
            })
            .collect(),
        Some(Value::String(one)) => Ok(vec![one.trim().to_owned()]),
        Some(_) => Err("`governs:` must be a list of globs".to_owned()),
    }
}

/// What is wrong with one `governs:` glob (without its `!`), if anything.
fn glob_problem(glob: &str) -> Option<String> {
    if glob.is_empty() {
        return Some("an empty glob".to_owned());
    }
    if glob.starts_with('/') || glob.split('/').any(|part| part == "..") {
        return Some(format!(
            "`{glob}` leaves the repository root (write it relative to the root)"
        ));
    }
    crate::config::settings::build_globs(&[glob.trim_start_matches("./").to_owned()])
        .err()
        .map(|e| e.to_string())
}

/// The `governs:` checks: every glob compiles, and includes reach a tracked file.
fn check_governs(adr: &Adr, ctx: &Context<'_>, findings: &mut Vec<Finding>) {
    let line = adr
        .front_matter()
        .and_then(|fm| fm.key_lines.get("governs").copied())
        .unwrap_or(1);
    let globs = match governs_globs(adr) {
        Ok(globs) => globs,
        Err(why) => {
            findings.push(GOVERNS_INVALID.finding(why).at(line));
            return;
        }
    };
    for glob in &globs {
        let include = glob.strip_prefix('!').is_none();
        let bare = glob.strip_prefix('!').unwrap_or(glob).trim();
        if let Some(problem) = glob_problem(bare) {
            findings.push(
                GOVERNS_INVALID
                    .finding(format!("`governs:` {problem}"))
                    .at(line),
            );
            continue;
        }
        if include
            && let Ok(compiled) =
                crate::config::settings::build_globs(&[bare.trim_start_matches("./").to_owned()])
            && ctx.repo.any_path(&|p| compiled.is_match(p)) == Some(false)
        {
            findings.push(
                GOVERNS_UNMATCHED
                    .finding(format!(
                        "`governs:` glob `{glob}` matches no tracked file, so the ADR governs nothing there"
                    ))
                    .at(line),
            );
        }
    }
}

/// The rules of `adr` that can be enforced, compiled: those with a problem are
/// left out (the ADR's checks report them).
pub fn compiled(adr: &Adr) -> Vec<Compiled> {
    let Some(enforcement) = model::parse(adr) else {
        return Vec::new();
    };
    enforcement
        .rules
        .into_iter()
        .filter_map(|rule| Compiled::new(rule).ok())
        .filter(|c| examples_problem(c).is_none())
        .collect()
}

/// What is wrong with a compiled rule's examples, if anything.
fn examples_problem(compiled: &Compiled) -> Option<(&'static super::RuleMeta, String)> {
    let rule = &compiled.rule;
    let examples = rule.examples.clone().unwrap_or_default();
    if rule.kind.reads_text() && (examples.violates.is_none() || examples.passes.is_none()) {
        let missing = match (&examples.violates, &examples.passes) {
            (None, None) => "`violates` and `passes` examples",
            (None, Some(_)) => "a `violates` example",
            _ => "a `passes` example",
        };
        return Some((
            &EXAMPLES_MISSING,
            format!("rule `{}` ({}) has no {missing}", rule.id, rule.kind.name()),
        ));
    }
    if !rule.kind.is_deterministic() || matches!(rule.kind, Kind::RequireCoChange { .. }) {
        return None;
    }
    if let Some(text) = &examples.violates
        && !compiled.flags_example(text)
    {
        return Some((
            &EXAMPLE_FAILS,
            format!(
                "rule `{}` does not flag its `violates` example {:?}",
                rule.id,
                short(text)
            ),
        ));
    }
    if let Some(text) = &examples.passes
        && compiled.flags_example(text)
    {
        return Some((
            &EXAMPLE_FAILS,
            format!(
                "rule `{}` flags its `passes` example {:?}",
                rule.id,
                short(text)
            ),
        ));
    }
    None
}

fn short(text: &str) -> String {
    let text = text.trim();
    if text.chars().count() > 60 {
        let cut: String = text.chars().take(57).collect();
        format!("{cut}...")
    } else {
        text.to_owned()
    }
}

/// The ADR rules on the `## Enforcement` section of `adr`.
pub fn check(adr: &Adr, ctx: &Context<'_>, findings: &mut Vec<Finding>) {
    check_governs(adr, ctx, findings);
    let Some(enforcement) = model::parse(adr) else {
        return;
    };
    for problem in &enforcement.problems {
        let message = match &problem.rule {
            Some(id) => format!("## Enforcement, rule `{id}`: {}", problem.message),
            None => format!("## Enforcement: {}", problem.message),
        };
        findings.push(INVALID.finding(message).at(problem.line));
    }
    for (rule, line) in enforcement.rules.into_iter().zip(enforcement.rule_lines) {
        let id = rule.id.clone();
        let compiled = match Compiled::new(rule) {
            Ok(compiled) => compiled,
            Err(why) => {
                findings.push(
                    INVALID
                        .finding(format!("## Enforcement, rule `{id}`: {why}"))
                        .at(line),
                );
                continue;
            }
        };
        if let Some((meta, message)) = examples_problem(&compiled) {
            findings.push(meta.finding(message).at(line));
            continue;
        }
        if let Some(paths) = &compiled.rule.paths
            && ctx
                .repo
                .any_path(&|p| compiled.paths_match_any(std::iter::once(p)) == Some(true))
                == Some(false)
        {
            findings.push(
                PATHS_UNMATCHED
                    .finding(format!(
                        "rule `{id}`: its paths {} match no tracked file, so it enforces nothing",
                        paths
                            .iter()
                            .map(|p| format!("`{p}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                    .at(line)
                    .hint("correct the glob (relative to the repository root, `**` spans folders)"),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::run;

    fn adr(block: &str) -> String {
        format!(
            "---\nstatus: Accepted\n---\n# T\n\n## Decision\n\nUse the gateway.\n\n## Enforcement\n\n```yaml\n{block}```\n"
        )
    }

    fn found(block: &str, files: &[&str]) -> Vec<String> {
        run(&adr(block), "adr/001-t.md", files)
            .into_iter()
            .filter(|f| f.rule.starts_with("enforcement-"))
            .map(|f| format!("{}: {}", f.rule, f.message))
            .collect()
    }

    #[test]
    fn a_provable_rule_passes() {
        let block = "rules:\n  - id: no-http\n    kind: forbid_import\n    why: gateway only\n    modules: [requests]\n    paths: [\"src/**/*.py\"]\n    examples: {violates: \"import requests\", passes: \"import json\"}\n";
        assert!(found(block, &["src/app/x.py"]).is_empty());
    }

    #[test]
    fn examples_must_be_judged_as_written() {
        let wrong = "rules:\n  - id: no-todo\n    kind: forbid_pattern\n    why: w\n    pattern: 'FIXME'\n    examples: {violates: \"// TODO later\", passes: \"ok\"}\n";
        let got = found(wrong, &[]);
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].starts_with("enforcement-example-fails: rule `no-todo` does not flag"));
        let greedy = "rules:\n  - id: all\n    kind: forbid_pattern\n    why: w\n    pattern: '.'\n    examples: {violates: \"x\", passes: \"y\"}\n";
        assert!(found(greedy, &[])[0].contains("flags its `passes` example"));
        let none =
            "rules:\n  - id: no-todo\n    kind: forbid_pattern\n    why: w\n    pattern: 'TODO'\n";
        assert!(found(none, &[])[0].starts_with("enforcement-examples-missing"));
        let dep = "rules:\n  - id: no-lodash\n    kind: forbid_dependency\n    why: w\n    packages: [lodash]\n    examples: {violates: '{\"dependencies\": {\"lodash\": \"4\"}}'}\n";
        assert!(found(dep, &[]).is_empty());
    }

    #[test]
    fn governs_globs_compile_and_reach_a_file() {
        let with = |governs: &str, files: &[&str]| -> Vec<String> {
            let text = format!("---\nstatus: Accepted\ngoverns: {governs}\n---\n# T\n");
            run(&text, "adr/001-t.md", files)
                .into_iter()
                .filter(|f| f.rule.starts_with("governs-"))
                .map(|f| format!("{}:{}: {}", f.rule, f.line.unwrap_or(0), f.message))
                .collect()
        };
        assert!(with("[\"src/**\", \"!src/legacy/**\"]", &["src/a.rs"]).is_empty());
        assert!(with("{paths: [\"src/**\"]}", &["src/a.rs"]).is_empty());
        assert_eq!(
            with("[\"src/[\"]", &["src/a.rs"]),
            [
                "governs-invalid:3: `governs:` bad glob `src/[`: error parsing glob 'src/[': unclosed character class; missing ']'"
            ]
        );
        assert!(with("[\"/src/**\"]", &[])[0].contains("leaves the repository root"));
        assert!(with("[\"../x/**\"]", &[])[0].starts_with("governs-invalid"));
        assert!(with("[[nested]]", &[])[0].contains("a nested value"));
        assert!(with("7", &[])[0].contains("must be a list"));
        assert_eq!(
            with("[\"srcs/**\"]", &["src/a.rs"]),
            [
                "governs-unmatched:3: `governs:` glob `srcs/**` matches no tracked file, so the ADR governs nothing there"
            ]
        );
    }

    #[test]
    fn invalid_rules_and_unmatched_paths() {
        let bad = "rules:\n  - id: x\n    kind: forbid_pattern\n    why: w\n    pattern: '('\n    examples: {violates: a, passes: b}\n  - id: y\n    kind: nope\n    why: w\n";
        let got = found(bad, &[]);
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.iter().all(|g| g.starts_with("enforcement-invalid")));
        let typo = "rules:\n  - id: no-legacy\n    kind: forbid_path\n    why: w\n    paths: [\"/legacy/**\"]\n";
        let got = found(typo, &["legacy/a.rs"]);
        assert_eq!(got.len(), 1);
        assert!(got[0].starts_with("enforcement-paths-unmatched"), "{got:?}");
        let right = "rules:\n  - id: no-legacy\n    kind: forbid_path\n    why: w\n    paths: [\"legacy/**\"]\n";
        assert!(found(right, &["legacy/a.rs"]).is_empty());
    }
}
