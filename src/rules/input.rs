//! Rules about the file itself, checked before any parsing: size, encoding, content.

use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// Refuses to parse a file above `adr.max_file_size` bytes (default 5 MB).
    ///
    /// ## Why
    /// An ADR is a few kilobytes. A huge file is a mistake (a log or data pasted in) and would make
    /// every hook call slow.
    ///
    /// ## Fix
    /// Shorten the ADR, move data into separate files, or raise `adr.max_file_size` in
    /// config/helix-gate.yaml.
    pub const FILE_TOO_LARGE {
        id: "file-too-large",
        severity: Error,
        category: FileContent,
        summary: "the file is larger than adr.max_file_size (default 5 MB)",
    }

    /// ## What it does
    /// Reports a file whose bytes are not valid UTF-8, with the byte offset of the first bad
    /// sequence.
    ///
    /// ## Why
    /// ADRs are Markdown text; other encodings (Latin-1, UTF-16) break every tool that reads them.
    ///
    /// ## Fix
    /// Re-save the file as UTF-8.
    pub const FILE_NOT_UTF8 {
        id: "file-not-utf8",
        severity: Error,
        category: FileContent,
        summary: "the file is not valid UTF-8",
    }

    /// ## What it does
    /// Reports a file with an `.md` name that contains NUL bytes.
    ///
    /// ## Why
    /// Binary content is never a valid ADR; parsing it would only produce noise.
    ///
    /// ## Fix
    /// Replace the file with the Markdown ADR it should be.
    pub const FILE_BINARY {
        id: "file-binary",
        severity: Error,
        category: FileContent,
        summary: "the file contains NUL bytes (binary data)",
    }

    /// ## What it does
    /// Reports an ADR whose content is a Git LFS pointer (`version
    /// https://git-lfs.github.com/spec/v1`, `oid sha256:...`, `size N`) instead of the
    /// Markdown it stands for: a checkout without `git lfs` installed or without `git lfs
    /// pull`. Pre-commit checks the work-tree file in its place when it is the content the
    /// staged pointer names (same SHA-256 and size), and reports the pointer otherwise.
    ///
    /// ## Why
    /// A pointer has no front matter and no sections: without this rule it gets a dozen
    /// front-matter and section errors that never say why, and can never be committed.
    ///
    /// ## Fix
    /// Run `git lfs pull` (or `git lfs checkout <path>`) to get the content; or stop tracking
    /// ADRs with LFS (`git lfs untrack 'adr/*.md'`): they are small text files.
    pub const FILE_LFS_POINTER {
        id: "file-lfs-pointer",
        severity: Error,
        category: FileContent,
        summary: "the file is a Git LFS pointer, not the ADR's content",
    }

    /// ## What it does
    /// Reports a file with no content (or only whitespace).
    ///
    /// ## Why
    /// An empty ADR has no front matter and no sections; one finding says more than ten.
    ///
    /// ## Fix
    /// Write the ADR from the template (front matter plus the required sections).
    pub const FILE_EMPTY {
        id: "file-empty",
        severity: Error,
        category: FileContent,
        summary: "the file is empty",
    }

    /// ## What it does
    /// Refuses an ADR path that is not a regular file: a directory, a named pipe (FIFO), a
    /// socket or a device, also when a symlink leads there. The path is never read: a FIFO
    /// would block the reader until something writes to it, a device like `/dev/zero`
    /// never ends.
    ///
    /// ## Why
    /// An ADR is a file someone wrote. Anything else at its path cannot be checked, and
    /// reading it could hang the hook (until Claude Code's timeout lets the turn through),
    /// `validate` or `approve`.
    ///
    /// ## Fix
    /// Replace the path with the Markdown ADR, or remove it.
    pub const FILE_NOT_REGULAR {
        id: "file-not-regular",
        severity: Error,
        category: FileContent,
        summary: "the path is a directory, FIFO, socket or device, not a file",
    }

    /// ## What it does
    /// Refuses an ADR path inside the project whose real location, after every symbolic
    /// link on the way is followed, lies outside the project. The file is never read.
    ///
    /// ## Why
    /// A cloned repository can ship `adr/001-x.md` as a link to `~/.ssh/config` or
    /// `/etc/passwd`: reading it would quote its values in findings, hand it to the
    /// model at Stop, or send it to the reviewer.
    ///
    /// ## Fix
    /// Replace the link with the ADR itself, or link to a file inside the repository.
    pub const FILE_OUTSIDE_PROJECT {
        id: "file-outside-project",
        severity: Error,
        category: FileContent,
        summary: "the path leads outside the project through a symbolic link",
    }

    /// ## What it does
    /// Refuses front matter before the YAML parser sees it when it is larger than 64 KiB,
    /// nests more than 32 levels deep (indentation, `- ` entries, `[` and `{` counted
    /// together), holds more than 256 `[` or `{`, or uses aliases (`*name` referring to an
    /// `&name` anchor). The body is still checked.
    ///
    /// ## Why
    /// The parser needs time that grows with the square of the nesting (150 KB of `[` took
    /// longer than Claude Code's 30 s hook timeout, so the ADR would pass unchecked), and
    /// every alias copies its anchor (a few lines of aliases of aliases become gigabytes).
    /// A real front matter is about 1 KB with two or three levels of nesting.
    ///
    /// ## Example
    /// ```yaml
    /// ---
    /// adr_id: "038"
    /// base: &base [src/a.rs, src/b.rs]
    /// more: [*base, *base]
    /// ---
    /// ```
    ///
    /// ## Fix
    /// Write the fields out plainly: adr_id, title, status, a short `files` map.
    pub const FRONT_MATTER_TOO_COMPLEX {
        id: "front-matter-too-complex",
        severity: Error,
        category: FrontMatter,
        summary: "the front matter is too large, too deeply nested or uses YAML aliases",
    }
}

/// The finding for a path that is not a regular file (`kind` says what it is).
pub fn not_regular(kind: &str) -> Finding {
    FILE_NOT_REGULAR
        .finding(format!("not a regular file but {kind}; it was not read"))
        .hint("replace it with the Markdown ADR, or remove it")
}

/// The finding for an ADR path that a symbolic link leads out of the project.
pub fn outside_project() -> Finding {
    FILE_OUTSIDE_PROJECT
        .finding("a symbolic link leads this path outside the project; it was not read")
        .hint("replace the link with the ADR itself, or link to a file inside the repository")
}

/// The finding for front matter refused before parsing.
pub fn too_complex(err: &crate::yaml::TooComplex) -> Finding {
    let limits = crate::adr::front_matter::LIMITS;
    FRONT_MATTER_TOO_COMPLEX
        .finding(format!(
            "front matter {}; refused before parsing",
            err.message
        ))
        .at(err.line)
        .hint(format!(
            "write the fields out plainly: at most {} KiB, {} levels of nesting, {} [ or {{, no aliases",
            limits.max_bytes / 1024,
            limits.max_depth,
            limits.max_flow_brackets
        ))
}

/// What a Git LFS pointer file names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LfsPointer {
    /// The SHA-256 of the content, lower-case hex.
    pub oid: String,
    pub size: u64,
}

/// The first line of every Git LFS pointer (spec v1).
const LFS_VERSION: &[u8] = b"version https://git-lfs.github.com/spec/v1\n";

/// `bytes` read as a Git LFS pointer, when they are one (a pointer is at most
/// 1024 bytes of `key value` lines starting with the version line).
pub fn lfs_pointer(bytes: &[u8]) -> Option<LfsPointer> {
    if bytes.len() > 1024 || !bytes.starts_with(LFS_VERSION) {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    let mut oid = None;
    let mut size = None;
    for line in text.lines().skip(1) {
        if let Some(hex) = line.strip_prefix("oid sha256:") {
            (hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()))
                .then(|| oid = Some(hex.to_ascii_lowercase()))?;
        } else if let Some(n) = line.strip_prefix("size ") {
            size = Some(n.parse().ok()?);
        }
    }
    Some(LfsPointer {
        oid: oid?,
        size: size?,
    })
}

/// The finding for an ADR that is a Git LFS pointer.
pub fn lfs_pointer_finding(pointer: &LfsPointer) -> Finding {
    FILE_LFS_POINTER
        .finding(format!(
            "the file is a Git LFS pointer (oid sha256:{}, size {}), not the ADR's Markdown",
            pointer.oid.get(..12).unwrap_or(&pointer.oid),
            pointer.size
        ))
        .hint("run `git lfs pull` (or `git lfs checkout <path>`) to get its content; ADRs are small text files and need no LFS (`git lfs untrack`)")
}

/// Turn raw bytes into text, or the finding that says why they are not an ADR.
pub fn decode(bytes: Vec<u8>, limit: u64) -> Result<String, Finding> {
    if let Some(pointer) = lfs_pointer(&bytes) {
        return Err(lfs_pointer_finding(&pointer));
    }
    if bytes.len() as u64 > limit {
        return Err(FILE_TOO_LARGE
            .finding(format!(
                "file is {} bytes, the limit is {limit} bytes",
                bytes.len()
            ))
            .hint("shorten it or raise adr.max_file_size in config/helix-gate.yaml"));
    }
    // memchr's vectorised search (`contains` went word by word: 48,000 instructions
    // on the 51 KB seed ADR).
    if crate::text::find::byte(0, &bytes).is_some() {
        return Err(FILE_BINARY
            .finding("file contains NUL bytes: binary data, not Markdown")
            .hint("replace it with the Markdown ADR"));
    }
    match String::from_utf8(bytes) {
        Ok(text) if text.trim_start_matches('\u{feff}').trim().is_empty() => Err(FILE_EMPTY
            .finding("file is empty")
            .hint("start from the ADR template: front matter plus the required sections")),
        Ok(text) => Ok(text),
        Err(e) => {
            let offset = e.utf8_error().valid_up_to();
            #[expect(
                clippy::naive_bytecount,
                reason = "one count on an error path; not worth the bytecount crate"
            )]
            let line = e.as_bytes()[..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            Err(FILE_NOT_UTF8
                .finding(format!("invalid UTF-8 at byte {offset}"))
                .at(line)
                .hint("re-save the file as UTF-8"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decode_cases() {
        assert_eq!(decode(b"# ok".to_vec(), 10).unwrap(), "# ok");
        assert_eq!(
            decode(vec![b'a'; 11], 10).unwrap_err().rule,
            "file-too-large"
        );
        assert_eq!(
            decode(b"a\0b".to_vec(), 10).unwrap_err().rule,
            "file-binary"
        );
        assert_eq!(decode(b" \n".to_vec(), 10).unwrap_err().rule, "file-empty");
        let bad = decode(b"ok\n\xff\xfe".to_vec(), 10).unwrap_err();
        assert_eq!((bad.rule.as_str(), bad.line), ("file-not-utf8", Some(2)));
    }

    #[test]
    fn a_git_lfs_pointer_is_named() {
        let oid = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393";
        let pointer =
            format!("version https://git-lfs.github.com/spec/v1\noid sha256:{oid}\nsize 12345\n");
        assert_eq!(
            lfs_pointer(pointer.as_bytes()),
            Some(LfsPointer {
                oid: oid.to_owned(),
                size: 12345
            })
        );
        let finding = decode(pointer.into_bytes(), 1 << 20).unwrap_err();
        assert_eq!(finding.rule, "file-lfs-pointer");
        assert!(
            finding
                .hint
                .as_deref()
                .unwrap_or_default()
                .contains("git lfs pull")
        );
        // Markdown that quotes a pointer is no pointer.
        assert!(lfs_pointer(b"# ADR\nversion https://git-lfs.github.com/spec/v1\n").is_none());
        assert!(
            lfs_pointer(b"version https://git-lfs.github.com/spec/v1\noid sha256:12\nsize 1\n")
                .is_none()
        );
    }

    #[test]
    fn too_complex_docs_name_the_limits_in_force() {
        let limits = crate::adr::front_matter::LIMITS;
        let doc = FRONT_MATTER_TOO_COMPLEX.doc.to_string();
        for expected in [
            format!("larger than {} KiB", limits.max_bytes / 1024),
            format!("more than {} levels deep", limits.max_depth),
            format!("more than {} `[` or `{{`", limits.max_flow_brackets),
        ] {
            assert!(doc.contains(&expected), "{expected:?} not in {doc}");
        }
        assert!(!limits.aliases && doc.contains("or uses aliases"));
    }
}
