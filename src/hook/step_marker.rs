//! The STEP marker: every consultant answer must END with `<!-- STEP: <step> -->`.
//!
//! The seed sketch accepted a marker anywhere in the answer; the rule says "at
//! the end", so only trailing whitespace may follow the marker here.
//!
//! The seed asks the marker of the consultant's answers, not of every session in
//! the repository: `step_marker.paths` (globs of the session's working directory,
//! relative to the repository root) limits it to those sessions, and the fallback
//! file is the consultant's `output/response.md` in the session's folder.
//!
//! That file is also the consultant's answer (seed 004: "Schreibe nach
//! output/response.md - das ist deine Antwort"): when the session wrote it this
//! turn, a valid marker at its end is the answer's marker, whatever the short
//! chat reply ends with. "This turn" is Claude Code's `prompt_id`: a Write or
//! Edit of the file is recorded in the session state with the `prompt_id` of its
//! event, and a Stop with the same `prompt_id` belongs to the same turn. A file
//! written another way (a Bash redirection) or in an earlier turn does not count.

use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

use crate::config::settings::StepMarkerSettings;
use crate::fs::append::Missing;

static MARKER_AT_END: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"<!--\s*STEP:\s*([A-Za-z_-]+)\s*-->\s*\z").ok());

/// What is wrong with an answer's ending, if anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkerProblem {
    Missing,
    /// A marker elsewhere in the text, but not at the end.
    NotAtEnd,
    UnknownStep(String),
}

/// Check that `message` ends with a marker naming one of `steps`.
pub fn check(message: &str, steps: &[String]) -> Result<String, MarkerProblem> {
    let Some(regex) = MARKER_AT_END.as_ref() else {
        return Err(MarkerProblem::Missing);
    };
    match regex.captures(message) {
        Some(caps) => {
            let step = caps.get(1).map_or("", |m| m.as_str()).to_lowercase();
            if steps.iter().any(|s| s.eq_ignore_ascii_case(&step)) {
                Ok(step)
            } else {
                Err(MarkerProblem::UnknownStep(step))
            }
        }
        None if message.contains("<!-- STEP:") || message.contains("<!--STEP:") => {
            Err(MarkerProblem::NotAtEnd)
        }
        None => Err(MarkerProblem::Missing),
    }
}

/// The exact format to use, e.g. `<!-- STEP: what|why|constraints|generate|finalize|done -->`.
pub fn format_hint(steps: &[String]) -> String {
    format!("<!-- STEP: {} -->", steps.join("|"))
}

/// What the Stop gate tells the model about `problem`: what is wrong and the
/// exact line to end the answer with.
pub fn feedback(problem: &MarkerProblem, steps: &[String]) -> String {
    let what = match problem {
        MarkerProblem::Missing => "Your last answer does not end with a STEP marker.".to_owned(),
        MarkerProblem::NotAtEnd => {
            "Your last answer has a STEP marker, but not at its very end.".to_owned()
        }
        MarkerProblem::UnknownStep(step) => {
            format!("Your last answer ends with the unknown step `{step}`.")
        }
    };
    format!(
        "{what} Repeat your answer (unchanged) and end it with exactly one line in this format, choosing one step:\n{}\nExample: <!-- STEP: {} -->",
        format_hint(steps),
        steps.first().map_or("done", String::as_str)
    )
}

/// The seed's heuristic step for an answer that never got a marker, and why
/// it was chosen, for the decision log.
fn heuristic(message: &str) -> (&'static str, &'static str) {
    let tail: String = {
        let chars: Vec<char> = message.chars().collect();
        chars[chars.len().saturating_sub(200)..].iter().collect()
    };
    if message.contains("ADR-") && message.to_lowercase().contains("erstellt") {
        (
            "generate",
            "the answer names an ADR- and says it was erstellt",
        )
    } else if tail.contains('?') {
        ("what", "the answer's last 200 characters ask a question")
    } else {
        ("done", "neither an ADR creation nor a question")
    }
}

/// Whether the marker is required of a session working in `session` (inside
/// the repository at `root`): `enabled`, and `paths` empty (every session) or
/// one of its globs matching the session folder or a folder above it inside the
/// repository (so `projects/sessions/*` still holds after the model ran `cd output`).
/// A session folder outside the repository matches no glob.
pub fn required(settings: &StepMarkerSettings, root: &Path, session: &Path) -> bool {
    if !settings.enabled {
        return false;
    }
    if settings.paths.is_empty() {
        return true;
    }
    let Some(rel) = crate::paths::relative_to_real(root, session) else {
        return false;
    };
    // Syntax was checked when the settings were loaded. Matched by git's wildmatch, as
    // the ADR globs are (`config::settings::Globs`): building a globset was 0.17 M
    // instructions of every ADR check in a hook call, for a handful of folder names.
    let globs: Vec<_> = settings
        .paths
        .iter()
        .filter_map(|pattern| {
            crate::config::settings::build_globs(std::slice::from_ref(pattern)).ok()
        })
        .collect();
    let mut folder = rel.as_str();
    loop {
        if globs.iter().any(|g| g.is_match(folder)) {
            return true;
        }
        match folder.rfind('/') {
            Some(at) => folder = &folder[..at],
            None if folder.is_empty() => return false,
            None => folder = "",
        }
    }
}

/// [`required`] for a session with these `folders` (its working directory, the
/// folder it was started in): required when either is in scope, so a `cd` out of
/// the session folder does not drop the marker.
pub fn required_in(settings: &StepMarkerSettings, root: &Path, folders: &[PathBuf]) -> bool {
    folders
        .iter()
        .any(|folder| required(settings, root, folder))
}

/// The largest answer file whose ending is read.
const ANSWER_LIMIT: u64 = 4 * 1024 * 1024;

/// The repository-relative names the answer file `file` (relative to the
/// session's working directory) has in each of the session's `folders`.
pub fn answer_names(root: &Path, folders: &[PathBuf], file: &str) -> Vec<String> {
    let crate::rules::file_refs::PathCheck::Relative(rel) = crate::rules::file_refs::classify(file)
    else {
        return Vec::new();
    };
    folders
        .iter()
        .filter_map(|folder| crate::paths::relative_to_real(root, &folder.join(&rel)))
        .collect()
}

/// The marker at the end of the answer file, when the session wrote it (Write
/// or Edit) in the turn `prompt_id` belongs to: `Ok(step)`, or what is wrong
/// with its ending. `None` when it was not written this turn, is gone, leads
/// out of the project or cannot be read.
pub fn answer_file_marker(
    root: &Path,
    written: Option<&super::state::AnswerWritten>,
    prompt_id: Option<&str>,
    steps: &[String],
) -> Option<(String, Result<String, MarkerProblem>)> {
    let written = written?;
    if prompt_id? != written.prompt_id {
        return None;
    }
    let path = root.join(&written.file);
    if !crate::fs::confine::inside(root, &path) {
        return None;
    }
    let bytes =
        crate::fs::read::regular(&path, ANSWER_LIMIT, crate::fs::read::Links::Follow).ok()?;
    let text = String::from_utf8_lossy(&bytes);
    Some((written.file.clone(), check(&text, steps)))
}

/// The fallback once the marker's budget is spent: append the seed's heuristic
/// marker to `fallback_file`, relative to the session's working directory, when
/// it exists inside the repository at `root`. `folders` are the session's working
/// directory (the event's `cwd`) and then its project folder: the model's `cd`
/// moves the first, so the file is looked for in each in turn. A file that
/// already ends with a valid marker keeps it: nothing is appended after the
/// model's own step. Returns the step the file now ends with (the heuristic's
/// when nothing could be written), and what was done and why, for the decision log.
pub fn fallback(
    root: &Path,
    folders: &[PathBuf],
    settings: &StepMarkerSettings,
    last: &str,
) -> (String, String) {
    let (step, why) = heuristic(last);
    let note = fallback_note(root, folders, settings, step, why);
    match note {
        Ok(note) => (step.to_owned(), note),
        Err((kept, note)) => (kept, note),
    }
}

/// [`fallback`]: `Err` with the step when the file already ended with one.
fn fallback_note(
    root: &Path,
    folders: &[PathBuf],
    settings: &StepMarkerSettings,
    step: &str,
    why: &str,
) -> Result<String, (String, String)> {
    let fallback_file = settings.fallback_file.as_str();
    let chosen = format!("heuristic step `{step}` ({why})");
    let crate::rules::file_refs::PathCheck::Relative(rel) =
        crate::rules::file_refs::classify(fallback_file)
    else {
        return Ok(format!(
            "{chosen}; fallback file `{fallback_file}` is not a relative path; marker not written"
        ));
    };
    let Some(first) = folders.first() else {
        return Ok(format!("{chosen}; no session folder; marker not written"));
    };
    let path = folders
        .iter()
        .map(|folder| folder.join(&rel))
        .find(|path| path.is_file())
        .unwrap_or_else(|| first.join(&rel));
    let shown =
        crate::paths::relative_to_real(root, &path).unwrap_or_else(|| path.display().to_string());
    if !path.is_file() {
        return Ok(format!(
            "{chosen}; no {shown}; marker <!-- STEP: {step} --> not written"
        ));
    }
    if !crate::fs::confine::inside(root, &path) {
        return Ok(format!(
            "{chosen}; {shown} leads outside the project; marker <!-- STEP: {step} --> not written"
        ));
    }
    if let Ok(bytes) = crate::fs::read::regular(&path, ANSWER_LIMIT, crate::fs::read::Links::Follow)
        && let Ok(kept) = check(&String::from_utf8_lossy(&bytes), &settings.steps)
    {
        return Err((
            kept.clone(),
            format!("{shown} already ends with <!-- STEP: {kept} -->; nothing appended"),
        ));
    }
    let marker = format!("\n\n<!-- STEP: {step} -->\n");
    match crate::fs::append::append(root, &path, marker.as_bytes(), Missing::Fail) {
        Ok(()) => Ok(format!(
            "{chosen}; appended <!-- STEP: {step} --> to {shown}"
        )),
        Err(e) => Ok(format!("{chosen}; cannot append to {shown}: {e}")),
    }
}

/// The largest status file helix-gate reads and rewrites.
const STATUS_LIMIT: u64 = 1024 * 1024;

/// What became of the status file at one Stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// `step` and `updated_at` were written; the note is for the decision log.
    Written(String),
    /// Left alone, and the person should know why (not a JSON object, not a
    /// regular file, leads out of the project, cannot be written): never a block.
    Left(String),
}

/// Set `step` and `updated_at` (RFC 3339) in the JSON object in `status_file`
/// (`step_marker.status_file`, relative to the session's working directory and
/// looked for in each of `folders` like the fallback file), keeping every other
/// key and their order, atomically and confined to the project at `root`. Only an
/// existing file is written (HELIX creates it); `None` when there is none.
pub fn write_status(
    root: &Path,
    folders: &[PathBuf],
    status_file: &str,
    step: &str,
) -> Option<Status> {
    let crate::rules::file_refs::PathCheck::Relative(rel) =
        crate::rules::file_refs::classify(status_file)
    else {
        return Some(Status::Left(format!(
            "status file `{status_file}` is not a relative path; step `{step}` not written"
        )));
    };
    // `exists` follows links: a dangling one is no file; `symlink_metadata` sees it.
    let path = folders
        .iter()
        .map(|folder| folder.join(&rel))
        .find(|path| path.symlink_metadata().is_ok())?;
    let shown =
        crate::paths::relative_to_real(root, &path).unwrap_or_else(|| path.display().to_string());
    let left = |why: String| {
        Some(Status::Left(format!(
            "status file {shown} {why}; left alone, step `{step}` not written"
        )))
    };
    if !crate::fs::confine::inside(root, &path) {
        return left("leads outside the project".to_owned());
    }
    let bytes = match crate::fs::read::regular(&path, STATUS_LIMIT, crate::fs::read::Links::Follow)
    {
        Ok(bytes) => bytes,
        Err(e) => match crate::fs::read::not_regular(&e) {
            Some(kind) => return left(format!("is {kind}, not a regular file")),
            None => return left(format!("cannot be read ({e})")),
        },
    };
    let mut value = match serde_json::from_slice::<serde_json::Value>(&bytes) {
        Ok(serde_json::Value::Object(map)) => map,
        Ok(_) => return left("is not a JSON object".to_owned()),
        Err(e) => return left(format!("is not valid JSON ({e})")),
    };
    let now = crate::clock::now_rfc3339();
    value.insert("step".to_owned(), serde_json::Value::from(step));
    value.insert(
        "updated_at".to_owned(),
        serde_json::Value::from(now.as_str()),
    );
    let mut text = serde_json::to_string_pretty(&serde_json::Value::Object(value))
        .unwrap_or_else(|_| "{}".to_owned());
    text.push('\n');
    match crate::fs::atomic::write(root, &path, text.as_bytes()) {
        Ok(()) => Some(Status::Written(format!(
            "status file {shown}: step `{step}`, updated_at {now}"
        ))),
        Err(e) => left(format!("cannot be written ({e})")),
    }
}

/// [`write_status`] when `step_marker.status_file` is set: a write is logged,
/// a file left alone is logged and noted on stderr (never a block).
pub(super) fn record_status(
    root: &Path,
    folders: &[PathBuf],
    settings: &StepMarkerSettings,
    step: &str,
    decisions: &mut Vec<crate::decision_log::Decision>,
    notes: &mut Vec<String>,
) {
    let Some(file) = settings.status_file.as_deref().filter(|f| !f.is_empty()) else {
        return;
    };
    let note = match write_status(root, folders, file, step) {
        None => return,
        Some(Status::Written(note)) => note,
        Some(Status::Left(note)) => {
            notes.push(note.clone());
            note
        }
    };
    decisions.push(crate::decision_log::Decision {
        target: super::STEP_TARGET.into(),
        verdict: crate::decision_log::Verdict::Pass,
        note: Some(note),
        ..crate::decision_log::Decision::default()
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn steps() -> Vec<String> {
        ["what", "why", "constraints", "generate", "finalize", "done"]
            .map(String::from)
            .to_vec()
    }

    #[test]
    fn marker_must_end_the_answer() {
        assert_eq!(
            check("Answer.\n\n<!-- STEP: what -->\n", &steps()),
            Ok("what".into())
        );
        assert_eq!(check("x <!--STEP:done-->", &steps()), Ok("done".into()));
        assert_eq!(
            check("<!-- STEP: what -->\nMore text after it.", &steps()),
            Err(MarkerProblem::NotAtEnd)
        );
        assert_eq!(check("No marker.", &steps()), Err(MarkerProblem::Missing));
        assert_eq!(
            check("x\n<!-- STEP: discussing -->", &steps()),
            Err(MarkerProblem::UnknownStep("discussing".into()))
        );
    }

    fn marker(paths: &[&str]) -> StepMarkerSettings {
        StepMarkerSettings {
            enabled: true,
            steps: steps(),
            fallback_file: "output/response.md".into(),
            paths: paths.iter().map(|p| (*p).to_owned()).collect(),
            status_file: None,
        }
    }

    #[test]
    fn paths_limit_the_marker_to_matching_session_folders() {
        let top = Path::new(if cfg!(windows) { r"C:\" } else { "/" });
        let root: &Path = &top.join("repo");
        let s1: &Path = &root.join("projects/sessions/s1");
        // No paths: every session, the root included.
        assert!(required(&marker(&[]), root, root));
        assert!(required(&marker(&[]), root, s1));
        let scoped = marker(&["projects/sessions/**"]);
        assert!(required(&scoped, root, s1));
        assert!(required(&scoped, root, &s1.join("output")));
        assert!(!required(&scoped, root, root));
        assert!(!required(&scoped, root, &root.join("src")));
        assert!(!required(&scoped, root, &top.join("elsewhere/s1")));
        // One level only, yet a `cd` below the session folder keeps it.
        let direct = marker(&["projects/sessions/*"]);
        assert!(required(&direct, root, s1));
        assert!(required(&direct, root, &s1.join("output")));
        assert!(!required(&direct, root, &root.join("projects")));
        let off = StepMarkerSettings {
            enabled: false,
            ..scoped.clone()
        };
        assert!(!required(&off, root, s1));
        // A `cd` from the session folder to the root keeps the marker: the
        // folder the session was started in still matches.
        let folders = [root.to_path_buf(), s1.to_path_buf()];
        assert!(required_in(&scoped, root, &folders));
        assert!(!required_in(&scoped, root, &folders[..1]));
    }

    #[test]
    fn the_fallback_file_is_found_in_the_session_folder_and_the_reason_logged() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let session = root.join("projects/sessions/s1");
        std::fs::create_dir_all(session.join("output")).unwrap();
        // Not at the root: there it would be the wrong file.
        let (_, note) = fallback(
            &root,
            std::slice::from_ref(&root),
            &marker(&[]),
            "Was meinst du?",
        );
        assert!(note.contains("no output/response.md"), "{note}");
        std::fs::write(session.join("output/response.md"), "Antwort").unwrap();
        // After the model's `cd output` the working directory is one level down.
        let folders = [session.join("output"), session.clone()];
        let (step, note) = fallback(&root, &folders, &marker(&[]), "Was meinst du?");
        assert_eq!(step, "what");
        assert_eq!(
            note,
            "heuristic step `what` (the answer's last 200 characters ask a question); appended <!-- STEP: what --> to projects/sessions/s1/output/response.md"
        );
        assert_eq!(
            std::fs::read_to_string(session.join("output/response.md")).unwrap(),
            "Antwort\n\n<!-- STEP: what -->\n"
        );
        // Ending with a valid marker now, the file keeps it: the fallback adds
        // nothing after the model's own step, and that step is the one recorded.
        let (step, note) = fallback(&root, &folders, &marker(&[]), "Fertig.");
        assert_eq!(step, "what");
        assert!(
            note.contains("already ends with <!-- STEP: what -->"),
            "{note}"
        );
        assert_eq!(
            std::fs::read_to_string(session.join("output/response.md")).unwrap(),
            "Antwort\n\n<!-- STEP: what -->\n"
        );
    }

    #[test]
    fn heuristic_matches_the_seed() {
        assert_eq!(heuristic("ADR-038 wurde erstellt.").0, "generate");
        assert_eq!(heuristic("Was meinst du?").0, "what");
        assert_eq!(heuristic("Fertig.").0, "done");
    }
}
