//! `helix-gate list`: the ADRs of the ADR directory with number, title and status,
//! as a table and as JSON.

use serde_json::{Value, json};

use crate::support::cli::*;

/// A repository with three MADR ADRs, written out of order: a status in front
/// matter, one in a MADR 2 `* Status:` bullet, and none.
fn three_adrs() -> tempfile::TempDir {
    let repo = scratch_repo();
    write(repo.path(), "config/helix-gate.yaml", "preset: madr\n");
    write(
        repo.path(),
        "docs/decisions/0002-use-postgres.md",
        "# Use Postgres\n\n* Status: proposed\n\n## Context and Problem Statement\n\nx\n",
    );
    write(
        repo.path(),
        "docs/decisions/0001-record-decisions.md",
        "---\nstatus: accepted\n---\n# Record decisions\n\n## Context and Problem Statement\n\nx\n",
    );
    write(
        repo.path(),
        "docs/decisions/0010-cache-rules.md",
        "# Cache rules\n\n## Context and Problem Statement\n\nx\n",
    );
    repo
}

#[test]
fn list_prints_number_title_and_status_as_a_table() {
    let repo = three_adrs();
    let out = run(repo.path(), &["list"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "\
NUMBER  TITLE             STATUS    FILE
0001    Record decisions  accepted  docs/decisions/0001-record-decisions.md
0002    Use Postgres      proposed  docs/decisions/0002-use-postgres.md
0010    Cache rules       -         docs/decisions/0010-cache-rules.md
"
    );
}

#[test]
fn list_as_json() {
    let repo = three_adrs();
    let out = run(repo.path(), &["list", "--format", "json"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        doc,
        json!({
            "directory": "docs/decisions",
            "adrs": [
                {"number": "0001", "title": "Record decisions", "status": "accepted", "path": "docs/decisions/0001-record-decisions.md"},
                {"number": "0002", "title": "Use Postgres", "status": "proposed", "path": "docs/decisions/0002-use-postgres.md"},
                {"number": "0010", "title": "Cache rules", "status": null, "path": "docs/decisions/0010-cache-rules.md"},
            ]
        })
    );
}

#[test]
fn list_without_an_adr_directory_is_an_error() {
    let repo = scratch_repo();
    let out = run(repo.path(), &["list"]);
    assert_eq!(code(&out), 2);
    assert!(
        stderr(&out).contains("no ADR directory"),
        "{}",
        stderr(&out)
    );
}
