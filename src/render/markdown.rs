//! `helix-gate check --format markdown`: the body of a pull request comment,
//! "Decisions governing this change". Every ADR that governs a changed file is
//! listed under its force (binding, pending, context from a marker, historical),
//! linked to its file, with the changed files it governs and, inline, the
//! findings of its rules. The first line is an HTML comment the GitHub Action
//! finds the comment by, to update it instead of adding another.

use std::fmt::Write as _;

use super::plural;
use crate::diagnostic::{Finding, Severity};

/// The first line of the comment: how a later run finds it.
pub const COMMENT_MARKER: &str = "<!-- helix-gate:check -->";

/// One ADR that governs some of the changed files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoverningAdr {
    /// `ADR-014`.
    pub id: String,
    pub title: Option<String>,
    pub status: Option<String>,
    /// `binding`, `pending`, `context` or `none`.
    pub force: &'static str,
    /// Where the link leads: the ADR's file, or its address under a base URL.
    pub href: String,
    /// The changed files it governs, each with why (`governs: "src/**"`).
    pub paths: Vec<(String, String)>,
    /// The findings of its rules, each with its path set.
    pub findings: Vec<Finding>,
}

/// What the comment reports.
#[derive(Debug, Clone, Default)]
pub struct Comment<'a> {
    /// The base as given (`origin/main`) and the commit compared with.
    pub base: &'a str,
    pub base_commit: &'a str,
    /// How many files the change touches.
    pub changed: usize,
    pub adrs: &'a [GoverningAdr],
}

/// The groups, strongest first: (force, heading).
const GROUPS: [(&str, &str); 4] = [
    ("binding", "Binding"),
    ("pending", "Pending (proposed: its rules only warn)"),
    ("context", "Context (named by a marker in the code)"),
    (
        "none",
        "Historical (superseded, deprecated or rejected: binds nothing)",
    ),
];

/// The comment body.
pub fn comment(c: &Comment<'_>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{COMMENT_MARKER}");
    out.push_str("## Decisions governing this change\n\n");
    let findings: Vec<&Finding> = c.adrs.iter().flat_map(|a| &a.findings).collect();
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .count();
    let short = c.base_commit.get(..12).unwrap_or(c.base_commit);
    let _ = write!(
        out,
        "{} compared with `{}` (`{short}`): ",
        plural(c.changed, "changed file"),
        code(c.base)
    );
    if c.adrs.is_empty() {
        out.push_str("no ADR governs them.\n");
        return out;
    }
    let _ = writeln!(
        out,
        "{} {} them; their rules found {}, {}.",
        plural(c.adrs.len(), "ADR"),
        if c.adrs.len() == 1 {
            "governs"
        } else {
            "govern"
        },
        plural(errors, "error"),
        plural(warnings, "warning")
    );
    if errors > 0 {
        out.push_str("\n> [!CAUTION]\n> The change breaks a rule of an accepted ADR. Follow the decision, or change it with a new ADR.\n");
    }
    for (force, heading) in GROUPS {
        let group: Vec<&GoverningAdr> = c.adrs.iter().filter(|a| a.force == force).collect();
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n### {heading}\n");
        for adr in group {
            adr_item(&mut out, adr);
        }
    }
    out
}

/// One ADR: a bullet with its link and status, the files it governs, its findings.
fn adr_item(out: &mut String, adr: &GoverningAdr) {
    let title = adr
        .title
        .as_deref()
        .map(|t| format!(" {}", text(t)))
        .unwrap_or_default();
    let status = adr
        .status
        .as_deref()
        .map(|s| format!(" ({})", text(s)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "- [**{}**{title}]({}){status}",
        text(&adr.id),
        adr.href.replace(' ', "%20").replace(')', "%29")
    );
    let files: Vec<String> = adr
        .paths
        .iter()
        .map(|(path, why)| format!("`{}` ({})", code(path), text(why)))
        .collect();
    if !files.is_empty() {
        let _ = writeln!(out, "  - governs {}", files.join(", "));
    }
    for f in &adr.findings {
        let mark = match f.severity {
            Severity::Error => "❌ error",
            Severity::Warning => "⚠️ warning",
            Severity::Info => "ℹ️ note",
        };
        let place = match (&f.path, f.line) {
            (Some(path), Some(line)) => format!(" `{}:{line}`", code(path)),
            (Some(path), None) => format!(" `{}`", code(path)),
            _ => String::new(),
        };
        let _ = write!(
            out,
            "  - {mark} `{}`{place}: {}",
            code(&f.rule),
            text(&f.message)
        );
        if let Some(hint) = &f.hint {
            let _ = write!(out, " *Fix:* {}", text(hint));
        }
        out.push('\n');
    }
}

/// Text inside a code span: one line, no backtick that would end it.
fn code(s: &str) -> String {
    crate::text::escape_controls(s).replace('`', "'")
}

/// Text as Markdown shows it literally: one line, markup characters escaped.
fn text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in crate::text::escape_controls(s).chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '!' | '~'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adrs_are_grouped_by_force_with_findings_inline() {
        let adrs = [
            GoverningAdr {
                id: "ADR-003".into(),
                title: Some("Old <way>".into()),
                status: Some("Superseded by ADR-014".into()),
                force: "none",
                href: "adr/003-old.md".into(),
                paths: vec![("src/a.py".into(), "governs: \"src/**\"".into())],
                findings: vec![],
            },
            GoverningAdr {
                id: "ADR-014".into(),
                title: Some("Gateway".into()),
                status: Some("Accepted".into()),
                force: "binding",
                href: "adr/014 gw.md".into(),
                paths: vec![("src/a.py".into(), "governs: \"src/**\"".into())],
                findings: vec![
                    Finding::new(
                        "ADR-014/no-direct-http",
                        Severity::Error,
                        "imports `requests`",
                    )
                    .in_file("src/a.py")
                    .at(2)
                    .hint("use the gateway"),
                ],
            },
        ];
        let text = comment(&Comment {
            base: "origin/main",
            base_commit: "0123456789abcdef",
            changed: 1,
            adrs: &adrs,
        });
        assert!(text.starts_with(COMMENT_MARKER), "{text}");
        let binding = text.find("### Binding").unwrap();
        let historical = text.find("### Historical").unwrap();
        assert!(binding < historical, "{text}");
        assert!(
            text.contains("- [**ADR-014** Gateway](adr/014%20gw.md) (Accepted)"),
            "{text}"
        );
        assert!(text.contains("  - ❌ error `ADR-014/no-direct-http` `src/a.py:2`: imports \\`requests\\` *Fix:* use the gateway\n"), "{text}");
        assert!(text.contains("Old \\<way\\>"), "{text}");
        assert!(text.contains("1 error, 0 warnings"), "{text}");
    }
}
