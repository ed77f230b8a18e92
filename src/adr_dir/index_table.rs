//! `adr/INDEX.md`: find the ADR table by its header row, read its rows, compare
//! them with the ADRs, add one row, or regenerate all rows while keeping every
//! byte around the table.
//!
//! The table is located with pulldown-cmark (GFM tables, byte offsets), never by
//! a regex over the file, and columns are found by their header names (English
//! or German), so a table in another column order or with extra columns works.
//! Only a table at the top level counts (not one inside a quote or a list).

use std::ops::Range;
use std::path::Path;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::catalog::{self, Catalog, Entry};
use crate::adr::{LineIndex, number_in_id};
use crate::diagnostic::{Finding, Severity};
use crate::rules::RuleMeta;

pub const TABLE_MISSING: RuleMeta = RuleMeta {
    id: "index-table-missing",
    severity: Severity::Error,
    summary: "the ADR directory has no INDEX.md, or INDEX.md has no ADR table",
    doc: "## What it does\nLooks for `INDEX.md` in the ADR directory and, in it, for a table whose header has a number column \
(`Nr`, `Number`, `#`, `ADR`) and a title column (`Title`, `Titel`).\n\n\
## Why\nThe consultant and readers find ADRs and the next free number through the index; without a table nothing can be checked or added.\n\n\
## Example\n```\n| Nr | Titel | Status | Beschreibung |\n|----|-------|--------|--------------|\n| 038 | [Response Enforcement](038-response-enforcement.md) | Proposed | ... |\n```\n\n\
## Fix\n`helix-gate index --write` appends a table (or creates INDEX.md) with a row for every ADR.",
};

pub const ROW_MISSING: RuleMeta = RuleMeta {
    id: "index-row-missing",
    severity: Severity::Error,
    summary: "an ADR of the ADR directory has no row in INDEX.md",
    doc: "## What it does\nReports every ADR file in the ADR directory that no INDEX.md row links to (or, for rows without a link, names by number).\n\n\
## Why\nAn ADR missing from the index is invisible to readers and to the consultant's numbering.\n\n\
## Fix\n`helix-gate index --write`, or add `| NNN | [Title](NNN-slug.md) | Status | summary |` by hand.",
};

pub const ROW_DANGLING: RuleMeta = RuleMeta {
    id: "index-row-dangling",
    severity: Severity::Error,
    summary: "an INDEX.md row points at no ADR file",
    doc: "## What it does\nReports INDEX.md rows whose link names a file that does not exist (or is not an ADR of the directory), \
and rows without a link whose number no ADR has.\n\n\
## Why\nA dead row sends readers to nothing and hides that an ADR was renamed or deleted.\n\n\
## Fix\nCorrect the link, restore the ADR, or remove the row (`helix-gate index --write` drops it).",
};

pub const ROW_MISMATCH: RuleMeta = RuleMeta {
    id: "index-row-mismatch",
    severity: Severity::Error,
    summary: "an INDEX.md row's number, title, status or link disagrees with its ADR",
    doc: "## What it does\nCompares each row with the front matter of the ADR it links to: the number with `adr_id`, \
the title with `title` (ignoring case and spacing), the status with `status` (its first word), and reports a row without a link.\n\n\
## Why\nThe index is read instead of the ADRs; a stale status or title there is a wrong statement about the decision.\n\n\
## Fix\n`helix-gate index --write` regenerates the rows from the front matter (summaries and extra columns are kept).",
};

pub const ROW_DUPLICATE: RuleMeta = RuleMeta {
    id: "index-row-duplicate",
    severity: Severity::Error,
    summary: "two INDEX.md rows point at the same ADR",
    doc: "## What it does\nReports a row that links to (or names by number) an ADR that an earlier row already lists.\n\n\
## Why\nTwo rows for one decision drift apart; one of them is always stale.\n\n\
## Fix\nRemove one row, or run `helix-gate index --write`.",
};

pub const RULES: &[&RuleMeta] = &[
    &TABLE_MISSING,
    &ROW_MISSING,
    &ROW_DANGLING,
    &ROW_MISMATCH,
    &ROW_DUPLICATE,
];

/// File name of the index inside the ADR directory.
pub const INDEX_FILE: &str = "INDEX.md";

/// Header and delimiter of a table that helix-gate creates.
const NEW_HEADER: &str = "| ADR | Title | Status | Summary |";
const NEW_DELIMITER: &str = "|-----|-------|--------|---------|";
const NEW_COLUMNS: [Column; 4] = [
    Column::Number,
    Column::Title,
    Column::Status,
    Column::Summary,
];
/// First lines of an INDEX.md that helix-gate creates.
const NEW_FILE_HEADING: &str = "# ADR Index";

/// What a column holds, from its header text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Number,
    Title,
    Status,
    Summary,
    Other,
}

impl Column {
    /// Classify a header cell (case-insensitive, English and German names).
    pub fn from_header(header: &str) -> Column {
        let name = header
            .trim()
            .trim_end_matches([':', '.'])
            .trim()
            .to_lowercase();
        match name.as_str() {
            "nr" | "no" | "number" | "nummer" | "#" | "adr" | "adr-nr" | "adr nr" | "id"
            | "adr_id" | "adr-id" => Column::Number,
            "title" | "titel" => Column::Title,
            "status" => Column::Status,
            "summary" | "description" | "beschreibung" | "zusammenfassung" | "kurzbeschreibung" => {
                Column::Summary
            }
            _ => Column::Other,
        }
    }
}

/// One table cell: its Markdown source, its plain text and its first link.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cell {
    pub source: String,
    pub text: String,
    pub link: Option<String>,
}

/// One body row, with the byte range of its line(s).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub range: Range<usize>,
    /// 1-based line in INDEX.md.
    pub line: usize,
    pub cells: Vec<Cell>,
}

/// The ADR table of an INDEX.md.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Byte offset of the header line.
    pub start: usize,
    /// Byte offset after the delimiter line, where body rows start.
    pub body_start: usize,
    /// Byte offset after the last row's line.
    pub end: usize,
    /// 1-based line of the header.
    pub line: usize,
    pub columns: Vec<Column>,
    pub rows: Vec<Row>,
}

impl Table {
    fn position(&self, kind: Column) -> Option<usize> {
        self.columns.iter().position(|&c| c == kind)
    }

    /// The cell of `row` in the first column of `kind`.
    pub fn cell<'a>(&self, row: &'a Row, kind: Column) -> Option<&'a Cell> {
        self.position(kind).and_then(|i| row.cells.get(i))
    }

    /// The ADR number a row names (`038`, `ADR-038`, `[038](...)`).
    pub fn row_number(&self, row: &Row) -> Option<u32> {
        self.cell(row, Column::Number)
            .and_then(|c| number_in_id(c.text.trim()))
    }

    /// The local link of a row: the title's link, else the first local link in any cell.
    pub fn row_link<'a>(&self, row: &'a Row) -> Option<&'a str> {
        let title = self
            .cell(row, Column::Title)
            .and_then(|c| c.link.as_deref())
            .and_then(local_link);
        title.or_else(|| {
            row.cells
                .iter()
                .filter_map(|c| c.link.as_deref())
                .find_map(local_link)
        })
    }

    /// Rows ordered from high to low numbers (the table's order is kept on insert).
    fn descending(&self) -> bool {
        let numbers: Vec<u32> = self
            .rows
            .iter()
            .filter_map(|r| self.row_number(r))
            .collect();
        numbers.len() >= 2
            && numbers.windows(2).all(|w| w[0] >= w[1])
            && numbers.first() > numbers.last()
    }
}

/// A link target inside the repository (no URL, no in-page anchor), without its fragment.
fn local_link(dest: &str) -> Option<&str> {
    let dest = dest.trim();
    if dest.is_empty()
        || dest.starts_with('#')
        || dest.contains("://")
        || dest.starts_with("mailto:")
    {
        return None;
    }
    dest.split('#').next().filter(|d| !d.is_empty())
}

/// Builders used while walking the parser's events.
#[derive(Default)]
struct TableBuilder {
    start: usize,
    end: usize,
    head_end: usize,
    header: Vec<Cell>,
    rows: Vec<(Range<usize>, Vec<Cell>)>,
}

/// The first top-level table whose header has a number and a title column.
pub fn find(text: &str) -> Option<Table> {
    let lines = LineIndex::new(text);
    let mut depth = 0usize;
    let mut table: Option<TableBuilder> = None;
    let mut row: Option<(Range<usize>, Vec<Cell>)> = None;
    let mut cell: Option<Cell> = None;
    for (event, range) in Parser::new_ext(text, Options::ENABLE_TABLES).into_offset_iter() {
        match event {
            Event::Start(Tag::BlockQuote(_) | Tag::List(_) | Tag::FootnoteDefinition(_)) => {
                depth += 1;
            }
            Event::End(TagEnd::BlockQuote(_) | TagEnd::List(_) | TagEnd::FootnoteDefinition) => {
                depth = depth.saturating_sub(1);
            }
            Event::Start(Tag::Table(_)) if depth == 0 => {
                table = Some(TableBuilder {
                    start: line_start(text, range.start),
                    end: range.end,
                    ..TableBuilder::default()
                });
            }
            Event::Start(Tag::TableHead | Tag::TableRow) if table.is_some() => {
                row = Some((range, Vec::new()));
            }
            Event::End(TagEnd::TableHead) => {
                if let (Some(t), Some((range, cells))) = (table.as_mut(), row.take()) {
                    t.head_end = range.end;
                    t.header = cells;
                }
            }
            Event::End(TagEnd::TableRow) => {
                if let (Some(t), Some(r)) = (table.as_mut(), row.take()) {
                    t.rows.push(r);
                }
            }
            Event::Start(Tag::TableCell) if row.is_some() => {
                cell = Some(Cell {
                    source: text[range].trim().to_owned(),
                    ..Cell::default()
                });
            }
            Event::End(TagEnd::TableCell) => {
                if let (Some((_, cells)), Some(c)) = (row.as_mut(), cell.take()) {
                    cells.push(c);
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(c) = cell.as_mut() {
                    c.text.push_str(&t);
                }
            }
            Event::Start(Tag::Link { dest_url, .. }) => {
                if let Some(c) = cell.as_mut() {
                    c.link.get_or_insert_with(|| dest_url.to_string());
                }
            }
            Event::End(TagEnd::Table) => {
                if let Some(t) = table.take()
                    && let Some(found) = build(text, &lines, t)
                {
                    return Some(found);
                }
            }
            _ => {}
        }
    }
    None
}

fn build(text: &str, lines: &LineIndex, t: TableBuilder) -> Option<Table> {
    let columns: Vec<Column> = t
        .header
        .iter()
        .map(|c| Column::from_header(&c.text))
        .collect();
    if !columns.contains(&Column::Number) || !columns.contains(&Column::Title) {
        return None;
    }
    // The delimiter line follows the header line.
    let body_start = text[t.head_end..]
        .find('\n')
        .map_or(text.len(), |i| t.head_end + i + 1);
    let rows = t
        .rows
        .into_iter()
        .filter(|(_, cells)| cells.iter().any(|c| !c.source.is_empty()))
        .map(|(range, cells)| {
            let start = line_start(text, range.start);
            Row {
                line: lines.line(start),
                range: start..range.end,
                cells,
            }
        })
        .collect();
    Some(Table {
        line: lines.line(t.start),
        start: t.start,
        body_start,
        end: t.end.max(body_start),
        columns,
        rows,
    })
}

fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// The values of a row that helix-gate writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRow {
    pub number: Option<u32>,
    pub title: String,
    /// Link target relative to the ADR directory.
    pub link: String,
    pub status: String,
    /// Plain text; escaped when rendered.
    pub summary: String,
}

impl NewRow {
    /// The row for `entry`, taking title and status from its front matter.
    pub fn for_entry(entry: &Entry) -> NewRow {
        let stem = Path::new(&entry.link)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        NewRow {
            number: entry.number(),
            title: entry.title().map_or(stem, str::to_owned),
            link: entry.link.clone(),
            status: entry.status().unwrap_or_default().to_owned(),
            summary: entry.adr.as_ref().map(catalog::summary).unwrap_or_default(),
        }
    }
}

/// Text safe inside a table cell.
fn escape_cell(text: &str) -> String {
    text.replace('|', "\\|").replace(['\n', '\r'], " ")
}

/// Text safe as link text inside a table cell.
fn escape_link_text(text: &str) -> String {
    escape_cell(&text.replace('[', "\\[").replace(']', "\\]"))
}

fn link_target(link: &str) -> String {
    if link.contains([' ', '(', ')', '<', '>']) {
        format!("<{}>", link.replace(['<', '>'], ""))
    } else {
        link.to_owned()
    }
}

/// One table line for `row` in the column order `columns`. Summaries and unknown
/// columns of `old` (the row this one replaces) are kept.
pub fn render_row(columns: &[Column], row: &NewRow, old: Option<&Row>, nl: &str) -> String {
    let mut out = String::from("|");
    for (i, column) in columns.iter().enumerate() {
        let old_source = old
            .and_then(|r| r.cells.get(i))
            .map(|c| c.source.as_str())
            .filter(|s| !s.is_empty());
        let cell = match column {
            Column::Number => row.number.map(catalog::format_number).unwrap_or_default(),
            Column::Title => format!(
                "[{}]({})",
                escape_link_text(&row.title),
                link_target(&row.link)
            ),
            Column::Status => escape_cell(&row.status),
            Column::Summary => old_source.map_or_else(|| escape_cell(&row.summary), str::to_owned),
            Column::Other => old_source.unwrap_or_default().to_owned(),
        };
        if cell.is_empty() {
            out.push_str("  |");
        } else {
            out.push(' ');
            out.push_str(&cell);
            out.push_str(" |");
        }
    }
    out.push_str(nl);
    out
}

fn new_table(rows: &[NewRow], nl: &str) -> String {
    let mut out = format!("{NEW_HEADER}{nl}{NEW_DELIMITER}{nl}");
    for row in rows {
        out.push_str(&render_row(&NEW_COLUMNS, row, None, nl));
    }
    out
}

/// `text` with a new table of `rows` appended after a blank line (or a new file).
fn append_table(text: Option<&str>, rows: &[NewRow]) -> String {
    match text {
        Some(text) if !text.trim().is_empty() => {
            let nl = line_ending(text);
            let mut out = text.to_owned();
            if !out.ends_with('\n') {
                out.push_str(nl);
            }
            if !out.ends_with(&format!("{nl}{nl}")) {
                out.push_str(nl);
            }
            out.push_str(&new_table(rows, nl));
            out
        }
        _ => format!("{NEW_FILE_HEADING}\n\n{}", new_table(rows, "\n")),
    }
}

/// INDEX.md with `row` added in the table's order (ascending unless the rows
/// descend); a table is appended when there is none, the file created when
/// `text` is None.
pub fn add_row(text: Option<&str>, row: &NewRow) -> String {
    let Some(text) = text else {
        return append_table(None, std::slice::from_ref(row));
    };
    let Some(table) = find(text) else {
        return append_table(Some(text), std::slice::from_ref(row));
    };
    let nl = line_ending(text);
    let line = render_row(&table.columns, row, None, nl);
    let descending = table.descending();
    let position = row
        .number
        .and_then(|new| {
            table.rows.iter().find(|r| {
                table
                    .row_number(r)
                    .is_some_and(|n| if descending { n < new } else { n > new })
            })
        })
        .map_or(table.end, |r| r.range.start);
    let mut out = String::with_capacity(text.len() + line.len() + 2);
    out.push_str(&text[..position]);
    if !out.ends_with('\n') {
        out.push_str(nl);
    }
    out.push_str(&line);
    out.push_str(&text[position..]);
    out
}

/// How a row relates to the ADRs.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resolution {
    /// The row lists this entry (found by link, or by number when it has no link).
    Entry { index: usize, by_link: bool },
    /// The link names a file that is missing or no ADR of the directory.
    BrokenLink { dest: String, exists: bool },
    /// No link, and no ADR has the row's number.
    UnknownNumber(u32),
    /// Neither a link nor a number.
    Unnamed,
}

fn resolve(table: &Table, row: &Row, catalog: &Catalog) -> Resolution {
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
                    "{INDEX_FILE} does not exist; {} ADRs are not listed",
                    catalog.entries.len()
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
            .map_or_else(|| format!("line {}", row.line), catalog::format_number);
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
                        catalog::format_number(n)
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
                compare(&table, row, &catalog.entries[index], by_link, &mut out);
            }
        }
    }
    for (entry, line) in catalog.entries.iter().zip(&listed) {
        if line.is_none() {
            let number = entry
                .number()
                .map(|n| format!(" (ADR {})", catalog::format_number(n)))
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

/// Findings for a row that lists `entry`.
fn compare(table: &Table, row: &Row, entry: &Entry, by_link: bool, out: &mut Vec<Finding>) {
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
                    catalog::format_number(expected)
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

/// INDEX.md with its table rows regenerated from `catalog` (one row per ADR, in the
/// table's order), keeping the header, the text around the table, summaries and
/// extra columns of existing rows. A table is appended (or the file created) when
/// there is none.
pub fn rewrite(text: Option<&str>, catalog: &Catalog) -> String {
    let table = text.and_then(find);
    let (Some(text), Some(table)) = (text, table) else {
        let mut rows: Vec<NewRow> = catalog.entries.iter().map(NewRow::for_entry).collect();
        sort_rows(&mut rows, false);
        return append_table(text, &rows);
    };
    let mut old: Vec<Option<&Row>> = vec![None; catalog.entries.len()];
    for row in &table.rows {
        if let Resolution::Entry { index, .. } = resolve(&table, row, catalog) {
            old[index].get_or_insert(row);
        }
    }
    let mut rows: Vec<(NewRow, Option<&Row>)> = catalog
        .entries
        .iter()
        .zip(old)
        .map(|(entry, old)| (NewRow::for_entry(entry), old))
        .collect();
    let descending = table.descending();
    rows.sort_by(|(a, _), (b, _)| order(a, b, descending));
    let nl = line_ending(text);
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..table.body_start]);
    if !out.ends_with('\n') {
        out.push_str(nl);
    }
    for (row, old) in &rows {
        out.push_str(&render_row(&table.columns, row, *old, nl));
    }
    out.push_str(&text[table.end..]);
    out
}

fn order(a: &NewRow, b: &NewRow, descending: bool) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    // Rows without a number go last in either order.
    let by_number = match (a.number, b.number) {
        (Some(x), Some(y)) if descending => y.cmp(&x),
        (Some(x), Some(y)) => x.cmp(&y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    };
    by_number.then_with(|| a.link.cmp(&b.link))
}

fn sort_rows(rows: &mut [NewRow], descending: bool) {
    rows.sort_by(|a, b| order(a, b, descending));
}

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = "# ADR Index\n\nIntro text.\n\n| Nr | Titel | Status | Beschreibung |\n|----|-------|--------|--------------|\n| 001 | [First](001-first.md) | Accepted | one |\n| 003 | [Third](003-third.md) | Proposed | three |\n\nFooter.\n";

    fn row(number: u32, title: &str) -> NewRow {
        NewRow {
            number: Some(number),
            title: title.to_owned(),
            link: format!("{number:03}-{}.md", title.to_lowercase()),
            status: "Proposed".to_owned(),
            summary: "A | B".to_owned(),
        }
    }

    #[test]
    fn finds_the_table_by_its_header_and_reads_cells() {
        let table = find(INDEX).unwrap();
        assert_eq!(
            table.columns,
            [
                Column::Number,
                Column::Title,
                Column::Status,
                Column::Summary
            ]
        );
        assert_eq!(table.line, 5);
        assert_eq!(table.rows.len(), 2);
        assert_eq!(table.rows[0].line, 7);
        assert_eq!(table.row_number(&table.rows[1]), Some(3));
        assert_eq!(table.row_link(&table.rows[1]), Some("003-third.md"));
        assert_eq!(
            table.cell(&table.rows[0], Column::Title).unwrap().text,
            "First"
        );
        assert_eq!(&INDEX[table.end..], "\nFooter.\n");
    }

    #[test]
    fn other_tables_and_quoted_tables_are_skipped() {
        let text = "| Key | Value |\n|---|---|\n| a | b |\n\n> | # | Title |\n> |---|---|\n> | 1 | x |\n\n| Title | # |\n|---|---|\n| [X](001-x.md) | 001 |\n";
        let table = find(text).unwrap();
        assert_eq!(table.columns, [Column::Title, Column::Number]);
        assert_eq!(table.row_number(&table.rows[0]), Some(1));
        assert!(find("| Key | Value |\n|---|---|\n").is_none());
        assert!(find("no table\n").is_none());
    }

    #[test]
    fn add_row_keeps_order_and_surrounding_text() {
        let out = add_row(Some(INDEX), &row(2, "Second"));
        assert!(out.contains("| 001 | [First](001-first.md) | Accepted | one |\n| 002 | [Second](002-second.md) | Proposed | A \\| B |\n| 003 |"), "{out}");
        assert!(out.starts_with("# ADR Index\n\nIntro text.\n\n"));
        assert!(out.ends_with("\nFooter.\n"));
        let out = add_row(Some(INDEX), &row(4, "Fourth"));
        assert!(out.contains("three |\n| 004 |"), "{out}");
        let descending = "| # | Title |\n|---|---|\n| 3 | [C](003-c.md) |\n| 1 | [A](001-a.md) |\n";
        let out = add_row(Some(descending), &row(2, "B"));
        assert!(
            out.contains("003-c.md) |\n| 002 | [B](002-b.md) |\n| 1 |"),
            "{out}"
        );
    }

    #[test]
    fn add_row_appends_a_table_or_creates_the_file() {
        let out = add_row(Some("# Index\n\nNothing yet."), &row(1, "A"));
        assert_eq!(
            out,
            "# Index\n\nNothing yet.\n\n| ADR | Title | Status | Summary |\n|-----|-------|--------|---------|\n| 001 | [A](001-a.md) | Proposed | A \\| B |\n"
        );
        let out = add_row(None, &row(1, "A"));
        assert!(out.starts_with("# ADR Index\n\n| ADR |"), "{out}");
        let crlf = "| Nr | Title |\r\n|---|---|\r\n| 001 | [A](001-a.md) |\r\n";
        let out = add_row(Some(crlf), &row(2, "B"));
        assert!(out.ends_with("| 002 | [B](002-b.md) |\r\n"), "{out:?}");
        let no_newline = "| Nr | Title |\n|---|---|\n| 001 | [A](001-a.md) |";
        let out = add_row(Some(no_newline), &row(2, "B"));
        assert!(
            out.ends_with("(001-a.md) |\n| 002 | [B](002-b.md) |\n"),
            "{out:?}"
        );
    }

    #[test]
    fn columns_in_another_order_are_filled_by_header() {
        let text = "| Status | Titel | Nr. | Notes |\n|---|---|---|---|\n";
        let out = add_row(Some(text), &row(7, "Seven"));
        assert!(
            out.ends_with("| Proposed | [Seven](007-seven.md) | 007 |  |\n"),
            "{out}"
        );
    }

    #[test]
    fn status_and_title_comparison() {
        assert!(same_status("✅ Accepted", "accepted"));
        assert!(same_status("Superseded by 040", "Superseded"));
        assert!(!same_status("Proposed", "Accepted"));
        assert!(same_text(" Cache  rules ", "cache rules"));
        assert!(!same_text("Cache", "Caches"));
    }

    #[test]
    fn link_targets_and_escapes() {
        assert_eq!(local_link("./001-a.md#kontext"), Some("./001-a.md"));
        assert_eq!(local_link("https://x/001-a.md"), None);
        assert_eq!(local_link("#top"), None);
        assert_eq!(link_target("a b.md"), "<a b.md>");
        assert_eq!(escape_link_text("A [b] | c"), "A \\[b\\] \\| c");
    }
}
