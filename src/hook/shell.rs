//! A look at a Bash command's text: which paths it names, and whether it
//! plainly writes, moves or deletes one of helix-gate's own files.
//!
//! This is not a shell parser and does not try to be: the model can always
//! write a file in a way no reading of the text sees (a script, a variable,
//! `cd` first). What it catches is the plain case, before it happens; every
//! other way is caught afterwards, by content: the session keeps its copy of
//! the configuration ([`super::baseline`]), and the ADRs are compared with the
//! session's baseline.

/// The words of a command: split at blanks and shell operators, quotes removed.
/// Operators (`>`, `>>`, `|`, `;`, `&&`, ...) are words of their own.
pub(super) fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    let mut chars = command.chars().peekable();
    let flush = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            out.push(std::mem::take(word));
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '\\') => {
                if let Some(next) = chars.next() {
                    word.push(next);
                }
            }
            (None, c) if c.is_whitespace() => flush(&mut word, &mut out),
            (None, '>' | '<' | '|' | ';' | '&' | '(' | ')') => {
                // `2>` and `&>` keep their descriptor out of the path.
                if word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                }
                flush(&mut word, &mut out);
                let mut op = c.to_string();
                while let Some(&next) = chars.peek() {
                    if matches!(next, '>' | '<' | '|' | '&') {
                        op.push(next);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(op);
            }
            (Some(_) | None, c) => word.push(c),
        }
    }
    flush(&mut word, &mut out);
    out
}

fn is_operator(word: &str) -> bool {
    word.chars()
        .all(|c| matches!(c, '>' | '<' | '|' | ';' | '&' | '(' | ')'))
}

/// Programs that change the files they are given.
const WRITERS: [&str; 11] = [
    "rm", "mv", "tee", "truncate", "touch", "unlink", "chmod", "shred", "rmdir", "rsync", "patch",
];
/// Programs that change their last argument (the destination).
const COPIERS: [&str; 3] = ["cp", "ln", "install"];
/// Programs that change their files only with an in-place flag.
const IN_PLACE: [&str; 3] = ["sed", "perl", "ruby"];

/// The words of `command` that it plainly writes, moves or deletes: redirect
/// targets, the arguments of [`WRITERS`] (and of [`IN_PLACE`] programs with
/// `-i`), the destination of [`COPIERS`], `dd of=`.
pub(super) fn written(command: &str) -> Vec<String> {
    let words = words(command);
    let mut out = Vec::new();
    let mut segment: Vec<&str> = Vec::new();
    let mut i = 0;
    while i <= words.len() {
        let word = words.get(i).map(String::as_str);
        match word {
            Some(op) if op.starts_with('>') || op == "&>" || op == "&>>" => {
                if let Some(target) = words.get(i + 1).filter(|w| !is_operator(w)) {
                    out.push(target.clone());
                    i += 1;
                }
            }
            Some(op) if is_operator(op) && !op.starts_with('<') => {
                written_by(&segment, &mut out);
                segment.clear();
            }
            None => written_by(&segment, &mut out),
            Some(w) => segment.push(w),
        }
        i += 1;
    }
    out
}

/// The files one simple command (no operators) writes.
fn written_by(segment: &[&str], out: &mut Vec<String>) {
    // Skip `sudo`, `env X=1`, `command` and the like.
    let mut words = segment.iter().skip_while(|w| {
        matches!(**w, "sudo" | "env" | "command" | "exec" | "nohup") || w.contains('=')
    });
    let Some(program) = words.next() else {
        return;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    let args: Vec<&str> = words.copied().collect();
    let paths = || {
        args.iter()
            .filter(|a| !a.starts_with('-'))
            .map(|a| (*a).to_owned())
    };
    let in_place = IN_PLACE.contains(&program)
        && args.iter().any(|a| {
            a.starts_with("-i") || *a == "--in-place" || (a.starts_with("-p") && a.contains('i'))
        });
    if WRITERS.contains(&program) || in_place {
        out.extend(paths());
    } else if COPIERS.contains(&program) {
        out.extend(paths().next_back());
    } else if program == "dd" {
        out.extend(
            args.iter()
                .filter_map(|a| a.strip_prefix("of="))
                .map(str::to_owned),
        );
    }
}

/// The words of `command` that look like paths of ADRs or phase plans
/// (`*.md`, `phases.yaml`), written to or not: the Bash hook looks at them
/// first, even in a folder it does not watch.
pub(super) fn named_documents(command: &str) -> Vec<String> {
    words(command)
        .into_iter()
        .filter(|w| {
            let md = std::path::Path::new(w)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("md"));
            !is_operator(w) && (md || w.ends_with("phases.yaml"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_split_at_operators_and_drop_quotes() {
        assert_eq!(
            words(r#"cat > 'adr/040 x.md' <<'EOF' && echo "a b" 2>/dev/null"#),
            [
                "cat",
                ">",
                "adr/040 x.md",
                "<<",
                "EOF",
                "&&",
                "echo",
                "a b",
                ">",
                "/dev/null"
            ]
        );
    }

    #[test]
    fn plain_writes_are_found() {
        for (command, file) in [
            (
                "echo 'hook: {budget: 99}' > config/helix-gate.yaml",
                "config/helix-gate.yaml",
            ),
            ("printf x >> config/approvals.yaml", "config/approvals.yaml"),
            ("rm -rf .helix-gate", ".helix-gate"),
            (
                "sed -i 's/true/false/' config/approvals.yaml",
                "config/approvals.yaml",
            ),
            (
                "cp /tmp/x.yaml config/helix-gate.yaml",
                "config/helix-gate.yaml",
            ),
            ("mv config/approvals.yaml /tmp/", "config/approvals.yaml"),
            (
                "echo x | tee approvals/adr/CLAUDE.md",
                "approvals/adr/CLAUDE.md",
            ),
            (
                "cd . && sudo truncate -s0 config/helix-gate.yaml",
                "config/helix-gate.yaml",
            ),
            (
                "dd if=/dev/zero of=config/helix-gate.yaml",
                "config/helix-gate.yaml",
            ),
        ] {
            assert!(
                written(command).iter().any(|w| w == file),
                "{command}: {:?}",
                written(command)
            );
        }
    }

    #[test]
    fn reads_are_not_writes() {
        for command in [
            "cat config/helix-gate.yaml",
            "cp config/helix-gate.yaml /tmp/copy.yaml",
            "grep -r budget config/ approvals/",
            "sed -n 1,5p config/approvals.yaml",
            "helix-gate validate adr/ 2>&1",
        ] {
            let w = written(command);
            assert!(
                !w.iter()
                    .any(|w| w.starts_with("config/") || w.starts_with("approvals")),
                "{command}: {w:?}"
            );
        }
    }

    #[test]
    fn documents_named_by_a_command() {
        assert_eq!(
            named_documents("cp drafts/x.txt adr/041-x.md && cat > s/output/phases.yaml"),
            ["adr/041-x.md", "s/output/phases.yaml"]
        );
    }
}
