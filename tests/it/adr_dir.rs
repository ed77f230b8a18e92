//! `helix-gate next-number | finalize | index | doctor` on real temporary
//! repositories: each command, each bad input of the issue, the atomicity of
//! finalize, concurrent finalizes, and the finalize -> index -> doctor round trip.

use std::path::Path;
use std::process::Stdio;

use helix_gate::adr_dir::finalize::{self, Fault, Options};

use crate::support::cli::*;
use crate::support::repo::{helix_in, state_dir};

/// `finalize` of `draft` run in this process, failing at `fault`, with the
/// repository's test state folder: the one [`helix_in`] gives the binary that
/// recovers it, where finalize keeps the witness of its intent.
fn finalize_with(
    root: &Path,
    draft: &Path,
    fault: Option<Fault>,
) -> anyhow::Result<finalize::Finalization> {
    let ws = helix_gate::adr_dir::Workspace::open(root)?.with_state_dir(Some(state_dir(root)));
    finalize::run(
        &ws,
        draft,
        Options {
            dry_run: false,
            fault,
        },
    )
}

/// A repository with `src/lib.rs` (referenced by the fixture) and an empty `adr/`.
fn repo() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    std::fs::create_dir(repo.path().join("adr")).unwrap();
    repo
}

/// The passing fixture with another title and `adr_id` (None: no `adr_id` line).
fn draft(title: &str, id: Option<&str>) -> String {
    let adr = good_adr().replace(
        "title: \"Cache parsed rules between hook calls\"",
        &format!("title: \"{title}\""),
    );
    match id {
        Some(id) => adr.replace("adr_id: \"001\"", &format!("adr_id: {id}")),
        None => adr.replace("adr_id: \"001\"\n", ""),
    }
}

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const INDEX: &str = "# ADR Index\n\nAll decisions.\n\n| Nr | Titel | Status | Beschreibung |\n|----|-------|--------|--------------|\n| 001 | [First](001-first.md) | Accepted | the first one |\n\nLegend: Proposed, Accepted.\n";

#[test]
fn next_number_counts_file_names_and_ids() {
    let repo = repo();
    let out = run(repo.path(), &["next-number"]);
    assert_eq!((code(&out), stdout(&out).as_str()), (0, "001\n"));
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    // The file name says 003, its adr_id says 005: both are taken.
    write(
        repo.path(),
        "adr/003-third.md",
        draft("Third", Some("\"005\"")),
    );
    write(
        repo.path(),
        "adr/000-template.md",
        draft("Template", Some("\"999\"")),
    );
    let out = run(repo.path(), &["next-number"]);
    assert_eq!(
        (code(&out), stdout(&out).as_str()),
        (0, "006\n"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn no_adr_directory_is_a_clear_error_for_every_command() {
    let repo = scratch_repo();
    write(repo.path(), "output/ADR-x.md", draft("X", None));
    for args in [
        &["next-number"][..],
        &["finalize", "output/ADR-x.md"],
        &["index", "--check"],
        &["index", "--write"],
    ] {
        // doctor reports it as a finding instead (structure::doctor_reports_a_missing_adr_directory_and_still_the_registrations).
        let out = run(repo.path(), args);
        assert_eq!(code(&out), 2, "{args:?}");
        let err = stderr(&out);
        assert!(
            err.starts_with("helix-gate: error: no ADR directory: adr does not exist"),
            "{args:?}: {err}"
        );
        assert!(err.contains("adr.directory"), "{err}");
    }
    assert!(repo.path().join("output/ADR-x.md").exists());
}

#[test]
fn finalize_assigns_a_free_number_moves_and_adds_the_row() {
    let repo = repo();
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    write(repo.path(), "adr/INDEX.md", INDEX);
    let text = draft("Cache parsed rules", Some("\"001\"  # from the template"));
    write(repo.path(), "output/ADR-cache.md", &text);
    let out = run(repo.path(), &["finalize", "output/ADR-cache.md"]);
    let shown = stdout(&out);
    assert_eq!(code(&out), 0, "{shown}{}", stderr(&out));
    assert!(
        shown.contains("number: adr_id 001 is taken by adr/001-first.md; assigned 002"),
        "{shown}"
    );
    assert!(
        shown.contains(
            "ADR-002 finalized: output/ADR-cache.md -> adr/002-cache-parsed-rules.md (status Proposed)"
        ),
        "{shown}"
    );
    assert!(!repo.path().join("output/ADR-cache.md").exists());
    // Only the adr_id line changed; its comment and every other byte stay.
    let moved = read(repo.path(), "adr/002-cache-parsed-rules.md");
    assert_eq!(
        moved,
        text.replace(
            "adr_id: \"001\"  # from the template",
            "adr_id: \"002\" # from the template"
        )
    );
    let row = "| 002 | [Cache parsed rules](002-cache-parsed-rules.md) | Proposed | Every hook call parses the rules file again. |\n";
    assert_eq!(
        read(repo.path(), "adr/INDEX.md"),
        INDEX.replace("the first one |\n", &format!("the first one |\n{row}"))
    );
    assert!(shown.contains(row.trim_end()), "{shown}");
    assert_eq!(
        names(&repo.path().join("adr")),
        ["001-first.md", "002-cache-parsed-rules.md", "INDEX.md"]
    );
}

#[test]
fn finalize_keeps_a_free_adr_id_and_inserts_a_missing_one() {
    let repo = repo();
    write(
        repo.path(),
        "output/ADR-a.md",
        draft("Kept number", Some("\"007\"")),
    );
    let out = run(repo.path(), &["finalize", "output/ADR-a.md"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stdout(&out).contains("number:"), "{}", stdout(&out));
    assert!(repo.path().join("adr/007-kept-number.md").exists());
    // No INDEX.md yet: finalize creates it with a table.
    assert!(stdout(&out).contains("created adr/INDEX.md: | 007 |"));
    assert!(
        read(repo.path(), "adr/INDEX.md")
            .starts_with("# ADR Index\n\n| ADR | Title | Status | Summary |\n")
    );

    write(repo.path(), "output/ADR-b.md", draft("No number", None));
    let out = run(repo.path(), &["finalize", "output/ADR-b.md"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("number: the draft has no adr_id; assigned 008"),
        "{}",
        stdout(&out)
    );
    let moved = read(repo.path(), "adr/008-no-number.md");
    assert!(
        moved.starts_with("---\nadr_id: \"008\"\ntitle: \"No number\"\n"),
        "{moved}"
    );
}

#[test]
fn finalize_refuses_an_invalid_draft_and_changes_nothing() {
    let repo = repo();
    write(repo.path(), "adr/INDEX.md", INDEX);
    let bad = draft("Broken", None)
        .replace("status: Proposed", "status: Draft")
        .replace("## Kontext", "## Background");
    write(repo.path(), "output/ADR-bad.md", &bad);
    let out = run(repo.path(), &["finalize", "output/ADR-bad.md"]);
    assert_eq!(code(&out), 1);
    let shown = stdout(&out);
    // Lines point into the draft, although adr_id was inserted for validation.
    assert!(
        shown.contains("output/ADR-bad.md:3: error[status-invalid]"),
        "{shown}"
    );
    assert!(shown.contains("error[section-missing]"), "{shown}");
    assert!(
        stderr(&out)
            .contains("finalize refused: output/ADR-bad.md has 2 errors; nothing was moved"),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(repo.path(), "output/ADR-bad.md"), bad);
    assert_eq!(read(repo.path(), "adr/INDEX.md"), INDEX);
    assert_eq!(names(&repo.path().join("adr")), ["INDEX.md"]);
}

#[test]
fn finalize_dry_run_changes_nothing() {
    let repo = repo();
    write(repo.path(), "adr/INDEX.md", INDEX);
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    write(repo.path(), "output/ADR-x.md", draft("Dry", None));
    let out = run(repo.path(), &["finalize", "--dry-run", "output/ADR-x.md"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let shown = stdout(&out);
    assert!(
        shown.starts_with("dry run: nothing was changed\n"),
        "{shown}"
    );
    assert!(
        shown.contains("would move output/ADR-x.md -> adr/002-dry.md (adr_id: \"002\")"),
        "{shown}"
    );
    assert!(
        shown.contains("would add to adr/INDEX.md: | 002 | [Dry](002-dry.md) | Proposed |"),
        "{shown}"
    );
    assert!(repo.path().join("output/ADR-x.md").exists());
    assert_eq!(read(repo.path(), "adr/INDEX.md"), INDEX);
    assert_eq!(
        names(&repo.path().join("adr")),
        ["001-first.md", "INDEX.md"]
    );
}

#[test]
fn a_second_finalize_is_refused_instead_of_a_duplicate() {
    let repo = repo();
    let text = draft("Twice", None);
    write(repo.path(), "output/ADR-twice.md", &text);
    assert_eq!(
        code(&run(repo.path(), &["finalize", "output/ADR-twice.md"])),
        0
    );
    let index = read(repo.path(), "adr/INDEX.md");
    let out = run(repo.path(), &["finalize", "output/ADR-twice.md"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("draft output/ADR-twice.md does not exist (a draft that was finalized already was moved to adr/; see adr/INDEX.md)"),
        "{}",
        stderr(&out)
    );
    // The consultant writes the same draft again: same title, refused.
    write(repo.path(), "output/ADR-twice.md", &text);
    let out = run(repo.path(), &["finalize", "output/ADR-twice.md"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains(
            "adr/001-twice.md already has the title \"Twice\" (was this draft finalized before?)"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(repo.path(), "adr/INDEX.md"), index);
    assert_eq!(
        names(&repo.path().join("adr")),
        ["001-twice.md", "INDEX.md"]
    );
}

#[cfg(unix)]
#[test]
fn an_existing_target_is_never_overwritten() {
    let repo = repo();
    // A dangling symlink holds the name without being an ADR (no number is taken).
    std::os::unix::fs::symlink("gone.md", repo.path().join("adr/001-taken-name.md")).unwrap();
    write(repo.path(), "output/ADR-x.md", draft("Taken name", None));
    let out = run(repo.path(), &["finalize", "output/ADR-x.md"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out)
            .contains("finalize refused: adr/001-taken-name.md already exists; nothing was moved"),
        "{}",
        stderr(&out)
    );
    assert!(repo.path().join("output/ADR-x.md").exists());
    assert!(!repo.path().join("adr/INDEX.md").exists());
    assert_eq!(names(&repo.path().join("adr")), ["001-taken-name.md"]);
}

#[test]
fn non_ascii_titles_get_a_transliterated_or_fallback_slug() {
    let repo = repo();
    write(
        repo.path(),
        "output/ADR-jp.md",
        draft("日本語のタイトル", None),
    );
    let out = run(repo.path(), &["finalize", "output/ADR-jp.md"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.path().join("adr/001-adr.md").exists());
    write(
        repo.path(),
        "output/ADR-de.md",
        draft("Größe über Ärger", None),
    );
    let out = run(repo.path(), &["finalize", "output/ADR-de.md"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(repo.path().join("adr/002-groesse-ueber-aerger.md").exists());
    let index = read(repo.path(), "adr/INDEX.md");
    assert!(
        index.contains("| 001 | [日本語のタイトル](001-adr.md) | Proposed |"),
        "{index}"
    );
    assert_eq!(code(&run(repo.path(), &["index", "--check"])), 0);
}

#[test]
fn finalize_fills_columns_by_header_in_any_order() {
    let repo = repo();
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    let index = "| Status | Titel | Nr. | Notes |\n|---|---|---|---|\n| Proposed | [First](001-first.md) | 001 | mine |\n";
    write(repo.path(), "adr/INDEX.md", index);
    assert_eq!(code(&run(repo.path(), &["index", "--check"])), 0);
    write(repo.path(), "output/ADR-x.md", draft("Second", None));
    let out = run(repo.path(), &["finalize", "output/ADR-x.md"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        read(repo.path(), "adr/INDEX.md"),
        format!("{index}| Proposed | [Second](002-second.md) | 002 |  |\n")
    );
    let out = run(repo.path(), &["index", "--check"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

#[test]
fn index_without_a_table_is_reported_and_a_table_appended() {
    let repo = repo();
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    let prose =
        "# Decisions\n\nSee the files in this folder.\n\n| Key | Value |\n|---|---|\n| a | b |\n";
    write(repo.path(), "adr/INDEX.md", prose);
    let out = run(repo.path(), &["index", "--check"]);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("adr/INDEX.md:1: error[index-table-missing] no ADR table"),
        "{}",
        stdout(&out)
    );
    // Without a flag, index checks.
    assert_eq!(code(&run(repo.path(), &["index"])), 1);
    let out = run(repo.path(), &["index", "--write"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        read(repo.path(), "adr/INDEX.md"),
        format!(
            "{prose}\n| ADR | Title | Status | Summary |\n|-----|-------|--------|---------|\n| 001 | [First](001-first.md) | Proposed | Every hook call parses the rules file again. |\n"
        )
    );
    let out = run(repo.path(), &["index", "--check"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert_eq!(
        stdout(&out),
        "adr/INDEX.md: in step with the 1 ADR of adr/\n"
    );
    let out = run(repo.path(), &["index", "--write"]);
    assert_eq!(stdout(&out), "adr/INDEX.md: already up to date\n");
}

#[test]
fn finalize_appends_a_table_to_an_index_without_one() {
    let repo = repo();
    write(repo.path(), "adr/INDEX.md", "# ADRs\n\nNone yet.\n");
    write(repo.path(), "output/ADR-x.md", draft("First", None));
    assert_eq!(code(&run(repo.path(), &["finalize", "output/ADR-x.md"])), 0);
    let index = read(repo.path(), "adr/INDEX.md");
    assert!(
        index.starts_with("# ADRs\n\nNone yet.\n\n| ADR | Title | Status | Summary |\n"),
        "{index}"
    );
    assert_eq!(code(&run(repo.path(), &["index", "--check"])), 0);
}

#[test]
fn index_check_reports_every_disagreement_and_write_fixes_them() {
    let repo = repo();
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    write(
        repo.path(),
        "adr/002-second.md",
        draft("Second", Some("\"002\"")).replace("status: Proposed", "status: Accepted"),
    );
    write(
        repo.path(),
        "adr/003-third.md",
        draft("Third", Some("\"003\"")),
    );
    let index = "# Index\n\nIntro.\n\n| Nr | Title | Status | Summary | Owner |\n|---|---|---|---|---|\n\
| 001 | [First](001-first.md) | Proposed | kept summary | ana |\n\
| 002 | [Second, old title](002-second.md) | Proposed | two | bo |\n\
| 004 | [Gone](004-gone.md) | Proposed | deleted | cy |\n\
| 005 | Only a number | Proposed | | |\n\
| 001 | [First again](001-first.md) | Proposed | | |\n\nOutro.\n";
    write(repo.path(), "adr/INDEX.md", index);
    let out = run(repo.path(), &["index", "--check"]);
    assert_eq!(code(&out), 1);
    let shown = stdout(&out);
    for expected in [
        "adr/INDEX.md:5: error[index-row-missing] 003-third.md (ADR 003) has no row in INDEX.md",
        "adr/INDEX.md:8: error[index-row-mismatch] row for 002-second.md has title \"Second, old title\", the ADR's title is \"Second\"",
        "adr/INDEX.md:8: error[index-row-mismatch] row for 002-second.md has status \"Proposed\", the ADR's status is Accepted",
        "adr/INDEX.md:9: error[index-row-dangling] row 004 links to `004-gone.md`, which does not exist",
        "adr/INDEX.md:10: error[index-row-dangling] row 005 has no link and no ADR has number 005",
        "adr/INDEX.md:11: error[index-row-duplicate] 001-first.md is already listed on line 7",
        "1 file checked: 6 errors, 0 warnings",
    ] {
        assert!(shown.contains(expected), "missing {expected:?} in\n{shown}");
    }
    let out = run(repo.path(), &["index", "--write"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "adr/INDEX.md: rewrote the table with 3 rows\n"
    );
    assert_eq!(
        read(repo.path(), "adr/INDEX.md"),
        "# Index\n\nIntro.\n\n| Nr | Title | Status | Summary | Owner |\n|---|---|---|---|---|\n\
| 001 | [First](001-first.md) | Proposed | kept summary | ana |\n\
| 002 | [Second](002-second.md) | Accepted | two | bo |\n\
| 003 | [Third](003-third.md) | Proposed | Every hook call parses the rules file again. |  |\n\nOutro.\n"
    );
    assert_eq!(code(&run(repo.path(), &["index", "--check"])), 0);
}

#[test]
fn index_write_creates_a_missing_index() {
    let repo = repo();
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    let out = run(repo.path(), &["index", "--check"]);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out)
            .contains("error[index-table-missing] INDEX.md does not exist; 1 ADR is not listed"),
        "{}",
        stdout(&out)
    );
    let out = run(repo.path(), &["index", "--write"]);
    assert_eq!(stdout(&out), "adr/INDEX.md: created with 1 row\n");
    assert_eq!(code(&run(repo.path(), &["index", "--check"])), 0);
}

#[test]
fn two_finalizes_at_once_get_distinct_numbers() {
    let repo = repo();
    write(repo.path(), "adr/INDEX.md", INDEX);
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")).replace("status: Proposed", "status: Accepted"),
    );
    // Both drafts ask for the same number; the lock makes one of them yield.
    write(
        repo.path(),
        "output/ADR-a.md",
        draft("Alpha", Some("\"002\"")),
    );
    write(
        repo.path(),
        "output/ADR-b.md",
        draft("Beta", Some("\"002\"")),
    );
    let spawn = |name: &str| {
        isolated(bin(), repo.path())
            .args(["finalize", name])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn("output/ADR-a.md");
    let b = spawn("output/ADR-b.md");
    let a = a.wait_with_output().unwrap();
    let b = b.wait_with_output().unwrap();
    assert_eq!(code(&a), 0, "{}", stderr(&a));
    assert_eq!(code(&b), 0, "{}", stderr(&b));
    let mut files = names(&repo.path().join("adr"));
    files.sort();
    assert_eq!(files.len(), 4, "{files:?}");
    assert!(files.contains(&"001-first.md".to_owned()));
    let alpha = files.iter().find(|f| f.ends_with("-alpha.md")).unwrap();
    let beta = files.iter().find(|f| f.ends_with("-beta.md")).unwrap();
    let mut numbers = [&alpha[..3], &beta[..3]];
    numbers.sort_unstable();
    assert_eq!(numbers, ["002", "003"]);
    let index = read(repo.path(), "adr/INDEX.md");
    assert!(
        index.contains(&format!("]({alpha})")) && index.contains(&format!("]({beta})")),
        "{index}"
    );
    let out = run(repo.path(), &["index", "--check"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let out = run(repo.path(), &["doctor"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

#[test]
fn a_failure_after_the_move_restores_the_draft_and_leaves_index_untouched() {
    let repo = repo();
    write(repo.path(), "adr/INDEX.md", INDEX);
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    let text = draft("Atomic", None);
    let draft_path = write(repo.path(), "output/ADR-atomic.md", &text);
    let err = finalize_with(repo.path(), &draft_path, Some(Fault::AfterMove)).unwrap_err();
    let message = format!("{err:#}");
    assert!(
        message.contains("cannot update adr/INDEX.md; output/ADR-atomic.md was moved back, nothing changed: injected failure after the move"),
        "{message}"
    );
    assert_eq!(read(repo.path(), "output/ADR-atomic.md"), text);
    assert_eq!(read(repo.path(), "adr/INDEX.md"), INDEX);
    // No target, no temporary file, no lock left behind.
    assert_eq!(
        names(&repo.path().join("adr")),
        ["001-first.md", "INDEX.md"]
    );
    // The same draft finalizes cleanly afterwards.
    let outcome = finalize_with(repo.path(), &draft_path, None).unwrap();
    assert!(matches!(outcome, finalize::Finalization::Finalized(ref plan) if plan.number == 2));
    assert!(repo.path().join("adr/002-atomic.md").exists());
}

/// INDEX.md cannot be replaced after the move, and the draft cannot be put back
/// either: the ADR stays moved without its row, and the intent stays with it,
/// so the next run adds the row and the record.
#[test]
fn a_failed_index_update_whose_draft_cannot_go_back_is_finished_by_the_next_run() {
    let repo = repo();
    let adr = repo.path().join("adr");
    let intent = repo.path().join(".helix-gate/finalize-intent.json");
    write(repo.path(), "adr/INDEX.md", INDEX);
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    let draft_path = write(repo.path(), "output/ADR-atomic.md", draft("Atomic", None));
    let err = finalize_with(repo.path(), &draft_path, Some(Fault::Stranded)).unwrap_err();
    let message = format!("{err:#}");
    assert!(
        message.contains("cannot update adr/INDEX.md, and cannot move the draft back"),
        "{message}"
    );
    assert!(!draft_path.exists());
    assert_eq!(read(repo.path(), "adr/INDEX.md"), INDEX);
    assert!(intent.exists(), "the journal stays for the next run");
    let out = helix_in(repo.path(), &["doctor"]);
    let err_text = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        err_text.contains(
            "finished the interrupted finalize of output/ADR-atomic.md -> adr/002-atomic.md; its row added to adr/INDEX.md"
        ),
        "{err_text}"
    );
    assert!(!intent.exists());
    assert!(read(repo.path(), "adr/INDEX.md").contains("[Atomic](002-atomic.md)"));
    assert!(
        read(repo.path(), ".helix-gate/finalized.jsonl").contains("\"to\":\"adr/002-atomic.md\"")
    );
    assert_eq!(names(&adr), ["001-first.md", "002-atomic.md", "INDEX.md"]);
}

/// The draft cannot be removed after its copy was written: the copy goes again and
/// nothing moved; when the copy cannot go either, the message names it and how to go on.
#[test]
fn a_draft_that_cannot_be_removed_leaves_no_copy_or_says_where_it_is() {
    let repo = repo();
    let adr = repo.path().join("adr");
    write(repo.path(), "adr/INDEX.md", INDEX);
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    let draft_path = write(repo.path(), "output/ADR-atomic.md", draft("Atomic", None));
    let attempt = |fault| {
        let err = finalize_with(repo.path(), &draft_path, Some(fault)).unwrap_err();
        format!("{err:#}")
    };
    let message = attempt(Fault::DraftStays);
    assert!(
        message.contains("cannot remove output/ADR-atomic.md after copying it; nothing was moved"),
        "{message}"
    );
    assert!(draft_path.exists());
    assert_eq!(names(&adr), ["001-first.md", "INDEX.md"]);
    assert_eq!(read(repo.path(), "adr/INDEX.md"), INDEX);

    let message = attempt(Fault::BothStay);
    assert!(
        message.contains(
            "cannot remove output/ADR-atomic.md after copying it to adr/002-atomic.md, nor that copy"
        ) && message.contains("remove adr/002-atomic.md by hand, then finalize again"),
        "{message}"
    );
    assert!(draft_path.exists());
    assert_eq!(names(&adr), ["001-first.md", "002-atomic.md", "INDEX.md"]);
    assert_eq!(read(repo.path(), "adr/INDEX.md"), INDEX);
    // What the message says works.
    std::fs::remove_file(adr.join("002-atomic.md")).unwrap();
    let out = helix_in(repo.path(), &["finalize", draft_path.to_str().unwrap()]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!draft_path.exists());
    assert!(read(repo.path(), "adr/INDEX.md").contains("[Atomic](002-atomic.md)"));
}

#[test]
fn round_trip_from_a_session_directory() {
    let repo = repo();
    let session = repo.path().join("projects/sessions/abc123");
    std::fs::create_dir_all(session.join("output")).unwrap();
    for (name, title) in [
        ("ADR-one.md", "Step marker enforcement"),
        ("ADR-two.md", "Approval über Sub-Agenten"),
        ("ADR-three.md", "Index maintenance"),
    ] {
        write(
            &session,
            &format!("output/{name}"),
            draft(title, Some("\"XXX\"")),
        );
        let out = run(&session, &["finalize", &format!("output/{name}")]);
        assert_eq!(code(&out), 0, "{name}: {}{}", stdout(&out), stderr(&out));
        assert!(
            stdout(&out).contains("adr_id `XXX` is not a number"),
            "{}",
            stdout(&out)
        );
    }
    assert_eq!(
        names(&repo.path().join("adr")),
        [
            "001-step-marker-enforcement.md",
            "002-approval-ueber-sub-agenten.md",
            "003-index-maintenance.md",
            "INDEX.md"
        ]
    );
    let out = run(&session, &["next-number"]);
    assert_eq!(stdout(&out), "004\n");
    let out = run(&session, &["index", "--check"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    let out = run(&session, &["doctor"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    // The hook registrations follow (they depend on HOME).
    assert!(
        stdout(&out).starts_with("3 files checked: 0 errors, 0 warnings\n"),
        "{}",
        stdout(&out)
    );
    let out = run(&session, &["doctor", "--format", "json"]);
    assert_eq!(code(&out), 0);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["summary"]["errors"], 0);
    assert_eq!(doc["summary"]["warnings"], 0);
    assert_eq!(doc["files"].as_array().unwrap().len(), 3);
}

#[test]
fn doctor_reports_numbers_links_succession_and_the_index() {
    let repo = repo();
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    write(
        repo.path(),
        "adr/002-second.md",
        draft("Second", Some("\"001\""))
            .replace("status: Proposed", "status: Superseded")
            .replace(
                "depends_on: []",
                "depends_on: [\"009\"]\nsupersedes: [\"008\"]",
            ),
    );
    write(
        repo.path(),
        "adr/005-fifth.md",
        draft("Fifth", Some("\"005\"")),
    );
    write(
        repo.path(),
        "adr/ADR-loose.md",
        draft("Loose", Some("\"006\"")),
    );
    write(repo.path(), "adr/INDEX.md", INDEX);
    let out = run(repo.path(), &["doctor"]);
    assert_eq!(code(&out), 1);
    let shown = stdout(&out);
    for expected in [
        "adr/001-first.md:2: error[adr-id-duplicate] adr_id 001 is also used by adr/002-second.md",
        "adr/002-second.md:2: warning[adr-id-file-name-mismatch]",
        "adr/002-second.md:4: warning[superseded-without-successor] status is Superseded, but no ADR replaces it",
        "adr/002-second.md:16: warning[depends-on-unknown]",
        "adr/002-second.md:17: warning[supersedes-unknown] supersedes: no ADR with number `008`",
        "adr/ADR-loose.md:1: warning[adr-file-name-unnumbered]",
        "adr/: warning[adr-number-gap] no ADR has a number from 003 to 004",
        "adr/INDEX.md:5: error[index-row-missing] 002-second.md",
        "adr/INDEX.md:7: error[index-row-mismatch] row for 001-first.md has status \"Accepted\", the ADR's status is Proposed",
    ] {
        assert!(shown.contains(expected), "missing {expected:?} in\n{shown}");
    }
    let out = run(repo.path(), &["doctor", "--format", "json"]);
    assert_eq!(code(&out), 1);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["findings"].as_array().unwrap())
        .map(|f| f["rule"].as_str().unwrap())
        .collect();
    for id in [
        "adr-number-gap",
        "supersedes-unknown",
        "superseded-without-successor",
        "adr-file-name-unnumbered",
        "index-row-missing",
        "index-row-mismatch",
    ] {
        assert!(rules.contains(&id), "{id} not in {rules:?}");
    }
}

/// Issue 20: titles with Markdown in them were written as Markdown (`*async*` became
/// emphasis, `<!--` opened a comment that hid every later row), so `index --check` rejected
/// the rows `index --write` had just written. Written escaped, they read back as the title.
#[test]
fn index_write_then_check_passes_for_titles_with_markdown() {
    let repo = repo();
    let titles = [
        "<!-- Use *async* reads",
        "Snake_case and __bold__ names",
        "The `code` path",
        "Either | or",
        "[Links] and ![images](x.png)",
        "Fish & chips &amp; <b>tags</b> ~~gone~~",
    ];
    for (i, title) in titles.iter().enumerate() {
        let number = format!("{:03}", i + 1);
        write(
            repo.path(),
            &format!("adr/{number}-t{i}.md"),
            draft(title, Some(&format!("\"{number}\""))),
        );
    }
    let out = run(repo.path(), &["index", "--write"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let index = std::fs::read_to_string(repo.path().join("adr/INDEX.md")).unwrap();
    assert!(!index.contains("<!--"), "{index}");
    let out = run(repo.path(), &["index", "--check"]);
    assert_eq!(code(&out), 0, "{}\n{index}", stdout(&out));
}

/// Make every temporary file in `dir` a minute old, as one a killed run left long ago.
fn age_temporaries(dir: &Path) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for name in names(dir) {
        if name.starts_with('.') && Path::new(&name).extension().is_some_and(|e| e == "tmp") {
            std::fs::File::options()
                .write(true)
                .open(dir.join(&name))
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
    }
}

#[test]
fn a_finalize_killed_at_any_step_is_finished_or_undone_by_the_next_run() {
    use finalize::Step;
    for (step, repair) in [
        (Step::Intent, "doctor"),
        (Step::Create, "doctor"),
        (Step::RemoveDraft, "finalize"),
        (Step::Index, "doctor"),
        (Step::Record, "finalize"),
    ] {
        let repo = repo();
        let adr = repo.path().join("adr");
        write(repo.path(), "adr/INDEX.md", INDEX);
        write(
            repo.path(),
            "adr/001-first.md",
            draft("First", Some("\"001\"")),
        );
        let text = draft("Atomic", None);
        let draft_path = write(repo.path(), "output/ADR-atomic.md", &text);
        let err = finalize_with(repo.path(), &draft_path, Some(Fault::Crash(step))).unwrap_err();
        assert!(err.to_string().contains("injected crash"), "{err:#}");
        assert!(
            repo.path()
                .join(".helix-gate/finalize-intent.json")
                .exists(),
            "{step:?}"
        );
        if step < Step::Index {
            assert!(
                names(&adr).iter().any(|n| n.starts_with(".INDEX.md.")),
                "{step:?}: {:?}",
                names(&adr)
            );
        }
        // No ageing: under the ADR directory lock INDEX.md's temporary file
        // belongs to no writer at work.
        let out = if repair == "doctor" {
            helix_in(repo.path(), &["doctor"])
        } else {
            let other = write(repo.path(), "output/ADR-other.md", draft("Other", None));
            helix_in(repo.path(), &["finalize", other.to_str().unwrap()])
        };
        let err_text = String::from_utf8_lossy(&out.stderr).into_owned();
        // doctor exits 1 for the fixture's INDEX.md status; 2 would be a failure of its own.
        assert!(
            code(&out) == 0 || (repair == "doctor" && code(&out) == 1),
            "{step:?}: {}{err_text}",
            stdout(&out)
        );
        assert!(
            !repo
                .path()
                .join(".helix-gate/finalize-intent.json")
                .exists(),
            "{step:?}"
        );
        let mut expected = vec!["001-first.md".to_owned()];
        if step == Step::Intent {
            // Nothing had changed: the draft stays a draft.
            assert_eq!(read(repo.path(), "output/ADR-atomic.md"), text);
            assert!(
                err_text.contains("had not created adr/002-atomic.md"),
                "{err_text}"
            );
        } else {
            assert!(!draft_path.exists(), "{step:?}");
            expected.push("002-atomic.md".to_owned());
            let index = read(repo.path(), "adr/INDEX.md");
            assert!(
                index.contains("[Atomic](002-atomic.md)"),
                "{step:?}: {index}"
            );
            let record = read(repo.path(), ".helix-gate/finalized.jsonl");
            assert_eq!(
                record.matches("\"to\":\"adr/002-atomic.md\"").count(),
                1,
                "{step:?}: {record}"
            );
            assert!(
                err_text.contains(
                    "finished the interrupted finalize of output/ADR-atomic.md -> adr/002-atomic.md"
                ),
                "{step:?}: {err_text}"
            );
        }
        if repair == "finalize" {
            expected.push("003-other.md".to_owned());
        }
        expected.push("INDEX.md".to_owned());
        assert_eq!(names(&adr), expected, "{step:?}: no temporary file left");
    }
}

/// A young temporary file of another target may be a writer's at work and stays
/// until it is old; INDEX.md's goes at once (its every writer holds the lock
/// doctor holds); a user's dotfile stays.
#[test]
fn a_young_temporary_file_and_a_users_dotfile_are_left_alone() {
    let repo = repo();
    let adr = repo.path().join("adr");
    write(repo.path(), "adr/.notes.tmp", "mine");
    write(repo.path(), "adr/.002-next.md.Ab12cd.tmp", "being written");
    write(
        repo.path(),
        "adr/.INDEX.md.Ab12cd.tmp",
        "left by a killed finalize",
    );
    let out = helix_in(repo.path(), &["doctor"]);
    assert!(code(&out) != 2, "{}", stdout(&out));
    assert_eq!(names(&adr), [".002-next.md.Ab12cd.tmp", ".notes.tmp"]);
    age_temporaries(&adr);
    helix_in(repo.path(), &["doctor"]);
    assert_eq!(names(&adr), [".notes.tmp"]);
}

#[test]
fn an_edited_draft_wins_over_an_interrupted_finalize() {
    let repo = repo();
    let text = draft("Atomic", None);
    let draft_path = write(repo.path(), "output/ADR-atomic.md", &text);
    finalize_with(
        repo.path(),
        &draft_path,
        Some(Fault::Crash(finalize::Step::Create)),
    )
    .unwrap_err();
    let edited = text.replace("Atomic", "Atomic, edited");
    write(repo.path(), "output/ADR-atomic.md", &edited);
    let out = helix_in(repo.path(), &["doctor"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("was undone"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(read(repo.path(), "output/ADR-atomic.md"), edited);
    assert!(!repo.path().join("adr/001-atomic.md").exists());
}

#[test]
fn doctor_takes_no_lock_when_no_finalize_was_interrupted() {
    let repo = repo();
    write(
        repo.path(),
        "adr/001-first.md",
        draft("First", Some("\"001\"")),
    );
    // A finalize under way elsewhere holds the lock: doctor neither waits for it nor notes it.
    let held =
        helix_gate::adr_dir::lock::Lock::acquire(repo.path(), &repo.path().join("adr")).unwrap();
    let started = std::time::Instant::now();
    let out = run(repo.path(), &["doctor"]);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("interrupted finalize"), "{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
    drop(held);
}

/// `doctor` in a Nygard repository without configuration: the detected layout is
/// checked and named; with nothing found it says where it looked.
#[test]
fn doctor_detects_the_layout_without_configuration() {
    let repo = scratch_repo();
    let root = repo.path();
    write(
        root,
        "doc/adr/0001-record-architecture-decisions.md",
        "# 1. Record architecture decisions\n\nDate: 2020-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nWe need to record decisions.\n\n## Decision\n\nWe will use ADRs.\n\n## Consequences\n\nSee Nygard's article.\n",
    );
    let out = run(root, &["doctor", "--format", "json"]);
    let err = stderr(&out);
    assert!(
        err.contains("detected nygard ADRs in doc/adr (1 file)"),
        "{err}"
    );
    let json = stdout(&out);
    assert!(!json.contains("adr-directory-missing"), "{json}");

    let empty = scratch_repo();
    let out = run(empty.path(), &["doctor", "--format", "json"]);
    let err = stderr(&out);
    assert!(
        err.contains("no ADRs found; looked in docs/decisions"),
        "{err}"
    );
}
