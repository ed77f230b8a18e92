//! The reference pages of the book (`docs/src/reference/`) hold against the binary: every
//! rule id `helix-gate rules` prints and every subcommand `--help` lists has its section,
//! every key of the config files' schemas its heading,
//! every example of the exit-code page gives the code it says, the stub reviewer of the
//! contracts page is accepted by `approve` (and its rejecting variant rejected), and the
//! hook answers each event of `docs/examples/hook/` with the answer file beside it
//! (`UPDATE_GENERATED=1` rewrites the answer files).
//!
//! The pages themselves are generated and kept current by `cargo test --lib cli::book`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::support::cli::{
    bounded, code, isolated, manifest_dir, path_with_bin, run, stderr, stdout,
};
use crate::support::hook::Hook;
use crate::support::repo::ScratchRepo;

fn page(name: &str) -> String {
    std::fs::read_to_string(manifest_dir().join("docs/src/reference").join(name)).unwrap()
}

/// The headings of `text` outside code fences, without their `#`s.
fn headings(text: &str) -> Vec<String> {
    let mut fence = false;
    let mut found = Vec::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        }
        if !fence && line.starts_with('#') {
            found.push(line.trim_start_matches('#').trim().to_owned());
        }
    }
    found
}

#[test]
fn every_rule_id_of_helix_gate_rules_has_its_section() {
    let repo = crate::support::cli::scratch_repo();
    let out = run(repo.path(), &["rules"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let ids: Vec<String> = stdout(&out)
        .lines()
        .filter(|l| l.starts_with("  ") && !l.trim_start().starts_with("none"))
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    assert!(ids.len() > 50, "{}", stdout(&out));
    let known = headings(&page("rules.md"));
    let missing: Vec<&String> = ids.iter().filter(|id| !known.contains(id)).collect();
    assert!(
        missing.is_empty(),
        "rules.md has no section for {missing:?}"
    );
}

#[test]
fn every_subcommand_of_help_has_its_section() {
    let help = stdout(&run(&manifest_dir(), &["--help"]));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() >= 20, "{help}");
    let known = headings(&page("cli.md"));
    let missing: Vec<&&str> = commands
        .iter()
        .filter(|c| !known.contains(&format!("helix-gate {c}")))
        .collect();
    assert!(missing.is_empty(), "cli.md has no section for {missing:?}");
    // And every option of every subcommand.
    let text = page("cli.md");
    for command in commands {
        let help = stdout(&run(&manifest_dir(), &[command, "--help"]));
        for flag in help
            .split_whitespace()
            .filter(|w| w.starts_with("--") && w.len() > 2)
            .map(|w| w.trim_end_matches([',', '.', ')', ']']))
        {
            assert!(
                text.contains(&format!("`{flag}")) || text.contains(&format!(", {flag}")),
                "cli.md lacks `{flag}` of `helix-gate {command}`"
            );
        }
    }
}

#[test]
fn every_key_of_the_config_files_has_a_heading() {
    let text = page("configuration.md");
    let mut missing = Vec::new();
    for (name, file) in [
        ("helix-gate", "config/helix-gate.yaml"),
        (
            "adr-completeness-rules",
            "config/adr-completeness-rules.yaml",
        ),
        ("approvals", "config/approvals.yaml"),
    ] {
        let out = run(&manifest_dir(), &["schema", name]);
        assert_eq!(code(&out), 0);
        let schema: Value = serde_json::from_str(&stdout(&out)).unwrap();
        let keys = crate::support::schema::keys(&schema);
        assert!(keys.len() >= 10, "{name}: {keys:?}");
        let section = &text[text.find(&format!("## {file}")).unwrap()..];
        missing.extend(
            keys.into_iter()
                .filter(|key| !section.contains(&format!("\n### `{key}`\n")))
                .map(|key| format!("{file}: {key}")),
        );
    }
    // The keys of one approval type are a map's values, not properties.
    for key in [
        "enabled",
        "description",
        "checks",
        "command",
        "on_rejection.action",
    ] {
        if !text.contains(&format!("\n### `approvals.<type>.{key}`\n")) {
            missing.push(format!("approvals.<type>.{key}"));
        }
    }
    assert!(
        missing.is_empty(),
        "configuration.md has no heading for {missing:?}"
    );
}

/// The shell code blocks (fenced as `sh`) of `text`, in order.
fn shell_blocks(text: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```sh") => current = Some(String::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

/// `sh -c script` in `dir` as a reader runs it: helix-gate on `PATH`, and a home, temp
/// folder and state folder of the test's own.
fn shell(dir: &Path, scratch: &Path, script: &str) -> std::process::Output {
    let mut cmd: Command = isolated("sh", dir);
    cmd.arg("-c")
        .arg(script)
        .env("PATH", path_with_bin())
        .env("HOME", scratch.join("home"))
        .env("TMPDIR", scratch.join("tmp"))
        .env("HELIX_GATE_STATE_DIR", scratch.join("state"));
    bounded(&mut cmd, Duration::from_secs(60))
}

#[test]
fn every_example_of_the_exit_code_page_gives_its_code() {
    let text = page("exit-codes.md");
    let blocks = shell_blocks(&text);
    let (setup, examples) = blocks.split_first().expect("the setup block");
    let scratch = tempfile::tempdir().unwrap();
    for dir in ["home", "tmp", "state"] {
        std::fs::create_dir(scratch.path().join(dir)).unwrap();
    }
    // The setup as the page gives it, at the root of the checkout; it ends in the demo.
    let out = shell(&manifest_dir(), scratch.path(), &format!("{setup}pwd\n"));
    assert_eq!(code(&out), 0, "the setup failed: {}", stderr(&out));
    let demo = PathBuf::from(stdout(&out).trim());
    assert!(demo.join("adr").is_dir(), "{}", demo.display());
    let mut ran = 0;
    for block in examples {
        for line in block.lines() {
            let (command, expected) = line
                .rsplit_once("   # exit ")
                .unwrap_or_else(|| panic!("an example without its code: {line}"));
            let out = shell(&demo, scratch.path(), command);
            assert_eq!(
                code(&out).to_string(),
                expected,
                "`{command}` gave {}:\n{}{}",
                code(&out),
                stdout(&out),
                stderr(&out)
            );
            ran += 1;
        }
    }
    assert!(ran >= 15, "only {ran} examples");
}

/// A git repository holding the demo of `docs/examples/demo/`, everything staged.
fn demo_repo() -> ScratchRepo {
    let repo = ScratchRepo::empty();
    copy_dir(&manifest_dir().join("docs/examples/demo"), repo.path());
    repo.git(&["add", "-A"]);
    repo
}

fn copy_dir(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn stub() -> PathBuf {
    manifest_dir().join("docs/examples/reviewer-stub.sh")
}

/// `helix-gate approve --format json <args>` in `repo`: (exit code, document).
fn approve(repo: &ScratchRepo, env: &[(&str, &str)], args: &[&str]) -> (i32, Value) {
    let home = repo.base().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut cmd = isolated(crate::support::cli::bin(), repo.path());
    cmd.args(["approve", "--format", "json"])
        .args(args)
        .env("HOME", &home)
        .env("HELIX_GATE_STATE_DIR", repo.state_dir())
        .envs(env.iter().copied());
    let out = bounded(&mut cmd, Duration::from_secs(60));
    let doc = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("approve printed no JSON ({e}): {}", stderr(&out)));
    (code(&out), doc)
}

#[test]
fn approve_accepts_the_stub_reviewers_verdict_and_its_rejection() {
    let repo = demo_repo();
    // The stub itself, as the page shows it, is the repository's reviewer command.
    repo.write(
        "config/approvals.yaml",
        format!(
            "defaults:\n  command: {}\n",
            serde_json::to_string(&stub()).unwrap()
        ),
    );
    let adr = "adr/001-cache-parsed-rules.md";
    let (status, doc) = approve(&repo, &[], &[adr]);
    assert_eq!(
        (status, doc["result"].as_str()),
        (0, Some("approved")),
        "{doc:#}"
    );
    assert_eq!(doc["reviewer_ran"], true);
    assert_eq!(
        doc["summary"], "stub: approved after reading ./adr/001-cache-parsed-rules.md",
        "the stub reads the copy in input/: {doc:#}"
    );
    let (status, doc) = approve(&repo, &[("STUB_VERDICT", "rejected")], &["--no-cache", adr]);
    assert_eq!(
        (status, doc["result"].as_str()),
        (1, Some("rejected")),
        "{doc:#}"
    );
    assert_eq!(doc["reviewer_ran"], true);
    assert!(doc["infrastructure_failure"].is_null(), "{doc:#}");
}

/// What the page says the reviewer is given: the argv of `claude -p`, the run folder as
/// working directory with `input/`, `HELIX_GATE_CHILD=1`, and no stdin.
#[test]
fn the_reviewer_gets_the_documented_argv_folder_environment_and_stdin() {
    let repo = demo_repo();
    let record = repo.base().join("record");
    std::fs::create_dir_all(&record).unwrap();
    let wrapper = repo.write_executable(
        "tools/recording-reviewer.sh",
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$@\" > '{r}/argv'\npwd > '{r}/cwd'\nprintf '%s' \"$HELIX_GATE_CHILD\" > '{r}/child'\nwc -c > '{r}/stdin'\nexec '{stub}' \"$@\"\n",
            r = record.display(),
            stub = stub().display()
        ),
    );
    assert!(wrapper.exists());
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: tools/recording-reviewer.sh\n  model: opus\n  max_budget_usd: 0.5\n",
    );
    let (status, doc) = approve(&repo, &[], &["adr/001-cache-parsed-rules.md"]);
    assert_eq!(status, 0, "{doc:#}");
    let read = |name: &str| std::fs::read_to_string(record.join(name)).unwrap();
    let argv: Vec<String> = read("argv").lines().map(str::to_owned).collect();
    let after = |flag: &str| {
        let at = argv
            .iter()
            .position(|a| a == flag)
            .unwrap_or_else(|| panic!("no {flag}: {argv:?}"));
        argv[at + 1].clone()
    };
    assert_eq!(argv[0], "-p");
    assert_eq!(after("--output-format"), "json");
    assert!(after("--json-schema").contains("\"needs_revision\""));
    assert_eq!(after("--model"), "opus");
    assert_eq!(after("--max-budget-usd"), "0.50");
    assert_eq!(after("--permission-mode"), "dontAsk");
    assert_eq!(argv.last().unwrap(), &repo.path().display().to_string());
    assert!(argv.contains(&"--add-dir".to_owned()));
    let cwd = PathBuf::from(read("cwd").trim());
    assert!(
        cwd.starts_with(repo.path().join(".helix-gate/approvals")),
        "{}",
        cwd.display()
    );
    assert!(cwd.join("input/adr/001-cache-parsed-rules.md").is_file());
    assert!(cwd.join("CLAUDE.md").is_file() && cwd.join("checks").is_dir());
    assert_eq!(read("child"), "1");
    assert_eq!(read("stdin").trim(), "0");
}

/// Where the hook examples stand for the demo repository.
const DEMO_ROOT: &str = "/path/to/demo";

#[test]
fn the_hook_answers_each_example_event_with_its_answer_file() {
    let update = std::env::var_os("UPDATE_GENERATED").is_some();
    let dir = manifest_dir().join("docs/examples/hook");
    let mut events: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".event.json"))
        .collect();
    events.sort();
    assert!(events.len() >= 5, "{events:?}");
    let repo = demo_repo();
    let root = repo.path().display().to_string();
    let home = repo.base().join("home");
    std::fs::create_dir_all(&home).unwrap();
    for event in events {
        let name = event.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(&event).unwrap();
        let input: Value = serde_json::from_str(&text.replace(DEMO_ROOT, &root))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let answer = Hook::new(repo.path())
            .env("HOME", &home)
            .env("HELIX_GATE_STATE_DIR", repo.state_dir())
            .event(&input)
            .answer();
        let answer_path = dir.join(name.replace(".event.json", ".answer.json"));
        let shown = answer.map(|a| {
            serde_json::from_str::<Value>(&a.to_string().replace(&root, DEMO_ROOT)).unwrap()
        });
        if update {
            match &shown {
                Some(a) => std::fs::write(
                    &answer_path,
                    serde_json::to_string_pretty(a).unwrap() + "\n",
                )
                .unwrap(),
                None => {
                    let _ = std::fs::remove_file(&answer_path);
                }
            }
        }
        let expected: Option<Value> = std::fs::read_to_string(&answer_path)
            .ok()
            .map(|t| serde_json::from_str(&t).unwrap());
        assert_eq!(
            shown,
            expected,
            "{name}: the hook's answer differs from {} (UPDATE_GENERATED=1 rewrites it)",
            answer_path.display()
        );
    }
}

/// The contracts page includes every example file there is, and nothing that is not.
#[test]
fn the_contracts_page_includes_every_example_file() {
    let text = page("contracts.md");
    let mut files = vec!["reviewer-stub.sh".to_owned()];
    for entry in std::fs::read_dir(manifest_dir().join("docs/examples/hook")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        files.push(format!("hook/{name}"));
    }
    for file in files {
        assert!(
            text.contains(&format!("{{{{#include ../../examples/{file}}}}}")),
            "contracts.md does not include {file}"
        );
    }
    for include in text.match_indices("{{#include ../../examples/") {
        let rest = &text[include.0 + "{{#include ../../".len()..];
        let path = &rest[..rest.find("}}").unwrap()];
        assert!(
            manifest_dir().join("docs").join(path).is_file(),
            "contracts.md includes a missing file: {path}"
        );
    }
}
