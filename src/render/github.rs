//! `--format github`: GitHub Actions workflow commands, one per finding, which the
//! runner turns into annotations on the pull request's files.
//!
//! A command is one line, `::error file=F,line=N,title=T::MESSAGE`. Its data must have
//! `%`, `\r` and `\n` escaped, its properties also `:` and `,`; otherwise a message
//! could end the command early or (after a newline) start a command of its own.

use std::fmt::Write as _;

use crate::diagnostic::{FileReport, Severity};

/// Escape the message part of a workflow command. Other control and text-direction
/// characters, which GitHub has no escape for, are shown as `\u{..}` so they cannot
/// play tricks in the log.
pub fn escape_data(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if crate::text::is_unsafe_char(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Escape a property value (`file`, `title`) of a workflow command.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// One workflow command per finding: errors as `::error`, warnings as `::warning`,
/// infos as `::notice`; the hint is the annotation's second line.
pub fn github(reports: &[FileReport]) -> String {
    let mut out = String::new();
    for (path, finding) in super::located(reports) {
        let command = match finding.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let _ = write!(out, "::{command} file={}", escape_property(path));
        if let Some(line) = finding.line {
            let _ = write!(out, ",line={line}");
        }
        let mut message = finding.message.clone();
        if let Some(hint) = &finding.hint {
            message.push_str("\nhint: ");
            message.push_str(hint);
        }
        let _ = writeln!(
            out,
            ",title={}::{}",
            escape_property(&finding.rule),
            escape_data(&message)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::Finding;

    #[test]
    fn hostile_text_stays_inside_one_command() {
        let reports = vec![FileReport {
            path: "adr/a,b:c.md".into(),
            findings: vec![
                Finding::new(
                    "x:y,z",
                    Severity::Warning,
                    "100% done\r\n::error file=evil.md::injected\u{1b}[2J\u{202e}",
                )
                .at(2),
            ],
        }];
        assert_eq!(
            github(&reports),
            "::warning file=adr/a%2Cb%3Ac.md,line=2,title=x%3Ay%2Cz::100%25 done%0D%0A::error file=evil.md::injected\\u{1b}[2J\\u{202e}\n"
        );
    }
}
