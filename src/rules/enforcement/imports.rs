//! The modules a source file imports, per language, line by line: what
//! `forbid_import` compares with its `modules`.
//!
//! Each language is read by its import statements only (Python `import` and
//! `from`, Rust `use` and `extern crate`, JavaScript and TypeScript `import`,
//! `export ... from`, `require()` and `import()`, Go `import` lines and blocks,
//! Java and Kotlin `import`, C and C++ `#include`); a module named in a string or
//! a comment elsewhere is not an import.

use std::sync::LazyLock;

use regex::Regex;

/// A language whose imports are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Python,
    Rust,
    JavaScript,
    Go,
    Java,
    C,
}

impl Lang {
    /// Every language, for text whose file type is unknown (an example).
    pub const ALL: [Lang; 6] = [
        Lang::Python,
        Lang::Rust,
        Lang::JavaScript,
        Lang::Go,
        Lang::Java,
        Lang::C,
    ];

    /// The language of a file, by its extension.
    pub fn of_path(path: &str) -> Option<Lang> {
        let name = path.rsplit('/').next().unwrap_or(path);
        let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
        Some(match ext.as_str() {
            "py" | "pyi" => Lang::Python,
            "rs" => Lang::Rust,
            "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "vue" | "svelte" => {
                Lang::JavaScript
            }
            "go" => Lang::Go,
            "java" | "kt" | "kts" | "scala" | "groovy" => Lang::Java,
            "c" | "h" | "cc" | "cpp" | "cxx" | "hpp" | "hh" | "hxx" | "m" | "mm" => Lang::C,
            _ => return None,
        })
    }

    /// What separates a module from its submodules.
    fn separator(self) -> &'static str {
        match self {
            Lang::Python | Lang::Java => ".",
            Lang::Rust => "::",
            Lang::JavaScript | Lang::Go | Lang::C => "/",
        }
    }

    /// Whether `imported` is `module` or one of its submodules (`requests.adapters`
    /// for `requests`; `lodash/fp` for `lodash`; `curl/curl.h` and `curl.h` for `curl`).
    pub fn is_within(self, imported: &str, module: &str) -> bool {
        let module = module.trim();
        if imported == module {
            return true;
        }
        let sep = self.separator();
        if imported
            .strip_prefix(module)
            .is_some_and(|rest| rest.starts_with(sep))
        {
            return true;
        }
        match self {
            // `curl.h` for `curl`, and a module written with its header name.
            Lang::C => {
                let stem = imported.rsplit_once('.').map_or(imported, |(stem, _)| stem);
                stem == module
            }
            // `crate::db` for `db`; `::std` for `std`.
            Lang::Rust => {
                let bare = imported.trim_start_matches("::");
                bare == module
                    || bare
                        .strip_prefix(module)
                        .is_some_and(|rest| rest.starts_with(sep))
            }
            _ => false,
        }
    }

    /// The modules imported on each line of `text`: (1-based line, module).
    pub fn imports(self, text: &str) -> Vec<(usize, String)> {
        if self == Lang::Python {
            return python_imports(text);
        }
        let mut out = Vec::new();
        let mut go_block = false;
        let mut rust_use: Option<(usize, String)> = None;
        for (i, line) in text.lines().enumerate() {
            let n = i + 1;
            let trimmed = line.trim();
            match self {
                Lang::Python => python(trimmed, n, &mut out),
                Lang::Rust => {
                    if let Some((start, mut acc)) = rust_use.take() {
                        acc.push_str(trimmed);
                        if trimmed.contains(';') {
                            rust_paths(&acc, start, &mut out);
                        } else {
                            rust_use = Some((start, acc));
                        }
                        continue;
                    }
                    if let Some(rest) = rust_use_start(trimmed) {
                        if rest.contains(';') {
                            rust_paths(rest, n, &mut out);
                        } else {
                            rust_use = Some((n, rest.to_owned()));
                        }
                    } else if let Some(name) = trimmed
                        .strip_prefix("extern crate ")
                        .map(|r| r.split([' ', ';']).next().unwrap_or(""))
                    {
                        out.push((n, name.to_owned()));
                    }
                }
                Lang::JavaScript => javascript(trimmed, n, &mut out),
                Lang::Go => {
                    if go_block {
                        if trimmed.starts_with(')') {
                            go_block = false;
                        } else if let Some(path) = quoted(trimmed) {
                            out.push((n, path.to_owned()));
                        }
                    } else if let Some(rest) = trimmed.strip_prefix("import") {
                        let rest = rest.trim_start();
                        if rest.starts_with('(') {
                            go_block = !rest.contains(')');
                            if let Some(path) = quoted(rest) {
                                out.push((n, path.to_owned()));
                            }
                        } else if let Some(path) = quoted(rest) {
                            out.push((n, path.to_owned()));
                        }
                    }
                }
                Lang::Java => {
                    if let Some(rest) = trimmed.strip_prefix("import ") {
                        let rest = rest.trim_start();
                        let rest = rest.strip_prefix("static ").unwrap_or(rest).trim();
                        let name = rest.trim_end_matches(';').trim();
                        let name = name.split(" as ").next().unwrap_or(name).trim();
                        let name = name.trim_end_matches(".*");
                        if !name.is_empty() {
                            out.push((n, name.to_owned()));
                        }
                    }
                }
                Lang::C => {
                    if let Some(rest) = trimmed.strip_prefix('#') {
                        let rest = rest.trim_start();
                        if let Some(rest) = rest
                            .strip_prefix("include")
                            .or_else(|| rest.strip_prefix("import"))
                        {
                            let rest = rest.trim();
                            let name = if let Some(r) = rest.strip_prefix('<') {
                                r.split('>').next()
                            } else {
                                quoted(rest)
                            };
                            if let Some(name) = name.filter(|n| !n.is_empty()) {
                                out.push((n, name.to_owned()));
                            }
                        }
                    }
                }
            }
        }
        if let Some((start, acc)) = rust_use {
            rust_paths(&acc, start, &mut out);
        }
        out
    }
}

/// The first `"..."` (or `'...'`, or `` `...` ``) in `text`.
fn quoted(text: &str) -> Option<&str> {
    let start = text.find(['"', '\'', '`'])?;
    let quote = text[start..].chars().next()?;
    let rest = &text[start + 1..];
    let end = rest.find(quote)?;
    Some(&rest[..end])
}

/// [`Lang::imports`] of Python: a statement that imports holds the word
/// `import` on its line, and no state carries from one line to the next, so only
/// the lines a search for the word finds are read (as `str::lines` cuts them).
fn python_imports(text: &str) -> Vec<(usize, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    // The line number at `counted`, the start of the last line looked at.
    let (mut counted, mut n) = (0, 1);
    let mut next = 0;
    for at in crate::text::find::find_iter(bytes, b"import") {
        if at < next {
            continue; // on the line just read
        }
        let start = crate::text::find::byte_rev(b'\n', &bytes[..at]).map_or(0, |i| i + 1);
        let end = crate::text::find::byte(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        n += crate::text::find::byte_count(b'\n', &bytes[counted..start]);
        counted = start;
        next = end;
        let line = &text[start..end];
        let line = line.strip_suffix('\r').unwrap_or(line);
        python(line.trim(), n, &mut out);
    }
    out
}

fn python(line: &str, n: usize, out: &mut Vec<(usize, String)>) {
    // Cutting the comment keeps the start: a line that does not start a
    // statement here is done before it is searched for `#`.
    if !(line.starts_with("import ") || line.starts_with("from ")) {
        return;
    }
    let line = line.split('#').next().unwrap_or(line).trim();
    if let Some(rest) = line.strip_prefix("import ") {
        for part in rest.split(',') {
            let name = part.split_whitespace().next().unwrap_or("");
            if !name.is_empty() && !name.starts_with('(') {
                out.push((n, name.to_owned()));
            }
        }
    } else if let Some(rest) = line.strip_prefix("from ") {
        let mut words = rest.split_whitespace();
        let Some(module) = words.next() else {
            return;
        };
        if module.starts_with('.') || words.next() != Some("import") {
            return;
        }
        out.push((n, module.to_owned()));
        // `from a import b` may import the submodule `a.b`.
        let names = rest.split_once(" import ").map_or("", |(_, names)| names);
        for name in names.trim_matches(['(', ')', ' ']).split(',') {
            let name = name.split_whitespace().next().unwrap_or("");
            if !name.is_empty()
                && name != "*"
                && name.chars().all(|c| c.is_alphanumeric() || c == '_')
            {
                out.push((n, format!("{module}.{name}")));
            }
        }
    }
}

/// The rest of a `use` statement (after `use `), if `line` starts one.
fn rust_use_start(line: &str) -> Option<&str> {
    let mut rest = line;
    if let Some(r) = rest.strip_prefix("pub") {
        rest = r.trim_start();
        if rest.starts_with('(') {
            rest = rest.split_once(')').map_or("", |(_, r)| r).trim_start();
        }
    }
    rest.strip_prefix("use ")
}

/// The paths of a `use` tree (`a::b::{c, d::e}` gives `a::b::c`, `a::b::d::e`).
fn rust_paths(tree: &str, n: usize, out: &mut Vec<(usize, String)>) {
    let tree: String = tree
        .split(';')
        .next()
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let mut found = Vec::new();
    expand_use("", &tree, &mut found);
    for path in found {
        out.push((n, path));
    }
}

fn expand_use(prefix: &str, tree: &str, out: &mut Vec<String>) {
    if out.len() > 256 {
        return;
    }
    let tree = tree.trim_matches(',');
    let Some(open) = tree.find('{') else {
        let name = tree.split("as").next().unwrap_or(tree);
        let name = name.trim_end_matches("::*").trim_end_matches("::self");
        if !name.is_empty() || !prefix.is_empty() {
            let full = if name.is_empty() || name == "self" {
                prefix.trim_end_matches("::").to_owned()
            } else {
                format!("{prefix}{name}")
            };
            out.push(full);
        }
        return;
    };
    let head = &tree[..open];
    let inner = tree[open + 1..]
        .strip_suffix('}')
        .unwrap_or(&tree[open + 1..]);
    let prefix = format!("{prefix}{head}");
    let mut depth = 0usize;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                expand_use(&prefix, &inner[start..i], out);
                start = i + 1;
            }
            _ => {}
        }
    }
    if start < inner.len() {
        expand_use(&prefix, &inner[start..], out);
    }
}

static JS_FROM: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::expect_used, reason = "a constant pattern")]
    Regex::new(r#"(?:^|[\s}*])from\s*['"]([^'"]+)['"]"#).expect("pattern")
});
static JS_CALL: LazyLock<Regex> = LazyLock::new(|| {
    #[allow(clippy::expect_used, reason = "a constant pattern")]
    Regex::new(r#"(?:^|[^\w.$])(?:require|import)\s*\(\s*['"]([^'"]+)['"]\s*\)"#).expect("pattern")
});

fn javascript(line: &str, n: usize, out: &mut Vec<(usize, String)>) {
    if line.starts_with("//") || line.starts_with('*') || line.starts_with("/*") {
        return;
    }
    // The closing line of a multi-line `import { a,\n b } from 'x'` names the module.
    let statement = line.starts_with("import")
        || line.starts_with("export")
        || line.contains("} from")
        || line.contains("}from");
    if statement {
        if let Some(c) = JS_FROM.captures(line) {
            out.push((n, c[1].to_owned()));
            return;
        }
        if let Some(rest) = line.strip_prefix("import")
            && let Some(path) = rest.trim_start().strip_prefix(['"', '\''])
        {
            let end = path.find(['"', '\'']).unwrap_or(path.len());
            out.push((n, path[..end].to_owned()));
            return;
        }
    }
    for c in JS_CALL.captures_iter(line) {
        out.push((n, c[1].to_owned()));
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn python_reads_only_the_lines_that_name_import_and_misses_none() {
        let text = "import os\r\nx = 1\n  from a.b import (c, d)  # important\nimportant = 2\n\
                    # import commented\ns = 'import not'\nfrom . import x\nimport json, sys as s\r\n\
                    \u{e9}import y\nimport z";
        let mut expected = Vec::new();
        for (i, line) in text.lines().enumerate() {
            super::python(line.trim(), i + 1, &mut expected);
        }
        assert_eq!(python_imports(text), expected);
        assert!(expected.len() >= 6, "{expected:?}");
        assert_eq!(python_imports(""), Vec::new());
    }

    use super::*;

    fn names(lang: Lang, text: &str) -> Vec<String> {
        lang.imports(text).into_iter().map(|(_, m)| m).collect()
    }

    #[test]
    fn python() {
        let text = "import os, requests.adapters as ra\nfrom urllib3 import (PoolManager, util)\nfrom . import x\nx = 'import requests'\n# import requests\nfrom a.b import *\n";
        assert_eq!(
            names(Lang::Python, text),
            [
                "os",
                "requests.adapters",
                "urllib3",
                "urllib3.PoolManager",
                "urllib3.util",
                "a.b"
            ]
        );
        assert!(Lang::Python.is_within("requests.adapters", "requests"));
        assert!(!Lang::Python.is_within("requestsx", "requests"));
    }

    #[test]
    fn rust() {
        let text = "use std::io;\npub(crate) use reqwest::{Client, blocking::get as g};\nuse serde::{\n    Deserialize,\n    Serialize,\n};\nextern crate libc;\nlet s = \"use reqwest;\";\n";
        assert_eq!(
            names(Lang::Rust, text),
            [
                "std::io",
                "reqwest::Client",
                "reqwest::blocking::get",
                "serde::Deserialize",
                "serde::Serialize",
                "libc"
            ]
        );
        let lines: Vec<usize> = Lang::Rust.imports(text).iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, [1, 2, 2, 3, 3, 7]);
        assert!(Lang::Rust.is_within("reqwest::blocking::get", "reqwest"));
        assert!(Lang::Rust.is_within("::reqwest", "reqwest"));
    }

    #[test]
    fn javascript_and_typescript() {
        let text = "import axios from 'axios';\nimport { a,\n  b } from \"lodash/fp\";\nimport './side-effect';\nconst x = require('node-fetch');\nconst y = await import(\"got\");\nexport * from '@scope/pkg';\n// import z from 'commented';\nconst s = \"import q from 'no'\";\n";
        assert_eq!(
            names(Lang::JavaScript, text),
            [
                "axios",
                "lodash/fp",
                "./side-effect",
                "node-fetch",
                "got",
                "@scope/pkg"
            ]
        );
        assert!(Lang::JavaScript.is_within("lodash/fp", "lodash"));
        assert!(!Lang::JavaScript.is_within("lodash-es", "lodash"));
    }

    #[test]
    fn go_java_c() {
        let go = "package x\n\nimport \"net/http\"\nimport (\n\t\"fmt\"\n\tgh \"github.com/x/y/v2\"\n)\nvar s = \"import \\\"os\\\"\"\n";
        assert_eq!(
            names(Lang::Go, go),
            ["net/http", "fmt", "github.com/x/y/v2"]
        );
        assert!(Lang::Go.is_within("net/http", "net"));
        let java = "import java.net.http.HttpClient;\nimport static org.junit.Assert.*;\nString s = \"import x;\";\n";
        assert_eq!(
            names(Lang::Java, java),
            ["java.net.http.HttpClient", "org.junit.Assert"]
        );
        let c = "#include <curl/curl.h>\n#include \"db.h\"\n  #  include <stdio.h>\nchar *s = \"#include <x.h>\";\n";
        assert_eq!(names(Lang::C, c), ["curl/curl.h", "db.h", "stdio.h"]);
        assert!(Lang::C.is_within("curl/curl.h", "curl"));
        assert!(Lang::C.is_within("db.h", "db"));
        assert!(Lang::C.is_within("db.h", "db.h"));
    }

    #[test]
    fn language_by_extension() {
        assert_eq!(Lang::of_path("src/a.py"), Some(Lang::Python));
        assert_eq!(Lang::of_path("web/App.TSX"), Some(Lang::JavaScript));
        assert_eq!(Lang::of_path("x/y.hpp"), Some(Lang::C));
        assert_eq!(Lang::of_path("README"), None);
        assert_eq!(Lang::of_path("notes.md"), None);
    }
}
