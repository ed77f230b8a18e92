//! `PreToolUse` and `PostToolUse` on the write tools (Write, Edit, `MultiEdit`):
//! refuse writes into helix-gate's own files before they happen, check a saved
//! ADR on the spot and count the attempt against the budget.

use std::path::{Path, PathBuf};

use super::answer::{charged_answer, count_write};
use super::ctx::Context;
use super::policy::{InfraError, need_session};
use super::ruling::{Asked, Ruling, ask_person, count, session_id, skipped};
use super::{project, state, step_marker};
use crate::agent::event::HookEvent;
use crate::agent::output::HookOutput;
use crate::decision_log::{Decision, Verdict};
use crate::diagnostic::Severity;
use crate::engine::{Engine, Prepared, ReadError};
use crate::fs::data_dir;
use crate::paths;

/// `path` as a tool wrote it, absolute ([`super::tool::absolute`]); a broken
/// `cwd` under a relative path is the failure policy's error.
pub(super) fn resolve(event: &HookEvent, ctx: &Context, path: &str) -> Result<PathBuf, InfraError> {
    super::tool::absolute(event, path).map_err(|problem| ctx.needed(problem))
}

/// The file a write names, its links followed once for every question the hook
/// asks of it: is it in `.helix-gate/`, which file of the repository is it
/// really, does a link lead it out of the repository.
pub(super) struct Written {
    /// As named.
    pub(super) path: PathBuf,
    /// Where it really is, every symbolic link followed (`None`: a link loop).
    real: Option<PathBuf>,
    /// The repository's real location (`None`: it cannot be resolved).
    real_root: Option<PathBuf>,
}

impl Written {
    pub(super) fn resolve(root: &Path, path: PathBuf) -> Written {
        Written {
            real: crate::fs::confine::real_location(&path),
            real_root: std::fs::canonicalize(root).ok(),
            path,
        }
    }

    /// Whether it lies in a `.helix-gate/` folder, as written or at its real
    /// location (a symlink into the folder, or out of it, counts where it leads).
    pub(super) fn in_data_dir(&self) -> bool {
        let named = |p: &Path| p.components().any(|c| c.as_os_str() == data_dir::DIR);
        named(&paths::absolute(&self.path)) || self.real.as_deref().is_some_and(named)
    }

    /// Where it really is, relative to the repository's real location: a file
    /// reached through a linked folder (`docs/decisions -> ../adr`) or a link to
    /// one file. `None` outside the repository.
    pub(super) fn real_relative(&self) -> Option<String> {
        paths::relative_to(self.real_root.as_deref()?, self.real.as_deref()?)
    }

    /// Whether its real location lies inside the repository's (as
    /// [`crate::fs::confine::inside`] answers): false for a link that leads out,
    /// and for a loop.
    pub(super) fn inside(&self) -> bool {
        match (&self.real, &self.real_root) {
            (Some(real), Some(real_root)) => real.starts_with(real_root),
            _ => false,
        }
    }
}

/// `path` as the model and the log see it: inside the project relative to it.
pub(super) fn shown(root: &Path, path: &Path) -> String {
    paths::relative_to_real(root, path).unwrap_or_else(|| path.display().to_string())
}

/// What `.helix-gate/` holds, for the answers that refuse writes into it.
pub(super) const DATA_DIR_WHY: &str = "helix-gate's own records (session state, decision log, approval history and cache). The session may not change them: the gate's records come from helix-gate alone";

/// `PreToolUse` of a write of `path` (absolute): refused inside `.helix-gate/`,
/// put to the person for helix-gate's configuration and what [`super::guarded`]
/// guards, silence otherwise.
pub(super) fn pre_write(ctx: &Context, path: &Path) -> Ruling {
    let root = ctx.root.as_path();
    let written = Written::resolve(root, path.to_path_buf());
    if !written.in_data_dir() {
        let config = [paths::relative_to_real(root, path), written.real_relative()]
            .into_iter()
            .flatten()
            .find(|rel| crate::config::protected::is_config_in(root, rel));
        if let Some(rel) = config {
            return ask_config(&rel, ctx);
        }
        return super::guarded::written_file(root, path)
            .map_or_else(Ruling::default, |guard| guard.ask(ctx));
    }
    let target = shown(root, path);
    let why = format!(
        "helix-gate: {target} is inside {}/, {DATA_DIR_WHY}. The write was refused",
        data_dir::DIR
    );
    refuse_data(target, &why, "write")
}

/// `PreToolUse`'s refusal of a change to `.helix-gate/` (`why` opens the
/// reason; `what` names the kind of change in the log).
pub(super) fn refuse_data(target: String, why: &str, what: &str) -> Ruling {
    Ruling {
        output: Some(HookOutput::deny(format!(
            "{why}; leave the folder alone and ask the user if something there must change."
        ))),
        decisions: vec![Decision {
            target,
            verdict: Verdict::Block,
            note: Some(format!("{what} into {}/ refused", data_dir::DIR)),
            ..Decision::default()
        }],
    }
}

/// A write of helix-gate's configuration: the person decides (Claude Code asks
/// them; in `-p` mode, with nobody to ask, it is refused). An agent that cannot
/// ask the person from a hook (Codex) refuses it, and the reason tells the
/// person how to make the change themselves. Either way the session keeps the
/// configuration it started with.
pub(super) fn ask_config(rel: &str, ctx: &Context) -> Ruling {
    let what = format!(
        "helix-gate: {rel} is part of helix-gate's configuration, which decides what this session's gate checks; the session's model may not change it on its own."
    );
    let tell =
        format!("what you wanted to change in {rel} and why: they can edit the file themselves");
    ask_person(
        &Asked {
            target: rel,
            what: &what,
            tell: &tell,
            after: Some(
                "this session keeps the configuration it started with: a change takes effect in the next session, or once the user runs `helix-gate trust`.",
            ),
            log: "write of helix-gate's configuration",
        },
        ctx.agent,
    )
}

// ------------------------------------------------------------------ PostToolUse

/// What the written path alone says of a `PostToolUse` on Write/Edit/MultiEdit.
pub(super) enum Screened {
    /// Settled without a configuration: a write into `.helix-gate/`, a file
    /// outside the project, or (with the default settings) one that is no
    /// Markdown file and no phase plan.
    Settled(Ruling),
    /// To be checked: the file written and its name in the project.
    Check { written: Written, rel: String },
}

/// The part of a `PostToolUse` decision that needs no configuration, for a
/// written `path` (absolute): only `lstat`s and `readlink`s, no file opened.
/// The hook runs it before it starts its watchdog, so that the common no-op
/// costs no thread.
pub(super) fn screen(root: &Path, path: PathBuf) -> Screened {
    let written = Written::resolve(root, path);
    let path = &written.path;
    if written.in_data_dir() {
        // PreToolUse would have denied it; without it registered, the least is to say so.
        let target = shown(root, path);
        return Screened::Settled(Ruling {
            output: Some(HookOutput::block(format!(
                "helix-gate: you wrote {target}, inside {}/, {DATA_DIR_WHY}. Do not write there again, and tell the user which file you changed so they can restore it.",
                data_dir::DIR
            ))),
            decisions: vec![Decision {
                target,
                verdict: Verdict::Block,
                note: Some(format!("write into {}/ reported", data_dir::DIR)),
                ..Decision::default()
            }],
        });
    }
    // Outside the project: not ours, and never read.
    let Some(rel) = paths::relative_to_real(root, path) else {
        return Screened::Settled(Ruling::default());
    };
    // The no-op path: with the default settings every ADR glob ends in `.md`, so any
    // other file is dismissed before a configuration file is even opened.
    // A file under an ADR's rules is checked too: one `stat` says whether any can be.
    if !is_plan(&rel)
        && !rel.to_ascii_lowercase().ends_with(".md")
        && !root.join(crate::config::settings::SETTINGS_PATH).exists()
        && !super::governed::may_govern(root)
    {
        return Screened::Settled(Ruling::default());
    }
    Screened::Check { written, rel }
}

/// `PostToolUse` of a write of `path` (absolute): the written ADR (or phase
/// plan) checked and its attempt counted, as for a Write of that file.
pub(super) fn post_write(
    event: &HookEvent,
    root: &Path,
    path: &Path,
    ctx: &Context,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    match screen(root, path.to_path_buf()) {
        Screened::Settled(ruling) => Ok(ruling),
        Screened::Check { written, rel } => post_check(event, root, &written, rel, ctx, notes),
    }
}

/// The rest of [`post_write`] for a write [`screen`] left to check: `rel` is
/// its name in the project.
pub(super) fn post_check(
    event: &HookEvent,
    root: &Path,
    written: &Written,
    rel: String,
    ctx: &Context,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    if is_plan(&rel) {
        return plan_post_tool_use(event, root, written, None, rel, ctx, notes);
    }
    let settings = ctx.settings()?;
    let matcher = settings
        .adr_matcher()
        .map_err(|e| InfraError::new(e, Some(&settings)))?;
    // Written through a linked folder or a link to the file: checked as the
    // ADR it really is (and counted under that name).
    let rel = match written.real_relative() {
        Some(real_rel)
            if !matcher.is_adr(&rel) && (matcher.is_adr(&real_rel) || is_plan(&real_rel)) =>
        {
            notes.push(format!("{rel} is {real_rel} (through a symbolic link)"));
            if is_plan(&real_rel) {
                let real_path = root.join(&real_rel);
                return plan_post_tool_use(
                    event,
                    root,
                    written,
                    Some(&real_path),
                    real_rel,
                    ctx,
                    notes,
                );
            }
            real_rel
        }
        _ => rel,
    };
    if !matcher.is_adr(&rel) {
        if crate::config::detect::looks_like_adr(&rel) && !matcher.is_excluded(&rel) {
            return Ok(not_checked(root, &settings, rel));
        }
        record_answer_write(event, root, &settings, &rel);
        // Code (or any other file) that the rules of an ADR may judge.
        if super::governed::may_govern(root) && written.inside() {
            return super::governed::post_write(event, root, &rel, ctx, notes);
        }
        return Ok(Ruling::default());
    }
    need_session(event, &settings)?;
    // A symlink that leads out of the project is not followed.
    if !written.inside() {
        notes.push(format!("{rel} points outside the project; not read"));
        return Ok(skipped(rel, "symlink leads outside the project"));
    }
    let budget = settings.hook.budget;
    // Checked (and named in the answer) as the ADR it is, also when written
    // through a link.
    let path = root.join(&rel);
    let (engine, read) = load_engine_reading(ctx, settings, &path);
    let engine = engine?;
    engine.set_matcher(matcher);
    // An ADR that states rules about code, or the files it governs: the governing
    // index is refreshed, so its rules (those proven enforceable) apply from the
    // next write on, not only from the next session.
    let rules_code;
    let mut report = match read.map(|prepared| engine.check_read(&path, prepared)) {
        Ok(checked) => {
            rules_code = checked.adr.as_ref().is_some_and(|adr| {
                crate::rules::enforcement::model::parse(adr).is_some()
                    || crate::rules::enforcement::governs_globs(adr)
                        .is_ok_and(|globs| !globs.is_empty())
            });
            let mut report = checked.report;
            report.findings.extend(duplicate_id(
                ctx,
                &rel,
                checked.adr.as_ref(),
                engine.matcher(),
            ));
            report.findings.extend(lifecycle(
                root,
                &rel,
                checked.adr.as_ref(),
                &engine.settings,
            ));
            engine.retain_selected(&path, &mut report.findings);
            // The hook's process ends with this answer: freeing the rules and the
            // parsed ADR would only delay it (~0.15 M instructions on the seed ADR).
            std::mem::forget(checked.adr);
            report
        }
        Err(e) if e.cause.kind() == std::io::ErrorKind::NotFound => {
            // Deleted between the tool call and the hook: nothing to check.
            return Ok(skipped(rel, "file no longer exists"));
        }
        Err(e) => return Err(InfraError::new(e.to_string(), Some(&engine.settings))),
    };
    report.sort();
    let errors = count(&report, Severity::Error);
    let (charge, note) = count_write(root, session_id(event), &rel, errors, budget, true)
        .map_err(|e| InfraError::new(e.to_string(), Some(&engine.settings)))?;
    std::mem::forget(engine);
    if rules_code {
        crate::adr_dir::governs::refresh_cache(root);
    }
    notes.extend(note.clone());
    Ok(charged_answer(&rel, &report, charge.as_ref(), note, budget))
}

/// A write of a file named like an ADR (`docs/adr/001-x.md`, `ADR-*.md`) that the ADR
/// globs do not cover: never passed in silence. The model and the user are told it was
/// not checked, why, and what would have it checked; the write is not blocked.
fn not_checked(root: &Path, settings: &crate::config::Settings, rel: String) -> Ruling {
    let globs = settings.adr.globs.join(", ");
    let fix = if crate::config::detect::unconfigured(root) {
        "This repository has no helix-gate configuration; the user can run `helix-gate init` (or set `preset:` and `adr.globs` in config/helix-gate.yaml) to have such files checked".to_owned()
    } else {
        format!(
            "To have it checked, write ADRs under {}/, or ask the user to add its folder to adr.globs in config/helix-gate.yaml",
            settings.adr.directory
        )
    };
    let text = format!(
        "helix-gate: {rel} looks like an ADR but was not checked: it is outside the ADR globs ({globs}). {fix}."
    );
    Ruling {
        output: Some(HookOutput::context("PostToolUse", &text).with_message(text.clone())),
        decisions: vec![Decision {
            target: rel,
            verdict: Verdict::Skip,
            note: Some("named like an ADR, outside the ADR globs: not checked".to_owned()),
            ..Decision::default()
        }],
    }
}

/// A Write or Edit of the session's answer file (`step_marker.fallback_file`,
/// where the marker is required of the session) is recorded with the turn's
/// `prompt_id`: a Stop of the same turn reads the marker at the file's end
/// ([`step_marker::answer_file_marker`]). Best effort: without a session or
/// prompt id, or when the state cannot be written, the chat reply alone counts.
fn record_answer_write(
    event: &HookEvent,
    root: &Path,
    settings: &crate::config::Settings,
    rel: &str,
) {
    let (Some(session), Some(prompt_id)) = (&event.session_id, &event.prompt_id) else {
        return;
    };
    let marker = &settings.step_marker;
    if !marker.enabled {
        return;
    }
    let folders = project::session_folders(event);
    if !step_marker::answer_names(root, &folders, &marker.fallback_file)
        .iter()
        .any(|name| name == rel)
        || !step_marker::required_in(marker, root, &folders)
    {
        return;
    }
    let _ = state::update(root, session, |s| {
        s.answer = Some(state::AnswerWritten {
            file: rel.to_owned(),
            prompt_id: prompt_id.clone(),
        });
    });
}

/// The engine, and the file at `path` read and parsed ([`Prepared`]): the file is read
/// first, then an ADR's Markdown is parsed on a second thread while the rules load on
/// this one and the front matter is parsed after them ([`Prepared::read_alongside`]).
/// On the seed ADR the two sides take about as long (1.3 M and 1.4 M instructions);
/// the whole parse on the second thread (2.0 M) had been the longer side. Without a
/// thread to spare, one after the other.
fn load_engine_reading(
    ctx: &Context,
    settings: crate::config::settings::Settings,
    path: &Path,
) -> (Result<Engine, InfraError>, Result<Prepared, ReadError>) {
    let max_file_size = settings.adr.max_file_size;
    let (read, engine) =
        Prepared::read_alongside(&ctx.root, path, max_file_size, || ctx.load_engine(settings));
    (engine, read)
}

/// Whether `rel` is a consultant's phase plan (checked on save like an ADR,
/// charged under its own key, never one of the session's touched ADRs: the
/// Stop's reviewer is for ADRs).
pub(super) fn is_plan(rel: &str) -> bool {
    crate::config::plan::is_session_plan(rel)
}

/// Check the saved plan `written` (`rel` in the project; read at `real_path`
/// when it was written through a link) and answer as for an ADR.
fn plan_post_tool_use(
    event: &HookEvent,
    root: &Path,
    written: &Written,
    real_path: Option<&Path>,
    rel: String,
    ctx: &Context,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    let settings = ctx.settings()?;
    need_session(event, &settings)?;
    if !written.inside() {
        notes.push(format!("{rel} points outside the project; not read"));
        return Ok(skipped(rel, "symlink leads outside the project"));
    }
    let budget = settings.hook.budget;
    let engine = ctx.load_engine(settings)?;
    let report = match engine.check_file(real_path.unwrap_or(&written.path)) {
        Ok(checked) => checked.report,
        Err(e) if e.cause.kind() == std::io::ErrorKind::NotFound => {
            return Ok(skipped(rel, "file no longer exists"));
        }
        Err(e) => return Err(InfraError::new(e.to_string(), Some(&engine.settings))),
    };
    let errors = count(&report, Severity::Error);
    let (charge, note) = count_write(root, session_id(event), &rel, errors, budget, false)
        .map_err(|e| InfraError::new(e.to_string(), Some(&engine.settings)))?;
    notes.extend(note.clone());
    Ok(charged_answer(&rel, &report, charge.as_ref(), note, budget))
}

/// `adr-id-duplicate` on save: another ADR of the repository already has this
/// ADR's `adr_id` number (the rule `validate` of a directory and pre-commit
/// apply across files, here against the session's record of the repository,
/// so the model hears it where it works).
fn duplicate_id(
    ctx: &Context,
    rel: &str,
    adr: Option<&crate::adr::Adr>,
    matcher: &crate::config::AdrMatcher,
) -> Option<crate::diagnostic::Finding> {
    let front_matter = adr?.front_matter()?;
    let number = front_matter
        .adr_id
        .valid()
        .and_then(|id| crate::adr::number_in_id(id))?;
    let record = ctx.config_if_opened().and_then(|c| c.record());
    let others = super::changes::same_number(&ctx.root, record, rel, number, matcher);
    if others.is_empty() {
        return None;
    }
    let line = front_matter.key_lines.get("adr_id").copied().unwrap_or(1);
    Some(
        crate::rules::across::DUPLICATE_ID
            .finding(format!(
                "adr_id {number:03} is also used by {}",
                others.join(", ")
            ))
            .at(line)
            .hint("take a free number from `helix-gate next-number` (and rename the file)"),
    )
}

/// The ADR against its version in `HEAD` ([`crate::rules::lifecycle`]): the agent
/// cannot jump a decision from Rejected to Accepted, start one as Implemented, or
/// rewrite an accepted one (its rules included) to make its code pass. git is
/// opened only for an ADR with a status; before the repository's first commit
/// every status may start (adoption).
pub(super) fn lifecycle(
    root: &Path,
    rel: &str,
    adr: Option<&crate::adr::Adr>,
    settings: &crate::config::Settings,
) -> Vec<crate::diagnostic::Finding> {
    lifecycle_findings(root, rel, adr, settings).unwrap_or_default()
}

fn lifecycle_findings(
    root: &Path,
    rel: &str,
    adr: Option<&crate::adr::Adr>,
    settings: &crate::config::Settings,
) -> Option<Vec<crate::diagnostic::Finding>> {
    let adr = adr?;
    crate::adr::succession::status(adr)?;
    let repo = crate::git::Repo::discover(root).ok()?;
    if !repo.has_head() {
        return None;
    }
    let before = repo
        .head_file(rel, settings.adr.max_file_size)
        .ok()?
        .map(|bytes| crate::adr::Adr::parse(&String::from_utf8_lossy(&bytes)));
    let mut found: Vec<_> =
        crate::rules::lifecycle::transition(before.as_ref(), adr, &settings.lifecycle)
            .into_iter()
            .collect();
    found.extend(
        before
            .as_ref()
            .and_then(|b| crate::rules::lifecycle::rewritten(b, adr)),
    );
    found.extend(before.as_ref().and_then(|before| {
        crate::rules::lifecycle::into_accepted(Some(before), adr, &settings.lifecycle)?;
        let key = crate::approval::signing::load().ok().flatten();
        let verify =
            |fields: &[&[u8]], tag: &[u8]| key.as_ref().is_some_and(|k| k.verify(fields, tag));
        crate::adr_dir::acceptance::unrecorded(
            root,
            rel,
            before,
            (adr, adr.text.as_bytes()),
            &settings.lifecycle,
            &verify,
        )
    }));
    Some(found)
}

/// Whether a `PreToolUse` write of `path` may make an ADR Accepted: a Markdown
/// file whose new text says "accepted" (no file opened).
pub(super) fn may_accept(event: &HookEvent, path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("md"))
        && event
            .write_text
            .as_ref()
            .is_some_and(|t| t.mentions("accepted"))
}

/// `PreToolUse` of a write that would make an ADR Accepted (from another status, or
/// a new ADR born Accepted): refused before it lands. Accepting a decision is a
/// person's act, recorded by `helix-gate accept`.
pub(super) fn pre_accept(ctx: &Context, path: &Path) -> Result<Ruling, InfraError> {
    match ctx.event.write_text.as_ref() {
        Some(text) => pre_accept_text(ctx, path, text),
        None => Ok(Ruling::default()),
    }
}

/// [`pre_accept`] of a write of `text` to `path` (a Codex patch's new text).
pub(super) fn pre_accept_text(
    ctx: &Context,
    path: &Path,
    text: &crate::agent::event::WriteText,
) -> Result<Ruling, InfraError> {
    let root = ctx.root.as_path();
    let Some(rel) = paths::relative_to_real(root, path) else {
        return Ok(Ruling::default());
    };
    let settings = ctx.settings()?;
    let matcher = settings
        .adr_matcher()
        .map_err(|e| InfraError::new(e, Some(&settings)))?;
    if !matcher.is_adr(&rel) {
        return Ok(Ruling::default());
    }
    let current = crate::fs::read::regular(
        path,
        settings.adr.max_file_size,
        crate::fs::read::Links::Follow,
    )
    .ok()
    .map(|bytes| String::from_utf8_lossy(&bytes).into_owned());
    let Some(after) = text.apply(current.as_deref()) else {
        return Ok(Ruling::default());
    };
    let before = current.as_deref().map(crate::adr::Adr::parse);
    let after = crate::adr::Adr::parse(&after);
    let Some((from, to)) =
        crate::rules::lifecycle::into_accepted(before.as_ref(), &after, &settings.lifecycle)
    else {
        return Ok(Ruling::default());
    };
    let name = crate::adr::number_in_file_name(path).map_or_else(|| rel.clone(), |n| n.to_string());
    let was = if from.is_empty() {
        "a new ADR".to_owned()
    } else {
        format!("it is {from}")
    };
    let keep = if from.is_empty() {
        "Write it with a status it may start with (Proposed)".to_owned()
    } else {
        format!("Leave the status at {from}")
    };
    Ok(Ruling {
        output: Some(HookOutput::deny(format!(
            "helix-gate: this write sets {rel} to {to} ({was}). Accepting a decision is a person's act, recorded with who, when and why; the session's model may not accept an ADR on its own, so the write was refused. {keep}, and ask a person to run `helix-gate accept {name} --by NAME [--reason TEXT]`."
        ))),
        decisions: vec![Decision {
            target: rel,
            verdict: Verdict::Block,
            note: Some(format!("write that makes an ADR {to} refused")),
            ..Decision::default()
        }],
    })
}
