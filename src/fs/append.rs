//! Appending records to a log file: one `write` of the whole record on a file
//! opened with `O_APPEND`, so records of parallel processes never interleave
//! (Claude Code runs hooks in parallel) and a crash leaves at most one partial
//! last line, which the readers skip.
//!
//! The file's real location must be inside the folder given
//! ([`super::confine::resolve`]), and it is opened without following a final
//! symbolic link: a log linked to a shell script outside the project is never
//! appended to.

use std::io::{self, Write as _};
use std::path::Path;

use super::confine::{self, Access};

/// Whether a missing file is created or is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    Create,
    Fail,
}

/// Append `record` to `path` (inside `root`) in one write.
pub fn append(root: &Path, path: &Path, record: &[u8], missing: Missing) -> io::Result<()> {
    let path = confine::resolve(root, path)?;
    let create = missing == Missing::Create;
    let mut file = confine::open_no_follow(&path, Access::Append { create })?;
    file.write_all(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_creates_or_refuses_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log.jsonl");
        assert_eq!(
            append(dir.path(), &log, b"a\n", Missing::Fail)
                .unwrap_err()
                .kind(),
            io::ErrorKind::NotFound
        );
        append(dir.path(), &log, b"a\n", Missing::Create).unwrap();
        append(dir.path(), &log, b"b\n", Missing::Fail).unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "a\nb\n");
    }

    #[cfg(unix)]
    #[test]
    fn a_log_linked_out_of_the_folder_is_not_appended_to() {
        let dir = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let script = elsewhere.path().join("script.sh");
        std::fs::write(&script, "#!/bin/sh\n").unwrap();
        let log = dir.path().join("log.jsonl");
        std::os::unix::fs::symlink(&script, &log).unwrap();
        let err = append(dir.path(), &log, b"$(touch /tmp/x)\n", Missing::Create).unwrap_err();
        assert!(confine::escape(&err).is_some(), "{err}");
        assert_eq!(std::fs::read_to_string(&script).unwrap(), "#!/bin/sh\n");
        // A link that stays inside is appended through.
        std::fs::write(dir.path().join("real.jsonl"), "a\n").unwrap();
        std::os::unix::fs::symlink("real.jsonl", dir.path().join("alias.jsonl")).unwrap();
        append(
            dir.path(),
            &dir.path().join("alias.jsonl"),
            b"b\n",
            Missing::Fail,
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("real.jsonl")).unwrap(),
            "a\nb\n"
        );
    }
}
