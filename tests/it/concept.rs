//! The concept diff from the ADR's own front matter (`concept:`) in every entry point:
//! `validate`, the hook, `pre-commit` on a real git repository, and `approve` (the reviewer
//! gets the concept in its run folder and its prompt).

use serde_json::{Value, json};

use super::approval::{approve_json, approved, canned_result, configure, run_dir};
use crate::support::cli::*;
use crate::support::hook::hook;
use crate::support::repo::ScratchRepo;

/// A concept with a migration plan (required by the rules, whatever `change_scope` says)
/// and a section the rules do not require.
pub(crate) const CONCEPT: &str =
    "# Konzept\n## Kontext\nx\n## Migration\nPhase 1: 14 Tage Parallelbetrieb\n## Risiken\nkeine\n";

/// The good (minor) ADR naming `concept` in its front matter.
pub(crate) fn adr_with_concept(concept: &str) -> String {
    good_adr().replacen(
        "change_scope: minor\n",
        &format!("change_scope: minor\nconcept: {concept}\n"),
        1,
    )
}

fn scratch() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(
        repo.path(),
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo
}

#[test]
fn validate_compares_the_adr_with_the_concept_its_front_matter_names() {
    let repo = scratch();
    // Next to the ADR first ...
    write(repo.path(), "adr/concept.md", CONCEPT);
    write(repo.path(), "adr/001-x.md", adr_with_concept("concept.md"));
    // ... then from the repository root.
    write(repo.path(), "docs/c.md", CONCEPT);
    write(
        repo.path(),
        "adr/002-y.md",
        adr_with_concept("docs/c.md").replace("\"001\"", "\"002\""),
    );
    for (file, origin) in [
        ("adr/001-x.md", "adr/concept.md"),
        ("adr/002-y.md", "docs/c.md"),
    ] {
        let out = run(repo.path(), &["validate", file]);
        let text = stdout(&out);
        assert_eq!(code(&out), 1, "{text}");
        assert!(
            text.contains(&format!("error[concept-required-section-missing] section \"Migration\" of the concept {origin} (line 4) is missing from the ADR")),
            "{text}"
        );
        assert!(
            text.contains("warning[concept-section-missing] section \"Risiken\""),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "info[concept-coverage] concept coverage ({origin}): 1 of 3 sections (33%)"
            )),
            "{text}"
        );
    }
}

#[test]
#[cfg(unix)]
fn a_named_concept_that_cannot_be_used_is_a_finding_not_a_crash() {
    let repo = scratch();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "c.md", CONCEPT);
    let cases = [
        ("missing.md", "no such file"),
        (
            "../../../../../../../../etc/passwd",
            "leaves the repository",
        ),
        ("/etc/passwd", "an absolute path"),
    ];
    for (named, why) in cases {
        write(
            repo.path(),
            "adr/001-x.md",
            adr_with_concept(&format!("\"{named}\"")),
        );
        let out = run(
            repo.path(),
            &["validate", "adr/001-x.md", "--format", "json"],
        );
        assert_eq!(code(&out), 1, "{}", stdout(&out));
        let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let finding = doc["files"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["rule"] == "concept-unreadable")
            .unwrap_or_else(|| panic!("{named}: {doc:#}"));
        assert_eq!(finding["line"], 9, "at the concept: line");
        assert!(
            finding["message"].as_str().unwrap().contains(why),
            "{finding}"
        );
    }
    // A symbolic link that leads out of the repository is not followed.
    std::os::unix::fs::symlink(outside.path().join("c.md"), repo.path().join("adr/link.md"))
        .unwrap();
    write(repo.path(), "adr/001-x.md", adr_with_concept("link.md"));
    let out = run(repo.path(), &["validate", "adr/001-x.md"]);
    assert!(
        stdout(&out).contains("leaves the repository"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn the_hook_blocks_an_adr_that_lost_a_section_of_its_concept() {
    let repo = scratch();
    write(repo.path(), "adr/concept.md", CONCEPT);
    write(repo.path(), "adr/001-x.md", adr_with_concept("concept.md"));
    let event = json!({"session_id": "s", "transcript_path": "t", "cwd": repo.path(),
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": repo.path().join("adr/001-x.md"), "content": "…"},
        "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"});
    let answer = hook(repo.path(), &event).expect("one JSON object");
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains("concept-required-section-missing"),
        "{reason}"
    );
    assert!(reason.contains("\"Migration\""), "{reason}");
}

#[test]
fn pre_commit_refuses_a_staged_adr_that_lost_a_section_of_its_concept() {
    let repo = ScratchRepo::with_adr();
    // Outside adr/: a concept is no ADR.
    repo.write("docs/concept.md", CONCEPT);
    repo.write(super::precommit::ADR, adr_with_concept("docs/concept.md"));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(text.contains("concept-required-section-missing"), "{text}");
    // With the section carried over, the commit passes.
    let fixed = adr_with_concept("docs/concept.md")
        .replacen("## Konsequenzen", "## Migration\n\nPhase 1: 14 Tage Parallelbetrieb, dann Umstellung in einem Schritt.\n\n## Konsequenzen", 1);
    repo.write(super::precommit::ADR, fixed);
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

#[test]
fn the_reviewer_sees_the_concept_in_its_run_folder_and_prompt() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write(
        "docs/concept.md",
        "# Konzept\n## Kontext\nx\n## Entscheidung\ny\n",
    );
    let adr = "adr/001-x.md";
    repo.write(adr, adr_with_concept("docs/concept.md"));
    let script = fake_reviewer(
        repo.path(),
        &canned_result(&approved(0.9)),
        "printf '%s' \"$2\" > output/prompt.txt\ncp concept/docs/concept.md output/seen-concept.md\n",
    );
    configure(&repo, &script, 30);
    let (exit, doc) = approve_json(repo.path(), None, &[adr]);
    assert_eq!(exit, 0, "{doc:#}");
    let dir = run_dir(repo.path(), &doc);
    assert_eq!(
        std::fs::read_to_string(dir.join("output/seen-concept.md")).unwrap(),
        "# Konzept\n## Kontext\nx\n## Entscheidung\ny\n"
    );
    let prompt = std::fs::read_to_string(dir.join("output/prompt.txt")).unwrap();
    assert!(
        prompt.contains(
            r#"Concepts: [{"copy":"concept/docs/concept.md","repository_path":"docs/concept.md"}]"#
        ),
        "{prompt}"
    );
}

#[test]
fn finalize_rewrites_a_concept_next_to_the_draft_from_the_repository_root() {
    let repo = scratch();
    std::fs::create_dir(repo.path().join("adr")).unwrap();
    let session = "projects/sessions/s1/output";
    write(
        repo.path(),
        &format!("{session}/concept.md"),
        "# Konzept\n## Kontext\nx\n## Entscheidung\ny\n",
    );
    let draft = adr_with_concept("concept.md   ");
    write(repo.path(), &format!("{session}/ADR-cache.md"), &draft);
    let out = run(
        repo.path(),
        &["finalize", &format!("{session}/ADR-cache.md")],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let moved = std::fs::read_to_string(
        repo.path()
            .join("adr/001-cache-parsed-rules-between-hook-calls.md"),
    )
    .unwrap();
    assert_eq!(
        moved,
        draft.replace(
            "concept: concept.md   \n",
            &format!("concept: \"{session}/concept.md\"\n")
        )
    );
    // The finalized ADR still finds its concept.
    let out = run(
        repo.path(),
        &[
            "validate",
            "adr/001-cache-parsed-rules-between-hook-calls.md",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("2 of 2 sections (100%)"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_changed_concept_is_reviewed_again_and_an_unchanged_one_is_a_cache_hit() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write(
        "docs/concept.md",
        "# Konzept\n## Kontext\nx\n## Entscheidung\ny\n",
    );
    let adr = "adr/001-cache-rules.md";
    repo.write(adr, adr_with_concept("docs/concept.md"));
    let runs = repo.path().join("fake/runs");
    let script = fake_reviewer(
        repo.path(),
        &canned_result(&approved(0.9)),
        &format!("echo run >> '{}'\n", runs.display()),
    );
    configure(&repo, &script, 30);
    let reviews = || {
        std::fs::read_to_string(&runs)
            .unwrap_or_default()
            .lines()
            .count()
    };
    let bytes = std::fs::read(repo.path().join(adr)).unwrap();

    let (exit, first) = approve_json(repo.path(), None, &[adr]);
    assert_eq!(exit, 0, "{first:#}");
    assert_eq!(reviews(), 1);
    assert!(super::approval::is_approved(repo.path(), &bytes, "adr"));

    // Same ADR, same concept: the cached verdict, no reviewer.
    let (exit, again) = approve_json(repo.path(), None, &[adr]);
    assert_eq!(exit, 0, "{again:#}");
    assert_eq!(again["stage"], "cache", "{again:#}");
    assert_eq!(reviews(), 1);

    // Same ADR bytes, changed concept: the reviewer judges again, and pre-commit's
    // lookup no longer finds the ADR approved.
    repo.write(
        "docs/concept.md",
        "# Konzept\n## Kontext\nx\n## Entscheidung\nanders\n",
    );
    assert!(!super::approval::is_approved(repo.path(), &bytes, "adr"));
    let (exit, changed) = approve_json(repo.path(), None, &[adr]);
    assert_eq!(exit, 0, "{changed:#}");
    assert_ne!(changed["stage"], "cache", "{changed:#}");
    assert_eq!(reviews(), 2);
    assert!(super::approval::is_approved(repo.path(), &bytes, "adr"));
}

#[test]
fn finalize_carries_an_approval_over_with_the_concept_in_the_key() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    std::fs::create_dir(repo.path().join("adr")).unwrap();
    repo.write(
        "output/concept.md",
        "# Konzept\n## Kontext\nx\n## Entscheidung\ny\n",
    );
    let draft = "output/ADR-cache.md";
    // The concept next to the draft: finalize rewrites its path for the new folder.
    repo.write(draft, adr_with_concept("concept.md"));
    let runs = repo.path().join("fake/runs");
    let script = fake_reviewer(
        repo.path(),
        &canned_result(&approved(0.9)),
        &format!("echo run >> '{}'\n", runs.display()),
    );
    configure(&repo, &script, 30);
    let (exit, doc) = approve_json(repo.path(), None, &[draft]);
    assert_eq!(exit, 0, "{doc:#}");

    let out = helix_in(&repo, &["finalize", draft]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains("carried over"), "{}", stderr(&out));
    // The note names every change, the rewritten concept path included.
    assert!(
        stderr(&out).contains(
            "(finalize changed only adr_id, the concept: path, the file name and INDEX.md)"
        ),
        "{}",
        stderr(&out)
    );
    let finalized = "adr/001-cache-parsed-rules-between-hook-calls.md";
    assert!(
        std::fs::read_to_string(repo.path().join(finalized))
            .unwrap()
            .contains("concept: \"output/concept.md\""),
    );
    // The finalized ADR with the same concept is approved without a second review.
    let (exit, again) = approve_json(repo.path(), None, &[finalized]);
    assert_eq!(exit, 0, "{again:#}");
    assert_eq!(again["stage"], "cache", "{again:#}");
    assert_eq!(
        std::fs::read_to_string(&runs).unwrap().lines().count(),
        1,
        "one review"
    );
}

/// `helix-gate` in `repo` with the test's state folder (no reviewer starts).
fn helix_in(repo: &ScratchRepo, args: &[&str]) -> std::process::Output {
    isolated(bin(), repo.path())
        .args(args)
        .env("HELIX_GATE_STATE_DIR", repo.state_dir())
        .output()
        .unwrap()
}

#[test]
fn a_verdict_for_another_concept_is_neither_judged_nor_refuses_finalize() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    std::fs::create_dir(repo.path().join("adr")).unwrap();
    repo.write(
        "output/concept.md",
        "# Konzept\n## Kontext\nx\n## Entscheidung\ny\n",
    );
    let draft = "output/ADR-cache.md";
    repo.write(draft, adr_with_concept("concept.md"));
    let rejected = canned_result(&json!({"result": "rejected", "confidence": 0.9,
        "findings": [{"severity": "error", "check": "conflicts", "message": "contradicts the concept"}],
        "recommendations": []}));
    let script = fake_reviewer(repo.path(), &rejected, "");
    configure(&repo, &script, 30);
    let (exit, doc) = approve_json(repo.path(), None, &[draft]);
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["result"], "rejected");

    // Same ADR and concept: the rejection is what finalize and --override see.
    let out = helix_in(&repo, &["finalize", draft]);
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("the latest review of this content"),
        "{}",
        stderr(&out)
    );

    // The concept changed: that rejection judged other inputs (the cache key
    // differs too), so there is no verdict to judge and none that refuses.
    repo.write(
        "output/concept.md",
        "# Konzept\n## Kontext\nx\n## Entscheidung\nanders\n",
    );
    let out = helix_in(
        &repo,
        &[
            "approve",
            "--override",
            draft,
            "approved",
            "--reason",
            "fine",
        ],
    );
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no verdict of type `adr` is recorded for the current content"),
        "{}",
        stderr(&out)
    );
    let out = helix_in(&repo, &["finalize", draft]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

/// The consultant's session: a minor draft `output/ADR-x.md` that names no concept.
const SESSION: &str = "projects/sessions/s1/output";

#[test]
fn a_draft_is_compared_with_the_concept_next_to_it_by_convention() {
    // The ADR-014 case: a minor ADR beside the concept it was written from, which lost the
    // concept's migration plan, found without a `concept:` key.
    let repo = scratch();
    let draft = format!("{SESSION}/ADR-x.md");
    write(repo.path(), &format!("{SESSION}/concept.md"), CONCEPT);
    write(repo.path(), &draft, good_adr());
    let origin = format!("{SESSION}/concept.md");

    let out = run(repo.path(), &["validate", &draft]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    assert!(
        text.contains(&format!("error[concept-required-section-missing] section \"Migration\" of the concept {origin} (line 4)")),
        "{text}"
    );

    // The hook, driven by its event on stdin.
    let event = json!({"session_id": "s", "transcript_path": "t", "cwd": repo.path(),
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": repo.path().join(&draft), "content": "…"},
        "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"});
    let answer = hook(repo.path(), &event).unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains("concept-required-section-missing"),
        "{reason}"
    );

    // The gate of a phase plan.
    let out = run(
        &repo.path().join("projects/sessions/s1"),
        &["gate", "adr_complete", "--file", "output/ADR-*.md"],
    );
    assert_eq!(code(&out), 1, "{}{}", stdout(&out), stderr(&out));
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(
        doc["details"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["rule"] == "concept-required-section-missing"),
        "{doc:#}"
    );

    // With the section carried over, all pass; the coverage names the discovered concept.
    let fixed = good_adr().replacen(
        "## Konsequenzen",
        "## Migration\n\nPhase 1: 14 Tage Parallelbetrieb, dann Umstellung in einem Schritt.\n\n## Konsequenzen",
        1,
    );
    write(repo.path(), &draft, &fixed);
    let out = run(repo.path(), &["validate", &draft]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stdout(&out).contains(&format!("concept coverage ({origin}): 2 of 3 sections")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn discovery_is_case_insensitive_ordered_and_can_be_turned_off() {
    let repo = scratch();
    let draft = format!("{SESSION}/ADR-x.md");
    write(repo.path(), &draft, good_adr());
    // No concept next to the draft: unaffected (an unrelated file does not count).
    write(repo.path(), &format!("{SESSION}/notes.md"), CONCEPT);
    let out = run(repo.path(), &["validate", &draft]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(!stdout(&out).contains("concept"), "{}", stdout(&out));
    // `konzept*.md`, whatever the case.
    write(
        repo.path(),
        &format!("{SESSION}/Konzept-Zahlung.md"),
        CONCEPT,
    );
    let out = run(repo.path(), &["validate", &draft]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("of the concept projects/sessions/s1/output/Konzept-Zahlung.md"),
        "{}",
        stdout(&out)
    );
    // `concept.md` comes first in the list and wins.
    write(
        repo.path(),
        &format!("{SESSION}/CONCEPT.md"),
        "# C\n## Kontext\nx\n",
    );
    let out = run(repo.path(), &["validate", &draft]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("concept coverage (projects/sessions/s1/output/CONCEPT.md)"),
        "{}",
        stdout(&out)
    );
    // A named concept wins over discovery.
    write(repo.path(), "docs/c.md", "# C\n## Kontext\nx\n");
    write(repo.path(), &format!("{SESSION}/CONCEPT.md"), CONCEPT);
    write(repo.path(), &draft, adr_with_concept("docs/c.md"));
    let out = run(repo.path(), &["validate", &draft]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    // A configured empty list turns discovery off.
    write(repo.path(), &draft, good_adr());
    assert_eq!(code(&run(repo.path(), &["validate", &draft])), 1);
    write(
        repo.path(),
        "config/helix-gate.yaml",
        "concept:\n  discover: []\n",
    );
    let out = run(repo.path(), &["validate", &draft]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(!stdout(&out).contains("concept"), "{}", stdout(&out));
}

#[test]
fn approve_rejects_deterministically_a_draft_that_lost_a_section_of_the_concept_beside_it() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    let draft = "output/ADR-x.md";
    repo.write("output/concept.md", CONCEPT);
    repo.write(draft, good_adr());
    let runs = repo.path().join("fake/runs");
    let script = fake_reviewer(
        repo.path(),
        &canned_result(&approved(0.9)),
        &format!("echo run >> '{}'\n", runs.display()),
    );
    configure(&repo, &script, 30);
    let (exit, doc) = approve_json(repo.path(), None, &[draft]);
    assert_eq!(exit, 1, "{doc:#}");
    assert_eq!(doc["result"], "rejected", "{doc:#}");
    assert!(
        doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["check"] == "concept-required-section-missing"
                && f["source"] == "deterministic"),
        "{doc:#}"
    );
    assert!(!runs.exists(), "no reviewer ran");
}

#[test]
fn finalize_writes_a_discovered_concept_into_the_front_matter() {
    let repo = scratch();
    std::fs::create_dir(repo.path().join("adr")).unwrap();
    let concept = "# Konzept\n## Kontext\nx\n## Entscheidung\ny\n";
    write(repo.path(), &format!("{SESSION}/concept.md"), concept);
    // A stray concept in adr/ must not replace the draft's own after the move.
    write(repo.path(), "adr/concept.md", CONCEPT);
    let draft = good_adr();
    write(repo.path(), &format!("{SESSION}/ADR-cache.md"), &draft);
    let out = run(
        repo.path(),
        &["finalize", &format!("{SESSION}/ADR-cache.md")],
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let finalized = "adr/001-cache-parsed-rules-between-hook-calls.md";
    let moved = std::fs::read_to_string(repo.path().join(finalized)).unwrap();
    assert!(
        moved.contains(&format!("\nconcept: \"{SESSION}/concept.md\"\n---\n")),
        "{moved}"
    );
    let out = run(repo.path(), &["validate", finalized]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(
        stdout(&out).contains(&format!("concept coverage ({SESSION}/concept.md): 2 of 2")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn pre_commit_compares_a_staged_draft_with_the_concept_beside_it() {
    let repo = ScratchRepo::with_adr();
    repo.write("output/concept.md", CONCEPT);
    repo.write("output/ADR-x.md", good_adr().replace("\"001\"", "\"002\""));
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(code(&out), 1, "{text}");
    assert!(
        text.contains("section \"Migration\" of the concept output/concept.md"),
        "{text}"
    );
    // Discovery turned off: the draft passes.
    repo.write("config/helix-gate.yaml", "concept:\n  discover: []\n");
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

#[test]
fn a_discovered_concept_is_in_the_approval_cache_key_and_the_run_folder() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write(
        "output/concept.md",
        "# Konzept\n## Kontext\nx\n## Entscheidung\ny\n",
    );
    let draft = "output/ADR-cache.md";
    repo.write(draft, good_adr());
    let runs = repo.path().join("fake/runs");
    let script = fake_reviewer(
        repo.path(),
        &canned_result(&approved(0.9)),
        &format!(
            "echo run >> '{}'\ncp concept/output/concept.md output/seen-concept.md\n",
            runs.display()
        ),
    );
    configure(&repo, &script, 30);
    let (exit, first) = approve_json(repo.path(), None, &[draft]);
    assert_eq!(exit, 0, "{first:#}");
    assert!(
        run_dir(repo.path(), &first)
            .join("output/seen-concept.md")
            .is_file()
    );
    let (_, again) = approve_json(repo.path(), None, &[draft]);
    assert_eq!(again["stage"], "cache", "{again:#}");
    // The concept beside the draft changed: a new review.
    repo.write(
        "output/concept.md",
        "# Konzept\n## Kontext\nx\n## Entscheidung\nanders\n",
    );
    let (exit, changed) = approve_json(repo.path(), None, &[draft]);
    assert_eq!(exit, 0, "{changed:#}");
    assert_ne!(changed["stage"], "cache", "{changed:#}");
    assert_eq!(std::fs::read_to_string(&runs).unwrap().lines().count(), 2);
}

/// Seed 002's naming: the concept beside the draft is named after the draft's
/// slug (`output/subagent-approval.md` for `output/ADR-subagent-approval.md`),
/// and found like `concept.md` (validate, the hook, pre-commit).
#[test]
fn a_concept_named_after_the_drafts_slug_is_found() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    let draft = format!("{SESSION}/ADR-subagent-approval.md");
    let origin = format!("{SESSION}/subagent-approval.md");
    repo.write(&origin, CONCEPT);
    repo.write(&draft, good_adr());
    let out = run(repo.path(), &["validate", &draft]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    assert!(
        text.contains(&format!(
            "error[concept-required-section-missing] section \"Migration\" of the concept {origin} (line 4)"
        )),
        "{text}"
    );
    let event = json!({"session_id": "s", "transcript_path": "t", "cwd": repo.path(),
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": repo.path().join(&draft), "content": "…"},
        "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"});
    let answer = hook(repo.path(), &event).unwrap();
    assert_eq!(answer["decision"], "block", "{answer}");
    repo.git(&["add", &draft]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("concept-required-section-missing"),
        "{}",
        stderr(&out)
    );
    // Another draft's slug is not this draft's concept.
    std::fs::remove_file(repo.path().join(&origin)).unwrap();
    repo.write(format!("{SESSION}/other-topic.md"), CONCEPT);
    let out = run(repo.path(), &["validate", &draft]);
    assert!(
        !stdout(&out).contains("concept-required-section-missing"),
        "{}",
        stdout(&out)
    );
}

/// Seed 002's ADR-015 links its concepts from `## Referenzen`
/// (`[Konzept: Sub-Agent Approval](../projects/sessions/.../subagent-approval.md)`):
/// such a link is followed like `concept:`; links to other ADRs, outside the
/// project or to a missing file are not.
#[test]
fn a_concept_linked_from_the_references_is_followed() {
    let repo = scratch();
    let concept = "projects/sessions/subagent-approval/output/subagent-approval.md";
    write(repo.path(), concept, CONCEPT);
    write(
        repo.path(),
        "adr/002-other.md",
        good_adr().replace("\"001\"", "\"002\""),
    );
    let references = "## Referenzen\n\n- [ADR-002](002-other.md)\n- [Konzept: Sub-Agent Approval](../projects/sessions/subagent-approval/output/subagent-approval.md)\n- [Design](https://example.org/design.md)\n\n";
    let adr = good_adr().replacen(
        "## Konsequenzen",
        &format!("{references}## Konsequenzen"),
        1,
    );
    write(repo.path(), "adr/001-x.md", &adr);
    for args in [
        vec!["validate", "adr/001-x.md"],
        vec!["validate", "adr/001-x.md", "--format", "json"],
    ] {
        let out = run(repo.path(), &args);
        assert_eq!(code(&out), 1, "{}", stdout(&out));
        assert!(stdout(&out).contains(concept), "{}", stdout(&out));
    }
    let out = run(repo.path(), &["validate", "adr/001-x.md"]);
    assert!(
        stdout(&out).contains(&format!(
            "error[concept-required-section-missing] section \"Migration\" of the concept {concept} (line 4)"
        )),
        "{}",
        stdout(&out)
    );
    // Only the link to the other ADR: no concept.
    let only_adr = good_adr().replacen(
        "## Konsequenzen",
        "## References\n\n- [ADR-002](002-other.md)\n\n## Konsequenzen",
        1,
    );
    write(repo.path(), "adr/001-x.md", &only_adr);
    let out = run(repo.path(), &["validate", "adr/001-x.md"]);
    assert!(!stdout(&out).contains("concept"), "{}", stdout(&out));
}
