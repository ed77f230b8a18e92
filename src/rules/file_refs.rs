//! File references in `files.create` / `files.modify` / `files.docs`.
//!
//! Paths must be relative to the repository root and stay inside it ("absolute
//! paths are a no-go"); `files.modify` must name files that exist. Existence is
//! asked of [`super::RepoFiles`], so pre-commit can answer from the index.

use super::{Context, Presence};
use crate::adr::{Adr, Field};
use crate::diagnostic::Finding;

declare_rules! {
    /// ## What it does
    /// Checks that every path in `files.modify` exists, relative to the repository root (the
    /// working tree for validate and the hook, where a file git tracks outside a sparse
    /// checkout or marked skip-worktree exists too; the staged index for pre-commit). When
    /// pre-commit finds the path in the working tree but not in the index, the message says
    /// that it is not staged.
    ///
    /// ## Why
    /// An ADR that plans to modify a file that is not there was written against a wrong picture of
    /// the code.
    ///
    /// ## Fix
    /// Correct the path, remove it, or move it to files.create if the file is new; for a file
    /// that is only not staged, `git add` it.
    pub const MODIFY_MISSING {
        id: "files-modify-missing",
        severity: Error,
        category: FileReferences,
        summary: "a files.modify path does not exist in the repository",
    }

    /// ## What it does
    /// Rejects paths in files.create/modify/docs that are absolute (`/home/...`), start with `~` or
    /// a drive letter (`C:`).
    ///
    /// ## Why
    /// Absolute paths only work on the author's machine. The user: "absolute paths are a no-go".
    ///
    /// ## Fix
    /// Write the path relative to the repository root: `src/main.rs`, not
    /// `/home/me/project/src/main.rs`.
    pub const PATH_ABSOLUTE {
        id: "files-path-absolute",
        severity: Error,
        category: FileReferences,
        summary: "a files path is absolute, starts with ~ or a drive letter",
    }

    /// ## What it does
    /// Rejects paths in files.create/modify/docs whose `..` components climb above the repository
    /// root.
    ///
    /// ## Why
    /// An ADR can only plan changes inside its repository; such paths are never checked and may
    /// point anywhere.
    ///
    /// ## Fix
    /// Write the path relative to the repository root without leaving it.
    pub const PATH_ESCAPES {
        id: "files-path-escapes-repo",
        severity: Error,
        category: FileReferences,
        summary: "a files path leaves the repository with ..",
    }

    /// ## What it does
    /// Warns when a path in `files.create` already exists and the ADR is still Proposed.
    ///
    /// ## Why
    /// Either the file should be listed under files.modify, or the ADR would overwrite existing
    /// work.
    ///
    /// ## Fix
    /// Move the path to files.modify, or choose a new file name.
    pub const CREATE_EXISTS {
        id: "files-create-exists",
        severity: Warning,
        category: FileReferences,
        summary: "a files.create path already exists while status is Proposed",
    }
}

/// Why a referenced path cannot be used, or its normalised form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathCheck {
    Relative(String),
    Absolute,
    Escapes,
    Empty,
}

/// Classify a path from the front matter without touching the file system.
pub fn classify(path: &str) -> PathCheck {
    let path = path.trim();
    if path.is_empty() {
        return PathCheck::Empty;
    }
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if path.starts_with(['/', '\\', '~']) || drive {
        return PathCheck::Absolute;
    }
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return PathCheck::Escapes;
                }
            }
            other => parts.push(other),
        }
    }
    if parts.is_empty() {
        return PathCheck::Empty;
    }
    PathCheck::Relative(parts.join("/"))
}

/// Line of `path` in the front matter, or of the `files` key.
fn line_of(adr: &Adr, path: &str, fallback: usize) -> usize {
    adr.yaml_text()
        .find(path)
        .map_or(fallback, |i| adr.line_of(adr.yaml_range.start + i))
}

pub fn check(adr: &Adr, ctx: &Context<'_>, out: &mut Vec<Finding>) {
    let Some(fm) = adr.front_matter() else { return };
    let Field::Valid(files) = &fm.files else {
        return;
    };
    let files_line = fm.key_lines.get("files").copied().unwrap_or(1);
    let proposed = fm
        .status
        .valid()
        .is_some_and(|s| s.trim().eq_ignore_ascii_case("proposed"));
    for (list, paths) in [
        ("create", &files.create),
        ("modify", &files.modify),
        ("docs", &files.docs),
    ] {
        for path in paths {
            // A template gap (`<src/pfad/datei.rs>`) is the template-placeholder
            // rule's finding; looking it up as a file would report it twice.
            if path.starts_with('<') && path.ends_with('>') {
                continue;
            }
            // Looked up only for a finding: most paths have none.
            let line = || line_of(adr, path, files_line);
            match classify(path) {
                PathCheck::Absolute => out.push(
                    PATH_ABSOLUTE
                        .finding(format!(
                            "files.{list}: `{path}` is not relative to the repository"
                        ))
                        .at(line())
                        .hint("write the path relative to the repository root, e.g. src/main.rs"),
                ),
                PathCheck::Escapes => out.push(
                    PATH_ESCAPES
                        .finding(format!("files.{list}: `{path}` leaves the repository"))
                        .at(line())
                        .hint("reference only files inside the repository, relative to its root"),
                ),
                PathCheck::Empty => out.push(
                    PATH_ESCAPES
                        .finding(format!("files.{list}: an entry names no file"))
                        .at(line())
                        .hint("remove the empty entry"),
                ),
                PathCheck::Relative(rel) => {
                    if list == "modify" {
                        let (message, hint) = match ctx.repo.presence(&rel) {
                            Presence::Present => continue,
                            Presence::Missing => {
                                ("does not exist", "remove it or move it to files.create")
                            }
                            Presence::MissingHere { message, hint } => (message, hint),
                        };
                        out.push(
                            MODIFY_MISSING
                                .finding(format!("files.modify: `{path}` {message}"))
                                .at(line())
                                .hint(hint),
                        );
                    } else if list == "create" && proposed && ctx.repo.exists(&rel) {
                        out.push(
                            CREATE_EXISTS
                                .finding(format!("files.create: `{path}` already exists"))
                                .at(line())
                                .hint("move it to files.modify or choose a new name"),
                        );
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::RepoFiles;
    use crate::rules::testing::{GOOD, ids, run};

    #[test]
    fn classify_paths() {
        assert_eq!(
            classify("src/./a/../b.rs"),
            PathCheck::Relative("src/b.rs".into())
        );
        assert_eq!(classify("/home/u/x.py"), PathCheck::Absolute);
        assert_eq!(classify("~/x"), PathCheck::Absolute);
        assert_eq!(classify("C:\\x"), PathCheck::Absolute);
        assert_eq!(classify("\\\\server\\share"), PathCheck::Absolute);
        assert_eq!(classify("a/../../etc/passwd"), PathCheck::Escapes);
        assert_eq!(classify("  "), PathCheck::Empty);
    }

    #[test]
    fn modify_must_exist() {
        let f = run(GOOD, "x.md", &[]);
        assert_eq!(ids(&f), ["files-modify-missing"]);
        assert_eq!(f[0].line, Some(13));
        assert_eq!(
            f[0].hint.as_deref(),
            Some("remove it or move it to files.create")
        );
    }

    #[test]
    fn a_path_the_caller_sees_elsewhere_is_worded_by_the_caller() {
        struct Unstaged;
        impl RepoFiles for Unstaged {
            fn exists(&self, _: &str) -> bool {
                false
            }
            fn presence(&self, _: &str) -> Presence {
                Presence::MissingHere {
                    message: "is somewhere else",
                    hint: "fetch it",
                }
            }
        }
        let rules = crate::config::RuleSet::builtin().unwrap();
        let adr = Adr::parse(GOOD);
        let ctx = Context {
            path: std::path::Path::new("x.md"),
            rules: &rules,
            repo: &Unstaged,
        };
        let mut f = Vec::new();
        check(&adr, &ctx, &mut f);
        assert_eq!(ids(&f), ["files-modify-missing"]);
        assert_eq!(f[0].message, "files.modify: `src/lib.rs` is somewhere else");
        assert_eq!(f[0].hint.as_deref(), Some("fetch it"));
    }

    #[test]
    fn absolute_and_escaping_paths_are_errors_and_not_looked_up() {
        let text = GOOD.replace(
            "    - src/lib.rs",
            "    - src/lib.rs\n    - /home/aiuser01/helix-v4/src/x.py\n    - ../../etc/passwd",
        );
        let f = run(&text, "x.md", &["src/lib.rs"]);
        assert_eq!(ids(&f), ["files-path-absolute", "files-path-escapes-repo"]);
    }

    #[test]
    fn create_existing_warns_only_while_proposed() {
        let text = GOOD.replace("create: []", "create: [src/lib.rs]");
        assert_eq!(
            ids(&run(&text, "x.md", &["src/lib.rs"])),
            ["files-create-exists"]
        );
        let accepted = text.replace("status: Proposed", "status: Accepted");
        assert!(run(&accepted, "x.md", &["src/lib.rs"]).is_empty());
    }
}
