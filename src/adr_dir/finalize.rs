//! `finalize`: validate a draft, give it a free number, move it to
//! `<adr dir>/NNN-slug.md` and add its row to INDEX.md, all or nothing.
//!
//! Order of work, under the directory [`Lock`]:
//! 1. plan everything in memory: number, target path, the ADR text with its
//!    `adr_id` line set, the new INDEX.md text; validate the ADR as it will be
//!    written; refuse on errors, a duplicate title or an existing target;
//! 2. write the new INDEX.md to a temporary file next to it;
//! 3. create the target without overwriting (a finished temporary file moved
//!    into place with no-replace semantics), then remove the draft: the move;
//! 4. rename the temporary INDEX.md into place. If that fails, the draft is
//!    written back and the target removed, so nothing has moved and INDEX.md is
//!    untouched; if the draft cannot be written back either, the ADR stays
//!    moved and the intent stays (below), so the next run adds the row;
//! 5. record the move in `.helix-gate/finalized.jsonl` ([`super::moves`]).
//!
//! Before step 2 the intent is written to the journal ([`super::journal`]), with
//! its witness in helix-gate's per-user state folder, and after step 5 both are
//! removed (or on a failure that left nothing changed), so a finalize killed or
//! failed in between is finished or undone by the next `finalize` or `doctor`,
//! which also remove the temporary files it left.
//!
//! The ADR's front matter is edited as text (one line), never re-serialised, so
//! the author's formatting and comments stay.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use super::Workspace;
use super::catalog::{self, Catalog};
use super::index_table::{self, NewRow};
use super::journal;
use super::lock::Lock;
use super::slug;
use crate::adr::catalog::strip_title_number;
use crate::adr::front_matter::{self, Split};
use crate::adr::{self, Adr, Field, LineIndex};
use crate::diagnostic::FileReport;
use crate::engine::read_limited;
use crate::fs::atomic;
use crate::rules::{self, WorkTree, across, numbering};

/// A failure injected at a step of [`run`], for tests of the rollback.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// Replacing INDEX.md fails right after the ADR was moved.
    AfterMove,
    /// Replacing INDEX.md fails right after the ADR was moved, and so does putting
    /// the draft back: the ADR stays moved, without its INDEX.md row.
    Stranded,
    /// Removing the draft after the copy fails; removing the copy works.
    DraftStays,
    /// Removing the draft after the copy fails, and so does removing the copy.
    BothStay,
    /// The process dies (as by SIGKILL: nothing is cleaned up) after this step.
    Crash(Step),
}

/// The steps of a finalize, in order, for [`Fault::Crash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Step {
    /// The intent is written and INDEX.md's temporary file is ready.
    Intent,
    /// The ADR is created; the draft is still there.
    Create,
    /// The draft is removed.
    RemoveDraft,
    /// INDEX.md is replaced.
    Index,
    /// The move is recorded in `.helix-gate/finalized.jsonl`.
    Record,
}

/// How to run [`run`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// Plan and report, change nothing (and take no lock).
    pub dry_run: bool,
    /// Tests only: fail at this step as if the file system had failed.
    pub fault: Option<Fault>,
}

/// Everything a finalize will do, computed before anything changes.
#[derive(Debug, Clone)]
pub struct Plan {
    pub draft: PathBuf,
    pub draft_display: String,
    pub number: u32,
    /// `number` as written in the file name, padded to `adr.number_width`.
    pub id: String,
    /// The number is also written as `adr_id` (the rules require that field).
    pub adr_id_written: bool,
    /// Why the number differs from the draft's `adr_id`, when it does.
    pub number_note: Option<String>,
    pub target: PathBuf,
    pub target_display: String,
    pub title: String,
    pub status: String,
    pub index_path: PathBuf,
    pub index_display: String,
    /// INDEX.md does not exist yet and will be created.
    pub index_created: bool,
    /// INDEX.md is written: `adr.index` is true or the file exists already.
    pub index_kept: bool,
    /// The row added to INDEX.md (without line ending).
    pub row: String,
    /// Validation findings of the draft (warnings only; errors refuse).
    pub report: FileReport,
    content: String,
    /// None when INDEX.md is not kept.
    index_content: Option<String>,
    /// INDEX.md as read (None: missing).
    index_before: Option<String>,
    original: Vec<u8>,
    /// Why the move could not be recorded (the ADR is finalized all the same;
    /// the next `finalize` or `doctor` records it).
    pub record_error: Option<String>,
}

impl Plan {
    /// What finalize changes in the document and around it, for a note such as
    /// "finalize changed only `adr_id`, the file name and INDEX.md".
    pub fn changes(&self) -> String {
        let concept = |adr: &Adr| crate::rules::concept::named(adr).and_then(Result::ok);
        let concept_rewritten = String::from_utf8(self.original.clone())
            .is_ok_and(|text| concept(&Adr::parse(&text)) != concept(&Adr::parse(&self.content)));
        let mut parts: Vec<&str> = Vec::new();
        if self.adr_id_written {
            parts.push("adr_id");
        }
        if concept_rewritten {
            parts.push("the concept: path");
        }
        parts.push("the file name");
        if self.index_kept {
            parts.push("INDEX.md");
        }
        match parts.split_last() {
            Some((last, [])) => (*last).to_owned(),
            Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
            None => String::new(),
        }
    }

    /// The draft's bytes as read.
    pub fn original(&self) -> &[u8] {
        &self.original
    }

    /// The ADR as finalize writes it: the draft with its `adr_id` line set,
    /// nothing else changed.
    pub fn content(&self) -> &str {
        &self.content
    }
}

/// How a finalize ended.
#[derive(Debug, Clone)]
pub enum Finalization {
    Finalized(Plan),
    DryRun(Plan),
    /// Nothing changed; `report` holds the draft's findings when they are the reason.
    Refused {
        report: Option<FileReport>,
        reason: String,
    },
}

/// Finalize `draft` in the repository at `root`.
pub fn run_in(root: &Path, draft: &Path, options: Options) -> anyhow::Result<Finalization> {
    let ws = Workspace::open(root)?;
    run(&ws, draft, options)
}

/// Finalize `draft` (relative to the current directory or absolute).
pub fn run(ws: &Workspace, draft: &Path, options: Options) -> anyhow::Result<Finalization> {
    let root = &ws.engine.root;
    let draft = crate::paths::absolute(draft);
    let draft_display = crate::paths::display(root, &draft);
    match std::fs::metadata(&draft) {
        Ok(meta) if meta.is_dir() => bail!("{draft_display} is a directory, not an ADR draft"),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => bail!(
            "draft {draft_display} does not exist (a draft that was finalized already was moved to {}/; see {})",
            crate::paths::display(root, &ws.dir),
            crate::paths::display(root, &ws.index_path())
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot read {draft_display}")),
    }
    let limit = ws.engine.settings.adr.max_file_size;
    let original =
        read_limited(&draft, limit).with_context(|| format!("cannot read {draft_display}"))?;
    let text = match rules::input::decode(original.clone(), limit) {
        Ok(text) => text,
        Err(finding) => {
            return Ok(Finalization::Refused {
                report: Some(FileReport {
                    path: draft_display.clone(),
                    findings: vec![finding],
                }),
                reason: format!("{draft_display} is not a readable ADR; nothing was moved"),
            });
        }
    };
    // Number assignment, the move and INDEX.md happen under one lock.
    let _lock = if options.dry_run {
        None
    } else {
        let lock = Lock::acquire(root, &ws.dir)?;
        // Notes of a recovery are shown by the caller's own `recover` first.
        let _ = super::journal::recover(ws);
        Some(lock)
    };
    let mut catalog = Catalog::load(&ws.engine, &ws.dir)?;
    catalog.entries.retain(|e| e.path != draft);
    let mut plan = match plan(ws, &catalog, &draft, &text, original)? {
        Ok(plan) => plan,
        Err(refused) => return Ok(refused),
    };
    if options.dry_run {
        return Ok(Finalization::DryRun(plan));
    }
    match apply(root, ws.state_dir.as_deref(), &plan, options.fault)? {
        Applied::Done(record_error) => {
            plan.record_error = record_error;
            Ok(Finalization::Finalized(plan))
        }
        Applied::TargetExists => Ok(Finalization::Refused {
            report: None,
            reason: target_exists(&plan.target_display),
        }),
    }
}

fn target_exists(target: &str) -> String {
    format!(
        "{target} already exists; nothing was moved (give the draft another title, or remove the file)"
    )
}

/// Whether the rules require `adr_id` (HELIX): then finalize writes the number there.
fn wants_adr_id(ws: &Workspace) -> bool {
    ws.engine
        .rules
        .document
        .required_fields
        .iter()
        .any(|f| f == "adr_id")
}

/// The draft's title: HELIX keeps it in the front matter; MADR and Nygard in the `# `
/// heading, Nygard's after its number (`# 12. Title`).
fn draft_title(adr: &Adr) -> String {
    adr.front_matter()
        .and_then(|fm| fm.title.valid())
        .map(|t| t.trim().to_owned())
        .or_else(|| {
            adr.title_heading()
                .map(|h| strip_title_number(&h.value).trim().to_owned())
        })
        .unwrap_or_default()
}

/// The draft with its number written where the format keeps it: `adr_id` when the rules
/// require that field, else a numbered title heading (Nygard), else only the file name
/// (MADR); and the edit's line mapping.
fn numbered(
    ws: &Workspace,
    adr: &Adr,
    text: &str,
    number: u32,
    id: &str,
) -> (String, Option<Edit>) {
    let wants_adr_id = ws
        .engine
        .rules
        .document
        .required_fields
        .iter()
        .any(|f| f == "adr_id");
    let edited = if wants_adr_id {
        set_adr_id(text, id)
    } else {
        // Lines keep their places: an edit that maps every line to itself.
        let same_lines = Edit {
            line: 1,
            removed: 0,
            added: 0,
        };
        set_title_number(adr, text, number).map(|content| (content, same_lines))
    };
    match edited {
        Some((content, edit)) => (content, Some(edit)),
        None => (text.to_owned(), None),
    }
}

/// The plan, or the refusal.
fn plan(
    ws: &Workspace,
    catalog: &Catalog,
    draft: &Path,
    text: &str,
    original: Vec<u8>,
) -> anyhow::Result<Result<Plan, Finalization>> {
    let root = &ws.engine.root;
    let draft_display = crate::paths::display(root, draft);
    let adr = Adr::parse(text);
    let (number, number_note) = choose_number(ws, &adr, catalog)?;
    let settings = &ws.engine.settings.adr;
    let id = catalog::format_number_width(number, settings.number_width);
    let title = draft_title(&adr);
    let name = format!("{id}-{}.md", slug::slug(&title));
    let target = ws.dir.join(&name);
    let target_display = crate::paths::display(root, &target);

    // Validate the document exactly as it will be written, at its new path.
    let (content, edit) = numbered(ws, &adr, text, number, &id);
    let content = super::concept_path::carry(&ws.engine, draft, &content);
    let (report, final_adr) =
        check_as_written(ws, catalog, &target, &content, edit, &draft_display, number);
    let errors = report
        .findings
        .iter()
        .filter(|f| f.severity == crate::diagnostic::Severity::Error)
        .count();
    if errors > 0 {
        return Ok(Err(Finalization::Refused {
            reason: format!(
                "{draft_display} has {errors} error{}; nothing was moved",
                if errors == 1 { "" } else { "s" }
            ),
            report: Some(report),
        }));
    }
    let refuse = |reason: String| {
        Ok(Err(Finalization::Refused {
            report: None,
            reason,
        }))
    };
    if let Some(twin) = catalog
        .entries
        .iter()
        .find(|e| e.title().is_some_and(|t| t.eq_ignore_ascii_case(&title)))
    {
        return refuse(format!(
            "{} already has the title \"{title}\" (was this draft finalized before?); nothing was moved. Give a different decision a different title",
            crate::paths::display(root, &twin.path)
        ));
    }
    if crate::paths::absolute(&target) == draft {
        return refuse(format!(
            "{draft_display} is already finalized (it is named after its adr_id); run `helix-gate index --write` if its INDEX.md row is missing"
        ));
    }
    let rel_target = crate::paths::relative_to(root, &target).unwrap_or_else(|| name.clone());
    if ws.engine.matcher().is_excluded(&rel_target) {
        return refuse(format!(
            "{target_display} would match adr.exclude (INDEX, README, template names) and never be checked; change the title"
        ));
    }
    if std::fs::symlink_metadata(&target).is_ok() {
        return refuse(target_exists(&target_display));
    }

    let index_path = ws.index_path();
    let index_text = super::read_optional(&index_path)?;
    let final_adr = final_adr.unwrap_or_else(|| Adr::parse(&content));
    let new_row = NewRow {
        number: Some(number),
        width: settings.number_width,
        title: title.clone(),
        link: catalog::link_from(&ws.dir, &target),
        status: final_adr
            .front_matter()
            .and_then(|fm| fm.status.valid())
            .map(|s| s.trim().to_owned())
            .unwrap_or_default(),
        summary: catalog::summary(&final_adr),
    };
    let index_kept = settings.index || index_text.is_some();
    let index_content = index_table::add_row(index_text.as_deref(), &new_row);
    let columns = index_table::find(&index_content).map(|t| t.columns);
    let row = index_table::render_row(columns.as_deref().unwrap_or(&[]), &new_row, None, "");
    Ok(Ok(Plan {
        draft: draft.to_path_buf(),
        draft_display,
        number,
        id,
        adr_id_written: wants_adr_id(ws),
        number_note,
        target,
        target_display,
        title,
        status: new_row.status,
        index_display: crate::paths::display(root, &index_path),
        index_path,
        index_created: index_text.is_none() && index_kept,
        index_kept,
        row,
        report,
        content,
        index_content: index_kept.then_some(index_content),
        index_before: index_text,
        original,
        record_error: None,
    }))
}

/// The findings of the document as it will be written (`content`, with `edit` applied), at
/// its new path and against the directory, shown under the draft's name and with the draft's
/// line numbers; and its parse, when it is text.
fn check_as_written(
    ws: &Workspace,
    catalog: &Catalog,
    target: &Path,
    content: &str,
    edit: Option<Edit>,
    draft_display: &str,
    number: u32,
) -> (FileReport, Option<Adr>) {
    let checked = ws.engine.check_bytes(
        target,
        content.as_bytes().to_vec(),
        &WorkTree::new(ws.engine.root.as_path()),
    );
    let mut report = checked.report;
    draft_display.clone_into(&mut report.path);
    if let Some(final_adr) = &checked.adr {
        report
            .findings
            .extend(across_findings(catalog, final_adr, draft_display, number));
        report.findings.extend(numbering::succession_findings(
            final_adr,
            Some(number),
            &catalog.taken(),
            &numbering::replaced_numbers(catalog),
        ));
    }
    if let Some(edit) = edit {
        for finding in &mut report.findings {
            finding.line = finding.line.map(|l| edit.original_line(l));
        }
    }
    report.sort();
    (report, checked.adr)
}

/// The draft's own number when it is free, else the next one, with the reason. The own
/// number is its `adr_id` when the rules require one (HELIX), else the number of its
/// title (`# 12. Title`, Nygard); MADR drafts carry none.
fn choose_number(
    ws: &Workspace,
    adr: &Adr,
    catalog: &Catalog,
) -> anyhow::Result<(u32, Option<String>)> {
    let root = &ws.engine.root;
    let width = ws.engine.settings.adr.number_width;
    let next = catalog.next_number()?;
    let (field, id_field) = if wants_adr_id(ws) {
        ("adr_id", adr.front_matter().map(|fm| fm.adr_id.clone()))
    } else {
        let number = adr.title_heading().and_then(|h| {
            let title = h.value.trim();
            (strip_title_number(title) != title)
                .then(|| title.split('.').next().unwrap_or_default().to_owned())
        });
        ("the title number", number.map(Field::Valid))
    };
    let reason = match id_field {
        Some(Field::Valid(id)) => match adr::number_in_id(&id) {
            Some(0) => format!("{field} `{id}` is the template's placeholder"),
            Some(n) if n > catalog::MAX_NUMBER => format!(
                "{field} `{id}` is above the largest ADR number {}",
                catalog::MAX_NUMBER
            ),
            Some(n) => match catalog
                .holder(n)
                .map(|holder| holder.path.as_path())
                .or_else(|| catalog.reserved_by(n))
            {
                None => return Ok((n, None)),
                Some(holder) => format!(
                    "{field} {} is taken by {}",
                    catalog::format_number_width(n, width),
                    crate::paths::display(root, holder)
                ),
            },
            None => format!("{field} `{id}` is not a number"),
        },
        Some(Field::Invalid(_)) => format!("{field} is not a single value"),
        Some(Field::Missing) | None if field == "adr_id" => "the draft has no adr_id".to_owned(),
        Some(Field::Missing) | None => "the draft has no number".to_owned(),
    };
    Ok((
        next,
        Some(format!(
            "{reason}; assigned {}",
            catalog::format_number_width(next, width)
        )),
    ))
}

/// Duplicate-id and `depends_on` findings of the draft against the directory.
fn across_findings(
    catalog: &Catalog,
    draft: &Adr,
    draft_display: &str,
    number: u32,
) -> Vec<crate::diagnostic::Finding> {
    let paths: Vec<String> = catalog.entries.iter().map(|e| e.link.clone()).collect();
    let mut members: Vec<across::Member<'_>> = catalog
        .entries
        .iter()
        .zip(&paths)
        .filter_map(|(e, path)| {
            e.adr.as_ref().map(|adr| across::Member {
                path,
                adr,
                file_number: e.file_number,
            })
        })
        .collect();
    let me = members.len();
    members.push(across::Member {
        path: draft_display,
        adr: draft,
        file_number: Some(number),
    });
    across::check(&members)
        .into_iter()
        .filter(|(i, _)| *i == me)
        .map(|(_, f)| f)
        .collect()
}

/// Lines replaced by [`set_adr_id`]: `removed` lines from `line` on became `added` lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edit {
    pub line: usize,
    pub removed: usize,
    pub added: usize,
}

impl Edit {
    /// The line of the original text that a line of the edited text came from.
    pub fn original_line(self, line: usize) -> usize {
        if line < self.line {
            line
        } else if line < self.line + self.added {
            self.line
        } else {
            line - self.added + self.removed
        }
    }
}

/// `text` with the number of a numbered title heading (`# 12. Title`) set to `number`;
/// None when the title heading is not numbered. Only the number changes, so every line
/// keeps its place.
fn set_title_number(adr: &Adr, text: &str, number: u32) -> Option<String> {
    let heading = adr.sections.iter().find(|s| s.level == 1)?;
    let line_end = text[heading.heading_start..]
        .find('\n')
        .map_or(text.len(), |i| heading.heading_start + i);
    let line = &text[heading.heading_start..line_end];
    let hashes = line.len() - line.trim_start_matches('#').len();
    let after = &line[hashes..];
    let title = after.trim_start();
    if hashes != 1 || strip_title_number(title) == title {
        return None;
    }
    let start = heading.heading_start + hashes + (after.len() - title.len());
    let digits = title.len() - title.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    Some(format!(
        "{}{number}{}",
        &text[..start],
        &text[start + digits..]
    ))
}

/// `text` with `adr_id: "<id>"`: the existing top-level `adr_id` line rewritten in
/// place (a trailing comment kept), or a new line right after the opening `---`.
/// None when the document has no closed front matter.
pub fn set_adr_id(text: &str, id: &str) -> Option<(String, Edit)> {
    let Split::Found(span) = front_matter::split(text) else {
        return None;
    };
    let first_line = LineIndex::new(text).line(span.yaml_start);
    let nl = if text[..span.yaml_start].ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let yaml = &text[span.yaml_start..span.yaml_end];
    let mut offset = span.yaml_start;
    let mut lines = yaml.split_inclusive('\n').enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let Some(value) = key_value(line, "adr_id") else {
            offset += line.len();
            continue;
        };
        let comment = trailing_comment(value);
        let ending = if line.ends_with("\r\n") {
            "\r\n"
        } else if line.ends_with('\n') {
            "\n"
        } else {
            nl
        };
        let mut end = offset + line.len();
        let mut removed = 1;
        // A block value (`adr_id:` followed by indented lines, `|`, `[`) continues below.
        let head = value.trim();
        let head = head[..head.len() - comment.len()].trim();
        if head.is_empty() || head.starts_with(['|', '>', '[', '{']) {
            while let Some((_, next)) = lines.peek() {
                if !next.starts_with([' ', '\t', '-']) {
                    break;
                }
                end += next.len();
                removed += 1;
                lines.next();
            }
        }
        let comment = if comment.is_empty() {
            String::new()
        } else {
            format!(" {comment}")
        };
        let edited = format!(
            "{}adr_id: \"{id}\"{comment}{ending}{}",
            &text[..offset],
            &text[end..]
        );
        return Some((
            edited,
            Edit {
                line: first_line + i,
                removed,
                added: 1,
            },
        ));
    }
    let edited = format!(
        "{}adr_id: \"{id}\"{nl}{}",
        &text[..span.yaml_start],
        &text[span.yaml_start..]
    );
    Some((
        edited,
        Edit {
            line: first_line,
            removed: 0,
            added: 1,
        },
    ))
}

/// The value part of a top-level `key:` line (also `"key":`), line ending removed.
fn key_value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let rest = [key.to_owned(), format!("\"{key}\""), format!("'{key}'")]
        .iter()
        .find_map(|k| line.strip_prefix(k.as_str()))?;
    let rest = rest.trim_start_matches([' ', '\t']).strip_prefix(':')?;
    Some(rest.trim_end_matches(['\r', '\n']))
}

/// A YAML comment at the end of `value` (`# ...` after whitespace, outside quotes).
fn trailing_comment(value: &str) -> &str {
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for (i, c) in value.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            None if c == '"' || c == '\'' => quote = Some(c),
            None if c == '#' && previous.is_whitespace() => return value[i..].trim_end(),
            Some(_) | None => {}
        }
        previous = c;
    }
    ""
}

enum Applied {
    /// With why the move was not recorded, when it was not.
    Done(Option<String>),
    TargetExists,
}

/// Why [`apply_steps`] stopped short of its end.
struct Stopped {
    error: anyhow::Error,
    /// The repository is left between the finalize's two states (the ADR moved
    /// and not moved back; or a crash was injected): the intent must stay, so
    /// that the next `finalize` or `doctor` finishes or undoes it.
    midway: bool,
}

impl Stopped {
    /// Nothing was changed, or every change was undone.
    fn clean(error: impl Into<anyhow::Error>) -> Stopped {
        Stopped {
            error: error.into(),
            midway: false,
        }
    }
}

/// Stop as a killed process would, when `fault` says so at `step`: every
/// temporary file stays, the intent stays.
fn crash_at(
    fault: Option<Fault>,
    step: Step,
    index: &mut Option<atomic::Staged>,
) -> Result<(), Stopped> {
    if fault == Some(Fault::Crash(step)) {
        if let Some(staged) = index.take() {
            std::mem::forget(staged);
        }
        return Err(Stopped {
            error: anyhow::anyhow!("injected crash after {step:?}"),
            midway: true,
        });
    }
    Ok(())
}

/// Carry out `plan` in the repository at `root` (see the module comment for the
/// order and the rollback); the intent's witness goes to `state_dir`.
fn apply(
    root: &Path,
    state_dir: Option<&Path>,
    plan: &Plan,
    fault: Option<Fault>,
) -> anyhow::Result<Applied> {
    // The draft as recorded in `.helix-gate/finalized.jsonl`: relative to the root.
    let from = crate::paths::relative_to_real(root, &plan.draft)
        .unwrap_or_else(|| plan.draft_display.clone());
    let intent = journal::Intent {
        draft: plan.draft.clone(),
        original: crate::text::hex(&plan.original),
        target: plan.target.clone(),
        content: plan.content.clone(),
        index: plan
            .index_content
            .as_ref()
            .map(|after| journal::IndexChange {
                before: plan.index_before.clone(),
                after: after.clone(),
            }),
        from: from.clone(),
        to: plan.target_display.clone(),
    };
    journal::begin(root, state_dir, &intent).with_context(|| {
        format!(
            "cannot write the intent {}; nothing was moved",
            crate::fs::data_dir::FINALIZE_INTENT_PATH
        )
    })?;
    let applied = apply_steps(root, plan, &from, fault);
    // The intent stays for the next run when the repository is left midway, and
    // when the move was not recorded; every other end is final.
    let final_state = match &applied {
        Ok(Applied::Done(record_error)) => record_error.is_none(),
        Ok(Applied::TargetExists) => true,
        Err(stopped) => !stopped.midway,
    };
    if final_state {
        // Left behind only costs the next run a check.
        let _ = journal::end(root, state_dir);
    }
    applied.map_err(|stopped| stopped.error)
}

fn apply_steps(
    root: &Path,
    plan: &Plan,
    from: &str,
    fault: Option<Fault>,
) -> Result<Applied, Stopped> {
    // Dropped without commit on every early return, which removes the temporary file.
    let mut index = match &plan.index_content {
        Some(content) => Some(
            atomic::stage(
                root,
                &plan.index_path,
                content.as_bytes(),
                atomic::Options::DURABLE,
            )
            .map_err(Stopped::clean)?,
        ),
        None => None,
    };
    crash_at(fault, Step::Intent, &mut index)?;
    match atomic::create_new(root, &plan.target, plan.content.as_bytes()) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Ok(Applied::TargetExists);
        }
        Err(e) => return Err(Stopped::clean(e)),
    }
    crash_at(fault, Step::Create, &mut index)?;
    let removed = match fault {
        Some(Fault::DraftStays | Fault::BothStay) => Err(std::io::Error::other(
            "injected failure to remove the draft",
        )),
        _ => std::fs::remove_file(&plan.draft),
    };
    if let Err(e) = removed {
        let copy_removed = match fault {
            Some(Fault::BothStay) => Err(std::io::Error::other("injected failure")),
            _ => std::fs::remove_file(&plan.target),
        };
        let context = match copy_removed {
            Ok(()) => format!(
                "cannot remove {} after copying it; nothing was moved",
                plan.draft_display
            ),
            // Both copies stay: say so, or the next finalize refuses with "already exists".
            Err(copy) => format!(
                "cannot remove {} after copying it to {}, nor that copy ({copy}); remove {} by hand, then finalize again",
                plan.draft_display, plan.target_display, plan.target_display
            ),
        };
        return Err(Stopped::clean(anyhow::Error::new(e).context(context)));
    }
    crash_at(fault, Step::RemoveDraft, &mut index)?;
    // The ADR has moved. From here on a failure must move it back.
    let replaced = match fault {
        Some(Fault::AfterMove | Fault::Stranded) => {
            Err(std::io::Error::other("injected failure after the move"))
        }
        _ => index.take().map_or(Ok(()), atomic::Staged::commit),
    };
    if let Err(e) = replaced {
        // Back where it was, as a new file: never through a link put there meanwhile.
        let draft_dir = plan.draft.parent().unwrap_or(Path::new("."));
        let restored = match fault {
            Some(Fault::Stranded) => Err(std::io::Error::other("injected failure to put it back")),
            _ => atomic::create_new(draft_dir, &plan.draft, &plan.original),
        };
        return match restored {
            Ok(()) => {
                let _ = std::fs::remove_file(&plan.target);
                Err(Stopped::clean(anyhow::Error::new(e).context(format!(
                    "cannot update {}; {} was moved back, nothing changed",
                    plan.index_display, plan.draft_display
                ))))
            }
            // The ADR has moved without its row: the intent stays, and the next
            // `finalize` or `doctor` adds the row and the record.
            Err(restore) => Err(Stopped {
                error: anyhow::Error::new(e).context(format!(
                    "cannot update {}, and cannot move the draft back ({restore}): it is at {}; the next `helix-gate finalize` or `doctor` adds its row",
                    plan.index_display, plan.target_display
                )),
                midway: true,
            }),
        };
    }
    crash_at(fault, Step::Index, &mut index)?;
    let record_error = super::moves::record(root, from, &plan.target_display)
        .err()
        .map(|e| e.to_string());
    crash_at(fault, Step::Record, &mut index)?;
    Ok(Applied::Done(record_error))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites_the_adr_id_line_in_place() {
        let text =
            "---\ntitle: T # keep\nadr_id: XXX   # set by finalize\nstatus: Proposed\n---\nbody\n";
        let (out, edit) = set_adr_id(text, "004").unwrap();
        assert_eq!(
            out,
            "---\ntitle: T # keep\nadr_id: \"004\" # set by finalize\nstatus: Proposed\n---\nbody\n"
        );
        assert_eq!(
            edit,
            Edit {
                line: 3,
                removed: 1,
                added: 1
            }
        );
        let (out, _) = set_adr_id("---\n\"adr_id\": '0#1'\n---\n", "002").unwrap();
        assert_eq!(out, "---\nadr_id: \"002\"\n---\n");
    }

    #[test]
    fn inserts_a_missing_adr_id_after_the_fence() {
        let (out, edit) = set_adr_id("---\r\ntitle: T\r\n---\r\n", "010").unwrap();
        assert_eq!(out, "---\r\nadr_id: \"010\"\r\ntitle: T\r\n---\r\n");
        assert_eq!(edit.original_line(2), 2);
        assert_eq!(edit.original_line(3), 2);
        assert_eq!(edit.original_line(5), 4);
        assert!(set_adr_id("# no front matter\n", "001").is_none());
        assert!(set_adr_id("---\ntitle: T\n", "001").is_none());
    }

    #[test]
    fn block_values_are_replaced_whole() {
        let (out, edit) = set_adr_id("---\nadr_id:\n  - 1\n  - 2\ntitle: T\n---\n", "003").unwrap();
        assert_eq!(out, "---\nadr_id: \"003\"\ntitle: T\n---\n");
        assert_eq!(edit.original_line(3), 5);
        let (out, _) = set_adr_id("---\nadr_id: 1\n  # indented comment\n---\n", "001").unwrap();
        assert!(out.contains("  # indented comment"), "{out}");
    }
}
