//! The files a Codex `apply_patch` call writes, read from its patch text.
//!
//! Codex edits files with one tool, `apply_patch`, whose input is a patch in
//! Codex's own envelope (the hook gets it as `tool_input.command`, with no
//! `file_path`):
//!
//! ```text
//! *** Begin Patch
//! *** Add File: <path>          followed by `+` lines
//! *** Delete File: <path>
//! *** Update File: <path>
//! *** Move to: <path>           optional, right after an Update header
//! @@ ...                        hunks: ` `, `-`, `+` lines, `*** End of File`
//! *** End Patch
//! ```
//!
//! Paths are as the model wrote them: relative to the session's working
//! directory (the event's `cwd`), or absolute. Only the headers matter here;
//! the hunks are skipped the way Codex's parser skips them
//! (`codex-rs/apply-patch/src/parser.rs`): markers may carry surrounding
//! whitespace, an Add hunk ends at the first line not starting with `+`, an
//! Update hunk at the first line starting with `*` other than `*** End of
//! File`, and a patch wrapped in a `<<'EOF'` heredoc is unwrapped.

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE_TO: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// What a patch does to one path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// A new file (`*** Add File:`).
    Add,
    /// An existing file changed in place (`*** Update File:` without a move).
    Update,
    /// The file is removed (`*** Delete File:`).
    Delete,
    /// The source of a move (`*** Update File:` followed by `*** Move to:`): it
    /// no longer exists afterwards.
    MovedAway,
    /// The destination of a move (`*** Move to:`), with the updated content.
    MovedTo,
}

impl Change {
    /// Whether the path holds the patch's content afterwards (and so is checked).
    pub fn writes_content(self) -> bool {
        matches!(self, Change::Add | Change::Update | Change::MovedTo)
    }
}

/// One path a patch touches, as written in the patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Touched {
    pub path: String,
    pub change: Change,
    /// The patch's lines for this path: the `+` lines of an added file, the
    /// hunks of an updated or moved-to one; empty for the others.
    pub lines: Vec<String>,
}

impl Touched {
    /// The path's text after the patch, given its text now (`None`: no file):
    /// an added file's lines; an update's hunks applied in order, each found
    /// from where the last one ended (exactly, else ignoring trailing blanks, as
    /// Codex finds them). `None` when the patch writes no text here or a hunk is
    /// not found (Codex refuses that patch as well).
    pub fn new_text(&self, current: Option<&str>) -> Option<String> {
        match self.change {
            Change::Add => Some(joined(self.lines.iter().map(|l| &l[1..]))),
            Change::Update | Change::MovedTo => apply_hunks(current?, &self.lines),
            Change::Delete | Change::MovedAway => None,
        }
    }
}

/// Lines joined with a final newline.
fn joined<'a>(lines: impl Iterator<Item = &'a str>) -> String {
    let mut text = String::new();
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// `hunks` (Codex's update lines) applied to `current`.
fn apply_hunks(current: &str, hunks: &[String]) -> Option<String> {
    let mut lines: Vec<&str> = current.lines().collect();
    let mut cursor = 0;
    let mut hunk_start = 0;
    // (first line, end, the `@@ context` line that leads to it)
    let mut bounds: Vec<(usize, usize, Option<&str>)> = Vec::new();
    let mut anchor = None;
    for (i, line) in hunks.iter().enumerate() {
        if let Some(context) = line.strip_prefix("@@") {
            if i > hunk_start {
                bounds.push((hunk_start, i, anchor));
            }
            hunk_start = i + 1;
            anchor = Some(context.trim()).filter(|c| !c.is_empty());
        }
    }
    bounds.push((hunk_start, hunks.len(), anchor));
    for (start, end, anchor) in bounds {
        if let Some(anchor) = anchor {
            cursor = find_lines(&lines, &[anchor], cursor, |a, b| a.trim() == b.trim())? + 1;
        }
        let mut old: Vec<&str> = Vec::new();
        let mut new: Vec<&str> = Vec::new();
        for line in &hunks[start..end] {
            if line.trim() == END_OF_FILE {
                continue;
            }
            match line.chars().next() {
                Some('+') => new.push(&line[1..]),
                Some('-') => old.push(&line[1..]),
                Some(' ') => {
                    old.push(&line[1..]);
                    new.push(&line[1..]);
                }
                // An empty line in a hunk is an empty context line.
                None => {
                    old.push("");
                    new.push("");
                }
                Some(_) => return None,
            }
        }
        if old.is_empty() && new.is_empty() {
            continue;
        }
        let at = if old.is_empty() {
            lines.len()
        } else {
            find_lines(&lines, &old, cursor, |a, b| a == b)
                .or_else(|| find_lines(&lines, &old, cursor, |a, b| a.trim_end() == b.trim_end()))?
        };
        lines.splice(at..at + old.len(), new.iter().copied());
        cursor = at + new.len();
    }
    Some(joined(lines.into_iter()))
}

/// Where `needle` starts in `lines` at or after `from`, lines compared by `same`.
fn find_lines(
    lines: &[&str],
    needle: &[&str],
    from: usize,
    same: impl Fn(&str, &str) -> bool,
) -> Option<usize> {
    (from..=lines.len().checked_sub(needle.len())?)
        .find(|&at| needle.iter().zip(&lines[at..]).all(|(n, l)| same(l, n)))
}

/// Every path a patch touches, in the patch's order.
pub type Patch = Vec<Touched>;

/// Why a patch text could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PatchError {
    #[error(
        "the apply_patch input does not start with `*** Begin Patch` and end with `*** End Patch`"
    )]
    Envelope,
    #[error("line {line} of the apply_patch input is not a file header: {text:?}")]
    Header { line: usize, text: String },
    #[error("the apply_patch input names no file")]
    Empty,
}

/// The paths `text` touches.
pub fn parse(text: &str) -> Result<Patch, PatchError> {
    let lines: Vec<&str> = text.trim().lines().collect();
    let body = body(&lines).ok_or(PatchError::Envelope)?;
    let mut touched = Vec::new();
    let mut i = 0;
    while i < body.len() {
        let header = body[i].trim();
        i += 1;
        if header.is_empty() {
            continue;
        }
        if let Some(path) = header.strip_prefix(ADD) {
            let start = i;
            while i < body.len() && body[i].starts_with('+') {
                i += 1;
            }
            touched.push(with_lines(entry(path, Change::Add), &body[start..i]));
        } else if let Some(path) = header.strip_prefix(DELETE) {
            touched.push(entry(path, Change::Delete));
        } else if let Some(path) = header.strip_prefix(UPDATE) {
            let moved = body.get(i).and_then(|l| l.strip_prefix(MOVE_TO));
            if moved.is_some() {
                i += 1;
            }
            let start = i;
            while i < body.len() && !(body[i].starts_with('*') && body[i].trim() != END_OF_FILE) {
                i += 1;
            }
            match moved {
                Some(to) => {
                    touched.push(entry(path, Change::MovedAway));
                    touched.push(with_lines(entry(to, Change::MovedTo), &body[start..i]));
                }
                None => touched.push(with_lines(entry(path, Change::Update), &body[start..i])),
            }
        } else {
            return Err(PatchError::Header {
                // The Begin line is line 1.
                line: i + 1,
                text: crate::text::truncate(header, 120),
            });
        }
    }
    if touched.is_empty() {
        return Err(PatchError::Empty);
    }
    Ok(touched)
}

fn entry(path: &str, change: Change) -> Touched {
    Touched {
        path: path.trim().to_owned(),
        change,
        lines: Vec::new(),
    }
}

fn with_lines(mut touched: Touched, lines: &[&str]) -> Touched {
    touched.lines = lines.iter().map(|l| (*l).to_owned()).collect();
    touched
}

/// The lines between `*** Begin Patch` and `*** End Patch`, also inside a
/// `<<'EOF'` heredoc (Codex's lenient mode).
fn body<'a>(lines: &'a [&'a str]) -> Option<&'a [&'a str]> {
    let enveloped = |lines: &'a [&'a str]| match lines {
        [first, inner @ .., last] if first.trim() == BEGIN && last.trim() == END => Some(inner),
        _ => None,
    };
    enveloped(lines).or_else(|| match lines {
        [first, inner @ .., last]
            if matches!(*first, "<<EOF" | "<<'EOF'" | "<<\"EOF\"") && last.ends_with("EOF") =>
        {
            enveloped(inner)
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(text: &str) -> Vec<(String, Change)> {
        parse(text)
            .unwrap()
            .into_iter()
            .map(|t| (t.path, t.change))
            .collect()
    }

    #[test]
    fn every_header_is_a_touched_path() {
        let patch = "*** Begin Patch\n*** Add File: adr/040-x.md\n+---\n+adr_id: \"040\"\n*** Update File: adr/001-a.md\n@@ ## Kontext\n-old\n+new\n context\n*** End of File\n*** Delete File: adr/002-b.md\n*** Update File: drafts/x.md\n*** Move to: adr/041-y.md\n@@\n-a\n+b\n*** End Patch\n";
        assert_eq!(
            paths(patch),
            [
                ("adr/040-x.md".to_owned(), Change::Add),
                ("adr/001-a.md".to_owned(), Change::Update),
                ("adr/002-b.md".to_owned(), Change::Delete),
                ("drafts/x.md".to_owned(), Change::MovedAway),
                ("adr/041-y.md".to_owned(), Change::MovedTo),
            ]
        );
    }

    #[test]
    fn the_text_after_the_patch_is_worked_out_as_codex_applies_it() {
        let patch = parse("*** Begin Patch\n*** Add File: a.md\n+---\n+status: accepted\n*** Update File: b.md\n@@ # Head\n-status: proposed\n+status: accepted\n ---\n@@\n # T\n+\n+x\n*** End of File\n*** Delete File: c.md\n*** End Patch").unwrap();
        assert_eq!(
            patch[0].new_text(None).as_deref(),
            Some("---\nstatus: accepted\n")
        );
        let current = "# Head\nstatus: proposed  \n---\n# T\n";
        assert_eq!(
            patch[1].new_text(Some(current)).as_deref(),
            Some("# Head\nstatus: accepted\n---\n# T\n\nx\n")
        );
        // A hunk the file does not have: no text (Codex refuses that patch too).
        assert_eq!(patch[1].new_text(Some("# other\n")), None);
        assert_eq!(patch[1].new_text(None), None);
        assert_eq!(patch[2].new_text(Some(current)), None);
    }

    #[test]
    fn content_that_looks_like_a_header_is_content() {
        // An added line and a context line that read like headers stay content.
        let patch = "*** Begin Patch\n*** Add File: a.md\n+*** Delete File: config/helix-gate.yaml\n*** Update File: b.md\n@@\n *** Add File: .helix-gate/x\n-x\n+y\n*** End Patch";
        assert_eq!(
            paths(patch),
            [
                ("a.md".to_owned(), Change::Add),
                ("b.md".to_owned(), Change::Update),
            ]
        );
    }

    #[test]
    fn lenient_like_codex_padding_absolute_paths_and_a_heredoc() {
        assert_eq!(
            paths("  *** Begin Patch  \n  *** Add File:   /r/adr/1.md  \n+x\n*** End Patch  \n"),
            [("/r/adr/1.md".to_owned(), Change::Add)]
        );
        assert_eq!(
            paths("<<'EOF'\n*** Begin Patch\n*** Delete File: x.md\n*** End Patch\nEOF\n"),
            [("x.md".to_owned(), Change::Delete)]
        );
    }

    #[test]
    fn any_text_is_read_or_refused_never_a_panic() {
        use proptest::prelude::*;
        let line = prop_oneof![
            Just("*** Begin Patch".to_owned()),
            Just("*** End Patch".to_owned()),
            Just("*** End of File".to_owned()),
            "[ ]{0,2}\\*\\*\\* (Add|Delete|Update) File: .{0,12}".prop_map(String::from),
            "\\*\\*\\* Move to: .{0,12}".prop_map(String::from),
            "[-+ @*].{0,12}".prop_map(String::from),
            ".{0,16}".prop_map(String::from),
        ];
        let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
            cases: 512,
            failure_persistence: None,
            ..ProptestConfig::default()
        });
        runner
            .run(&prop::collection::vec(line, 0..12), |lines| {
                if let Ok(touched) = parse(&lines.join("\n")) {
                    prop_assert!(!touched.is_empty());
                }
                Ok(())
            })
            .unwrap();
    }

    #[test]
    fn not_a_patch_is_an_error() {
        assert_eq!(parse("hello"), Err(PatchError::Envelope));
        assert_eq!(
            parse("*** Begin Patch\n*** End Patch\n"),
            Err(PatchError::Empty)
        );
        assert!(matches!(
            parse("*** Begin Patch\n*** Frobnicate: x\n*** End Patch"),
            Err(PatchError::Header { line: 2, .. })
        ));
        assert_eq!(
            Change::MovedTo.writes_content(),
            !Change::MovedAway.writes_content()
        );
    }
}
