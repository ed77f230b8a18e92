//! The rules of accepted ADRs at commit and in CI (issue 31, part 5): `helix-gate
//! pre-commit` on the staged diff, `helix-gate check --base` on a branch, a person's
//! `helix-gate override` of one rule for one commit, all on real git repositories.

use serde_json::{Value, json};

use crate::support::cli::{code, stderr, stdout};
use crate::support::hook::Hook;
use crate::support::repo::ScratchRepo;

const ADR_FILE: &str = "adr/014-gateway.md";
const RULE: &str = "ADR-014/no-direct-http";

pub(crate) const NO_HTTP: &str = r#"  - id: no-direct-http
    kind: forbid_import
    why: "All outbound HTTP goes through app.gateway."
    modules: [requests]
    examples: {violates: "import requests", passes: "from app.gateway import client"}
"#;

const NO_HTTP_CLIENTS: &str = r#"  - id: no-http-clients
    kind: forbid_dependency
    why: "No HTTP client library besides the gateway's."
    packages: [reqwest, axios]
    paths: ["Cargo.toml", "package.json"]
"#;

const SCHEMA_DOCS: &str = r#"  - id: schema-documented
    kind: require_co_change
    why: "The schema is documented where it changes."
    paths: ["src/schema/**"]
    with: ["docs/schema.md"]
"#;

/// ADR 14 with `status` and the rules `rules` (YAML list items).
pub(crate) fn adr(status: &str, rules: &str) -> String {
    format!(
        "---\nadr_id: 14\nstatus: {status}\ngoverns: [\"src/**\"]\n---\n# 14. Outbound HTTP goes through the gateway\n\n## Decision\n\nAll outbound HTTP goes through app.gateway.\n\n## Enforcement\n\n```yaml\nrules:\n{rules}```\n"
    )
}

/// A repository whose first commit holds ADR 14 (`status`, `rules`) and `src/app.py`.
fn repo_with(status: &str, rules: &str) -> ScratchRepo {
    let repo = ScratchRepo::empty();
    repo.write(ADR_FILE, adr(status, rules));
    repo.write("src/app.py", "import os\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "base"]);
    repo
}

fn stage(repo: &ScratchRepo, path: &str, text: &str) {
    repo.write(path, text);
    repo.git(&["add", "-A"]);
}

#[test]
fn a_commit_adding_a_forbidden_import_is_refused_with_the_rule_named() {
    let repo = repo_with("Accepted", NO_HTTP);
    stage(&repo, "src/api.py", "import os\nimport requests\n");
    let out = repo.pre_commit();
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert!(
        err.contains("src/api.py:2: error[ADR-014/no-direct-http] imports `requests`"),
        "{err}"
    );
    assert!(
        err.contains("All outbound HTTP goes through app.gateway."),
        "{err}"
    );
    assert!(
        err.contains("helix-gate: commit blocked: 1 staged file breaks a rule of an accepted ADR")
            && err.contains(&format!("`helix-gate override {RULE} --reason \"...\"`")),
        "{err}"
    );
    // Outside the ADR's scope the same import is not its business.
    std::fs::remove_file(repo.join("src/api.py")).unwrap();
    stage(&repo, "tools/api.py", "import requests\n");
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

/// The commit is judged by its own ADRs: a rule weakened in the work tree and left
/// unstaged lets nothing through, and a rule the commit stages applies to it.
#[test]
fn the_rules_of_the_staged_adrs_judge_the_commit_not_the_work_tree() {
    let repo = repo_with("Accepted", NO_HTTP);
    stage(&repo, "src/api.py", "import requests\n");
    // The ADR's rule made harmless in the work tree only.
    repo.write(
        ADR_FILE,
        adr(
            "Accepted",
            &NO_HTTP.replace("[requests]", "[nothing_at_all]"),
        ),
    );
    let out = repo.pre_commit();
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert!(
        err.contains("error[ADR-014/no-direct-http] imports `requests`"),
        "{err}"
    );
    // The other way round: the work tree drops the rule, the commit adds one.
    let repo = repo_with("Accepted", NO_HTTP);
    repo.write(
        ADR_FILE,
        adr("Accepted", &format!("{NO_HTTP}{NO_HTTP_CLIENTS}")),
    );
    repo.git(&["add", ADR_FILE]);
    stage(&repo, "Cargo.toml", "[dependencies]\nreqwest = \"0.12\"\n");
    repo.write(ADR_FILE, adr("Accepted", NO_HTTP));
    let out = repo.pre_commit();
    let err = stderr(&out);
    assert!(err.contains("error[ADR-014/no-http-clients]"), "{err}");
}

#[test]
fn the_model_in_claude_code_reads_what_to_do_and_not_the_override() {
    let repo = repo_with("Accepted", NO_HTTP);
    stage(&repo, "src/api.py", "import requests\n");
    let out = crate::support::repo::in_repo(crate::support::cli::bin(), repo.path())
        .arg("pre-commit")
        .env("CLAUDECODE", "1")
        .output()
        .unwrap();
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert!(
        err.contains(
            "helix-gate blocked this commit: 1 error of the rules of accepted ADRs in 1 staged file"
        ) && err.contains("- src/api.py:1 [ADR-014/no-direct-http] imports `requests`")
            && err.contains("an override is only the user's to give"),
        "{err}"
    );
    assert!(!err.contains("--no-verify"), "{err}");
}

#[test]
fn an_import_the_file_already_had_is_not_this_commits_doing() {
    let repo = ScratchRepo::empty();
    repo.write("src/legacy.py", "import requests\n");
    repo.write(ADR_FILE, adr("Accepted", NO_HTTP));
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "base"]);
    stage(
        &repo,
        "src/legacy.py",
        "import requests\n\ndef f():\n    return 1\n",
    );
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("ADR-014"), "{}", stderr(&out));
}

#[test]
fn a_dependency_added_to_a_manifest_is_refused() {
    let repo = repo_with("Accepted", NO_HTTP_CLIENTS);
    repo.write(
        "Cargo.toml",
        "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\n",
    );
    repo.write("package.json", "{\"dependencies\": {\"react\": \"18\"}}\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "manifests"]);
    stage(
        &repo,
        "Cargo.toml",
        "[package]\nname = \"x\"\n\n[dependencies]\nserde = \"1\"\nreqwest = \"0.12\"\n",
    );
    let out = repo.pre_commit();
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert!(
        err.contains("Cargo.toml:6: error[ADR-014/no-http-clients]"),
        "{err}"
    );
    repo.git(&["checkout", "-q", "HEAD", "--", "Cargo.toml"]);
    stage(
        &repo,
        "package.json",
        "{\"dependencies\": {\"react\": \"18\", \"axios\": \"1\"}}\n",
    );
    let out = repo.pre_commit();
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert!(err.contains("package.json"), "{err}");
    assert!(err.contains("error[ADR-014/no-http-clients]"), "{err}");
    // A manifest change that adds none of them passes.
    stage(
        &repo,
        "package.json",
        "{\"dependencies\": {\"react\": \"19\"}}\n",
    );
    assert_eq!(code(&repo.pre_commit()), 0);
}

#[test]
fn a_co_change_is_required_at_commit() {
    let repo = repo_with("Accepted", SCHEMA_DOCS);
    stage(&repo, "src/schema/user.sql", "create table u (id int);\n");
    let out = repo.pre_commit();
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert!(
        err.contains("src/schema/user.sql: error[ADR-014/schema-documented] changes `src/schema/user.sql` without a change under `docs/schema.md`"),
        "{err}"
    );
    stage(&repo, "docs/schema.md", "# Schema\n\nu: the users.\n");
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn a_proposed_adr_only_warns_and_a_superseded_one_binds_nothing() {
    let repo = repo_with("Proposed", NO_HTTP);
    stage(&repo, "src/api.py", "import requests\n");
    let out = repo.pre_commit();
    let err = stderr(&out);
    assert_eq!(code(&out), 0, "{err}");
    assert!(err.contains("warning[ADR-014/no-direct-http]"), "{err}");
    assert!(
        err.contains("[proposed: a warning until it is accepted]"),
        "{err}"
    );
    assert!(!err.contains("commit blocked"), "{err}");

    let repo = repo_with("Superseded", NO_HTTP);
    stage(&repo, "src/api.py", "import requests\n");
    let out = repo.pre_commit();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(!stderr(&out).contains("ADR-014"), "{}", stderr(&out));
}

/// `git commit` in `repo` with the installed pre-commit hook.
fn commit(repo: &ScratchRepo, message: &str) -> std::process::Output {
    repo.git_out(&["commit", "-q", "-m", message])
}

#[test]
fn an_override_lets_exactly_one_commit_through_and_is_logged_and_reported() {
    let repo = repo_with("Accepted", NO_HTTP);
    let out = repo.helix(&["install", "git"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    stage(&repo, "src/api.py", "import requests\n");
    let out = commit(&repo, "direct http");
    assert_ne!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("error[ADR-014/no-direct-http]"));

    // Not from inside an agent's session; not without a reason; not for an unknown rule.
    let out = crate::support::repo::in_repo(crate::support::cli::bin(), repo.path())
        .args(["override", RULE, "--reason", "x"])
        .env("CLAUDECODE", "1")
        .output()
        .unwrap();
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("refused inside an agent's session"),
        "{}",
        stderr(&out)
    );
    let out = repo.helix(&["override", RULE, "--reason", "  "]);
    assert_eq!(code(&out), 2, "{}", stderr(&out));
    let out = repo.helix(&["override", "ADR-014/no-such-rule", "--reason", "x"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains(&format!("known: {RULE}")),
        "{}",
        stderr(&out)
    );

    let out = crate::support::repo::in_repo(crate::support::cli::bin(), repo.path())
        .args(["override", RULE, "--reason", "the gateway is down; hotfix"])
        .env("USER", "alice")
        .output()
        .unwrap();
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = commit(&repo, "hotfix");
    let err = stderr(&out);
    assert_eq!(code(&out), 0, "{err}");
    assert!(
        err.contains("src/api.py:1: info[ADR-014/no-direct-http] overridden by alice: the gateway is down; hotfix"),
        "{err}"
    );

    // Used up: the next commit with the same break is refused again.
    stage(&repo, "src/other.py", "import requests.adapters\n");
    let out = commit(&repo, "again");
    assert_ne!(code(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("src/other.py:1: error[ADR-014/no-direct-http]"));

    let log = repo.read(".helix-gate/log.jsonl").unwrap();
    let decisions: Vec<Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let overrides: Vec<&Value> = decisions
        .iter()
        .filter(|d| d["verdict"] == "override")
        .collect();
    assert_eq!(overrides.len(), 1, "{log}");
    assert_eq!(overrides[0]["rules"], json!([RULE]));
    assert_eq!(overrides[0]["target"], "src/api.py");
    assert_eq!(
        overrides[0]["note"],
        "overridden by alice: the gateway is down; hotfix"
    );

    let out = repo.helix(&["report", "--out", "-"]);
    let page = stdout(&out);
    assert!(
        page.contains("<tr><td>ADR-014</td><td>2</td><td>2</td><td>1</td></tr>"),
        "{page}"
    );
    assert!(page.contains("rule override"), "{page}");
    let out = repo.helix(&["stats", "--format", "json"]);
    let stats: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        stats["adr_rules"],
        json!([{"adr": "ADR-014", "findings": 2, "blocks": 2, "overrides": 1}])
    );
}

/// A branch `feature` off `main` that adds a forbidden import (committed) and a
/// file that breaks nothing (untracked); `main` has moved on with a break of its own.
fn branch_repo() -> ScratchRepo {
    let repo = repo_with("Accepted", NO_HTTP);
    repo.write(
        "adr/003-http-client.md",
        "---\nadr_id: 3\nstatus: Superseded by ADR-014\ngoverns: [\"src/**\"]\n---\n# 3. Every module calls HTTP itself\n\n## Decision\n\nUse requests.\n",
    );
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "history"]);
    repo.git(&["checkout", "-q", "-b", "feature"]);
    repo.write("src/api.py", "import os\nimport requests\n");
    repo.git(&["add", "-A"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "api"]);
    repo.write("src/notes.py", "# see ADR-014\nimport json\n");
    repo.git(&["checkout", "-q", "main"]);
    repo.write("src/main_only.py", "import requests\n");
    repo.git(&["add", "src/main_only.py"]);
    repo.git(&["commit", "-q", "--no-verify", "-m", "main moves on"]);
    repo.git(&["checkout", "-q", "feature"]);
    repo
}

#[test]
fn check_judges_a_branch_against_its_base_in_every_format() {
    let repo = branch_repo();
    for (format, says) in [
        ("human", "src/api.py:2: error[ADR-014/no-direct-http]"),
        ("json", "\"rule\": \"ADR-014/no-direct-http\""),
        ("sarif", "\"ruleId\": \"ADR-014/no-direct-http\""),
        ("github", "::error file=src/api.py,line=2"),
        ("gitlab", "ADR-014/no-direct-http"),
        ("junit", "ADR-014/no-direct-http"),
        ("markdown", "## Decisions governing this change"),
    ] {
        let out = repo.helix(&["check", "--base", "main", "--format", format]);
        let text = stdout(&out);
        assert_eq!(code(&out), 1, "{format}: {text}{}", stderr(&out));
        assert!(text.contains(says), "{format}: {text}");
        // What main gained since the branch left it is not the branch's doing.
        assert!(!text.contains("main_only"), "{format}: {text}");
        assert!(
            stderr(&out).starts_with("helix-gate check: 2 files changed since main ("),
            "{}",
            stderr(&out)
        );
    }
    let out = repo.helix(&["check", "--base", "main", "--format", "markdown"]);
    let base = repo.git(&["merge-base", "main", "feature"]);
    let text = stdout(&out).replace(&base[..12], "<base>");
    insta::assert_snapshot!("check_markdown", text);

    // Fixed in the working tree (not yet committed): the check passes.
    repo.write("src/api.py", "import os\nfrom app.gateway import client\n");
    let out = repo.helix(&["check", "--base", "main"]);
    assert_eq!(code(&out), 0, "{}", stdout(&out));

    // Without --base and without an upstream: the changes since HEAD.
    let out = repo.helix(&["check", "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("changed since HEAD"),
        "{}",
        stderr(&out)
    );
    let out = repo.helix(&["check", "--base", "no-such-branch"]);
    assert_eq!(code(&out), 2);
    assert!(stderr(&out).contains("names no commit"), "{}", stderr(&out));
}

#[test]
fn check_honours_no_override() {
    let repo = branch_repo();
    let out = repo.helix(&["override", RULE, "--reason", "hotfix"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = repo.helix(&["check", "--base", "main"]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
}

#[test]
fn the_model_asking_for_an_override_is_put_to_the_person() {
    let repo = ScratchRepo::empty();
    repo.write("config/helix-gate.yaml", "hook: {budget: 3}\n");
    repo.write("README.md", "# r\n");
    repo.commit_all("base");
    let command = format!("helix-gate override {RULE} --reason 'it is fine'");
    let event = json!({"session_id": "s1", "transcript_path": "t", "cwd": repo.path(),
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "toolu_1"});
    let answer = Hook::new(repo.path())
        .event(&event)
        .answer()
        .expect("an answer");
    let output = &answer["hookSpecificOutput"];
    assert_eq!(output["permissionDecision"], "ask", "{answer}");
    let reason = output["permissionDecisionReason"].as_str().unwrap();
    assert!(
        reason.contains("overrides a rule of an accepted ADR") && reason.contains("Ask the user"),
        "{reason}"
    );
    let codex = json!({"session_id": "s1", "turn_id": "t1", "transcript_path": "t", "cwd": repo.path(),
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": command}, "tool_use_id": "call_1"});
    let answer = Hook::new(repo.path())
        .args(&["--agent", "codex"])
        .event(&codex)
        .answer()
        .expect("an answer");
    assert_eq!(
        answer["hookSpecificOutput"]["permissionDecision"], "deny",
        "{answer}"
    );
    // Checking a branch is anyone's.
    let event = json!({"session_id": "s1", "transcript_path": "t", "cwd": repo.path(),
        "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": "helix-gate check --base main"}, "tool_use_id": "toolu_2"});
    assert_eq!(Hook::new(repo.path()).event(&event).answer(), None);
}
