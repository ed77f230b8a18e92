//! `helix-gate governs PATH...`: which ADRs govern a file (HELIX `files`, `governs:`
//! globs, comment markers), with status, force and provenance, as text and JSON; in
//! HELIX, MADR and Nygard repositories.

use serde_json::{Value, json};

use crate::support::cli::*;
use crate::support::repo::ScratchRepo;

/// A committed HELIX repository: 001 (Proposed, files.modify src/lib.rs, the fixture),
/// 002 (Accepted, governs src/db/** but not src/db/legacy/**), 003 (Superseded by
/// 004, governs src/api/**), 004 (Accepted), and source files with markers.
fn helix_repo() -> ScratchRepo {
    let repo = ScratchRepo::with_adr();
    repo.write(
        "adr/002-use-a-pool.md",
        "---\nadr_id: \"002\"\ntitle: Use a connection pool\nstatus: Accepted\ngoverns:\n  - \"src/db/**\"\n  - \"!src/db/legacy/**\"\n---\n# ADR-002: Use a connection pool\n",
    );
    repo.write(
        "adr/003-rest.md",
        "---\nadr_id: \"003\"\ntitle: REST handlers\nstatus: Superseded\nsuperseded_by: \"004\"\ngoverns: [\"src/api/**\"]\n---\n# ADR-003: REST handlers\n",
    );
    repo.write(
        "adr/004-grpc.md",
        "---\nadr_id: \"004\"\ntitle: gRPC handlers\nstatus: Accepted\n---\n# ADR-004: gRPC handlers\n",
    );
    repo.write(
        "src/db/pool.rs",
        "// Pool sizing: see ADR-001.\nconst NOTE: &str = \"ADR-004 is not a marker here\";\n/* @adr 003 */\n",
    );
    repo.write("src/db/legacy/old.rs", "fn old() {}\n");
    repo.write("src/api/handler.rs", "fn handle() {}\n");
    repo.commit_all("ADRs and code");
    repo
}

#[test]
fn governs_prints_each_paths_adrs_with_force_and_provenance() {
    let repo = helix_repo();
    let out = repo.helix(&[
        "governs",
        "src/db/pool.rs",
        "src/lib.rs",
        "src/db/legacy/old.rs",
        "src/api/handler.rs",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
src/db/pool.rs: binding
  binding  ADR-002  Use a connection pool (Accepted)  adr/002-use-a-pool.md
           via governs: \"src/db/**\"
  context  ADR-001  Cache parsed rules between hook calls (Proposed)  adr/001-minimal-valid.md
           via marker at src/db/pool.rs:1
  context  ADR-004  gRPC handlers (Accepted)  adr/004-grpc.md
           via successor of ADR-003
  none     ADR-003  REST handlers (Superseded)  adr/003-rest.md
           via marker at src/db/pool.rs:3
src/lib.rs: pending
  pending  ADR-001  Cache parsed rules between hook calls (Proposed)  adr/001-minimal-valid.md
           via files.modify
src/db/legacy/old.rs: no ADR governs it
src/api/handler.rs: binding
  binding  ADR-004  gRPC handlers (Accepted)  adr/004-grpc.md
           via successor of ADR-003
  none     ADR-003  REST handlers (Superseded)  adr/003-rest.md
           via governs: \"src/api/**\"
"
    );
}

#[test]
fn governs_as_json_from_a_subfolder() {
    let repo = helix_repo();
    let out = crate::support::repo::helix_in(
        &repo.join("src"),
        &["governs", "lib.rs", "new/file.rs", "--format", "json"],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc,
        json!({"paths": [
            {"path": "src/lib.rs", "force": "pending", "adrs": [{
                "id": "ADR-001",
                "number": "001",
                "title": "Cache parsed rules between hook calls",
                "status": "Proposed",
                "force": "pending",
                "file": "adr/001-minimal-valid.md",
                "provenance": [{"via": "files.modify"}]
            }]},
            {"path": "src/new/file.rs", "force": "none", "adrs": []}
        ]})
    );
    let out = repo.helix(&["governs", "src/db/pool.rs", "--format", "json"]);
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc["paths"][0]["adrs"][1]["provenance"],
        json!([{"via": "marker", "path": "src/db/pool.rs", "line": 1}])
    );
    assert_eq!(
        doc["paths"][0]["adrs"][0]["provenance"],
        json!([{"via": "governs", "glob": "src/db/**"}])
    );
}

#[test]
fn governs_refuses_a_path_outside_the_repository() {
    let repo = helix_repo();
    let out = repo.helix(&["governs", "../elsewhere.rs"]);
    assert_eq!(code(&out), 2, "{}", stdout(&out));
    assert!(
        stderr(&out).contains("is not inside the repository"),
        "{}",
        stderr(&out)
    );
    assert_eq!(code(&repo.helix(&["governs"])), 2);
    // The repository itself is inside it.
    let out = repo.helix(&["governs", "."]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), ".: no ADR governs it\n");
}

#[test]
fn madr_governs_and_nygard_markers_without_configuration() {
    // MADR, detected in docs/decisions: `governs:` in its YAML front matter.
    let madr = ScratchRepo::empty();
    madr.write(
        "docs/decisions/0001-use-postgres.md",
        "---\nstatus: accepted\ngoverns: [\"db/*.sql\"]\n---\n# Use Postgres\n\n## Context and Problem Statement\n\nx\n",
    );
    madr.write(
        "docs/decisions/0002-use-mysql.md",
        "---\nstatus: rejected\ngoverns: [\"db/*.sql\"]\n---\n# Use MySQL\n\n## Context and Problem Statement\n\nx\n",
    );
    madr.write("db/init.sql", "-- @adr 0002\nSELECT 1;\n");
    madr.commit_all("madr");
    let out = madr.helix(&["governs", "db/init.sql", "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let adrs = &doc["paths"][0]["adrs"];
    assert_eq!(adrs[0]["id"], "ADR-0001");
    assert_eq!(adrs[0]["force"], "binding");
    assert_eq!(adrs[1]["id"], "ADR-0002");
    assert_eq!(adrs[1]["force"], "none");
    assert_eq!(
        adrs[1]["provenance"],
        json!([{"via": "governs", "glob": "db/*.sql"}, {"via": "marker", "path": "db/init.sql", "line": 1}])
    );

    // Nygard (adr-tools), no front matter: only markers link, the status read from `## Status`.
    let nygard = ScratchRepo::empty();
    nygard.write(
        "doc/adr/0001-record-architecture-decisions.md",
        "# 1. Record architecture decisions\n\nDate: 2024-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nx\n",
    );
    nygard.write(
        "app/main.py",
        "print(\"ADR-1\")\n\n# Decided in ADR-0001.\n",
    );
    nygard.commit_all("nygard");
    let out = nygard.helix(&["governs", "app/main.py", "app/other.py"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
app/main.py: context
  context  ADR-0001  Record architecture decisions (Accepted)  doc/adr/0001-record-architecture-decisions.md
           via marker at app/main.py:3
app/other.py: no ADR governs it
"
    );
}

/// ADR-014 with `status` governing `src/**`, forbidding an import of `module`.
fn gateway_adr(status: &str, module: &str) -> String {
    format!(
        "---\nadr_id: \"014\"\ntitle: Outbound HTTP goes through the gateway\nstatus: {status}\ngoverns: [\"src/**\"]\n---\n# ADR-014: Outbound HTTP goes through the gateway\n\n## Decision\n\nAll outbound HTTP goes through app.gateway.\n\n## Enforcement\n\n```yaml\nrules:\n  - id: no-direct-http\n    kind: forbid_import\n    why: \"All outbound HTTP goes through app.gateway.\"\n    modules: [{module}]\n    examples: {{violates: \"import {module}\", passes: \"from app.gateway import client\"}}\n```\n"
    )
}

/// The governing index's cache (`.helix-gate/governs-index`): `validate` over the ADR
/// directory writes it only while an ADR rules code, and a rule edited by hand is
/// the one the next hook call enforces.
#[test]
fn validate_keeps_the_governing_index_cache_and_a_hand_edit_is_seen() {
    let repo = ScratchRepo::new();
    repo.write(
        "config/approvals.yaml",
        "approvals:\n  adr:\n    enabled: false\n",
    );
    repo.write(
        "adr/014-gateway.md",
        gateway_adr("Proposed", "requests").replace("## Enforcement", "## Notes"),
    );
    repo.write("src/app/gateway.py", "client = None\n");
    repo.commit_all("ADR-014, proposed, without rules");
    let index = repo.join(".helix-gate/governs-index");
    // Where the hook never ran, validate adds no data folder.
    repo.helix(&["validate"]);
    assert!(!repo.join(".helix-gate").exists());
    // Where it did (its folder exists), the cache follows the ADRs.
    std::fs::create_dir(repo.join(".helix-gate")).unwrap();
    repo.helix(&["validate"]);
    assert!(
        !index.exists(),
        "a proposed ADR without rules rules nothing"
    );
    assert!(repo.join(".helix-gate/governs-none").is_file());
    repo.write("adr/014-gateway.md", gateway_adr("Accepted", "requests"));
    repo.helix(&["validate", "adr"]);
    assert!(index.is_file(), "an accepted ADR with a rule");
    assert!(!repo.join(".helix-gate/governs-none").exists());

    let root = repo.path();
    crate::support::hook::hook(
        root,
        &json!({"session_id": "s", "transcript_path": "t", "cwd": root,
                "hook_event_name": "SessionStart", "source": "startup"}),
    );
    let save = |content: &str| {
        repo.write("src/api.py", content);
        crate::support::hook::hook(
            root,
            &json!({"session_id": "s", "transcript_path": "t", "cwd": root,
                    "hook_event_name": "PostToolUse", "tool_name": "Write",
                    "tool_input": {"file_path": root.join("src/api.py"), "content": "…"},
                    "tool_response": {"type": "create"}, "tool_use_id": "toolu_1"}),
        )
    };
    let blocked =
        |answer: &Option<Value>| answer.as_ref().is_some_and(|a| a["decision"] == "block");
    assert!(blocked(&save("import requests\n")));
    assert!(!blocked(&save("import urllib3\n")));
    // The rule edited by hand (no helix-gate command in between): the next write
    // is judged by the new rule, not by the cached one.
    repo.write("adr/014-gateway.md", gateway_adr("Accepted", "urllib3"));
    assert!(blocked(&save("import json\nimport urllib3\n")));
    assert!(!blocked(&save("import requests\n")));
    // Rejected by hand: nothing rules code any more, and the cache says so.
    repo.write("adr/014-gateway.md", gateway_adr("Rejected", "urllib3"));
    assert_eq!(save("import json\nimport urllib3\nx = 1\n"), None);
    assert!(!index.exists());
}
