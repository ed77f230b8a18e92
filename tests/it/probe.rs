//! `helix-gate doctor --probe`: the registrations `install` wrote, run as their
//! agents run them against a broken ADR in a scratch folder, in real git
//! repositories with a temporary HOME.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use crate::support::cli::{bounded, code, stderr, stdout};
use crate::support::repo::{ScratchRepo, in_repo};

const LIMIT: Duration = Duration::from_secs(120);

/// A repository that opted in (`init`), and a HOME and TMPDIR of its own.
struct Setup {
    repo: ScratchRepo,
    home: tempfile::TempDir,
    tmp: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let repo = ScratchRepo::new();
        let setup = Setup {
            repo,
            home: tempfile::tempdir().unwrap(),
            tmp: tempfile::tempdir().unwrap(),
        };
        let out = setup.helix(&["init"]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        setup
    }

    fn helix(&self, args: &[&str]) -> Output {
        let mut cmd = in_repo(crate::support::cli::bin(), self.repo.path());
        cmd.args(args)
            .env("HOME", self.home.path())
            .env("COPILOT_HOME", self.home.path().join(".copilot"))
            .env("TMPDIR", self.tmp.path());
        bounded(&mut cmd, LIMIT)
    }

    fn install(&self, what: &str) {
        let out = self.helix(&["install", what]);
        assert_eq!(code(&out), 0, "install {what}: {}", stderr(&out));
    }

    fn probe(&self) -> (i32, Value) {
        let out = self.helix(&["doctor", "--probe", "--format", "json"]);
        let report: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}\n{}", stdout(&out), stderr(&out)));
        (code(&out), report)
    }

    /// Set the command of every helix-gate entry of the hooks file `rel` (its
    /// `command`, Copilot's `bash`) to `command`.
    fn rewrite(&self, rel: &str, command: &str) {
        let path = self.repo.path().join(rel);
        let mut file: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        for list in file["hooks"].as_object_mut().unwrap().values_mut() {
            for item in list.as_array_mut().unwrap() {
                if item.get("bash").is_some() {
                    item["bash"] = command.into();
                    continue;
                }
                for hook in item["hooks"].as_array_mut().unwrap() {
                    hook["command"] = command.into();
                }
            }
        }
        std::fs::write(&path, serde_json::to_string_pretty(&file).unwrap()).unwrap();
    }
}

/// Every file below `dir` with its size and modification time.
fn tree(dir: &Path) -> BTreeMap<PathBuf, (u64, SystemTime)> {
    let mut files = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(d) = pending.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let meta = entry.metadata().unwrap();
            if meta.is_dir() {
                pending.push(entry.path());
            } else {
                files.insert(entry.path(), (meta.len(), meta.modified().unwrap()));
            }
        }
    }
    files
}

/// The probes of `report` as (target, scope, outcome, why).
fn outcomes(report: &Value) -> Vec<(String, String, String, String)> {
    report["probes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap_or_default().to_owned();
            (s("target"), s("scope"), s("outcome"), s("why"))
        })
        .collect()
}

#[test]
fn every_agents_registration_and_the_git_hook_block_and_nothing_outside_the_scratch_folder_is_written()
 {
    let setup = Setup::new();
    for what in ["claude", "codex", "gemini", "copilot", "git"] {
        setup.install(what);
    }
    let out = setup.helix(&["install", "claude", "--scope", "user"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let project = tree(setup.repo.path());
    let home = tree(setup.home.path());
    let (status, report) = setup.probe();
    let got = outcomes(&report);
    let targets: Vec<(&str, &str)> = got
        .iter()
        .map(|(t, s, _, _)| (t.as_str(), s.as_str()))
        .collect();
    assert_eq!(
        targets,
        [
            ("Claude Code", "project"),
            ("Claude Code", "user"),
            ("Codex CLI", "project"),
            ("Gemini CLI", "project"),
            ("Copilot CLI", "project"),
            ("git", "pre-commit"),
        ],
        "{report:#}"
    );
    assert!(
        got.iter().all(|(_, _, outcome, _)| outcome == "blocks"),
        "{report:#}"
    );
    assert_eq!(status, 0, "{report:#}");
    assert_eq!(tree(setup.repo.path()), project, "the project tree changed");
    assert_eq!(tree(setup.home.path()), home, "HOME changed");
    assert!(
        std::fs::read_dir(setup.tmp.path())
            .unwrap()
            .next()
            .is_none(),
        "the scratch folder was left behind"
    );
    // The human form says the same.
    let out = setup.helix(&["doctor", "--probe"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains(
            "ok: Claude Code project .claude/settings.json: blocks as expected [`helix-gate hook` through /bin/sh -c"
        ),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_registration_of_a_missing_binary_does_not_block_for_any_agent() {
    let setup = Setup::new();
    for what in ["claude", "codex", "gemini", "copilot"] {
        setup.install(what);
    }
    for (rel, agent) in [
        (".claude/settings.json", ""),
        (".codex/hooks.json", " --agent codex"),
        (".gemini/settings.json", " --agent gemini"),
        (".github/hooks/helix-gate.json", " --agent copilot"),
    ] {
        setup.rewrite(rel, &format!("\"/nonexistent/bin/helix-gate\" hook{agent}"));
    }
    let (status, report) = setup.probe();
    let got = outcomes(&report);
    assert_eq!(got.len(), 4, "{report:#}");
    for (target, _, outcome, why) in &got {
        assert_eq!(outcome, "does_not_block", "{target}: {report:#}");
        assert!(
            why.starts_with(
                "binary not found (wrong path): `/nonexistent/bin/helix-gate` does not exist"
            ),
            "{target}: {why}"
        );
    }
    assert_eq!(status, 1, "{report:#}");
}

#[test]
fn a_command_that_exits_0_without_output_fails_open() {
    let setup = Setup::new();
    setup.install("claude");
    setup.rewrite(".claude/settings.json", "true");
    let (status, report) = setup.probe();
    let got = outcomes(&report);
    assert_eq!(got.len(), 1, "{report:#}");
    assert_eq!(got[0].2, "does_not_block");
    assert!(
        got[0]
            .3
            .starts_with("exits 0 with no output: the agent goes on (fails open)"),
        "{report:#}"
    );
    assert_eq!(status, 1);
    // And a command that is not helix-gate's answer at all.
    setup.rewrite(".claude/settings.json", "echo hello");
    let (status, report) = setup.probe();
    assert!(
        outcomes(&report)[0]
            .3
            .starts_with("stdout is not one JSON object"),
        "{report:#}"
    );
    assert_eq!(status, 1);
}

#[test]
fn quoting_and_a_git_hook_without_helix_gate_are_named() {
    let setup = Setup::new();
    setup.install("codex");
    setup.install("git");
    // An unquoted path with a space: the shell runs only its first word.
    let spaced = setup.home.path().join("my tools");
    std::fs::create_dir_all(&spaced).unwrap();
    let exe = spaced.join("helix-gate");
    std::fs::write(&exe, "#!/bin/sh\nexit 0\n").unwrap();
    setup.rewrite(
        ".codex/hooks.json",
        &format!("{} hook --agent codex", exe.display()),
    );
    // The shim without helix-gate on PATH refuses every commit, checked or not.
    let mut cmd = in_repo(crate::support::cli::bin(), setup.repo.path());
    cmd.args(["doctor", "--probe", "--format", "json"])
        .env("HOME", setup.home.path())
        .env("TMPDIR", setup.tmp.path())
        .env("PATH", "/usr/bin:/bin");
    let out = bounded(&mut cmd, LIMIT);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let got = outcomes(&report);
    assert!(
        got[0].3.starts_with(&format!(
            "quoting: `{}` has a space and is not quoted",
            exe.display()
        )),
        "{report:#}"
    );
    assert_eq!(got[1].0, "git");
    assert!(
        got[1]
            .3
            .starts_with("it checks nothing and refuses every commit (fails closed)"),
        "{report:#}"
    );
    assert_eq!(code(&out), 1);
}

#[test]
fn a_user_scope_registration_stays_silent_where_the_repository_did_not_opt_in() {
    let repo = ScratchRepo::new();
    let setup = Setup {
        repo,
        home: tempfile::tempdir().unwrap(),
        tmp: tempfile::tempdir().unwrap(),
    };
    let out = setup.helix(&["install", "claude", "--scope", "user"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let (status, report) = setup.probe();
    let got = outcomes(&report);
    assert_eq!(got.len(), 1, "{report:#}");
    assert_eq!(
        (got[0].1.as_str(), got[0].2.as_str()),
        ("user", "silent_as_intended"),
        "{report:#}"
    );
    assert!(
        got[0]
            .3
            .starts_with("this repository has no config/helix-gate.yaml"),
        "{report:#}"
    );
    assert_eq!(status, 0);
}
