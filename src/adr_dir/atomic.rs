//! Writing files so that a reader sees the old content or the new one, never half
//! of it, and never overwriting a file that must not be overwritten.
//!
//! Temporary files live next to their target (same directory, so same file
//! system and `rename`/`link` stay atomic) and are hidden `.name.PID.tmp` files,
//! which no ADR glob matches.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

/// The temporary file for `name` in `dir`, unique per process.
pub fn temp_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(format!(".{name}.{}.tmp", std::process::id()))
}

/// Write `bytes` to a new temporary file in `dir`, flushed to disk, with the
/// permissions of `like` when that file exists.
pub fn write_temp(
    dir: &Path,
    name: &str,
    bytes: &[u8],
    like: Option<&Path>,
) -> std::io::Result<PathBuf> {
    let path = temp_path(dir, name);
    // A file of the same name can only be left over from a crashed run of this pid.
    let _ = std::fs::remove_file(&path);
    let result = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Some(perms) = like
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| m.permissions())
        {
            std::fs::set_permissions(&path, perms)?;
        }
        Ok(())
    })();
    match result {
        Ok(()) => Ok(path),
        Err(e) => {
            let _ = std::fs::remove_file(&path);
            Err(e)
        }
    }
}

/// Replace `path` with `bytes` in one step (temporary file + rename).
pub fn replace(path: &Path, bytes: &[u8]) -> anyhow::Result<()> {
    let dir = path.parent().unwrap_or_else(|| Path::new("."));
    let name = path
        .file_name()
        .map_or_else(|| "file".to_owned(), |n| n.to_string_lossy().into_owned());
    let temp = write_temp(dir, &name, bytes, Some(path))
        .with_context(|| format!("cannot write a temporary file in {}", dir.display()))?;
    std::fs::rename(&temp, path).map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        anyhow::Error::new(e).context(format!("cannot replace {}", path.display()))
    })
}

/// Create `target` with `bytes`, failing with `AlreadyExists` when it exists,
/// even if another process creates it at the same moment. The file appears
/// complete (hard link of a finished temporary file); where hard links are not
/// supported, it is written with `create_new`.
pub fn create_new(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = target.parent().unwrap_or_else(|| Path::new("."));
    let name = target
        .file_name()
        .map_or_else(|| "file".to_owned(), |n| n.to_string_lossy().into_owned());
    let temp = write_temp(dir, &name, bytes, None)?;
    let linked = std::fs::hard_link(&temp, target);
    let _ = std::fs::remove_file(&temp);
    match linked {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(e),
        Err(_) => {
            let mut file = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(target)?;
            let written = file.write_all(bytes).and_then(|()| file.sync_all());
            if written.is_err() {
                let _ = std::fs::remove_file(target);
            }
            written
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_and_create_new() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("INDEX.md");
        replace(&path, b"one").unwrap();
        replace(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        let target = dir.path().join("001-x.md");
        create_new(&target, b"adr").unwrap();
        let err = create_new(&target, b"other").unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "adr");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "{left:?}");
    }
}
