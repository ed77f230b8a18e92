//! The README and the book (`docs/src/`) stay a true map of the binary: every subcommand
//! `--help` lists, every key of the shipped config files (read from the binary's own JSON
//! Schemas) and every rule id `helix-gate rules` prints is named in them, every in-page link
//! of the README (and of `approvals/README.md`) leads to a heading, every link of the README
//! into the book leads to a page and a heading there, the README stays a front door (at most
//! 25,000 bytes; the rest is the book's), the contributors' claim about `validate
//! examples/` holds, and the Quick start's pre-commit entry and GitHub Action use a hook id
//! and inputs that exist. Each of these drifted once while features were merged from many
//! branches. That the book itself builds without a broken link is `book.rs`.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::cli::{code, manifest_dir, run, scratch_repo, stdout};

fn readme(rel: &str) -> String {
    std::fs::read_to_string(manifest_dir().join(rel)).unwrap()
}

/// Every Markdown file of the book below `docs/src/` (the generated reference pages
/// included), relative to the repository, sorted.
fn book_files() -> Vec<String> {
    let root = manifest_dir();
    let mut out = Vec::new();
    let mut stack = vec![root.join("docs/src")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                let rel = path.strip_prefix(&root).unwrap();
                out.push(rel.to_string_lossy().into_owned());
            }
        }
    }
    out.sort();
    assert!(out.len() >= 15, "the book has {} pages: {out:?}", out.len());
    out
}

/// The README and every page of the book, one text: what the "names every X" checks read.
fn docs() -> String {
    let mut text = readme("README.md");
    for rel in book_files() {
        text.push('\n');
        text.push_str(&readme(&rel));
    }
    text
}

/// GitHub's anchor of a heading: lower case, punctuation other than `-` and `_` dropped,
/// each space a `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// The anchors of the headings outside code fences (duplicates get GitHub's `-1`, `-2`).
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        }
        if fence || !line.starts_with('#') {
            continue;
        }
        let base = slug(line.trim_start_matches('#'));
        let mut anchor = base.clone();
        let mut n = 0;
        while seen.contains(&anchor) {
            n += 1;
            anchor = format!("{base}-{n}");
        }
        seen.insert(anchor);
    }
    seen
}

#[test]
fn every_in_page_link_leads_to_a_heading() {
    for rel in ["README.md", "approvals/README.md"] {
        let text = readme(rel);
        let known = anchors(&text);
        let broken: Vec<&str> = text
            .match_indices("](#")
            .map(|(at, _)| {
                let rest = &text[at + 3..];
                &rest[..rest.find(')').unwrap()]
            })
            .filter(|anchor| !known.contains(*anchor))
            .collect();
        assert!(broken.is_empty(), "{rel}: links to no heading: {broken:?}");
    }
}

/// The README is the front door; everything else is the book's.
#[test]
fn the_readme_is_at_most_25000_bytes() {
    let size = readme("README.md").len();
    assert!(
        size <= 25_000,
        "README.md has {size} bytes; move detail into the book (docs/src/)"
    );
}

/// The README's links into the book (`docs/src/x.md`, `docs/src/x.md#anchor`) lead to a
/// page that exists and, with an anchor, to a heading of it (GitHub's anchors, as the
/// README is read on GitHub).
#[test]
fn every_link_of_the_readme_into_the_book_leads_to_a_page_and_heading() {
    let text = readme("README.md");
    let mut checked = 0;
    let mut broken = Vec::new();
    for (at, _) in text.match_indices("](docs/") {
        let rest = &text[at + 2..];
        let target = &rest[..rest.find(')').unwrap()];
        let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
        checked += 1;
        let Ok(page) = std::fs::read_to_string(manifest_dir().join(path)) else {
            broken.push(format!("{target} (no such file)"));
            continue;
        };
        if !anchor.is_empty() && !anchors(&page).contains(anchor) {
            broken.push(format!("{target} (no such heading)"));
        }
    }
    assert!(checked >= 10, "{checked} links into the book");
    assert!(
        broken.is_empty(),
        "README.md: broken links into the book: {broken:?}"
    );
}

/// The book's links between its pages (`x.md#anchor`, `#anchor`) lead to a heading also as
/// GitHub shows the Markdown (the book test checks mdBook's HTML; GitHub names anchors its
/// own way, and the pages are read there too).
#[test]
fn every_anchor_link_of_the_book_leads_to_a_heading_on_github() {
    let root = manifest_dir();
    let mut checked = 0;
    let mut broken = Vec::new();
    for rel in book_files() {
        let text = readme(&rel);
        let dir = std::path::Path::new(&rel).parent().unwrap();
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            let Some((path, anchor)) = target.split_once('#') else {
                continue;
            };
            let markdown = std::path::Path::new(path)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"));
            let local = path.is_empty() || (markdown && !path.contains(':'));
            if !local || anchor.is_empty() {
                continue;
            }
            let page = if path.is_empty() {
                text.clone()
            } else if let Ok(page) = std::fs::read_to_string(root.join(dir).join(path)) {
                page
            } else {
                broken.push(format!("{rel}: {target} (no such page)"));
                continue;
            };
            checked += 1;
            // A heading's anchor, or an HTML anchor a generated page sets (`<a id="x">`).
            let html_id = page.contains(&format!("id=\"{anchor}\""));
            if !html_id && !anchors(&page).contains(anchor) {
                broken.push(format!("{rel}: {target}"));
            }
        }
    }
    assert!(checked >= 50, "{checked} anchor links in the book");
    assert!(broken.is_empty(), "links to no heading: {broken:#?}");
}

#[test]
fn every_subcommand_of_help_is_in_the_docs() {
    let text = docs();
    let help = stdout(&run(&manifest_dir(), &["--help"]));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 20, "{help}");
    let missing: Vec<&&str> = commands
        .iter()
        .filter(|c| !text.contains(&format!("helix-gate {c}")))
        .collect();
    assert!(
        missing.is_empty(),
        "neither the README nor the book names `helix-gate CMD` for {missing:?}"
    );
}

#[test]
fn every_key_of_the_config_files_is_in_the_docs() {
    let text = docs();
    let mut missing = Vec::new();
    for name in ["helix-gate", "adr-completeness-rules", "approvals"] {
        let out = run(&manifest_dir(), &["schema", name]);
        assert_eq!(code(&out), 0);
        let schema: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let all: BTreeSet<String> = crate::support::schema::keys(&schema).into_iter().collect();
        assert!(all.len() >= 10, "{name}: {all:?}");
        missing.extend(
            all.into_iter()
                // A parent is named through its children (`adr` by `adr.globs`, ...).
                .filter(|key| !text.contains(&format!("`{key}")))
                .map(|key| format!("{name}: {key}")),
        );
    }
    // The keys of one approval type (`approvals.<type>.*`) are a map's values, not properties.
    for key in ["enabled", "description", "checks", "on_rejection"] {
        if !text.contains(&format!("`approvals.<type>.{key}")) {
            missing.push(format!("approvals: approvals.<type>.{key}"));
        }
    }
    assert!(
        missing.is_empty(),
        "keys neither the README nor the book names: {missing:?}"
    );
}

#[test]
fn every_rule_id_is_in_the_docs() {
    let text = docs();
    let repo = scratch_repo();
    let rules = stdout(&run(repo.path(), &["rules"]));
    let missing: Vec<&str> = rules
        .lines()
        .filter(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|id| !text.contains(&format!("`{id}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "rule ids neither the README nor the book names: {missing:?}"
    );
}

/// "Working on helix-gate" (in the README and in the book's introduction) says what
/// `validate examples/` prints; this is that run.
#[test]
fn the_quick_start_output_of_validate_examples_holds() {
    let out = run(&manifest_dir(), &["validate", "examples/"]);
    assert_eq!(code(&out), 1);
    let summary = stdout(&out).lines().last().unwrap().to_owned();
    for rel in ["README.md", "docs/src/introduction.md"] {
        let text = readme(rel);
        let start = text
            .find("## Working on helix-gate")
            .unwrap_or_else(|| panic!("{rel} has no \"Working on helix-gate\""));
        let section = &text[start..];
        let section = &section[..section[3..].find("\n## ").map_or(section.len(), |i| i + 3)];
        assert!(
            section.contains(&format!("`{summary}`")),
            "\"Working on helix-gate\" of {rel} does not show `{summary}`"
        );
    }
    assert!(
        !stdout(&out).contains("001-lazy-rule-loading"),
        "the good example has findings"
    );
}

/// The hook ids (`- id: X`, also commented out) of the README's pre-commit entry are hooks
/// of `.pre-commit-hooks.yaml`, and the `with:` keys of its GitHub Action step are inputs
/// of `action.yml`.
#[test]
fn the_quick_start_names_real_hook_ids_and_action_inputs() {
    fn value<'a>(line: &'a str, key: &str) -> Option<&'a str> {
        let line = line.trim_start().trim_start_matches('#').trim_start();
        let rest = line.strip_prefix(key)?;
        Some(rest.split_whitespace().next().unwrap_or_default())
    }
    let text = readme("README.md");
    let manifest = readme(".pre-commit-hooks.yaml");
    let hooks: BTreeSet<&str> = manifest.lines().filter_map(|l| value(l, "- id:")).collect();
    let named: BTreeSet<&str> = text.lines().filter_map(|l| value(l, "- id:")).collect();
    assert!(named.contains("helix-gate"), "{named:?}");
    let unknown: Vec<&&str> = named.difference(&hooks).collect();
    assert!(
        unknown.is_empty(),
        "README names hooks {unknown:?}; there are {hooks:?}"
    );

    let action = readme("action.yml");
    let inputs: BTreeSet<&str> = action
        .lines()
        .skip_while(|l| *l != "inputs:")
        .skip(1)
        .take_while(|l| l.is_empty() || l.starts_with(' '))
        .filter(|l| l.starts_with("  ") && !l.starts_with("   ") && l.ends_with(':'))
        .map(|l| l.trim().trim_end_matches(':'))
        .collect();
    assert!(inputs.contains("paths") && inputs.len() >= 4, "{inputs:?}");
    let step = &text[text
        .find("uses: helix-gate/helix-gate@")
        .expect("the README shows the GitHub Action")..];
    let with: Vec<&str> = step
        .lines()
        .skip_while(|l| l.trim() != "with:")
        .skip(1)
        .take_while(|l| !l.trim_start().starts_with("```"))
        .filter_map(|l| {
            let key = l
                .trim()
                .trim_start_matches('#')
                .trim_start()
                .split(':')
                .next()?;
            (!key.is_empty() && !key.contains(' ')).then_some(key)
        })
        .collect();
    assert!(with.contains(&"paths"), "{with:?}");
    let unknown: Vec<&&str> = with.iter().filter(|k| !inputs.contains(**k)).collect();
    assert!(
        unknown.is_empty(),
        "README passes {unknown:?}; action.yml has {inputs:?}"
    );
}
