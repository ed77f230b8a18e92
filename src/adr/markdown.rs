//! Markdown structure of the ADR body, from pulldown-cmark events with offsets.
//!
//! Only real headings count: a `## ...` line inside a fenced or indented code
//! block or inside an HTML block is text to pulldown-cmark, so it never becomes
//! a section here (the seed sketches split on a regex and got this wrong).

use std::ops::Range;

use pulldown_cmark::{Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};

/// A heading of level 1 or 2 and the content that follows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// Heading text as displayed (emphasis and code markers removed).
    pub title: String,
    /// `title` normalised for matching (see [`normalize_title`]).
    pub key: String,
    /// 1 for `#`, 2 for `##`.
    pub level: u8,
    /// Byte offset of the heading start (document offsets).
    pub heading_start: usize,
    /// Byte offset where the content starts (after the heading).
    pub content_start: usize,
    /// Byte offset where the content ends (next heading of level <= 2, or end).
    pub end: usize,
}

/// A task-list item (`- [ ]`, `- [x]`, `* [ ]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskItem {
    /// Byte offset of the checkbox marker (document offsets).
    pub offset: usize,
    pub checked: bool,
}

/// Structure of a Markdown body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Structure {
    pub sections: Vec<Section>,
    pub tasks: Vec<TaskItem>,
    /// Byte ranges (document offsets) where angle brackets are not prose: code
    /// spans and blocks, HTML comments, autolinks and e-mail links; sorted and
    /// disjoint. Collected in the same pass, so the template-placeholder check
    /// needs no second parse.
    pub literals: Vec<Range<usize>>,
}

/// Lower-case, trim, collapse inner whitespace, drop a trailing colon and leading numbering (`1.`).
pub fn normalize_title(title: &str) -> String {
    let trimmed = title.trim().trim_end_matches(':').trim();
    let without_number = match trimmed.split_once(' ') {
        Some((first, rest))
            if first
                .trim_end_matches('.')
                .chars()
                .all(|c| c.is_ascii_digit())
                && first.ends_with('.') =>
        {
            rest
        }
        _ => trimmed,
    };
    let mut out = String::with_capacity(without_number.len());
    for word in without_number.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        for c in word.chars() {
            if c.is_ascii() {
                // Most titles: no case tables to look up.
                if !matches!(c, '*' | '_' | '`') {
                    out.push(c.to_ascii_lowercase());
                }
            } else {
                out.extend(c.to_lowercase());
            }
        }
    }
    out
}

/// The inline and reference links of `text` as `(link text, destination)`, in order;
/// autolinks and e-mail links are left out (they name no file).
pub fn links(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut open: Option<(String, String)> = None;
    for event in Parser::new_ext(text, Options::empty()) {
        match event {
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                ..
            }) if !matches!(link_type, LinkType::Autolink | LinkType::Email) => {
                open = Some((String::new(), dest_url.into_string()));
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some((label, _)) = open.as_mut() {
                    label.push_str(&t);
                }
            }
            Event::End(TagEnd::Link) => out.extend(open.take()),
            _ => {}
        }
    }
    out
}

/// Parse `body`, which starts at document offset `base`.
pub fn parse(body: &str, base: usize) -> Structure {
    let options = Options::ENABLE_TASKLISTS | Options::ENABLE_TABLES;
    let mut structure = Structure::default();
    let mut open: Option<(u8, usize, String)> = None;
    let mut code_block: Option<usize> = None;
    // The last search for a comment's `-->`: where it started and the first `-->` found
    // from there (None: there is none). A later comment inside that stretch has the
    // same answer: an unclosed comment reported line by line searched to the end of
    // the body once per line, which was quadratic.
    let mut last_search: Option<(usize, Option<usize>)> = None;
    for (event, range) in Parser::new_ext(body, options).into_offset_iter() {
        match &event {
            Event::Start(Tag::CodeBlock(_)) => code_block = Some(range.start),
            Event::End(TagEnd::CodeBlock) => {
                if let Some(start) = code_block.take() {
                    structure.literals.push(base + start..base + range.end);
                }
            }
            Event::Code(_)
            | Event::Start(Tag::Link {
                link_type: LinkType::Autolink | LinkType::Email,
                ..
            }) => structure
                .literals
                .push(base + range.start..base + range.end),
            Event::Html(text) | Event::InlineHtml(text)
                if text.trim_start().starts_with("<!--") =>
            {
                // A comment block: up to its `-->` (pulldown-cmark reports it line by line).
                let close = match last_search {
                    Some((from, found))
                        if from <= range.start && found.is_none_or(|at| at >= range.start) =>
                    {
                        found
                    }
                    _ => body[range.start..].find("-->").map(|i| range.start + i),
                };
                last_search = Some((range.start, close));
                let end = close.map_or(body.len(), |at| at + 3);
                structure.literals.push(base + range.start..base + end);
            }
            _ => {}
        }
        match event {
            Event::Start(Tag::Heading { level, .. })
                if matches!(level, HeadingLevel::H1 | HeadingLevel::H2) =>
            {
                let level = if level == HeadingLevel::H1 { 1 } else { 2 };
                open = Some((level, range.start, String::new()));
            }
            Event::Text(text) | Event::Code(text) => {
                if let Some((_, _, title)) = open.as_mut() {
                    title.push_str(&text);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                if let Some((level, start, title)) = open.take() {
                    if let Some(previous) = structure.sections.last_mut() {
                        previous.end = base + start;
                    }
                    structure.sections.push(Section {
                        key: normalize_title(&title),
                        title: title.trim().to_owned(),
                        level,
                        heading_start: base + start,
                        content_start: base + range.end,
                        end: base + body.len(),
                    });
                }
            }
            Event::TaskListMarker(checked) => structure.tasks.push(TaskItem {
                offset: base + range.start,
                checked,
            }),
            _ => {}
        }
    }
    // Sorted and disjoint, so a lookup finds the range around an offset by binary
    // search (checking every range per `<` was quadratic on a body of code spans).
    structure.literals.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(structure.literals.len());
    for range in std::mem::take(&mut structure.literals) {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    structure.literals = merged;
    structure
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_in_code_and_html_are_not_sections() {
        let body = "## Kontext\ntext\n```\n## Entscheidung\n```\n~~~\n## Migration\n~~~\n\n    ## Indented\n\n<!--\n## Comment\n-->\n\n<div>\n\n## Real\n\n</div>\n";
        let s = parse(body, 0);
        let keys: Vec<_> = s.sections.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(keys, ["kontext", "real"]);
    }

    #[test]
    fn section_runs_to_next_h2_and_includes_h3() {
        let body = "# T\n## A\none\n### Sub\ntwo\n## B\nthree\n";
        let s = parse(body, 10);
        let a = &s.sections[1];
        assert_eq!(
            &body[a.content_start - 10..a.end - 10],
            "one\n### Sub\ntwo\n"
        );
        assert_eq!(s.sections[2].end, 10 + body.len());
    }

    #[test]
    fn titles_are_normalised() {
        let s = parse(
            "## **Kontext**\n## `Entscheidung`:\n##   Akzeptanz  Kriterien \n## 2. Migration\n",
            0,
        );
        let keys: Vec<_> = s.sections.iter().map(|s| s.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "kontext",
                "entscheidung",
                "akzeptanz kriterien",
                "migration"
            ]
        );
    }

    #[test]
    fn task_items_of_both_bullets() {
        let s = parse("- [ ] a\n- [x] b\n* [ ] c\n- not a task\n", 0);
        assert_eq!(s.tasks.len(), 3);
        assert!(s.tasks[1].checked);
    }
}
