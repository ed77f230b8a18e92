//! The layering of `src/`: every top-level module has a floor, and an import
//! (`crate::x`, `helix_gate::x`) only goes to a lower floor or inside its own
//! module. Tests at the bottom of a file (`#[cfg(test)]` at column 0) and
//! comments are not counted. A new top-level module must be given a floor here
//! (and a row in the layers table of the book, docs/src/contributing.md).

#![allow(clippy::unwrap_used, reason = "tests fail loudly")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Floors, top to bottom. Modules on one floor may not import each other.
const FLOORS: &[(u32, &[&str])] = &[
    (12, &["main"]),
    (11, &["cli"]),
    (10, &["mcp"]),
    (9, &["hook", "precommit", "gate", "report", "rule_docs"]),
    (8, &["approval"]),
    (7, &["adr_dir", "install"]),
    (6, &["agent", "engine", "render"]),
    (5, &["rules"]),
    (4, &["config"]),
    (3, &["adr"]),
    (2, &["decision_log"]),
    (1, &["diagnostic", "git", "fs", "process", "yaml"]),
    (0, &["clock", "env", "paths", "text"]),
];

fn floor_of(module: &str) -> Option<u32> {
    FLOORS
        .iter()
        .find(|(_, names)| names.contains(&module))
        .map(|(floor, _)| *floor)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`None` for lib.rs).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_string_lossy();
    let name = first.strip_suffix(".rs").unwrap_or(&first).to_owned();
    (name != "lib").then_some(name)
}

/// The code of a file without its bottom test module and without comments.
fn code(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("#[cfg(test)]") {
            break;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("//") {
            continue;
        }
        // A trailing `// ...` comment (good enough: no `//` inside our strings
        // is followed by `crate::`).
        let line = line.split(" // ").next().unwrap_or(line);
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The top-level modules named after `crate::` or `helix_gate::`, with the
/// groups of `use crate::{a, b::c}` expanded.
fn imported(code: &str) -> Vec<String> {
    let mut found = Vec::new();
    for prefix in ["crate::", "helix_gate::"] {
        let mut rest = code;
        while let Some(at) = rest.find(prefix) {
            let before = rest[..at].chars().last();
            rest = &rest[at + prefix.len()..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            if let Some(group) = rest.strip_prefix('{') {
                // Top-level items of the group: split on commas at depth 0.
                let mut depth = 0;
                let mut item = String::new();
                for c in group.chars() {
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => {
                            found.push(ident(&item));
                            item.clear();
                            continue;
                        }
                        _ => {}
                    }
                    if depth == 0 {
                        item.push(c);
                    }
                }
                found.push(ident(&item));
            } else {
                found.push(ident(rest));
            }
        }
    }
    found.retain(|m| !m.is_empty() && m != "self");
    found
}

fn ident(text: &str) -> String {
    text.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

#[test]
fn no_module_imports_a_module_above_it() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    let mut problems = Vec::new();
    let mut seen: BTreeMap<String, u32> = BTreeMap::new();
    for file in &files {
        let Some(module) = module_of(&src, file) else {
            continue;
        };
        let rel = file.strip_prefix(&src).unwrap().display().to_string();
        let Some(floor) = floor_of(&module) else {
            problems.push(format!(
                "src/{rel}: module `{module}` has no floor in tests/layers.rs"
            ));
            continue;
        };
        seen.insert(module.clone(), floor);
        let text = std::fs::read_to_string(file).unwrap();
        for target in imported(&code(&text)) {
            if target == module {
                continue;
            }
            match floor_of(&target) {
                Some(to) if to < floor => {}
                Some(to) => problems.push(format!(
                    "src/{rel}: `{module}` (floor {floor}) imports `{target}` (floor {to}): an import may only go down"
                )),
                // `crate::SomeType` re-exported at the root, or a macro: not a module.
                None if target.starts_with(char::is_uppercase) => {}
                None => problems.push(format!(
                    "src/{rel}: imports `crate::{target}`, which has no floor in tests/layers.rs"
                )),
            }
        }
    }
    problems.dedup();
    assert!(
        problems.is_empty(),
        "layering violations:\n{}",
        problems.join("\n")
    );
    assert!(seen.contains_key("cli") && seen.contains_key("rules"));
}

#[test]
fn the_parser_sees_grouped_and_nested_imports() {
    let code = code(
        "use crate::{adr::{self, Adr}, env};\nlet x = crate::paths::display(a);\n// crate::cli::print\nfoo_crate::x;\n#[cfg(test)]\nuse crate::hook;\n",
    );
    assert_eq!(imported(&code), ["adr", "env", "paths"]);
}

#[test]
fn the_book_shows_every_floor() {
    let chapter = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/src/contributing.md"),
    )
    .unwrap();
    let start = chapter.find("## The layers").expect("the layers section");
    let section = &chapter[start..];
    let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
    let missing: Vec<String> = FLOORS
        .iter()
        .flat_map(|(floor, names)| names.iter().map(move |n| (floor, n)))
        .filter(|(floor, name)| {
            !section
                .lines()
                .any(|l| l.starts_with(&format!("| {floor} |")) && l.contains(&format!("`{name}`")))
        })
        .map(|(floor, name)| format!("floor {floor}: `{name}`"))
        .collect();
    assert!(
        missing.is_empty(),
        "the layers table of docs/src/contributing.md lacks: {}",
        missing.join(", ")
    );
}
