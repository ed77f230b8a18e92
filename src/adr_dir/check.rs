//! The rules of the governing ADRs on a change set: the staged diff of a commit
//! (pre-commit) and a branch against its base (`helix-gate check`), both judged
//! by [`enforce::check`] at [`Moment::Commit`].
//!
//! `check` compares the working tree with the merge base of the base and `HEAD`
//! (what a pull request adds, not what the base gained since), tracked files and
//! untracked files git does not ignore. It honours no override: CI judges the
//! branch as it is ([`super::overrides`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context as _, bail};

use super::enforce::{self, Change, Moment, adr_of_rule};
use super::governs::{self, Force, Index};
use crate::diagnostic::{FileReport, Finding};
use crate::engine::Engine;
use crate::git::{GitError, Repo};
use crate::render::markdown::GoverningAdr;

/// The governing index every check here reads (one place to load it).
pub fn governing_index(root: &Path) -> anyhow::Result<Index> {
    governs::index(root)
}

/// The governing index when an accepted or proposed ADR has rules, else `None`. A
/// repository whose ADR files never mention an `Enforcement` (or `Durchsetzung`) section
/// with `rules` is answered from a byte search of those files, without parsing any ADR:
/// the common commit, in a repository that states no rules, stays as fast as before.
pub fn ruling_index(engine: &Engine) -> anyhow::Result<Option<Index>> {
    let dir = crate::paths::absolute(&engine.root.join(&engine.settings.adr.directory));
    if !dir.is_dir() {
        return Ok(None);
    }
    let limit = engine.settings.adr.max_file_size;
    let (adrs, _) = engine.directory_markdown(&dir)?;
    let may_rule = adrs.iter().any(|path| {
        !crate::engine::leaves_project(&engine.root, path)
            && crate::fs::read::read_limited(path, limit).is_ok_and(|b| mentions_rules(&b))
    });
    if !may_rule {
        return Ok(None);
    }
    let index = governing_index(&engine.root)?;
    let rules = index.ruling().next().is_some();
    Ok(rules.then_some(index))
}

/// Whether an ADR's bytes may hold an `## Enforcement` section with rules (a
/// necessary condition, any case).
pub fn mentions_rules(bytes: &[u8]) -> bool {
    let lower = bytes.to_ascii_lowercase();
    let has = |needle: &[u8]| crate::text::find::find(&lower, needle).is_some();
    (has(b"enforcement") || has(b"durchsetzung")) && has(b"rules")
}

/// A file's bytes as the text the rules read; `None` for a binary file (a NUL
/// byte, or not UTF-8).
pub fn text(bytes: Vec<u8>) -> Option<String> {
    if bytes.contains(&0) {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// The findings grouped into one report per path, paths sorted; a finding
/// without a path is reported under `.`.
pub fn reports(findings: Vec<Finding>) -> Vec<FileReport> {
    let mut by_path: BTreeMap<String, Vec<Finding>> = BTreeMap::new();
    for mut f in findings {
        let path = f.path.take().unwrap_or_else(|| ".".to_owned());
        by_path.entry(path).or_default().push(f);
    }
    by_path
        .into_iter()
        .map(|(path, findings)| {
            let mut report = FileReport { path, findings };
            report.sort();
            report
        })
        .collect()
}

/// What `helix-gate check` found.
#[derive(Debug)]
pub struct BranchCheck {
    /// The base as given or found (`origin/main`, `@{upstream}`'s name, `HEAD`).
    pub base: String,
    /// The commit compared with: the merge base of the base and `HEAD`.
    pub base_commit: String,
    /// The changed files (sorted), ADRs included.
    pub changed: Vec<String>,
    /// Changed files left out: binary, or larger than `adr.max_file_size`.
    pub skipped: Vec<String>,
    /// The rules' findings, one report per file.
    pub reports: Vec<FileReport>,
    /// Every ADR that governs a changed file, strongest first.
    pub governing: Vec<GoverningAdr>,
}

/// Runs `git` in `root` and returns its standard output; `None` when it fails.
fn git(root: &Path, args: &[&str]) -> anyhow::Result<Option<Vec<u8>>> {
    let mut command = std::process::Command::new("git");
    command
        .args(args)
        .current_dir(root)
        .env("GIT_OPTIONAL_LOCKS", "0");
    let limits = crate::process::Limits {
        timeout: Duration::from_secs(120),
        stdout_cap: 64 << 20,
        stderr_cap: 4096,
    };
    let done = crate::process::run(command, &limits, &mut |_| {})
        .with_context(|| format!("cannot run git {}", args.join(" ")))?;
    Ok(done
        .status
        .is_some_and(|s| s.success())
        .then_some(done.stdout))
}

fn line(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).trim().to_owned()
}

/// NUL-separated paths of git's `-z` output.
fn nul_paths(bytes: &[u8]) -> impl Iterator<Item = String> + '_ {
    bytes
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(|p| String::from_utf8_lossy(p).into_owned())
}

/// The base `check` compares with when none is given: the upstream of the
/// current branch, else `HEAD`.
fn default_base(root: &Path) -> anyhow::Result<String> {
    Ok(git(
        root,
        &[
            "rev-parse",
            "--abbrev-ref",
            "--symbolic-full-name",
            "@{upstream}",
        ],
    )?
    .map(|out| line(&out))
    .filter(|b| !b.is_empty())
    .unwrap_or_else(|| "HEAD".to_owned()))
}

/// The files that differ between the commit `base_commit` and the working tree:
/// tracked ones (`git diff`) and untracked ones git does not ignore; sorted.
fn changed_paths(root: &Path, base_commit: &str) -> anyhow::Result<Vec<String>> {
    let Some(tracked) = git(
        root,
        &[
            "diff",
            "--name-only",
            "-z",
            "--no-renames",
            base_commit,
            "--",
        ],
    )?
    else {
        bail!("git diff against {base_commit} failed");
    };
    let untracked =
        git(root, &["ls-files", "--others", "--exclude-standard", "-z"])?.unwrap_or_default();
    let mut paths: Vec<String> = nul_paths(&tracked).chain(nul_paths(&untracked)).collect();
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// The change of `path`: its text in `tree` and in the working tree; `None` when
/// either side is binary, too large, a link or no file.
fn read_change(
    tree: &crate::git::TreeFiles,
    root: &Path,
    path: &str,
    limit: u64,
) -> anyhow::Result<Option<Change>> {
    let before = match tree.read(path, limit) {
        None => None,
        Some(Ok(bytes)) => {
            let Some(text) = text(bytes) else {
                return Ok(None);
            };
            Some(text)
        }
        Some(Err(GitError::BlobTooLarge { .. } | GitError::NotABlob { .. })) => return Ok(None),
        Some(Err(e)) => return Err(e.into()),
    };
    let full = root.join(path);
    let after = match std::fs::symlink_metadata(&full) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Ok(meta) if meta.is_file() => {
            let Some(text) = crate::fs::read::regular(&full, limit, crate::fs::read::Links::Refuse)
                .ok()
                .and_then(text)
            else {
                return Ok(None);
            };
            Some(text)
        }
        // A link, a folder (a submodule), something unreadable: not code to read.
        _ => return Ok(None),
    };
    Ok(Some(Change {
        path: path.to_owned(),
        before,
        after,
    }))
}

/// Check the changes between `base` (default: [`default_base`]) and the working
/// tree of the repository at `root` against the rules of the ADRs that govern them.
pub fn check_branch(root: &Path, base: Option<&str>) -> anyhow::Result<BranchCheck> {
    let base = match base {
        Some(b) => b.to_owned(),
        None => default_base(root)?,
    };
    if base.starts_with('-') {
        bail!("the base `{base}` is not a revision");
    }
    let Some(resolved) = git(
        root,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{base}^{{commit}}"),
        ],
    )?
    .map(|out| line(&out)) else {
        bail!(
            "`{base}` names no commit of this repository (fetch it first, e.g. `git fetch origin`)"
        );
    };
    // What the branch changed since it left the base, not what the base gained since.
    let base_commit = git(root, &["merge-base", &resolved, "HEAD"])?
        .map(|out| line(&out))
        .filter(|c| !c.is_empty())
        .unwrap_or(resolved);
    let changed = changed_paths(root, &base_commit)?;
    let repo = Repo::discover(root).map_err(anyhow::Error::from)?;
    let tree = repo.tree_files(&base_commit)?;
    let engine = governs::engine(root)?;
    let limit = engine.settings.adr.max_file_size;
    let index = governing_index(root)?;
    let mut to_judge = Vec::new();
    let mut skipped = Vec::new();
    for path in &changed {
        match read_change(&tree, root, path, limit)? {
            Some(change) => to_judge.push(change),
            None => skipped.push(path.clone()),
        }
    }
    let mut findings = if index.ruling().next().is_some() {
        enforce::check(&index, &to_judge, Moment::Commit)
    } else {
        Vec::new()
    };
    findings.extend(lifecycle(&engine, &to_judge));
    let governing = governing_adrs(&index, &to_judge, &findings);
    Ok(BranchCheck {
        base,
        base_commit,
        changed,
        skipped,
        reports: reports(findings),
        governing,
    })
}

/// The lifecycle of each changed ADR against its version at the base
/// ([`crate::rules::lifecycle`]): a legal status change (a new ADR starting as
/// `lifecycle.initial` says), and an accepted ADR's text kept as accepted.
fn lifecycle(engine: &Engine, changes: &[Change]) -> Vec<Finding> {
    use crate::adr::Adr;
    use crate::rules::lifecycle::{rewritten, transition};
    let matcher = engine.settings.matcher();
    let mut out = Vec::new();
    for change in changes {
        let Some(after) = change.after.as_deref() else {
            continue;
        };
        if !matcher.is_adr(&change.path) {
            continue;
        }
        let after = Adr::parse(after);
        let before = change.before.as_deref().map(Adr::parse);
        out.extend(
            transition(before.as_ref(), &after, &engine.settings.lifecycle)
                .into_iter()
                .chain(before.as_ref().and_then(|b| rewritten(b, &after)))
                .map(|f| f.in_file(change.path.clone())),
        );
    }
    out
}

/// Every ADR that governs one of `changes` (by [`Index::resolve`], markers of the
/// changed content as context), strongest first, with the findings of its rules.
pub fn governing_adrs(
    index: &Index,
    changes: &[Change],
    findings: &[Finding],
) -> Vec<GoverningAdr> {
    let mut by_id: BTreeMap<String, (Force, Option<u32>, GoverningAdr)> = BTreeMap::new();
    for change in changes.iter().filter(|c| !index.is_adr(&c.path)) {
        let markers = change
            .after
            .as_deref()
            .map(|text| super::markers::find(&change.path, text))
            .unwrap_or_default();
        for g in index.resolve(&change.path, &markers) {
            let why = g
                .provenance
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("; ");
            let number = g.number.as_deref().and_then(|n| n.parse().ok());
            let slot = by_id.entry(g.id.clone()).or_insert_with(|| {
                (
                    g.force,
                    number,
                    GoverningAdr {
                        id: g.id.clone(),
                        title: g.title.clone(),
                        status: g.status.clone(),
                        force: g.force.as_str(),
                        href: g.file.clone(),
                        paths: Vec::new(),
                        findings: Vec::new(),
                    },
                )
            });
            if g.force > slot.0 {
                slot.0 = g.force;
                slot.2.force = g.force.as_str();
            }
            slot.2.paths.push((change.path.clone(), why));
        }
    }
    for f in findings {
        let Some(adr) = adr_of_rule(&f.rule) else {
            continue;
        };
        if let Some(slot) = by_id.get_mut(adr) {
            slot.2.findings.push(f.clone());
        } else if let Some(ruling) = index.ruling().find(|r| r.id == adr) {
            // A rule whose `paths` reach beyond what its ADR governs.
            let mut entry = GoverningAdr {
                id: ruling.id.to_owned(),
                title: ruling.title.map(str::to_owned),
                status: None,
                force: ruling.force.as_str(),
                href: ruling.file.to_owned(),
                paths: Vec::new(),
                findings: Vec::new(),
            };
            entry.findings.push(f.clone());
            by_id.insert(adr.to_owned(), (ruling.force, None, entry));
        }
    }
    let mut out: Vec<(Force, Option<u32>, GoverningAdr)> = by_id.into_values().collect();
    out.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| a.1.is_none().cmp(&b.1.is_none()))
            .then_with(|| a.1.cmp(&b.1))
            .then_with(|| a.2.id.cmp(&b.2.id))
    });
    out.into_iter().map(|(_, _, adr)| adr).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_adr_that_names_the_section_and_rules_may_rule() {
        assert!(mentions_rules(b"## Enforcement\n```yaml\nrules:\n"));
        assert!(mentions_rules(b"## DURCHSETZUNG\n\nRules: ..."));
        assert!(!mentions_rules(b"## Decision\nrules: none\n"));
        assert!(!mentions_rules(b"## Enforcement\nby review\n"));
    }

    #[test]
    fn binary_text_is_none() {
        assert_eq!(text(b"a\0b".to_vec()), None);
        assert_eq!(text(vec![0xff, 0x41]), None);
        assert_eq!(text(b"ok\n".to_vec()).as_deref(), Some("ok\n"));
    }
}
