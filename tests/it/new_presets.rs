//! `helix-gate new` per preset: `new --preset NAME` (and the configured preset without
//! the flag) writes that format's template where the preset keeps its ADRs, named and
//! numbered its way; unfilled it fails only with `template-placeholder`, filled in
//! mechanically it passes `validate --preset NAME` with zero errors.

use std::path::Path;

use serde_json::Value;

use crate::support::cli::*;

/// Every finding `validate --preset preset` reports for `file`, as (rule, severity).
fn findings(cwd: &Path, preset: &str, file: &str) -> (i32, Vec<(String, String)>) {
    let out = run(
        cwd,
        &["--preset", preset, "validate", file, "--format", "json"],
    );
    let doc: Value = serde_json::from_slice(&out.stdout).expect("json");
    let list = doc["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_owned(),
                f["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    (code(&out), list)
}

/// Replace every `<...>` gap (a letter after `<`, on one line) with its own words plus a
/// few of this ADR's, the way a writer following the template would, but mechanically
/// (its own words alone are the template's hint: `template-hint-left`).
fn fill(text: &str) -> String {
    fill_with(text, " for the order queue")
}

/// Every gap replaced by its own words and `words`.
fn fill_with(text: &str, words: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find(['>', '\n']) {
            Some(c) if after.starts_with(char::is_alphabetic) && after[c..].starts_with('>') => {
                out.push_str(&after[..c]);
                out.push_str(words);
                rest = &after[c + 1..];
            }
            _ => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// A `YYYY-MM-DD` date.
fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            _ => c.is_ascii_digit(),
        })
}

#[test]
fn new_with_a_preset_writes_its_template_that_fails_only_on_placeholders_until_filled() {
    for (preset, expected, number) in [
        ("madr", "docs/decisions/0001-use-a-message-queue.md", "0001"),
        ("nygard", "doc/adr/0001-use-a-message-queue.md", "0001"),
        ("helix", "adr/001-use-a-message-queue.md", "001"),
    ] {
        let repo = scratch_repo();
        let out = run(
            repo.path(),
            &["new", "--preset", preset, "Use a message queue"],
        );
        assert_eq!(code(&out), 0, "{preset}: {}", stderr(&out));
        assert_eq!(
            stdout(&out).lines().next().unwrap(),
            format!("created {expected} (ADR-{number}, template {preset})"),
            "{preset}"
        );
        let text = std::fs::read_to_string(repo.path().join(expected)).unwrap();
        assert!(!text.contains("{{"), "{preset}: {text}");
        match preset {
            "madr" => {
                assert!(text.starts_with("---\n"), "{text}");
                assert!(text.contains("\nstatus: proposed\n"), "{text}");
                let date = text
                    .split("\ndate: ")
                    .nth(1)
                    .unwrap()
                    .lines()
                    .next()
                    .unwrap();
                assert!(is_date(date), "{text}");
                assert!(text.contains("\n# Use a message queue\n"), "{text}");
            }
            "nygard" => {
                let mut lines = text.lines();
                assert_eq!(lines.next(), Some("# 1. Use a message queue"));
                assert_eq!(lines.next(), Some(""));
                let date = lines.next().unwrap().strip_prefix("Date: ").unwrap();
                assert!(is_date(date), "{text}");
            }
            _ => assert!(
                text.contains("\n# ADR-001: Use a message queue\n"),
                "{text}"
            ),
        }

        // As written: only placeholders, each an error.
        let (exit, list) = findings(repo.path(), preset, expected);
        assert_eq!(exit, 1, "{preset}");
        assert!(list.len() >= 3, "{preset}: {list:?}");
        assert!(
            list.iter()
                .all(|(rule, severity)| rule == "template-placeholder" && severity == "error"),
            "{preset}: {list:?}"
        );

        // Filled in (HELIX's own template is filled with its choices in tests/it/new.rs);
        // its brackets merely removed, each section is still the hint.
        if preset != "helix" {
            std::fs::write(repo.path().join(expected), fill_with(&text, "")).unwrap();
            let (exit, list) = findings(repo.path(), preset, expected);
            assert_eq!(exit, 1, "{preset}: {list:?}");
            assert!(
                list.iter()
                    .filter(|(_, severity)| severity == "error")
                    .all(|(rule, _)| rule == "template-hint-left"),
                "{preset}: {list:?}"
            );
            std::fs::write(repo.path().join(expected), fill(&text)).unwrap();
            let (exit, list) = findings(repo.path(), preset, expected);
            assert!(
                list.iter().all(|(_, severity)| severity != "error"),
                "{preset}: {list:?}"
            );
            assert_eq!(exit, 0, "{preset}: {list:?}");
        }
    }
}

#[test]
fn without_the_flag_new_uses_the_configured_preset_and_new_template_names_another() {
    let repo = scratch_repo();
    write(repo.path(), "config/helix-gate.yaml", "preset: nygard\n");
    write(
        repo.path(),
        "doc/adr/0001-record-architecture-decisions.md",
        "# 1. Record architecture decisions\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nWe need records.\n\n## Decision\n\nWe will keep them.\n\n## Consequences\n\nSee above.\n",
    );
    let out = run(repo.path(), &["new", "Cache sessions"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = std::fs::read_to_string(repo.path().join("doc/adr/0002-cache-sessions.md")).unwrap();
    assert!(text.starts_with("# 2. Cache sessions\n"), "{text}");

    // An explicit `new.template` wins over the preset's ...
    write(
        repo.path(),
        "config/helix-gate.yaml",
        "preset: nygard\nnew:\n  template: madr\n",
    );
    let out = run(repo.path(), &["new", "Drop the cache"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("template madr"), "{}", stdout(&out));
    let text = std::fs::read_to_string(repo.path().join("doc/adr/0003-drop-the-cache.md")).unwrap();
    assert!(text.contains("## Considered Options"), "{text}");

    // ... and `--preset` wins over both.
    let out = run(
        repo.path(),
        &["--preset", "nygard", "new", "Keep the cache"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("template nygard"), "{}", stdout(&out));

    // An unknown template name is a configuration error naming the shipped ones.
    write(
        repo.path(),
        "config/helix-gate.yaml",
        "new:\n  template: arc42\n",
    );
    let out = run(repo.path(), &["new", "Anything"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("shipped templates: helix, helix-de, madr, nygard"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_nygard_draft_in_a_session_gets_its_number_from_finalize() {
    let repo = scratch_repo();
    write(repo.path(), "config/helix-gate.yaml", "preset: nygard\n");
    // finalize wants the ADR directory to exist, as for HELIX.
    std::fs::create_dir_all(repo.path().join("doc/adr")).unwrap();
    let session = repo.path().join("projects/sessions/s1");
    std::fs::create_dir_all(&session).unwrap();
    let out = run(&session, &["new", "Use a message queue"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let draft = session.join("output/ADR-use-a-message-queue.md");
    let text = std::fs::read_to_string(&draft).unwrap();
    assert!(text.starts_with("# 0. Use a message queue\n"), "{text}");
    std::fs::write(&draft, fill(&text)).unwrap();
    let out = run(&session, &["finalize", "output/ADR-use-a-message-queue.md"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let done =
        std::fs::read_to_string(repo.path().join("doc/adr/0001-use-a-message-queue.md")).unwrap();
    assert!(done.starts_with("# 1. Use a message queue\n"), "{done}");
    let out = run(repo.path(), &["validate"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}
