//! The documentation of every rule, as `helix-gate rules` and `helix-gate explain ID`
//! show it and the MCP server's `list_rules` and `explain_rule` tools return it: one
//! text for both, so a rule reads the same in a terminal and to an agent.
//!
//! A rule is built in (its doc comment in the registry), contextual (the rules file's
//! `contextual_rules`), or a reviewer check (an approval type's instructions), which is
//! why this sits above the approval module rather than beside the registry.

use std::fmt::Write as _;
use std::path::Path;

use serde::Serialize;

use crate::config::RuleSet;
use crate::text::{escape_controls, escape_controls_multiline};

/// One line of the rule list.
#[derive(Debug, Clone, Serialize)]
pub struct Listed {
    pub id: String,
    pub severity: &'static str,
    /// A built-in rule's summary, a contextual rule's name.
    pub summary: String,
}

/// Every rule: built in and from the rules file.
#[derive(Debug, Clone, Serialize)]
pub struct RuleList {
    pub builtin: Vec<Listed>,
    pub contextual: Vec<Listed>,
    /// Where the contextual rules come from (the rules file, or the preset's built-in one).
    pub origin: String,
}

/// The rules of the repository at `root` (`rules_file`: `--rules`, instead of its
/// `config/adr-completeness-rules.yaml`).
pub fn list(root: &Path, rules_file: Option<&Path>) -> anyhow::Result<RuleList> {
    let set = crate::config::load_rules(root, rules_file)?;
    Ok(RuleList {
        builtin: crate::rules::registry()
            .into_iter()
            .map(|rule| Listed {
                id: rule.id.to_owned(),
                severity: rule.severity.as_str(),
                summary: rule.summary.to_owned(),
            })
            .collect(),
        contextual: set
            .contextual
            .iter()
            .map(|rule| Listed {
                id: rule.id.clone(),
                severity: rule.severity.as_str(),
                summary: rule.name.clone(),
            })
            .collect(),
        origin: set.origin,
    })
}

impl RuleList {
    /// The text `helix-gate rules` prints.
    pub fn text(&self) -> String {
        let mut out = String::from("Built-in rules:\n");
        for rule in &self.builtin {
            let _ = writeln!(
                out,
                "  {:<28} {:<8} {}",
                rule.id, rule.severity, rule.summary
            );
        }
        let _ = writeln!(
            out,
            "\nContextual rules ({}):",
            escape_controls(&self.origin)
        );
        for rule in &self.contextual {
            let _ = writeln!(
                out,
                "  {:<28} {:<8} {}",
                escape_controls(&rule.id),
                rule.severity,
                escape_controls(&rule.summary)
            );
        }
        // The madr and nygard presets have none; an empty heading reads like a failure.
        if self.contextual.is_empty() {
            out.push_str("  none (add `contextual_rules` in config/adr-completeness-rules.yaml)\n");
        }
        out
    }
}

/// The rule id nearest to the unknown `id` for "did you mean": built-in and contextual
/// ids, scored as clap scores subcommands (Jaro similarity above 0.7). None when
/// nothing comes near.
pub fn nearest(root: &Path, id: &str, rules_file: Option<&Path>) -> Option<String> {
    let builtin = crate::rules::registry()
        .into_iter()
        .map(|rule| rule.id.to_owned());
    // A broken rules file is reported elsewhere; the built-in ids still help.
    let contextual: Vec<String> = crate::config::load_rules(root, rules_file)
        .map(|set| set.contextual.into_iter().map(|rule| rule.id).collect())
        .unwrap_or_default();
    builtin
        .chain(contextual)
        .map(|candidate| (strsim::jaro(id, &candidate), candidate))
        .filter(|(score, _)| *score > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// The documentation of rule `id` as `helix-gate explain` prints it; None when no rule,
/// contextual rule or reviewer check has that id. A built-in rule is answered without
/// reading the rules file.
pub fn explain(root: &Path, id: &str, rules_file: Option<&Path>) -> anyhow::Result<Option<String>> {
    if let Some(rule) = crate::rules::registry().into_iter().find(|r| r.id == id) {
        return Ok(Some(format!(
            "# {} ({})\n\n{}\n\n{}\n",
            rule.id,
            rule.severity.as_str(),
            rule.summary,
            rule.doc
        )));
    }
    let set: RuleSet = crate::config::load_rules(root, rules_file)?;
    if let Some(rule) = set.contextual.iter().find(|r| r.id == id) {
        return Ok(Some(format!(
            "# {} ({})\n\n{}\n\nContextual rule from {}. Message: {}\n{}\n## Definition\n```yaml\n{}```\n",
            escape_controls(&rule.id),
            rule.severity.as_str(),
            escape_controls(&rule.name),
            escape_controls(&set.origin),
            escape_controls(&rule.message),
            rule.hint
                .as_ref()
                .map(|h| format!("Hint: {}\n", escape_controls(h)))
                .unwrap_or_default(),
            escape_controls_multiline(&crate::yaml::to_string(&rule.source))
        )));
    }
    if let Some((kind, text)) = crate::approval::reviewer_check(root, id) {
        return Ok(Some(format!(
            "# {} (reviewer check of approval type `{}`)\n\nJudged by the independent reviewer (`helix-gate approve`, the Stop gate), never by a deterministic rule; its findings carry `source: reviewer`. The reviewer's instructions for this check:\n\n{}\n",
            escape_controls(id),
            escape_controls(&kind),
            escape_controls_multiline(text.trim_end())
        )));
    }
    Ok(None)
}
