//! Front matter rules: present, valid YAML, a map, required fields, status, files, id vs file name.

use super::{Context, RuleMeta};
use crate::adr::{self, Adr, Field, FrontMatterError};
use crate::diagnostic::{Finding, Severity};

pub const MISSING: RuleMeta = RuleMeta {
    id: "front-matter-missing",
    severity: Severity::Error,
    summary: "the ADR does not start with a --- front matter block",
    doc: "## What it does\nRequires the file to start with a YAML front matter block between two `---` lines.\n\n\
## Why\nadr_id, title, status and files live there; without it no other metadata check can run.\n\n\
## Example\n```\n---\nadr_id: \"038\"\ntitle: Response Enforcement\nstatus: Proposed\nfiles:\n  create: []\n  modify: []\n---\n```",
};

pub const UNCLOSED: RuleMeta = RuleMeta {
    id: "front-matter-unclosed",
    severity: Severity::Error,
    summary: "the front matter has an opening --- but no closing ---",
    doc: "## What it does\nReports a front matter block that is opened with `---` but never closed.\n\n\
## Why\nThe whole document would otherwise be read as YAML.\n\n## Fix\nAdd a `---` line after the last front matter field.",
};

pub const INVALID: RuleMeta = RuleMeta {
    id: "front-matter-invalid",
    severity: Severity::Error,
    summary: "the front matter is not valid YAML",
    doc: "## What it does\nParses the front matter as YAML and reports the parser's error with its line.\n\n\
## Why\nInvalid YAML hides every field from every other check.\n\n## Fix\nCorrect the YAML at the reported line (quote values that contain `:` or start with `*`, `&`, `[`).",
};

pub const NOT_A_MAP: RuleMeta = RuleMeta {
    id: "front-matter-not-a-map",
    severity: Severity::Error,
    summary: "the front matter is a list or a scalar instead of key: value fields",
    doc: "## What it does\nRequires the front matter to be a YAML map (`key: value` lines).\n\n\
## Why\nA list or a single value cannot hold adr_id, title, status and files.\n\n## Fix\nWrite the fields as `key: value` lines.",
};

pub const REQUIRED_FIELD: RuleMeta = RuleMeta {
    id: "front-matter-required-field",
    severity: Severity::Error,
    summary: "adr_id, title or status is missing",
    doc: "## What it does\nRequires `adr_id` (string or number), `title` and `status` in the front matter.\n\n\
## Why\nThe index, next-number, finalize and every reviewer rely on them.\n\n\
## Example\n```\nadr_id: \"038\"\ntitle: Deterministic LLM Response Enforcement\nstatus: Proposed\n```",
};

pub const STATUS_INVALID: RuleMeta = RuleMeta {
    id: "status-invalid",
    severity: Severity::Error,
    summary: "status is not Proposed, Accepted, Implemented, Superseded or Rejected",
    doc: "## What it does\nRequires `status` to be one of Proposed, Accepted, Implemented, Superseded, Rejected (any case).\n\n\
## Why\nTools and people filter ADRs by status; a typo makes an ADR invisible.\n\n## Fix\nUse one of the five values.",
};

pub const FILES_INVALID: RuleMeta = RuleMeta {
    id: "files-field-invalid",
    severity: Severity::Error,
    summary: "files is missing, or create/modify/docs are not lists of strings",
    doc: "## What it does\nRequires a `files` map whose optional `create`, `modify` and `docs` entries are lists of paths.\n\n\
## Why\nThe file-reference checks and the implementation phases read them; an ADR that names no files cannot be checked against the repository.\n\n\
## Example\n```\nfiles:\n  create: [src/enforcement/step_marker.rs]\n  modify: [src/main.rs]\n  docs: [docs/enforcement.md]\n```",
};

pub const ID_MISMATCH: RuleMeta = RuleMeta {
    id: "adr-id-file-name-mismatch",
    severity: Severity::Warning,
    summary: "adr_id differs from the number in the file name NNN-slug.md",
    doc: "## What it does\nCompares `adr_id` with the number at the start of a file name like `038-response-enforcement.md`.\n\n\
## Why\nA mismatch means the index and links point at the wrong ADR.\n\n## Fix\nRename the file or correct adr_id (`helix-gate next-number` gives a free number).",
};

pub const RULES: &[&RuleMeta] = &[
    &MISSING,
    &UNCLOSED,
    &INVALID,
    &NOT_A_MAP,
    &REQUIRED_FIELD,
    &STATUS_INVALID,
    &FILES_INVALID,
    &ID_MISMATCH,
];

/// Valid values of `status` (compared case-insensitively).
pub const STATUSES: [&str; 5] = [
    "Proposed",
    "Accepted",
    "Implemented",
    "Superseded",
    "Rejected",
];

pub fn check(adr: &Adr, ctx: &Context<'_>, out: &mut Vec<Finding>) {
    let fm = match &adr.front_matter {
        Ok(fm) => fm,
        Err(FrontMatterError::Missing) => {
            out.push(
                MISSING
                    .finding("no front matter: the file must start with a --- line")
                    .at(1)
                    .hint("add ---, adr_id, title, status and files, then --- before the first heading"),
            );
            return;
        }
        Err(FrontMatterError::Unclosed) => {
            out.push(
                UNCLOSED
                    .finding("front matter opened with --- on line 1 is never closed")
                    .at(1)
                    .hint("add a --- line after the last front matter field"),
            );
            return;
        }
        Err(FrontMatterError::Invalid(err)) => {
            out.push(
                INVALID
                    .finding(format!("front matter is not valid YAML: {}", err.message))
                    .at(err.line.unwrap_or(1))
                    .hint("fix the YAML syntax at this line (quote values containing ':' or starting with '*', '&', '[')"),
            );
            return;
        }
        Err(FrontMatterError::NotAMap(kind)) => {
            out.push(
                NOT_A_MAP
                    .finding(format!(
                        "front matter is {kind}, expected key: value fields"
                    ))
                    .at(2)
                    .hint("write adr_id, title, status and files as key: value lines"),
            );
            return;
        }
    };
    let line_of = |key: &str| fm.key_lines.get(key).copied().unwrap_or(1);
    for (key, field) in [
        ("adr_id", &fm.adr_id),
        ("title", &fm.title),
        ("status", &fm.status),
    ] {
        match field {
            Field::Missing => out.push(
                REQUIRED_FIELD
                    .finding(format!("front matter field `{key}` is missing"))
                    .at(1)
                    .hint(format!("add `{key}:` to the front matter")),
            ),
            Field::Invalid(what) => out.push(
                REQUIRED_FIELD
                    .finding(format!("front matter field `{key}`: {what}"))
                    .at(line_of(key))
                    .hint(format!("write `{key}` as a single value")),
            ),
            Field::Valid(_) => {}
        }
    }
    if let Field::Valid(status) = &fm.status
        && !STATUSES
            .iter()
            .any(|s| s.eq_ignore_ascii_case(status.trim()))
    {
        out.push(
            STATUS_INVALID
                .finding(format!(
                    "status `{status}` is not one of {}",
                    STATUSES.join(", ")
                ))
                .at(line_of("status"))
                .hint("use Proposed for a new ADR"),
        );
    }
    match &fm.files {
        Field::Missing => out.push(
            FILES_INVALID
                .finding("front matter field `files` is missing")
                .at(1)
                .hint("add files: with create/modify/docs lists (empty lists are fine)"),
        ),
        Field::Invalid(what) => out.push(
            FILES_INVALID
                .finding(what.clone())
                .at(line_of("files"))
                .hint("files.create, files.modify and files.docs must be lists of paths"),
        ),
        Field::Valid(_) => {}
    }
    if let (Field::Valid(id), Some(number)) = (&fm.adr_id, adr::number_in_file_name(ctx.path))
        && adr::number_in_id(id) != Some(number)
    {
        out.push(
            ID_MISMATCH
                .finding(format!(
                    "adr_id `{id}` does not match the number {number:03} in the file name"
                ))
                .at(line_of("adr_id"))
                .hint(format!("set adr_id: \"{number:03}\" or rename the file")),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::rules::testing::{GOOD, ids, run};

    fn with_front_matter(fm: &str) -> String {
        let body = GOOD.splitn(3, "---\n").nth(2).unwrap();
        format!("---\n{fm}---\n{body}")
    }

    #[test]
    fn missing_unclosed_invalid_not_a_map() {
        let body = GOOD.splitn(3, "---\n").nth(2).unwrap();
        assert_eq!(ids(&run(body, "x.md", &[])), ["front-matter-missing"]);
        assert_eq!(
            ids(&run("---\nadr_id: 1\n", "x.md", &[]))[0],
            "front-matter-unclosed"
        );
        let f = run(&with_front_matter("adr_id: 1\ntitle: [x\n"), "x.md", &[]);
        assert_eq!(f[0].rule, "front-matter-invalid");
        assert_eq!(f[0].line, Some(4));
        assert_eq!(
            ids(&run(&with_front_matter("- a\n"), "x.md", &[]))[0],
            "front-matter-not-a-map"
        );
        assert_eq!(
            ids(&run(&with_front_matter("just text\n"), "x.md", &[]))[0],
            "front-matter-not-a-map"
        );
    }

    #[test]
    fn required_fields_status_files() {
        let f = run(
            &with_front_matter("title: T\nstatus: Draft\nfiles: {modify: src/lib.rs}\n"),
            "x.md",
            &[],
        );
        assert_eq!(
            ids(&f),
            [
                "front-matter-required-field",
                "status-invalid",
                "files-field-invalid"
            ]
        );
        assert_eq!(f[1].line, Some(3));
        let ok = run(
            &with_front_matter("adr_id: 7\ntitle: T\nstatus: accepted\nfiles: {}\n"),
            "x.md",
            &[],
        );
        assert!(ok.is_empty(), "{ok:#?}");
        let missing_files = run(
            &with_front_matter("adr_id: 7\ntitle: T\nstatus: Proposed\n"),
            "x.md",
            &[],
        );
        assert_eq!(ids(&missing_files), ["files-field-invalid"]);
    }

    #[test]
    fn id_vs_file_name() {
        let fm = "adr_id: \"007\"\ntitle: T\nstatus: Proposed\nfiles: {}\n";
        assert!(run(&with_front_matter(fm), "adr/007-x.md", &[]).is_empty());
        assert!(run(&with_front_matter(fm), "adr/ADR-x.md", &[]).is_empty());
        let f = run(&with_front_matter(fm), "adr/008-x.md", &[]);
        assert_eq!(ids(&f), ["adr-id-file-name-mismatch"]);
        assert_eq!(f[0].severity, crate::diagnostic::Severity::Warning);
    }
}
