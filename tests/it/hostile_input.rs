//! Hostile input: files that are not files (FIFO, socket, device, directory), front
//! matter built to make the YAML parser slow, and arbitrary bytes as an ADR.
//!
//! Every command runs under a deadline and is killed when it passes it, so a
//! regression fails the test instead of hanging the suite.

use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::hook::Hook;
use crate::support::repo::ScratchRepo;

/// Generous for a debug build on a loaded machine; the hangs fixed here lasted forever
/// (a FIFO) or well beyond Claude Code's 30 s hook timeout (nested YAML).
const DEADLINE: Duration = Duration::from_secs(10);

/// helix-gate with `args` in `root`, killed (and the test failed) after [`DEADLINE`].
fn helix(root: &Path, args: &[&str]) -> Output {
    bounded(isolated(bin(), root).args(args), DEADLINE)
}

/// `validate --format json`: (exit code, the error rules of the first file, its findings).
fn validate_json(root: &Path, args: &[&str]) -> (i32, Vec<String>, Vec<Value>) {
    let mut all = vec!["validate", "--format", "json"];
    all.extend_from_slice(args);
    let out = helix(root, &all);
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}{}", stdout(&out), stderr(&out)));
    let findings: Vec<Value> = doc["files"][0]["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let rules = findings
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["rule"].as_str().unwrap().to_owned())
        .collect();
    (code(&out), rules, findings)
}

fn finding<'a>(findings: &'a [Value], rule: &str) -> &'a Value {
    findings
        .iter()
        .find(|f| f["rule"] == rule)
        .unwrap_or_else(|| panic!("no {rule} in {findings:#?}"))
}

fn mkfifo(path: &Path) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo");
    assert!(status.success());
}

/// A project whose passing fixture ADR has its dependency, reviewer off.
fn project() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "src/lib.rs", "");
    write(
        repo.path(),
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo
}

// ------------------------------------------------------------------ YAML that is slow to parse

/// The passing fixture with `extra` YAML lines added to its front matter.
fn adr_with_front_matter(extra: &str) -> String {
    good_adr().replacen("---\n", &format!("---\n{extra}\n"), 1)
}

/// The issue's repro: 150 KB of `[` took longer than Claude Code's 30 s hook timeout.
#[test]
fn flow_nesting_of_150_kb_in_front_matter_is_refused_quickly() {
    let root = project();
    let text = format!(
        "---\nadr_id: \"001\"\ntitle: x\nstatus: Proposed\nx: {}\n---\n",
        "[".repeat(150_000)
    );
    write(root.path(), "adr/001-x.md", text);
    let (code, rules, findings) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!(code, 1);
    assert!(rules.contains(&"front-matter-too-complex".to_owned()));
    let f = finding(&findings, "front-matter-too-complex");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("more than the 65536"),
        "{f}"
    );
}

/// Below the size limit the depth limit decides (40 KB of `[` took 3.3 s before).
#[test]
fn flow_nesting_of_60_kb_below_the_size_limit_is_refused_by_depth() {
    let root = project();
    let text = adr_with_front_matter(&format!("x: {}", "[".repeat(60_000)));
    write(root.path(), "adr/001-x.md", text);
    let (code, _, findings) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!(code, 1);
    let f = finding(&findings, "front-matter-too-complex");
    assert!(
        f["message"]
            .as_str()
            .unwrap()
            .contains("nests more than 32 levels deep"),
        "{f}"
    );
    assert_eq!(f["line"], 2, "the line where the limit was passed: {f}");
    // The body is still checked: the fixture's sections are all there.
    assert!(findings.iter().all(|f| f["rule"] != "section-missing"));
}

#[test]
fn flow_map_nesting_is_refused_by_depth() {
    let root = project();
    let text = adr_with_front_matter(&format!("x: {}{}", "{a: ".repeat(40), "}".repeat(40)));
    write(root.path(), "adr/001-x.md", text);
    let (code, rules, _) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!(
        (code, rules),
        (1, vec!["front-matter-too-complex".to_owned()])
    );
}

#[test]
fn block_nesting_by_indentation_is_refused_by_depth() {
    let root = project();
    let lines: Vec<String> = (0..40).map(|i| format!("{}k{i}:", " ".repeat(i))).collect();
    let ladder = lines.join("\n");
    write(root.path(), "adr/001-x.md", adr_with_front_matter(&ladder));
    let (code, rules, findings) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!(
        (code, rules),
        (1, vec!["front-matter-too-complex".to_owned()])
    );
    let line = finding(&findings, "front-matter-too-complex")["line"]
        .as_u64()
        .unwrap();
    assert_eq!(line, 2 + 32, "the 33rd level, counting the opening ---");
}

#[test]
fn block_nesting_of_compact_sequences_is_refused_by_depth() {
    let root = project();
    let text = adr_with_front_matter(&format!("x:\n{}v", "- ".repeat(20_000)));
    write(root.path(), "adr/001-x.md", text);
    let (code, rules, _) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!(
        (code, rules),
        (1, vec!["front-matter-too-complex".to_owned()])
    );
}

/// "Billion laughs": nine levels of nine aliases expand to 9^9 strings.
#[test]
fn alias_bomb_in_front_matter_is_refused_before_parsing() {
    let root = project();
    let mut bomb =
        vec![r#"l0: &l0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]"#.to_owned()];
    for i in 1..10 {
        let refs = vec![format!("*l{}", i - 1); 9].join(",");
        bomb.push(format!("l{i}: &l{i} [{refs}]"));
    }
    write(
        root.path(),
        "adr/001-x.md",
        adr_with_front_matter(&bomb.join("\n")),
    );
    let (code, rules, findings) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!(
        (code, rules),
        (1, vec!["front-matter-too-complex".to_owned()])
    );
    let f = finding(&findings, "front-matter-too-complex");
    assert!(f["message"].as_str().unwrap().contains("aliases"), "{f}");
    assert_eq!(f["line"], 3, "the first alias: {f}");
}

/// One anchor of 1000 items and aliases of it up to 60 KB (100 KB of this took 7 s).
#[test]
fn many_aliases_of_one_large_anchor_are_refused() {
    let root = project();
    let anchor = vec!["lol"; 1000].join(", ");
    let aliases = vec!["*a"; 14_000].join(", ");
    let text = adr_with_front_matter(&format!("a: &a [{anchor}]\nb: [{aliases}]"));
    write(root.path(), "adr/001-x.md", text);
    let (code, rules, _) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!(
        (code, rules),
        (1, vec!["front-matter-too-complex".to_owned()])
    );
}

/// `]` inside quoted strings could hide real nesting from a depth count that ignores
/// quotes; the count of all `[` and `{` cannot be lowered that way.
#[test]
fn quoted_closing_brackets_cannot_hide_flow_nesting() {
    let root = project();
    let level = format!("{}\"{}\", ", "[".repeat(16), "]".repeat(16));
    let text = adr_with_front_matter(&format!("x: {}a", level.repeat(20)));
    write(root.path(), "adr/001-x.md", text);
    let (code, rules, findings) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!(
        (code, rules),
        (1, vec!["front-matter-too-complex".to_owned()])
    );
    let f = finding(&findings, "front-matter-too-complex");
    assert!(
        f["message"].as_str().unwrap().contains("more than 256"),
        "{f}"
    );
}

#[test]
fn emphasis_and_ampersands_in_plain_values_are_not_aliases() {
    let root = project();
    let text = adr_with_front_matter("note: R&D decided *this* & that\nlinks: [\"*\", \"&\"]");
    write(root.path(), "adr/001-x.md", text);
    let (code, rules, _) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!((code, rules), (0, Vec::<String>::new()));
}

/// pre-commit parses staged blobs: the same front matter hung a commit.
#[test]
fn flow_nesting_in_a_staged_adr_is_refused_by_pre_commit() {
    let repo = ScratchRepo::new();
    repo.write("src/lib.rs", "");
    let text = adr_with_front_matter(&format!("x: {}", "[".repeat(60_000)));
    repo.write("adr/001-x.md", text);
    repo.git(&["add", "-A"]);
    let out = helix(repo.path(), &["pre-commit"]);
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert_eq!(code(&out), 1, "{text}");
    assert!(text.contains("front-matter-too-complex"), "{text}");
}

/// The same nesting in a settings file would hang every hook call of the project.
#[test]
fn flow_nesting_in_the_settings_file_is_a_quick_configuration_error() {
    let root = project();
    write(
        root.path(),
        "config/helix-gate.yaml",
        format!("x: {}\n", "[".repeat(150_000)),
    );
    write(root.path(), "adr/001-x.md", good_adr());
    let out = helix(root.path(), &["validate", "adr/001-x.md"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("config/helix-gate.yaml: line 1: the text nests more than 64 levels deep")
            && err.contains("refused before parsing"),
        "{err}"
    );
}

#[test]
#[cfg(unix)]
fn configuration_files_that_are_devices_or_fifos_are_refused_without_reading() {
    // A cloned repository can ship any configuration file as a link to /dev/zero
    // (never ends) or as a FIFO (blocks open): each is a quick configuration error.
    for (file, args) in [
        ("config/helix-gate.yaml", &["validate", "adr/001-x.md"][..]),
        (
            "config/adr-completeness-rules.yaml",
            &["validate", "adr/001-x.md"][..],
        ),
        ("config/approvals.yaml", &["approve", "adr/001-x.md"][..]),
    ] {
        for fifo in [false, true] {
            let root = project();
            write(root.path(), "adr/001-x.md", good_adr());
            let path = root.path().join(file);
            let _ = std::fs::remove_file(&path);
            if fifo {
                mkfifo(&path);
            } else {
                std::os::unix::fs::symlink("/dev/zero", &path).unwrap();
            }
            let out = helix(root.path(), args);
            assert_eq!(code(&out), 2, "{file} (fifo: {fifo}): {}", stderr(&out));
            assert!(
                stderr(&out).contains("not a regular file but"),
                "{file}: {}",
                stderr(&out)
            );
        }
    }
}

#[test]
#[cfg(unix)]
fn adr_linked_out_of_the_project_is_neither_read_by_validate_nor_sent_by_approve() {
    let root = project();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.md");
    std::fs::write(
        &secret,
        good_adr().replace("Cache parsed rules", "SECRET-VALUE-42"),
    )
    .unwrap();
    std::fs::create_dir_all(root.path().join("adr")).unwrap();
    std::os::unix::fs::symlink(&secret, root.path().join("adr/001-x.md")).unwrap();
    let (code, rules, _) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!((code, rules), (1, vec!["file-outside-project".to_owned()]));
    let out = helix(root.path(), &["validate", "adr"]);
    assert!(
        !stdout(&out).contains("SECRET-VALUE-42"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("file-outside-project"),
        "{}",
        stdout(&out)
    );
    // The reviewer is enabled but never reached: reading the files comes first.
    std::fs::remove_file(root.path().join("config/approvals.yaml")).unwrap();
    let out = helix(root.path(), &["approve", "adr/001-x.md"]);
    assert_eq!(code_of(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("leads it outside the project"),
        "{}",
        stderr(&out)
    );
    // A link that stays inside the project is read as usual.
    let inside = root.path().join("docs/002-y.md");
    std::fs::create_dir_all(inside.parent().unwrap()).unwrap();
    std::fs::write(&inside, good_adr()).unwrap();
    std::os::unix::fs::symlink(&inside, root.path().join("adr/002-y.md")).unwrap();
    let (_, rules, _) = validate_json(root.path(), &["adr/002-y.md"]);
    assert!(
        !rules.contains(&"file-outside-project".to_owned()),
        "{rules:?}"
    );
}

fn code_of(out: &Output) -> i32 {
    code(out)
}

// ------------------------------------------------------------------ paths that are not files

#[test]
fn fifo_named_like_an_adr_is_refused_by_validate_without_blocking() {
    let root = project();
    mkfifo(&root.path().join("adr/003-x.md"));
    let (code, rules, findings) = validate_json(root.path(), &["adr/003-x.md"]);
    assert_eq!((code, rules), (1, vec!["file-not-regular".to_owned()]));
    assert!(
        finding(&findings, "file-not-regular")["message"]
            .as_str()
            .unwrap()
            .contains("a named pipe (FIFO)")
    );
}

#[test]
fn fifo_named_like_an_adr_is_refused_by_approve_without_blocking() {
    let root = project();
    // The reviewer is enabled but never reached: reading the files comes first.
    std::fs::remove_file(root.path().join("config/approvals.yaml")).unwrap();
    mkfifo(&root.path().join("adr/003-x.md"));
    let out = helix(root.path(), &["approve", "adr/003-x.md"]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("not a regular file but a named pipe (FIFO)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn fifo_as_concept_file_is_a_read_error_without_blocking() {
    let root = project();
    write(root.path(), "adr/001-x.md", good_adr());
    mkfifo(&root.path().join("concept.md"));
    let out = helix(
        root.path(),
        &["validate", "--concept", "concept.md", "adr/001-x.md"],
    );
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("cannot read concept concept.md: not a regular file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn fifo_in_the_adr_directory_does_not_hang_directory_commands() {
    let root = project();
    write(root.path(), "adr/001-x.md", good_adr());
    mkfifo(&root.path().join("adr/003-x.md"));
    for args in [
        &["validate"][..],
        &["validate", "adr"],
        &["next-number"],
        &["doctor"],
        &["index", "--check"],
    ] {
        // Each finishes (`helix` fails on a hang); the exit code is not the point.
        let out = helix(root.path(), args);
        assert!(code(&out) >= 0, "{args:?} was killed");
    }
}

#[cfg(unix)]
#[test]
fn an_adr_linked_out_of_the_project_is_not_copied_into_index_md() {
    let root = project();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(
        outside.path().join("secret.md"),
        good_adr().replace("Cache parsed rules", "SECRET-OUTSIDE-TITLE"),
    )
    .unwrap();
    assert!(
        std::fs::read_to_string(outside.path().join("secret.md"))
            .unwrap()
            .contains("SECRET-OUTSIDE-TITLE")
    );
    std::fs::create_dir_all(root.path().join("adr")).unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        root.path().join("adr/001-secret.md"),
    )
    .unwrap();
    for args in [
        &["index", "--write"][..],
        &["index"],
        &["doctor"],
        &["next-number"],
    ] {
        let out = helix(root.path(), args);
        assert!(
            !stdout(&out).contains("SECRET-OUTSIDE-TITLE")
                && !stderr(&out).contains("SECRET-OUTSIDE-TITLE"),
            "{args:?}: {}{}",
            stdout(&out),
            stderr(&out)
        );
    }
    let index = std::fs::read_to_string(root.path().join("adr/INDEX.md")).unwrap();
    assert!(!index.contains("SECRET-OUTSIDE-TITLE"), "{index}");
    // The file name still takes its number.
    assert_eq!(stdout(&helix(root.path(), &["next-number"])).trim(), "002");
}

fn hook(root: &Path, event: &Value) -> Option<Value> {
    Hook::new(root).limit(DEADLINE).event(event).answer()
}

fn post_write(root: &Path, rel: &str) -> Value {
    json!({"session_id": "s", "transcript_path": "t", "cwd": root, "hook_event_name": "PostToolUse",
           "tool_name": "Write", "tool_input": {"file_path": root.join(rel), "content": "…"},
           "tool_response": {"type": "create"}, "tool_use_id": "toolu_1", "duration_ms": 3})
}

fn stop() -> Value {
    json!({"session_id": "s", "hook_event_name": "Stop", "stop_hook_active": false,
           "last_assistant_message": "done", "background_tasks": [], "session_crons": []})
}

fn assert_blocked_as_not_regular(answer: Option<Value>, what: &str) {
    let answer = answer.expect("a decision");
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains("[file-not-regular]") && reason.contains(what),
        "{reason}"
    );
}

#[test]
fn fifo_at_a_written_adr_path_is_blocked_by_the_hook_without_blocking() {
    let root = project();
    mkfifo(&root.path().join("adr/003-x.md"));
    let answer = hook(root.path(), &post_write(root.path(), "adr/003-x.md"));
    assert_blocked_as_not_regular(answer, "a named pipe (FIFO)");
}

/// A touched ADR replaced by a FIFO must not turn the Stop gate into an
/// infrastructure failure (which fails open and would let a bad ADR beside it pass).
#[test]
fn touched_adr_replaced_by_a_fifo_is_blocked_at_stop() {
    let root = project();
    write(root.path(), "adr/001-x.md", good_adr());
    assert_eq!(
        hook(root.path(), &post_write(root.path(), "adr/001-x.md")),
        None
    );
    std::fs::remove_file(root.path().join("adr/001-x.md")).unwrap();
    mkfifo(&root.path().join("adr/001-x.md"));
    assert_blocked_as_not_regular(hook(root.path(), &stop()), "a named pipe (FIFO)");
}

#[test]
fn directory_at_a_written_adr_path_is_blocked_by_the_hook() {
    let root = project();
    std::fs::create_dir_all(root.path().join("adr/003-x.md")).unwrap();
    let answer = hook(root.path(), &post_write(root.path(), "adr/003-x.md"));
    assert_blocked_as_not_regular(answer, "a directory");
}

#[test]
fn directory_named_like_an_adr_is_refused_by_approve() {
    let root = project();
    std::fs::remove_file(root.path().join("config/approvals.yaml")).unwrap();
    std::fs::create_dir_all(root.path().join("adr/003-x.md")).unwrap();
    let out = helix(root.path(), &["approve", "adr/003-x.md"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("not a regular file but a directory"),
        "{}",
        stderr(&out)
    );
}

#[test]
#[cfg(unix)]
fn socket_named_like_an_adr_is_refused() {
    let root = project();
    std::fs::create_dir_all(root.path().join("adr")).unwrap();
    let _listener = std::os::unix::net::UnixListener::bind(root.path().join("adr/003-x.md"))
        .expect("bind a socket");
    let (code, rules, findings) = validate_json(root.path(), &["adr/003-x.md"]);
    assert_eq!((code, rules), (1, vec!["file-not-regular".to_owned()]));
    assert!(
        finding(&findings, "file-not-regular")["message"]
            .as_str()
            .unwrap()
            .contains("a socket")
    );
}

/// Reading /dev/zero never ends; it is refused by what the symlink leads to.
#[test]
#[cfg(unix)]
fn dev_zero_symlinked_as_an_adr_is_refused_without_reading() {
    let root = project();
    std::fs::create_dir_all(root.path().join("adr")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", root.path().join("adr/003-x.md")).unwrap();
    // The link leaves the project, which is decided before the file type.
    let (code, rules, _) = validate_json(root.path(), &["adr/003-x.md"]);
    assert_eq!((code, rules), (1, vec!["file-outside-project".to_owned()]));
    // Named outside the project, it is the user's path: refused as a device.
    let (code, rules, findings) = validate_json(root.path(), &["/dev/zero"]);
    assert_eq!((code, rules), (1, vec!["file-not-regular".to_owned()]));
    assert!(
        finding(&findings, "file-not-regular")["message"]
            .as_str()
            .unwrap()
            .contains("a character device")
    );
}

// ------------------------------------------------------------------ content at the edges

#[test]
fn invalid_utf8_adr_is_file_not_utf8_with_its_line() {
    let root = project();
    write(
        root.path(),
        "adr/001-x.md",
        b"---\nadr_id: 1\n\xc3\x28\n".as_slice(),
    );
    let (code, rules, findings) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!((code, rules), (1, vec!["file-not-utf8".to_owned()]));
    assert_eq!(finding(&findings, "file-not-utf8")["line"], 3);
}

#[test]
fn zero_byte_adr_is_file_empty() {
    let root = project();
    write(root.path(), "adr/001-x.md", "");
    let (code, rules, _) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!((code, rules), (1, vec!["file-empty".to_owned()]));
}

#[test]
fn adr_exactly_at_max_file_size_is_read_and_one_byte_more_is_too_large() {
    let root = project();
    let text = good_adr();
    let limit = text.len() + 10;
    write(
        root.path(),
        "config/helix-gate.yaml",
        format!("adr:\n  max_file_size: {limit}\n"),
    );
    let at_limit = format!("{text}{}", "\n".repeat(10));
    assert_eq!(at_limit.len(), limit);
    write(root.path(), "adr/001-x.md", &at_limit);
    let (code, rules, _) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!((code, rules), (0, Vec::<String>::new()));
    write(root.path(), "adr/001-x.md", format!("{at_limit}\n"));
    let (code, rules, findings) = validate_json(root.path(), &["adr/001-x.md"]);
    assert_eq!((code, rules), (1, vec!["file-too-large".to_owned()]));
    let message = finding(&findings, "file-too-large")["message"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(
        message,
        format!("file is {} bytes, the limit is {limit} bytes", limit + 1)
    );
}

// ------------------------------------------------------------------ any bytes

/// Property tests in process: any bytes written as an ADR are decided (a report, or an
/// I/O error), never a panic, and within a time bound. `PROPTEST_CASES=10000 cargo test
/// --test it hostile_input::any` runs more cases by hand.
mod any {
    use std::path::Path;
    use std::sync::mpsc;
    use std::time::Duration;

    use helix_gate::engine::Engine;
    use proptest::prelude::*;

    /// Per case, for inputs up to 64 KB in a debug build: far above what any input takes
    /// now (milliseconds), far below the seconds a quadratic regression would need.
    const BOUND: Duration = Duration::from_secs(2);

    /// Pieces with a meaning to YAML or Markdown, so random documents reach the parsers'
    /// corners (nesting, anchors, fences, lists, quotes, line separators).
    const ATOMS: &[&str] = &[
        "---\n",
        "[",
        "]",
        "{",
        "}",
        "&a ",
        "*a",
        "- ",
        "? ",
        ": ",
        ", ",
        "> ",
        "\n",
        "  ",
        "\t",
        "\r\n",
        "# ",
        "## ",
        "`",
        "```\n",
        "*",
        "_",
        "|\n",
        ">-\n",
        "'",
        "\"",
        "\\",
        "<div>",
        "!!str ",
        "é",
        "\u{2028}",
        "\u{85}",
        "a",
        "0",
        "[ ] ",
        "[x] ",
        "](u)",
        "| a | b |\n|---|---|\n",
        "adr_id: \"001\"\n",
        "status: Proposed\n",
        "files:\n",
        "  create: [a]\n",
        "\u{feff}",
    ];

    fn check_bounded(bytes: &[u8]) -> Result<(), TestCaseError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let path = dir.path().join("adr/001-x.md");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        let root = dir.path().to_path_buf();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let result = std::panic::catch_unwind(|| {
                let engine = Engine::load(&root, None).expect("default settings");
                engine.check_file(&path).map(|c| c.report.findings.len())
            });
            let _ = tx.send(result.map_err(|_| ()));
        });
        match rx.recv_timeout(BOUND) {
            Ok(Ok(_decided)) => Ok(()),
            Ok(Err(())) => Err(TestCaseError::fail("the check panicked")),
            Err(_) => Err(TestCaseError::fail(format!(
                "no decision within {BOUND:?} for {} bytes",
                bytes.len()
            ))),
        }
    }

    fn document() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(prop::sample::select(ATOMS), 0..3000)
            .prop_map(|atoms| format!("---\n{}", atoms.concat()).into_bytes())
    }

    /// One atom repeated many times, in the front matter or in the body: the shape of
    /// every pathological input found so far.
    fn run_of_one() -> impl Strategy<Value = Vec<u8>> {
        (prop::sample::select(ATOMS), 1..20_000usize, any::<bool>()).prop_map(
            |(atom, count, in_front_matter)| {
                let run = atom.repeat(count);
                let run = &run[..run.len().min(60_000)];
                let text = if in_front_matter {
                    format!("---\nadr_id: \"001\"\nx: {run}\n---\n## Kontext\n")
                } else {
                    format!("---\nadr_id: \"001\"\n---\n## Kontext\n{run}\n")
                };
                text.into_bytes()
            },
        )
    }

    proptest! {
        #[test]
        fn any_bytes_are_decided_without_panic_in_bounded_time(
            bytes in prop::collection::vec(any::<u8>(), 0..65_536)
        ) {
            check_bounded(&bytes)?;
        }

        #[test]
        fn any_document_of_yaml_and_markdown_pieces_is_decided_in_bounded_time(
            bytes in document()
        ) {
            check_bounded(&bytes)?;
        }

        #[test]
        fn any_long_run_of_one_piece_is_decided_in_bounded_time(bytes in run_of_one()) {
            check_bounded(&bytes)?;
        }
    }

    #[test]
    fn the_bound_is_far_above_a_real_adr() {
        // A sanity check of the harness itself: the fixture is decided well within it.
        let fixture = std::fs::read(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/good/001-minimal-valid.md"),
        )
        .unwrap();
        check_bounded(&fixture).unwrap();
    }
}

// ------------------------------------------------------------------ a plan with N² findings

/// Issue 20: N phases naming N unknown phases gave N findings whose hints each named all
/// N phases (242 KB of plan, 847 MB of output). Each rule now lists at most 100 findings
/// and counts the rest in one more.
#[test]
fn a_plan_of_unknown_dependencies_is_checked_with_capped_findings() {
    use std::fmt::Write as _;
    let root = project();
    let mut plan = "phases:\n".to_owned();
    let mut i = 0;
    while plan.len() < 242_000 {
        let _ = writeln!(
            plan,
            "  - id: phase-{i}\n    depends_on:\n      - missing-{i}"
        );
        i += 1;
    }
    write(root.path(), "output/phases.yaml", &plan);
    let out = helix(
        root.path(),
        &["validate", "--format", "json", "output/phases.yaml"],
    );
    assert!(out.stdout.len() < 200_000, "{} bytes", out.stdout.len());
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let findings = doc["files"][0]["findings"].as_array().unwrap();
    let unknown: Vec<&Value> = findings
        .iter()
        .filter(|f| f["rule"] == "phase-depends-on-unknown")
        .collect();
    assert_eq!(unknown.len(), 101);
    let more = format!(
        "… and {} more `phase-depends-on-unknown` findings not listed",
        i - 100
    );
    assert!(
        unknown.iter().any(|f| f["message"] == more.as_str()),
        "{more}"
    );
}
