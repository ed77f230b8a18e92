//! Rules switched off by id, as ruff users expect: `rules.ignore` and
//! `rules.per_path_ignores` in config/helix-gate.yaml, `--ignore` / `--select` on the
//! command line; honoured by validate, pre-commit and the hook. Never by the ADR's own
//! text.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::Hook;
use crate::support::repo::{ScratchRepo, state_dir};

const NO_APPROVAL: &str = "approvals:\n  adr:\n    enabled: false\n";

/// The passing fixture without its `## Dokumentation` section: one `section-missing` error.
fn bad_adr() -> String {
    good_adr().replace("## Dokumentation", "## Notizen")
}

/// A scratch repository with the fixture's dependency, the reviewer off, and `settings`
/// as config/helix-gate.yaml (when not empty).
fn repo(settings: &str) -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(repo.path(), "config/approvals.yaml", NO_APPROVAL);
    if !settings.is_empty() {
        write(repo.path(), "config/helix-gate.yaml", settings);
    }
    repo
}

#[test]
fn config_ignore_drops_the_finding_and_the_exit_code_follows() {
    let root = repo("");
    write(root.path(), "adr/001-x.md", bad_adr());
    let out = run(root.path(), &["validate", "adr/001-x.md"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("error[section-missing]"),
        "{}",
        stdout(&out)
    );

    write(
        root.path(),
        "config/helix-gate.yaml",
        "rules:\n  ignore: [section-missing]\n",
    );
    let out = run(root.path(), &["validate", "adr/001-x.md"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        !stdout(&out).contains("section-missing"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn per_path_ignores_apply_only_below_their_path() {
    let root = repo("rules:\n  per_path_ignores:\n    \"adr/legacy/**\": [section-missing]\n");
    write(root.path(), "adr/legacy/001-x.md", bad_adr());
    write(root.path(), "adr/002-x.md", bad_adr());
    let out = run(
        root.path(),
        &["validate", "adr/legacy/001-x.md", "adr/002-x.md"],
    );
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "{text}");
    assert!(text.contains("adr/002-x.md:"), "{text}");
    assert!(text.contains("error[section-missing]"), "{text}");
    assert!(!text.contains("adr/legacy/001-x.md:"), "{text}");
}

#[test]
fn ignore_and_select_on_the_command_line() {
    let root = repo("");
    // section-missing (error) and acceptance-criteria-min (warning).
    let adr = bad_adr();
    let adr = adr.replacen("- [ ]", "", 1);
    write(root.path(), "adr/001-x.md", &adr);
    let all = stdout(&run(root.path(), &["validate", "adr/001-x.md"]));
    assert!(all.contains("error[section-missing]"), "{all}");
    let warned = all.contains("warning[");

    let out = run(
        root.path(),
        &["validate", "adr/001-x.md", "--ignore", "section-missing"],
    );
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(
        !stdout(&out).contains("section-missing"),
        "{}",
        stdout(&out)
    );

    // Comma-separated and repeated, as in ruff.
    let out = run(
        root.path(),
        &[
            "validate",
            "adr/001-x.md",
            "--ignore",
            "section-missing,acceptance-criteria-min",
            "--ignore",
            "section-too-short",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stdout(&out));

    // --select shows only the rules it names.
    let out = run(
        root.path(),
        &[
            "validate",
            "adr/001-x.md",
            "--select",
            "front-matter-missing",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stdout(&out));
    assert!(!stdout(&out).contains('['), "{}", stdout(&out));
    let out = run(
        root.path(),
        &["validate", "adr/001-x.md", "--select", "section-missing"],
    );
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let text = stdout(&out);
    assert!(text.contains("error[section-missing]"), "{text}");
    if warned {
        assert!(!text.contains("warning["), "{text}");
    }

    // A rule selected by name wins over the configuration's ignore, not over --ignore.
    write(
        root.path(),
        "config/helix-gate.yaml",
        "rules:\n  ignore: [section-missing]\n",
    );
    let out = run(
        root.path(),
        &["validate", "adr/001-x.md", "--select", "section-missing"],
    );
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let out = run(
        root.path(),
        &[
            "validate",
            "adr/001-x.md",
            "--select",
            "section-missing",
            "--ignore",
            "section-missing",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stdout(&out));
}

#[test]
fn an_unknown_rule_id_is_an_error_with_the_nearest_id() {
    let root = repo("");
    write(root.path(), "adr/001-x.md", good_adr());
    for flag in ["--ignore", "--select"] {
        let out = run(
            root.path(),
            &["validate", "adr/001-x.md", flag, "section-mising"],
        );
        assert_eq!(code(&out), 2, "{}", stderr(&out));
        let err = stderr(&out);
        assert!(
            err.contains(&format!(
                "unknown rule `section-mising` in {flag} (did you mean `section-missing`?)"
            )),
            "{err}"
        );
    }
    // The contextual rules of the rules file are known ids too.
    let out = run(
        root.path(),
        &[
            "validate",
            "adr/001-x.md",
            "--ignore",
            "major-needs-migraton",
        ],
    );
    assert!(
        stderr(&out).contains("did you mean `major-needs-migration`?"),
        "{}",
        stderr(&out)
    );
    let out = run(
        root.path(),
        &[
            "validate",
            "adr/001-x.md",
            "--ignore",
            "major-needs-migration",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));

    write(
        root.path(),
        "config/helix-gate.yaml",
        "rules:\n  per_path_ignores:\n    \"adr/**\": [template-placeholdr]\n",
    );
    let out = run(root.path(), &["validate", "adr/001-x.md"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("unknown rule `template-placeholdr` in config/helix-gate.yaml: rules.per_path_ignores `adr/**` (did you mean `template-placeholder`?)"),
        "{err}"
    );
}

#[test]
fn a_suppression_comment_in_the_adr_silences_nothing() {
    let root = repo("");
    let adr = bad_adr().replacen(
        "## Kontext",
        "<!-- helix-gate: ignore section-missing -->\n<!-- noqa: section-missing -->\n# noqa\n\n## Kontext",
        1,
    );
    write(root.path(), "adr/001-x.md", adr);
    let out = run(root.path(), &["validate", "adr/001-x.md"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stdout(&out).contains("error[section-missing]"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn pre_commit_honours_the_configuration_and_its_flags() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write("config/approvals.yaml", NO_APPROVAL);
    repo.write("adr/001-x.md", bad_adr());
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let out = repo.helix(&["pre-commit", "--ignore", "section-missing"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    repo.write(
        "config/helix-gate.yaml",
        "rules:\n  ignore: [section-missing]\n",
    );
    repo.git(&["add", "-A"]);
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

fn post_write(root: &Path, rel: &str) -> Value {
    post_write_in(root, "s", rel)
}

fn post_write_in(root: &Path, session: &str, rel: &str) -> Value {
    json!({"session_id": session, "cwd": root, "hook_event_name": "PostToolUse",
           "tool_name": "Write", "tool_input": {"file_path": root.join(rel), "content": "…"}})
}

fn hook(root: &Path, event: &Value) -> Option<Value> {
    Hook::new(root)
        .env("HELIX_GATE_STATE_DIR", state_dir(root))
        .event(event)
        .answer()
}

/// The hook reads the session's copy of the configuration: an ignore committed before
/// the session applies.
#[test]
fn the_hook_honours_the_configuration_ignore() {
    for (settings, blocked) in [("", true), ("rules:\n  ignore: [section-missing]\n", false)] {
        let repo = ScratchRepo::empty();
        repo.write("src/lib.rs", "");
        repo.write("config/approvals.yaml", NO_APPROVAL);
        repo.write("config/helix-gate.yaml", settings);
        repo.commit_all("init");
        repo.write("adr/001-x.md", bad_adr());
        let answer = hook(repo.path(), &post_write(repo.path(), "adr/001-x.md"));
        let decision = answer.as_ref().and_then(|a| a.get("decision"));
        assert_eq!(
            decision.is_some_and(|d| d == "block"),
            blocked,
            "{settings:?}: {answer:?}"
        );
    }
}

#[test]
fn gate_honours_ignore_and_select() {
    let root = repo("");
    write(root.path(), "adr/001-x.md", bad_adr());
    let gate = |extra: &[&str]| {
        let mut args = vec![
            "gate",
            "adr_complete",
            "--file",
            "adr/001-x.md",
            "--semantic",
            "false",
        ];
        args.extend_from_slice(extra);
        run(root.path(), &args)
    };
    let out = gate(&[]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(stdout(&out).contains("section-missing"), "{}", stdout(&out));
    let out = gate(&["--ignore", "section-missing"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    let out = gate(&["--select", "template-placeholder"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
}

/// An ignore written during a session (as the gated model might) waits for the next
/// session or `helix-gate trust`: the session's copy of the configuration decides.
#[test]
fn an_ignore_added_during_the_session_does_not_unblock_it() {
    let repo = ScratchRepo::empty();
    repo.write("src/lib.rs", "");
    repo.write("config/approvals.yaml", NO_APPROVAL);
    repo.write("config/helix-gate.yaml", "");
    repo.commit_all("init");
    let start = json!({"session_id": "s", "cwd": repo.path(),
                       "hook_event_name": "SessionStart", "source": "startup"});
    hook(repo.path(), &start);
    repo.write(
        "config/helix-gate.yaml",
        "rules:\n  ignore: [section-missing]\n",
    );
    repo.write("adr/001-x.md", bad_adr());
    let answer = hook(
        repo.path(),
        &post_write_in(repo.path(), "s", "adr/001-x.md"),
    );
    let reason = answer
        .as_ref()
        .and_then(|a| a["reason"].as_str())
        .unwrap_or_default();
    assert!(reason.contains("section-missing"), "{answer:?}");
    // A new session starts with the changed configuration.
    let start = json!({"session_id": "t", "cwd": repo.path(),
                       "hook_event_name": "SessionStart", "source": "startup"});
    hook(repo.path(), &start);
    let answer = hook(
        repo.path(),
        &post_write_in(repo.path(), "t", "adr/001-x.md"),
    );
    assert!(
        answer.as_ref().and_then(|a| a.get("decision")).is_none(),
        "{answer:?}"
    );
}
