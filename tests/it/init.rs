//! `helix-gate init`: the configuration written for the ADRs a repository has, and
//! an existing configuration never replaced without `--force`.

use serde_json::Value;

use crate::support::cli::*;

fn madr_adr(title: &str) -> String {
    format!(
        "---\nstatus: accepted\ndate: 2024-01-01\n---\n# {title}\n\n## Context and Problem Statement\n\nWhy.\n\n## Considered Options\n\n* One\n* Two\n\n## Decision Outcome\n\nChosen option: \"One\".\n"
    )
}

#[test]
fn init_in_a_madr_repository_writes_the_preset_and_validate_checks_its_adrs() {
    let repo = scratch_repo();
    write(repo.path(), "docs/adr/0001-first.md", madr_adr("First"));
    write(
        repo.path(),
        "docs/adr/0002-second.md",
        "# Second\n\nno sections\n",
    );

    let out = run(repo.path(), &["init"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains(
            "wrote config/helix-gate.yaml (preset madr, detected from 2 files in docs/adr/)"
        ),
        "{text}"
    );
    for step in [
        "helix-gate validate",
        "helix-gate install claude",
        "helix-gate install git",
        "id: helix-gate",
    ] {
        assert!(text.contains(step), "{step}: {text}");
    }
    let config = std::fs::read_to_string(repo.path().join("config/helix-gate.yaml")).unwrap();
    assert!(config.contains("preset: madr\n"), "{config}");
    assert!(config.contains("directory: docs/adr\n"), "{config}");

    let out = run(repo.path(), &["validate", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut paths: Vec<&str> = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    paths.sort_unstable();
    assert_eq!(paths, ["docs/adr/0001-first.md", "docs/adr/0002-second.md"]);
    // The MADR file passes (MADR rules), the other fails.
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    let first = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "docs/adr/0001-first.md")
        .unwrap();
    assert!(
        first["findings"]
            .as_array()
            .unwrap()
            .iter()
            .all(|f| f["severity"] != "error"),
        "{first}"
    );
}

#[test]
fn init_with_a_preset_in_its_default_folder_writes_only_the_preset() {
    let repo = scratch_repo();
    write(repo.path(), "docs/decisions/0001-x.md", madr_adr("X"));
    let out = run(repo.path(), &["init", "--preset", "madr"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let config = std::fs::read_to_string(repo.path().join("config/helix-gate.yaml")).unwrap();
    assert!(config.contains("preset: madr\n"), "{config}");
    assert!(!config.contains("directory:"), "{config}");
}

#[test]
fn init_refuses_to_replace_a_configuration_without_force() {
    let repo = scratch_repo();
    write(repo.path(), "config/helix-gate.yaml", "preset: nygard\n");
    let out = run(repo.path(), &["init"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(repo.path().join("config/helix-gate.yaml")).unwrap(),
        "preset: nygard\n"
    );

    let out = run(repo.path(), &["init", "--force"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).starts_with("replaced config/helix-gate.yaml (preset helix"));
}

#[test]
fn doctor_shows_the_configuration_in_effect_and_the_git_hook() {
    let repo = crate::support::repo::ScratchRepo::empty();
    repo.write("docs/adr/0001-first.md", madr_adr("First"));
    assert_eq!(code(&repo.helix(&["init"])), 0);

    let text = stdout(&repo.helix(&["doctor"]));
    for line in [
        "Configuration in effect:\n  info: preset: madr (from config/helix-gate.yaml)\n",
        "  info: ADR directory: docs/adr\n  info: ADR globs: docs/adr/**/*.md\n",
        "  info: config/helix-gate.yaml: in effect\n",
        "  info: config/adr-completeness-rules.yaml: does not exist, built-in preset madr (config/presets/madr.yaml) in effect\n",
        "git pre-commit hook:\n  info: .git/hooks/pre-commit: not installed;",
        "  info: project: .claude/settings.json does not exist (not registered)\n",
    ] {
        assert!(text.contains(line), "{line}\n---\n{text}");
    }
    assert!(
        !text.contains("ok: project: .claude/settings.json does not exist"),
        "{text}"
    );

    assert_eq!(code(&repo.helix(&["install", "git"])), 0);
    let text = stdout(&repo.helix(&["doctor"]));
    assert!(
        text.contains("git pre-commit hook:\n  ok: .git/hooks/pre-commit: installed\n"),
        "{text}"
    );
}
