//! `helix-gate validate` end to end: fixtures, formats, exit codes and bad input.

use crate::support::cli::*;

#[test]
fn examples_show_one_passing_and_one_failing_adr() {
    let out = run(&manifest_dir(), &["validate", "examples/"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains("001-lazy-rule-loading.md:"), "{text}");
    assert!(text.contains("examples/adr/002-adr-014-case.md:1: error[major-needs-migration] change_scope=major requires a migration plan: section \"Migration\" is missing\n  hint: add \"## Migration\""), "{text}");
    assert!(text.contains("error[files-path-absolute]"), "{text}");
    assert!(
        text.ends_with("2 files checked: 5 errors, 3 warnings\n"),
        "{text}"
    );
}

#[test]
fn seed_adrs_both_report_major_needs_migration() {
    for name in [
        "025-sub-agent-verifikation.md",
        "015-approval-validation-system.md",
    ] {
        let path = format!("tests/fixtures/seeds/{name}");
        let out = run(&manifest_dir(), &["validate", &path, "--format", "json"]);
        assert_eq!(code(&out), 1);
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let rules: Vec<&str> = doc["files"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap())
            .collect();
        assert!(
            rules.contains(&"major-needs-migration"),
            "{name}: {rules:?}"
        );
        // ADR-025 has "## Issues Found" inside a code fence: it must not become a section,
        // and every required section is really there.
        assert!(!rules.contains(&"section-missing"), "{name}: {rules:?}");
    }
}

#[test]
fn headings_only_inside_code_fences_are_missing() {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    let adr = good_adr().replace(
        "## Konsequenzen",
        "```markdown\n## Konsequenzen\n```\n\n~~~\n## Kontext\n~~~",
    );
    let adr = adr.replacen("## Kontext\n", "<!--\n## Kontext\n-->\n", 1);
    write(repo.path(), "adr/001-minimal-valid.md", adr);
    let out = run(repo.path(), &["validate"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    assert!(
        text.contains("required section \"Kontext\" is missing"),
        "{text}"
    );
    assert!(
        text.contains("required section \"Konsequenzen\" is missing"),
        "{text}"
    );
}

#[test]
fn no_path_checks_repository_adrs_by_glob_from_a_subdirectory() {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "adr/001-minimal-valid.md", good_adr());
    write(repo.path(), "adr/INDEX.md", "# Index\n");
    write(repo.path(), "output/ADR-draft.md", "# no front matter\n");
    write(repo.path(), "notes/other.md", "# not an ADR\n");
    std::fs::create_dir_all(repo.path().join("deep/sub")).unwrap();
    let out = run(&repo.path().join("deep/sub"), &["validate"]);
    let text = stdout(&out);
    assert!(
        text.contains("output/ADR-draft.md:1: error[front-matter-missing]"),
        "{text}"
    );
    assert!(
        !text.contains("INDEX") && !text.contains("other.md"),
        "{text}"
    );
    assert!(text.contains("2 files checked"), "{text}");
}

#[test]
fn duplicate_ids_and_unknown_dependencies_across_a_directory() {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "adr/001-minimal-valid.md", good_adr());
    write(
        repo.path(),
        "adr/001-copy.md",
        good_adr().replace(
            "depends_on: []",
            "depends_on: [\"007\"]\n# ADR-007 is referenced",
        ),
    );
    let out = run(repo.path(), &["validate", "adr", "--format", "json"]);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let all: Vec<String> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| {
            f["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["rule"].as_str().unwrap().to_owned())
        })
        .collect();
    assert_eq!(
        all.iter().filter(|r| *r == "adr-id-duplicate").count(),
        2,
        "{all:?}"
    );
    assert!(all.contains(&"depends-on-unknown".to_owned()), "{all:?}");
    assert_eq!(code(&out), 1);
}

#[test]
fn json_schema_fields() {
    let out = run(
        &manifest_dir(),
        &[
            "validate",
            "examples/adr/002-adr-014-case.md",
            "--format",
            "json",
        ],
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["schema"], "helix-gate/validate");
    assert_eq!(doc["version"], 1);
    let f = &doc["files"][0]["findings"][0];
    for key in ["rule", "severity", "line", "message", "hint"] {
        assert!(f.get(key).is_some(), "{key} missing in {f}");
    }
    assert_eq!(doc["summary"]["files"], 1);
}

#[test]
fn concept_diff_reports_missing_sections_and_coverage() {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    let adr = write(repo.path(), "adr/001-minimal-valid.md", good_adr());
    let concept = write(
        repo.path(),
        "concept.md",
        "# Konzept\n## Context\nx\n## Entscheidung\ny\n## Migration\n14 Tage\n## Zusammenfassung\nz\n",
    );
    let out = run(
        repo.path(),
        &[
            "validate",
            adr.to_str().unwrap(),
            "--concept",
            concept.to_str().unwrap(),
        ],
    );
    let text = stdout(&out);
    assert!(
        text.contains(
            "error[concept-required-section-missing] section \"Migration\" of the concept concept.md (line 6) is missing from the ADR"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "info[concept-coverage] concept coverage (concept.md): 2 of 3 sections (66%)"
        ),
        "{text}"
    );
    assert_eq!(
        code(&out),
        1,
        "a lost migration plan is an error, whatever change_scope says"
    );
}

#[test]
fn rules_override_and_strict_rules_file() {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "adr/001-minimal-valid.md", good_adr());
    write(
        repo.path(),
        "config/adr-completeness-rules.yaml",
        "base_rules:\n  required_sections: [Kontext, Sicherheit]\ncontextual_rules: []\n",
    );
    let out = run(repo.path(), &["validate"]);
    assert!(
        stdout(&out).contains("required section \"Sicherheit\" is missing"),
        "{}",
        stdout(&out)
    );
    let bad = write(
        repo.path(),
        "bad-rules.yaml",
        "contextual_rules:\n  - id: broken\n    when: {change_scope: major}\n    require: {content_patterns: [{pattern: '(x'}]}\n    message: m\n",
    );
    let out = run(repo.path(), &["validate", "--rules", bad.to_str().unwrap()]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("rule `broken`") && stderr(&out).contains("bad regex"),
        "{}",
        stderr(&out)
    );
}

#[test]
#[cfg(unix)]
fn bad_input_gets_a_finding_or_exit_2_never_a_panic() {
    let repo = scratch_repo();
    let dir = repo.path();
    write(
        dir,
        "adr/001-latin1.md",
        b"---\nadr_id: 1\n---\n## Kontext \xe4\xf6\xfc\n".as_slice(),
    );
    write(
        dir,
        "adr/002-binary.md",
        [0u8, 159, 146, 150, 0, 1, 2].as_slice(),
    );
    write(dir, "adr/003-empty.md", "");
    let huge = std::fs::File::create(dir.join("adr/004-huge.md")).unwrap();
    huge.set_len(100 * 1024 * 1024).unwrap();
    write(dir, "adr/005-list.md", "---\n- a\n- b\n---\n# x\n");
    write(dir, "adr/006-scalar.md", "---\njust a string\n---\n# x\n");
    let bomb = "---\na: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\n---\n";
    write(dir, "adr/007-bomb.md", bomb);
    write(
        dir,
        "adr/008-deep.md",
        format!("---\nx: {}{}\n---\n", "[".repeat(5000), "]".repeat(5000)),
    );
    write(dir, "adr/009-unclosed.md", "---\nadr_id: 1\n## Kontext\n");
    std::os::unix::fs::symlink(dir.join("adr"), dir.join("adr/loop")).unwrap();
    let out = run(dir, &["validate", "adr", "--format", "json"]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rules_of = |name: &str| -> Vec<String> {
        doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["path"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} not checked"))["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_owned())
            .collect()
    };
    let first_rule = |name: &str| -> String {
        let rules = rules_of(name);
        let front = ["file-", "front-matter-"];
        rules
            .iter()
            .find(|r| front.iter().any(|p| r.starts_with(p)))
            .cloned()
            .unwrap_or_else(|| format!("none in {rules:?}"))
    };
    assert_eq!(first_rule("001-latin1.md"), "file-not-utf8");
    assert_eq!(first_rule("002-binary.md"), "file-binary");
    assert_eq!(first_rule("003-empty.md"), "file-empty");
    assert_eq!(first_rule("004-huge.md"), "file-too-large");
    assert_eq!(first_rule("005-list.md"), "front-matter-not-a-map");
    assert_eq!(first_rule("006-scalar.md"), "front-matter-not-a-map");
    assert_eq!(first_rule("007-bomb.md"), "front-matter-too-complex");
    assert_eq!(first_rule("008-deep.md"), "front-matter-too-complex");
    assert_eq!(first_rule("009-unclosed.md"), "front-matter-unclosed");
    assert_eq!(
        doc["summary"]["files"], 9,
        "the symlink loop is not followed"
    );
}

#[test]
fn missing_and_unreadable_paths_exit_2() {
    let out = run(&manifest_dir(), &["validate", "no/such/file.md"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("cannot read no/such/file.md"),
        "{}",
        stderr(&out)
    );
    // /proc/self/mem opens but fails to read at offset 0 (EIO), even for root.
    let out = run(&manifest_dir(), &["validate", "/proc/self/mem"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("cannot read /proc/self/mem"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn rules_and_explain() {
    let out = run(&manifest_dir(), &["rules"]);
    let text = stdout(&out);
    assert!(
        text.contains("section-missing") && text.contains("major-needs-migration"),
        "{text}"
    );
    let out = run(&manifest_dir(), &["explain", "files-path-absolute"]);
    assert!(stdout(&out).contains("absolute paths are a no-go"));
    let out = run(&manifest_dir(), &["explain", "major-needs-migration"]);
    assert!(
        stdout(&out).contains("change_scope: major"),
        "{}",
        stdout(&out)
    );
    let out = run(&manifest_dir(), &["explain", "no-such-rule"]);
    assert_eq!(code(&out), 2);
}

#[test]
fn explain_knows_every_id_an_output_can_show() {
    // Ids of the hook, pre-commit and the approval, besides the validate rules.
    for id in [
        "step-marker",
        "infrastructure",
        "verdict",
        "confidence",
        "staged-conflict",
        "approval-required",
        "staged-skipped",
        "committed-adr-unreadable",
    ] {
        let out = run(&manifest_dir(), &["explain", id]);
        assert_eq!(code(&out), 0, "{id}: {}", stderr(&out));
        assert!(stdout(&out).contains("## What it does"), "{id}");
    }
    // A reviewer's check name (a finding with `source: reviewer`) is explained by
    // the reviewer's instructions for it.
    let repo = scratch_repo();
    let out = run(repo.path(), &["explain", "migration"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("# migration (reviewer check of approval type `adr`)"),
        "{}",
        stdout(&out)
    );
}

/// `deps-need-references` fires on what it is for: an ADR of `depends_on` that
/// the text never mentions. The ADR's own title (`# ADR-001: ...`) does not
/// count as a mention (a pattern for any `ADR-NNN` matched it, so the rule
/// never fired on a HELIX ADR); any zero padding and case does.
#[test]
fn deps_need_references_fires_on_a_dependency_the_text_never_mentions() {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    let with = |text: &str| {
        good_adr()
            .replace("depends_on: []", "depends_on: [\"014\"]")
            .replace("## Kontext\n", &format!("## Kontext\n\n{text}\n"))
    };
    let rules_of = |repo: &tempfile::TempDir| {
        let out = run(
            repo.path(),
            &["validate", "adr/001-minimal-valid.md", "--format", "json"],
        );
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["files"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    write(
        repo.path(),
        "adr/001-minimal-valid.md",
        with("Nothing about it."),
    );
    assert!(
        rules_of(&repo).contains(&"deps-need-references".to_owned()),
        "{:?}",
        rules_of(&repo)
    );
    for mention in ["Builds on ADR-014.", "See adr-14 for the cache."] {
        write(repo.path(), "adr/001-minimal-valid.md", with(mention));
        assert!(
            !rules_of(&repo).contains(&"deps-need-references".to_owned()),
            "{mention}: {:?}",
            rules_of(&repo)
        );
    }
}

/// Seed 004's own ADR template, its `<...>` brackets removed and the front
/// matter filled: every section still holds only the seed's hints, and
/// `template-hint-left` says so (it passed with warnings before).
#[test]
fn seed_004_template_hints_without_brackets_are_errors() {
    let template =
        std::fs::read_to_string(manifest_dir().join("tests/fixtures/seeds/004-adr-template.md"))
            .unwrap();
    let body_start = template[3..].find("\n---\n").unwrap() + 3 + 5;
    let good = good_adr();
    let front_end = good[3..].find("\n---\n").unwrap() + 3 + 5;
    let body = template[body_start..]
        .replace("<Titel>", "Rules are loaded lazily")
        .replace(['<', '>'], "");
    let text = format!("{}{body}", &good[..front_end]);
    let dir = scratch_repo();
    write(dir.path(), "src/lib.rs", "pub fn f() {}\n");
    write(dir.path(), "adr/001-minimal-valid.md", &text);
    let out = run(
        dir.path(),
        &["validate", "adr/001-minimal-valid.md", "--format", "json"],
    );
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut sections: Vec<String> = doc["files"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "template-hint-left")
        .map(|f| f["message"].as_str().unwrap().to_owned())
        .collect();
    sections.sort();
    for section in [
        "Kontext",
        "Entscheidung",
        "Implementation",
        "Akzeptanzkriterien",
        "Konsequenzen",
    ] {
        assert!(
            sections
                .iter()
                .any(|m| m.contains(&format!("\"{section}\""))),
            "{section}: {sections:?}\n{}",
            stdout(&out)
        );
    }
}

#[test]
fn a_mistyped_subcommand_or_flag_gets_a_suggestion() {
    let out = run(&manifest_dir(), &["validat"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("similar subcommand exists: 'validate'"),
        "{}",
        stderr(&out)
    );
    let out = run(&manifest_dir(), &["validate", "--formt", "json"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("a similar argument exists: '--format'"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn explain_suggests_the_nearest_rule_id() {
    let repo = scratch_repo();
    let out = run(repo.path(), &["explain", "sectionmissing"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("no rule with id `sectionmissing`; did you mean `section-missing`?"),
        "{}",
        stderr(&out)
    );
    // Nothing near: no suggestion.
    let out = run(repo.path(), &["explain", "qqqq"]);
    assert_eq!(code(&out), 2);
    assert!(!stderr(&out).contains("did you mean"), "{}", stderr(&out));
}

const MADR_GOOD: &str = "---\nstatus: accepted\ndate: 2024-01-01\n---\n# Use PostgreSQL\n\n## Context and Problem Statement\n\nWe need a database that keeps our orders.\n\n## Considered Options\n\n* PostgreSQL\n* MySQL\n\n## Decision Outcome\n\nChosen option: \"PostgreSQL\", because the team knows it.\n";

/// A MADR repository without configuration: the layout and the format are detected,
/// said on stderr, and the files are checked (a missing section is a real finding).
#[test]
fn an_unconfigured_madr_repository_is_detected_and_checked() {
    let repo = scratch_repo();
    write(
        repo.path(),
        "docs/decisions/0001-use-postgresql.md",
        MADR_GOOD,
    );
    write(
        repo.path(),
        "docs/decisions/0002-use-kafka.md",
        MADR_GOOD
            .replace("PostgreSQL", "Kafka")
            .replace("## Considered Options\n\n* Kafka\n* MySQL\n\n", ""),
    );
    write(repo.path(), "docs/decisions/README.md", "# Decisions\n");
    let out = run(repo.path(), &["validate"]);
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(code(&out), 1, "{text}{err}");
    assert!(
        err.contains("helix-gate: no configuration; detected madr ADRs in docs/decisions (2 files); run helix-gate init to keep this"),
        "{err}"
    );
    assert!(
        text.contains("docs/decisions/0002-use-kafka.md") && text.contains("Considered Options"),
        "{text}"
    );
    assert!(text.contains("2 files checked"), "{text}");
}

/// Nothing found without configuration: never a silent `0 files checked`.
#[test]
fn an_unconfigured_empty_repository_says_where_it_looked() {
    let repo = scratch_repo();
    write(repo.path(), "README.md", "# Project\n");
    let out = run(repo.path(), &["validate"]);
    let err = stderr(&out);
    assert_eq!(code(&out), 0, "{err}");
    assert!(
        err.contains("no ADRs found; looked in docs/decisions, doc/adr, docs/architecture/decisions, docs/adr, adr, doc/decisions"),
        "{err}"
    );
}

/// The HELIX preset pointed at MADR files: one hint names the preset that fits.
#[test]
fn madr_files_checked_as_helix_get_a_preset_hint() {
    let repo = scratch_repo();
    write(
        repo.path(),
        "docs/decisions/0001-use-postgresql.md",
        MADR_GOOD,
    );
    write(
        repo.path(),
        "docs/decisions/0002-use-kafka.md",
        MADR_GOOD.replace("PostgreSQL", "Kafka"),
    );
    let out = run(repo.path(), &["validate", "docs/decisions"]);
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert_eq!(err.matches("try --preset madr").count(), 1, "{err}");
    // With the right preset, no hint.
    let out = run(
        repo.path(),
        &["--preset", "madr", "validate", "docs/decisions"],
    );
    assert!(!stderr(&out).contains("hint:"), "{}", stderr(&out));
}

/// ADRs saved with CRLF line ends (Windows editors, git's autocrlf) give the same
/// findings, on the same lines, as the same ADRs with LF.
#[test]
fn crlf_adrs_give_the_same_findings_as_lf() {
    let lf = tempfile::tempdir().unwrap();
    let crlf = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(manifest_dir().join("examples/adr")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(!text.contains('\r'));
        let name = path.file_name().unwrap();
        std::fs::create_dir_all(lf.path().join("adr")).unwrap();
        std::fs::create_dir_all(crlf.path().join("adr")).unwrap();
        std::fs::write(lf.path().join("adr").join(name), &text).unwrap();
        std::fs::write(
            crlf.path().join("adr").join(name),
            text.replace('\n', "\r\n"),
        )
        .unwrap();
    }
    let with_lf = run(lf.path(), &["validate", "adr/"]);
    let with_crlf = run(crlf.path(), &["validate", "adr/"]);
    assert_eq!(code(&with_lf), 1, "{}", stderr(&with_lf));
    assert_eq!(stdout(&with_crlf), stdout(&with_lf));
    assert_eq!(code(&with_crlf), code(&with_lf));
}
