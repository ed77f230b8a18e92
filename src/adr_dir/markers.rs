//! Inbound markers: `ADR-014` or `@adr 014` written in a comment of a source file,
//! which link the file to that ADR as context (never as a binding link: anyone can
//! write a comment).
//!
//! Only comment text counts. The file's language (by its extension) says which
//! comments it has (`//`, `#`, `--`, `/* */`, `<!-- -->`) and which string
//! literals it has; a marker inside a string literal is data, not a link. A file
//! of a language not known here has no markers.

/// One marker: the ADR number it names and its 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Marker {
    pub number: u32,
    pub line: usize,
}

/// How string literals of a language are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Quote {
    /// `"..."` with `\` escapes.
    Double,
    /// `'...'` with `\` escapes.
    Single,
    /// `'x'` or `'\n'` as a character literal; any other `'` (a Rust lifetime) is no string.
    Char,
    /// `` `...` `` (JavaScript template literals, Go raw strings, shell).
    Backtick,
    /// `"""..."""` and `'''...'''` (Python).
    Triple,
    /// `r"..."`, `r#"..."#` (Rust raw strings).
    RustRaw,
}

/// The comments and string literals of a language.
struct Syntax {
    line: &'static [&'static str],
    block: &'static [(&'static str, &'static str)],
    quotes: &'static [Quote],
    /// Whether `"` and `'` strings may span lines (Rust, shell); elsewhere an
    /// unclosed one ends at the line's end.
    multiline: bool,
}

const C_LIKE: Syntax = Syntax {
    line: &["//"],
    block: &[("/*", "*/")],
    quotes: &[Quote::Double, Quote::Char],
    multiline: false,
};
const RUST: Syntax = Syntax {
    line: &["//"],
    block: &[("/*", "*/")],
    quotes: &[Quote::RustRaw, Quote::Double, Quote::Char],
    multiline: true,
};
const SCRIPT: Syntax = Syntax {
    line: &["//"],
    block: &[("/*", "*/")],
    quotes: &[Quote::Double, Quote::Single, Quote::Backtick],
    multiline: false,
};
const GO: Syntax = Syntax {
    line: &["//"],
    block: &[("/*", "*/")],
    quotes: &[Quote::Double, Quote::Char, Quote::Backtick],
    multiline: false,
};
const PYTHON: Syntax = Syntax {
    line: &["#"],
    block: &[],
    quotes: &[Quote::Triple, Quote::Double, Quote::Single],
    multiline: false,
};
const HASH: Syntax = Syntax {
    line: &["#"],
    block: &[],
    quotes: &[Quote::Double, Quote::Single],
    multiline: false,
};
const SHELL: Syntax = Syntax {
    line: &["#"],
    block: &[],
    quotes: &[Quote::Double, Quote::Single, Quote::Backtick],
    multiline: true,
};
const SQL: Syntax = Syntax {
    line: &["--"],
    block: &[("/*", "*/")],
    quotes: &[Quote::Double, Quote::Single],
    multiline: false,
};
const LUA: Syntax = Syntax {
    line: &["--"],
    block: &[("--[[", "]]")],
    quotes: &[Quote::Double, Quote::Single],
    multiline: false,
};
const HASKELL: Syntax = Syntax {
    line: &["--"],
    block: &[("{-", "-}")],
    quotes: &[Quote::Double],
    multiline: false,
};
const CSS: Syntax = Syntax {
    line: &[],
    block: &[("/*", "*/")],
    quotes: &[Quote::Double, Quote::Single],
    multiline: false,
};
const MARKUP: Syntax = Syntax {
    line: &[],
    block: &[("<!--", "-->")],
    quotes: &[],
    multiline: false,
};

/// The syntax of the file at `path` (repository-relative), by its extension or name.
fn syntax_of(path: &str) -> Option<&'static Syntax> {
    let name = path.rsplit('/').next().unwrap_or(path);
    match name {
        "Makefile" | "makefile" | "GNUmakefile" | "Dockerfile" | "Containerfile" | "Gemfile"
        | "Rakefile" | "CMakeLists.txt" => return Some(&HASH),
        _ => {}
    }
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "rs" => &RUST,
        "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" | "java" | "kt" | "kts" | "cs"
        | "swift" | "scala" | "groovy" | "gradle" | "dart" | "proto" | "zig" | "m" | "mm" => {
            &C_LIKE
        }
        "js" | "mjs" | "cjs" | "jsx" | "ts" | "mts" | "cts" | "tsx" | "php" | "scss" | "less"
        | "jsonc" => &SCRIPT,
        "go" => &GO,
        "py" | "pyi" => &PYTHON,
        "rb" | "pl" | "pm" | "r" | "yaml" | "yml" | "toml" | "cfg" | "conf" | "ini" | "tf"
        | "hcl" | "nix" | "ex" | "exs" | "jl" | "cmake" | "mk" | "properties" | "ps1" => &HASH,
        "sh" | "bash" | "zsh" | "fish" | "ksh" => &SHELL,
        "sql" => &SQL,
        "lua" => &LUA,
        "hs" | "elm" => &HASKELL,
        "css" => &CSS,
        "md" | "markdown" | "html" | "htm" | "xml" | "svg" | "vue" | "svelte" => &MARKUP,
        _ => return None,
    })
}

/// The markers in the comments of `text`, a file at the repository-relative `path`.
pub fn find(path: &str, text: &str) -> Vec<Marker> {
    let Some(syntax) = syntax_of(path) else {
        return Vec::new();
    };
    let lines = crate::adr::LineIndex::new(text);
    let mut out = Vec::new();
    for range in comments(syntax, text.as_bytes()) {
        for (offset, number) in in_comment(&text[range.clone()]) {
            out.push(Marker {
                number,
                line: lines.line(range.start + offset),
            });
        }
    }
    out
}

/// The byte ranges of the comments of `text` (their delimiters included).
fn comments(syntax: &Syntax, text: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut i = 0;
    'scan: while i < text.len() {
        let rest = &text[i..];
        for (open, close) in syntax.block {
            if rest.starts_with(open.as_bytes()) {
                let end = crate::text::find::find(&rest[open.len()..], close.as_bytes())
                    .map_or(text.len(), |at| i + open.len() + at + close.len());
                out.push(i..end);
                i = end;
                continue 'scan;
            }
        }
        for open in syntax.line {
            if rest.starts_with(open.as_bytes()) {
                let end = crate::text::find::byte(b'\n', rest).map_or(text.len(), |at| i + at);
                out.push(i..end);
                i = end;
                continue 'scan;
            }
        }
        for quote in syntax.quotes {
            if let Some(len) = string_len(
                *quote,
                rest,
                syntax.multiline,
                i == 0 || !word_byte(text[i - 1]),
            ) {
                i += len;
                continue 'scan;
            }
        }
        i += 1;
    }
    out
}

fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The length of the string literal of kind `quote` at the start of `rest`, or None
/// when none starts there. `at_word_start`: no letter, digit or `_` precedes it.
fn string_len(quote: Quote, rest: &[u8], multiline: bool, at_word_start: bool) -> Option<usize> {
    match quote {
        Quote::Double => quoted(rest, b'"', multiline),
        Quote::Single => quoted(rest, b'\'', multiline),
        Quote::Backtick => quoted(rest, b'`', true),
        Quote::Triple => {
            let delim: &[u8] = if rest.starts_with(b"\"\"\"") {
                b"\"\"\""
            } else if rest.starts_with(b"'''") {
                b"'''"
            } else {
                return None;
            };
            let end = crate::text::find::find(&rest[3..], delim).map_or(rest.len(), |at| at + 6);
            Some(end)
        }
        Quote::Char => {
            if rest.first() != Some(&b'\'') {
                return None;
            }
            if rest.get(1) == Some(&b'\\') {
                // `'\n'`, `'\u{1F600}'`: up to the next `'` on the line.
                let close = rest[2..]
                    .iter()
                    .take_while(|&&b| b != b'\n')
                    .position(|&b| b == b'\'')?;
                return Some(close + 3);
            }
            // One character (UTF-8: up to four bytes), then `'`; else a lifetime.
            let width = match rest.get(1)? {
                b if *b < 0x80 => 1,
                b if *b >= 0xF0 => 4,
                b if *b >= 0xE0 => 3,
                _ => 2,
            };
            (rest.get(1 + width) == Some(&b'\'')).then_some(width + 2)
        }
        Quote::RustRaw => {
            if !at_word_start {
                return None;
            }
            let after_prefix = rest
                .strip_prefix(b"br")
                .or_else(|| rest.strip_prefix(b"cr"))
                .or_else(|| rest.strip_prefix(b"r"))?;
            let hashes = after_prefix.iter().take_while(|&&b| b == b'#').count();
            if after_prefix.get(hashes) != Some(&b'"') {
                return None;
            }
            let start = rest.len() - after_prefix.len() + hashes + 1;
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let end = crate::text::find::find(&rest[start..], &close)
                .map_or(rest.len(), |at| start + at + close.len());
            Some(end)
        }
    }
}

/// The length of a `delim`-quoted string with `\` escapes at the start of `rest`.
fn quoted(rest: &[u8], delim: u8, multiline: bool) -> Option<usize> {
    if rest.first() != Some(&delim) {
        return None;
    }
    let mut i = 1;
    while i < rest.len() {
        match rest[i] {
            b'\\' => i += 2,
            b'\n' if !multiline => return Some(i),
            b if b == delim => return Some(i + 1),
            _ => i += 1,
        }
    }
    Some(rest.len())
}

/// The markers in one comment's text: byte offset and ADR number.
fn in_comment(comment: &str) -> Vec<(usize, u32)> {
    let bytes = comment.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let before_ok = i == 0 || !(word_byte(bytes[i - 1]) || bytes[i - 1] == b'-');
        let rest = &bytes[i..];
        if rest.len() >= 4
            && rest[..4].eq_ignore_ascii_case(b"@adr")
            && !rest.get(4).is_some_and(|&b| word_byte(b) || b == b'-')
        {
            // `@adr 014`, `@adr: 14`, `@adr ADR-014`.
            let mut j = 4;
            while bytes
                .get(i + j)
                .is_some_and(|&b| b == b' ' || b == b'\t' || b == b':')
            {
                j += 1;
            }
            if j > 4 {
                let start = i + j;
                let digits_at = if bytes.len() >= start + 4
                    && bytes[start..start + 4].eq_ignore_ascii_case(b"adr-")
                {
                    start + 4
                } else {
                    start
                };
                if let Some((number, len)) = number_at(bytes, digits_at) {
                    out.push((i, number));
                    i = digits_at + len;
                    continue;
                }
            }
            i += 4;
            continue;
        }
        if before_ok
            && rest.len() >= 4
            && rest[..4].eq_ignore_ascii_case(b"adr-")
            && let Some((number, len)) = number_at(bytes, i + 4)
        {
            out.push((i, number));
            i += 4 + len;
            continue;
        }
        i += 1;
    }
    out
}

/// The number of the digits at `at`, when they are followed by no letter, digit or
/// `_`, and its length.
fn number_at(bytes: &[u8], at: usize) -> Option<(u32, usize)> {
    let len = bytes
        .get(at..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if len == 0 || len > 9 || bytes.get(at + len).is_some_and(|&b| word_byte(b)) {
        return None;
    }
    let digits = std::str::from_utf8(&bytes[at..at + len]).ok()?;
    Some((digits.parse().ok()?, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbers(path: &str, text: &str) -> Vec<(u32, usize)> {
        find(path, text)
            .into_iter()
            .map(|m| (m.number, m.line))
            .collect()
    }

    #[test]
    fn markers_in_line_and_block_comments() {
        let rust = "// ADR-014: the pool\nfn main() {\n    /* see\n       @adr 7 */\n    let x = 1; // @adr ADR-0021\n}\n";
        assert_eq!(numbers("src/main.rs", rust), [(14, 1), (7, 4), (21, 5)]);
        let python =
            "import db  # ADR-3\n\"\"\"ADR-4 in a docstring\"\"\"\nx = '# ADR-5'\n# @adr: 6\n";
        assert_eq!(numbers("a/b.py", python), [(3, 1), (6, 4)]);
        let sql = "-- ADR-8\nSELECT '-- ADR-9' FROM t; /* ADR-10 */\n";
        assert_eq!(numbers("q.sql", sql), [(8, 1), (10, 2)]);
        let go = "package x\n// ADR-11\nvar s = `// ADR-12`\n";
        assert_eq!(numbers("x.go", go), [(11, 2)]);
        let ts = "const a = \"// ADR-1\"; const b = `/* ADR-2 */`; // ADR-13\n";
        assert_eq!(numbers("x.ts", ts), [(13, 1)]);
        let md = "ADR-1 in prose\n<!-- @adr 15 -->\n";
        assert_eq!(numbers("README.md", md), [(15, 2)]);
    }

    #[test]
    fn strings_hide_markers() {
        let rust = "let s = \"// ADR-1\";\nlet r = r#\"/* ADR-2 \"quoted\" */\"#;\nlet c = '\"'; // ADR-3\nfn f<'a>(x: &'a str) {} // ADR-4\n";
        assert_eq!(numbers("x.rs", rust), [(3, 3), (4, 4)]);
        let c = "char q = '\"'; /* ADR-5 */\nputs(\"/* ADR-6 */\");\n";
        assert_eq!(numbers("x.c", c), [(5, 1)]);
        let sh = "echo \"# ADR-1\" # ADR-2\necho 'it''s # ADR-3'\n";
        assert_eq!(numbers("run.sh", sh), [(2, 1)]);
    }

    #[test]
    fn only_whole_markers_count() {
        assert_eq!(
            in_comment("// MADR-1 xADR-2 ADR-3x ADR- @adrx 4 ADR-0"),
            [(37, 0)]
        );
        assert_eq!(in_comment("# adr-12, Adr-13"), [(2, 12), (10, 13)]);
        assert!(in_comment("# @adr none").is_empty());
    }

    #[test]
    fn unknown_languages_have_no_markers() {
        assert!(find("notes.txt", "// ADR-1\n# ADR-2\n").is_empty());
        assert!(find("LICENSE", "ADR-1").is_empty());
    }
}
