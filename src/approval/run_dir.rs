//! The per-run folder `.helix-gate/approvals/<run-id>/`: the reviewer's working
//! directory. Every run creates its own folder (`create_dir`, never reused), so
//! two approvals at the same time never share input or output.
//!
//! ```text
//! .helix-gate/approvals/<run-id>/
//!   CLAUDE.md            the type's instructions
//!   checks/<name>.md     the configured checks
//!   input/<repo path>    copies of the files under review (the exact bytes judged)
//!   concept/<repo path>  copies of the concepts the reviewed ADRs name (front-matter `concept:`)
//!   output/              written by helix-gate: approval-result.json, reviewer.json, reviewer.stderr
//! ```

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::SystemTime;

use super::instructions::Instructions;
use crate::clock;
use crate::fs::data_dir::{self, RUNS_DIR};

/// One file under review: where it is, how it is shown, its exact bytes.
#[derive(Debug, Clone)]
pub struct ReviewedFile {
    pub path: PathBuf,
    /// Repository-relative path (or the path as given when outside the repository).
    pub display: String,
    pub bytes: Vec<u8>,
}

/// A created run folder.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub id: String,
    pub path: PathBuf,
    /// `input/...` names of the reviewed files, relative to the run folder, in order.
    pub inputs: Vec<String>,
    /// `concept/...` copies of the reviewed ADRs' concepts and their repository paths
    /// ([`add_concepts`]).
    pub concepts: Vec<(String, String)>,
    /// `skills/...` copies of the type's skills, in order.
    pub skills: Vec<String>,
}

impl RunDir {
    pub fn output(&self) -> PathBuf {
        self.path.join("output")
    }

    /// Keep the reviewer's raw output in `output/reviewer.json` and
    /// `output/reviewer.stderr`, best effort: it helps a person, the verdict does
    /// not need it. Empty streams leave no file.
    pub fn keep_raw_output(&self, stdout: &[u8], stderr: &[u8]) {
        for (name, bytes) in [("reviewer.json", stdout), ("reviewer.stderr", stderr)] {
            if !bytes.is_empty() {
                let _ = std::fs::write(self.output().join(name), bytes);
            }
        }
    }

    pub fn result_path(&self) -> PathBuf {
        self.output().join("approval-result.json")
    }
}

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A new run id: `<UTC time>-<pid>-<counter><nanos>` (hex), unique per process and
/// between processes (the folder is created exclusively anyway).
pub fn new_id(now: SystemTime) -> String {
    let nanos = now
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    format!(
        "{}-{:x}-{:04x}{:04x}",
        clock::compact(now),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed) & 0xffff,
        nanos & 0xffff
    )
}

/// Create `.helix-gate/approvals/<id>/` with the instructions and copies of `files`.
pub fn create(
    root: &Path,
    instructions: &Instructions,
    files: &[ReviewedFile],
    now: SystemTime,
) -> std::io::Result<RunDir> {
    let runs = data_dir::ensure_dir(root, RUNS_DIR)?;
    let (id, path) = {
        let mut attempt = 0;
        loop {
            let id = new_id(now);
            let path = runs.join(&id);
            match std::fs::create_dir(&path) {
                Ok(()) => break (id, path),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && attempt < 100 => {
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    };
    std::fs::write(path.join("CLAUDE.md"), &instructions.claude_md)?;
    std::fs::create_dir(path.join("checks"))?;
    for (name, text) in &instructions.checks {
        std::fs::write(path.join("checks").join(format!("{name}.md")), text)?;
    }
    for (name, text) in &instructions.skills {
        let target = path.join("skills").join(name);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(target, text)?;
    }
    std::fs::create_dir(path.join("input"))?;
    std::fs::create_dir(path.join("output"))?;
    let mut inputs = Vec::with_capacity(files.len());
    for (index, file) in files.iter().enumerate() {
        let rel = input_name(root, file, index);
        let target = path.join(&rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&target, &file.bytes)?;
        inputs.push(rel);
    }
    Ok(RunDir {
        skills: instructions
            .skills
            .iter()
            .map(|(name, _)| format!("skills/{name}"))
            .collect(),
        id,
        path,
        inputs,
        concepts: Vec::new(),
    })
}

/// Copy the concepts of the reviewed ADRs into `concept/<repository path>` of the run
/// folder, so the reviewer can compare each ADR with the document it was written from.
pub fn add_concepts(
    root: &Path,
    run: &mut RunDir,
    concepts: &[ReviewedFile],
) -> std::io::Result<()> {
    for (index, concept) in concepts.iter().enumerate() {
        let rel = input_name(root, concept, index).replacen("input/", "concept/", 1);
        let target = run.path.join(&rel);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&target, &concept.bytes)?;
        run.concepts.push((rel, concept.display.clone()));
    }
    Ok(())
}

/// Run folders kept by [`prune`]; older ones are removed.
pub const KEEP_RUNS: usize = 200;

/// Whether `name` looks like a run id (`YYYYMMDDTHHMMSSZ-...`), so pruning
/// never touches anything helix-gate did not create.
fn is_run_id(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() > 17
        && b[..8].iter().all(u8::is_ascii_digit)
        && b[8] == b'T'
        && b[9..15].iter().all(u8::is_ascii_digit)
        && b[15] == b'Z'
        && b[16] == b'-'
}

/// Remove all but the newest `keep` run folders (run ids sort by time).
/// Best effort: errors are ignored, a folder in use by a running review is
/// among the newest.
pub fn prune(root: &Path, keep: usize) {
    let Some(Ok(entries)) = data_dir::existing_dir(root, RUNS_DIR).map(std::fs::read_dir) else {
        return;
    };
    let mut runs: Vec<(String, PathBuf)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| {
            let name = e.file_name().to_str()?.to_owned();
            is_run_id(&name).then(|| (name, e.path()))
        })
        .collect();
    if runs.len() <= keep {
        return;
    }
    runs.sort();
    let excess = runs.len() - keep;
    for (_, path) in runs.into_iter().take(excess) {
        let _ = std::fs::remove_dir_all(path);
    }
}

/// `input/<repository-relative path>`; a file outside the repository gets
/// `input/external/<n>-<file name>`.
fn input_name(root: &Path, file: &ReviewedFile, index: usize) -> String {
    match crate::paths::relative_to(root, &file.path) {
        Some(rel) if !rel.is_empty() && !rel.split('/').any(|p| p == ".." || p.is_empty()) => {
            format!("input/{rel}")
        }
        _ => {
            let name = file
                .path
                .file_name()
                .map_or_else(|| "file".to_owned(), |n| n.to_string_lossy().into_owned());
            format!("input/external/{index}-{name}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::instructions::Origin;

    #[test]
    fn two_runs_never_share_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let instructions = Instructions {
            claude_md: "# r".into(),
            checks: vec![("completeness".into(), "c".into())],
            skills: vec![("domain/x.md".into(), "skill".into())],
            origin: Origin::BuiltIn,
        };
        let files = vec![
            ReviewedFile {
                path: root.join("adr/001-x.md"),
                display: "adr/001-x.md".into(),
                bytes: b"one".to_vec(),
            },
            ReviewedFile {
                path: PathBuf::from("/elsewhere/ADR-y.md"),
                display: "/elsewhere/ADR-y.md".into(),
                bytes: b"two".to_vec(),
            },
        ];
        let now = SystemTime::now();
        let a = create(root, &instructions, &files, now).unwrap();
        let b = create(root, &instructions, &files, now).unwrap();
        assert_ne!(a.path, b.path);
        assert_eq!(
            a.inputs,
            ["input/adr/001-x.md", "input/external/1-ADR-y.md"]
        );
        assert_eq!(
            std::fs::read(a.path.join("input/adr/001-x.md")).unwrap(),
            b"one"
        );
        assert!(a.path.join("checks/completeness.md").is_file());
        assert!(a.path.join("skills/domain/x.md").is_file());
        assert!(a.output().is_dir());
        assert!(root.join(".helix-gate/.gitignore").is_file());

        std::fs::create_dir_all(root.join(RUNS_DIR).join("not-a-run")).unwrap();
        let c = create(root, &instructions, &files, now).unwrap();
        prune(root, 2);
        assert!(!a.path.exists(), "the oldest run is pruned");
        assert!(b.path.exists() && c.path.exists());
        assert!(root.join(RUNS_DIR).join("not-a-run").exists());
    }

    #[test]
    fn run_ids_are_recognised() {
        assert!(is_run_id(&new_id(SystemTime::now())));
        assert!(!is_run_id("cache"));
        assert!(!is_run_id("20250101T000000Z"));
    }
}
