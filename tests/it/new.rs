//! `helix-gate new`: where the ADR goes, its number, no overwrite, and the template,
//! the `SessionStart` context and the rules agreeing: the template as shipped fails only
//! with placeholder findings, and filled in mechanically it passes `validate`, the
//! hook's first save and `finalize`.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::hook;

/// A repository laid out like HELIX: `adr/` with one ADR, a consultant session folder.
fn helix_repo() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(
        repo.path(),
        "adr/007-older.md",
        good_adr().replace("\"001\"", "\"007\""),
    );
    write(repo.path(), "src/lib.rs", "");
    std::fs::create_dir_all(repo.path().join("projects/sessions/s1")).unwrap();
    repo
}

/// The shipped HELIX templates: English guidance (the default) and German (`new.template`).
const HELIX_TEMPLATES: [&str; 2] = ["helix", "helix-de"];

/// Makes `new` in `repo` use the shipped template `name`, and creates the file its
/// `files.modify` placeholder names, as it would exist in a real project.
fn use_template(repo: &Path, name: &str) {
    if name != "helix" {
        write(
            repo,
            "config/helix-gate.yaml",
            format!("new:\n  template: {name}\n"),
        );
    }
    write(repo, "src/existing/file.rs", "");
    write(repo, "src/existierende/datei.rs", "");
}

/// The rule ids `validate` reports for one file, and the exit code.
fn findings(cwd: &Path, file: &str) -> (i32, Vec<(String, String)>) {
    let out = run(cwd, &["validate", file, "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
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

/// Picks one of a placeholder's alternatives (`<a|b|c>`).
type Choose = dyn Fn(&[&str]) -> String;

/// Fill every `<...>` gap of a template the way a model following it would, but
/// mechanically: `<a|b|c>` takes the alternative `choose` picks, a path keeps its
/// text, anything else becomes its own words plus a sentence (so sections get long
/// enough). HTML comments (`<!--`) are left alone.
fn fill(template: &str, choose: &Choose) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let close = after.find(['>', '\n']);
        let starts_with_letter = after.chars().next().is_some_and(char::is_alphabetic);
        match close {
            Some(c) if starts_with_letter && after[c..].starts_with('>') => {
                let inner = &after[..c];
                let alternatives: Vec<&str> = inner.split('|').collect();
                if alternatives.len() > 1 && !inner.contains(' ') {
                    out.push_str(&choose(&alternatives));
                } else if inner.contains('/') && !inner.contains(' ') {
                    out.push_str(inner);
                } else {
                    out.push_str(inner.trim_end_matches(['.', '?']));
                    out.push_str(
                        ". Dieser Satz steht für den Inhalt, den das Modell hier schreibt.",
                    );
                }
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

fn first(alternatives: &[&str]) -> String {
    alternatives[0].to_owned()
}

#[test]
fn in_a_session_new_writes_an_unnumbered_draft_and_never_overwrites() {
    let repo = helix_repo();
    let session = repo.path().join("projects/sessions/s1");
    let out = run(&session, &["new", "Größere Caches für \"Regeln\""]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let draft = "output/ADR-groessere-caches-fuer-regeln.md";
    assert!(
        stdout(&out).starts_with(&format!(
            "created {draft} (draft in session projects/sessions/s1, template helix; no number yet"
        )),
        "{}",
        stdout(&out)
    );
    let text = std::fs::read_to_string(session.join(draft)).unwrap();
    assert!(
        text.starts_with("---\nadr_id: \"XXX\"\ntitle: \"Größere Caches für \\\"Regeln\\\"\"\n"),
        "{text}"
    );
    assert!(
        text.contains("\n# ADR-XXX: Größere Caches für \"Regeln\"\n"),
        "{text}"
    );
    assert!(!text.contains("{{"), "{text}");
    // Nothing was numbered or put into adr/.
    assert_eq!(
        std::fs::read_dir(repo.path().join("adr")).unwrap().count(),
        1
    );

    std::fs::write(session.join(draft), "mine").unwrap();
    let again = run(&session, &["new", "Größere Caches für \"Regeln\""]);
    assert_eq!(code(&again), 1);
    assert!(
        stderr(&again).contains(&format!("{draft} already exists; nothing was written")),
        "{}",
        stderr(&again)
    );
    assert_eq!(
        std::fs::read_to_string(session.join(draft)).unwrap(),
        "mine"
    );

    // A subfolder of the session still belongs to it.
    std::fs::create_dir_all(session.join("notes")).unwrap();
    let out = run(&session.join("notes"), &["new", "Zweiter Entwurf"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(session.join("output/ADR-zweiter-entwurf.md").is_file());
}

#[test]
fn outside_a_session_new_takes_the_next_number_in_the_adr_directory() {
    let repo = helix_repo();
    let out = run(repo.path(), &["new", "Lazy rule loading"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out).lines().next(),
        Some("created adr/008-lazy-rule-loading.md (ADR-008, template helix)")
    );
    let text = std::fs::read_to_string(repo.path().join("adr/008-lazy-rule-loading.md")).unwrap();
    assert!(text.starts_with("---\nadr_id: \"008\"\n"), "{text}");
    assert!(text.contains("\n# ADR-008: Lazy rule loading\n"));
    // The file reserves its number.
    let next = run(repo.path(), &["next-number"]);
    assert_eq!(stdout(&next), "009\n");
    // A repository without an ADR directory gets one.
    let empty = scratch_repo();
    let out = run(empty.path(), &["new", "First"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(empty.path().join("adr/001-first.md").is_file());
    // Bad titles are usage errors and write nothing.
    for title in ["  ", "two\nlines"] {
        let out = run(empty.path(), &["new", title]);
        assert_eq!(code(&out), 2, "{title:?}");
    }
    assert_eq!(
        std::fs::read_dir(empty.path().join("adr")).unwrap().count(),
        1
    );
}

#[test]
fn the_template_as_shipped_fails_only_with_placeholder_findings() {
    let repo = helix_repo();
    let session = repo.path().join("projects/sessions/s1");
    assert_eq!(code(&run(&session, &["new", "Cache"])), 0);
    let (exit, list) = findings(&session, "output/ADR-cache.md");
    assert_eq!(exit, 1);
    assert!(list.len() > 10, "{list:?}");
    assert!(
        list.iter()
            .all(|(rule, severity)| rule == "template-placeholder" && severity == "error"),
        "{list:?}"
    );
}

/// `new` writes its guidance (the comment and the `<...>` hints) in English and keeps the
/// HELIX format's German section names; `new.template: helix-de` writes the guidance in
/// German.
#[test]
fn the_guidance_is_english_and_german_on_request() {
    let german_words = ["und", "oder", "wird", "nicht", "jeden", "muss", "Ersetze"];
    for template in HELIX_TEMPLATES {
        let repo = helix_repo();
        use_template(repo.path(), template);
        let session = repo.path().join("projects/sessions/s1");
        let out = run(&session, &["new", "Cache"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let text = std::fs::read_to_string(session.join("output/ADR-cache.md")).unwrap();
        for heading in ["## Kontext", "## Entscheidung", "## Akzeptanzkriterien"] {
            assert!(text.contains(heading), "{template}: {heading}\n{text}");
        }
        let guidance: Vec<&str> = text
            .lines()
            .filter(|line| !line.starts_with('#'))
            .flat_map(|line| line.split(|c: char| !c.is_alphabetic()))
            .filter(|word| german_words.contains(word) || word.contains(['ä', 'ö', 'ü', 'ß']))
            .collect();
        if template == "helix" {
            assert!(
                text.contains("<!--\nDraft from `helix-gate new`. Replace every placeholder"),
                "{text}"
            );
            assert!(guidance.is_empty(), "German words {guidance:?} in\n{text}");
        } else {
            assert!(
                text.contains("<!--\nEntwurf aus `helix-gate new`. Ersetze jeden Platzhalter"),
                "{text}"
            );
            assert!(guidance.len() > 10, "{guidance:?}\n{text}");
        }
    }
}

#[test]
fn the_template_filled_in_mechanically_passes_validate_the_hook_and_finalize() {
    // Every choice of change_scope and classification the template offers.
    let choices: [&Choose; 3] = [
        &first,
        &|alts: &[&str]| {
            if alts.contains(&"major") {
                "major".to_owned()
            } else {
                alts[0].to_owned()
            }
        },
        &|alts: &[&str]| alts[alts.len() - 1].to_owned(),
    ];
    for (i, (choose, template)) in choices
        .iter()
        .flat_map(|choose| HELIX_TEMPLATES.map(|template| (choose, template)))
        .enumerate()
    {
        let repo = helix_repo();
        write(
            repo.path(),
            "config/approvals.yaml",
            "approvals:\n  adr:\n    enabled: false\n",
        );
        use_template(repo.path(), template);
        let session = repo.path().join("projects/sessions/s1");
        assert_eq!(code(&run(&session, &["new", "Cache parsed rules"])), 0);
        let draft = session.join("output/ADR-cache-parsed-rules.md");
        let filled = fill(&std::fs::read_to_string(&draft).unwrap(), choose);
        assert!(!filled.contains("XXX>"), "{filled}");
        std::fs::write(&draft, &filled).unwrap();

        let (exit, list) = findings(&session, "output/ADR-cache-parsed-rules.md");
        assert_eq!(exit, 0, "choice {i} ({template}): {list:?}\n{filled}");
        assert!(
            list.iter().all(|(_, severity)| severity != "error"),
            "choice {i}: {list:?}"
        );

        // The hook's first save of it: no block.
        let rel = "projects/sessions/s1/output/ADR-cache-parsed-rules.md";
        let answer = hook(
            repo.path(),
            &json!({"session_id": "s", "cwd": session, "hook_event_name": "PostToolUse",
                    "tool_name": "Write", "tool_input": {"file_path": repo.path().join(rel)},
                    "tool_response": {}, "tool_use_id": "t1"}),
        );
        assert!(
            answer.as_ref().is_none_or(|a| a.get("decision").is_none()),
            "choice {i}: {answer:?}"
        );

        // finalize takes it into adr/ with the next number.
        let out = run(&session, &["finalize", "output/ADR-cache-parsed-rules.md"]);
        assert_eq!(
            code(&out),
            0,
            "choice {i}: {}{}",
            stdout(&out),
            stderr(&out)
        );
        assert!(repo.path().join("adr/008-cache-parsed-rules.md").is_file());
    }
}

/// The template with every gap merely un-bracketed: `<a|b>` takes `a`, anything else keeps
/// its own words (the hint) without the brackets.
fn unbracket(template: &str) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find(['>', '\n']) {
            Some(c)
                if after.chars().next().is_some_and(char::is_alphabetic)
                    && after[c..].starts_with('>') =>
            {
                let inner = &after[..c];
                match inner.split('|').collect::<Vec<_>>().as_slice() {
                    [one, _, ..] if !inner.contains(' ') => out.push_str(one),
                    _ => out.push_str(inner),
                }
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

#[test]
fn the_template_with_its_hints_only_unbracketed_fails_validate_the_hook_and_finalize() {
    for (template, first_hint) in HELIX_TEMPLATES
        .into_iter()
        .zip(["\nWhy is this needed?", "\nWarum wird das gebraucht?"])
    {
        hints_only_unbracketed_fail(template, first_hint);
    }
}

fn hints_only_unbracketed_fail(template: &str, first_hint: &str) {
    let repo = helix_repo();
    write(
        repo.path(),
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    use_template(repo.path(), template);
    let session = repo.path().join("projects/sessions/s1");
    assert_eq!(code(&run(&session, &["new", "Cache parsed rules"])), 0);
    let draft = session.join("output/ADR-cache-parsed-rules.md");
    let hints = unbracket(&std::fs::read_to_string(&draft).unwrap());
    assert!(hints.contains(first_hint), "{hints}");
    std::fs::write(&draft, &hints).unwrap();

    let (exit, list) = findings(&session, "output/ADR-cache-parsed-rules.md");
    assert_eq!(exit, 1, "{list:?}");
    let left: Vec<&str> = list
        .iter()
        .filter(|(_, severity)| severity == "error")
        .map(|(rule, _)| rule.as_str())
        .collect();
    // Kontext, Entscheidung, Implementation, Dokumentation, Migration, Akzeptanzkriterien,
    // Konsequenzen: every section is still the hint, and nothing else is wrong.
    assert_eq!(left, ["template-hint-left"; 7], "{template}: {list:?}");

    let rel = "projects/sessions/s1/output/ADR-cache-parsed-rules.md";
    let answer = hook(
        repo.path(),
        &json!({"session_id": "s", "cwd": session, "hook_event_name": "PostToolUse",
                "tool_name": "Write", "tool_input": {"file_path": repo.path().join(rel)},
                "tool_response": {}, "tool_use_id": "t1"}),
    )
    .expect("an answer");
    assert_eq!(answer["decision"], "block", "{answer}");
    assert!(
        answer["reason"]
            .as_str()
            .unwrap()
            .contains("template-hint-left"),
        "{answer}"
    );

    let out = run(&session, &["finalize", "output/ADR-cache-parsed-rules.md"]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(!repo.path().join("adr/008-cache-parsed-rules.md").exists());
}

#[test]
fn the_session_start_context_names_what_the_template_needs() {
    let repo = helix_repo();
    let answer = hook(
        repo.path(),
        &json!({"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"}),
    )
    .unwrap();
    let text = answer["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    for needed in [
        "Kontext, Entscheidung, Implementation, Dokumentation, Akzeptanzkriterien, Konsequenzen",
        "(template-placeholder)",
        "helix-gate new \"<title>\"",
        "(major-needs-migration): add \"## Migration\" with the phases and steps (Phase, Schritt/Step) and a rollback plan, and an acceptance criterion",
    ] {
        assert!(text.contains(needed), "{needed}\n{text}");
    }
    // Every section the rules require is one of the template's headings.
    let template = std::fs::read_to_string(manifest_dir().join("templates/helix.md")).unwrap();
    for section in [
        "Kontext",
        "Entscheidung",
        "Implementation",
        "Dokumentation",
        "Akzeptanzkriterien",
        "Konsequenzen",
        "Migration",
    ] {
        assert!(template.contains(&format!("\n## {section}\n")), "{section}");
    }
}

mod e2e {
    //! The real Claude Code client against the fake Messages API: a model that writes
    //! `new`'s template as shipped is blocked with the placeholders, and the same
    //! template filled in passes on its first complete save.

    use serde_json::json;

    use crate::support::claude::{ClaudeRun, hook_blocking_errors, require_claude};
    use crate::support::cli::*;
    use crate::support::fake_api::{Conversation, FakeApi, RecordedRequest, Turn};
    use crate::support::repo::ScratchRepo;

    #[test]
    fn the_shipped_template_is_blocked_and_the_filled_one_passes_at_once() {
        let Some(claude) = require_claude() else {
            return;
        };
        let repo = ScratchRepo::new();
        repo.write("src/existing/file.rs", "");
        repo.write(
            "config/approvals.yaml",
            "approvals:\n  adr:\n    enabled: false\n",
        );
        assert_eq!(code(&run(repo.path(), &["install", "claude"])), 0);
        let out = run(repo.path(), &["new", "Cache parsed rules"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let rel = "adr/001-cache-parsed-rules.md";
        let shipped = repo.read(rel).unwrap();
        let filled = super::fill(&shipped, &super::first);
        let api = FakeApi::start(move |_: &RecordedRequest, conv: &Conversation<'_>| {
            let dir = conv.working_dir().expect("working dir");
            let write = |content: &str| {
                Turn::text("Writing the ADR.").with_tool(
                    "Write",
                    json!({"file_path": dir.join(rel), "content": content}),
                )
            };
            match conv.request_index() {
                0 => write(&shipped),
                1 => write(&filled),
                _ => Turn::text("ADR written."),
            }
        });
        let outcome = ClaudeRun::new(&claude, &api, repo.path(), "Write the ADR").run();
        outcome.assert_success();
        let requests = api.main_requests();
        assert_eq!(requests.len(), 3, "{}", outcome.describe());
        // The SessionStart context told the model about the placeholders and `new`.
        assert!(
            requests[0].contains("template-placeholder"),
            "the SessionStart context did not reach the model"
        );
        let blocks = hook_blocking_errors(&requests, "PostToolUse:Write");
        assert_eq!(blocks.len(), 1, "{blocks:#?}");
        assert!(
            blocks[0].contains("[template-placeholder]"),
            "{}",
            blocks[0]
        );
        assert!(!blocks[0].contains("[section-missing]"), "{}", blocks[0]);
        assert_eq!(outcome.result_text(), Some("ADR written."));
    }
}

#[test]
fn an_adr_titled_template_is_an_adr_everywhere() {
    let repo = helix_repo();
    let out = run(repo.path(), &["new", "Template engine selection"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let rel = "adr/008-template-engine-selection.md";
    assert!(repo.path().join(rel).is_file());
    // validate of the repository checks it (the template's gaps are still open).
    let out = run(repo.path(), &["validate", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let files: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    assert!(files.contains(&rel), "{files:?}");
    let (exit, found) = findings(repo.path(), rel);
    assert_eq!(exit, 1);
    assert!(
        found.iter().any(|(rule, _)| rule == "template-placeholder"),
        "{found:?}"
    );
    // Its number is taken.
    assert_eq!(stdout(&run(repo.path(), &["next-number"])), "009\n");
}

#[test]
fn next_number_counts_excluded_numbered_files_too() {
    let repo = helix_repo();
    write(
        repo.path(),
        "adr/templates/011-old-template.md",
        "# template\n",
    );
    assert_eq!(stdout(&run(repo.path(), &["next-number"])), "012\n");
    // A repository's own exclude: the excluded file still holds its number.
    write(
        repo.path(),
        "config/helix-gate.yaml",
        "adr:\n  exclude: [\"**/INDEX.md\", \"**/*-wip.md\"]\n",
    );
    write(repo.path(), "adr/020-parked-wip.md", "# parked\n");
    assert_eq!(stdout(&run(repo.path(), &["next-number"])), "021\n");
    let out = run(repo.path(), &["new", "After the parked one"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        repo.path()
            .join("adr/021-after-the-parked-one.md")
            .is_file()
    );
}

#[test]
fn new_refuses_a_file_the_gate_would_skip() {
    let repo = helix_repo();
    write(
        repo.path(),
        "config/helix-gate.yaml",
        "adr:\n  exclude: [\"**/INDEX.md\", \"**/*secret*.md\"]\n",
    );
    let out = run(repo.path(), &["new", "Secret handling"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains(
            "adr/008-secret-handling.md would never be checked: `adr.exclude` in config/helix-gate.yaml matches it"
        ),
        "{}",
        stderr(&out)
    );
    assert!(!repo.path().join("adr/008-secret-handling.md").exists());
    // In a session the draft's name is checked the same way.
    let session = repo.path().join("projects/sessions/s1");
    let out = run(&session, &["new", "Secret handling"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(!session.join("output/ADR-secret-handling.md").exists());
    // An ADR directory the globs do not cover.
    write(
        repo.path(),
        "config/helix-gate.yaml",
        "adr:\n  globs: [\"docs/decisions/**/*.md\"]\n",
    );
    let out = run(repo.path(), &["new", "Lazy rule loading"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("no pattern of `adr.globs`"),
        "{}",
        stderr(&out)
    );
    assert!(!repo.path().join("adr/008-lazy-rule-loading.md").exists());
}

#[test]
fn new_adds_its_row_to_a_kept_index_so_doctor_stays_green() {
    let repo = helix_repo();
    let out = run(repo.path(), &["index", "--write"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = run(repo.path(), &["doctor"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let out = run(repo.path(), &["new", "Cache layer"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("INDEX.md"), "{}", stdout(&out));
    let index = std::fs::read_to_string(repo.path().join("adr/INDEX.md")).unwrap();
    assert!(index.contains("008-cache-layer.md"), "{index}");
    // Doctor finds the placeholders the user has still to fill in, nothing about INDEX.md.
    let out = run(repo.path(), &["doctor"]);
    assert!(!stdout(&out).contains("[index-"), "{}", stdout(&out));
    // Filled in, the ADR and its row still agree.
    let adr = repo.path().join("adr/008-cache-layer.md");
    let text = std::fs::read_to_string(&adr).unwrap();
    std::fs::write(&adr, fill(&text, &first)).unwrap();
    let out = run(repo.path(), &["doctor"]);
    assert!(!stdout(&out).contains("[index-"), "{}", stdout(&out));
}

#[test]
fn new_creates_no_index_where_none_is_kept() {
    let repo = helix_repo();
    let out = run(repo.path(), &["new", "Cache layer"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!repo.path().join("adr/INDEX.md").exists());
}
