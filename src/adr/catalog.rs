//! The ADRs of one directory as plain data: every ADR file with the number in its
//! name and its parse, and the numbers that are taken.
//!
//! A number counts as taken when it appears in a file name *or* in an `adr_id`,
//! so a gap or a file whose name disagrees with its id never yields a number that
//! someone already uses.
//!
//! Reading the directory from disk is the ADR directory commands' business
//! (`adr_dir::catalog`); the rules on the directory (`rules::index`,
//! `rules::numbering`) only read this model.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use super::{Adr, FrontMatter};

/// One ADR file of the directory.
#[derive(Debug)]
pub struct Entry {
    /// Absolute path, lexically normalised.
    pub path: PathBuf,
    /// Path relative to the ADR directory with `/` separators (the INDEX.md link).
    pub link: String,
    pub file_number: Option<u32>,
    /// The parse, when the file could be read as text.
    pub adr: Option<Adr>,
}

impl Entry {
    pub fn front_matter(&self) -> Option<&FrontMatter> {
        self.adr.as_ref().and_then(Adr::front_matter)
    }

    /// The number in `adr_id`, when it is one.
    pub fn id_number(&self) -> Option<u32> {
        self.front_matter()
            .and_then(|fm| fm.adr_id.valid())
            .and_then(|id| super::number_in_id(id))
    }

    /// The ADR's number: its `adr_id`, else the number in its file name.
    pub fn number(&self) -> Option<u32> {
        self.id_number().or(self.file_number)
    }

    /// Whether `number` is this ADR's, by `adr_id` or by file name.
    pub fn has_number(&self, number: u32) -> bool {
        self.id_number() == Some(number) || self.file_number == Some(number)
    }

    /// The front matter's `title`, else the `# ` heading without a Nygard number
    /// (`# 3. Use X` is "Use X"): MADR and adr-tools keep the title only there.
    pub fn title(&self) -> Option<&str> {
        self.front_matter()
            .and_then(|fm| fm.title.valid())
            .map(|t| t.trim())
            .or_else(|| {
                let heading = self.adr.as_ref()?.sections.iter().find(|s| s.level == 1)?;
                Some(strip_title_number(heading.title.trim()).trim()).filter(|t| !t.is_empty())
            })
    }

    pub fn status(&self) -> Option<&str> {
        self.front_matter()
            .and_then(|fm| fm.status.valid())
            .map(|s| s.trim())
    }
}

/// The largest ADR number taken into account for numbering. A larger one (a typo,
/// `adr_id: 4294967295`) is reported by `rules::numbering` and ignored, so it can
/// neither exhaust the numbers nor open a gap of billions.
pub const MAX_NUMBER: u32 = 99_999;

/// Every ADR of one directory, sorted by path.
#[derive(Debug)]
pub struct Catalog {
    /// The ADR directory (absolute).
    pub dir: PathBuf,
    pub entries: Vec<Entry>,
    /// Digits of a number in file names and INDEX.md (`adr.number_width`: 3 for HELIX,
    /// 4 for MADR and adr-tools).
    pub width: usize,
    /// Numbered Markdown files of the directory that `adr.exclude` keeps out
    /// (`000-template.md`), by number: not ADRs, but their numbers are never
    /// handed out again ([`Catalog::next_number`] counts them).
    pub reserved: Vec<(u32, PathBuf)>,
}

impl Catalog {
    /// `number` as this directory writes it (`038` or `0038`).
    pub fn format(&self, number: u32) -> String {
        format_number_width(number, self.width)
    }

    /// Numbers used by a file name or an `adr_id`, up to [`MAX_NUMBER`].
    pub fn taken(&self) -> BTreeSet<u32> {
        self.entries
            .iter()
            .flat_map(|e| [e.file_number, e.id_number()])
            .flatten()
            .filter(|&n| n <= MAX_NUMBER)
            .collect()
    }

    /// [`Catalog::taken`] and the numbers of [`Catalog::reserved`] files: every
    /// number a file of the directory carries in its name or `adr_id`.
    pub fn used(&self) -> BTreeSet<u32> {
        let mut used = self.taken();
        used.extend(
            self.reserved
                .iter()
                .map(|(n, _)| *n)
                .filter(|&n| n <= MAX_NUMBER),
        );
        used
    }

    /// The excluded file whose name carries `number`, if any.
    pub fn reserved_by(&self, number: u32) -> Option<&Path> {
        self.reserved
            .iter()
            .find(|(n, _)| *n == number)
            .map(|(_, p)| p.as_path())
    }

    /// The first ADR that uses `number` (by `adr_id` or file name).
    pub fn holder(&self, number: u32) -> Option<&Entry> {
        self.entries.iter().find(|e| e.has_number(number))
    }

    /// The entry at `path` (compared after lexical normalisation).
    pub fn find_path(&self, path: &Path) -> Option<usize> {
        let path = crate::paths::absolute(path);
        self.entries.iter().position(|e| e.path == path)
    }
}

/// A numbered title (`12. Use X`, adr-tools) without its number; any other title as is.
pub fn strip_title_number(title: &str) -> &str {
    let digits = title.len() - title.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    match title[digits..].strip_prefix('.') {
        Some(rest) if digits > 0 && rest.starts_with(char::is_whitespace) => rest,
        _ => title,
    }
}

/// `39` -> `039`; numbers of four or more digits keep all of them.
pub fn format_number(number: u32) -> String {
    format!("{number:03}")
}

/// `number` padded to `width` digits (MADR and adr-tools name files `0038-...`).
pub fn format_number_width(number: u32, width: usize) -> String {
    format!("{number:0width$}")
}

/// Longest summary taken from the Kontext section, in characters.
pub const SUMMARY_MAX: usize = 100;

/// The first sentence of the Kontext/Context section (MADR: "Context and Problem
/// Statement") as plain text, cut to about [`SUMMARY_MAX`] characters at a word; empty
/// when there is no such section.
pub fn summary(adr: &Adr) -> String {
    let keys = [
        "kontext".to_owned(),
        "context".to_owned(),
        "context and problem statement".to_owned(),
    ];
    let Some(section) = adr.section(&keys) else {
        return String::new();
    };
    // Line by line, so that a line still holding a template's hint (brackets removed or
    // not) is skipped: the summary is never the template's `<Warum wird das gebraucht?>`.
    let mut text = String::new();
    let mut line = String::new();
    let mut in_paragraph = false;
    let keep = |line: &mut String, text: &mut String| {
        if !super::template_hints::is_hint(line) {
            text.push_str(line);
            text.push(' ');
        }
        line.clear();
    };
    for event in Parser::new(adr.content(section)) {
        match event {
            Event::Start(Tag::Paragraph) => in_paragraph = true,
            Event::End(TagEnd::Paragraph) => {
                in_paragraph = false;
                keep(&mut line, &mut text);
                if !text.trim().is_empty() {
                    break;
                }
            }
            Event::Text(t) | Event::Code(t) if in_paragraph => line.push_str(&t),
            Event::SoftBreak | Event::HardBreak if in_paragraph => keep(&mut line, &mut text),
            _ => {}
        }
    }
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    shorten(first_sentence(&text), SUMMARY_MAX)
}

/// Up to and including the first `.`, `!` or `?` that is followed by a space.
fn first_sentence(text: &str) -> &str {
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if matches!(c, '.' | '!' | '?') && chars.peek().is_some_and(|&(_, next)| next == ' ') {
            return &text[..i + c.len_utf8()];
        }
    }
    text
}

fn shorten(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let head = crate::text::prefix(text, max);
    let cut = head.rfind(' ').map_or(head, |i| &head[..i]);
    format!("{}...", cut.trim_end_matches([',', ';', ':', ' ']))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_padded_to_three_digits() {
        assert_eq!(format_number(7), "007");
        assert_eq!(format_number(39), "039");
        assert_eq!(format_number(1234), "1234");
    }

    #[test]
    fn summary_never_takes_a_template_hint() {
        let adr = Adr::parse(
            "## Kontext\n\nWarum wird das gebraucht? Welches Problem gibt es heute, wen betrifft es, was kostet es?\n\nDer Hook liest die Regeln bei jedem Aufruf neu. Das kostet Zeit.\n",
        );
        assert_eq!(
            summary(&adr),
            "Der Hook liest die Regeln bei jedem Aufruf neu."
        );
        let adr = Adr::parse("## Kontext\n\n<Warum wird das gebraucht?>\nEchter Grund hier.\n");
        assert_eq!(summary(&adr), "Echter Grund hier.");
        let adr = Adr::parse("## Kontext\n\nWarum wird das gebraucht?\n");
        assert_eq!(summary(&adr), "");
    }

    #[test]
    fn summary_is_the_first_sentence_of_kontext() {
        let adr = Adr::parse(
            "---\nadr_id: 1\n---\n# T\n\n## Kontext\n\nEvery hook call parses the `rules` file\nagain. On large repositories this hurts.\n\n## Entscheidung\nx\n",
        );
        assert_eq!(
            summary(&adr),
            "Every hook call parses the rules file again."
        );
        let english = Adr::parse("## Context\n\nNo sentence end here\n");
        assert_eq!(summary(&english), "No sentence end here");
        assert_eq!(summary(&Adr::parse("## Entscheidung\nx\n")), "");
        let madr =
            Adr::parse("# T\n\n## Context and Problem Statement\n\nWe need a queue. More.\n");
        assert_eq!(summary(&madr), "We need a queue.");
    }

    #[test]
    fn long_summaries_are_cut_at_a_word() {
        let long = format!("## Kontext\n\n{}end.\n", "word ".repeat(40));
        let s = summary(&Adr::parse(&long));
        assert!(s.ends_with("word..."), "{s}");
        assert!(s.chars().count() <= SUMMARY_MAX + 3, "{s}");
    }
}
