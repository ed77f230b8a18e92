//! Metadata written in the Markdown body instead of front matter: MADR 2/3 put
//! `* Status: accepted` bullets under the title, adr-tools writes `Date: 2017-06-30`
//! there and the status as the first line of `## Status`.

use super::Adr;

/// A metadata value found in the body, with its 1-based line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyValue {
    pub value: String,
    pub line: usize,
}

impl Adr {
    /// The value of a `Name: value` line (also `* Name: value`, `**Name:** value`)
    /// between the start of the body and the first level-2 section; `name` is
    /// compared case-insensitively.
    pub fn metadata_line(&self, name: &str) -> Option<BodyValue> {
        let end = self
            .sections
            .iter()
            .find(|s| s.level == 2)
            .map_or(self.text.len(), |s| s.heading_start);
        let mut offset = self.body_start;
        for line in self.text[self.body_start..end].split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let item = line.trim_start();
            let item = item
                .strip_prefix(['*', '-', '+'])
                .filter(|rest| rest.starts_with([' ', '\t']))
                .unwrap_or(item);
            let Some((key, value)) = item.split_once(':') else {
                continue;
            };
            let key = key.trim().trim_matches(['*', '_']).trim();
            if key.eq_ignore_ascii_case(name) {
                let value = value.trim().trim_matches(['*', '_']).trim();
                return Some(BodyValue {
                    value: value.to_owned(),
                    line: self.line_of(start),
                });
            }
        }
        None
    }

    /// The status written in the body: a `Status:` line before the first section,
    /// else the first non-empty line of a `## Status` section.
    pub fn body_status(&self) -> Option<BodyValue> {
        if let Some(found) = self.metadata_line("status") {
            return Some(found);
        }
        let section = self.section(&["status".to_owned()])?;
        let mut offset = section.content_start;
        for line in self.content(section).split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            let value = line.trim().trim_matches(['*', '_']).trim();
            if !value.is_empty() {
                return Some(BodyValue {
                    value: value.to_owned(),
                    line: self.line_of(start),
                });
            }
        }
        None
    }

    /// The first level-1 heading's text and line.
    pub fn title_heading(&self) -> Option<BodyValue> {
        self.sections
            .iter()
            .find(|s| s.level == 1)
            .map(|s| BodyValue {
                value: s.title.clone(),
                line: self.line_of(s.heading_start),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::super::Adr;

    #[test]
    fn bullets_lines_and_sections() {
        let madr2 = Adr::parse(
            "# Use X\n\n* Status: accepted\n* Deciders: a, b\n- **Date:** 2020-10-20\n\n## Context and Problem Statement\n\nStatus: not this\n",
        );
        assert_eq!(madr2.body_status().unwrap().value, "accepted");
        assert_eq!(madr2.body_status().unwrap().line, 3);
        assert_eq!(madr2.metadata_line("date").unwrap().value, "2020-10-20");
        assert_eq!(madr2.title_heading().unwrap().value, "Use X");
        let nygard = Adr::parse(
            "# 1. Record\n\nDate: 2017-06-30\n\n## Status\n\nSuperseded by [2. X](0002-x.md)\n\n## Context\n\nx\n",
        );
        assert_eq!(
            nygard.body_status().unwrap().value,
            "Superseded by [2. X](0002-x.md)"
        );
        assert_eq!(nygard.metadata_line("Date").unwrap().line, 3);
        assert!(
            Adr::parse("# T\n\n## Context\n\nStatus: x\n")
                .body_status()
                .is_none()
        );
    }
}
