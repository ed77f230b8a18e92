//! The layout of `.helix-gate/`, helix-gate's data folder inside a repository,
//! in one place: every path below it is named here and nowhere else.
//!
//! ```text
//! .helix-gate/
//!   .gitignore               `*`: the folder never reaches a commit
//!   state/<session>.json     per-session hook state
//!   state/<session>.lock     its lock (kept; the state files are pruned by age)
//!   log.jsonl                the hook's decision log
//!   approvals.jsonl          the approval history
//!   approval-cache/<key>.json  approved verdicts
//!   approvals/<run-id>/      one folder per reviewer run
//!   finalized.jsonl          where `finalize` moved each draft
//!   governs-index            the governing index, cached (only while ADRs rule code)
//!   governs-none             the same stamps when no ADR rules code
//!   overrides.json           a person's overrides of ADR rules, each for one commit
//! ```
//!
//! Paths are relative to the repository root; a folder is created on first use,
//! always together with the `.gitignore`. A cloned repository may ship any of
//! them as a symbolic link: every write goes through [`super::confine`], so a
//! link that leads out of the project is refused, never written through.

use std::io;
use std::path::{Path, PathBuf};

/// The data folder.
pub const DIR: &str = ".helix-gate";
/// Per-session hook state and its locks.
pub const STATE_DIR: &str = ".helix-gate/state";
/// The hook's decision log.
pub const LOG_PATH: &str = ".helix-gate/log.jsonl";
/// The approval history.
pub const HISTORY_PATH: &str = ".helix-gate/approvals.jsonl";
/// Cached `approved` verdicts.
pub const CACHE_DIR: &str = ".helix-gate/approval-cache";
/// One folder per reviewer run.
pub const RUNS_DIR: &str = ".helix-gate/approvals";
/// Per-content locks: one reviewer run at a time for the same content.
pub const REVIEWING_DIR: &str = ".helix-gate/reviewing";
/// Where `finalize` moved each draft (the Stop gate follows a finalized draft).
pub const FINALIZED_PATH: &str = ".helix-gate/finalized.jsonl";
/// A person's overrides of ADR rules waiting for the commit they let through.
pub const OVERRIDES_PATH: &str = ".helix-gate/overrides.json";
/// The intent of a finalize under way (removed when it is done).
pub const FINALIZE_INTENT_PATH: &str = ".helix-gate/finalize-intent.json";
/// The governing index's cache: it exists only while ADRs rule code (a binding
/// or pending ADR has rules, or a binding one links paths), so the hook's one
/// `stat` of it decides whether a written file can be governed at all.
pub const GOVERNS_INDEX_PATH: &str = ".helix-gate/governs-index";
/// The governing index's cache when no ADR rules anything: its stamps only.
pub const GOVERNS_NONE_PATH: &str = ".helix-gate/governs-none";

/// The `.gitignore` inside [`DIR`].
const GITIGNORE_NAME: &str = ".gitignore";
const GITIGNORE_TEXT: &str =
    "# helix-gate runtime data (session state, logs, approvals): never commit\n*\n";

/// Create `.helix-gate/` with its `.gitignore` when missing; returns the folder's
/// real location. Refused (see [`super::confine::Escape`]) when `.helix-gate`
/// leads out of the project through a symbolic link. Safe to call from many
/// processes at once.
pub fn ensure(root: &Path) -> io::Result<PathBuf> {
    let dir = create_dir(root, &root.join(DIR))?;
    // The .gitignore is written last, so its existence means all is done.
    let ignore = dir.join(GITIGNORE_NAME);
    if ignore.exists() {
        return Ok(dir);
    }
    // create_new: a concurrent process may write it at the same moment, and a
    // .gitignore the user edited is never replaced.
    match super::atomic::create_new(root, &ignore, GITIGNORE_TEXT.as_bytes()) {
        Err(e) if e.kind() != io::ErrorKind::AlreadyExists => Err(e),
        _ => Ok(dir),
    }
}

/// Create the folder `rel` (one of the `*_DIR` constants) inside an ensured
/// `.helix-gate/`; returns its real location, where new files can be created
/// without another check (it contains no symbolic link).
pub fn ensure_dir(root: &Path, rel: &str) -> io::Result<PathBuf> {
    ensure(root)?;
    create_dir(root, &root.join(rel))
}

/// The real location of the existing data folder `rel` (one of the `*_DIR`
/// constants), for removing old files from it; None when it is missing or leads
/// out of the project, where nothing is helix-gate's to remove.
pub fn existing_dir(root: &Path, rel: &str) -> Option<PathBuf> {
    super::confine::resolve(root, &root.join(rel))
        .ok()
        .filter(|dir| dir.is_dir())
}

/// `create_dir_all` inside the project, with a plain word for a file standing
/// where the folder belongs (the OS says "File exists", which reads as if nothing
/// were wrong).
fn create_dir(root: &Path, dir: &Path) -> io::Result<PathBuf> {
    super::confine::create_dir_all(root, dir).map_err(|e| {
        if e.kind() == io::ErrorKind::AlreadyExists && !dir.is_dir() {
            io::Error::new(
                io::ErrorKind::NotADirectory,
                "it exists but is not a directory",
            )
        } else {
            e
        }
    })
}

/// The state file and the lock file of one hook session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionFiles {
    pub state: PathBuf,
    pub lock: PathBuf,
}

/// Where the session `session` keeps its state, whatever characters its id has.
pub fn session_files(root: &Path, session: &str) -> SessionFiles {
    let dir = root.join(STATE_DIR);
    let stem = session_stem(session);
    SessionFiles {
        state: dir.join(format!("{stem}.json")),
        lock: dir.join(format!("{stem}.lock")),
    }
}

/// A file name for a session id that may contain anything.
pub fn session_stem(session: &str) -> String {
    let clean: String = session
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
        .take(80)
        .collect();
    if clean.is_empty() || clean.len() != session.len() {
        // Hostile or odd ids get a stable hash so they can never escape the directory.
        let hash = session.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
        format!("{clean}-{hash:016x}")
    } else {
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_is_inside_the_data_dir() {
        for path in [
            STATE_DIR,
            LOG_PATH,
            HISTORY_PATH,
            CACHE_DIR,
            RUNS_DIR,
            GOVERNS_INDEX_PATH,
            GOVERNS_NONE_PATH,
        ] {
            let rest = path.strip_prefix(DIR).and_then(|r| r.strip_prefix('/'));
            assert!(rest.is_some_and(|r| !r.is_empty()), "{path}");
        }
    }

    #[test]
    fn ensure_is_idempotent_and_writes_the_gitignore() {
        let root = tempfile::tempdir().unwrap();
        let dir = ensure(root.path()).unwrap();
        let real_root = std::fs::canonicalize(root.path()).unwrap();
        assert_eq!(dir, real_root.join(DIR));
        let ignore = dir.join(".gitignore");
        assert_eq!(std::fs::read_to_string(&ignore).unwrap(), GITIGNORE_TEXT);
        assert_eq!(
            GITIGNORE_TEXT.lines().last(),
            Some("*"),
            "everything below is ignored"
        );
        std::fs::write(&ignore, "*\n# edited\n").unwrap();
        assert_eq!(ensure(root.path()).unwrap(), dir);
        assert_eq!(
            std::fs::read_to_string(&ignore).unwrap(),
            "*\n# edited\n",
            "an existing .gitignore is left alone"
        );
        let state = ensure_dir(root.path(), STATE_DIR).unwrap();
        assert!(state.is_dir());
        assert_eq!(ensure_dir(root.path(), STATE_DIR).unwrap(), state);
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, [".gitignore", "state"], "no temporary file left");
    }

    #[test]
    fn ensure_dir_recreates_a_removed_gitignore() {
        let root = tempfile::tempdir().unwrap();
        ensure_dir(root.path(), CACHE_DIR).unwrap();
        std::fs::remove_file(root.path().join(DIR).join(GITIGNORE_NAME)).unwrap();
        ensure_dir(root.path(), CACHE_DIR).unwrap();
        assert!(root.path().join(DIR).join(GITIGNORE_NAME).is_file());
    }

    #[test]
    fn a_file_in_the_way_is_an_error() {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(root.path().join(DIR), "not a directory").unwrap();
        assert!(ensure(root.path()).is_err());
        assert!(ensure_dir(root.path(), STATE_DIR).is_err());
    }

    #[test]
    fn hostile_session_ids_stay_inside_the_state_directory() {
        assert_eq!(session_stem("2fff056a-7461"), "2fff056a-7461");
        let stem = session_stem("../../etc/passwd");
        assert!(!stem.contains('/') && !stem.contains(".."), "{stem}");
        assert_ne!(session_stem("a/b"), session_stem("a\\b"));
        let files = session_files(Path::new("/r"), "../x");
        assert_eq!(
            files.state.parent(),
            Some(Path::new("/r/.helix-gate/state"))
        );
        assert_eq!(files.lock.parent(), files.state.parent());
    }

    #[cfg(unix)]
    #[test]
    fn a_data_dir_linked_out_of_the_project_is_refused() {
        let root = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), root.path().join(DIR)).unwrap();
        for err in [
            ensure(root.path()).unwrap_err(),
            ensure_dir(root.path(), STATE_DIR).unwrap_err(),
        ] {
            assert!(super::super::confine::escape(&err).is_some(), "{err}");
        }
        assert!(
            std::fs::read_dir(elsewhere.path())
                .unwrap()
                .next()
                .is_none()
        );

        // One level down: the folder exists, its subfolder is the link.
        std::fs::remove_file(root.path().join(DIR)).unwrap();
        ensure(root.path()).unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), root.path().join(CACHE_DIR)).unwrap();
        let err = ensure_dir(root.path(), CACHE_DIR).unwrap_err();
        assert!(super::super::confine::escape(&err).is_some(), "{err}");
        assert!(
            std::fs::read_dir(elsewhere.path())
                .unwrap()
                .next()
                .is_none()
        );
        assert_eq!(existing_dir(root.path(), CACHE_DIR), None, "never pruned");
        assert!(existing_dir(root.path(), DIR).is_some());
        assert_eq!(existing_dir(root.path(), RUNS_DIR), None, "missing");
    }
}
