//! The ADR model: a document is parsed once, and every rule reads this model.

pub mod body_meta;
pub mod catalog;
pub mod front_matter;
pub mod index_table;
pub mod markdown;
pub mod placeholder;
pub mod succession;
pub mod template_hints;

use std::path::Path;

pub use body_meta::BodyValue;
pub use front_matter::{Field, Files, FrontMatter, FrontMatterError};
pub use markdown::{Section, TaskItem, normalize_title};

/// 1-based line lookup for byte offsets.
#[derive(Debug, Clone, Default)]
pub struct LineIndex {
    newlines: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        LineIndex {
            // memchr's vectorised search: `match_indices` walked a 50 KB ADR char by
            // char (0.3 M instructions, a seventh of its whole parse).
            newlines: crate::text::find::byte_positions(b'\n', text.as_bytes()).collect(),
        }
    }

    /// The 1-based line that contains byte `offset`.
    pub fn line(&self, offset: usize) -> usize {
        self.newlines.partition_point(|&nl| nl < offset) + 1
    }
}

/// A parsed ADR.
#[derive(Debug, Clone)]
pub struct Adr {
    /// Document text without a UTF-8 BOM.
    pub text: String,
    pub lines: LineIndex,
    /// The typed front matter, or why there is none.
    pub front_matter: Result<FrontMatter, FrontMatterError>,
    /// Byte range of the YAML text (empty when there is no front matter).
    pub yaml_range: std::ops::Range<usize>,
    /// Byte offset where the Markdown body starts.
    pub body_start: usize,
    /// Level 1 and 2 headings with their content ranges.
    pub sections: Vec<Section>,
    pub tasks: Vec<TaskItem>,
    /// Body ranges where `<...>` is not prose (code, HTML comments, autolinks).
    pub literals: Vec<std::ops::Range<usize>>,
    /// `text` with ASCII letters lower-cased (same byte offsets), built on first use
    /// for case-insensitive literal search.
    lower: std::sync::OnceLock<String>,
}

impl Adr {
    /// Parse a document. Never fails: problems are recorded in the model.
    pub fn parse(text: &str) -> Adr {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text).to_owned();
        let lines = LineIndex::new(&text);
        let located = locate(&text);
        let (yaml_range, body_start) = bounds(&located);
        let front_matter = located
            .and_then(|(yaml, _)| front_matter::parse(&text[yaml.clone()], lines.line(yaml.start)));
        let structure = markdown::parse(&text[body_start..], body_start);
        Adr::assemble(text, lines, front_matter, yaml_range, body_start, structure)
    }

    /// [`Adr::parse`] with `alongside` run at the same time: the Markdown body is
    /// parsed on a second thread (with the line index and the lower-cased text),
    /// while this one runs `alongside` and then parses the front matter. The hook
    /// loads its rules alongside: one after the other, the Markdown parse of the 51 KB
    /// seed ADR (1.2 M instructions) waited for the front matter (0.4 M) while the
    /// rules' thread idled. Without a thread to spare, one after the other.
    pub fn parse_alongside<R>(text: &str, alongside: impl FnOnce() -> R) -> (Adr, R) {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text).to_owned();
        let located = locate(&text);
        let (yaml_range, body_start) = bounds(&located);
        let body = |text: &str| {
            let lines = LineIndex::new(text);
            let lower = text.to_ascii_lowercase();
            (
                markdown::parse(&text[body_start..], body_start),
                lines,
                lower,
            )
        };
        let (result, front_matter, (structure, lines, lower)) = std::thread::scope(|scope| {
            let parsing = std::thread::Builder::new().spawn_scoped(scope, || body(&text));
            let result = alongside();
            let front_matter = located.and_then(|(yaml, _)| {
                // The line of the YAML's first byte, as `LineIndex::line` counts it.
                let line = crate::text::find::byte_count(b'\n', &text.as_bytes()[..yaml.start]) + 1;
                front_matter::parse(&text[yaml.clone()], line)
            });
            let parsed = match parsing {
                // A panic while parsing is the caller's own.
                Ok(handle) => handle
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(_) => body(&text),
            };
            (result, front_matter, parsed)
        });
        let adr = Adr::assemble(text, lines, front_matter, yaml_range, body_start, structure);
        let _ = adr.lower.set(lower);
        (adr, result)
    }

    fn assemble(
        text: String,
        lines: LineIndex,
        front_matter: Result<FrontMatter, FrontMatterError>,
        yaml_range: std::ops::Range<usize>,
        body_start: usize,
        structure: markdown::Structure,
    ) -> Adr {
        Adr {
            lines,
            front_matter,
            yaml_range,
            body_start,
            sections: structure.sections,
            tasks: structure.tasks,
            literals: structure.literals,
            text,
            lower: std::sync::OnceLock::new(),
        }
    }

    /// The document with ASCII letters lower-cased; byte offsets equal `text`'s.
    pub fn lowercase(&self) -> &str {
        self.lower.get_or_init(|| self.text.to_ascii_lowercase())
    }

    pub fn front_matter(&self) -> Option<&FrontMatter> {
        self.front_matter.as_ref().ok()
    }

    pub fn body(&self) -> &str {
        &self.text[self.body_start..]
    }

    pub fn yaml_text(&self) -> &str {
        &self.text[self.yaml_range.clone()]
    }

    pub fn line_of(&self, offset: usize) -> usize {
        self.lines.line(offset)
    }

    /// Content of a section (after its heading, up to the next level 1-2 heading).
    pub fn content(&self, section: &Section) -> &str {
        &self.text[section.content_start..section.end]
    }

    /// First level-2 section whose normalised title is one of `keys`.
    pub fn section<'a>(&'a self, keys: &[String]) -> Option<&'a Section> {
        self.sections
            .iter()
            .find(|s| s.level == 2 && keys.contains(&s.key))
    }

    /// Task items inside `section` (subsections included).
    pub fn tasks_in<'a>(&'a self, section: &'a Section) -> impl Iterator<Item = &'a TaskItem> {
        self.tasks
            .iter()
            .filter(move |t| t.offset >= section.content_start && t.offset < section.end)
    }

    /// The text of the line holding a task marker, after the `]`.
    pub fn task_text(&self, task: &TaskItem) -> &str {
        let rest = &self.text[task.offset..];
        let line = rest.split('\n').next().unwrap_or("");
        line.split_once(']').map_or(line, |(_, after)| after).trim()
    }
}

/// Where the front matter is (its YAML's byte range and where the body starts), or
/// why there is none.
fn locate(text: &str) -> Result<(std::ops::Range<usize>, usize), FrontMatterError> {
    match front_matter::split(text) {
        front_matter::Split::Missing => Err(FrontMatterError::Missing),
        front_matter::Split::Unclosed => Err(FrontMatterError::Unclosed),
        front_matter::Split::Found(span) => Ok((span.yaml_start..span.yaml_end, span.body_start)),
    }
}

/// The YAML's byte range (empty without front matter) and where the body starts.
fn bounds(
    located: &Result<(std::ops::Range<usize>, usize), FrontMatterError>,
) -> (std::ops::Range<usize>, usize) {
    located
        .as_ref()
        .map_or((0..0, 0), |(yaml, body_start)| (yaml.clone(), *body_start))
}

/// The ADR number in a file name such as `038-response-enforcement.md`.
pub fn number_in_file_name(path: &Path) -> Option<u32> {
    let name = path.file_name()?.to_str()?;
    let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() || !name[digits.len()..].starts_with('-') {
        return None;
    }
    digits.parse().ok()
}

/// The number in an ADR id such as `"015"`, `15`, `ADR-015`.
pub fn number_in_id(id: &str) -> Option<u32> {
    let trimmed = id.trim();
    let digits = trimmed
        .strip_prefix("ADR-")
        .or_else(|| trimmed.strip_prefix("adr-"))
        .unwrap_or(trimmed);
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bom_and_lines() {
        let adr = Adr::parse("\u{feff}---\nadr_id: 1\n---\n\n## Kontext\nHello\n");
        assert!(adr.front_matter().is_some());
        let s = &adr.sections[0];
        assert_eq!(adr.line_of(s.heading_start), 5);
        assert_eq!(adr.content(s), "Hello\n");
    }

    /// The hook's parse (Markdown on a second thread) builds the same model as
    /// `parse`, with and without front matter, unclosed, empty, with a BOM or an error.
    #[test]
    fn parsed_alongside_is_parsed() {
        let texts = [
            include_str!("../../tests/fixtures/seeds/015-approval-validation-system.md"),
            "\u{feff}---\nadr_id: 1\n---\n\n## Kontext\nHello <x>\n- [ ] a\n",
            "# No front matter\n\n## A\ntext `code`\n",
            "---\nadr_id: 1\n",
            "---\n---\n## A\n",
            "\n\n---\nadr_id: [x\n---\n",
            "---\ntitle: [x\n---\n## B\n",
            "",
        ];
        for text in texts {
            let alone = Adr::parse(text);
            alone.lowercase();
            let (alongside, answer) = Adr::parse_alongside(text, || 42);
            assert_eq!(answer, 42);
            assert_eq!(format!("{alongside:?}"), format!("{alone:?}"), "{text:?}");
        }
    }

    #[test]
    fn yaml_error_line_counts_front_matter() {
        let adr = Adr::parse("---\nadr_id: 1\ntitle: [x\n---\n");
        let Err(FrontMatterError::Invalid(err)) = &adr.front_matter else {
            panic!()
        };
        assert!(err.line.unwrap() >= 3);
    }

    #[test]
    fn numbers() {
        assert_eq!(number_in_file_name(Path::new("adr/038-x.md")), Some(38));
        assert_eq!(number_in_file_name(Path::new("adr/ADR-x.md")), None);
        assert_eq!(number_in_id("015"), Some(15));
        assert_eq!(number_in_id("ADR-015"), Some(15));
        assert_eq!(number_in_id("x1"), None);
    }
}
