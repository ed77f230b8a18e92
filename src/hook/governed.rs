//! Decisions govern code, in the session: the rules (`## Enforcement`) of the
//! accepted and proposed ADRs that govern a file the session writes, which is
//! no ADR itself ([`crate::adr_dir::enforce`], the one evaluator).
//!
//! - `PreToolUse` of a write: the binding and pending ADRs that govern the file
//!   go to the model as context (id, title, the Decision's first sentences, the
//!   rules), each ADR once per session and folder; never a refusal.
//! - `PostToolUse` of a write: the rules run on the file as saved, against the
//!   file as `HEAD` has it (a new file has no before). An `error` of a binding
//!   ADR blocks, counted against the file's retry budget like an ADR's save;
//!   warnings (a proposed ADR's rules, `require_co_change` in the session) go
//!   back as context.
//! - A shell command: the files under rules that differ from `HEAD` and from
//!   what the session last checked (or found at its start) are checked on the
//!   spot; the Stop checks every one the session changed again, and an error
//!   left blocks within the budget.
//!
//! All of it sits behind one `stat`: [`may_govern`], the marker of the
//! governing index's cache, present only while ADRs with rules bind or warn.

use std::path::Path;

use sha2::{Digest as _, Sha256};

use super::answer::{self, Shape};
use super::budget::Failing;
use super::changes;
use super::ctx::Context;
use super::policy::{InfraError, need_session};
use super::ruling::{Ruling, count, rule_ids, session_id};
use super::state::{self, SessionState};
use crate::adr_dir::enforce::{self, Change, Moment};
use crate::adr_dir::governs::{self, Force, Index};
use crate::agent::event::HookEvent;
use crate::agent::output::HookOutput;
use crate::diagnostic::{FileReport, Severity};
use crate::render::feedback::{self, GoverningBrief};
use crate::rules::enforcement::Kind;

/// The largest code file the rules read (and the largest `HEAD` version).
pub(super) const CODE_LIMIT: u64 = 4 << 20;
/// The most characters of governing context one `PreToolUse` gives.
const CONTEXT_MAX: usize = 1500;
/// The largest ADR read for its Decision.
const ADR_LIMIT: u64 = 1 << 20;

/// Whether a file of the repository at `root` can be under an ADR's rules at
/// all: one `stat` (see the module doc).
pub(super) fn may_govern(root: &Path) -> bool {
    governs::may_govern(root)
}

/// The rules (`ADR-014/no-direct-http`) of `index` that judge `rel`; none for an
/// ADR itself. `llm_review` rules are the reviewer's, not listed.
fn rules_for(index: &Index, rel: &str) -> Vec<String> {
    let mut out = Vec::new();
    index.each_rule_covering(
        rel,
        |_, compiled| !matches!(compiled.rule.kind, Kind::LlmReview { .. }),
        |adr, compiled| out.push(enforce::rule_id(adr.id, &compiled.rule.id)),
    );
    out
}

/// One code file checked against the rules that judge it.
struct Checked {
    rel: String,
    report: FileReport,
    /// The rules that judged it (for the PASSED line).
    rules: Vec<String>,
    /// SHA-256 of the content checked.
    hash: String,
}

impl Checked {
    fn errors(&self) -> usize {
        count(&self.report, Severity::Error)
    }
}

/// The file at `rel` checked as it is on disk now against the rules that judge
/// it, its before the file in `HEAD`. `None`: no rule judges it, or it is gone,
/// unreadable, too large, or leads out of the project.
fn check_file(root: &Path, index: &Index, rel: &str) -> Option<Checked> {
    let rules = rules_for(index, rel);
    if rules.is_empty() {
        return None;
    }
    let path = root.join(rel);
    if !crate::fs::confine::inside(root, &path) {
        return None;
    }
    let bytes = crate::fs::read::read_limited(&path, CODE_LIMIT).ok()?;
    if bytes.len() as u64 > CODE_LIMIT {
        return None;
    }
    // First as a new file, without git: every rule flags at least what it flags
    // against the file in `HEAD` (a new file, an added line, import or
    // package), so a file that passes so passes, and only one that does not is
    // judged again against `HEAD`, to leave out what was there before.
    let hash = digest(&bytes);
    let mut change = Change {
        path: rel.to_owned(),
        before: None,
        after: Some(text_of(bytes)),
    };
    let mut findings = enforce::check(index, std::slice::from_ref(&change), Moment::Session);
    if !findings.is_empty() {
        change.before = head_text(root, rel);
        if change.before.is_some() {
            findings = enforce::check(index, &[change], Moment::Session);
        }
    }
    let mut report = FileReport {
        path: rel.to_owned(),
        findings,
    };
    report.sort();
    Some(Checked {
        rel: rel.to_owned(),
        report,
        rules,
        hash,
    })
}

/// A file's bytes as text, invalid UTF-8 replaced; valid UTF-8 (the usual case)
/// keeps its buffer instead of being copied.
fn text_of(bytes: Vec<u8>) -> String {
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

pub(super) fn digest(bytes: &[u8]) -> String {
    crate::text::hex(&Sha256::digest(bytes))
}

/// The file at `rel` as `HEAD` has it; `None` for a new file (and outside git).
pub(super) fn head_text(root: &Path, rel: &str) -> Option<String> {
    let repo = crate::git::Repo::discover(root).ok()?;
    let bytes = repo.head_file(rel, CODE_LIMIT).ok()??;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The session's record of a checked file: its content, and that the session changed it.
fn record(state: &mut SessionState, checked: &Checked) {
    state.code.insert(checked.rel.clone(), checked.hash.clone());
    if !state.code_touched.contains(&checked.rel) {
        state.code_touched.push(checked.rel.clone());
    }
}

/// Charge a checked file's errors against its budget (a clean file starts over).
fn charge(
    state: &mut SessionState,
    checked: &Checked,
    budget: u32,
) -> Option<super::budget::Charge> {
    record(state, checked);
    let errors = checked.errors();
    if errors == 0 {
        state.reset(&checked.rel);
        return None;
    }
    Some(
        state
            .target(&checked.rel)
            .charge(budget, u32::try_from(errors).unwrap_or(u32::MAX)),
    )
}

/// `PostToolUse` of a write of `rel`, a file that is no ADR: the rules that
/// judge it, run and counted; nothing for a file no rule judges.
pub(super) fn post_write(
    event: &HookEvent,
    root: &Path,
    rel: &str,
    ctx: &Context,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    let Some(index) = governs::cached_index(root) else {
        return Ok(Ruling::default());
    };
    // The hook's process ends with its answer: taking a thousand rules apart
    // one allocation at a time would cost more than checking them.
    let index = std::mem::ManuallyDrop::new(index);
    let Some(checked) = check_file(root, &index, rel) else {
        return Ok(Ruling::default());
    };
    let settings = ctx.settings()?;
    need_session(event, &settings)?;
    let budget = settings.hook.budget;
    let (charge, note) = state::update(root, session_id(event), |s| charge(s, &checked, budget))
        .map_err(|e| InfraError::new(e.to_string(), Some(&settings)))?;
    notes.extend(note.clone());
    Ok(answer::charged_answer_as(
        rel,
        &checked.report,
        charge.as_ref(),
        note,
        budget,
        Shape::Code(&checked.rules),
    ))
}

/// The files under rules that differ from `HEAD`.
fn dirty(root: &Path, index: &Index) -> Vec<String> {
    changes::differ_from_head(root, |rel| !rules_for(index, rel).is_empty())
}

/// `PostToolUse` of a shell command: every file under rules that it changed
/// (it differs from `HEAD` and from what the session last checked or found),
/// checked and counted as a write of it.
pub(super) fn after_shell(
    event: &HookEvent,
    root: &Path,
    ctx: &Context,
    notes: &mut Vec<String>,
) -> Result<Vec<Ruling>, InfraError> {
    if !may_govern(root) {
        return Ok(Vec::new());
    }
    let Some(index) = governs::cached_index(root) else {
        return Ok(Vec::new());
    };
    let checked: Vec<Checked> = dirty(root, &index)
        .iter()
        .filter_map(|rel| check_file(root, &index, rel))
        .collect();
    if checked.is_empty() {
        return Ok(Vec::new());
    }
    let settings = ctx.settings()?;
    need_session(event, &settings)?;
    let budget = settings.hook.budget;
    let (charged, note) = state::update(root, session_id(event), |s| {
        let mut charged = Vec::new();
        for c in &checked {
            if s.code.get(&c.rel) != Some(&c.hash) {
                charged.push((c, charge(s, c, budget)));
            }
        }
        charged
    })
    .map_err(|e| InfraError::new(e.to_string(), Some(&settings)))?;
    notes.extend(note.clone());
    Ok(charged
        .into_iter()
        .map(|(checked, charge)| {
            notes.push(format!(
                "{} changed by a shell command; checked against the rules that govern it",
                checked.rel
            ));
            answer::charged_answer_as(
                &checked.rel,
                &checked.report,
                charge.as_ref(),
                note.clone(),
                budget,
                Shape::Code(&checked.rules),
            )
        })
        .collect())
}

/// The Stop's share (under the session lock): every file under rules that the
/// session changed, checked as it is now; a deleted one passes. Returns the
/// failing files with their feedback and the passing ones, for the budget.
pub(super) fn at_stop(
    root: &Path,
    state: &mut SessionState,
    notes: &mut Vec<String>,
) -> (Vec<Failing>, Vec<String>) {
    let (mut failing, mut passing) = (Vec::new(), Vec::new());
    if !may_govern(root) {
        return (failing, passing);
    }
    let Some(index) = governs::cached_index(root) else {
        return (failing, passing);
    };
    let mut files = state.code_touched.clone();
    for rel in dirty(root, &index) {
        if !files.contains(&rel) {
            files.push(rel);
        }
    }
    for rel in files {
        let Some(checked) = check_file(root, &index, &rel) else {
            // Gone, or no longer under a rule: nothing to hold against the session.
            if state.code_touched.contains(&rel) {
                passing.push(rel);
            }
            continue;
        };
        let changed = state.code.get(&rel) != Some(&checked.hash);
        if !changed && !state.code_touched.contains(&rel) {
            // As the session found it: not its doing.
            continue;
        }
        if changed {
            notes.push(format!(
                "{rel} changed since the session last checked it; checked at Stop"
            ));
        }
        record(state, &checked);
        let errors = checked.errors();
        if errors == 0 {
            passing.push(rel);
        } else {
            failing.push(
                Failing::new(
                    rel.clone(),
                    format!(
                        "{rel}:\n{}",
                        feedback::describe_code(&checked.report, &checked.rules)
                    ),
                    rule_ids(&checked.report),
                )
                .with_failures(errors),
            );
        }
    }
    (failing, passing)
}

/// `SessionStart`: bring the cache's marker up to date, and record the files
/// under rules that differ from `HEAD` already, so that a shell command that
/// leaves them as they are is not taken to have changed them. Best effort.
/// Returns the index (for the session's summary), ruling or not.
pub(super) fn session_start(event: &HookEvent, root: &Path) -> Option<Index> {
    let (index, ruling) = governs::any_index(root)?;
    if ruling {
        record_found(event, root, &index);
    }
    Some(index)
}

/// The files under rules that differ from `HEAD` at the session's start.
fn record_found(event: &HookEvent, root: &Path, index: &Index) {
    // The files under a deterministic rule or one for the reviewer.
    let found: Vec<(String, String)> = changes::differ_from_head(root, |rel| {
        !rules_for(index, rel).is_empty() || super::code_review::reviewed(index, rel)
    })
    .into_iter()
    .filter_map(|rel| {
        let bytes = crate::fs::read::read_limited(&root.join(&rel), CODE_LIMIT).ok()?;
        Some((rel, digest(&bytes)))
    })
    .collect();
    if found.is_empty() {
        return;
    }
    let _ = state::update(root, session_id(event), |s| {
        for (rel, hash) in found {
            s.code.entry(rel).or_insert(hash);
        }
    });
}

/// `PreToolUse` of a write of `path` (absolute): the binding and pending ADRs
/// that govern it, for the model, each once per session and folder; nothing
/// for an ungoverned file, an ADR, or one told already. Never a refusal.
pub(super) fn pre_context(ctx: &Context, path: &Path) -> Ruling {
    let root = ctx.root.as_path();
    let Some(rel) = crate::paths::relative_to_real(root, path) else {
        return Ruling::default();
    };
    let Some(index) = governs::cached_index(root) else {
        return Ruling::default();
    };
    if index.is_adr(&rel) {
        return Ruling::default();
    }
    let briefs = briefs(root, &index, &rel);
    if briefs.is_empty() {
        return Ruling::default();
    }
    let folder = rel.rsplit_once('/').map_or(".", |(dir, _)| dir);
    let keys: Vec<String> = briefs
        .iter()
        .map(|b| format!("{} {folder}", b.id))
        .collect();
    let Ok((fresh, _)) = state::update(root, session_id(&ctx.event), |s| {
        let fresh: Vec<bool> = keys.iter().map(|k| !s.told.contains(k)).collect();
        for (key, new) in keys.iter().zip(&fresh) {
            if *new {
                s.told.push(key.clone());
            }
        }
        fresh
    }) else {
        return Ruling::default();
    };
    let briefs: Vec<GoverningBrief> = briefs
        .into_iter()
        .zip(fresh)
        .filter_map(|(brief, new)| new.then_some(brief))
        .collect();
    if briefs.is_empty() {
        return Ruling::default();
    }
    Ruling {
        output: Some(HookOutput::context(
            "PreToolUse",
            &feedback::governing_context(&rel, &briefs, CONTEXT_MAX),
        )),
        decisions: Vec::new(),
    }
}

/// The binding and pending ADRs that govern `rel` ([`Index::resolve`]) and those
/// whose rules' `paths` cover it, the strongest first, each with the rules that
/// judge `rel`.
fn briefs(root: &Path, index: &Index, rel: &str) -> Vec<GoverningBrief> {
    let governing = index.resolve(rel, &[]);
    let mut out: Vec<GoverningBrief> = governing
        .iter()
        .filter(|g| g.force >= Force::Pending)
        .map(|g| GoverningBrief {
            id: g.id.clone(),
            title: g.title.clone(),
            force: g.force.as_str(),
            file: g.file.clone(),
            decision: None,
            rules: Vec::new(),
        })
        .collect();
    let governors = index.governing(rel);
    let reached = [(rel, &governors)];
    for adr in index.ruling_for(&reached) {
        let governed = governors.contains(&adr);
        let rules: Vec<(String, String, String)> = adr
            .rules
            .iter()
            .filter(|c| c.covers(rel, governed))
            .map(|c| {
                (
                    c.rule.id.clone(),
                    c.rule.kind.name().to_owned(),
                    c.rule.why.clone(),
                )
            })
            .collect();
        if rules.is_empty() {
            continue;
        }
        match out.iter_mut().find(|b| b.id == adr.id) {
            Some(brief) => brief.rules = rules,
            None => out.push(GoverningBrief {
                id: adr.id.to_owned(),
                title: adr.title.map(str::to_owned),
                force: adr.force.as_str(),
                file: adr.file.to_owned(),
                decision: None,
                rules,
            }),
        }
    }
    for brief in &mut out {
        brief.decision = crate::fs::read::read_limited(&root.join(&brief.file), ADR_LIMIT)
            .ok()
            .and_then(|bytes| decision_sentences(&String::from_utf8_lossy(&bytes)));
    }
    out
}

/// The first sentences (at most two) of an ADR's Decision section (`## Decision`,
/// MADR's `## Decision Outcome`, `## Entscheidung`), on one line.
fn decision_sentences(text: &str) -> Option<String> {
    let mut lines = text.lines();
    lines.find(|line| {
        let heading = line.trim_start_matches('#');
        heading.len() < line.len() && heading.starts_with(' ') && {
            let name = heading
                .trim()
                .trim_start_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ' ')
                .to_lowercase();
            matches!(
                name.as_str(),
                "decision" | "decision outcome" | "entscheidung"
            )
        }
    })?;
    let mut words = String::new();
    let mut fenced = false;
    for line in lines {
        let trimmed = line.trim();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        if trimmed.starts_with('#') {
            break;
        }
        for word in trimmed.split_whitespace() {
            if !words.is_empty() {
                words.push(' ');
            }
            words.push_str(word);
        }
    }
    let mut end = words.len();
    let mut sentences = 0;
    for (i, c) in words.char_indices() {
        if matches!(c, '.' | '!' | '?') && words[i + c.len_utf8()..].starts_with(' ') {
            sentences += 1;
            if sentences == 2 {
                end = i + c.len_utf8();
                break;
            }
        }
    }
    let out = words[..end].trim().to_owned();
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adr::Adr;
    use crate::adr::catalog::{Catalog, Entry};

    /// An index of `adrs` (file name, text) in `root/adr/`, the files written too.
    fn index(root: &Path, adrs: &[(&str, String)]) -> Index {
        std::fs::create_dir_all(root.join("adr")).unwrap();
        let catalog = Catalog {
            dir: root.join("adr"),
            entries: adrs
                .iter()
                .map(|(name, text)| {
                    std::fs::write(root.join("adr").join(name), text).unwrap();
                    Entry {
                        path: root.join("adr").join(name),
                        link: (*name).to_owned(),
                        file_number: crate::adr::number_in_file_name(Path::new(name)),
                        adr: Some(Adr::parse(text)),
                    }
                })
                .collect(),
            width: 3,
            reserved: Vec::new(),
        };
        Index::from_catalog(root, &catalog)
    }

    fn adr(number: &str, status: &str, governs: &str, rules: &str) -> String {
        format!(
            "---\nadr_id: \"{number}\"\ntitle: Rule {number}\nstatus: {status}\ngoverns: [{governs}]\n---\n# Rule {number}\n\n## Decision\n\nDecided {number}. More.\n\n## Enforcement\n\n```yaml\nrules:\n{rules}```\n"
        )
    }

    const NO_HTTP: &str = "  - id: no-direct-http\n    kind: forbid_import\n    why: HTTP goes through app.gateway\n    modules: [requests]\n    examples: {violates: \"import requests\", passes: \"import json\"}\n";
    const DOCS: &str = "  - id: reviewed\n    kind: llm_review\n    why: the docs follow the style guide\n    check: the style guide is followed\n    paths: [\"docs/**\"]\n";

    #[test]
    fn the_rules_of_a_file_are_those_of_its_governing_adrs_and_those_whose_paths_cover_it() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let index = index(
            root,
            &[
                ("014-gw.md", adr("014", "Accepted", "\"src/**\"", NO_HTTP)),
                ("015-docs.md", adr("015", "Proposed", "\"other/**\"", DOCS)),
                ("016-old.md", adr("016", "Rejected", "\"src/**\"", NO_HTTP)),
            ],
        );
        assert_eq!(rules_for(&index, "src/api.py"), ["ADR-014/no-direct-http"]);
        assert!(rules_for(&index, "tools/x.py").is_empty());
        assert!(
            rules_for(&index, "adr/014-gw.md").is_empty(),
            "an ADR is no code"
        );
        // An llm_review rule judges nothing here, but its ADR is told.
        assert!(rules_for(&index, "docs/guide.md").is_empty());
        let told = briefs(root, &index, "docs/guide.md");
        assert_eq!(told.len(), 1);
        assert_eq!(
            (
                told[0].id.as_str(),
                told[0].force,
                told[0].decision.as_deref()
            ),
            ("ADR-015", "pending", Some("Decided 015. More."))
        );
        assert_eq!(
            told[0].rules,
            [(
                "reviewed".to_owned(),
                "llm_review".to_owned(),
                "the docs follow the style guide".to_owned()
            )]
        );
        let told = briefs(root, &index, "src/api.py");
        assert_eq!(
            told.iter().map(|b| b.id.as_str()).collect::<Vec<_>>(),
            ["ADR-014"],
            "a rejected ADR governs nothing"
        );
        assert!(briefs(root, &index, "tools/x.py").is_empty());
    }

    #[test]
    fn the_decision_is_its_first_two_sentences() {
        let adr = "---\nstatus: Accepted\n---\n# 14. Gateway\n\n## Context\n\nWe call out.\n\n## Decision\n\nAll outbound HTTP goes through\napp.gateway. It retries! Nothing else does.\n\n## Consequences\n\nFine.\n";
        assert_eq!(
            decision_sentences(adr).as_deref(),
            Some("All outbound HTTP goes through app.gateway. It retries!")
        );
        let madr = "# Title\n\n## Decision Drivers\n\n* speed\n\n## Decision Outcome\n\nChosen option: \"gateway\", because it retries\n";
        assert_eq!(
            decision_sentences(madr).as_deref(),
            Some("Chosen option: \"gateway\", because it retries")
        );
        let helix = "## Entscheidung\n\n```yaml\nx: 1\n```\nWir nutzen das Gateway.\n";
        assert_eq!(
            decision_sentences(helix).as_deref(),
            Some("Wir nutzen das Gateway.")
        );
        assert_eq!(
            decision_sentences("# T\n\n## Context\n\nNo decision.\n"),
            None
        );
        assert_eq!(decision_sentences("## Decision\n\n## Next\n"), None);
    }
}
