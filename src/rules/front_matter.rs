//! Front matter rules: present, valid YAML, a map, required fields, status, files, id vs file name.

use super::Context;
use crate::adr::{self, Adr, Field, FrontMatterError};
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// Requires the file to start with a YAML front matter block between two `---` lines
    /// (unless the rules file sets `document.front_matter_required: false`, as the madr and
    /// nygard presets do).
    ///
    /// ## Why
    /// adr_id, title, status and files live there; without it no other metadata check can run.
    ///
    /// ## Fix
    /// Start the file with the front matter between two `---` lines, as in the example.
    ///
    /// ## Example
    /// ```yaml
    /// ---
    /// adr_id: "038"
    /// title: Response Enforcement
    /// status: Proposed
    /// files:
    ///   create: []
    ///   modify: []
    /// ---
    /// ```
    pub const MISSING {
        id: "front-matter-missing",
        severity: Error,
        category: FrontMatter,
        summary: "the ADR does not start with a --- front matter block",
    }

    /// ## What it does
    /// Reports a front matter block that is opened with `---` but never closed.
    ///
    /// ## Why
    /// The whole document would otherwise be read as YAML.
    ///
    /// ## Fix
    /// Add a `---` line after the last front matter field.
    pub const UNCLOSED {
        id: "front-matter-unclosed",
        severity: Error,
        category: FrontMatter,
        summary: "the front matter has an opening --- but no closing ---",
    }

    /// ## What it does
    /// Parses the front matter as YAML and reports the parser's error with its line.
    ///
    /// ## Why
    /// Invalid YAML hides every field from every other check.
    ///
    /// ## Fix
    /// Correct the YAML at the reported line (quote values that contain `:` or start with `*`, `&`,
    /// `[`).
    pub const INVALID {
        id: "front-matter-invalid",
        severity: Error,
        category: FrontMatter,
        summary: "the front matter is not valid YAML",
    }

    /// ## What it does
    /// Requires the front matter to be a YAML map (`key: value` lines).
    ///
    /// ## Why
    /// A list or a single value cannot hold adr_id, title, status and files.
    ///
    /// ## Fix
    /// Write the fields as `key: value` lines.
    pub const NOT_A_MAP {
        id: "front-matter-not-a-map",
        severity: Error,
        category: FrontMatter,
        summary: "the front matter is a list or a scalar instead of key: value fields",
    }

    /// ## What it does
    /// Requires `adr_id` (string or number), `title` and `status` in the front matter.
    ///
    /// ## Why
    /// The index, next-number, finalize and every reviewer rely on them.
    ///
    /// ## Fix
    /// Add the missing field to the front matter, as in the example.
    ///
    /// ## Example
    /// ```yaml
    /// adr_id: "038"
    /// title: Deterministic LLM Response Enforcement
    /// status: Proposed
    /// ```
    pub const REQUIRED_FIELD {
        id: "front-matter-required-field",
        severity: Error,
        category: FrontMatter,
        summary: "adr_id, title or status is missing",
    }

    /// ## What it does
    /// Requires `status` to be one of Proposed, Accepted, Implemented, Superseded, Rejected (any
    /// case).
    ///
    /// ## Why
    /// Tools and people filter ADRs by status; a typo makes an ADR invisible.
    ///
    /// The values are HELIX's; a rules file's `document.status.values` replaces them (the madr
    /// and nygard presets use their formats' vocabularies and also read a `Status:` line or
    /// the `## Status` section).
    ///
    /// ## Fix
    /// Use one of the five values.
    pub const STATUS_INVALID {
        id: "status-invalid",
        severity: Error,
        category: FrontMatter,
        summary: "status is not Proposed, Accepted, Implemented, Superseded or Rejected",
    }

    /// ## What it does
    /// Requires a `files` map whose optional `create`, `modify` and `docs` entries are lists of
    /// paths.
    ///
    /// ## Why
    /// The file-reference checks and the implementation phases read them; an ADR that names no
    /// files cannot be checked against the repository.
    ///
    /// ## Fix
    /// Write `files:` as a map with `create`, `modify` and `docs` lists (an empty list is `[]`).
    ///
    /// ## Example
    /// ```yaml
    /// files:
    ///   create: [src/enforcement/step_marker.rs]
    ///   modify: [src/main.rs]
    ///   docs: [docs/enforcement.md]
    /// ```
    pub const FILES_INVALID {
        id: "files-field-invalid",
        severity: Error,
        category: FrontMatter,
        summary: "files is missing, or create/modify/docs are not lists of strings",
    }

    /// ## What it does
    /// Compares `adr_id` with the number at the start of a file name like
    /// `038-response-enforcement.md`.
    ///
    /// ## Why
    /// A mismatch means the index and links point at the wrong ADR.
    ///
    /// ## Fix
    /// Rename the file or correct adr_id (`helix-gate next-number` gives a free number).
    pub const ID_MISMATCH {
        id: "adr-id-file-name-mismatch",
        severity: Warning,
        category: FrontMatter,
        summary: "adr_id differs from the number in the file name NNN-slug.md",
    }
}

/// HELIX's values of `status` (compared case-insensitively); a rules file's
/// `document.status.values` replaces them.
pub const STATUSES: [&str; 5] = crate::config::rules_file::HELIX_STATUSES;

/// The finding for front matter that cannot be read at all: no field check can run.
fn unusable(error: &FrontMatterError) -> Finding {
    match error {
        FrontMatterError::Missing => MISSING
            .finding("no front matter: the file must start with a --- line")
            .at(1)
            .hint("add ---, adr_id, title, status and files, then --- before the first heading"),
        FrontMatterError::Unclosed => UNCLOSED
            .finding("front matter opened with --- on line 1 is never closed")
            .at(1)
            .hint("add a --- line after the last front matter field"),
        FrontMatterError::Invalid(err) => INVALID
            .finding(format!("front matter is not valid YAML: {}", err.message))
            .at(err.line.unwrap_or(1))
            .hint("fix the YAML syntax at this line (quote values containing ':' or starting with '*', '&', '[')"),
        FrontMatterError::NotAMap(kind) => NOT_A_MAP
            .finding(format!("front matter is {kind}, expected key: value fields"))
            .at(2)
            .hint("write adr_id, title, status and files as key: value lines"),
        FrontMatterError::TooComplex(err) => super::input::too_complex(err),
    }
}

pub fn check(adr: &Adr, ctx: &Context<'_>, out: &mut Vec<Finding>) {
    let document = &ctx.rules.document;
    let fm = match &adr.front_matter {
        Ok(fm) => Some(fm),
        // MADR and Nygard ADRs may have no front matter at all.
        Err(FrontMatterError::Missing) if !document.front_matter_required => None,
        Err(error) => {
            out.push(unusable(error));
            return;
        }
    };
    let line_of = |key: &str| {
        fm.and_then(|fm| fm.key_lines.get(key).copied())
            .unwrap_or(1)
    };
    for key in &document.required_fields {
        let field = fm.map_or(Field::Missing, |fm| {
            adr::front_matter::text_field(&fm.map, key)
        });
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
    let status = match fm.map(|fm| &fm.status) {
        Some(Field::Valid(status)) => Some((status.clone(), line_of("status"))),
        _ if document.status_in_body => adr.body_status().map(|found| (found.value, found.line)),
        _ => None,
    };
    if let Some((status, line)) = status
        && !document.status_is_valid(&status)
    {
        out.push(
            STATUS_INVALID
                .finding(format!(
                    "status `{status}` is not one of {}",
                    document.statuses.join(", ")
                ))
                .at(line)
                .hint(format!(
                    "use {} for a new ADR",
                    document.statuses.first().map_or("Proposed", String::as_str)
                )),
        );
    }
    let Some(fm) = fm else { return };
    match &fm.files {
        Field::Missing if !document.files_required => {}
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
    fn every_status_is_documented() {
        let doc = super::STATUS_INVALID.doc.to_string();
        for status in super::STATUSES {
            assert!(
                doc.contains(status),
                "the doc of status-invalid lacks {status}"
            );
            assert!(super::STATUS_INVALID.summary.contains(status), "{status}");
        }
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
