//! `finalize` moves a draft (`output/ADR-x.md`) into the ADR directory; a `concept:` written
//! next to the draft (`concept: concept.md`) would then point nowhere. The path is rewritten
//! from the repository root, on its one line, so the finalized ADR keeps its concept and the
//! line numbers of the draft stay those of the moved file.
//!
//! A concept found next to the draft by convention (`concept.discover`: the consultant's
//! `output/concept.md`) is written into the front matter as `concept:` (from the repository
//! root, as the front matter's last key), so the finalized ADR keeps being compared with it
//! after the move, and not with whatever lies in the ADR directory. A draft without front
//! matter is left unchanged.

use std::path::Path;

use crate::adr::{Adr, front_matter};
use crate::engine::{ConceptOrigin, Engine};
use crate::rules::concept;

/// `text` (the draft at `draft`, to be moved elsewhere) with its `concept:` rewritten from the
/// repository root when it was found relative to the draft's folder, or added when the
/// concept was found next to the draft by convention; else `text` unchanged.
/// Only a one-line scalar value is rewritten; anything else is left for the checks to judge.
pub fn carry(engine: &Engine, draft: &Path, text: &str) -> String {
    let adr = Adr::parse(text);
    let Some(Ok((found, origin))) = engine.concept_of(draft, &adr) else {
        return text.to_owned();
    };
    let Some(rel) = crate::paths::relative_to(&engine.root, &found) else {
        return text.to_owned();
    };
    let front_matter::Split::Found(span) = front_matter::split(text) else {
        return text.to_owned();
    };
    let ConceptOrigin::Named(named) = origin else {
        // Discovered: a new last key, in the document's line ending.
        let ending = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let quoted = serde_json::to_string(&rel).unwrap_or_default();
        let at = span.yaml_end;
        let before = if at == span.yaml_start || text[..at].ends_with('\n') {
            ""
        } else {
            ending
        };
        return format!(
            "{}{before}{}: {quoted}{ending}{}",
            &text[..at],
            concept::FIELD,
            &text[at..]
        );
    };
    if rel == named.trim_start_matches("./") {
        return text.to_owned();
    }
    let mut offset = span.yaml_start;
    for line in text[span.yaml_start..span.yaml_end].split_inclusive('\n') {
        let value = line
            .strip_prefix(concept::FIELD)
            .and_then(|rest| rest.trim_start_matches([' ', '\t']).strip_prefix(':'));
        if let Some(value) = value {
            let value = value.trim();
            // A block or flow value spans lines or is no path: not ours to rewrite.
            if value.is_empty() || value.starts_with(['|', '>', '[', '{']) {
                return text.to_owned();
            }
            let ending = &line[line.trim_end_matches(['\r', '\n']).len()..];
            let quoted = serde_json::to_string(&rel).unwrap_or_default();
            return format!(
                "{}{}: {quoted}{ending}{}",
                &text[..offset],
                concept::FIELD,
                &text[offset + line.len()..]
            );
        }
        offset += line.len();
    }
    text.to_owned()
}
