//! Reading files a repository can plant: only regular files, opened without
//! blocking, up to a limit. A FIFO blocks `open(2)` forever and a device never
//! ends, so a path is stat-ed first, opened with `O_NONBLOCK` (and, for
//! helix-gate's own data, `O_NOFOLLOW`), and decided again on `fstat` of what was
//! really opened. Every reader of an ADR, a configuration file or a data file
//! goes through here.

use std::io::Read as _;
use std::path::Path;

use super::platform;

/// A path that exists but is not a regular file: a directory, FIFO, socket or device
/// (also behind a symlink). [`read_limited`] never reads it; [`not_regular`] finds it in
/// the I/O error (the engine reports it as `file-not-regular`).
#[derive(Debug, thiserror::Error)]
#[error("not a regular file but {kind}")]
pub struct NotRegular {
    pub kind: &'static str,
}

/// What a file is, when it is not a regular file (on Windows, a reparse point
/// opened as itself is not one either).
fn irregular_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let file_type = meta.file_type();
    if file_type.is_file() && !platform::is_reparse_point(meta) {
        return None;
    }
    Some(if file_type.is_dir() && !platform::is_reparse_point(meta) {
        "a directory"
    } else {
        platform::special_kind(meta)
    })
}

/// The error of a refused non-regular `path`, naming it: for helix-gate's own
/// files, whose callers do not report the path themselves.
pub(super) fn irregular_at(path: &Path, meta: &std::fs::Metadata) -> std::io::Result<()> {
    match irregular_kind(meta) {
        None => Ok(()),
        Some(kind) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "`{}` is not a regular file but {kind}; helix-gate's own files are always regular files",
                path.display()
            ),
        )),
    }
}

fn refuse_irregular(meta: &std::fs::Metadata) -> std::io::Result<()> {
    match irregular_kind(meta) {
        None => Ok(()),
        Some(kind) => Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            NotRegular { kind },
        )),
    }
}

/// The kind of file behind an error of [`read_limited`] that refused a non-regular file.
pub fn not_regular(err: &std::io::Error) -> Option<&'static str> {
    err.get_ref()?.downcast_ref::<NotRegular>().map(|n| n.kind)
}

/// Read a regular file, at most `limit + 1` bytes: enough to tell that a file is too
/// large without reading all of it. Anything else is refused with [`NotRegular`] and
/// never read, so no input can make this block or run forever.
pub fn read_limited(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    // stat first: it never blocks and opens nothing (opening some devices has effects).
    refuse_irregular(&std::fs::metadata(path)?)?;
    // The path can be swapped between the stat and the open. Opening a FIFO for reading
    // blocks in open(2) until a writer appears; O_NONBLOCK makes it return at once, and
    // fstat on the open file then decides on what was really opened.
    let file = platform::nonblocking(std::fs::OpenOptions::new().read(true)).open(path)?;
    let meta = file.metadata()?;
    refuse_irregular(&meta)?;
    // Only a capacity hint: on a 32-bit target a size beyond `usize` reserves nothing.
    let capacity = usize::try_from(meta.len().min(limit + 1)).unwrap_or(0);
    let mut bytes = Vec::with_capacity(capacity);
    file.take(limit + 1).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Whether the last component of a path may be a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// Follow it (an ADR or a configuration file may be a link inside the project).
    Follow,
    /// Refuse it (helix-gate's own data files are never links).
    Refuse,
}

/// The regular file `path`, opened for reading without blocking (a FIFO's `open(2)`
/// returns at once) and decided on `fstat` of what was opened: anything else is refused
/// with [`NotRegular`] and never read. For a reader that does not read the whole file
/// (a transcript's tail); [`regular`] reads it all.
pub fn open_regular(path: &Path, links: Links) -> std::io::Result<std::fs::File> {
    let file = open_read(path, links)?;
    refuse_irregular(&file.metadata()?)?;
    Ok(file)
}

fn link_refused(path: &Path) -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!(
            "`{}` is a symbolic link, which helix-gate's own files never are; not read",
            path.display()
        ),
    )
}

#[cfg(unix)]
fn open_read(path: &Path, links: Links) -> std::io::Result<std::fs::File> {
    use rustix::fs::{Mode, OFlags};
    let mut flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
    if links == Links::Refuse {
        flags |= OFlags::NOFOLLOW;
    }
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(|errno| {
        if links == Links::Refuse && errno == rustix::io::Errno::LOOP {
            link_refused(path)
        } else {
            std::io::Error::from(errno)
        }
    })?;
    Ok(std::fs::File::from(fd))
}

/// Windows: a final reparse point is opened as itself and refused, never followed.
#[cfg(windows)]
fn open_read(path: &Path, links: Links) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    if links == Links::Refuse {
        platform::no_follow(&mut options);
    }
    let file = options.open(path)?;
    if links == Links::Refuse && platform::is_reparse_point(&file.metadata()?) {
        return Err(link_refused(path));
    }
    Ok(file)
}

/// Fill `buf` from `file` at `offset`, without moving a shared position (Unix)
/// or whatever the position was (Windows): for a reader that reads parts of a file
/// it holds open.
pub fn exact_at(file: &std::fs::File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            let n = std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            done += n;
        }
        Ok(())
    }
}

/// The bytes of the regular file `path`, an error for anything else and for a file
/// larger than `limit` bytes. For files helix-gate itself wrote.
pub fn regular(path: &Path, limit: u64, links: Links) -> std::io::Result<Vec<u8>> {
    let file = open_regular(path, links)?;
    let meta = file.metadata()?;
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is larger than {limit} bytes", path.display()),
        )
    };
    if meta.len() > limit {
        return Err(too_large());
    }
    // Only a capacity hint; the file may still grow, so the read is capped too.
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

/// The text of a regular file (links followed) up to `limit` bytes, or None when it
/// does not exist: for configuration files and INDEX.md.
pub fn optional_text(path: &Path, limit: u64) -> std::io::Result<Option<String>> {
    match regular(path, limit, Links::Follow) {
        Ok(bytes) => String::from_utf8(bytes)
            .map(Some)
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The largest configuration file read (settings, rules, approvals, instructions).
pub const CONFIG_LIMIT: u64 = 4 << 20;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_regular_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, b"{}").unwrap();
        assert_eq!(regular(&file, 10, Links::Refuse).unwrap(), b"{}");
        assert!(regular(&file, 1, Links::Refuse).is_err(), "over the limit");
        assert!(regular(dir.path(), 10, Links::Refuse).is_err(), "a folder");
    }

    #[test]
    #[cfg(unix)]
    fn links_devices_and_fifos_are_refused() {
        use std::time::{Duration, Instant};
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, b"{}").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert!(regular(&link, 10, Links::Refuse).is_err(), "a symlink");
        assert!(
            regular(Path::new("/dev/zero"), 10, Links::Refuse).is_err(),
            "a device"
        );

        let fifo = dir.path().join("fifo.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let started = Instant::now();
        assert!(regular(&fifo, 10, Links::Refuse).is_err(), "a FIFO");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    /// Windows: a symbolic link (a reparse point) is opened as itself and refused.
    #[test]
    #[cfg_attr(windows, ignore = "Wine's symbolic links are not NTFS reparse points")]
    #[cfg(windows)]
    fn a_reparse_point_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.json");
        std::fs::write(&file, b"{}").unwrap();
        let link = dir.path().join("link.json");
        if std::os::windows::fs::symlink_file(&file, &link).is_err() {
            return; // creating links needs a privilege this account may not have
        }
        assert!(regular(&link, 10, Links::Refuse).is_err(), "a link");
        assert_eq!(regular(&link, 10, Links::Follow).unwrap(), b"{}");
    }
}
