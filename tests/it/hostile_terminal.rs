//! Text from a hostile repository or reviewer never reaches a terminal (or the model) raw:
//! an ADR named `adr/001-\x1b[31mred.md` whose YAML values carry newlines, ESC and BEL, and a
//! reviewer whose words do the same, through every output that shows them (validate,
//! pre-commit for a person and for Claude Code, the hook's feedback, log, approve, finalize).
//! Control characters are shown escaped (`\x1b`, `\n`); JSON output keeps the exact text.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::{
    bin, bounded, code, good_adr, path_with_bin, run, scratch_repo, stderr, stdout, write,
};
use crate::support::hook::Hook;
use crate::support::repo::{ScratchRepo, TIME_LIMIT, helix_in, in_repo, state_dir};

/// An ADR file name with a colour sequence in it.
const NAME: &str = "adr/001-\x1b[31mred.md";
/// How [`NAME`] is shown.
const SHOWN: &str = "adr/001-\\x1b[31mred.md";
/// A line a hostile value tries to forge after a raw newline.
const FORGED: &str = "fake.md:1: info[x] ok";

/// The passing ADR with a title and a status that carry a newline, ESC (a screen clear, a
/// window title with BEL) and a forged line, written as YAML escapes so the YAML is valid.
fn hostile_adr() -> String {
    good_adr()
        .replace(
            "title: \"Cache parsed rules between hook calls\"",
            "title: \"Cache\\nrules\\e[2J\"",
        )
        .replace(
            "status: Proposed",
            &format!("status: \"Acc\\e]0;pwned\\a\\n{FORGED}\""),
        )
}

/// The status as it must be shown.
const STATUS_SHOWN: &str = "Acc\\x1b]0;pwned\\x07\\nfake.md:1: info[x] ok";

/// No raw control character except newlines between lines, and no line that starts with
/// the forged text.
fn assert_safe(text: &str) {
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t'),
        "raw control character in {text:?}"
    );
    assert!(
        !text.lines().any(|l| l.starts_with(FORGED)),
        "forged line in {text}"
    );
}

/// A git repository whose index holds the hostile ADR, plus what it references.
fn repo_with_hostile_adr() -> ScratchRepo {
    let repo = ScratchRepo::empty();
    repo.write("src/lib.rs", "");
    repo.write(NAME, hostile_adr());
    repo.git(&["add", "-A"]);
    repo
}

#[test]
fn validate_escapes_control_characters_from_file_names_and_yaml_values() {
    let repo = repo_with_hostile_adr();
    let out = helix_in(repo.path(), &["validate", NAME]);
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let text = stdout(&out);
    assert_safe(&text);
    assert!(
        text.contains(&format!(
            "{SHOWN}:4: error[status-invalid] status `{STATUS_SHOWN}` is not one of"
        )),
        "{text}"
    );
    // Every line is a finding, its hint or the summary: nothing broke out of its line.
    for line in text.lines() {
        assert!(
            line.starts_with(&format!("{SHOWN}:"))
                || line.starts_with("  hint: ")
                || line.starts_with("1 file checked"),
            "{line:?} in {text}"
        );
    }

    // JSON keeps the exact text: serde escapes it, and a reader gets it back unchanged.
    let out = helix_in(repo.path(), &["validate", "--format", "json", NAME]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["files"][0]["path"], NAME);
    assert!(
        doc["files"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["message"]
                .as_str()
                .unwrap()
                .contains("\x1b]0;pwned\x07\n")),
        "{doc}"
    );
}

#[test]
fn pre_commit_escapes_control_characters_for_people_and_for_claude_code() {
    let repo = repo_with_hostile_adr();
    let out = repo.pre_commit();
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert_safe(&err);
    assert!(
        err.contains(&format!(
            "{SHOWN}:4: error[status-invalid] status `{STATUS_SHOWN}`"
        )),
        "{err}"
    );
    assert!(
        err.contains(&format!("Details: `helix-gate validate {SHOWN}`")),
        "{err}"
    );

    let out = bounded(
        in_repo(bin(), repo.path())
            .arg("pre-commit")
            .env("CLAUDECODE", "1"),
        TIME_LIMIT,
    );
    assert_eq!(code(&out), 1, "{}", stderr(&out));
    let err = stderr(&out);
    assert_safe(&err);
    assert!(
        err.contains(&format!(
            "- {SHOWN}:4 [status-invalid] status `{STATUS_SHOWN}`"
        )),
        "{err}"
    );
}

/// A project for the hook with the reviewer off and the hostile ADR on disk.
fn hook_project() -> tempfile::TempDir {
    let root = scratch_repo();
    write(root.path(), "src/lib.rs", "");
    write(
        root.path(),
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    write(root.path(), NAME, hostile_adr());
    root
}

fn run_hook(root: &Path, event: &Value) -> Value {
    let run = Hook::new(root)
        .env("PATH", path_with_bin())
        .env("HELIX_GATE_STATE_DIR", state_dir(root))
        .limit(TIME_LIMIT)
        .event(event);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_safe(&run.stderr);
    run.answer().expect("one JSON object")
}

#[test]
fn hook_feedback_and_log_escape_control_characters() {
    let root = hook_project();
    let event = json!({"session_id": "s", "transcript_path": "t", "cwd": root.path(),
        "hook_event_name": "PostToolUse", "tool_name": "Write",
        "tool_input": {"file_path": root.path().join(NAME), "content": "…"},
        "tool_response": {"type": "create"}, "tool_use_id": "toolu_1", "duration_ms": 3});
    let answer = run_hook(root.path(), &event);
    assert_eq!(answer["decision"], "block", "{answer}");
    // The model reads the decoded string: it must not hold raw control characters either.
    let reason = answer["reason"].as_str().unwrap();
    assert_safe(reason);
    assert!(
        reason.starts_with(&format!("helix-gate: {SHOWN} fails")),
        "{reason}"
    );
    assert!(
        reason.contains(&format!("status `{STATUS_SHOWN}`")),
        "{reason}"
    );

    let out = helix_in(root.path(), &["log"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert_safe(&text);
    assert!(text.contains(SHOWN), "{text}");
}

#[test]
fn approve_escapes_what_the_reviewer_says() {
    // A name with control characters is refused before any reviewer starts
    // (hostile_approval.rs); here only the reviewer's own text is hostile.
    let name = "adr/001-plain.md";
    let repo = ScratchRepo::empty();
    repo.write("src/lib.rs", "");
    repo.write(name, good_adr());
    let verdict = json!({"type": "result", "subtype": "success", "is_error": false,
        "total_cost_usd": 0.01, "usage": {"input_tokens": 10, "output_tokens": 5},
        "model": "m\x1b[8m",
        "structured_output": {"result": "approved", "confidence": 0.95,
            "summary": format!("fine\x1b[2J\n{FORGED}"),
            "findings": [{"severity": "warning", "check": "style\x1b[1m",
                          "message": format!("vague\n{FORGED}"), "location": "x\x07"}],
            "recommendations": [format!("shorter\r\n{FORGED}")]}});
    crate::support::cli::fake_reviewer(repo.path(), &verdict.to_string(), "");
    repo.write(
        "config/approvals.yaml",
        "defaults:\n  command: fake/reviewer.sh\n",
    );
    let out = helix_in(repo.path(), &["approve", name]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert_safe(&text);
    assert!(
        text.starts_with(&format!("approved: {name} (type adr)")),
        "{text}"
    );
    assert!(
        text.contains(&format!("summary: fine\\x1b[2J\\n{FORGED}")),
        "{text}"
    );
    assert!(
        text.contains(&format!("warning[style\\x1b[1m] x\\x07: vague\\n{FORGED}")),
        "{text}"
    );
}

#[test]
fn finalize_escapes_the_title_it_shows_in_the_index_row() {
    let root = scratch_repo();
    write(root.path(), "src/lib.rs", "");
    std::fs::create_dir(root.path().join("adr")).unwrap();
    write(
        root.path(),
        "drafts/ADR-x.md",
        good_adr().replace(
            "title: \"Cache parsed rules between hook calls\"",
            &format!("title: \"Cache\\e[2J\\n{FORGED}\""),
        ),
    );
    let out = helix_in(root.path(), &["finalize", "--dry-run", "drafts/ADR-x.md"]);
    let text = stdout(&out);
    assert_eq!(code(&out), 0, "{text}{}", stderr(&out));
    assert_safe(&text);
    // The row escapes Markdown and joins lines itself; the ESC is left to the terminal output.
    assert!(
        text.contains("| [Cache\\x1b\\[2J fake.md:1: info\\[x\\] ok]("),
        "{text}"
    );
}

// ------------------------------------------------------------------ configuration keys on stderr

/// Issue 20: a line break in a configuration key reached stderr raw, so `validate --format
/// github` (as `action.yml` runs it) printed a repository-controlled `::error` workflow
/// command. The key is shown escaped, and no line of stdout or stderr starts a command
/// from the repository's text, in any format.
#[test]
fn a_line_break_in_a_configuration_key_cannot_start_a_workflow_command() {
    let cases = [
        ("config/helix-gate.yaml", "\"a\\n::error::pwned\": 1\n"),
        (
            "config/helix-gate.yaml",
            "adr:\n  \"x\\n  ::warning file=a::pwned\": 1\n",
        ),
        (
            "config/adr-completeness-rules.yaml",
            "\"k\\n::error::pwned\": 1\n",
        ),
    ];
    for (file, text) in cases {
        let repo = scratch_repo();
        write(repo.path(), file, text);
        write(repo.path(), "adr/001-a.md", good_adr());
        for format in ["human", "github", "json", "sarif", "gitlab", "junit"] {
            let out = run(
                repo.path(),
                &["validate", "--format", format, "adr/001-a.md"],
            );
            let (out_text, err_text) = (stdout(&out), stderr(&out));
            assert_eq!(code(&out), 2, "{file} {format}: {out_text}{err_text}");
            for line in out_text.lines().chain(err_text.lines()) {
                assert!(
                    !line.trim_start().starts_with("::"),
                    "{file} {format}: a workflow command: {line:?}"
                );
            }
            assert!(err_text.contains("\\n"), "{file} {format}: {err_text}");
            assert!(err_text.contains("pwned"), "{file} {format}: {err_text}");
        }
    }
}
