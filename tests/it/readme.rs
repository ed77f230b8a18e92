//! The README stays a true map of the binary: every subcommand `--help` lists, every key of
//! the shipped config files (read from the binary's own JSON Schemas) and every rule id
//! `helix-gate rules` prints is named in it, every in-page link leads to a heading, and the
//! Quick start's claim about `validate examples/` holds. Each of these drifted once while
//! features were merged from many branches.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::support::cli::{code, manifest_dir, run, scratch_repo, stdout};

fn readme(rel: &str) -> String {
    std::fs::read_to_string(manifest_dir().join(rel)).unwrap()
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

#[test]
fn every_subcommand_of_help_is_in_the_readme() {
    let text = readme("README.md");
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
        "README names no `helix-gate CMD` for {missing:?}"
    );
}

/// Dotted paths of every property in a JSON Schema (`$ref`s into `definitions` followed).
fn keys(schema: &Value, node: &Value, prefix: &str, out: &mut BTreeSet<String>) {
    let node = match node.get("$ref").and_then(Value::as_str) {
        Some(r) => &schema["definitions"][r.rsplit('/').next().unwrap()],
        None => node,
    };
    for combinator in ["anyOf", "allOf", "oneOf"] {
        for branch in node[combinator].as_array().into_iter().flatten() {
            keys(schema, branch, prefix, out);
        }
    }
    for (name, sub) in node["properties"].as_object().into_iter().flatten() {
        let path = format!("{prefix}{name}");
        keys(schema, sub, &format!("{path}."), out);
        out.insert(path);
    }
}

#[test]
fn every_key_of_the_config_files_is_in_the_readme() {
    let text = readme("README.md");
    let mut missing = Vec::new();
    for name in ["helix-gate", "adr-completeness-rules", "approvals"] {
        let out = run(&manifest_dir(), &["schema", name]);
        assert_eq!(code(&out), 0);
        let schema: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let mut all = BTreeSet::new();
        keys(&schema, &schema, "", &mut all);
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
        "keys the README does not name: {missing:?}"
    );
}

#[test]
fn every_rule_id_is_in_the_readme() {
    let text = readme("README.md");
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
        "rule ids the README does not name: {missing:?}"
    );
}

/// The Quick start says what `validate examples/` prints; this is that run.
#[test]
fn the_quick_start_output_of_validate_examples_holds() {
    let text = readme("README.md");
    let out = run(&manifest_dir(), &["validate", "examples/"]);
    assert_eq!(code(&out), 1);
    let summary = stdout(&out).lines().last().unwrap().to_owned();
    let start = text.find("## Quick start").unwrap();
    let section = &text[start..start + text[start..].find("\n## ").unwrap()];
    assert!(
        section.contains(&format!("`{summary}`")),
        "the Quick start does not show `{summary}`"
    );
    assert!(
        !stdout(&out).contains("001-lazy-rule-loading"),
        "the good example has findings"
    );
}
