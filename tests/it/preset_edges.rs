//! The madr and nygard presets in the ADR-directory commands and the hook: INDEX.md rows
//! and doctor's gap messages write numbers with `adr.number_width` digits, `rules` says
//! "none" for a preset without contextual rules, and the `SessionStart` summary tells
//! the truth for each preset (its sections, its template).

use serde_json::json;

use crate::support::cli::*;

fn madr_adr(title: &str) -> String {
    format!(
        "---\nstatus: accepted\ndate: 2024-01-01\n---\n# {title}\n\n## Context and Problem Statement\n\nWhy.\n\n## Considered Options\n\n* One\n* Two\n\n## Decision Outcome\n\nChosen option: \"One\".\n"
    )
}

#[test]
fn index_rows_and_gap_messages_follow_the_number_width() {
    let repo = scratch_repo();
    write(repo.path(), "config/helix-gate.yaml", "preset: madr\n");
    write(
        repo.path(),
        "docs/decisions/0001-first.md",
        madr_adr("First"),
    );
    write(
        repo.path(),
        "docs/decisions/0004-fourth.md",
        madr_adr("Fourth"),
    );

    let out = run(repo.path(), &["index", "--write"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let index = std::fs::read_to_string(repo.path().join("docs/decisions/INDEX.md")).unwrap();
    assert!(
        index.contains("| 0001 | [First](0001-first.md) |"),
        "{index}"
    );
    assert!(
        index.contains("| 0004 | [Fourth](0004-fourth.md) |"),
        "{index}"
    );
    // The rows it wrote are the rows it expects.
    let out = run(repo.path(), &["index", "--check"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));

    let out = run(repo.path(), &["doctor", "--format", "json"]);
    let text = stdout(&out);
    assert!(
        text.contains("no ADR has a number from 0002 to 0003"),
        "{text}"
    );
    assert!(!text.contains(" 002"), "{text}");

    // A row whose number disagrees names the expected one in the same width.
    std::fs::write(
        repo.path().join("docs/decisions/INDEX.md"),
        index.replace("| 0004 |", "| 0005 |"),
    )
    .unwrap();
    let out = run(repo.path(), &["doctor"]);
    assert!(stdout(&out).contains("is 0004"), "{}", stdout(&out));

    // HELIX keeps three digits.
    let helix = scratch_repo();
    write(helix.path(), "src/lib.rs", "");
    write(helix.path(), "adr/001-minimal.md", good_adr());
    write(
        helix.path(),
        "adr/004-other.md",
        good_adr().replace("\"001\"", "\"004\""),
    );
    let out = run(helix.path(), &["doctor"]);
    assert!(
        stdout(&out).contains("no ADR has a number from 002 to 003"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn rules_says_none_when_a_preset_has_no_contextual_rules() {
    let cwd = tempfile::tempdir().unwrap();
    for preset in ["madr", "nygard"] {
        let out = run(cwd.path(), &["--preset", preset, "rules"]);
        assert_eq!(code(&out), 0);
        let text = stdout(&out);
        let tail = text.split("\nContextual rules (").nth(1).unwrap();
        let lines: Vec<&str> = tail.lines().collect();
        assert_eq!(lines.len(), 2, "{preset}: {text}");
        assert!(lines[1].starts_with("  none "), "{preset}: {text}");
    }
    let out = run(cwd.path(), &["rules"]);
    let text = stdout(&out);
    assert!(text.contains("major-needs-migration"), "{text}");
    assert!(!text.contains("  none "), "{text}");
}

#[test]
fn the_session_start_summary_is_true_for_each_preset() {
    for (preset, sections) in [
        (
            "helix",
            &[
                "Kontext",
                "Entscheidung",
                "Implementation",
                "Dokumentation",
                "Akzeptanzkriterien",
                "Konsequenzen",
            ][..],
        ),
        (
            "madr",
            &[
                "Context and Problem Statement",
                "Considered Options",
                "Decision Outcome",
            ][..],
        ),
        (
            "nygard",
            &["Status", "Context", "Decision", "Consequences"][..],
        ),
    ] {
        let repo = scratch_repo();
        write(
            repo.path(),
            "config/helix-gate.yaml",
            format!("preset: {preset}\n"),
        );
        let answer = crate::support::hook::hook(
            repo.path(),
            &json!({"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"}),
        )
        .unwrap();
        let text = answer["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap();
        assert!(
            text.contains(&format!("## sections: {}", sections.join(", "))),
            "{preset}: {text}"
        );
        assert!(!text.contains("at least 0 characters"), "{preset}: {text}");
        assert!(
            text.contains(&format!(
                "`helix-gate new \"<title>\"` writes a new ADR from the {preset} template"
            )),
            "{preset}: {text}"
        );
        assert!(text.contains("(template-placeholder)"), "{preset}: {text}");

        // What it says `new` writes has every section it names, and <...> gaps.
        let out = run(repo.path(), &["new", "Cache sessions"]);
        assert_eq!(code(&out), 0, "{preset}: {}", stderr(&out));
        let created = stdout(&out);
        let path = created
            .strip_prefix("created ")
            .and_then(|rest| rest.split(" (").next())
            .unwrap();
        let written = std::fs::read_to_string(repo.path().join(path)).unwrap();
        for section in sections {
            assert!(
                written.contains(&format!("\n## {section}\n")),
                "{preset}: {section}\n{written}"
            );
        }
        let out = run(repo.path(), &["validate", path, "--format", "json"]);
        assert_eq!(code(&out), 1, "{preset}");
        assert!(stdout(&out).contains("template-placeholder"), "{preset}");
    }
}
