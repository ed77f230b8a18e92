//! What the file system offers differently on Unix and on Windows, in one place:
//! the kinds of special files refused before a read, opening without blocking
//! and without following a final link, the stamp that tells an unchanged file,
//! and the private folders and files of helix-gate's state (the signing key).
//!
//! On Unix: FIFOs, sockets and devices are refused, `O_NONBLOCK` / `O_NOFOLLOW`,
//! mode 0700 / 0600. On Windows only regular files and folders exist for std;
//! a reparse point (a symbolic link, a junction, a cloud placeholder) is
//! refused where a link would be, opened with `FILE_FLAG_OPEN_REPARSE_POINT` so
//! it is never followed. Windows has no mode bits: the state folder lives in
//! the user's profile (`%LOCALAPPDATA%`), whose inherited ACL gives access to
//! the user, SYSTEM and Administrators only; helix-gate sets no ACL of its own.

use std::fs::{DirBuilder, FileType, Metadata, OpenOptions};

/// What a file or folder looked like: size, modification and change times in
/// nanoseconds, inode. Equal stamps mean an unchanged file (as git's index does).
pub type Stamp = (u64, i128, i128, u64);

/// `FILE_ATTRIBUTE_REPARSE_POINT`: a symbolic link, junction or placeholder.
#[cfg(windows)]
const REPARSE_POINT: u32 = 0x400;
/// `FILE_FLAG_OPEN_REPARSE_POINT`: open the reparse point itself, never its target.
#[cfg(windows)]
const OPEN_REPARSE_POINT: u32 = 0x0020_0000;

/// The special kind of a file that is neither a regular file nor a folder.
#[cfg(unix)]
pub fn special_kind(meta: &Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt as _;
    let file_type: FileType = meta.file_type();
    if file_type.is_fifo() {
        "a named pipe (FIFO)"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_char_device() {
        "a character device"
    } else if file_type.is_block_device() {
        "a block device"
    } else {
        "a special file"
    }
}

/// The special kind of a file that is neither a regular file nor a folder.
#[cfg(windows)]
pub fn special_kind(meta: &Metadata) -> &'static str {
    let file_type: FileType = meta.file_type();
    if file_type.is_symlink() || is_reparse_point(meta) {
        "a reparse point (a link or junction)"
    } else {
        "a special file"
    }
}

/// Whether `meta` (from an open file or `symlink_metadata`) is a reparse point:
/// never on Unix, where links are found by `O_NOFOLLOW`.
#[cfg(windows)]
pub fn is_reparse_point(meta: &Metadata) -> bool {
    use std::os::windows::fs::MetadataExt as _;
    meta.file_attributes() & REPARSE_POINT != 0
}

#[cfg(unix)]
pub fn is_reparse_point(_meta: &Metadata) -> bool {
    false
}

/// Options that open a file for reading without blocking: a FIFO's `open(2)`
/// returns at once (Unix; Windows has no FIFOs in the file system).
pub fn nonblocking(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.custom_flags(rustix::fs::OFlags::NONBLOCK.bits().cast_signed());
    }
    options
}

/// Options that open a final reparse point itself instead of following it
/// (Windows; on Unix `open_no_follow` uses `O_NOFOLLOW`).
#[cfg(windows)]
pub fn no_follow(options: &mut OpenOptions) -> &mut OpenOptions {
    use std::os::windows::fs::OpenOptionsExt as _;
    options.custom_flags(OPEN_REPARSE_POINT)
}

/// The stamp of `meta`. Windows has no inode and no change time for std: the
/// last write time stands for both times and the inode is 0, so a rewrite
/// within the same 100 ns tick with the same size goes unseen there.
#[cfg(unix)]
pub fn stamp(meta: &Metadata) -> Stamp {
    use std::os::unix::fs::MetadataExt as _;
    (
        meta.size(),
        nanos(meta.mtime().into(), meta.mtime_nsec().into()),
        nanos(meta.ctime().into(), meta.ctime_nsec().into()),
        meta.ino(),
    )
}

/// Seconds and nanoseconds as nanoseconds.
#[cfg(unix)]
fn nanos(secs: i128, nanos: i128) -> i128 {
    secs * 1_000_000_000 + nanos
}

/// Stamps of many paths below one folder ([`Stamps::at`]): on Unix relative to
/// the folder held open, each one `stat` with the path as given and no
/// allocation; elsewhere by the joined path. The last subfolder asked about is
/// held open too, so a folder of 200 ADRs costs one lookup of its name, not 200.
pub struct Stamps {
    root: std::path::PathBuf,
    #[cfg(unix)]
    dir: Option<rustix::fd::OwnedFd>,
    /// The last subfolder (relative, as given) and the folder opened for it.
    #[cfg(unix)]
    last: std::cell::RefCell<Option<(String, Option<rustix::fd::OwnedFd>)>>,
}

impl Stamps {
    pub fn new(root: &std::path::Path) -> Stamps {
        Stamps {
            root: root.to_path_buf(),
            #[cfg(unix)]
            dir: open_dir(rustix::fs::CWD, root),
            #[cfg(unix)]
            last: std::cell::RefCell::new(None),
        }
    }

    /// The stamp of `rel` below the folder (links followed, as [`std::fs::metadata`]);
    /// None when it does not exist or cannot be read.
    pub fn at(&self, rel: &str) -> Option<Stamp> {
        #[cfg(unix)]
        if let Some(dir) = &self.dir {
            let st = match rel.rsplit_once('/') {
                // In a subfolder: by its name, relative to the subfolder held open
                // (opened as `stat` walks it: links followed). A subfolder that
                // does not open (no read permission) is walked as before.
                Some((parent, name))
                    if !parent.is_empty() && !name.is_empty() && !rel.starts_with('/') =>
                {
                    let mut last = self.last.borrow_mut();
                    if last.as_ref().is_none_or(|(p, _)| p != parent) {
                        *last = Some((parent.to_owned(), open_dir(dir, parent)));
                    }
                    match last.as_ref().and_then(|(_, fd)| fd.as_ref()) {
                        Some(sub) => rustix::fs::statat(sub, name, rustix::fs::AtFlags::empty()),
                        None => rustix::fs::statat(dir, rel, rustix::fs::AtFlags::empty()),
                    }
                }
                _ => rustix::fs::statat(dir, rel, rustix::fs::AtFlags::empty()),
            }
            .ok()?;
            // The field types differ between libcs and targets: widened, never cut.
            #[allow(clippy::useless_conversion)]
            return Some((
                u64::try_from(st.st_size).unwrap_or(0),
                nanos(i128::from(st.st_mtime), i128::from(st.st_mtime_nsec)),
                nanos(i128::from(st.st_ctime), i128::from(st.st_ctime_nsec)),
                u64::from(st.st_ino),
            ));
        }
        std::fs::metadata(self.root.join(rel))
            .ok()
            .map(|m| stamp(&m))
    }
}

/// The folder `path` (relative to `at`) opened for `*at` calls, links followed.
#[cfg(unix)]
fn open_dir<Fd: rustix::fd::AsFd, P: rustix::path::Arg>(
    at: Fd,
    path: P,
) -> Option<rustix::fd::OwnedFd> {
    rustix::fs::openat(
        at,
        path,
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )
    .ok()
}

#[cfg(windows)]
pub fn stamp(meta: &Metadata) -> Stamp {
    use std::os::windows::fs::MetadataExt as _;
    // 100 ns ticks since 1601: made nanoseconds since 1970, as on Unix, so that the
    // governing cache's "changed within the last seconds" test compares like with like.
    const UNIX_EPOCH_TICKS: i128 = 116_444_736_000_000_000;
    let written = (i128::from(meta.last_write_time()) - UNIX_EPOCH_TICKS) * 100;
    (meta.file_size(), written, written, 0)
}

/// A folder only its user may enter (0700 on Unix; on Windows the profile's ACL).
pub fn private_dir(builder: &mut DirBuilder) -> &mut DirBuilder {
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt as _;
        builder.mode(0o700);
    }
    builder
}

/// A new file only its user may read (0600 on Unix; on Windows the folder's ACL).
pub fn private_file(options: &mut OpenOptions) -> &mut OpenOptions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options
}

/// The permission bits of `meta` (Unix), None where there are none (Windows).
#[cfg(unix)]
pub fn mode(meta: &Metadata) -> Option<u32> {
    use std::os::unix::fs::PermissionsExt as _;
    Some(meta.permissions().mode() & 0o7777)
}

#[cfg(windows)]
pub fn mode(_meta: &Metadata) -> Option<u32> {
    None
}

/// Fill `buf` from the system's random generator (`/dev/urandom`, `ProcessPrng`).
pub fn random(buf: &mut [u8]) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::io::Read as _;
        std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(buf))
    }
    #[cfg(windows)]
    {
        getrandom::fill(buf).map_err(|e| std::io::Error::other(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_below_a_folder_are_those_of_the_joined_path() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir(root.path().join("adr")).unwrap();
        std::fs::write(root.path().join("adr/001-a.md"), "# A\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("001-a.md", root.path().join("adr/link.md")).unwrap();
        std::fs::create_dir_all(root.path().join("adr/old/deep")).unwrap();
        std::fs::write(root.path().join("adr/old/002-b.md"), "# B\n").unwrap();
        std::fs::write(root.path().join("adr/old/deep/003-c.md"), "# C\n").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("old", root.path().join("adr/linked")).unwrap();
        let stamps = Stamps::new(root.path());
        // Folders in turn and back again: each answer is that of the joined path.
        for rel in [
            "adr/001-a.md",
            "adr",
            "adr/link.md",
            "adr/old/002-b.md",
            "adr/old/deep/003-c.md",
            "adr/001-a.md",
            "adr/old",
            "adr/old/",
            "adr/linked/002-b.md",
            "adr/old/002-b.md",
            "adr//001-a.md",
            "adr/old/../001-a.md",
        ] {
            let Ok(meta) = std::fs::metadata(root.path().join(rel)) else {
                continue;
            };
            assert_eq!(stamps.at(rel), Some(stamp(&meta)), "{rel}");
        }
        assert_eq!(stamps.at("adr/missing.md"), None);
        assert_eq!(stamps.at("missing/001-a.md"), None);
        assert_eq!(stamps.at("adr/001-a.md/x"), None);
        assert!(stamps.at("adr/001-a.md").is_some());
        let outside = tempfile::NamedTempFile::new().unwrap();
        let abs = outside.path().to_str().unwrap();
        assert_eq!(
            stamps.at(abs),
            Some(stamp(&std::fs::metadata(abs).unwrap()))
        );
    }
}
