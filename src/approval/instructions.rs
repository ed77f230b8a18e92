//! The reviewer's instructions for one approval type: `CLAUDE.md`, the
//! configured `checks/<name>.md` and the `skills/`.
//!
//! A repository folder `approvals/<type>/` with both `CLAUDE.md` and `checks/`
//! replaces the type as a whole. One that lacks either, for a built-in type,
//! extends the copies of this repository's `approvals/` embedded in the
//! binary: its `CLAUDE.md` (if any) replaces the shipped one, its checks are
//! added to the shipped ones (one of the same name replaces the shipped text),
//! and its skills are added. Without a folder the built-in type is used as is.

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
    /// `<root>/approvals/<type>/`, which replaces the type as a whole.
    Repository(PathBuf),
    /// The built-in type extended by `<root>/approvals/<type>/`, which lacks
    /// `CLAUDE.md` or `checks/`.
    Extended(PathBuf),
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
    let built_in = BUILT_IN.iter().find(|(name, _, _)| *name == kind);
    let replaces = folder.join("CLAUDE.md").is_file() && folder.join("checks").is_dir();
    if folder.is_dir() && (replaces || built_in.is_none()) {
        let read = |path: &Path| read_text(root, path);
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
    let Some((_, claude_md, built_in_checks)) = built_in else {
        return Err(InstructionsError::NoFolder {
            kind: kind.to_owned(),
        });
    };
    if folder.is_dir() {
        return extend(root, &folder, settings, claude_md, built_in_checks);
    }
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

/// A built-in type extended by a repository folder that lacks `CLAUDE.md` or
/// `checks/`: the folder's `CLAUDE.md` if it has one, else the shipped one;
/// the shipped checks in their order, then the folder's other checks sorted
/// (a folder check of a shipped name replaces its text; a `checks` list picks
/// from both); the folder's skills.
fn extend(
    root: &Path,
    folder: &Path,
    settings: &TypeSettings,
    built_in_claude_md: &str,
    built_in_checks: &[(&str, &str)],
) -> Result<Instructions, InstructionsError> {
    let kind = settings.name.as_str();
    let read = |path: &Path| read_text(root, path);
    let own_claude_md = folder.join("CLAUDE.md");
    let claude_md = if own_claude_md.is_file() {
        read(&own_claude_md)?
    } else {
        built_in_claude_md.to_owned()
    };
    let own_checks = folder_checks(root, folder)?;
    let names: Vec<String> = match &settings.checks {
        Some(names) => names.clone(),
        None => built_in_checks
            .iter()
            .map(|(name, _)| (*name).to_owned())
            .chain(
                own_checks
                    .iter()
                    .filter(|own| !built_in_checks.iter().any(|(name, _)| name == own))
                    .cloned(),
            )
            .collect(),
    };
    let mut checks = Vec::with_capacity(names.len());
    for check in &names {
        let path = folder.join("checks").join(format!("{check}.md"));
        let text = if path.is_file() {
            read(&path)?
        } else if let Some((_, text)) = built_in_checks.iter().find(|(name, _)| name == check) {
            (*text).to_owned()
        } else {
            return Err(InstructionsError::MissingCheck {
                kind: kind.to_owned(),
                check: check.clone(),
                folder: format!(
                    "{} (nor the built-in type)",
                    crate::paths::display(root, folder)
                ),
            });
        };
        checks.push((check.clone(), text));
    }
    let skills = skills(root, &folder.join("skills"), &read)?;
    Ok(Instructions {
        claude_md,
        checks,
        skills,
        origin: Origin::Extended(folder.to_path_buf()),
    })
}

/// One instruction file's text; a missing file is an error.
fn read_text(root: &Path, path: &Path) -> Result<String, InstructionsError> {
    crate::fs::read::optional_text(path, crate::fs::read::CONFIG_LIMIT)
        .and_then(|text| text.ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound)))
        .map_err(|e| InstructionsError::Read {
            path: crate::paths::display(root, path),
            message: e.to_string(),
        })
}

/// One line (no newline) saying where each part of a type's instructions
/// comes from, for `helix-gate doctor`: `CLAUDE.md`, each check, the skills.
pub fn describe(root: &Path, settings: &TypeSettings) -> Result<String, InstructionsError> {
    let i = load(root, settings)?;
    let folder = root.join("approvals").join(settings.name.as_str());
    let shown = crate::paths::display(root, &folder);
    let from = |rel: &str| {
        if matches!(i.origin, Origin::BuiltIn) || !folder.join(rel).is_file() {
            "built-in".to_owned()
        } else {
            format!("{shown}/{rel}")
        }
    };
    let how = match &i.origin {
        Origin::Repository(_) => format!("{shown}/ (replaces the built-in type)"),
        Origin::Extended(_) => format!("built-in, extended by {shown}/"),
        Origin::BuiltIn => "built-in".to_owned(),
    };
    let checks: Vec<String> = i
        .checks
        .iter()
        .map(|(name, _)| format!("{name} ({})", from(&format!("checks/{name}.md"))))
        .collect();
    let skills = if i.skills.is_empty() {
        "none".to_owned()
    } else {
        format!("{} file(s) from {shown}/skills/", i.skills.len())
    };
    Ok(format!(
        "{}: {how}; CLAUDE.md: {}; checks: {}; skills: {skills}",
        settings.name,
        from("CLAUDE.md"),
        if checks.is_empty() {
            "none".to_owned()
        } else {
            checks.join(", ")
        }
    ))
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
    #[cfg(unix)]
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
    fn a_folder_without_claude_md_or_checks_extends_the_built_in_type() {
        let settings = settings::from_layers(None, "none").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("approvals/adr");
        std::fs::create_dir_all(folder.join("checks")).unwrap();
        std::fs::write(folder.join("checks/migration.md"), "own migration").unwrap();
        std::fs::write(folder.join("checks/house.md"), "house").unwrap();
        let i = load(dir.path(), settings.get("adr").unwrap()).unwrap();
        assert_eq!(i.origin, Origin::Extended(folder.clone()));
        assert!(
            i.claude_md.contains("StructuredOutput"),
            "the shipped CLAUDE.md"
        );
        let names: Vec<&str> = i.checks.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "completeness",
                "migration",
                "acceptance",
                "conflicts",
                "house"
            ]
        );
        assert_eq!(i.checks[1].1, "own migration");
        // A `checks` list picks from both; a name in neither is an error.
        let mut listed = settings.get("adr").unwrap().clone();
        listed.checks = Some(vec!["house".into(), "conflicts".into()]);
        let i = load(dir.path(), &listed).unwrap();
        assert_eq!(i.checks[0].1, "house");
        listed.checks = Some(vec!["nowhere".into()]);
        assert!(matches!(
            load(dir.path(), &listed),
            Err(InstructionsError::MissingCheck { .. })
        ));
        // With its own CLAUDE.md (and checks/) the folder replaces the type.
        std::fs::write(folder.join("CLAUDE.md"), "own").unwrap();
        let i = load(dir.path(), settings.get("adr").unwrap()).unwrap();
        assert_eq!(i.origin, Origin::Repository(folder));
        assert_eq!(i.checks.len(), 2);
    }

    #[test]
    fn schema_is_valid_json() {
        let v: serde_json::Value = serde_json::from_str(&compact_schema()).unwrap();
        assert_eq!(v["required"][0], "result");
    }
}
