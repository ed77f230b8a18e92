//! The two sides of a supersession written into ADR texts, for
//! `helix-gate new --supersedes N`: the successor's `supersedes:` list and the
//! predecessor's `superseded_by:` list, as `depends_on` writes ids (`["0003"]`).
//! An ADR without front matter (Nygard, adr-tools) gets adr-tools' lines in its
//! `## Status` section instead (`Supersedes [3. Title](0003-title.md)`).
//!
//! The texts are edited line by line, keeping everything else as written; the
//! status is left alone (accepting the successor and retiring the predecessor is
//! a person's decision, checked by `supersession-predecessor-active`).

/// One side of a link: the other ADR's id as the directory writes it (`0003`), its
/// title and its file name (for the Markdown link of a text without front matter).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Other<'a> {
    pub id: &'a str,
    pub title: &'a str,
    pub file_name: &'a str,
}

/// The range of the front matter's lines (between the `---` lines), if any.
fn front_matter_lines(lines: &[&str]) -> Option<(usize, usize)> {
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        return None;
    }
    let end = lines
        .iter()
        .enumerate()
        .skip(1)
        .find(|(_, l)| matches!(l.trim_end(), "---" | "..."))?
        .0;
    Some((1, end))
}

/// `text` with `id` added to the front matter list `key` (created after `status:`,
/// or at the end of the front matter), or `None` when it has no front matter.
fn add_to_list(text: &str, key: &str, id: &str) -> Option<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let view: Vec<&str> = text.lines().collect();
    let (start, end) = front_matter_lines(&view)?;
    let quoted = format!("\"{id}\"");
    let prefix = format!("{key}:");
    if let Some(at) = (start..end).find(|&i| view[i].starts_with(&prefix)) {
        let rest = view[at][prefix.len()..].trim();
        if let Some(inner) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            let inner = inner.trim();
            lines[at] = if inner.is_empty() {
                format!("{key}: [{quoted}]")
            } else {
                format!("{key}: [{inner}, {quoted}]")
            };
        } else if rest.is_empty() {
            // A block list: after its last item, with its indentation.
            let mut last = at;
            let mut indent = "  ";
            for (i, line) in view.iter().enumerate().take(end).skip(at + 1) {
                let trimmed = line.trim_start();
                if trimmed.starts_with("- ") {
                    last = i;
                    indent = &line[..line.len() - trimmed.len()];
                } else if !trimmed.is_empty() {
                    break;
                }
            }
            lines.insert(last + 1, format!("{indent}- {quoted}"));
        } else {
            lines[at] = format!("{key}: [{rest}, {quoted}]");
        }
    } else {
        let after = (start..end)
            .find(|&i| view[i].starts_with("status:"))
            .map_or(end, |i| i + 1);
        lines.insert(after, format!("{key}: [{quoted}]"));
    }
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    Some(out)
}

/// `line` appended at the end of the `## Status` section (or after the title when
/// there is none).
fn add_status_line(text: &str, line: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let status = lines
        .iter()
        .position(|l| l.trim().eq_ignore_ascii_case("## status"));
    let at = match status {
        Some(s) => {
            let next = lines
                .iter()
                .enumerate()
                .skip(s + 1)
                .find(|(_, l)| l.starts_with("# ") || l.starts_with("## "))
                .map_or(lines.len(), |(i, _)| i);
            // Before the blank lines that end the section.
            let mut at = next;
            while at > s + 1 && lines[at - 1].trim().is_empty() {
                at -= 1;
            }
            at
        }
        None => lines
            .iter()
            .position(|l| l.starts_with("# "))
            .map_or(0, |i| i + 1),
    };
    let mut out: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
    out.insert(at, String::new());
    out.insert(at + 1, line.to_owned());
    let mut text_out = out.join("\n");
    if text.ends_with('\n') {
        text_out.push('\n');
    }
    text_out
}

/// The link adr-tools writes: `[3. Title](0003-title.md)`.
fn link(other: &Other<'_>) -> String {
    let number = other.id.trim_start_matches('0');
    let number = if number.is_empty() { "0" } else { number };
    format!("[{number}. {}]({})", other.title, other.file_name)
}

/// The successor's text naming `predecessor` as replaced by it.
pub fn successor_text(text: &str, predecessor: &Other<'_>) -> String {
    add_to_list(text, "supersedes", predecessor.id)
        .unwrap_or_else(|| add_status_line(text, &format!("Supersedes {}", link(predecessor))))
}

/// The predecessor's text naming `successor` as the ADR that replaces it.
pub fn predecessor_text(text: &str, successor: &Other<'_>) -> String {
    add_to_list(text, "superseded_by", successor.id)
        .unwrap_or_else(|| add_status_line(text, &format!("Superseded by {}", link(successor))))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEVEN: Other<'static> = Other {
        id: "0007",
        title: "Use gRPC",
        file_name: "0007-use-grpc.md",
    };

    #[test]
    fn front_matter_lists_grow_in_their_own_style() {
        assert_eq!(
            predecessor_text("---\nstatus: accepted\ndate: x\n---\n# T\n", &SEVEN),
            "---\nstatus: accepted\nsuperseded_by: [\"0007\"]\ndate: x\n---\n# T\n"
        );
        assert_eq!(
            predecessor_text("---\nsuperseded_by: [\"0005\"]\n---\n", &SEVEN),
            "---\nsuperseded_by: [\"0005\", \"0007\"]\n---\n"
        );
        assert_eq!(
            predecessor_text(
                "---\nsuperseded_by:\n    - \"0005\"\nstatus: x\n---\n",
                &SEVEN
            ),
            "---\nsuperseded_by:\n    - \"0005\"\n    - \"0007\"\nstatus: x\n---\n"
        );
        assert_eq!(
            predecessor_text("---\nsuperseded_by: 5\n---\n", &SEVEN),
            "---\nsuperseded_by: [5, \"0007\"]\n---\n"
        );
        assert_eq!(
            successor_text("---\ntitle: x\n---\n", &SEVEN),
            "---\ntitle: x\nsupersedes: [\"0007\"]\n---\n"
        );
    }

    #[test]
    fn without_front_matter_the_status_section_gets_adr_tools_lines() {
        let old =
            "# 3. Use REST\n\nDate: 2026-01-01\n\n## Status\n\nAccepted\n\n## Context\n\nX.\n";
        assert_eq!(
            predecessor_text(old, &SEVEN),
            "# 3. Use REST\n\nDate: 2026-01-01\n\n## Status\n\nAccepted\n\nSuperseded by [7. Use gRPC](0007-use-grpc.md)\n\n## Context\n\nX.\n"
        );
        let adr = crate::adr::Adr::parse(&predecessor_text(old, &SEVEN));
        assert_eq!(crate::adr::succession::successors(&adr), [7]);
        let new = successor_text(
            "# 7. Use gRPC\n\n## Status\n\nProposed\n",
            &Other {
                id: "0003",
                title: "Use REST",
                file_name: "0003-use-rest.md",
            },
        );
        assert_eq!(
            new,
            "# 7. Use gRPC\n\n## Status\n\nProposed\n\nSupersedes [3. Use REST](0003-use-rest.md)\n"
        );
        assert_eq!(
            crate::adr::succession::predecessors(&crate::adr::Adr::parse(&new)),
            [3]
        );
    }
}
