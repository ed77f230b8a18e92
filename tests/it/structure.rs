//! Fixes after the round-1 merge that cross several commands: `doctor` without an ADR
//! directory, `install claude --scope user` and the repository's config, and `doctor`
//! under the plugin's fixed Stop timeout.

use std::path::Path;
use std::process::Output;

use crate::support::cli::*;

/// helix-gate in `cwd` with a temporary HOME (user-scope settings land there).
fn with_home(cwd: &Path, home: &Path, args: &[&str], env: &[(&str, &Path)]) -> Output {
    isolated(bin(), cwd)
        .args(args)
        .env("HOME", home)
        .env("HELIX_GATE_STATE_DIR", home.join("state"))
        .envs(env.iter().copied())
        .output()
        .expect("run helix-gate")
}

#[test]
fn doctor_reports_a_missing_adr_directory_and_still_the_registrations() {
    let repo = scratch_repo();
    let home = tempfile::tempdir().unwrap();
    let out = with_home(repo.path(), home.path(), &["doctor"], &[]);
    let text = stdout(&out);
    assert_eq!(code(&out), 1, "an error finding: {text}{}", stderr(&out));
    assert!(
        text.contains(
            "adr/: error[adr-directory-missing] the ADR directory adr does not exist, so no ADR was checked"
        ),
        "{text}"
    );
    assert!(text.contains("Claude Code hook registrations:"), "{text}");
    // Without configuration, the one line on stderr says where ADRs were looked for.
    assert!(
        stderr(&out).starts_with("helix-gate: no configuration and no ADRs found; looked in ")
            && stderr(&out).lines().count() == 1,
        "{}",
        stderr(&out)
    );

    // The machine formats carry the same finding.
    let out = with_home(
        repo.path(),
        home.path(),
        &["doctor", "--format", "json"],
        &[],
    );
    assert_eq!(code(&out), 1);
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["files"][0]["findings"][0]["rule"], "adr-directory-missing",
        "{doc:#}"
    );

    // A file where the directory should be is reported the same way.
    write(repo.path(), "adr", "not a directory");
    let out = with_home(repo.path(), home.path(), &["doctor"], &[]);
    assert_eq!(code(&out), 1);
    assert!(
        stdout(&out).contains("the ADR directory adr is not a directory"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn install_claude_at_user_scope_ignores_the_repositorys_prompt_context() {
    let repo = scratch_repo();
    let home = tempfile::tempdir().unwrap();
    write(
        repo.path(),
        "config/helix-gate.yaml",
        "hook:\n  prompt_context: true\n",
    );
    let out = with_home(
        repo.path(),
        home.path(),
        &["install", "claude", "--scope", "user"],
        &[],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "UserPromptSubmit: not registered (user scope uses the built-in hook.prompt_context: false, not this repository's config/helix-gate.yaml, whose hook.prompt_context: true applies only to `helix-gate install claude` at project or local scope)"
        ),
        "{}",
        stdout(&out)
    );
    let user: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(home.path().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert!(user["hooks"]["Stop"].is_array(), "{user:#}");
    assert!(user["hooks"].get("UserPromptSubmit").is_none(), "{user:#}");

    // At project scope the repository's own setting decides.
    let out = with_home(repo.path(), home.path(), &["install", "claude"], &[]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        !stdout(&out).contains("UserPromptSubmit"),
        "{}",
        stdout(&out)
    );
    let project: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo.path().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert!(
        project["hooks"]["UserPromptSubmit"].is_array(),
        "{project:#}"
    );
}

#[test]
fn doctor_warns_when_the_plugins_fixed_stop_timeout_is_shorter_than_the_config_needs() {
    let repo = scratch_repo();
    std::fs::create_dir(repo.path().join("adr")).unwrap();
    let home = tempfile::tempdir().unwrap();
    // The plugin is this repository itself (hooks/hooks.json: Stop timeout 360 s).
    let plugin = manifest_dir();
    let doctor = |repo: &Path| {
        with_home(
            repo,
            home.path(),
            &["doctor"],
            &[("CLAUDE_PLUGIN_ROOT", &plugin)],
        )
    };
    // The default approval timeout (300 s) fits into 360 s.
    let out = doctor(repo.path());
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(!stdout(&out).contains("stop-timeout"), "{}", stdout(&out));

    write(
        repo.path(),
        "config/approvals.yaml",
        "approvals:\n  adr:\n    timeout: 900\n",
    );
    let out = doctor(repo.path());
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "a warning: {text}");
    assert!(
        text.contains(&format!(
            "{}: warning[stop-timeout] the helix-gate plugin's Stop hook has a fixed timeout of 360 s (its hooks/hooks.json), but config/approvals.yaml needs 960 s",
            plugin.join("hooks/hooks.json").display()
        )),
        "{text}"
    );
    assert!(
        text.contains("at or below 300 s, or register the hooks with `helix-gate install claude` instead of the plugin"),
        "{text}"
    );
    // Without the plugin's folder there is nothing to check.
    let out = with_home(repo.path(), home.path(), &["doctor"], &[]);
    assert!(!stdout(&out).contains("stop-timeout"), "{}", stdout(&out));
}

#[test]
fn install_claude_warns_about_session_folders_only_where_there_are_some() {
    let repo = scratch_repo();
    let out = run(repo.path(), &["install", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("subdirectory"), "{}", stderr(&out));
    // No config/approvals.yaml: the output does not name it.
    assert!(!stdout(&out).contains("approvals.yaml"), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("built-in approval settings"),
        "{}",
        stdout(&out)
    );

    std::fs::create_dir_all(repo.path().join("projects/sessions/s1")).unwrap();
    write(repo.path(), "config/approvals.yaml", "{}\n");
    let out = run(repo.path(), &["install", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "sessions started in a subdirectory of this repository (e.g. projects/sessions/s1/)"
        ),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("from config/approvals.yaml"),
        "{}",
        stdout(&out)
    );
}
