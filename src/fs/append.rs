//! Appending records to a log file: one `write` of the whole record on a file
//! opened with `O_APPEND`, so records of parallel processes never interleave
//! (Claude Code runs hooks in parallel) and a crash leaves at most one partial
//! last line, which the readers skip.

use std::io::{self, Write as _};
use std::path::Path;

/// Whether a missing file is created or is an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Missing {
    Create,
    Fail,
}

/// Append `record` to `path` in one write.
pub fn append(path: &Path, record: &[u8], missing: Missing) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .create(missing == Missing::Create)
        .append(true)
        .open(path)?;
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
            append(&log, b"a\n", Missing::Fail).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
        append(&log, b"a\n", Missing::Create).unwrap();
        append(&log, b"b\n", Missing::Fail).unwrap();
        assert_eq!(std::fs::read_to_string(&log).unwrap(), "a\nb\n");
    }
}
