//! Install the git pre-commit shim into the repository's hooks directory.
//!
//! The shim (`hooks/pre-commit` in this repository, embedded here) only finds and runs
//! `helix-gate pre-commit`; all logic lives in the binary, so upgrading helix-gate never
//! requires reinstalling the hook. The hooks directory is the one git uses
//! ([`Repo::hooks_dir`]: `core.hooksPath`, linked worktrees, `GIT_DIR`).
//!
//! A foreign hook is never overwritten: it is renamed to `pre-commit.local`, the shim runs it
//! first, and uninstalling renames it back.
//!
//! Where the hooks directory is, git decides (`core.hooksPath` may name a folder outside the
//! repository, e.g. a dotfiles checkout): the shim is written there, but never through a
//! symbolic link. A symlinked foreign hook is moved aside as the link it is. A symlinked
//! `pre-commit` that points to a helix-gate shim (a dotfiles-managed hook) is ours: it is
//! left as it is when it points to this version's shim and refused otherwise, never chained,
//! because a shim that runs a `pre-commit.local` which is itself a shim calls itself forever.

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::git::Repo;

/// The shim script, byte for byte as installed.
pub const SHIM: &str = include_str!("../../hooks/pre-commit");
/// The line that identifies a hook file as helix-gate's shim (any version).
pub const MARKER: &str = "# helix-gate pre-commit shim";

pub const HOOK: &str = "pre-commit";
pub const LOCAL: &str = "pre-commit.local";

/// What [`install_into`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Installed {
    /// There was no hook; the shim was written.
    Fresh,
    /// A foreign hook was moved to `pre-commit.local` and the shim written.
    Chained,
    /// An older shim was replaced by this version's.
    Updated,
    /// This shim was already installed; nothing was written.
    Unchanged,
}

/// What [`uninstall_from`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uninstalled {
    /// The shim was removed.
    Removed,
    /// The shim was removed and `pre-commit.local` renamed back to `pre-commit`.
    Restored,
    /// There is no pre-commit hook.
    NotInstalled,
    /// The pre-commit hook is not helix-gate's; it was left alone.
    Foreign,
}

/// Why installing or uninstalling failed.
#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("{action} {}: {source}", path.display())]
    Io {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Moving the foreign hook aside would overwrite another file.
    #[error(
        "{} is not helix-gate's hook and {} already exists, so the hook cannot be kept as {LOCAL}; \
merge the two into one {LOCAL} (or remove one), then run `helix-gate install git` again",
        hook.display(),
        local.display()
    )]
    LocalExists { hook: PathBuf, local: PathBuf },
    /// Writing the shim failed (the message names the file).
    #[error(transparent)]
    Write(std::io::Error),
    /// The hook is a symbolic link to an older shim, which is not written through.
    #[error(
        "{} is a symbolic link to {}, an older helix-gate shim; helix-gate does not write through \
the link: update that file with the shim of this version (hooks/pre-commit of helix-gate) or \
remove the link, then run `helix-gate install git` again",
        hook.display(),
        target.display()
    )]
    LinkedOldShim { hook: PathBuf, target: PathBuf },
}

fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> InstallError {
    let path = path.to_path_buf();
    move |source| InstallError::Io {
        action,
        path,
        source,
    }
}

/// `helix-gate install git`: the hook file and what was done to it.
pub fn install() -> anyhow::Result<(PathBuf, Installed)> {
    let dir = hooks_dir()?;
    let done = install_into(&dir)?;
    Ok((dir.join(HOOK), done))
}

/// `helix-gate uninstall git`: the hooks directory and what was done in it.
pub fn uninstall() -> anyhow::Result<(PathBuf, Uninstalled)> {
    let dir = hooks_dir()?;
    let done = uninstall_from(&dir)?;
    Ok((dir, done))
}

/// The hooks directory of the repository around the current directory, as git sees it.
fn hooks_dir() -> anyhow::Result<PathBuf> {
    let cwd = std::env::current_dir().context("cannot determine the current directory")?;
    let repo = Repo::discover(&cwd)?;
    Ok(repo.hooks_dir()?)
}

/// Whether the file at `path` is a helix-gate shim. Symlinks and unreadable files are not.
fn is_shim(path: &Path) -> bool {
    let is_file = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
    is_file
        && std::fs::read(path).is_ok_and(|bytes| {
            String::from_utf8_lossy(&bytes)
                .lines()
                .any(|l| l.trim_end() == MARKER)
        })
}

/// Whether `path` is a symbolic link to a helix-gate shim.
fn is_linked_shim(path: &Path) -> bool {
    let is_link = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    is_link
        && std::fs::read(path).is_ok_and(|bytes| {
            String::from_utf8_lossy(&bytes)
                .lines()
                .any(|l| l.trim_end() == MARKER)
        })
}

fn exists(path: &Path) -> bool {
    // symlink_metadata: a dangling symlink is still a file we must not overwrite.
    std::fs::symlink_metadata(path).is_ok()
}

/// What the pre-commit hook of a hooks directory is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// No pre-commit hook.
    Missing,
    /// helix-gate's shim (a file or a link to one); `chained`: a pre-commit.local runs first.
    Shim { chained: bool },
    /// Some other hook.
    Foreign,
}

/// The state of the pre-commit hook in the hooks directory `dir`.
pub fn state(dir: &Path) -> State {
    let hook = dir.join(HOOK);
    if !exists(&hook) {
        State::Missing
    } else if is_shim(&hook) || is_linked_shim(&hook) {
        State::Shim {
            chained: exists(&dir.join(LOCAL)),
        }
    } else {
        State::Foreign
    }
}

/// Install the shim into `dir` (created if missing). Idempotent; never overwrites a foreign hook.
pub fn install_into(dir: &Path) -> Result<Installed, InstallError> {
    std::fs::create_dir_all(dir).map_err(io("cannot create", dir))?;
    let hook = dir.join(HOOK);
    let local = dir.join(LOCAL);
    let outcome = if !exists(&hook) {
        Installed::Fresh
    } else if is_shim(&hook) {
        if std::fs::read(&hook).is_ok_and(|b| b == SHIM.as_bytes()) {
            return Ok(Installed::Unchanged);
        }
        Installed::Updated
    } else if is_linked_shim(&hook) {
        if std::fs::read(&hook).is_ok_and(|b| b == SHIM.as_bytes()) {
            return Ok(Installed::Unchanged);
        }
        let target = std::fs::read_link(&hook).unwrap_or_default();
        return Err(InstallError::LinkedOldShim { hook, target });
    } else {
        if exists(&local) {
            return Err(InstallError::LocalExists { hook, local });
        }
        // A rename keeps the hook's mode, and a symlink stays a symlink in the same directory.
        std::fs::rename(&hook, &local).map_err(io("cannot move aside", &hook))?;
        Installed::Chained
    };
    write_executable(dir, &hook, SHIM)?;
    Ok(outcome)
}

/// Remove the shim from `dir` and put a chained hook back. Leaves foreign hooks alone.
pub fn uninstall_from(dir: &Path) -> Result<Uninstalled, InstallError> {
    let hook = dir.join(HOOK);
    let local = dir.join(LOCAL);
    if !exists(&hook) {
        return Ok(Uninstalled::NotInstalled);
    }
    if !is_shim(&hook) && !is_linked_shim(&hook) {
        return Ok(Uninstalled::Foreign);
    }
    if exists(&local) {
        // rename replaces the shim in one step: there is never a moment without a hook.
        std::fs::rename(&local, &hook).map_err(io("cannot restore", &local))?;
        Ok(Uninstalled::Restored)
    } else {
        // A link is removed as a link: the file it points to stays.
        std::fs::remove_file(&hook).map_err(io("cannot remove", &hook))?;
        Ok(Uninstalled::Removed)
    }
}

/// Write through a temporary file and a rename, so git never runs a half-written hook; the
/// file must stay inside the hooks directory `dir`.
fn write_executable(dir: &Path, path: &Path, content: &str) -> Result<(), InstallError> {
    let options = crate::fs::atomic::Options::DURABLE.with_mode(0o755);
    crate::fs::atomic::write_with(dir, path, content.as_bytes(), options)
        .map_err(InstallError::Write)
}

/// Whether `name` is an executable file in a `PATH` directory (what the shim's
/// `command -v` will find).
/// Whether an executable `name` is on PATH.
pub fn on_path(name: &str) -> bool {
    std::env::var_os(crate::env::PATH).is_some_and(|paths| {
        std::env::split_paths(&paths).any(|dir| {
            let candidate = dir.join(name);
            candidate.is_file() || candidate.with_extension("exe").is_file()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shim_carries_the_marker_and_calls_pre_commit() {
        assert!(SHIM.starts_with("#!/bin/sh\n"));
        assert!(SHIM.lines().any(|l| l == MARKER));
        assert!(SHIM.contains("exec helix-gate pre-commit"));
        assert!(SHIM.contains(LOCAL));
    }

    #[test]
    fn install_chain_reinstall_and_restore() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("hooks");
        assert_eq!(uninstall_from(&dir).unwrap(), Uninstalled::NotInstalled);
        assert_eq!(install_into(&dir).unwrap(), Installed::Fresh);
        assert_eq!(install_into(&dir).unwrap(), Installed::Unchanged);
        assert_eq!(uninstall_from(&dir).unwrap(), Uninstalled::Removed);
        assert!(!dir.join(HOOK).exists());

        std::fs::write(dir.join(HOOK), "#!/bin/sh\necho mine\n").unwrap();
        assert_eq!(install_into(&dir).unwrap(), Installed::Chained);
        assert_eq!(
            std::fs::read_to_string(dir.join(LOCAL)).unwrap(),
            "#!/bin/sh\necho mine\n"
        );
        assert_eq!(std::fs::read_to_string(dir.join(HOOK)).unwrap(), SHIM);
        assert_eq!(install_into(&dir).unwrap(), Installed::Unchanged);
        assert_eq!(uninstall_from(&dir).unwrap(), Uninstalled::Restored);
        assert_eq!(
            std::fs::read_to_string(dir.join(HOOK)).unwrap(),
            "#!/bin/sh\necho mine\n"
        );
        assert!(!dir.join(LOCAL).exists());
        assert_eq!(uninstall_from(&dir).unwrap(), Uninstalled::Foreign);
    }

    #[test]
    fn old_shim_is_updated_and_a_taken_local_name_refuses() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::write(dir.join(HOOK), format!("#!/bin/sh\n{MARKER}\nold\n")).unwrap();
        assert_eq!(install_into(dir).unwrap(), Installed::Updated);
        assert_eq!(std::fs::read_to_string(dir.join(HOOK)).unwrap(), SHIM);

        std::fs::write(dir.join(HOOK), "#!/bin/sh\nforeign\n").unwrap();
        std::fs::write(dir.join(LOCAL), "#!/bin/sh\nolder\n").unwrap();
        let err = install_into(dir).unwrap_err();
        assert!(matches!(err, InstallError::LocalExists { .. }), "{err}");
        assert_eq!(
            std::fs::read_to_string(dir.join(HOOK)).unwrap(),
            "#!/bin/sh\nforeign\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_hook_linked_to_a_shim_is_ours_and_never_chained() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("hooks");
        let dotfiles = tmp.path().join("dotfiles");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&dotfiles).unwrap();
        let target = dotfiles.join("pre-commit");
        std::fs::write(&target, SHIM).unwrap();
        symlink(&target, dir.join(HOOK)).unwrap();
        assert_eq!(install_into(&dir).unwrap(), Installed::Unchanged);
        assert!(!exists(&dir.join(LOCAL)), "a linked shim is never chained");

        let old = format!("#!/bin/sh\n{MARKER}\nold\n");
        std::fs::write(&target, &old).unwrap();
        let err = install_into(&dir).unwrap_err();
        assert!(matches!(err, InstallError::LinkedOldShim { .. }), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), old);
        assert!(
            std::fs::symlink_metadata(dir.join(HOOK))
                .unwrap()
                .is_symlink()
        );

        assert_eq!(uninstall_from(&dir).unwrap(), Uninstalled::Removed);
        assert!(!exists(&dir.join(HOOK)));
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            old,
            "the target stays"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_symlinked_foreign_hook_is_moved_aside_as_a_link() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("hooks");
        std::fs::create_dir_all(&dir).unwrap();
        let target = tmp.path().join("lint.sh");
        std::fs::write(&target, "#!/bin/sh\nlint\n").unwrap();
        symlink(&target, dir.join(HOOK)).unwrap();
        assert_eq!(install_into(&dir).unwrap(), Installed::Chained);
        assert!(
            std::fs::symlink_metadata(dir.join(LOCAL))
                .unwrap()
                .is_symlink()
        );
        assert!(
            !std::fs::symlink_metadata(dir.join(HOOK))
                .unwrap()
                .is_symlink()
        );
        assert_eq!(
            std::fs::read_to_string(&target).unwrap(),
            "#!/bin/sh\nlint\n"
        );
        assert_eq!(uninstall_from(&dir).unwrap(), Uninstalled::Restored);
        assert!(
            std::fs::symlink_metadata(dir.join(HOOK))
                .unwrap()
                .is_symlink()
        );
    }
}
