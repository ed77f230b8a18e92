//! The index rules: `INDEX.md` compared with the ADRs of its directory (a table
//! exists, every ADR has one row, every row names an existing ADR, and a row's
//! number, title, status and link agree with the ADR's front matter).

use crate::adr::catalog::Catalog;
use crate::adr::index_table::{Column, INDEX_FILE, Row, Table, find};
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// Looks for `INDEX.md` in the ADR directory and, in it, for a table whose header has a number
    /// column (`Nr`, `Number`, `#`, `ADR`) and a title column (`Title`, `Titel`).
    ///
    /// ## Why
    /// The consultant and readers find ADRs and the next free number through the index; without a
    /// table nothing can be checked or added.
    ///
    /// ## Example
    /// ```markdown
    /// | Nr | Titel | Status | Beschreibung |
    /// |----|-------|--------|--------------|
    /// | 038 | [Response Enforcement](038-response-enforcement.md) | Proposed | ... |
    /// ```
    ///
    /// ## Fix
    /// `helix-gate index --write` appends a table (or creates INDEX.md) with a row for every ADR.
    pub const TABLE_MISSING {
        id: "index-table-missing",
        severity: Error,
        category: Index,
        summary: "the ADR directory has no INDEX.md, or INDEX.md has no ADR table",
    }

    /// ## What it does
    /// Reports every ADR file in the ADR directory that no INDEX.md row links to (or, for rows
    /// without a link, names by number).
    ///
    /// ## Why
    /// An ADR missing from the index is invisible to readers and to the consultant's numbering.
    ///
    /// ## Fix
    /// `helix-gate index --write`, or add `| NNN | [Title](NNN-slug.md) | Status | summary |` by
    /// hand.
    pub const ROW_MISSING {
        id: "index-row-missing",
        severity: Error,
        category: Index,
        summary: "an ADR of the ADR directory has no row in INDEX.md",
    }

    /// ## What it does
    /// Reports INDEX.md rows whose link names a file that does not exist (or is not an ADR of the
    /// directory), and rows without a link whose number no ADR has. The git pre-commit check
    /// asks the commit's tree (the index), not the work tree, whenever the commit changes
    /// INDEX.md or removes an ADR of the directory: a row for an ADR that exists only in the
    /// work tree (not staged) or that the commit deletes is dangling there too.
    ///
    /// ## Why
    /// A dead row sends readers to nothing and hides that an ADR was renamed or deleted. A
    /// commit that adds a row for an ADR it does not contain records a decision nobody can
    /// read.
    ///
    /// ## Fix
    /// Correct the link, restore the ADR, or remove the row (`helix-gate index --write` drops it);
    /// in a commit, `git add` the ADR the row names.
    pub const ROW_DANGLING {
        id: "index-row-dangling",
        severity: Error,
        category: Index,
        summary: "an INDEX.md row points at no ADR file",
    }

    /// ## What it does
    /// Compares each row with the front matter of the ADR it links to: the number with `adr_id`,
    /// the title with `title` (ignoring case and spacing), the status with `status` (its first
    /// word), and reports a row without a link.
    ///
    /// ## Why
    /// The index is read instead of the ADRs; a stale status or title there is a wrong statement
    /// about the decision.
    ///
    /// ## Fix
    /// `helix-gate index --write` regenerates the rows from the front matter (summaries and extra
    /// columns are kept).
    pub const ROW_MISMATCH {
        id: "index-row-mismatch",
        severity: Error,
        category: Index,
        summary: "an INDEX.md row's number, title, status or link disagrees with its ADR",
    }

    /// ## What it does
    /// Reports a row that links to (or names by number) an ADR that an earlier row already lists.
    ///
    /// ## Why
    /// Two rows for one decision drift apart; one of them is always stale.
    ///
    /// ## Fix
    /// Remove one row, or run `helix-gate index --write`.
    pub const ROW_DUPLICATE {
        id: "index-row-duplicate",
        severity: Error,
        category: Index,
        summary: "two INDEX.md rows point at the same ADR",
    }
}

/// How a row relates to the ADRs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    /// The row lists this entry (found by link, or by number when it has no link).
    Entry { index: usize, by_link: bool },
    /// The link names a file that is missing or no ADR of the directory.
    BrokenLink { dest: String, exists: bool },
    /// No link, and no ADR has the row's number.
    UnknownNumber(u32),
    /// Neither a link nor a number.
    Unnamed,
}

/// How `row` relates to the ADRs of `catalog`; `index --write` uses it too, to
/// keep the summary and extra columns of the row that listed an ADR.
pub fn resolve(table: &Table, row: &Row, catalog: &Catalog) -> Resolution {
    if let Some(dest) = table.row_link(row) {
        let decoded = dest.replace("%20", " ");
        let path = catalog.dir.join(&decoded);
        return match catalog.find_path(&path) {
            Some(index) => Resolution::Entry {
                index,
                by_link: true,
            },
            None => Resolution::BrokenLink {
                dest: dest.to_owned(),
                exists: path.exists(),
            },
        };
    }
    match table.row_number(row) {
        Some(number) => catalog
            .entries
            .iter()
            .position(|e| e.number() == Some(number))
            .map_or(Resolution::UnknownNumber(number), |index| {
                Resolution::Entry {
                    index,
                    by_link: false,
                }
            }),
        None => Resolution::Unnamed,
    }
}

/// Case- and spacing-insensitive text comparison (titles).
fn same_text(a: &str, b: &str) -> bool {
    let norm = |s: &str| {
        s.split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
    };
    norm(a) == norm(b)
}

/// A status cell agrees when its first word is the status (`✅ Accepted`, `Superseded by 040`).
fn same_status(cell: &str, status: &str) -> bool {
    cell.split(|c: char| !c.is_alphabetic())
        .find(|w| !w.is_empty())
        .is_some_and(|w| w.eq_ignore_ascii_case(status.trim()))
}

/// Every disagreement between INDEX.md (`text`, None when the file is missing) and
/// the ADRs of `catalog`.
pub fn check(text: Option<&str>, catalog: &Catalog) -> Vec<Finding> {
    let Some(text) = text else {
        if catalog.entries.is_empty() {
            return Vec::new();
        }
        return vec![
            TABLE_MISSING
                .finding(format!(
                    "{INDEX_FILE} does not exist; {} not listed",
                    match catalog.entries.len() {
                        1 => "1 ADR is".to_owned(),
                        n => format!("{n} ADRs are"),
                    }
                ))
                .hint("run `helix-gate index --write` to create it"),
        ];
    };
    let Some(table) = find(text) else {
        return vec![
            TABLE_MISSING
                .finding("no ADR table: no table has a number column (Nr, Number, #, ADR) and a title column (Title, Titel)")
                .at(1)
                .hint("run `helix-gate index --write` to append one with a row for every ADR"),
        ];
    };
    let mut out = Vec::new();
    let mut listed: Vec<Option<usize>> = vec![None; catalog.entries.len()];
    for row in &table.rows {
        let shown = table
            .row_number(row)
            .map_or_else(|| format!("line {}", row.line), |n| catalog.format(n));
        match resolve(&table, row, catalog) {
            Resolution::BrokenLink { dest, exists } => out.push(
                ROW_DANGLING
                    .finding(if exists {
                        format!("row {shown} links to `{dest}`, which is not an ADR of the ADR directory")
                    } else {
                        format!("row {shown} links to `{dest}`, which does not exist")
                    })
                    .at(row.line)
                    .hint("correct the link, restore the ADR, or remove the row"),
            ),
            Resolution::UnknownNumber(n) => out.push(
                ROW_DANGLING
                    .finding(format!(
                        "row {} has no link and no ADR has number {}",
                        shown,
                        catalog.format(n)
                    ))
                    .at(row.line)
                    .hint("add the link to the ADR file, or remove the row"),
            ),
            Resolution::Unnamed => out.push(
                ROW_DANGLING
                    .finding("row names no ADR: it has neither a number nor a link")
                    .at(row.line)
                    .hint("add `| NNN | [Title](NNN-slug.md) | Status | summary |` or remove the row"),
            ),
            Resolution::Entry { index, by_link } => {
                if let Some(first) = listed[index] {
                    out.push(
                        ROW_DUPLICATE
                            .finding(format!(
                                "{} is already listed on line {first}",
                                catalog.entries[index].link
                            ))
                            .at(row.line)
                            .hint("remove one of the rows"),
                    );
                    continue;
                }
                listed[index] = Some(row.line);
                compare(&table, row, catalog, index, by_link, &mut out);
            }
        }
    }
    for (entry, line) in catalog.entries.iter().zip(&listed) {
        if line.is_none() {
            let number = entry
                .number()
                .map(|n| format!(" (ADR {})", catalog.format(n)))
                .unwrap_or_default();
            out.push(
                ROW_MISSING
                    .finding(format!("{}{number} has no row in {INDEX_FILE}", entry.link))
                    .at(table.line)
                    .hint("run `helix-gate index --write`, or add its row by hand"),
            );
        }
    }
    out
}

/// The rows of INDEX.md (`text`) that name no ADR of a commit's tree (`catalog`: the
/// ADRs of the directory in the index), as [`ROW_DANGLING`] findings. `in_work_tree`
/// says whether a link (relative to the ADR directory) names a file of the work tree,
/// so the message can say that it is not staged. No table: nothing to report here.
pub fn dangling_in_commit(
    text: &str,
    catalog: &Catalog,
    in_work_tree: &dyn Fn(&str) -> bool,
) -> Vec<Finding> {
    let Some(table) = find(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for row in &table.rows {
        let shown = table
            .row_number(row)
            .map_or_else(|| format!("line {}", row.line), |n| catalog.format(n));
        let finding = match resolve(&table, row, catalog) {
            Resolution::Entry { .. } => continue,
            Resolution::BrokenLink { dest, .. } => {
                let decoded = dest.replace("%20", " ");
                if in_work_tree(&decoded) {
                    ROW_DANGLING
                        .finding(format!(
                            "row {shown} links to `{dest}`, which the commit does not contain: it is in the work tree, but not staged"
                        ))
                        .hint(format!("`git add` the ADR `{dest}`, or remove the row"))
                } else {
                    ROW_DANGLING
                        .finding(format!(
                            "row {shown} links to `{dest}`, which is no ADR of the commit"
                        ))
                        .hint("correct the link, stage the ADR it names, or remove the row")
                }
            }
            Resolution::UnknownNumber(n) => ROW_DANGLING
                .finding(format!(
                    "row {shown} has no link and no ADR of the commit has number {}",
                    catalog.format(n)
                ))
                .hint("add the link to the ADR file and stage it, or remove the row"),
            Resolution::Unnamed => ROW_DANGLING
                .finding("row names no ADR: it has neither a number nor a link")
                .hint("add `| NNN | [Title](NNN-slug.md) | Status | summary |` or remove the row"),
        };
        out.push(finding.at(row.line));
    }
    out
}

/// Findings for a row that lists the catalog's entry `index`.
fn compare(
    table: &Table,
    row: &Row,
    catalog: &Catalog,
    index: usize,
    by_link: bool,
    out: &mut Vec<Finding>,
) {
    let entry = &catalog.entries[index];
    let hint = "run `helix-gate index --write` to regenerate the rows from the front matter";
    let expected = entry.number();
    let found = table.row_number(row);
    if let Some(expected) = expected
        && found != Some(expected)
    {
        let cell = table
            .cell(row, Column::Number)
            .map(|c| c.text.trim())
            .unwrap_or_default();
        out.push(
            ROW_MISMATCH
                .finding(format!(
                    "row for {} has number `{cell}`, the ADR's adr_id is {}",
                    entry.link,
                    catalog.format(expected)
                ))
                .at(row.line)
                .hint(hint),
        );
    }
    if let (Some(title), Some(cell)) = (entry.title(), table.cell(row, Column::Title))
        && !same_text(&cell.text, title)
    {
        out.push(
            ROW_MISMATCH
                .finding(format!(
                    "row for {} has title \"{}\", the ADR's title is \"{title}\"",
                    entry.link,
                    cell.text.trim()
                ))
                .at(row.line)
                .hint(hint),
        );
    }
    if let (Some(status), Some(cell)) = (entry.status(), table.cell(row, Column::Status))
        && !same_status(&cell.text, status)
    {
        out.push(
            ROW_MISMATCH
                .finding(format!(
                    "row for {} has status \"{}\", the ADR's status is {status}",
                    entry.link,
                    cell.text.trim()
                ))
                .at(row.line)
                .hint(hint),
        );
    }
    if !by_link {
        out.push(
            ROW_MISMATCH
                .finding(format!("row for {} has no link to it", entry.link))
                .at(row.line)
                .hint(format!("write the title as [Title]({})", entry.link)),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adr::catalog::Entry;
    use crate::adr::{self, Adr};
    use std::path::{Path, PathBuf};

    /// A directory that does not exist, so no link can resolve to a real file.
    const DIR: &str = "/nonexistent-helix-gate-test/adr";

    fn catalog(adrs: &[(&str, &str)]) -> Catalog {
        let entries = adrs
            .iter()
            .map(|(link, text)| Entry {
                path: Path::new(DIR).join(link),
                link: (*link).to_owned(),
                file_number: adr::number_in_file_name(Path::new(link)),
                adr: Some(Adr::parse(text)),
            })
            .collect();
        Catalog {
            dir: PathBuf::from(DIR),
            entries,
            width: 3,
            reserved: Vec::new(),
        }
    }

    fn rules(findings: &[Finding]) -> Vec<(&str, Option<usize>)> {
        findings.iter().map(|f| (f.rule.as_str(), f.line)).collect()
    }

    #[test]
    #[cfg_attr(windows, ignore = "under investigation on Windows (issue 33)")]
    fn rows_in_a_commit_name_adrs_of_the_commit() {
        let one = catalog(&[(
            "001-a.md",
            "---\nadr_id: 1\ntitle: A\nstatus: Proposed\n---\n",
        )]);
        let text = "| Nr | Titel |\n|---|---|\n| 001 | [A](001-a.md) |\n| 002 | [B](002-b.md) |\n| 003 | [C](003-c.md) |\n| 004 | D |\n";
        let on_disk = |link: &str| link == "003-c.md";
        let found = dangling_in_commit(text, &one, &on_disk);
        assert_eq!(
            rules(&found),
            [
                ("index-row-dangling", Some(4)),
                ("index-row-dangling", Some(5)),
                ("index-row-dangling", Some(6))
            ]
        );
        assert!(found[0].message.contains("no ADR of the commit"));
        assert!(found[1].message.contains("not staged"));
        assert!(found[2].message.contains("number 004"));
        assert!(dangling_in_commit("no table\n", &one, &on_disk).is_empty());
    }

    #[test]
    fn missing_file_or_table() {
        let one = catalog(&[(
            "001-a.md",
            "---\nadr_id: 1\ntitle: A\nstatus: Proposed\n---\n",
        )]);
        assert!(check(None, &catalog(&[])).is_empty());
        assert_eq!(rules(&check(None, &one)), [("index-table-missing", None)]);
        assert_eq!(
            rules(&check(Some("# Index\n\nno table\n"), &one)),
            [("index-table-missing", Some(1))]
        );
    }

    #[test]
    #[cfg_attr(windows, ignore = "under investigation on Windows (issue 33)")]
    fn rows_are_compared_with_the_adrs() {
        let adrs = catalog(&[
            (
                "001-a.md",
                "---\nadr_id: 1\ntitle: Alpha\nstatus: Accepted\n---\n",
            ),
            (
                "003-c.md",
                "---\nadr_id: 3\ntitle: Gamma\nstatus: Proposed\n---\n",
            ),
        ]);
        let index = "| Nr | Title | Status |\n|---|---|---|\n\
| 001 | [Alfa](001-a.md) | ✅ Accepted |\n\
| 002 | [Beta](002-b.md) | Proposed |\n\
| 1 | First again | Accepted |\n";
        let found = check(Some(index), &adrs);
        assert_eq!(
            rules(&found),
            [
                ("index-row-mismatch", Some(3)),
                ("index-row-dangling", Some(4)),
                ("index-row-duplicate", Some(5)),
                ("index-row-missing", Some(1)),
            ],
            "{found:#?}"
        );
        assert!(found[0].message.contains("title \"Alfa\""), "{found:#?}");
        assert!(found[1].message.contains("does not exist"), "{found:#?}");
    }

    #[test]
    fn status_and_title_comparison() {
        assert!(same_status("✅ Accepted", "accepted"));
        assert!(same_status("Superseded by 040", "Superseded"));
        assert!(!same_status("Proposed", "Accepted"));
        assert!(same_text(" Cache  rules ", "cache rules"));
        assert!(!same_text("Cache", "Caches"));
    }
}
