//! `SessionStart` and `UserPromptSubmit`: a short summary of the rules for the
//! model, so fewer mistakes happen.

use std::fmt::Write as _;
use std::path::Path;

use super::ctx::Context;
use super::policy::InfraError;
use super::ruling::Ruling;
use super::{project, state, step_marker};
use crate::agent::event::{EventKind, HookEvent};
use crate::agent::output::HookOutput;
use crate::config::Settings;
use crate::diagnostic::Severity;

/// Where an ADR's concept comes from, for the summary.
fn concept_source(settings: &Settings) -> String {
    match settings.concept.discover.as_slice() {
        [] => "front matter `concept: PATH`, else a concept linked from `## Referenzen`".to_owned(),
        patterns => format!(
            "front matter `concept: PATH`, else a concept linked from `## Referenzen`, else the first of {} in the ADR's folder{}",
            patterns.join(", "),
            if settings.concept.uses_slug() {
                ", {slug} being the ADR's file name without ADR- and its number"
            } else {
                ""
            }
        ),
    }
}

/// The most superseded ADRs the summary names.
const REPLACED_MAX: usize = 10;

/// "These ADRs are superseded: follow their successors", from the governing index
/// the session's start keeps cached; nothing when none is superseded.
fn superseded_line(index: &crate::adr_dir::governs::Index, text: &mut String) {
    let replaced = index.replaced();
    if replaced.is_empty() {
        return;
    }
    let named: Vec<String> = replaced
        .iter()
        .take(REPLACED_MAX)
        .map(|(id, by)| match by.as_slice() {
            [] => format!("{id} (no successor named)"),
            by => format!("{id} by {}", by.join(", ")),
        })
        .collect();
    let more = replaced.len().saturating_sub(REPLACED_MAX);
    let _ = writeln!(
        text,
        "- superseded, so follow their successors instead: {}{}",
        named.join("; "),
        if more > 0 {
            format!("; and {more} more")
        } else {
            String::new()
        }
    );
}

/// `SessionStart` / `UserPromptSubmit`: a short summary of the rules, so fewer mistakes happen.
pub(super) fn session_context(
    event: &HookEvent,
    root: &Path,
    ctx: &Context,
    enabled: impl Fn(&Settings) -> bool,
) -> Result<Ruling, InfraError> {
    let mut settings = ctx.settings()?;
    settings.step_marker.enabled = step_marker::required_in(
        &settings.step_marker,
        root,
        &project::session_folders(event),
    );
    let mut index = None;
    if event.kind == EventKind::SessionStart {
        state::prune(root, settings.hook.state_retention_days);
        super::store::prune(root, settings.hook.state_retention_days);
        index = super::governed::session_start(event, root);
    }
    if !enabled(&settings) {
        return Ok(Ruling::default());
    }
    let rules = crate::config::load_rules_for(&ctx.config_root(), None, settings.preset)
        .map_err(|e| InfraError::new(format!("{e:#}"), Some(&settings)))?;
    // The preset's rules file decides what the summary names (rules::document::brief).
    // madr and nygard set no minimum length; "at least 0 characters" would be noise.
    let length = match rules.base.min_section_length {
        0 => String::new(),
        n => format!(" (at least {n} characters each)"),
    };
    let mut text = format!(
        "helix-gate checks every ADR you write ({}) when you save it and before you finish:\n\
{}- ## sections: {}{length}\n{}\
- no template placeholder left: replace every <...> gap of the template, brackets included (template-placeholder); a hint with its brackets removed is no content either (template-hint-left)\n\
- `helix-gate new \"<title>\"` writes a new ADR from the {} template that passes once its gaps are filled\n\
- concept diff: an ADR is compared with its concept ({}); a section of the concept the rules require must not be lost (concept-required-section-missing)\n",
        settings.adr.globs.join(", "),
        crate::rules::document::brief(&rules),
        rules.base.required_sections.join(", "),
        crate::rules::document::criteria_brief(&rules),
        settings.new.template_name(settings.preset),
        concept_source(&settings),
    );
    for rule in rules
        .contextual
        .iter()
        .filter(|r| r.severity == Severity::Error)
    {
        match &rule.hint {
            Some(hint) => {
                let _ = writeln!(text, "- {} ({}): {hint}", rule.message, rule.id);
            }
            None => {
                let _ = writeln!(text, "- {} ({})", rule.message, rule.id);
            }
        }
    }
    if settings.step_marker.enabled {
        let _ = writeln!(
            text,
            "End EVERY answer with a STEP marker as its last line: {}",
            step_marker::format_hint(&settings.step_marker.steps)
        );
    }
    text.push_str(
        "- an ADR's status is a person's decision: leave yours Proposed and ask a person to run `helix-gate accept N --by NAME`; an accepted ADR's text stays as accepted: a changed decision is a new ADR (`helix-gate new --supersedes N \"<title>\"`)\n",
    );
    if let Some(index) = &index {
        superseded_line(index, &mut text);
    }
    text.push_str("Run `helix-gate validate <file>` to check an ADR yourself.");
    Ok(Ruling {
        output: Some(HookOutput::context(&event.hook_event_name, &text)),
        decisions: Vec::new(),
    })
}
