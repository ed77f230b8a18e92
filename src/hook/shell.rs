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
/// Operators (`>`, `>>`, `|`, `;`, `&&`, ...) are words of their own; a line
/// break outside quotes ends a command like `;`, and the lines of a heredoc
/// (`<<EOF` ... `EOF`) are text, not words.
pub(super) fn words(command: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut word = String::new();
    let mut quote: Option<char> = None;
    // Delimiters of the heredocs opened on the current line.
    let mut heredocs: Vec<String> = Vec::new();
    let mut chars = command.chars().peekable();
    let flush = |word: &mut String, out: &mut Vec<String>, heredocs: &mut Vec<String>| {
        if !word.is_empty() {
            if out.last().is_some_and(|op| op == "<<") {
                heredocs.push(word.trim_start_matches('-').to_owned());
            }
            out.push(std::mem::take(word));
        }
    };
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (None, '\'' | '"') => quote = Some(c),
            (None, '\\') => match chars.next() {
                // A continued line.
                Some('\n') | None => {}
                Some(next) => word.push(next),
            },
            (None, '\n') => {
                flush(&mut word, &mut out, &mut heredocs);
                out.push(";".to_owned());
                for delimiter in std::mem::take(&mut heredocs) {
                    loop {
                        let line: String = chars.by_ref().take_while(|c| *c != '\n').collect();
                        if line.trim() == delimiter || chars.peek().is_none() {
                            break;
                        }
                    }
                }
            }
            (None, c) if c.is_whitespace() => flush(&mut word, &mut out, &mut heredocs),
            (None, '>' | '<' | '|' | ';' | '&' | '(' | ')') => {
                // `2>` and `&>` keep their descriptor out of the path.
                if word.chars().all(|d| d.is_ascii_digit()) {
                    word.clear();
                }
                flush(&mut word, &mut out, &mut heredocs);
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
    flush(&mut word, &mut out, &mut heredocs);
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

/// One simple command (no operators): the variable assignments before it, the
/// program's name (without its folder) and its arguments.
struct Simple<'a> {
    assignments: Vec<&'a str>,
    program: &'a str,
    args: Vec<&'a str>,
}

impl<'a> Simple<'a> {
    fn of(segment: &[&'a str]) -> Option<Simple<'a>> {
        // Skip `sudo`, `env X=1`, `command` and the like.
        let mut assignments = Vec::new();
        let mut words = segment.iter().copied().skip_while(|w| {
            let skip =
                matches!(*w, "sudo" | "env" | "command" | "exec" | "nohup") || w.contains('=');
            if skip && w.contains('=') {
                assignments.push(*w);
            }
            skip
        });
        let program = words.next()?;
        let args = words.collect();
        Some(Simple {
            assignments,
            program: program.rsplit('/').next().unwrap_or(program),
            args,
        })
    }
}

/// The simple commands of `command` (split at its operators; redirections and
/// their targets left out).
fn simple_commands(words: &[String]) -> Vec<Simple<'_>> {
    let mut out = Vec::new();
    let mut segment: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let word = words[i].as_str();
        if word.starts_with('>') || word == "&>" || word == "&>>" || word.starts_with('<') {
            // The redirection's target is no argument.
            i += 1;
        } else if is_operator(word) {
            out.extend(Simple::of(&segment));
            segment.clear();
        } else {
            segment.push(word);
        }
        i += 1;
    }
    out.extend(Simple::of(&segment));
    out
}

/// The files one simple command (no operators) writes.
fn written_by(segment: &[&str], out: &mut Vec<String>) {
    let Some(Simple { program, args, .. }) = Simple::of(segment) else {
        return;
    };
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

/// git's options before the subcommand that take the next word as their value.
const GIT_VALUE_OPTIONS: [&str; 8] = [
    "-C",
    "-c",
    "--git-dir",
    "--work-tree",
    "--namespace",
    "--config-env",
    "--super-prefix",
    "--attr-source",
];

/// A git command line: the configuration it sets for the one run (`-c`,
/// `--config-env`), its subcommand and the subcommand's arguments.
struct Git<'a> {
    config: Vec<&'a str>,
    sub: Option<&'a str>,
    args: &'a [&'a str],
}

impl<'a> Git<'a> {
    fn of(args: &'a [&'a str]) -> Git<'a> {
        let mut config = Vec::new();
        let mut i = 0;
        while let Some(&arg) = args.get(i) {
            if !arg.starts_with('-') {
                return Git {
                    config,
                    sub: Some(arg),
                    args: &args[i + 1..],
                };
            }
            if let Some(value) = arg.strip_prefix("--config-env=") {
                config.push(value);
            } else if GIT_VALUE_OPTIONS.contains(&arg) {
                if matches!(arg, "-c" | "--config-env") {
                    config.extend(args.get(i + 1));
                }
                i += 1;
            }
            i += 1;
        }
        Git {
            config,
            sub: None,
            args: &[],
        }
    }
}

/// The operands of `args`: the words that are no option, the values of
/// `valued` options left out; everything after `--` is an operand.
fn operands(args: &[&str], valued: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&arg) = args.get(i) {
        if arg == "--" {
            out.extend(args[i + 1..].iter().map(|a| (*a).to_owned()));
            break;
        }
        if valued.contains(&arg) {
            i += 1;
        } else if !arg.starts_with('-') {
            out.push(arg.to_owned());
        }
        i += 1;
    }
    out
}

/// The paths that git's own file commands in `command` write, move, restore or
/// delete: `git mv`, `git rm`, `git checkout [REV] [--] PATH`, `git restore`.
/// (A revision named where a path may stand is returned too: it names no file
/// of helix-gate's.)
pub(super) fn git_written(command: &str) -> Vec<String> {
    let words = words(command);
    let mut out = Vec::new();
    for simple in simple_commands(&words) {
        if simple.program != "git" {
            continue;
        }
        let git = Git::of(&simple.args);
        out.extend(match git.sub {
            Some("mv" | "rm") => operands(git.args, &["--pathspec-from-file"]),
            Some("checkout") => operands(git.args, &["-b", "-B", "--orphan", "--conflict"]),
            Some("restore") => operands(git.args, &["-s", "--source", "--pathspec-from-file"]),
            _ => Vec::new(),
        });
    }
    out
}

/// Whether `arg` is `--no-verify` or an abbreviation git takes for it.
fn is_no_verify(arg: &str) -> bool {
    arg.len() >= "--no-veri".len() && "--no-verify".starts_with(arg)
}

/// `git commit`'s long options that take the next word as their value.
const COMMIT_VALUED: [&str; 12] = [
    "--message",
    "--file",
    "--author",
    "--date",
    "--reuse-message",
    "--reedit-message",
    "--fixup",
    "--squash",
    "--template",
    "--cleanup",
    "--trailer",
    "--pathspec-from-file",
];

/// Whether `git commit ARGS` skips the hooks: `--no-verify`, or `-n` alone or
/// in a cluster (`-anm msg`), a message that merely mentions it not counted.
fn commit_skips_hooks(args: &[&str]) -> bool {
    let mut i = 0;
    while let Some(&arg) = args.get(i) {
        if arg == "--" {
            break;
        }
        if is_no_verify(arg) {
            return true;
        }
        if arg.starts_with("--") {
            if COMMIT_VALUED.contains(&arg) {
                i += 1;
            }
        } else if let Some(cluster) = arg.strip_prefix('-') {
            for (at, flag) in cluster.char_indices() {
                match flag {
                    'n' => return true,
                    // The value follows: the rest of the cluster, else the next word.
                    'm' | 'F' | 'C' | 'c' | 't' => {
                        if at + 1 == cluster.len() {
                            i += 1;
                        }
                        break;
                    }
                    // An optional value, attached.
                    'u' | 'S' => break,
                    _ => {}
                }
            }
        }
        i += 1;
    }
    false
}

/// Whether a variable assignment (`NAME=value`) hands git a `core.hooksPath`
/// (`GIT_CONFIG_PARAMETERS`, `GIT_CONFIG_KEY_<n>`).
fn sets_hooks_path(assignment: &str) -> bool {
    assignment.starts_with("GIT_CONFIG")
        && assignment.to_ascii_lowercase().contains("core.hookspath")
}

/// A `helix-gate override ...` in `command` (as written, shortened): a person's
/// override of an ADR rule for one commit, which the model may not give itself.
pub(super) fn overrides_rule(command: &str) -> Option<String> {
    helix_gate_running(command, &["override"])
}

/// A `helix-gate accept | reject | deprecate ...` in `command` (as written,
/// shortened): a person's change of an ADR's status, which the model may not
/// make itself.
pub(super) fn changes_status(command: &str) -> Option<String> {
    helix_gate_running(command, &["accept", "reject", "deprecate"])
}

/// The simple command of `command` that runs helix-gate with one of `subcommands`.
fn helix_gate_running(command: &str, subcommands: &[&str]) -> Option<String> {
    let words = words(command);
    simple_commands(&words).into_iter().find_map(|simple| {
        (simple.program == "helix-gate" && simple.args.iter().any(|a| subcommands.contains(a)))
            .then(|| {
                let mut all = vec![simple.program];
                all.extend(&simple.args);
                crate::text::truncate(&all.join(" "), 120)
            })
    })
}

/// The simple command of `command` that switches git's pre-commit hook off or
/// skips it, as written (quotes removed): `git commit --no-verify` (`-n`),
/// `git push --no-verify`, `git -c core.hooksPath=...`, `git config ...
/// core.hooksPath` (set or unset, any scope), `core.hooksPath` handed to git
/// through `GIT_CONFIG_*` variables, `helix-gate uninstall`.
pub(super) fn skips_hooks(command: &str) -> Option<String> {
    let words = words(command);
    simple_commands(&words).into_iter().find_map(|simple| {
        let found = simple.assignments.iter().any(|a| sets_hooks_path(a))
            || match simple.program {
                "export" => simple.args.iter().any(|a| sets_hooks_path(a)),
                "git" => {
                    let git = Git::of(&simple.args);
                    git.config
                        .iter()
                        .any(|c| c.to_ascii_lowercase().starts_with("core.hookspath"))
                        || match git.sub {
                            Some("commit") => commit_skips_hooks(git.args),
                            Some("push") => git
                                .args
                                .iter()
                                .take_while(|a| **a != "--")
                                .any(|a| is_no_verify(a)),
                            Some("config") => {
                                git.args
                                    .iter()
                                    .any(|a| a.eq_ignore_ascii_case("core.hooksPath"))
                                    && !git.args.iter().any(|a| {
                                        a.starts_with("--get")
                                            || matches!(*a, "get" | "list" | "-l" | "--list")
                                    })
                            }
                            _ => false,
                        }
                }
                "helix-gate" => {
                    simple.args.iter().find(|a| !a.starts_with('-')) == Some(&"uninstall")
                }
                _ => false,
            };
        found.then(|| {
            let mut all = simple.assignments.clone();
            all.push(simple.program);
            all.extend(&simple.args);
            crate::text::truncate(&all.join(" "), 120)
        })
    })
}

/// The patch of a Codex `apply_patch` run as a shell command
/// (`apply_patch <<'EOF' ... EOF`, also after `cd DIR &&`, or with the patch
/// as one quoted argument), and the folder it names: Codex applies such a
/// command as a patch.
pub(super) fn apply_patch_script(command: &str) -> Option<(Option<String>, String)> {
    let text = command.trim();
    let (cd, rest) = match text.strip_prefix("cd ") {
        Some(rest) => {
            let (dir, rest) = rest.split_once("&&")?;
            let dir = words(dir.trim());
            let [dir] = dir.as_slice() else {
                return None;
            };
            (Some(dir.clone()), rest.trim_start())
        }
        None => (None, text),
    };
    let rest = rest
        .strip_prefix("apply_patch")
        .or_else(|| rest.strip_prefix("applypatch"))?;
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let rest = rest.trim();
    if rest.starts_with("<<") {
        return Some((cd, rest.to_owned()));
    }
    // One quoted argument.
    let quote = rest.chars().next().filter(|q| matches!(q, '\'' | '"'))?;
    let inner = rest.strip_prefix(quote)?.strip_suffix(quote)?;
    Some((cd, inner.to_owned()))
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
    fn a_line_break_ends_a_command_and_heredoc_lines_are_text() {
        assert_eq!(
            words(
                "git add -A\ncat > n.md <<'EOF'\nrm config/helix-gate.yaml\nEOF\ngit commit \\\n  -n"
            ),
            [
                "git", "add", "-A", ";", "cat", ">", "n.md", "<<", "EOF", ";", "git", "commit",
                "-n"
            ]
        );
        assert_eq!(
            written("cat > n.md <<-EOF\nrm config/approvals.yaml\n\tEOF\n"),
            ["n.md"]
        );
    }

    #[test]
    fn gits_file_commands_name_what_they_change() {
        for (command, paths) in [
            (
                "git mv a.yaml config/helix-gate.yaml",
                &["a.yaml", "config/helix-gate.yaml"][..],
            ),
            ("git -C . rm -q --cached config", &["config"]),
            (
                "git checkout -- config/approvals.yaml",
                &["config/approvals.yaml"],
            ),
            ("git checkout HEAD~1 -- approvals", &["HEAD~1", "approvals"]),
            ("git checkout -b feature", &[]),
            (
                "git restore --source HEAD~2 --staged --worktree a b",
                &["a", "b"],
            ),
            ("git restore --source=HEAD~2 c", &["c"]),
            ("git -c x=y status config/helix-gate.yaml", &[]),
            ("git log -- config/helix-gate.yaml", &[]),
        ] {
            assert_eq!(git_written(command), paths, "{command}");
        }
    }

    #[test]
    fn commands_that_skip_the_pre_commit_hook() {
        for command in [
            "git commit --no-verify -m x",
            "git commit --no-veri -m x",
            "git commit -n",
            "git commit -anm x",
            "git commit -m x -n",
            "git -C sub commit -qn",
            "git add . && git commit -n -m x",
            "git add .\ngit commit -n -m x",
            "git push --no-verify",
            "git -c core.hooksPath=/dev/null commit -m x",
            "git --config-env=core.hooksPath=EMPTY commit",
            "git config core.hooksPath /dev/null",
            "git config --global core.hookspath x",
            "git config --unset core.hooksPath",
            "git config set core.hooksPath x",
            "GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='/dev/null'\" git commit",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=x git commit",
            "export GIT_CONFIG_PARAMETERS=\"'core.hooksPath'=''\"",
            "sudo env GIT_CONFIG_KEY_0=core.hooksPath git commit",
            "helix-gate uninstall git",
            "helix-gate uninstall codex --scope user",
        ] {
            assert!(skips_hooks(command).is_some(), "{command}");
        }
        for command in [
            "git commit -m '--no-verify mentioned'",
            "git commit -m \"-n\"",
            "git commit -F notes.txt",
            "git commit -Cn",
            "git commit -- -n",
            "git commit --amend --no-edit",
            "git log -n 3",
            "git push -n origin main",
            "git push origin -- --no-verify",
            "git config --get core.hooksPath",
            "git config core.editor vim",
            "git -c color.ui=never commit -m x",
            "echo git commit --no-verify",
            "cat > n.md <<'EOF'\ngit commit --no-verify\nEOF",
            "helix-gate install git",
        ] {
            assert_eq!(skips_hooks(command), None, "{command}");
        }
        assert_eq!(
            skips_hooks("cd x && git commit -n -m 'a b' && ls").as_deref(),
            Some("git commit -n -m a b")
        );
    }

    #[test]
    fn an_override_of_an_adr_rule_is_the_persons() {
        for command in [
            "helix-gate override ADR-014/no-direct-http --reason x",
            "cd repo && ./target/debug/helix-gate override ADR-1/r --reason 'a b'",
            "sudo env X=1 helix-gate --preset madr override R --reason y",
        ] {
            assert!(overrides_rule(command).is_some(), "{command}");
        }
        for command in [
            "helix-gate approve --override adr/001.md approved --reason x",
            "echo helix-gate override R",
            "helix-gate check --base origin/main",
        ] {
            assert_eq!(overrides_rule(command), None, "{command}");
        }
    }

    #[test]
    fn a_status_change_is_the_persons() {
        for command in [
            "helix-gate accept 3 --by Ann",
            "cd repo && ./target/debug/helix-gate reject ADR-0003 --by 'A B'",
            "helix-gate --preset madr deprecate 3 --by x",
        ] {
            assert!(changes_status(command).is_some(), "{command}");
        }
        for command in [
            "helix-gate history 3",
            "echo helix-gate accept 3",
            "helix-gate validate adr/003-accept.md",
        ] {
            assert_eq!(changes_status(command), None, "{command}");
        }
    }

    #[test]
    fn apply_patch_as_a_shell_command() {
        let patch = "*** Begin Patch\n*** Delete File: a\n*** End Patch";
        let heredoc = format!("<<'EOF'\n{patch}\nEOF");
        assert_eq!(
            apply_patch_script(&format!("apply_patch {heredoc}\n")),
            Some((None, heredoc.clone()))
        );
        assert_eq!(
            apply_patch_script(&format!("cd sub && applypatch {heredoc}")),
            Some((Some("sub".to_owned()), heredoc.clone()))
        );
        assert_eq!(
            apply_patch_script(&format!("apply_patch '{patch}'")),
            Some((None, patch.to_owned()))
        );
        for command in ["apply_patchx <<EOF", "echo apply_patch <<EOF", "cat a"] {
            assert_eq!(apply_patch_script(command), None, "{command}");
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
