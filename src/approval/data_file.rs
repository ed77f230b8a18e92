//! Reading helix-gate's own files in `.helix-gate/` (cache entries, the
//! history). The folder is in the work tree, where a cloned repository can put
//! anything under these names: a FIFO would block `open` forever and a device
//! would never end. So a file is opened without blocking and without following
//! a symlink, and read only when it is a regular file, up to a limit.

use std::io::Read as _;
use std::path::Path;

use rustix::fs::{Mode, OFlags};

/// The bytes of the regular file `path`; an error for anything else (a FIFO,
/// a device, a folder, a symlink) and for a file larger than `limit` bytes.
pub(super) fn read_regular(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    let fd = rustix::fs::open(
        path,
        OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    )?;
    let file = std::fs::File::from(fd);
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        ));
    }
    if meta.len() > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is larger than {limit} bytes", path.display()),
        ));
    }
    // Only a capacity hint; the file may still grow, so the read is capped too.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is larger than {limit} bytes", path.display()),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, b"{}").unwrap();
        assert_eq!(read_regular(&file, 10).unwrap(), b"{}");
        assert!(read_regular(&file, 1).is_err(), "over the limit");
        assert!(read_regular(dir.path(), 10).is_err(), "a folder");
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(read_regular(&link, 10).is_err(), "a symlink");
        assert!(
            read_regular(Path::new("/dev/zero"), 10).is_err(),
            "a device"
        );

        let fifo = dir.path().join("fifo.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let started = Instant::now();
        assert!(read_regular(&fifo, 10).is_err(), "a FIFO");
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
