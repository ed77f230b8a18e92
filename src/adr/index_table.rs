//! The ADR table of `INDEX.md`: find it by its header row, read its rows, and
//! render one row, keeping every byte around the table untouched.
//!
//! The table is located with pulldown-cmark (GFM tables, byte offsets), never by
//! a regex over the file, and columns are found by their header names (English
//! or German), so a table in another column order or with extra columns works.
//! Only a table at the top level counts (not one inside a quote or a list).
//!
//! This is the format layer: the index rules (`rules::index`) read the model, and
//! the ADR directory commands (`adr_dir::index_table`) edit INDEX.md with it.

use std::ops::Range;
use std::path::Path;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

use super::catalog::{self, Entry};
use super::{LineIndex, number_in_id};

/// File name of the index inside the ADR directory.
pub const INDEX_FILE: &str = "INDEX.md";

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
    pub fn descending(&self) -> bool {
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

/// The line ending `text` uses (CRLF when any line has one).
pub fn line_ending(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// The values of a row that helix-gate writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewRow {
    pub number: Option<u32>,
    /// Digits of the number (`adr.number_width`).
    pub width: usize,
    pub title: String,
    /// Link target relative to the ADR directory.
    pub link: String,
    pub status: String,
    /// Plain text; escaped when rendered.
    pub summary: String,
}

impl NewRow {
    /// The row for `entry`, taking title and status from its front matter; its number
    /// written with `width` digits.
    pub fn for_entry(entry: &Entry, width: usize) -> NewRow {
        let stem = Path::new(&entry.link)
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        NewRow {
            number: entry.number(),
            width,
            title: entry.title().map_or(stem, str::to_owned),
            link: entry.link.clone(),
            status: entry.status().unwrap_or_default().to_owned(),
            summary: entry.adr.as_ref().map(catalog::summary).unwrap_or_default(),
        }
    }
}

/// Text safe inside a table cell. A `<` is escaped: a raw `<!--` would open an HTML comment
/// that hides every later row when INDEX.md is rendered.
fn escape_cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('<', "\\<")
        .replace(['\n', '\r'], " ")
}

/// Text safe as link text inside a table cell, written so that it reads back as the same
/// plain text (`index --check` compares that with the front matter's title): every ASCII
/// punctuation Markdown acts on inline is backslash-escaped (`*async*` stays `*async*`, not
/// emphasis; `<!--` opens no comment).
fn escape_link_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '~' | '&' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
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
            Column::Number => row
                .number
                .map(|n| catalog::format_number_width(n, row.width))
                .unwrap_or_default(),
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

#[cfg(test)]
mod tests {
    use super::*;

    const INDEX: &str = "# ADR Index\n\nIntro text.\n\n| Nr | Titel | Status | Beschreibung |\n|----|-------|--------|--------------|\n| 001 | [First](001-first.md) | Accepted | one |\n| 003 | [Third](003-third.md) | Proposed | three |\n\nFooter.\n";

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
    fn link_targets_and_escapes() {
        assert_eq!(local_link("./001-a.md#kontext"), Some("./001-a.md"));
        assert_eq!(local_link("https://x/001-a.md"), None);
        assert_eq!(local_link("#top"), None);
        assert_eq!(link_target("a b.md"), "<a b.md>");
        assert_eq!(escape_link_text("A [b] | c"), "A \\[b\\] \\| c");
        assert_eq!(escape_link_text("*a* <!--"), "\\*a\\* \\<\\!--");
    }
}
