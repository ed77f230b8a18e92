//! Robustness on real-world ADRs: every file of `../shared/corpus/public-adrs/`
//! (read in place, never copied) is processed without a crash.

use crate::support::cli::*;

/// A template file by the default `adr.exclude` (the corpus has no `templates/`
/// folder): by its file name (lower case), never by a word in an ADR's title, so
/// `0039-use-apache-velocity-as-template-engine.md` is an ADR.
fn is_template(name: &str) -> bool {
    name == "template.md"
        || name.ends_with(".template.md")
        || ["adr-template.md", "000-template.md", "0000-template.md"].contains(&name)
        || name.ends_with("-000-template.md")
        || name.ends_with("-0000-template.md")
}

#[test]
fn public_adr_corpus_is_processed_without_crash() {
    let corpus = manifest_dir().join("../shared/corpus/public-adrs");
    if !corpus.is_dir() {
        eprintln!("skipped: {} does not exist", corpus.display());
        return;
    }
    let mut expected = 0;
    let mut stack = vec![corpus.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().to_lowercase();
            #[expect(
                clippy::case_sensitive_file_extension_comparisons,
                reason = "`name` is lowercased"
            )]
            if path.is_dir() && !name.starts_with('.') {
                stack.push(path);
            } else if name.ends_with(".md")
                && name != "readme.md"
                && name != "index.md"
                && !is_template(&name)
            {
                expected += 1;
            }
        }
    }
    let out = run(
        &manifest_dir(),
        &["validate", corpus.to_str().unwrap(), "--format", "json"],
    );
    assert!(
        matches!(code(&out), 0 | 1),
        "exit {} {}",
        code(&out),
        stderr(&out)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    assert_eq!(doc["summary"]["files"], expected);
    assert!(expected > 50, "corpus unexpectedly small: {expected}");
}

/// Real ADRs (public ones and the preset corpus) are never taken for half-filled
/// templates: angle brackets in them are HTML, links, generics or name patterns, and no
/// section of them is a shipped template's hint (`template-hint-left`).
#[test]
fn no_real_adr_has_a_template_placeholder() {
    let corpus = manifest_dir().join("../shared/corpus");
    if !corpus.is_dir() {
        eprintln!("skipped: {} does not exist", corpus.display());
        return;
    }
    let out = run(
        &manifest_dir(),
        &["validate", corpus.to_str().unwrap(), "--format", "json"],
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("valid JSON");
    let mut hits = Vec::new();
    for file in doc["files"].as_array().unwrap() {
        for finding in file["findings"].as_array().unwrap() {
            if finding["rule"] == "template-placeholder" || finding["rule"] == "template-hint-left"
            {
                hits.push(format!("{} {}", file["path"], finding["message"]));
            }
        }
    }
    assert!(doc["summary"]["files"].as_u64().unwrap() > 50);
    assert!(hits.is_empty(), "{hits:#?}");
}
