//! Rules about the file itself, checked before any parsing: size, encoding, content.

use super::RuleMeta;
use crate::diagnostic::{Finding, Severity};

pub const FILE_TOO_LARGE: RuleMeta = RuleMeta {
    id: "file-too-large",
    severity: Severity::Error,
    summary: "the file is larger than adr.max_file_size (default 5 MB)",
    doc: "## What it does\nRefuses to parse a file above `adr.max_file_size` bytes (default 5 MB).\n\n\
## Why\nAn ADR is a few kilobytes. A huge file is a mistake (a log or data pasted in) and would make every hook call slow.\n\n\
## Fix\nShorten the ADR, move data into separate files, or raise `adr.max_file_size` in config/helix-gate.yaml.",
};

pub const FILE_NOT_UTF8: RuleMeta = RuleMeta {
    id: "file-not-utf8",
    severity: Severity::Error,
    summary: "the file is not valid UTF-8",
    doc: "## What it does\nReports a file whose bytes are not valid UTF-8, with the byte offset of the first bad sequence.\n\n\
## Why\nADRs are Markdown text; other encodings (Latin-1, UTF-16) break every tool that reads them.\n\n\
## Fix\nRe-save the file as UTF-8.",
};

pub const FILE_BINARY: RuleMeta = RuleMeta {
    id: "file-binary",
    severity: Severity::Error,
    summary: "the file contains NUL bytes (binary data)",
    doc: "## What it does\nReports a file with an `.md` name that contains NUL bytes.\n\n\
## Why\nBinary content is never a valid ADR; parsing it would only produce noise.\n\n\
## Fix\nReplace the file with the Markdown ADR it should be.",
};

pub const FILE_EMPTY: RuleMeta = RuleMeta {
    id: "file-empty",
    severity: Severity::Error,
    summary: "the file is empty",
    doc: "## What it does\nReports a file with no content (or only whitespace).\n\n\
## Why\nAn empty ADR has no front matter and no sections; one finding says more than ten.\n\n\
## Fix\nWrite the ADR from the template (front matter plus the required sections).",
};

pub const RULES: &[&RuleMeta] = &[&FILE_TOO_LARGE, &FILE_NOT_UTF8, &FILE_BINARY, &FILE_EMPTY];

/// Turn raw bytes into text, or the finding that says why they are not an ADR.
pub fn decode(bytes: Vec<u8>, limit: u64) -> Result<String, Finding> {
    if bytes.len() as u64 > limit {
        return Err(FILE_TOO_LARGE
            .finding(format!(
                "file is {} bytes, the limit is {limit} bytes",
                bytes.len()
            ))
            .hint("shorten it or raise adr.max_file_size in config/helix-gate.yaml"));
    }
    if bytes.contains(&0) {
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
}
