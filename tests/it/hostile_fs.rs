//! A hostile repository against helix-gate's writes: every place helix-gate writes
//! (`.helix-gate/` and everything in it, the STEP fallback file, `INDEX.md`, the
//! ADR directory, Claude Code settings, the git hook) shipped as a symbolic link
//! out of the project, files in the way of a write, and numbers too large to be
//! ADR numbers. Each test names the situation, checks the defined outcome (exit
//! status, hook answer, message) and that nothing outside the project changed.
//! Every run of the binary is bounded, so a regression fails instead of hanging.

use std::collections::BTreeMap;
use std::os::unix::fs::{PermissionsExt as _, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::Hook;
use crate::support::repo::ScratchRepo;

/// Longest run of one command before the test kills it and fails.
const LIMIT: Duration = Duration::from_secs(30);

/// `helix-gate <args>` in `cwd`, bounded.
fn cli(cwd: &Path, args: &[&str]) -> Output {
    bounded(isolated(bin(), cwd).args(args), LIMIT)
}

/// `helix-gate hook <args>` with `event` for the project at `root`: (stdout answer,
/// stderr). Asserts the hook contract: exit 0, and stdout is nothing or exactly one JSON
/// object.
fn hook_with(root: &Path, args: &[&str], event: &Value) -> (Option<Value>, String) {
    let run = Hook::new(root).args(args).limit(LIMIT).event(event);
    let answer = run.answer();
    (answer, run.stderr)
}

/// `helix-gate hook` with `event` for the project at `root` ([`hook_with`]).
fn hook(root: &Path, event: &Value) -> (Option<Value>, String) {
    hook_with(root, &[], event)
}

fn post_write(root: &Path, rel: &str) -> Value {
    json!({"session_id": "s", "transcript_path": "t", "cwd": root, "hook_event_name": "PostToolUse",
           "tool_name": "Write", "tool_input": {"file_path": root.join(rel), "content": "…"},
           "tool_response": {"type": "create"}, "tool_use_id": "toolu_1", "duration_ms": 3})
}

/// A project with the passing fixture's dependency, the reviewer off, and a
/// failing ADR (its `Dokumentation` section is missing).
fn project() -> tempfile::TempDir {
    let root = scratch_repo();
    write(root.path(), "src/lib.rs", "");
    write(
        root.path(),
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    write(
        root.path(),
        "adr/001-x.md",
        good_adr().replace("## Dokumentation", "## Notizen"),
    );
    root
}

/// A folder outside the project with one file in it, and a record of everything
/// below it, to prove afterwards that nothing there changed.
struct Outside {
    dir: tempfile::TempDir,
    before: BTreeMap<PathBuf, Vec<u8>>,
}

impl Outside {
    fn new() -> Outside {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("script.sh"), "#!/bin/sh\necho hi\n").unwrap();
        let before = contents(dir.path());
        Outside { dir, before }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn script(&self) -> PathBuf {
        self.dir.path().join("script.sh")
    }

    /// A file created after [`Outside::new`] is part of the record from here on.
    fn record(&mut self) {
        self.before = contents(self.dir.path());
    }

    fn assert_unchanged(&self) {
        assert_eq!(
            contents(self.dir.path()),
            self.before,
            "something was written outside the project"
        );
    }
}

/// Every file and folder below `dir` with its contents (folders: empty).
fn contents(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(next) = pending.pop() {
        for entry in std::fs::read_dir(&next).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(dir).unwrap().to_path_buf();
            if meta.is_dir() {
                pending.push(path);
                out.insert(rel, Vec::new());
            } else if meta.is_symlink() {
                out.insert(
                    rel,
                    std::fs::read_link(&path)
                        .unwrap()
                        .into_os_string()
                        .into_encoded_bytes(),
                );
            } else {
                out.insert(rel, std::fs::read(&path).unwrap());
            }
        }
    }
    out
}

/// Names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

fn is_link(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

const LEAVES: &str = "leaves the project through a symbolic link";

// ------------------------------------------------------------------ .helix-gate/

#[test]
fn data_dir_linked_out_of_the_project_is_not_written_and_the_hook_answers_by_policy() {
    let root = project();
    let outside = Outside::new();
    symlink(outside.path(), root.path().join(".helix-gate")).unwrap();

    // Default policy (fail open): no block, the infrastructure error is named.
    let (answer, err) = hook(root.path(), &post_write(root.path(), "adr/001-x.md"));
    let answer = answer.expect("an answer");
    assert!(answer.get("decision").is_none(), "{answer}");
    let message = answer["systemMessage"].as_str().unwrap();
    assert!(message.contains("infrastructure error"), "{message}");
    assert!(message.contains(LEAVES), "{message}");
    assert!(
        err.contains(&format!(
            "(`.helix-gate` -> `{}`); not written",
            outside.path().display()
        )),
        "{err}"
    );
    outside.assert_unchanged();

    // fail_closed: the same refusal blocks.
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook: {fail_closed: true}\n",
    );
    let (answer, _) = hook(root.path(), &post_write(root.path(), "adr/001-x.md"));
    let answer = answer.expect("an answer");
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("helix-gate infrastructure error"),
        "{reason}"
    );
    assert!(reason.contains(LEAVES), "{reason}");
    outside.assert_unchanged();
}

#[test]
fn log_linked_to_a_script_outside_is_never_appended() {
    let root = project();
    let outside = Outside::new();
    std::fs::create_dir(root.path().join(".helix-gate")).unwrap();
    symlink(outside.script(), root.path().join(".helix-gate/log.jsonl")).unwrap();
    // A file name that would be a command in a shell script.
    let rel = "adr/002-$(touch${IFS}PWNED).md";
    write(
        root.path(),
        rel,
        good_adr().replace("## Dokumentation", "## Notizen"),
    );
    let (answer, err) = hook(root.path(), &post_write(root.path(), rel));
    // The decision itself is unaffected: the ADR is blocked for its findings.
    assert_eq!(answer.expect("a block")["decision"], "block");
    assert!(
        err.contains("cannot write the decision log: `.helix-gate/log.jsonl` leaves the project"),
        "{err}"
    );
    assert!(is_link(&root.path().join(".helix-gate/log.jsonl")));
    outside.assert_unchanged();
}

#[test]
fn state_folder_linked_out_of_the_project_is_refused() {
    let root = project();
    let outside = Outside::new();
    std::fs::create_dir(root.path().join(".helix-gate")).unwrap();
    symlink(outside.path(), root.path().join(".helix-gate/state")).unwrap();
    let (answer, err) = hook(root.path(), &post_write(root.path(), "adr/001-x.md"));
    let message = answer.expect("an answer")["systemMessage"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains(LEAVES), "{message}");
    assert!(err.contains("(`.helix-gate/state` -> "), "{err}");
    outside.assert_unchanged();
}

#[test]
fn state_and_lock_files_linked_out_of_the_project_are_refused() {
    let root = project();
    let mut outside = Outside::new();
    std::fs::write(outside.path().join("state.json"), "{}").unwrap();
    outside.record();
    let state = root.path().join(".helix-gate/state");
    std::fs::create_dir_all(&state).unwrap();
    // The lock file first (taken before the state is read), then the state file.
    symlink(outside.script(), state.join("s.lock")).unwrap();
    let (answer, err) = hook(root.path(), &post_write(root.path(), "adr/001-x.md"));
    assert!(answer.is_some());
    assert!(err.contains("(`.helix-gate/state/s.lock` -> "), "{err}");
    outside.assert_unchanged();

    std::fs::remove_file(state.join("s.lock")).unwrap();
    symlink(outside.path().join("state.json"), state.join("s.json")).unwrap();
    write(
        root.path(),
        "config/helix-gate.yaml",
        "hook: {fail_closed: true}\n",
    );
    let (answer, err) = hook(root.path(), &post_write(root.path(), "adr/001-x.md"));
    let answer = answer.expect("an answer");
    assert_eq!(answer["decision"], "block");
    // Refused already when it is read: helix-gate's own files are never links.
    assert!(
        answer["reason"].as_str().unwrap().contains(
            "s.json` is a symbolic link, which helix-gate's own files never are; not read"
        ),
        "{answer}"
    );
    assert!(err.contains("s.json` is a symbolic link"), "{err}");
    assert!(is_link(&state.join("s.json")));
    outside.assert_unchanged();
}

#[test]
fn state_folder_linked_out_of_the_project_is_never_pruned() {
    let root = project();
    let mut outside = Outside::new();
    // Older than the retention (7 days): pruning would remove it.
    let old = std::fs::File::options()
        .write(true)
        .open(outside.script())
        .unwrap();
    old.set_modified(std::time::SystemTime::now() - Duration::from_secs(30 * 86_400))
        .unwrap();
    drop(old);
    outside.record();
    std::fs::create_dir(root.path().join(".helix-gate")).unwrap();
    symlink(outside.path(), root.path().join(".helix-gate/state")).unwrap();
    let start = json!({"session_id": "s", "hook_event_name": "SessionStart", "source": "startup"});
    let (answer, err) = hook(root.path(), &start);
    assert!(answer.is_some(), "{err}");
    assert!(
        outside.script().is_file(),
        "a file outside the project was pruned"
    );
    outside.assert_unchanged();
}

#[test]
fn a_project_reached_through_a_link_is_still_written() {
    let root = project();
    let aliases = tempfile::tempdir().unwrap();
    let alias = aliases.path().join("alias");
    symlink(root.path(), &alias).unwrap();
    let (answer, err) = hook(&alias, &post_write(&alias, "adr/001-x.md"));
    assert_eq!(answer.expect("a block")["decision"], "block", "{err}");
    assert!(!err.contains(LEAVES), "{err}");
    let log = std::fs::read_to_string(root.path().join(".helix-gate/log.jsonl")).unwrap();
    assert_eq!(log.lines().count(), 1, "{log}");
    assert!(root.path().join(".helix-gate/state/s.json").is_file());
}

#[test]
fn a_state_file_that_is_a_directory_leaves_no_temporary_file() {
    let root = project();
    let state = root.path().join(".helix-gate/state");
    std::fs::create_dir_all(state.join("s.json/inside")).unwrap();
    let (answer, err) = hook(root.path(), &post_write(root.path(), "adr/001-x.md"));
    let message = answer.expect("an answer")["systemMessage"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(message.contains("infrastructure error"), "{message}\n{err}");
    assert_eq!(
        names(&state),
        ["s.json", "s.lock"],
        "no temporary file left"
    );
}

// ------------------------------------------------------------------ STEP fallback

#[test]
fn step_fallback_file_linked_to_a_script_outside_is_never_appended() {
    let root = project();
    let outside = Outside::new();
    write(
        root.path(),
        "config/helix-gate.yaml",
        "step_marker: {enabled: true, paths: []}\n",
    );
    std::fs::create_dir(root.path().join("output")).unwrap();
    symlink(outside.script(), root.path().join("output/response.md")).unwrap();
    let stop = json!({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": false,
                      "last_assistant_message": "Was meinst du?"});
    // Three blocks within the budget, then the fallback that would append.
    for _ in 0..4 {
        let (answer, _) = hook(root.path(), &stop);
        assert!(answer.is_some());
    }
    let log = std::fs::read_to_string(root.path().join(".helix-gate/log.jsonl")).unwrap();
    assert!(
        log.contains(
            "output/response.md leads outside the project; marker <!-- STEP: what --> not written"
        ),
        "{log}"
    );
    assert!(is_link(&root.path().join("output/response.md")));
    outside.assert_unchanged();
}

/// `helix-gate hook --scope user` with `event` for the project at `root`: (answer, stderr).
fn user_hook(root: &Path, event: &Value) -> (Option<Value>, String) {
    hook_with(root, &["--scope", "user"], event)
}

/// A settings file that was meant but is not a readable file (a dangling link, a
/// folder, a FIFO) is a settings error, never the defaults, and under user scope
/// it counts as opted in, so the hook reports it instead of staying silent.
#[test]
fn settings_file_dangling_or_not_regular_is_an_error_not_the_defaults() {
    type Plant = fn(&Path);
    let plants: [(&str, Plant); 3] = [
        ("dangling link", |p| symlink("gone.yaml", p).unwrap()),
        ("a directory", |p| std::fs::create_dir(p).unwrap()),
        ("a named pipe (FIFO)", |p| mkfifo(p)),
    ];
    for (what, plant) in plants {
        let root = project();
        let settings = root.path().join("config/helix-gate.yaml");
        plant(&settings);
        let out = cli(root.path(), &["validate", "adr/001-x.md"]);
        assert_eq!(code(&out), 2, "{what}: {}{}", stdout(&out), stderr(&out));
        assert!(
            stderr(&out).contains(&format!("invalid settings in {}", settings.display()))
                && stderr(&out).contains(what),
            "{what}: {}",
            stderr(&out)
        );
        let (answer, err) = user_hook(root.path(), &post_write(root.path(), "adr/001-x.md"));
        let answer = answer.unwrap_or_else(|| panic!("{what}: the user hook is silent: {err}"));
        let text = answer.to_string();
        assert!(
            text.contains("invalid settings in") && text.contains(what),
            "{what}: {text}"
        );
    }
}

// ------------------------------------------------------------------ approvals

/// A reviewer that approves whatever it is given.
fn approving_reviewer(repo: &ScratchRepo) {
    let result = json!({"type": "result", "subtype": "success", "is_error": false,
        "total_cost_usd": 0.01, "usage": {"input_tokens": 10, "output_tokens": 5},
        "modelUsage": {"claude-fake": {}},
        "structured_output": {"result": "approved", "confidence": 0.95, "findings": [],
                              "recommendations": [], "summary": "fine"}});
    let script = fake_reviewer(repo.path(), &result.to_string(), "");
    let command = serde_json::to_string(&script.to_string_lossy()).unwrap();
    repo.write(
        "config/approvals.yaml",
        format!("defaults:\n  command: {command}\n  timeout: 30\n"),
    );
}

fn approve(repo: &ScratchRepo) -> Output {
    let home = tempfile::tempdir().unwrap();
    bounded(
        isolated(bin(), repo.path())
            .args(["approve", "adr/001-x.md"])
            .env("HOME", home.path()),
        LIMIT,
    )
}

fn approval_repo() -> ScratchRepo {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    repo.write("adr/001-x.md", good_adr());
    approving_reviewer(&repo);
    repo
}

#[test]
fn approvals_folder_linked_out_of_the_project_is_refused() {
    let repo = approval_repo();
    let outside = Outside::new();
    std::fs::create_dir(repo.join(".helix-gate")).unwrap();
    symlink(outside.path(), repo.join(".helix-gate/approvals")).unwrap();
    let out = approve(&repo);
    assert_eq!(code(&out), 2, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("(`.helix-gate/approvals` -> ") && stderr(&out).contains(LEAVES),
        "{}",
        stderr(&out)
    );
    outside.assert_unchanged();
}

#[test]
fn approval_cache_linked_out_of_the_project_is_refused() {
    let repo = approval_repo();
    let outside = Outside::new();
    std::fs::create_dir(repo.join(".helix-gate")).unwrap();
    symlink(outside.path(), repo.join(".helix-gate/approval-cache")).unwrap();
    let out = approve(&repo);
    assert_eq!(code(&out), 2, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("(`.helix-gate/approval-cache` -> "),
        "{}",
        stderr(&out)
    );
    outside.assert_unchanged();
}

#[test]
fn approval_history_linked_to_a_file_outside_is_never_appended() {
    let repo = approval_repo();
    let outside = Outside::new();
    std::fs::create_dir(repo.join(".helix-gate")).unwrap();
    symlink(outside.script(), repo.join(".helix-gate/approvals.jsonl")).unwrap();
    let out = approve(&repo);
    assert_eq!(code(&out), 2, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("`.helix-gate/approvals.jsonl` leaves the project"),
        "{}",
        stderr(&out)
    );
    outside.assert_unchanged();
}

/// Make a named pipe at `path`.
fn mkfifo(path: &Path) {
    let made = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(made.success(), "mkfifo {}", path.display());
}

#[test]
fn approval_history_that_is_a_fifo_fails_instead_of_hanging() {
    let repo = approval_repo();
    std::fs::create_dir(repo.join(".helix-gate")).unwrap();
    mkfifo(&repo.join(".helix-gate/approvals.jsonl"));
    let out = approve(&repo);
    assert_eq!(code(&out), 2, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains("approvals.jsonl` is not a regular file but a named pipe (FIFO)"),
        "{}",
        stderr(&out)
    );
}

/// The key only serves the approval cache: a key that cannot be read leaves the
/// approval uncached, with a note naming the key and why (never a hang).
#[test]
fn signing_key_that_is_a_fifo_is_noted_instead_of_hanging() {
    let repo = approval_repo();
    let state = tempfile::tempdir().unwrap();
    mkfifo(&state.path().join("key"));
    let home = tempfile::tempdir().unwrap();
    let out = bounded(
        isolated(bin(), repo.path())
            .args(["approve", "adr/001-x.md"])
            .env("HOME", home.path())
            .env("HELIX_GATE_STATE_DIR", state.path()),
        LIMIT,
    );
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stderr(&out).contains(&format!(
            "the approval was not cached: cannot read the signing key {}: not a regular file but a named pipe (FIFO)",
            state.path().join("key").display()
        )),
        "{}",
        stderr(&out)
    );
}

// ------------------------------------------------------------------ ADR directory

/// A repository with one finalized ADR and `adr/`.
fn adr_repo() -> tempfile::TempDir {
    let root = scratch_repo();
    write(root.path(), "src/lib.rs", "");
    write(root.path(), "adr/001-x.md", good_adr());
    root
}

fn draft(title: &str) -> String {
    good_adr().replace(
        "title: \"Cache parsed rules between hook calls\"",
        &format!("title: \"{title}\""),
    )
}

#[test]
fn index_linked_out_of_the_project_is_refused_by_index_and_finalize() {
    let root = adr_repo();
    let outside = Outside::new();
    symlink(outside.script(), root.path().join("adr/INDEX.md")).unwrap();
    let out = cli(root.path(), &["index", "--write"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stderr(&out).contains(&format!(
            "`adr/INDEX.md` leaves the project through a symbolic link (`adr/INDEX.md` -> `{}`); not written",
            outside.script().display()
        )),
        "{}",
        stderr(&out)
    );
    write(root.path(), "output/ADR-draft.md", draft("Second decision"));
    let out = cli(root.path(), &["finalize", "output/ADR-draft.md"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(stderr(&out).contains(LEAVES), "{}", stderr(&out));
    assert!(
        root.path().join("output/ADR-draft.md").is_file(),
        "the draft stays"
    );
    assert_eq!(names(&root.path().join("adr")), ["001-x.md", "INDEX.md"]);
    outside.assert_unchanged();
}

#[test]
fn index_linked_inside_the_project_is_written_through_and_stays_a_link() {
    let root = adr_repo();
    write(root.path(), "docs/INDEX.md", "# ADR Index\n");
    symlink("../docs/INDEX.md", root.path().join("adr/INDEX.md")).unwrap();
    let out = cli(root.path(), &["index", "--write"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(is_link(&root.path().join("adr/INDEX.md")));
    let index = std::fs::read_to_string(root.path().join("docs/INDEX.md")).unwrap();
    assert!(index.contains("001-x.md"), "{index}");
    assert_eq!(names(&root.path().join("docs")), ["INDEX.md"]);
}

#[test]
fn adr_directory_linked_out_of_the_project_is_refused_by_finalize() {
    let root = scratch_repo();
    write(root.path(), "src/lib.rs", "");
    let outside = Outside::new();
    symlink(outside.path(), root.path().join("adr")).unwrap();
    write(root.path(), "output/ADR-draft.md", draft("Second decision"));
    let out = cli(root.path(), &["finalize", "output/ADR-draft.md"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("(`adr` -> ") && stderr(&out).contains(LEAVES),
        "{}",
        stderr(&out)
    );
    assert!(root.path().join("output/ADR-draft.md").is_file());
    outside.assert_unchanged();
}

#[test]
fn index_that_is_a_directory_leaves_no_temporary_file() {
    let root = adr_repo();
    std::fs::create_dir_all(root.path().join("adr/INDEX.md/inside")).unwrap();
    let out = cli(root.path(), &["index", "--write"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert_eq!(names(&root.path().join("adr")), ["001-x.md", "INDEX.md"]);
    write(root.path(), "output/ADR-draft.md", draft("Second decision"));
    let out = cli(root.path(), &["finalize", "output/ADR-draft.md"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert_eq!(
        names(&root.path().join("adr")),
        ["001-x.md", "INDEX.md"],
        "no temporary file, no moved ADR: {}",
        stderr(&out)
    );
    assert!(root.path().join("output/ADR-draft.md").is_file());
}

/// The draft is already moved when the move is recorded: a record that cannot be
/// appended is a note (the Stop gate then misses the move), never a hang.
#[test]
fn finalize_record_that_is_a_fifo_is_noted_instead_of_hanging() {
    let root = adr_repo();
    std::fs::create_dir(root.path().join(".helix-gate")).unwrap();
    mkfifo(&root.path().join(".helix-gate/finalized.jsonl"));
    write(root.path(), "output/ADR-draft.md", draft("Second decision"));
    let out = cli(root.path(), &["finalize", "output/ADR-draft.md"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        all.contains("could not record the move in .helix-gate/finalized.jsonl (`")
            && all.contains("finalized.jsonl` is not a regular file but a named pipe (FIFO)"),
        "{all}"
    );
    assert!(root.path().join("adr/002-second-decision.md").is_file());
}

#[test]
fn adr_id_4294967295_is_reported_and_numbering_keeps_working() {
    let root = adr_repo();
    write(
        root.path(),
        "adr/002-y.md",
        draft("Huge").replace("adr_id: \"001\"", "adr_id: 4294967295"),
    );
    write(root.path(), "adr/4294967295-z.md", draft("Huge name"));
    let out = cli(root.path(), &["next-number"]);
    assert_eq!(
        (code(&out), stdout(&out).as_str()),
        (0, "003\n"),
        "{}",
        stderr(&out)
    );

    let out = cli(root.path(), &["doctor"]);
    let text = stdout(&out);
    assert!(
        text.contains(
            "adr/002-y.md:2: warning[adr-number-too-large] adr_id carries the number 4294967295, above 99999; it is ignored for numbering"
        ),
        "{text}"
    );
    assert!(
        text.contains("adr/4294967295-z.md:1: warning[adr-number-too-large] the file name carries the number 4294967295"),
        "{text}"
    );
    assert!(
        !text.contains("adr-number-gap"),
        "no gap of billions: {text}"
    );

    // A draft with that adr_id gets the next free number.
    write(
        root.path(),
        "output/ADR-draft.md",
        draft("Second decision").replace("adr_id: \"001\"", "adr_id: 4294967295"),
    );
    let out = cli(root.path(), &["finalize", "output/ADR-draft.md"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert!(
        stdout(&out)
            .contains("adr_id `4294967295` is above the largest ADR number 99999; assigned 003"),
        "{}",
        stdout(&out)
    );
    assert!(root.path().join("adr/003-second-decision.md").is_file());
}

// ------------------------------------------------------------------ install claude

fn settings(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The commands of every hook entry in `settings`, by event.
fn commands(settings: &Value) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (event, groups) in settings["hooks"].as_object().into_iter().flatten() {
        for group in groups.as_array().unwrap() {
            for hook in group["hooks"].as_array().unwrap() {
                out.push((event.clone(), hook["command"].as_str().unwrap().to_owned()));
            }
        }
    }
    out
}

#[test]
fn install_claude_keeps_a_private_local_settings_file_private() {
    let root = project();
    let path = write(
        root.path(),
        ".claude/settings.local.json",
        r#"{"env": {"ANTHROPIC_API_KEY": "sk-secret"}}"#,
    );
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    let out = cli(root.path(), &["install", "claude", "--scope", "local"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(mode(&path), 0o600);
    assert_eq!(settings(&path)["env"]["ANTHROPIC_API_KEY"], "sk-secret");
    let out = cli(root.path(), &["uninstall", "claude", "--scope", "local"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(mode(&path), 0o600);
}

#[test]
fn install_claude_never_deletes_another_tools_hook_that_mentions_helix_gate() {
    let root = project();
    let foreign = [
        "my-helix-gate-wrapper.sh hook",
        "\"/opt/helix-gate-tools/lint\" hook",
        "${CLAUDE_PLUGIN_ROOT}/hooks/helix-gate.sh hook",
    ];
    let hooks: Vec<Value> = foreign
        .iter()
        .map(|c| json!({"type": "command", "command": c}))
        .collect();
    let path = write(
        root.path(),
        ".claude/settings.json",
        json!({"hooks": {"Stop": [{"hooks": hooks}]}}).to_string(),
    );
    for args in [
        &["install", "claude"][..],
        &["install", "claude"],
        &["uninstall", "claude"],
    ] {
        let out = cli(root.path(), args);
        assert_eq!(code(&out), 0, "{args:?}: {}", stderr(&out));
        let kept: Vec<String> = commands(&settings(&path))
            .into_iter()
            .map(|(_, c)| c)
            .filter(|c| foreign.contains(&c.as_str()))
            .collect();
        assert_eq!(kept, foreign, "{args:?}");
    }
    assert_eq!(
        commands(&settings(&path)).len(),
        3,
        "only ours were removed"
    );
}

#[test]
fn install_claude_replaces_entries_of_older_versions_by_their_exact_command() {
    let root = project();
    let path = write(
        root.path(),
        ".claude/settings.json",
        json!({"hooks": {
            "Stop": [{"hooks": [{"type": "command", "command": "helix-gate hook", "timeout": 360}]}],
            "PostToolUse": [{"matcher": "Write|Edit|MultiEdit", "hooks": [
                {"type": "command", "command": "\"/usr/local/bin/helix-gate\" hook", "timeout": 30}]}]
        }})
        .to_string(),
    );
    let out = cli(root.path(), &["install", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let v = settings(&path);
    // One entry per event, all carrying the marker: the old ones were replaced.
    for event in ["Stop", "PreToolUse", "PostToolUse", "SessionStart"] {
        let groups = v["hooks"][event].as_array().unwrap();
        assert_eq!(groups.len(), 1, "{event}: {v:#}");
        assert_eq!(
            groups[0]["hooks"][0]["statusMessage"],
            "helix-gate: ADR gate"
        );
    }
    let out = cli(root.path(), &["uninstall", "claude"]);
    assert_eq!(code(&out), 0);
    assert_eq!(
        stdout(&out).split_whitespace().nth(1),
        Some("5"),
        "{}",
        stdout(&out)
    );
    assert_eq!(settings(&path), json!({}));
}

#[test]
fn install_claude_writes_through_a_settings_link_inside_the_project() {
    let root = project();
    let real = write(
        root.path(),
        "config/claude-settings.json",
        r#"{"model": "opus"}"#,
    );
    std::fs::create_dir(root.path().join(".claude")).unwrap();
    let link = root.path().join(".claude/settings.json");
    symlink("../config/claude-settings.json", &link).unwrap();
    let out = cli(root.path(), &["install", "claude"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(is_link(&link), "the link stays a link");
    let v = settings(&real);
    assert_eq!(v["model"], "opus");
    assert!(!commands(&v).is_empty());
    assert_eq!(names(&root.path().join(".claude")), ["settings.json"]);
}

#[test]
fn install_claude_refuses_a_project_settings_link_out_of_the_project() {
    let root = project();
    let mut outside = Outside::new();
    let dotfile = outside.path().join("settings.json");
    std::fs::write(&dotfile, r#"{"model": "opus"}"#).unwrap();
    outside.record();
    std::fs::create_dir(root.path().join(".claude")).unwrap();
    let link = root.path().join(".claude/settings.json");
    symlink(&dotfile, &link).unwrap();
    for args in [&["install", "claude"][..], &["uninstall", "claude"]] {
        let out = cli(root.path(), args);
        assert_eq!(code(&out), 2, "{args:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains(&format!(
                "`.claude/settings.json` leaves the project through a symbolic link (`.claude/settings.json` -> `{}`); not written",
                dotfile.display()
            )),
            "{}",
            stderr(&out)
        );
    }
    assert!(is_link(&link));
    outside.assert_unchanged();
}

#[test]
fn install_claude_user_scope_writes_through_a_dotfiles_link_in_home_only() {
    let root = project();
    let home = tempfile::tempdir().unwrap();
    let dotfile = write(
        home.path(),
        "dotfiles/claude/settings.json",
        r#"{"theme": "dark"}"#,
    );
    std::fs::set_permissions(&dotfile, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::create_dir(home.path().join(".claude")).unwrap();
    let link = home.path().join(".claude/settings.json");
    symlink("../dotfiles/claude/settings.json", &link).unwrap();
    let user = |args: &[&str]| {
        bounded(
            isolated(bin(), root.path())
                .args(args)
                .env("HOME", home.path()),
            LIMIT,
        )
    };
    let out = user(&["install", "claude", "--scope", "user"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(is_link(&link));
    assert_eq!(mode(&dotfile), 0o600);
    let v = settings(&dotfile);
    assert_eq!(v["theme"], "dark");
    assert!(!commands(&v).is_empty());

    // A link out of the home directory (e.g. a read-only store) is refused.
    let outside = Outside::new();
    std::fs::remove_file(&link).unwrap();
    symlink(outside.script(), &link).unwrap();
    let out = user(&["install", "claude", "--scope", "user"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("leaves your home directory through a symbolic link"),
        "{}",
        stderr(&out)
    );
    outside.assert_unchanged();
}

// ------------------------------------------------------------------ install git

#[test]
fn install_git_leaves_a_hook_linked_to_a_current_shim_alone_and_never_chains_it() {
    let repo = ScratchRepo::new();
    let outside = Outside::new();
    let shim = outside.path().join("pre-commit");
    std::fs::copy(manifest_dir().join("hooks/pre-commit"), &shim).unwrap();
    let mut outside = outside;
    outside.record();
    let hook = repo.join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&hook);
    symlink(&shim, &hook).unwrap();
    let out = cli(repo.path(), &["install", "git"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("already installed"),
        "{}",
        stdout(&out)
    );
    // Chained, the link would run itself as pre-commit.local forever.
    assert!(!repo.join(".git/hooks/pre-commit.local").exists());
    assert!(is_link(&hook));
    outside.assert_unchanged();
}

#[test]
fn install_git_moves_a_symlinked_foreign_hook_aside_as_a_link() {
    let repo = ScratchRepo::new();
    let outside = Outside::new();
    let hook = repo.join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(&hook);
    symlink(outside.script(), &hook).unwrap();
    let out = cli(repo.path(), &["install", "git"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(is_link(&repo.join(".git/hooks/pre-commit.local")));
    assert!(!is_link(&hook), "the shim is a file of its own");
    let out = cli(repo.path(), &["uninstall", "git"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(is_link(&hook), "the link is back");
    outside.assert_unchanged();
}
