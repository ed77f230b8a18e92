//! The reviewer's instructions for one approval type: `CLAUDE.md` and the
//! configured `checks/<name>.md`, from the repository's own `approvals/<type>/`
//! folder when it exists (it replaces the built-in type as a whole), else from
//! the copies of this repository's `approvals/` embedded in the binary.

use std::path::{Path, PathBuf};

use super::settings::TypeSettings;

/// The JSON schema every reviewer answers with (shared by all types).
pub const VERDICT_SCHEMA: &str = include_str!("../../approvals/verdict.schema.json");

/// Built-in types: (type, CLAUDE.md, [(check, text)]).
type BuiltIn = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

const BUILT_IN: &[BuiltIn] = &[
    (
        "adr",
        include_str!("../../approvals/adr/CLAUDE.md"),
        &[
            (
                "completeness",
                include_str!("../../approvals/adr/checks/completeness.md"),
            ),
            (
                "migration",
                include_str!("../../approvals/adr/checks/migration.md"),
            ),
            (
                "acceptance",
                include_str!("../../approvals/adr/checks/acceptance.md"),
            ),
            (
                "conflicts",
                include_str!("../../approvals/adr/checks/conflicts.md"),
            ),
        ],
    ),
    (
        "code",
        include_str!("../../approvals/code/CLAUDE.md"),
        &[
            (
                "security",
                include_str!("../../approvals/code/checks/security.md"),
            ),
            (
                "tests",
                include_str!("../../approvals/code/checks/tests.md"),
            ),
        ],
    ),
    (
        "security",
        include_str!("../../approvals/security/CLAUDE.md"),
        &[
            (
                "injection",
                include_str!("../../approvals/security/checks/injection.md"),
            ),
            (
                "secrets",
                include_str!("../../approvals/security/checks/secrets.md"),
            ),
            (
                "authz",
                include_str!("../../approvals/security/checks/authz.md"),
            ),
        ],
    ),
    (
        "docs",
        include_str!("../../approvals/docs/CLAUDE.md"),
        &[
            (
                "completeness",
                include_str!("../../approvals/docs/checks/completeness.md"),
            ),
            (
                "consistency",
                include_str!("../../approvals/docs/checks/consistency.md"),
            ),
            (
                "examples",
                include_str!("../../approvals/docs/checks/examples.md"),
            ),
        ],
    ),
];

/// Where the instructions of a type came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `<root>/approvals/<type>/`.
    Repository(PathBuf),
    /// Embedded in the helix-gate binary.
    BuiltIn,
}

/// The texts handed to one reviewer run.
#[derive(Debug, Clone)]
pub struct Instructions {
    pub claude_md: String,
    /// `(check name, text)` in the configured order.
    pub checks: Vec<(String, String)>,
    /// `(path below skills/, text)` of the type folder's `skills/`, sorted:
    /// background the reviewer may use (a repository's folder only).
    pub skills: Vec<(String, String)>,
    pub origin: Origin,
}

/// At most this many files of a type's `skills/` reach the reviewer.
pub const MAX_SKILLS: usize = 64;
/// How deep the walk below `skills/` goes.
const SKILLS_DEPTH: usize = 4;

/// The instructions of `kind` could not be assembled.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InstructionsError {
    #[error(
        "approval type `{kind}` has no instructions: neither approvals/{kind}/ in the repository nor a built-in type (built-in: adr, code, security, docs)"
    )]
    NoFolder { kind: String },
    #[error("cannot read {path}: {message}")]
    Read { path: String, message: String },
    #[error(
        "approval type `{kind}` lists check `{check}`, but {folder}/checks/{check}.md does not exist"
    )]
    MissingCheck {
        kind: String,
        check: String,
        folder: String,
    },
}

/// Load `CLAUDE.md` and the configured checks of `settings.name`.
pub fn load(root: &Path, settings: &TypeSettings) -> Result<Instructions, InstructionsError> {
    let kind = settings.name.as_str();
    let folder = root.join("approvals").join(kind);
    if folder.is_dir() {
        let read = |path: &Path| {
            crate::fs::read::optional_text(path, crate::fs::read::CONFIG_LIMIT)
                .and_then(|text| {
                    text.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
                })
                .map_err(|e| InstructionsError::Read {
                    path: crate::paths::display(root, path),
                    message: e.to_string(),
                })
        };
        let claude_md = read(&folder.join("CLAUDE.md"))?;
        let names = match &settings.checks {
            Some(names) => names.clone(),
            None => folder_checks(root, &folder)?,
        };
        let mut checks = Vec::with_capacity(names.len());
        for check in &names {
            let path = folder.join("checks").join(format!("{check}.md"));
            if !path.is_file() {
                return Err(InstructionsError::MissingCheck {
                    kind: kind.to_owned(),
                    check: check.clone(),
                    folder: crate::paths::display(root, &folder),
                });
            }
            checks.push((check.clone(), read(&path)?));
        }
        let skills = skills(root, &folder.join("skills"), &read)?;
        return Ok(Instructions {
            claude_md,
            checks,
            skills,
            origin: Origin::Repository(folder),
        });
    }
    let Some((_, claude_md, built_in_checks)) = BUILT_IN.iter().find(|(name, _, _)| *name == kind)
    else {
        return Err(InstructionsError::NoFolder {
            kind: kind.to_owned(),
        });
    };
    let names: Vec<String> = match &settings.checks {
        Some(names) => names.clone(),
        // The built-in order, which is the order the built-in config listed.
        None => built_in_checks
            .iter()
            .map(|(name, _)| (*name).to_owned())
            .collect(),
    };
    let mut checks = Vec::with_capacity(names.len());
    for check in &names {
        let Some((_, text)) = built_in_checks.iter().find(|(name, _)| name == check) else {
            return Err(InstructionsError::MissingCheck {
                kind: kind.to_owned(),
                check: check.clone(),
                folder: format!("built-in approvals/{kind}"),
            });
        };
        checks.push((check.clone(), (*text).to_owned()));
    }
    Ok(Instructions {
        claude_md: (*claude_md).to_owned(),
        checks,
        skills: Vec::new(),
        origin: Origin::BuiltIn,
    })
}

/// The files below a type folder's `skills/` (files, or links to files inside
/// the repository), by their path below it: sorted, at most [`MAX_SKILLS`],
/// only names made of letters, digits, `-`, `_` and `.` (no `..`), so a name
/// can reach the reviewer's folder and prompt as it is. A link that leads out
/// of the repository is not read.
fn skills(
    root: &Path,
    dir: &Path,
    read: &dyn Fn(&Path) -> Result<String, InstructionsError>,
) -> Result<Vec<(String, String)>, InstructionsError> {
    fn list(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<(String, PathBuf)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let simple = !name.starts_with('.')
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
            if !simple || out.len() > MAX_SKILLS {
                continue;
            }
            let rel = format!("{prefix}{name}");
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() && depth < SKILLS_DEPTH => {
                    list(&path, &format!("{rel}/"), depth + 1, out);
                }
                Ok(t) if t.is_file() || (t.is_symlink() && path.is_file()) => out.push((rel, path)),
                _ => {}
            }
        }
    }
    if !dir.is_dir() || !crate::fs::confine::inside(root, dir) {
        return Ok(Vec::new());
    }
    let mut found = Vec::new();
    list(dir, "", 0, &mut found);
    found.sort();
    found.truncate(MAX_SKILLS);
    let mut out = Vec::with_capacity(found.len());
    for (rel, path) in found {
        if crate::fs::confine::inside(root, &path) {
            out.push((rel, read(&path)?));
        }
    }
    Ok(out)
}

/// The stems of every `checks/*.md` in a repository's type folder, sorted, for
/// a type whose `checks` are not listed. Names that could not be listed in
/// `checks` either (see [`super::settings::is_simple_name`]) are left out.
fn folder_checks(root: &Path, folder: &Path) -> Result<Vec<String>, InstructionsError> {
    let dir = folder.join("checks");
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(InstructionsError::Read {
                path: crate::paths::display(root, &dir),
                message: e.to_string(),
            });
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let stem = name.strip_suffix(".md")?;
            super::settings::is_simple_name(stem).then(|| stem.to_owned())
        })
        .collect();
    names.sort();
    Ok(names)
}

/// The verdict schema as one compact JSON line (the `--json-schema` argument).
pub fn compact_schema() -> String {
    serde_json::from_str::<serde_json::Value>(VERDICT_SCHEMA).map_or_else(
        |_| {
            VERDICT_SCHEMA
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        },
        |v| v.to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::approval::settings;

    #[test]
    fn built_in_types_have_every_default_check() {
        let settings = settings::from_layers(None, "none").unwrap();
        let dir = tempfile::tempdir().unwrap();
        for (kind, count) in [("adr", 4), ("code", 2), ("security", 3), ("docs", 3)] {
            let i = load(dir.path(), settings.get(kind).unwrap()).unwrap();
            assert_eq!(i.origin, Origin::BuiltIn);
            assert!(i.claude_md.contains("StructuredOutput"));
            assert_eq!(i.checks.len(), count, "{kind}");
        }
        let adr = load(dir.path(), settings.get("adr").unwrap()).unwrap();
        let names: Vec<&str> = adr.checks.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            ["completeness", "migration", "acceptance", "conflicts"],
            "unlisted built-in checks keep the order the config used to list"
        );
    }

    #[test]
    fn repository_folder_replaces_the_built_in_type() {
        let settings = settings::from_layers(None, "none").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("approvals/adr");
        std::fs::create_dir_all(folder.join("checks")).unwrap();
        std::fs::write(folder.join("CLAUDE.md"), "own").unwrap();
        // Without a `checks` list: every checks/*.md of the folder, sorted.
        std::fs::write(folder.join("checks/zeta.md"), "z").unwrap();
        std::fs::write(folder.join("checks/Bad Name.md"), "x").unwrap();
        std::fs::write(folder.join("checks/notes.txt"), "x").unwrap();
        let i = load(dir.path(), settings.get("adr").unwrap()).unwrap();
        assert_eq!(i.checks, [("zeta".to_owned(), "z".to_owned())]);
        std::fs::remove_file(folder.join("checks/zeta.md")).unwrap();
        let mut listed = settings.get("adr").unwrap().clone();
        listed.checks = Some(
            ["completeness", "migration", "acceptance", "conflicts"]
                .map(str::to_owned)
                .to_vec(),
        );
        let err = load(dir.path(), &listed).unwrap_err();
        assert!(
            matches!(err, InstructionsError::MissingCheck { .. }),
            "{err}"
        );
        for check in ["completeness", "migration", "acceptance", "conflicts"] {
            std::fs::write(folder.join(format!("checks/{check}.md")), check).unwrap();
        }
        let i = load(dir.path(), &listed).unwrap();
        assert_eq!(i.claude_md, "own");
        assert!(i.skills.is_empty());
        assert_eq!(
            i.checks[1],
            ("migration".to_owned(), "migration".to_owned())
        );
    }

    #[test]
    fn a_type_folder_gives_its_skills_but_not_links_out_or_odd_names() {
        let settings = settings::from_layers(None, "none").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("approvals/adr");
        std::fs::create_dir_all(folder.join("skills/domain")).unwrap();
        std::fs::write(folder.join("CLAUDE.md"), "own").unwrap();
        std::fs::write(folder.join("skills/helix.md"), "HELIX format").unwrap();
        std::fs::write(folder.join("skills/domain/caching.md"), "caching").unwrap();
        std::fs::write(folder.join("skills/bad name.md"), "x").unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.md"),
            folder.join("skills/out.md"),
        )
        .unwrap();
        let i = load(dir.path(), settings.get("adr").unwrap()).unwrap();
        assert_eq!(
            i.skills,
            [
                ("domain/caching.md".to_owned(), "caching".to_owned()),
                ("helix.md".to_owned(), "HELIX format".to_owned())
            ]
        );
    }

    #[test]
    fn schema_is_valid_json() {
        let v: serde_json::Value = serde_json::from_str(&compact_schema()).unwrap();
        assert_eq!(v["required"][0], "result");
    }
}
