//! What changed since the session's baseline: a walk of the repository for
//! the Stop, a `stat` per watched file and folder for the Bash hook, `git
//! status` where the baseline came late.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use super::store::{FileState, Record, Store, StoreError};
use crate::config::AdrMatcher;

/// Whether `rel` is a file the baseline covers: an ADR or a phase plan.
pub(super) fn covered(matcher: &AdrMatcher, rel: &str) -> bool {
    matcher.is_adr(rel) || crate::config::plan::is_session_plan(rel)
}

/// Every covered file below `root`, with its content.
pub(super) fn scan(root: &Path, matcher: &AdrMatcher) -> BTreeMap<String, FileState> {
    let mut out = BTreeMap::new();
    let _ = crate::engine::walk(root, &mut |path| {
        if let Some(rel) = crate::paths::relative_to(root, path)
            && covered(matcher, &rel)
            && crate::fs::confine::inside(root, path)
            && let Some(state) = FileState::read(path)
        {
            out.insert(rel, state);
        }
    });
    out
}

/// The folders watched for new files: those holding a covered file, and the
/// literal start of every glob that exists (`adr/` for `adr/**/*.md`).
pub(super) fn dirs_of(
    root: &Path,
    files: &BTreeMap<String, FileState>,
    matcher: &AdrMatcher,
) -> BTreeMap<String, i128> {
    let mut dirs: Vec<String> = files
        .keys()
        .map(|rel| rel.rsplit_once('/').map_or("", |(dir, _)| dir).to_owned())
        .collect();
    for prefix in matcher.literal_prefixes() {
        dirs.push(prefix);
    }
    dirs.sort();
    dirs.dedup();
    dirs.into_iter()
        .filter_map(|dir| dir_mtime(root, &dir).map(|t| (dir, t)))
        .collect()
}

fn dir_mtime(root: &Path, dir: &str) -> Option<i128> {
    let meta = std::fs::metadata(root.join(dir)).ok()?;
    meta.is_dir().then(|| crate::fs::platform::stamp(&meta).1)
}

/// The covered files whose content differs from the session's baseline now
/// (new ones included, deleted ones not), by a walk of the repository: a `stat`
/// per file, a read only where the `stat` changed.
pub(super) fn changed_since_start(
    root: &Path,
    record: &Record,
    matcher: &AdrMatcher,
) -> Vec<String> {
    let mut out = Vec::new();
    let _ = crate::engine::walk(root, &mut |path| {
        let Some(rel) = crate::paths::relative_to(root, path) else {
            return;
        };
        if !covered(matcher, &rel) {
            return;
        }
        match record.files.get(&rel) {
            Some(before) if before.same_stat(path) => {}
            Some(before) => {
                if !FileState::read(path).is_some_and(|now| now.same_content(before)) {
                    out.push(rel);
                }
            }
            None => out.push(rel),
        }
    });
    out.sort();
    out
}

/// What the session changed since its hooks last looked (the Bash hook):
/// files whose `stat` changed and whose content differs from what was seen,
/// new files in watched folders, and `candidates` (paths named by the
/// command). `None` when nothing changed: the caller did no more than a
/// `stat` per watched file and folder. Updates what was seen.
pub(super) fn changed_since_seen(
    root: &Path,
    config: Option<(&Store, &Record)>,
    candidates: &[String],
    matcher: impl FnOnce() -> Option<AdrMatcher>,
) -> Result<Option<Vec<String>>, StoreError> {
    let Some((store, record)) = config else {
        return Ok(None);
    };
    // Cheap first: is anything different at all?
    let files_moved = record
        .seen
        .iter()
        .any(|(rel, seen)| !seen.same_stat(&root.join(rel)));
    let dirs_moved = record
        .dirs
        .iter()
        .any(|(dir, t)| dir_mtime(root, dir) != Some(*t));
    let named: Vec<&String> = candidates
        .iter()
        .filter(|rel| match record.seen.get(*rel) {
            Some(seen) => !seen.same_stat(&root.join(rel)),
            None => root.join(rel).is_file(),
        })
        .collect();
    if !files_moved && !dirs_moved && named.is_empty() {
        return Ok(None);
    }
    let Some(matcher) = matcher() else {
        return Ok(None);
    };
    let _lock = store.lock()?;
    let mut record = store.load().unwrap_or_else(|| record.clone());
    let mut look: Vec<String> = record.seen.keys().cloned().collect();
    for (dir, t) in record.dirs.clone() {
        if dir_mtime(root, &dir) == Some(t) {
            continue;
        }
        if let Ok(entries) = std::fs::read_dir(root.join(&dir)) {
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                let rel = if dir.is_empty() {
                    name.to_owned()
                } else {
                    format!("{dir}/{name}")
                };
                if covered(&matcher, &rel) {
                    look.push(rel);
                }
            }
        }
        if let Some(t) = dir_mtime(root, &dir) {
            record.dirs.insert(dir, t);
        }
    }
    look.extend(named.into_iter().cloned());
    look.sort();
    look.dedup();
    let mut changed = Vec::new();
    for rel in look {
        let path = root.join(&rel);
        if !covered(&matcher, &rel) || !crate::fs::confine::inside(root, &path) {
            continue;
        }
        let before = record.seen.get(&rel);
        if before.is_some_and(|b| b.same_stat(&path)) {
            continue;
        }
        match FileState::read(&path) {
            Some(now) => {
                if !before.is_some_and(|b| b.same_content(&now)) {
                    changed.push(rel.clone());
                }
                if let Some(dir) = rel.rsplit_once('/').map(|(d, _)| d.to_owned())
                    && !record.dirs.contains_key(&dir)
                    && let Some(t) = dir_mtime(root, &dir)
                {
                    record.dirs.insert(dir, t);
                }
                record.seen.insert(rel, now);
            }
            None => {
                record.seen.remove(&rel);
            }
        }
    }
    store.save(&record)?;
    Ok(Some(changed))
}

/// The ADRs that differ from `HEAD` (modified, added, untracked), by `git
/// status`; for a recovered record, whose baseline came late. Empty outside git.
pub(super) fn changed_since_head(root: &Path, matcher: &AdrMatcher) -> Vec<String> {
    differ_from_head(root, |path| covered(matcher, path))
}

/// The files for which `keep` holds that differ from `HEAD` (modified, added,
/// untracked; not deleted), by `git status`. Empty outside git.
pub(super) fn differ_from_head(root: &Path, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut command = std::process::Command::new("git");
    command
        .args([
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--no-renames",
        ])
        .current_dir(root)
        .env("GIT_OPTIONAL_LOCKS", "0");
    let limits = crate::process::Limits {
        timeout: Duration::from_secs(10),
        stdout_cap: 16 << 20,
        stderr_cap: 4096,
    };
    let Ok(done) = crate::process::run(command, &limits, &mut |_| {}) else {
        return Vec::new();
    };
    if !done.status.is_some_and(|s| s.success()) {
        return Vec::new();
    }
    let mut out: Vec<String> = done
        .stdout
        .split(|b| *b == 0)
        .filter_map(|entry| {
            let entry = std::str::from_utf8(entry).ok()?;
            let (status, path) = (entry.get(..2)?, entry.get(3..)?);
            (!status.contains('D') && keep(path)).then(|| path.to_owned())
        })
        .collect();
    out.sort();
    out
}

/// The other ADRs of the repository whose `adr_id` has `number`, for the
/// duplicate check on save: those the session's record knows (confirmed
/// where they changed since), and those beside `rel` whose file name carries
/// the number (an ADR the session wrote, which the record does not know yet).
pub(super) fn same_number(
    root: &Path,
    record: Option<&Record>,
    rel: &str,
    number: u32,
    matcher: &AdrMatcher,
) -> Vec<String> {
    let still = |other: &str| {
        FileState::read(&root.join(other)).is_some_and(|now| now.number == Some(number))
    };
    let mut out: Vec<String> = Vec::new();
    if let Some(record) = record {
        for (other, state) in record.files.iter().chain(&record.seen) {
            if other != rel
                && state.number == Some(number)
                && !out.contains(other)
                && (state.same_stat(&root.join(other)) || still(other))
            {
                out.push(other.clone());
            }
        }
    }
    let dir = rel.rsplit_once('/').map_or("", |(dir, _)| dir);
    if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let other = if dir.is_empty() {
                name.to_owned()
            } else {
                format!("{dir}/{name}")
            };
            if other != rel
                && !out.contains(&other)
                && crate::adr::number_in_file_name(Path::new(name)) == Some(number)
                && matcher.is_adr(&other)
                && crate::fs::confine::inside(root, &root.join(&other))
                && still(&other)
            {
                out.push(other);
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matcher() -> AdrMatcher {
        crate::config::Settings::builtin().adr_matcher().unwrap()
    }

    fn record(root: &Path) -> Record {
        let files = scan(root, &matcher());
        Record {
            dirs: dirs_of(root, &files, &matcher()),
            seen: files.clone(),
            files,
            ..Record::default()
        }
    }

    #[test]
    fn only_a_change_of_content_counts_and_new_files_do() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("adr")).unwrap();
        std::fs::create_dir_all(root.join("s/output")).unwrap();
        std::fs::write(root.join("adr/001-a.md"), "one").unwrap();
        std::fs::write(root.join("adr/002-b.md"), "two").unwrap();
        std::fs::write(root.join("notes.md"), "not an ADR").unwrap();
        let start = record(root);
        assert_eq!(start.files.len(), 2);
        assert!(start.dirs.contains_key("adr"));
        // Rewritten with the same bytes (a new inode and times): not a change.
        std::fs::remove_file(root.join("adr/001-a.md")).unwrap();
        std::fs::write(root.join("adr/001-a.md"), "one").unwrap();
        // Same size, other bytes: a change.
        std::fs::write(root.join("adr/002-b.md"), "twO").unwrap();
        std::fs::write(root.join("s/output/ADR-c.md"), "new").unwrap();
        std::fs::write(root.join("s/output/phases.yaml"), "phases: []").unwrap();
        std::fs::write(root.join("notes.md"), "changed, not an ADR").unwrap();
        assert_eq!(
            changed_since_start(root, &start, &matcher()),
            ["adr/002-b.md", "s/output/ADR-c.md", "s/output/phases.yaml"]
        );
    }
}
