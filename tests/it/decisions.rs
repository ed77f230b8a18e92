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
