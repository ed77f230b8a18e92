//! helix-gate's own files in a repository: the configuration that decides what
//! the gate checks and whether it reviews, which the session it gates must not
//! change (`config/helix-gate.yaml`, the rules file, `config/approvals.yaml`,
//! `approvals/**`), and its data folder (`.helix-gate/**`).
//!
//! A reviewer program that `config/approvals.yaml` names inside the repository
//! (`command: tools/reviewer`) is part of the configuration too
//! ([`reviewer_programs`]): it decides what a review approves, so the session's
//! model may not rewrite it, and a person's consent covers its bytes.
//!
//! A [`Snapshot`] holds the configuration's bytes as they were at one moment
//! (a session's start, a person's `helix-gate trust`): the hook keeps a session
//! on the configuration it started with, and [`Snapshot::digest`] names that
//! configuration in trust records.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use sha2::{Digest as _, Sha256};

use super::RULES_PATH;
use super::settings::SETTINGS_PATH;

/// Repository-relative location of the approvals configuration.
pub const APPROVALS_PATH: &str = "config/approvals.yaml";
/// The folder of the reviewers' instructions and checks (`approvals/<type>/`).
pub const APPROVALS_DIR: &str = "approvals";
/// The configuration files, repository-relative.
pub const CONFIG_FILES: [&str; 3] = [SETTINGS_PATH, RULES_PATH, APPROVALS_PATH];
/// At most this many files below [`APPROVALS_DIR`] are part of a snapshot;
/// more is a damaged or hostile repository.
pub const MAX_APPROVAL_FILES: usize = 512;
/// How deep the walk below [`APPROVALS_DIR`] goes.
const MAX_DEPTH: usize = 6;

/// The key of the repository at `root` in helix-gate's per-user state (trust
/// records, session records): the SHA-256 (hex) of its real path.
pub fn repository_key(root: &Path) -> String {
    let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    crate::text::hex(&Sha256::digest(real.as_os_str().as_encoded_bytes()))
}

/// Whether the repository-relative path `rel` is one of helix-gate's own files:
/// its configuration or anything in its data folder. On Windows in any case and
/// with `\` separators too, as the file system there takes them
/// ([`crate::paths::comparable`]).
pub fn is_protected(rel: &str) -> bool {
    is_protected_on(rel, crate::paths::WINDOWS)
}

/// [`is_protected`] for the platform `windows` says.
pub fn is_protected_on(rel: &str, windows: bool) -> bool {
    let rel = crate::paths::comparable_on(rel, windows);
    is_config_exactly(&rel) || is_data_exactly(&rel)
}

/// Whether `rel` is part of helix-gate's configuration.
pub fn is_config(rel: &str) -> bool {
    is_config_exactly(&crate::paths::comparable(rel))
}

/// [`is_config`] of a path already in its compared form.
fn is_config_exactly(rel: &str) -> bool {
    let rel = rel.trim_start_matches("./");
    CONFIG_FILES.contains(&rel)
        || rel == APPROVALS_DIR
        || rel
            .strip_prefix(APPROVALS_DIR)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// Whether `rel` is part of the configuration of the repository at `root`:
/// [`is_config`], or a reviewer program its `config/approvals.yaml` names
/// ([`reviewer_programs`]; read only when `rel` is not one of the fixed paths).
pub fn is_config_in(root: &Path, rel: &str) -> bool {
    is_config(rel) || {
        let rel = crate::paths::normalize_relative(rel.trim_start_matches("./"));
        rel.is_some_and(|rel| programs_of(root).contains(&rel))
    }
}

/// At most this many reviewer programs are taken from one `config/approvals.yaml`.
const MAX_PROGRAMS: usize = 16;

/// The reviewer programs the `config/approvals.yaml` at `root` names, as they
/// are now ([`reviewer_programs`]); none when it is missing or unreadable.
pub fn programs_of(root: &Path) -> Vec<String> {
    crate::fs::read::regular(
        &root.join(APPROVALS_PATH),
        crate::fs::read::CONFIG_LIMIT,
        crate::fs::read::Links::Follow,
    )
    .map(|bytes| reviewer_programs(root, &bytes))
    .unwrap_or_default()
}

/// The reviewer programs that `approvals` (the bytes of a `config/approvals.yaml`)
/// names inside the repository at `root`, repository-relative and sorted: each
/// `command` of `defaults` and of every approval type that is a path (it has a
/// `/`; a relative one is taken from the repository root, as the reviewer is
/// started) and lies inside the repository. A bare name (`claude`) is found on
/// `PATH` and is not the repository's; nor is a path outside it. A file that
/// does not parse names none (the configuration then does not load, and no
/// reviewer runs).
pub fn reviewer_programs(root: &Path, approvals: &[u8]) -> Vec<String> {
    let Ok(text) = std::str::from_utf8(approvals) else {
        return Vec::new();
    };
    // The common file names no program: no YAML parse for it.
    if !text.contains("command") {
        return Vec::new();
    }
    let Ok(value) = crate::yaml::parse_value(text) else {
        return Vec::new();
    };
    let command = |section: &crate::yaml::Value| {
        section
            .get("command")
            .and_then(crate::yaml::Value::as_str)
            .map(str::to_owned)
    };
    let mut commands: Vec<String> = value
        .get("defaults")
        .and_then(command)
        .into_iter()
        .collect();
    if let Some(types) = value
        .get("approvals")
        .and_then(crate::yaml::Value::as_mapping)
    {
        commands.extend(types.values().filter_map(command));
    }
    let mut out: Vec<String> = commands
        .iter()
        .filter(|c| c.contains('/'))
        .filter_map(|c| program_in(root, c))
        .collect();
    out.sort();
    out.dedup();
    out.truncate(MAX_PROGRAMS);
    out
}

/// The repository-relative path of the program `command` (a path) when it lies
/// inside the repository at `root`.
fn program_in(root: &Path, command: &str) -> Option<String> {
    let path = Path::new(command);
    if path.is_absolute() {
        return crate::paths::relative_to(root, path)
            .or_else(|| crate::paths::relative_to_real(root, path))
            .filter(|rel| !rel.is_empty());
    }
    crate::paths::normalize_relative(command).filter(|rel| !rel.is_empty())
}

/// The reviewer programs named by the configuration at `config_root` (a
/// session's copy) whose bytes in the repository at `root` are not the ones
/// that copy holds: changed, added or removed since the copy was taken. Such a
/// program is not run for that session: what it would approve is not what the
/// session started with.
pub fn changed_programs(root: &Path, config_root: &Path) -> Vec<String> {
    if root == config_root {
        return Vec::new();
    }
    let read = |dir: &Path, rel: &str| {
        let mut one = Snapshot::default();
        one.add(dir, rel);
        one
    };
    programs_of(config_root)
        .into_iter()
        .filter(|rel| read(root, rel) != read(config_root, rel))
        .collect()
}

/// Whether `rel` lies in helix-gate's data folder.
pub fn is_data(rel: &str) -> bool {
    is_data_exactly(&crate::paths::comparable(rel))
}

/// [`is_data`] of a path already in its compared form.
fn is_data_exactly(rel: &str) -> bool {
    rel.split('/').any(|part| part == crate::fs::data_dir::DIR)
}

/// The bytes of the configuration files that exist, by repository-relative path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub files: BTreeMap<String, Vec<u8>>,
    /// Paths that exist but could not be read as a regular file (a FIFO, a
    /// directory, a link out of the project, too large): part of the digest,
    /// so a change to them is still a change.
    pub unreadable: BTreeMap<String, String>,
}

/// The configuration's paths (repository-relative, sorted, at most
/// [`MAX_APPROVAL_FILES`] below [`APPROVALS_DIR`]) and what is wrong with the
/// folder as a whole, if anything.
fn config_paths(root: &Path) -> (Vec<String>, Option<String>) {
    let mut paths: Vec<String> = CONFIG_FILES.iter().map(|rel| (*rel).to_owned()).collect();
    let dir = root.join(APPROVALS_DIR);
    let mut problem = None;
    if dir.is_dir() && crate::fs::confine::inside(root, &dir) {
        let mut found = Vec::new();
        list(&dir, APPROVALS_DIR, 0, &mut found);
        found.sort();
        if found.len() > MAX_APPROVAL_FILES {
            problem = Some(format!("more than {MAX_APPROVAL_FILES} files"));
        }
        paths.extend(found.into_iter().take(MAX_APPROVAL_FILES));
    } else if std::fs::symlink_metadata(&dir).is_ok() {
        problem = Some("not a folder inside the project".to_owned());
    }
    for program in programs_of(root) {
        if !paths.contains(&program) {
            paths.push(program);
        }
    }
    (paths, problem)
}

/// A cheap name for the configuration as it lies on disk: a SHA-256 over each
/// path's size, times and inode (a `stat` each, nothing read). Equal
/// fingerprints mean unchanged files (any write moves the change time); a new
/// fingerprint only means the bytes must be compared ([`Snapshot::digest`]).
pub fn stat_fingerprint(root: &Path) -> String {
    let (paths, problem) = config_paths(root);
    let mut hasher = Sha256::new();
    for rel in &paths {
        hasher.update(rel.as_bytes());
        hasher.update(b"\0");
        if let Ok(meta) = std::fs::metadata(root.join(rel)) {
            let (size, modified, changed, inode) = crate::fs::platform::stamp(&meta);
            let seconds = |ns: i128| i64::try_from(ns.div_euclid(1_000_000_000)).unwrap_or(0);
            let nanos = |ns: i128| i64::try_from(ns.rem_euclid(1_000_000_000)).unwrap_or(0);
            for number in [
                size,
                inode,
                seconds(modified).cast_unsigned(),
                nanos(modified).cast_unsigned(),
                seconds(changed).cast_unsigned(),
                nanos(changed).cast_unsigned(),
            ] {
                hasher.update(number.to_le_bytes());
            }
        }
    }
    hasher.update(problem.unwrap_or_default().as_bytes());
    crate::text::hex(&hasher.finalize())
}

impl Snapshot {
    /// Read the repository's configuration as it is now.
    pub fn read(root: &Path) -> Snapshot {
        let mut snapshot = Snapshot::default();
        let (paths, problem) = config_paths(root);
        for rel in &paths {
            snapshot.add(root, rel);
        }
        if let Some(problem) = problem {
            snapshot
                .unreadable
                .insert(APPROVALS_DIR.to_owned(), problem);
        }
        snapshot
    }

    fn add(&mut self, root: &Path, rel: &str) {
        let path = root.join(rel);
        if std::fs::symlink_metadata(&path).is_err() {
            return;
        }
        if !crate::fs::confine::inside(root, &path) {
            self.unreadable
                .insert(rel.to_owned(), "leads outside the project".to_owned());
            return;
        }
        match crate::fs::read::regular(
            &path,
            crate::fs::read::CONFIG_LIMIT,
            crate::fs::read::Links::Follow,
        ) {
            Ok(bytes) => {
                self.files.insert(rel.to_owned(), bytes);
            }
            Err(e) => {
                self.unreadable.insert(rel.to_owned(), e.to_string());
            }
        }
    }

    /// SHA-256 over every path and its bytes (hex): equal digests, equal configuration.
    pub fn digest(&self) -> String {
        let mut hasher = Sha256::new();
        for (rel, bytes) in &self.files {
            hasher.update(b"f\0");
            hasher.update(rel.as_bytes());
            hasher.update(b"\0");
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        }
        for (rel, why) in &self.unreadable {
            hasher.update(b"u\0");
            hasher.update(rel.as_bytes());
            hasher.update(b"\0");
            hasher.update(why.as_bytes());
            hasher.update(b"\0");
        }
        crate::text::hex(&hasher.finalize())
    }

    /// The paths whose bytes differ between `self` and `other` (added, removed or changed).
    pub fn changed_files(&self, other: &Snapshot) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let keys = self
            .files
            .keys()
            .chain(other.files.keys())
            .chain(self.unreadable.keys())
            .chain(other.unreadable.keys());
        for rel in keys {
            let same = self.files.get(rel) == other.files.get(rel)
                && self.unreadable.get(rel) == other.unreadable.get(rel);
            if !same && !out.contains(rel) {
                out.push(rel.clone());
            }
        }
        out.sort();
        out
    }

    /// Write the snapshot below `dir` in the repository's layout (for loaders
    /// that read a configuration from a folder), replacing what was there.
    pub fn write_to(&self, dir: &Path) -> io::Result<()> {
        if dir.exists() {
            std::fs::remove_dir_all(dir)?;
        }
        std::fs::create_dir_all(dir)?;
        for (rel, bytes) in &self.files {
            let path = dir.join(rel);
            if let Some(parent) = path.parent() {
                crate::fs::confine::create_dir_all(dir, parent)?;
            }
            crate::fs::atomic::write_with(dir, &path, bytes, crate::fs::atomic::Options::FAST)?;
            if rel == RULES_PATH {
                super::write_rules_twin(dir, bytes)?;
            }
        }
        Ok(())
    }
}

/// Files below `dir` (shown as `rel`), regular files only; links are not followed.
fn list(dir: &Path, rel: &str, depth: usize, out: &mut Vec<String>) {
    if depth > MAX_DEPTH || out.len() > MAX_APPROVAL_FILES {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let child = format!("{rel}/{name}");
        if kind.is_dir() {
            list(&entry.path(), &child, depth + 1, out);
        } else {
            // Files and links alike: a link is read (and refused when it leads out).
            out.push(child);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_paths() {
        for rel in [
            "config/helix-gate.yaml",
            "config/adr-completeness-rules.yaml",
            "config/approvals.yaml",
            "approvals/adr/CLAUDE.md",
            ".helix-gate/state/s.json",
            "sub/.helix-gate/log.jsonl",
        ] {
            assert!(is_protected(rel), "{rel}");
        }
        for rel in [
            "config/other.yaml",
            "approvalsx/a.md",
            "adr/001-x.md",
            "docs/approvals.md",
        ] {
            assert!(!is_protected(rel), "{rel}");
        }
    }

    #[test]
    fn on_windows_protected_names_match_in_any_case_and_with_backslashes() {
        for rel in [
            r"Config\Helix-Gate.YAML",
            "CONFIG/approvals.yaml",
            r"Approvals\adr\CLAUDE.md",
            r"sub\.Helix-Gate\log.jsonl",
        ] {
            assert!(is_protected_on(rel, true), "{rel}");
            // Other names on Unix, where case counts and `\` is part of a name.
            assert!(!is_protected_on(rel, false), "{rel}");
        }
        assert!(!is_protected_on(r"docs\approvals.md", true));
    }

    #[test]
    fn a_reviewer_program_inside_the_repository_is_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("config")).unwrap();
        std::fs::create_dir_all(root.join("tools")).unwrap();
        std::fs::write(root.join("tools/reviewer"), "#!/bin/sh\necho one\n").unwrap();
        assert!(
            !is_config_in(root, "tools/reviewer"),
            "no command names it yet"
        );
        std::fs::write(
            root.join(APPROVALS_PATH),
            "defaults:\n  command: claude\napprovals:\n  adr:\n    command: ./tools/../tools/reviewer\n  docs:\n    command: /usr/bin/outside\n  up:\n    command: ../elsewhere/r\n",
        )
        .unwrap();
        assert_eq!(programs_of(root), ["tools/reviewer"]);
        assert!(is_config_in(root, "tools/reviewer"));
        assert!(is_config_in(root, "./tools/reviewer"));
        assert!(!is_config_in(root, "tools/other"));
        // Its bytes are part of the snapshot, so of the trust digest.
        let before = Snapshot::read(root);
        assert!(before.files.contains_key("tools/reviewer"));
        let copy = tempfile::tempdir().unwrap();
        before.write_to(copy.path()).unwrap();
        assert!(changed_programs(root, copy.path()).is_empty());
        std::fs::write(root.join("tools/reviewer"), "#!/bin/sh\necho approved\n").unwrap();
        assert_ne!(before.digest(), Snapshot::read(root).digest());
        assert_eq!(
            before.changed_files(&Snapshot::read(root)),
            ["tools/reviewer"]
        );
        assert_eq!(changed_programs(root, copy.path()), ["tools/reviewer"]);
        // An absolute command inside the repository is the repository's program too.
        std::fs::write(
            root.join(APPROVALS_PATH),
            format!(
                "defaults:\n  command: {}\n",
                root.join("tools/reviewer").display()
            ),
        )
        .unwrap();
        assert_eq!(programs_of(root), ["tools/reviewer"]);
    }

    #[test]
    fn a_snapshot_sees_every_change_and_restores_the_layout() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("config")).unwrap();
        std::fs::create_dir_all(root.join("approvals/adr/checks")).unwrap();
        std::fs::write(root.join(SETTINGS_PATH), "hook: {budget: 2}\n").unwrap();
        std::fs::write(root.join("approvals/adr/checks/a.md"), "check").unwrap();
        let first = Snapshot::read(root);
        assert_eq!(first.files.len(), 2);
        assert_eq!(first.digest(), Snapshot::read(root).digest());
        let stats = stat_fingerprint(root);
        assert_eq!(stats, stat_fingerprint(root));
        std::fs::write(
            root.join(APPROVALS_PATH),
            "approvals: {adr: {enabled: false}}\n",
        )
        .unwrap();
        let second = Snapshot::read(root);
        assert_ne!(first.digest(), second.digest());
        assert_ne!(
            stats,
            stat_fingerprint(root),
            "a new file is a new fingerprint"
        );
        assert_eq!(first.changed_files(&second), [APPROVALS_PATH]);
        let copy = tempfile::tempdir().unwrap();
        first.write_to(&copy.path().join("c")).unwrap();
        assert_eq!(Snapshot::read(&copy.path().join("c")), first);
    }
}
