//! The book's chapter "Decisions that govern code" (docs/src/decisions.md): its
//! worked example is a real ADR, checked as the chapter says.

use crate::support::cli::*;
use crate::support::repo::ScratchRepo;

const CHAPTER: &str = include_str!("../../docs/src/decisions.md");
const ADR_PATH: &str = "docs/decisions/0014-outbound-http-through-the-gateway.md";

/// The ADR of the worked example: the chapter's four-backtick markdown block.
fn example_adr() -> &'static str {
    let start = CHAPTER.find("````markdown\n").expect("the example ADR") + "````markdown\n".len();
    let len = CHAPTER[start..].find("````\n").expect("its end");
    &CHAPTER[start..start + len]
}

/// The `console` block that follows `$ <command>` in the chapter: its output lines.
fn shown_output(command: &str) -> String {
    let at = CHAPTER
        .find(&format!("$ {command}\n"))
        .unwrap_or_else(|| panic!("the chapter shows `{command}`"));
    let rest = &CHAPTER[at + command.len() + 3..];
    rest[..rest.find("```").expect("the block's end")].to_owned()
}

/// A MADR repository holding the example ADR, the gateway and a module.
fn example_repo() -> ScratchRepo {
    let repo = ScratchRepo::empty();
    repo.write("config/helix-gate.yaml", "preset: madr\n");
    repo.write(ADR_PATH, example_adr());
    repo.write("src/app/gateway/client.py", "import requests\n");
    repo.write("src/app/billing.py", "from app.gateway import client\n");
    repo.commit_all("the gateway decision");
    repo
}

#[test]
fn the_worked_example_validates_and_its_broken_example_fails_as_shown() {
    let repo = example_repo();
    let out = repo.helix(&["validate", "docs/decisions"]);
    assert_eq!(code(&out), 0, "{}{}", stdout(&out), stderr(&out));
    assert_eq!(stdout(&out), "1 file checked: 0 errors, 0 warnings\n");
    // The chapter's misjudged example: `violates: "import json"`.
    let broken =
        example_adr().replace("violates: \"import requests\"", "violates: \"import json\"");
    assert_ne!(broken, example_adr());
    repo.write(ADR_PATH, &broken);
    let out = repo.helix(&["validate", "docs/decisions"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stdout(&out),
        shown_output("helix-gate validate docs/decisions")
    );
}

#[test]
fn the_worked_example_governs_the_modules_but_not_the_gateway() {
    let repo = example_repo();
    let out = repo.helix(&["governs", "src/app/billing.py", "src/app/gateway/client.py"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with("src/app/billing.py: binding\n  binding  ADR-0014  Outbound HTTP goes through the gateway (accepted)"),
        "{text}"
    );
    assert!(text.contains("via governs: \"src/**/*.py\""), "{text}");
    assert!(
        text.ends_with("src/app/gateway/client.py: no ADR governs it\n"),
        "{text}"
    );
}

/// The `text` block that follows `intro` in the chapter.
fn shown_text(intro: &str) -> String {
    let at = CHAPTER
        .find(intro)
        .unwrap_or_else(|| panic!("the chapter says {intro:?}"));
    let rest = &CHAPTER[at..];
    let start = rest.find("```text\n").expect("a text block") + "```text\n".len();
    let len = rest[start..].find("```").expect("its end");
    rest[start..start + len].to_owned()
}

#[test]
fn the_session_of_the_worked_example_answers_as_the_chapter_shows() {
    use crate::support::hook::hook;
    use serde_json::json;
    let repo = example_repo();
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo.commit_all("no reviewer");
    let root = repo.path();
    let event = |kind: &str| {
        json!({"session_id": "s", "transcript_path": "t", "cwd": root, "hook_event_name": kind,
               "tool_name": "Write",
               "tool_input": {"file_path": root.join("src/app/billing.py"), "content": "…"},
               "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"})
    };
    hook(
        root,
        &json!({"session_id": "s", "cwd": root, "hook_event_name": "SessionStart", "source": "startup"}),
    );
    let before = hook(root, &event("PreToolUse")).expect("the governing decisions");
    assert_eq!(
        before["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap_or_default(),
        shown_text("hook's PreToolUse hands it the decisions")
    );
    repo.write(
        "src/app/billing.py",
        "import requests\nfrom app.gateway import client\n\ndef charge():\n    time.sleep(2)\n",
    );
    let after = hook(root, &event("PostToolUse")).expect("a block");
    assert_eq!(after["decision"], "block");
    assert_eq!(
        format!("{}\n", after["reason"].as_str().unwrap_or_default()),
        shown_text("PostToolUse blocks the")
    );
}
