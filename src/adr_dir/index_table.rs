//! Editing `adr/INDEX.md`: add one row (finalize) or regenerate all rows
//! (`index --write`) while keeping every byte around the table.
//!
//! The table model (finding the table, its columns and rows, rendering a row) is
//! the ADR format layer's (`adr::index_table`); the rules that compare INDEX.md
//! with the ADRs are `rules::index`.

use crate::adr::catalog::Catalog;
use crate::adr::index_table::{Column, Row, line_ending};
use crate::rules::index::{Resolution, resolve};

// `finalize`, `index` and `doctor` reach the table model and the index check
// through this module, the one place the directory commands edit INDEX.md from.
pub use crate::adr::index_table::{INDEX_FILE, NewRow, find, render_row};
pub use crate::rules::index::check;

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

/// INDEX.md with its table rows regenerated from `catalog` (one row per ADR, in the
/// table's order), keeping the header, the text around the table, summaries and
/// extra columns of existing rows. A table is appended (or the file created) when
/// there is none.
pub fn rewrite(text: Option<&str>, catalog: &Catalog) -> String {
    let table = text.and_then(find);
    let (Some(text), Some(table)) = (text, table) else {
        let mut rows: Vec<NewRow> = catalog
            .entries
            .iter()
            .map(|e| NewRow::for_entry(e, catalog.width))
            .collect();
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
        .map(|(entry, old)| (NewRow::for_entry(entry, catalog.width), old))
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
            width: 3,
            title: title.to_owned(),
            link: format!("{number:03}-{}.md", title.to_lowercase()),
            status: "Proposed".to_owned(),
            summary: "A | B".to_owned(),
        }
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
}
