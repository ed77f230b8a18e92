//! `helix-gate pre-commit`: validate exactly what is being committed.
//!
//! The content checked is the index git is about to turn into a commit, read through
//! [`crate::git`]: `$GIT_INDEX_FILE` included, because `git commit -a` and `git commit <paths>`
//! hand hooks a temporary index. ADR content is never read from the working tree, and nothing
//! is written or stashed, so no unstaged work can be lost.
//!
//! What is checked against what:
//! * reported: the ADRs the commit adds or changes (added, modified, renamed, copied entries
//!   matching the ADR globs, compared with `HEAD`; an unborn `HEAD` is the empty tree). An ADR
//!   staged as a symbolic link is checked by the staged file it leads to inside the index, as a
//!   checkout would show it, also when only that file (or a link on the way) changed; a link
//!   that leads to no file of the commit is refused ([`commit::STAGED_SYMLINK`]);
//! * `files.modify` / `files.create` existence: the paths of the commit-to-be (the index);
//! * duplicate `adr_id`s and unknown `depends_on` numbers: every ADR of the commit-to-be, of
//!   which only the front matter is parsed when the ADR is not staged (fast path for large
//!   repositories), through the engine's step across files.
//!
//! Settings and rules come from the work tree (`config/`), like for `validate`. Everything the
//! gate has to say is a [`Finding`]; the ids of its own findings are declared in
//! [`crate::rules::commit`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::adr::{self, Adr};
use crate::adr_dir::check as rule_check;
use crate::adr_dir::enforce::{self, Change, Moment};
use crate::adr_dir::overrides::{self, Override};
use crate::approval::ApprovalLookup;
use crate::config::AdrMatcher;
use crate::config::detect::{self, Detected};
use crate::diagnostic::{FileReport, Finding, Severity};
use crate::engine::{self, Checked, Engine};
use crate::git::{
    ChangeStatus, EntryKind, GitEnv, GitError, LinkError, Repo, StagedEntry, StagedIndex,
};
use crate::render::commit::shell_word;
use crate::rules::{Presence, RepoFiles, across, commit, input};

/// Why the commit could not be checked at all (exit 2, never shown as an ADR finding).
#[derive(Debug, thiserror::Error)]
pub enum PreCommitError {
    /// Discovery, index or object access failed, or the repository is bare.
    #[error(transparent)]
    Git(#[from] GitError),
    /// `config/helix-gate.yaml` or the rules file is unusable.
    #[error("cannot load the helix-gate configuration: {0:#}")]
    Config(anyhow::Error),
    /// The repository's `config/approvals.yaml` is unusable, so whether commits need an
    /// approval is unknown.
    #[error("cannot load the approval settings: {0:#}")]
    Approvals(anyhow::Error),
}

/// The result of checking one commit-to-be.
#[derive(Debug, Default)]
pub struct CommitCheck {
    /// One report per staged ADR the commit adds or changes, in index (path) order. A checked
    /// ADR has its findings (maybe none), plus [`commit::APPROVAL_REQUIRED`] when it has no
    /// errors but lacks the approval `commit.required_on_commit` asks for. An ADR that could
    /// not be checked says why: unresolved merge conflicts ([`commit::STAGED_CONFLICT`], an
    /// error; git refuses to commit them anyway), a symbolic link that leads to no file of the
    /// commit ([`commit::STAGED_SYMLINK`], an error) or a submodule entry
    /// ([`commit::STAGED_SKIPPED`], info). A symbolic link that leads to a staged file is
    /// checked, under its own path, with that file's content.
    pub reports: Vec<FileReport>,
    /// Findings about the commit as a whole, without a path of their own: committed ADRs left
    /// out of the checks across files ([`commit::COMMITTED_UNREADABLE`], info).
    pub notes: Vec<Finding>,
    /// A merge is being concluded (`MERGE_HEAD` exists): a state, not a finding.
    pub merge_in_progress: bool,
    /// The layout detected in a repository without configuration, when it is not the
    /// built-in one.
    pub detected: Option<Detected>,
    /// The findings of the rules of the ADRs that govern the staged files (not the ADRs
    /// themselves), one report per file: a binding ADR's `error` rule blocks, a proposed
    /// ADR's rules warn; errors of an overridden rule are notes.
    pub code: Vec<FileReport>,
    /// The persons' overrides this commit uses ([`overrides`]).
    pub overridden: Vec<Override>,
}

/// The result of checking named files of the work tree (`pre-commit FILE...`, as the
/// pre-commit framework passes them).
#[derive(Debug, Default)]
pub struct FilesCheck {
    /// One report per named file that is an ADR (or a phase plan).
    pub reports: Vec<FileReport>,
    /// Named ADRs that could not be read.
    pub read_errors: Vec<engine::ReadError>,
    /// Named files that are not ADRs by the configured globs, left alone.
    pub skipped: usize,
    /// As [`CommitCheck::detected`].
    pub detected: Option<Detected>,
    /// A repository without configuration where no known ADR folder was found. (A
    /// commit does not say it: one that stages no ADR passes in silence.)
    pub nothing_found: bool,
}

/// The engine for the work tree at `root`: its configuration, or without one the
/// layout detected there ([`detect`]), returned when it is not the built-in one; and
/// whether a repository without configuration showed no known ADR folder at all.
fn load_engine(root: &Path) -> Result<(Engine, Option<Detected>, bool), PreCommitError> {
    let mut nothing_found = false;
    if detect::unconfigured(root) {
        match detect::detect(root) {
            Some(found) if !found.is_default() => {
                let engine = found
                    .settings()
                    .map_err(anyhow::Error::from)
                    .and_then(|settings| Engine::with_settings(root, settings, None))
                    .map_err(PreCommitError::Config)?;
                return Ok((engine, Some(found), false));
            }
            Some(_) => {}
            None => nothing_found = true,
        }
    }
    let engine = Engine::load(root, None).map_err(PreCommitError::Config)?;
    Ok((engine, None, nothing_found))
}

/// Check the named files from the work tree of the repository found from `start`: the
/// ADRs (and phase plans) among them, with what a commit checks: the per-file rules, the
/// rules across files against every ADR of the work tree (the others take part
/// unreported: a named ADR that reuses another's `adr_id` is an error, a `depends_on`
/// on an unnamed ADR is known), and `commit.required_on_commit`'s approval of the
/// content. Names are relative to the current directory, as git and the pre-commit
/// framework give them.
pub fn check_files(
    start: &Path,
    git_env: &GitEnv,
    files: &[PathBuf],
) -> Result<FilesCheck, PreCommitError> {
    let repo = Repo::discover_with(start, git_env)?;
    let root = repo.work_tree().ok_or(GitError::Bare)?.to_path_buf();
    let (engine, detected, nothing_found) = load_engine(&root)?;
    let mut chosen = Vec::new();
    let mut skipped = 0;
    for file in files {
        let path = start.join(file);
        let is_adr = crate::paths::relative_to(&root, &path)
            .is_some_and(|rel| engine.matcher().is_adr(&rel));
        if is_adr || crate::config::plan::is_plan(&path) {
            chosen.push(path);
        } else {
            skipped += 1;
        }
    }
    // The repository's other ADRs, front matter only, for the rules across files (by
    // repository path: a named ADR must never meet itself as a duplicate).
    let named: BTreeSet<String> = chosen
        .iter()
        .filter_map(|path| crate::paths::relative_to(&root, path))
        .collect();
    let others: Vec<(String, Adr)> = engine
        .repository_adrs()
        .unwrap_or_default()
        .into_iter()
        .filter_map(|path| {
            let rel = crate::paths::relative_to(&root, &path)?;
            if named.contains(&rel) {
                return None;
            }
            let bytes = crate::fs::read::read_limited(&path, engine.settings.adr.max_file_size);
            Some((rel, front_matter_only(&bytes.ok()?)))
        })
        .collect();
    let bystanders: Vec<across::Member<'_>> = others
        .iter()
        .map(|(path, adr)| across::Member {
            path,
            adr,
            file_number: adr::number_in_file_name(Path::new(path)),
        })
        .collect();
    let (mut reports, read_errors) = engine.check_files_among(&chosen, &bystanders);
    if approval_required(&root)? {
        let lookup = ApprovalLookup::load(&root, crate::approval::ADR_TYPE);
        for report in reports.iter_mut().filter(|r| !r.has_errors()) {
            let path = root.join(&report.path);
            if !engine.matcher().is_adr(&report.path) {
                continue; // a phase plan
            }
            let approved = lookup.as_ref().is_some_and(|l| {
                crate::fs::read::read_limited(&path, engine.settings.adr.max_file_size)
                    .is_ok_and(|bytes| l.is_approved(&engine, &path, &bytes))
            });
            if !approved {
                report.findings.push(approval_missing(&report.path));
                engine.retain_selected(&path, &mut report.findings);
                report.sort();
            }
        }
    }
    Ok(FilesCheck {
        reports,
        read_errors,
        skipped,
        detected,
        nothing_found,
    })
}

impl CommitCheck {
    /// Whether the commit must be refused: any error finding.
    pub fn blocks(&self) -> bool {
        self.reports.iter().any(FileReport::has_errors)
            || self.code.iter().any(FileReport::has_errors)
            || self.notes.iter().any(|f| f.severity == Severity::Error)
    }

    /// How many of the reports are staged ADRs whose content was checked.
    pub fn checked(&self) -> usize {
        self.reports
            .iter()
            .filter(|r| commit::was_checked(r))
            .count()
    }
}

/// Check the commit-to-be of the repository found from `start` with `git_env`.
pub fn check_commit(start: &Path, git_env: &GitEnv) -> Result<CommitCheck, PreCommitError> {
    let repo = Repo::discover_with(start, git_env)?;
    let root = repo.work_tree().ok_or(GitError::Bare)?.to_path_buf();
    let staged = repo.staged_index()?;
    let (engine, detected, _) = load_engine(&root)?;
    let mut outcome = CommitCheck {
        merge_in_progress: repo.merge_in_progress(),
        detected,
        ..CommitCheck::default()
    };
    let (to_check, mut reports) = select_staged_adrs(&staged, engine.matcher())?;
    if !to_check.is_empty() {
        // Read only now: a commit without staged ADRs never depends on the approval settings.
        let approvals = if approval_required(&root)? {
            Approvals::Required(
                ApprovalLookup::load(&root, crate::approval::ADR_TYPE).map(Box::new),
            )
        } else {
            Approvals::NotRequired
        };
        let gate = Gate {
            engine: &engine,
            staged: &staged,
            root: &root,
            limit: engine.settings.adr.max_file_size,
            approvals,
        };
        let checked = gate.check(&to_check, repo.common_dir())?;
        outcome.notes = checked.notes;
        reports.extend(checked.reports);
        check_transitions(&repo, &staged, &to_check, &engine, &mut reports);
    }
    reports.extend(check_staged_plans(&staged, &engine, &root)?);
    reports.extend(check_index_drift(&staged, &engine, &root));
    for report in &mut reports {
        engine.retain_selected(&root.join(&report.path), &mut report.findings);
    }
    // Index order: the checked ADRs already are in it; the others join them by path.
    reports.sort_by(|a, b| a.path.cmp(&b.path));
    // A person's override of a lifecycle rule (a typo in an accepted ADR) counts for
    // one commit, as for a code rule.
    let mut used = Vec::new();
    let lifecycle = [
        crate::rules::lifecycle::REWRITTEN.id,
        crate::rules::lifecycle::TRANSITION.id,
    ];
    if reports
        .iter()
        .flat_map(|r| &r.findings)
        .any(|f| lifecycle.contains(&f.rule.as_str()))
    {
        let waiting = overrides::pending(&root);
        for report in &mut reports {
            let findings = std::mem::take(&mut report.findings);
            let (findings, mut taken) = apply_overrides(findings, &waiting);
            report.findings = findings;
            used.retain(|o| !taken.contains(o));
            used.append(&mut taken);
        }
    }
    outcome.reports = reports;
    let findings = check_code(&staged, &engine)?;
    if !findings.is_empty() || !used.is_empty() {
        let (findings, mut taken) = apply_overrides(findings, &overrides::pending(&root));
        outcome.code = rule_check::reports(findings);
        used.retain(|o| !taken.contains(o));
        used.append(&mut taken);
        outcome.overridden = used;
        record_code(&root, &outcome);
    }
    Ok(outcome)
}

/// Each staged ADR against its version in `HEAD` ([`crate::rules::lifecycle`]):
/// an illegal status change, a new ADR that does not start as `lifecycle.initial`
/// says (not in a repository's first commit: history starts at adoption), and an
/// accepted ADR whose text was rewritten. A blob that cannot be read was reported
/// by the checks.
fn check_transitions(
    repo: &Repo,
    staged: &StagedIndex,
    entries: &[StagedEntry],
    engine: &Engine,
    reports: &mut [FileReport],
) {
    let limit = engine.settings.adr.max_file_size;
    let born = repo.has_head();
    for entry in entries {
        let Some(report) = reports.iter_mut().find(|r| r.path == entry.path) else {
            continue;
        };
        let Ok(now) = staged.read_blob(entry, limit) else {
            continue;
        };
        let content = now;
        let now = Adr::parse(&String::from_utf8_lossy(&content));
        let before = match entry.status {
            ChangeStatus::Added if !born => continue,
            ChangeStatus::Added => None,
            _ => match repo.head_file(&entry.path, limit) {
                Ok(Some(bytes)) => Some(Adr::parse(&String::from_utf8_lossy(&bytes))),
                _ => continue,
            },
        };
        let lifecycle = &engine.settings.lifecycle;
        let found = crate::rules::lifecycle::transition(before.as_ref(), &now, lifecycle)
            .into_iter()
            .chain(
                before
                    .as_ref()
                    .and_then(|b| crate::rules::lifecycle::rewritten(b, &now)),
            )
            .chain(unrecorded_acceptance(
                &engine.root,
                &entry.path,
                before.as_ref(),
                (&now, &content),
                lifecycle,
            ));
        let before_count = report.findings.len();
        report.findings.extend(found);
        if report.findings.len() > before_count {
            report.sort();
        }
    }
}

/// An ADR of the commit-to-be as the catalog reads it: its staged content parsed
/// (`parse`, and when it is a regular file), its path in the work tree.
fn staged_entry(
    staged: &StagedIndex,
    entry: &StagedEntry,
    root: &Path,
    dir_rel: &str,
    limit: u64,
    parse: bool,
) -> crate::adr::catalog::Entry {
    let path = root.join(&entry.path);
    let adr = (parse && matches!(entry.kind, EntryKind::Regular | EntryKind::Executable))
        .then(|| {
            staged
                .read_blob(entry, limit)
                .ok()
                .and_then(|bytes| input::decode(bytes, limit).ok())
                .map(|text| Adr::parse(&text))
        })
        .flatten();
    crate::adr::catalog::Entry {
        link: entry.path[dir_rel.len() + 1..].to_owned(),
        file_number: adr::number_in_file_name(&path),
        adr,
        path,
    }
}

/// The governing index of the commit-to-be: its ADRs as staged, not as the work
/// tree has them, so that an accepted ADR's rule weakened in the work tree and
/// left unstaged does not decide what the commit may do. None when no staged ADR
/// of the ADR directory has rules that bind or warn.
fn staged_ruling_index(
    staged: &StagedIndex,
    engine: &Engine,
) -> Option<crate::adr_dir::governs::Index> {
    let dir_rel = engine
        .settings
        .adr
        .directory
        .trim_start_matches("./")
        .trim_end_matches('/');
    let prefix = format!("{dir_rel}/");
    let limit = engine.settings.adr.max_file_size;
    let root = engine.root.as_path();
    let in_dir = |path: &str| {
        path.strip_prefix(&prefix).is_some_and(|rest| {
            // The folders the catalog walks: not hidden, not build output.
            let mut folders = rest.split('/').rev().skip(1);
            !folders.any(|f| f.starts_with('.') || engine::SKIPPED_DIRS.contains(&f))
        }) && engine.matcher().is_adr(path)
    };
    let changed = staged.changed();
    let adrs: Vec<&StagedEntry> = changed
        .iter()
        .chain(staged.unchanged())
        .filter(|e| in_dir(&e.path) && matches!(e.kind, EntryKind::Regular | EntryKind::Executable))
        .collect();
    // Only the ADRs that may hold rules are parsed (one blob read each).
    let mut entries = Vec::new();
    for entry in adrs {
        let Ok(bytes) = staged.read_blob(entry, limit) else {
            continue;
        };
        if !rule_check::mentions_rules(&bytes) {
            continue;
        }
        let mut parsed = staged_entry(staged, entry, root, dir_rel, limit, false);
        parsed.adr = input::decode(bytes, limit)
            .ok()
            .map(|text| Adr::parse(&text));
        entries.push(parsed);
    }
    if entries.is_empty() {
        return None;
    }
    let catalog = crate::adr::catalog::Catalog {
        dir: root.join(dir_rel),
        entries,
        width: engine.settings.adr.number_width,
        reserved: Vec::new(),
    };
    let index = crate::adr_dir::governs::Index::from_catalog(root, &catalog);
    let rules = index.ruling().next().is_some();
    rules.then_some(index)
}

/// [`crate::adr_dir::acceptance::unrecorded`] with this user's key.
pub fn unrecorded_acceptance(
    root: &Path,
    rel: &str,
    before: Option<&Adr>,
    now: (&Adr, &[u8]),
    lifecycle: &crate::config::settings::LifecycleSettings,
) -> Option<Finding> {
    let before = before?;
    crate::rules::lifecycle::into_accepted(Some(before), now.0, lifecycle)?;
    let key = crate::approval::signing::load().ok().flatten();
    let verify = |fields: &[&[u8]], tag: &[u8]| key.as_ref().is_some_and(|k| k.verify(fields, tag));
    crate::adr_dir::acceptance::unrecorded(root, rel, before, now, lifecycle, &verify)
}

/// The rules of the ADRs that govern the staged files, on the staged diff: every staged
/// file that is not an ADR, `HEAD`'s content before, the staged content after (deleted
/// files too, for `require_co_change`). Binary files and files above `adr.max_file_size`
/// are left out. Nothing is read unless an accepted or proposed ADR has rules.
fn check_code(staged: &StagedIndex, engine: &Engine) -> Result<Vec<Finding>, PreCommitError> {
    let code_changed = staged
        .changed()
        .iter()
        .map(|e| e.path.as_str())
        .chain(staged.deleted().iter().map(String::as_str))
        .any(|p| !engine.matcher().is_adr(p));
    if !code_changed {
        return Ok(Vec::new());
    }
    let Some(index) = staged_ruling_index(staged, engine) else {
        return Ok(Vec::new());
    };
    let limit = engine.settings.adr.max_file_size;
    let mut changes = Vec::new();
    // The index holds the ADRs with rules only: the others are ADRs all the same.
    let is_adr = |path: &str| index.is_adr(path) || engine.matcher().is_adr(path);
    for entry in staged.changed() {
        if is_adr(&entry.path) || !matches!(entry.kind, EntryKind::Regular | EntryKind::Executable)
        {
            continue;
        }
        let after = match staged.read_blob(&entry, limit) {
            Ok(bytes) => bytes,
            Err(GitError::BlobTooLarge { .. } | GitError::NotABlob { .. }) => continue,
            Err(e) => return Err(e.into()),
        };
        let Some(after) = rule_check::text(after) else {
            continue;
        };
        let head = (entry.status == ChangeStatus::Modified)
            .then(|| staged.read_head_blob(&entry.path, limit))
            .flatten();
        let before = match head {
            None => None,
            Some(Ok(bytes)) => rule_check::text(bytes),
            Some(Err(GitError::BlobTooLarge { .. } | GitError::NotABlob { .. })) => continue,
            Some(Err(e)) => return Err(e.into()),
        };
        changes.push(Change {
            path: entry.path,
            before,
            after: Some(after),
        });
    }
    for path in staged.deleted() {
        if is_adr(&path) {
            continue;
        }
        let before = staged
            .read_head_blob(&path, limit)
            .and_then(Result::ok)
            .and_then(rule_check::text);
        changes.push(Change {
            path,
            before,
            after: None,
        });
    }
    Ok(enforce::check(&index, &changes, Moment::Commit))
}

/// Turn the errors of each rule a person overrode into notes that say who and why;
/// returns the findings and the overrides used.
fn apply_overrides(findings: Vec<Finding>, waiting: &[Override]) -> (Vec<Finding>, Vec<Override>) {
    let mut used: Vec<Override> = Vec::new();
    let findings = findings
        .into_iter()
        .map(|mut f| {
            if f.severity != Severity::Error {
                return f;
            }
            let Some(o) = waiting.iter().find(|o| o.rule == f.rule) else {
                return f;
            };
            f.severity = Severity::Info;
            f.message = format!("{} (was: {})", o.note(), f.message);
            f.hint = None;
            if !used.contains(o) {
                used.push(o.clone());
            }
            f
        })
        .collect();
    (findings, used)
}

/// The decision log's record of the ADR rules at this commit: one decision per file
/// with findings (`block` with errors, else `warn`), one `override` per override used.
/// An override is used up only by a commit nothing else blocks. Failures to log or to
/// remove an override never change the outcome.
fn record_code(root: &Path, outcome: &CommitCheck) {
    use crate::decision_log::{self, Decision, Verdict};
    let time = crate::clock::now_rfc3339();
    let blocks = outcome.blocks();
    for report in &outcome.code {
        let rules: Vec<String> = report
            .findings
            .iter()
            .filter(|f| f.severity != Severity::Info)
            .map(|f| f.rule.clone())
            .collect();
        if rules.is_empty() {
            continue;
        }
        let verdict = if report.has_errors() {
            Verdict::Block
        } else {
            Verdict::Warn
        };
        let _ = decision_log::append(
            root,
            &Decision {
                time: time.clone(),
                event: "pre-commit".to_owned(),
                target: report.path.clone(),
                verdict,
                rules,
                ..Decision::default()
            },
        );
    }
    if blocks || outcome.overridden.is_empty() {
        return;
    }
    for o in &outcome.overridden {
        let target = outcome
            .code
            .iter()
            .find(|r| r.findings.iter().any(|f| f.rule == o.rule))
            .map(|r| r.path.clone())
            .unwrap_or_default();
        let _ = decision_log::append(
            root,
            &Decision {
                time: time.clone(),
                event: "pre-commit".to_owned(),
                target,
                verdict: Verdict::Override,
                rules: vec![o.rule.clone()],
                note: Some(o.note()),
                ..Decision::default()
            },
        );
    }
    let rules: Vec<&str> = outcome.overridden.iter().map(|o| o.rule.as_str()).collect();
    let _ = overrides::consume(root, &rules);
}

/// The phase plans (`phases.yaml`) the commit adds or changes, checked as the
/// hook and `validate` check them (ids unique, `depends_on` known, gate types
/// known, paths relative, no placeholders): a plan the model broke is stopped
/// at the commit as well as on save.
fn check_staged_plans(
    staged: &StagedIndex,
    engine: &Engine,
    root: &Path,
) -> Result<Vec<FileReport>, GitError> {
    let files = IndexFiles::new(staged, root);
    let mut reports = Vec::new();
    for entry in staged.changed() {
        let path = root.join(&entry.path);
        if !matches!(entry.kind, EntryKind::Regular | EntryKind::Executable)
            || !crate::config::plan::is_plan(&path)
            || engine.matcher().is_adr(&entry.path)
        {
            continue;
        }
        let bytes = staged.read_blob(&entry, engine.settings.adr.max_file_size)?;
        let mut report = engine.check_bytes(&path, bytes, &files).report;
        report.path.clone_from(&entry.path);
        reports.push(report);
    }
    Ok(reports)
}

/// INDEX.md drift that `finalize` or `index --write` would have prevented, both ways.
/// When the commit-to-be has an INDEX.md in the ADR directory:
///
/// * every ADR of that directory the commit adds or changes needs its row there, with
///   its number, title and status (the index rules, limited to those ADRs: rows of ADRs
///   the commit leaves alone are not this commit's business);
/// * when the commit changes INDEX.md or removes an ADR of the directory, every row must
///   name an ADR of the commit's tree (the index, not the work tree:
///   [`crate::rules::index::dangling_in_commit`]).
///
/// A repository without INDEX.md is not asked to keep one.
fn check_index_drift(staged: &StagedIndex, engine: &Engine, root: &Path) -> Vec<FileReport> {
    use crate::adr::catalog::{Catalog, Entry};
    use crate::adr::index_table::INDEX_FILE;
    let dir_rel = engine.settings.adr.directory.trim_end_matches('/');
    let index_rel = format!("{dir_rel}/{INDEX_FILE}");
    let changed = staged.changed();
    let index_changed = changed.iter().any(|e| e.path == index_rel);
    let Some(index) = changed
        .iter()
        .chain(staged.unchanged())
        .find(|e| e.path == index_rel)
        .cloned()
    else {
        return Vec::new();
    };
    let limit = engine.settings.adr.max_file_size;
    let dir = root.join(dir_rel);
    let in_dir = |path: &str| {
        path.strip_prefix(&format!("{dir_rel}/"))
            .is_some_and(|rest| !rest.contains('/'))
            && engine.matcher().is_adr(path)
    };
    let entry_of =
        |entry: &StagedEntry, parse: bool| staged_entry(staged, entry, root, dir_rel, limit, parse);
    let entries: Vec<Entry> = changed
        .iter()
        .filter(|e| in_dir(&e.path) && matches!(e.kind, EntryKind::Regular | EntryKind::Executable))
        .map(|e| entry_of(e, true))
        .collect();
    let adr_removed = staged.deleted().iter().any(|p| in_dir(p));
    if entries.is_empty() && !index_changed && !adr_removed {
        return Vec::new();
    }
    // An INDEX.md that cannot be read as text is `validate`'s and `doctor`'s
    // to report; here it only means there is nothing to compare.
    let Some(text) = staged
        .read_blob(&index, crate::fs::read::CONFIG_LIMIT)
        .ok()
        .and_then(|bytes| String::from_utf8(bytes).ok())
    else {
        return Vec::new();
    };
    let width = engine.settings.adr.number_width;
    let mut findings = Vec::new();
    if !entries.is_empty() {
        let catalog = Catalog {
            dir: dir.clone(),
            entries,
            width,
            reserved: Vec::new(),
        };
        // Rows of ADRs the commit does not touch resolve to nothing in this
        // catalog: their "dangling" findings are not this check's.
        findings.extend(
            crate::rules::index::check(Some(&text), &catalog)
                .into_iter()
                .filter(|f| f.rule != crate::rules::index::ROW_DANGLING.id)
                .map(|f| f.hint("run `helix-gate index --write` (or `helix-gate finalize`), then `git add` INDEX.md")),
        );
    }
    if index_changed || adr_removed {
        // Every ADR of the commit's tree (a link too: it is a file of the commit);
        // the front matter is read for rows that name an ADR by number only.
        let catalog = Catalog {
            dir: dir.clone(),
            entries: changed
                .iter()
                .chain(staged.unchanged())
                .filter(|e| in_dir(&e.path) && e.kind != EntryKind::Submodule)
                .map(|e| entry_of(e, true))
                .collect(),
            width,
            reserved: Vec::new(),
        };
        let in_work_tree = |link: &str| dir.join(link).is_file();
        findings.extend(crate::rules::index::dangling_in_commit(
            &text,
            &catalog,
            &in_work_tree,
        ));
    }
    if findings.is_empty() {
        return Vec::new();
    }
    vec![FileReport {
        path: index_rel,
        findings,
    }]
}

/// Step 1: the staged ADRs the commit adds or changes. Files are returned to be checked, and so
/// are symbolic links that lead to a file of the commit (as an entry with the link's path and
/// the file's blob); the rest (unresolved conflicts, links that lead nowhere in the commit,
/// submodules) get a report that says why they are not. `Err` when a changed link's blob
/// cannot be read.
fn select_staged_adrs(
    staged: &StagedIndex,
    matcher: &AdrMatcher,
) -> Result<(Vec<StagedEntry>, Vec<FileReport>), GitError> {
    let mut unchecked: Vec<FileReport> = staged
        .conflicted_paths()
        .iter()
        .filter(|p| matcher.is_adr(p))
        .map(|path| {
            let finding = commit::STAGED_CONFLICT
                .finding("unresolved merge conflicts in the index")
                .hint(format!("resolve them, then `git add {}`", shell_word(path)));
            FileReport {
                path: path.clone(),
                findings: vec![finding],
            }
        })
        .collect();
    let mut to_check = Vec::new();
    for entry in staged.changed() {
        if !matcher.is_adr(&entry.path) {
            continue;
        }
        match entry.kind {
            EntryKind::Regular | EntryKind::Executable => to_check.push(entry),
            EntryKind::Symlink => {
                let resolution = staged.resolve_link(&entry)?;
                follow_link(entry, resolution.target, &mut to_check, &mut unchecked);
            }
            EntryKind::Submodule => unchecked.push(FileReport {
                findings: vec![
                    commit::STAGED_SKIPPED.finding("not checked: a submodule entry, not a file"),
                ],
                path: entry.path,
            }),
        }
    }
    // A link the commit leaves as it is still shows other content when the commit changes
    // where it leads (its target file, a link on the way, a deleted target).
    for entry in staged.unchanged() {
        if entry.kind != EntryKind::Symlink || !matcher.is_adr(&entry.path) {
            continue;
        }
        // Unreadable: the link is already committed, so it must not block (as for a committed
        // ADR that cannot be read).
        let Ok(resolution) = staged.resolve_link(entry) else {
            continue;
        };
        if resolution.looked_up[1..].iter().any(|p| staged.touches(p)) {
            follow_link(
                entry.clone(),
                resolution.target,
                &mut to_check,
                &mut unchecked,
            );
        }
    }
    Ok((to_check, unchecked))
}

/// A staged ADR symbolic link `link` that leads to `target`: checked with the target's blob
/// under the link's path, or refused with why.
fn follow_link(
    link: StagedEntry,
    target: Result<&StagedEntry, LinkError>,
    to_check: &mut Vec<StagedEntry>,
    unchecked: &mut Vec<FileReport>,
) {
    match target {
        Ok(file) => to_check.push(StagedEntry {
            id: file.id,
            kind: file.kind,
            ..link
        }),
        Err(why) => {
            let finding = commit::STAGED_SYMLINK
                .finding(format!("a symbolic link that {why}"))
                .hint(format!(
                    "commit the ADR as a regular file (`git rm --cached {}`, put the file there, `git add` it), or point the link at an ADR file of the commit",
                    shell_word(&link.path)
                ));
            unchecked.push(FileReport {
                path: link.path,
                findings: vec![finding],
            });
        }
    }
}

/// What every further step reads.
struct Gate<'a> {
    engine: &'a Engine,
    staged: &'a StagedIndex,
    root: &'a Path,
    /// `adr.max_file_size`.
    limit: u64,
    /// `commit.required_on_commit`.
    approvals: Approvals,
}

/// The checked staged ADRs and what the gate has to say about the commit as a whole.
struct CheckedAdrs {
    reports: Vec<FileReport>,
    notes: Vec<Finding>,
}

/// The committed ADRs of the commit-to-be (unchanged by it), for the rules across files.
struct CommittedAdrs<'a> {
    /// Every one of them: their ids are kept in the cache.
    all: Vec<&'a StagedEntry>,
    /// Those whose id the cache knows.
    hits: Vec<&'a StagedEntry>,
    /// Those that have to be read and parsed (front matter only) now.
    misses: Vec<&'a StagedEntry>,
}

/// Step 3's result: the staged ADRs checked, the cache misses parsed.
struct Read<'a> {
    checked: Vec<(PathBuf, Checked)>,
    parsed: Vec<(&'a StagedEntry, Adr)>,
    /// Committed ADRs that could not be read at all.
    unreadable: usize,
}

impl<'a> Gate<'a> {
    /// Steps 2 to 6 for the staged ADRs `to_check`: per-file rules and approval, then the
    /// rules across files against every ADR of the commit-to-be, with the id cache kept in
    /// `common_dir`.
    fn check(
        &self,
        to_check: &'a [StagedEntry],
        common_dir: &Path,
    ) -> Result<CheckedAdrs, PreCommitError> {
        let mut cache = id_cache::IdCache::load(common_dir);
        let committed = self.committed_adrs(&cache);
        let Read {
            mut checked,
            parsed,
            unreadable,
        } = self.read_and_check(to_check, &committed.misses)?;
        for (entry, adr) in &parsed {
            cache.insert(entry.id, id_number(adr));
        }
        // Step 5: the engine's rules across files, the committed ADRs taking part unreported.
        let bystanders = self.bystanders(&checked, parsed, &committed.hits, &cache);
        let members: Vec<across::Member<'_>> = bystanders
            .iter()
            .map(|(entry, adr)| across::Member {
                path: &entry.path,
                adr,
                file_number: adr::number_in_file_name(Path::new(&entry.path)),
            })
            .collect();
        engine::check_across(&mut checked, &members);
        drop(members);
        update_cache(&mut cache, to_check, &checked, &committed.all);

        let mut notes = Vec::new();
        if unreadable > 0 {
            notes.push(commit::COMMITTED_UNREADABLE.finding(format!(
                "{unreadable} committed ADR(s) could not be read; they were left out of the duplicate adr_id check"
            )));
        }
        let reports = checked
            .into_iter()
            .map(|(path, c)| {
                let mut report = c.report;
                // The rules across files add findings after the per-file ones were chosen.
                self.engine.retain_selected(&path, &mut report.findings);
                report.sort();
                report
            })
            .collect();
        Ok(CheckedAdrs { reports, notes })
    }

    /// Step 2: the committed ADRs, split by whether the id cache knows them.
    fn committed_adrs(&self, cache: &id_cache::IdCache) -> CommittedAdrs<'a> {
        let all: Vec<&StagedEntry> = self
            .staged
            .unchanged()
            .iter()
            .filter(|e| matches!(e.kind, EntryKind::Regular | EntryKind::Executable))
            .filter(|e| self.engine.matcher().is_adr(&e.path))
            .collect();
        let (hits, misses) = all.iter().partition(|e| cache.contains(&e.id));
        CommittedAdrs { all, hits, misses }
    }

    /// Step 3: check the staged ADRs with the engine's per-file rules (file existence from
    /// the index) and look up their approval; parse the front matter of the committed ADRs the
    /// cache does not know. Blobs are read on this thread (a gix handle is neither `Send` nor
    /// `Sync`) while the workers already check the ones read before.
    fn read_and_check(
        &self,
        to_check: &'a [StagedEntry],
        misses: &[&'a StagedEntry],
    ) -> Result<Read<'a>, PreCommitError> {
        let worker = Worker {
            engine: self.engine,
            root: self.root,
            approvals: &self.approvals,
            files: IndexFiles::new(self.staged, self.root),
        };
        let blobs = to_check
            .iter()
            .map(|entry| Blob::Staged(entry, self.staged.read_blob(entry, self.limit)))
            .chain(
                misses
                    .iter()
                    .map(|entry| Blob::Committed(entry, self.staged.read_blob(entry, self.limit))),
            );
        let count = to_check.len() + misses.len();
        let done = crate::engine::parallel_map(blobs, crate::engine::workers_for(count), |blob| {
            worker.check_blob(blob)
        });
        let mut read = Read {
            checked: Vec::with_capacity(to_check.len()),
            parsed: Vec::with_capacity(misses.len()),
            unreadable: 0,
        };
        for result in done {
            match result {
                Done::Checked(path, checked) => read.checked.push((path, checked)),
                Done::Failed(err) => return Err(err.into()),
                Done::Committed(entry, adr) => read.parsed.push((entry, adr)),
                Done::Skipped => {}
                Done::Unreadable => read.unreadable += 1,
            }
        }
        Ok(read)
    }

    /// Step 4: the committed ADRs that take part in the rules across files. Only those that
    /// share a number with a staged ADR's id, `depends_on`, `supersedes` or `superseded_by`
    /// can change a staged ADR's findings (a duplicate, a dependency that exists, the other
    /// side of a supersession); the findings of the others are not
    /// reported, so they need not take part. Cache hits among them are read now.
    fn bystanders(
        &self,
        checked: &[(PathBuf, Checked)],
        parsed: Vec<(&'a StagedEntry, Adr)>,
        hits: &[&'a StagedEntry],
        cache: &id_cache::IdCache,
    ) -> Vec<(&'a StagedEntry, Adr)> {
        let mut numbers = BTreeSet::new();
        for adr in checked.iter().filter_map(|(_, c)| c.adr.as_ref()) {
            numbers.extend(id_number(adr));
            if let Some(fm) = adr.front_matter() {
                numbers.extend(fm.depends_on.iter().filter_map(|d| adr::number_in_id(d)));
            }
            // The ADRs it replaces or is replaced by: both sides of a supersession.
            numbers.extend(adr::succession::predecessors(adr));
            numbers.extend(adr::succession::successors(adr));
        }
        let relevant = |entry: &StagedEntry, id: Option<u32>| {
            id.is_some_and(|n| numbers.contains(&n))
                || adr::number_in_file_name(Path::new(&entry.path))
                    .is_some_and(|n| numbers.contains(&n))
        };
        let mut out: Vec<(&StagedEntry, Adr)> = parsed
            .into_iter()
            .filter(|(entry, adr)| relevant(entry, id_number(adr)))
            .collect();
        for entry in hits {
            if relevant(entry, cache.cached(&entry.id).flatten())
                && let Ok(bytes) = self.staged.read_blob(entry, self.limit)
            {
                out.push((entry, front_matter_only(&bytes)));
            }
        }
        out
    }
}

/// Whether staged ADRs need an approved review (`commit.required_on_commit`),
/// with the lookup loaded once for all of them (None: the approval settings or
/// instructions cannot be read, so nothing counts as approved).
enum Approvals {
    NotRequired,
    Required(Option<Box<ApprovalLookup>>),
}

/// What the workers of step 3 share: nothing of the index handle, which may not leave the
/// thread that reads the blobs.
struct Worker<'e> {
    engine: &'e Engine,
    root: &'e Path,
    approvals: &'e Approvals,
    files: IndexFiles,
}

impl Worker<'_> {
    /// One blob of step 3, on a worker thread.
    fn check_blob<'a>(&self, blob: Blob<'a>) -> Done<'a> {
        match blob {
            Blob::Staged(entry, Ok(bytes)) => {
                let path = self.root.join(&entry.path);
                let bytes = smudged(&path, bytes, self.engine.settings.adr.max_file_size);
                // Asked before the engine takes the bytes: an approval is for exact bytes.
                let approved = match self.approvals {
                    Approvals::NotRequired => true,
                    Approvals::Required(lookup) => lookup
                        .as_ref()
                        .is_some_and(|l| l.is_approved(self.engine, &path, &bytes)),
                };
                let mut checked = self.engine.check_bytes(&path, bytes, &self.files);
                // An ADR with errors is reported for those only: no review is asked for yet.
                // (Errors across files come later and do not change this.)
                if !approved && !checked.report.has_errors() {
                    let finding = approval_missing(&checked.report.path);
                    checked.report.findings.push(finding);
                }
                Done::Checked(path, checked)
            }
            Blob::Staged(entry, Err(GitError::BlobTooLarge { size, limit, .. })) => {
                let report = FileReport {
                    path: entry.path.clone(),
                    findings: vec![too_large(size, limit)],
                };
                let checked = Checked { report, adr: None };
                Done::Checked(self.root.join(&entry.path), checked)
            }
            Blob::Staged(_, Err(err)) => Done::Failed(err),
            Blob::Committed(entry, Ok(bytes)) => Done::Committed(entry, front_matter_only(&bytes)),
            // Too large: `validate` reports it; without a parse it has no id to compare.
            Blob::Committed(_, Err(GitError::BlobTooLarge { .. })) => Done::Skipped,
            // e.g. a partial clone without the blob: already committed, so it must not block.
            Blob::Committed(_, Err(_)) => Done::Unreadable,
        }
    }
}

/// Step 6: remember the ids of the staged ADRs too, and keep exactly the ADR blobs of this
/// commit in the cache.
fn update_cache(
    cache: &mut id_cache::IdCache,
    to_check: &[StagedEntry],
    checked: &[(PathBuf, Checked)],
    committed: &[&StagedEntry],
) {
    for (entry, (_, c)) in to_check.iter().zip(checked) {
        if let Some(adr) = &c.adr {
            cache.insert(entry.id, id_number(adr));
        }
    }
    let keep: Vec<gix::ObjectId> = committed
        .iter()
        .map(|e| e.id)
        .chain(to_check.iter().map(|e| e.id))
        .collect();
    cache.save(&keep);
}

/// The finding for a staged ADR without the approved review `commit.required_on_commit` asks
/// for.
fn approval_missing(path: &str) -> Finding {
    commit::APPROVAL_REQUIRED
        .finding(format!(
            "no approved review of the staged content (commit.required_on_commit in {APPROVALS_FILE})"
        ))
        .hint(format!(
            "with that content in the working tree, run `helix-gate approve {}`, then commit again",
            shell_word(path)
        ))
}

/// One blob read for step 3.
enum Blob<'a> {
    /// A staged ADR the commit adds or changes.
    Staged(&'a StagedEntry, Result<Vec<u8>, GitError>),
    /// A committed ADR the id cache does not know.
    Committed(&'a StagedEntry, Result<Vec<u8>, GitError>),
}

/// What a worker made of one blob.
enum Done<'a> {
    /// A staged ADR: its path and what the engine (and the approval) found.
    Checked(PathBuf, Checked),
    /// A staged ADR whose blob could not be read: the commit cannot be checked.
    Failed(GitError),
    /// A committed ADR, front matter parsed.
    Committed(&'a StagedEntry, Adr),
    /// A committed ADR above the size limit.
    Skipped,
    /// A committed ADR whose blob could not be read.
    Unreadable,
}

/// Whether a staged ADR needs an approved review of its exact content to be committed:
/// `commit.required_on_commit` in the repository's own `config/approvals.yaml` (without that
/// file, never). An unreadable file is an error rather than "no": it may be what asks for
/// approvals.
pub fn approval_required(root: &Path) -> Result<bool, PreCommitError> {
    if !root.join(APPROVALS_FILE).is_file() {
        return Ok(false);
    }
    crate::approval::settings(root)
        .map(|settings| settings.required_on_commit)
        .map_err(PreCommitError::Approvals)
}

pub const APPROVALS_FILE: &str = crate::approval::settings::APPROVALS_PATH;

/// The content a staged Git LFS pointer stands for, when the work-tree file at `path`
/// is that content (its SHA-256 and size are the pointer's: git's smudge filter wrote
/// it); else `staged` unchanged, which the engine then reports as a pointer. helix-gate
/// never runs the LFS filter itself.
fn smudged(path: &Path, staged: Vec<u8>, limit: u64) -> Vec<u8> {
    let Some(pointer) = input::lfs_pointer(&staged) else {
        return staged;
    };
    if pointer.size > limit {
        return staged;
    }
    match crate::fs::read::regular(path, limit, crate::fs::read::Links::Refuse) {
        Ok(work)
            if work.len() as u64 == pointer.size
                && crate::text::hex(&crate::approval::cache::content_digest(&work))
                    == pointer.oid =>
        {
            work
        }
        _ => staged,
    }
}

/// The same finding [`input::decode`] gives for an oversized file; the blob itself is never
/// loaded, so the size comes from the object header.
fn too_large(size: u64, limit: u64) -> Finding {
    input::FILE_TOO_LARGE
        .finding(format!("file is {size} bytes, the limit is {limit} bytes"))
        .hint("shorten it or raise adr.max_file_size in config/helix-gate.yaml")
}

/// The number of an ADR's `adr_id`, as the rules across files compare it.
fn id_number(adr: &Adr) -> Option<u32> {
    adr.front_matter()
        .and_then(|fm| fm.adr_id.valid())
        .and_then(|id| adr::number_in_id(id))
}

/// Parse only the front matter: rules across files read nothing else, and skipping the
/// Markdown body keeps a commit in a repository with a thousand ADRs fast. Text after an
/// invalid UTF-8 sequence is ignored; a document without front matter has no id but still
/// counts with the number in its file name.
fn front_matter_only(bytes: &[u8]) -> Adr {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default(),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    match adr::front_matter::split(text) {
        adr::front_matter::Split::Found(span) => Adr::parse(&text[..span.body_start]),
        _ => Adr::parse(""),
    }
}

/// Which number each committed ADR blob's `adr_id` has, kept in
/// `<git common dir>/helix-gate/adr-ids` across runs.
///
/// Without it every commit would read and parse every ADR of the repository only to compare
/// ids (hundreds of milliseconds for a thousand ADRs). Keys are blob ids, i.e. content hashes,
/// so an entry can never be stale; the file is tied to the helix-gate version because the id
/// parsing may change. It lives in the git directory (shared by linked worktrees), never in
/// the work tree or the index. Any problem with it only costs time: a bad file is ignored and
/// a failed write is not an error.
mod id_cache {
    use std::collections::HashMap;
    use std::fmt::Write as _;
    use std::path::{Path, PathBuf};

    const HEADER: &str = concat!("helix-gate adr-ids v1 ", env!("CARGO_PKG_VERSION"));

    pub(super) struct IdCache {
        path: PathBuf,
        loaded: HashMap<gix::ObjectId, Option<u32>>,
        added: HashMap<gix::ObjectId, Option<u32>>,
    }

    impl IdCache {
        pub(super) fn load(common_dir: &Path) -> IdCache {
            let path = common_dir.join("helix-gate").join("adr-ids");
            let loaded = std::fs::read_to_string(&path)
                .map(|text| parse(&text))
                .unwrap_or_default();
            IdCache {
                path,
                loaded,
                added: HashMap::new(),
            }
        }

        pub(super) fn contains(&self, id: &gix::ObjectId) -> bool {
            self.cached(id).is_some()
        }

        /// `Some(number)` when the blob is known (`number` is `None` for ADRs without an id).
        #[expect(
            clippy::option_option,
            reason = "outer: is the blob cached; inner: its ADR number, which may be absent"
        )]
        pub(super) fn cached(&self, id: &gix::ObjectId) -> Option<Option<u32>> {
            self.loaded.get(id).or_else(|| self.added.get(id)).copied()
        }

        pub(super) fn insert(&mut self, id: gix::ObjectId, number: Option<u32>) {
            self.added.insert(id, number);
        }

        /// Write the entries of `keep` (the ADR blobs of this commit), unless the file already
        /// holds exactly those.
        pub(super) fn save(&self, keep: &[gix::ObjectId]) {
            let mut entries: Vec<(gix::ObjectId, Option<u32>)> = keep
                .iter()
                .filter_map(|id| self.cached(id).map(|n| (*id, n)))
                .collect();
            entries.sort_unstable();
            entries.dedup();
            if entries.len() == self.loaded.len()
                && entries.iter().all(|(id, n)| self.loaded.get(id) == Some(n))
            {
                return;
            }
            let mut text = String::with_capacity(HEADER.len() + 1 + entries.len() * 48);
            text.push_str(HEADER);
            text.push('\n');
            for (id, number) in entries {
                let _ = match number {
                    Some(n) => writeln!(text, "{id} {n}"),
                    None => writeln!(text, "{id} -"),
                };
            }
            let _ = write_atomically(&self.path, &text);
        }
    }

    fn parse(text: &str) -> HashMap<gix::ObjectId, Option<u32>> {
        let mut lines = text.lines();
        if lines.next() != Some(HEADER) {
            return HashMap::new();
        }
        lines
            .filter_map(|line| {
                let (id, number) = line.split_once(' ')?;
                let id = gix::ObjectId::from_hex(id.as_bytes()).ok()?;
                let number = match number {
                    "-" => None,
                    n => Some(n.parse().ok()?),
                };
                Some((id, number))
            })
            .collect()
    }

    /// Temporary file plus rename: concurrent commits (linked worktrees) never see half a
    /// file. No fsync: a cache lost to a power failure only costs time.
    fn write_atomically(path: &Path, text: &str) -> std::io::Result<()> {
        let dir = path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir)?;
        crate::fs::atomic::write_with(dir, path, text.as_bytes(), crate::fs::atomic::Options::FAST)
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn round_trip_and_version_check() {
            let dir = tempfile::tempdir().unwrap();
            let a = gix::ObjectId::from_hex(b"1111111111111111111111111111111111111111").unwrap();
            let b = gix::ObjectId::from_hex(b"2222222222222222222222222222222222222222").unwrap();
            let mut cache = IdCache::load(dir.path());
            assert!(!cache.contains(&a));
            cache.insert(a, Some(7));
            cache.insert(b, None);
            cache.save(&[a, b]);
            let cache = IdCache::load(dir.path());
            assert_eq!(cache.cached(&a), Some(Some(7)));
            assert_eq!(cache.cached(&b), Some(None));
            let file = dir.path().join("helix-gate/adr-ids");
            let text = std::fs::read_to_string(&file).unwrap();
            std::fs::write(&file, text.replace("v1", "v0")).unwrap();
            assert!(!IdCache::load(dir.path()).contains(&a));
        }
    }
}

/// File existence for the file-reference rules, answered from the commit-to-be: a file
/// deleted in the index is missing even if still on disk, a file only in the index exists.
struct IndexFiles {
    /// Sorted by bytes, like [`StagedIndex::paths`].
    paths: Vec<String>,
    /// The work tree, asked only about paths the index lacks, to say that they are not staged.
    root: PathBuf,
}

impl IndexFiles {
    fn new(staged: &StagedIndex, root: &Path) -> IndexFiles {
        // Owned copy: the index handle holds a gix repository, which is not `Sync`, and the
        // rules run on several threads.
        IndexFiles {
            paths: staged.paths().map(str::to_owned).collect(),
            root: root.to_path_buf(),
        }
    }
}

impl RepoFiles for IndexFiles {
    fn exists(&self, rel: &str) -> bool {
        if self.paths.binary_search_by(|p| p.as_str().cmp(rel)).is_ok() {
            return true;
        }
        // A directory exists when it holds a staged file (`validate` accepts directories too).
        // Search for "dir/" rather than "dir": "dir-x" sorts between the two.
        let dir = format!("{rel}/");
        let i = self.paths.partition_point(|p| p.as_str() < dir.as_str());
        self.paths.get(i).is_some_and(|p| p.starts_with(&dir))
    }

    fn presence(&self, rel: &str) -> Presence {
        if self.exists(rel) {
            Presence::Present
        } else if std::fs::symlink_metadata(self.root.join(rel)).is_ok() {
            // Still missing for the commit (the file is not what gets committed), but "does
            // not exist" would send the author looking for a typo.
            Presence::MissingHere {
                message: "exists in the working tree but is not staged",
                hint: "stage it with `git add` if this commit should contain it, or correct files.modify",
            }
        } else {
            Presence::Missing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_large_matches_the_decode_finding() {
        let from_decode = input::decode(vec![b'a'; 11], 10).unwrap_err();
        assert_eq!(too_large(11, 10), from_decode);
    }

    #[test]
    fn index_files_know_files_and_directories() {
        let files = IndexFiles {
            paths: vec!["src-x/a.rs".into(), "src/lib.rs".into(), "top.md".into()],
            root: PathBuf::from("/nonexistent"),
        };
        assert!(files.exists("src/lib.rs"));
        assert!(files.exists("src"));
        assert!(files.exists("src-x"));
        assert!(files.exists("top.md"));
        assert!(!files.exists("sr"));
        assert!(!files.exists("src/lib"));
        assert!(!files.exists("src/main.rs"));
        assert!(!files.exists("top.md/x"));
    }

    #[test]
    fn front_matter_only_reads_ids_and_tolerates_bad_bytes() {
        let adr = front_matter_only(b"---\nadr_id: \"007\"\n---\n# T\n\xff\xfe");
        assert_eq!(id_number(&adr), Some(7));
        assert!(adr.sections.is_empty());
        assert_eq!(id_number(&front_matter_only(b"# no front matter\n")), None);
        assert_eq!(
            id_number(&front_matter_only(b"---\nadr_id: 9\n\xff---\n")),
            None
        );
    }
}
