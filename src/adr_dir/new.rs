//! `helix-gate new "<title>"`: a new ADR from a shipped template, where the project
//! keeps it.
//!
//! Inside a consultant session (the current directory is in a folder matching
//! `sessions.paths`, default `projects/sessions/*`) the draft goes to
//! `<session>/output/ADR-<slug>.md` with `adr_id: "XXX"`: the seed's consultant writes
//! drafts without a number and `finalize` assigns one under the ADR directory's lock
//! when the draft is done. Reserving a number at `new` would leave gaps for every
//! abandoned draft and could not stop two sessions from picking the same one.
//!
//! Anywhere else the ADR goes straight into the ADR directory as `NNN-<slug>.md` with
//! the next free number, like `adr new` of adr-tools: there is no later finalize step
//! for it, and creating the file under the directory's lock is what reserves the
//! number (`next-number` and `finalize` count file names).
//!
//! Templates are `templates/<name>.md`, embedded in the binary, one per preset; another
//! one is one more file and one more line in [`TEMPLATES`]. Their `<...>` gaps are what
//! the `template-placeholder` rule reports until they are filled in. Which one `new`
//! uses: the `--preset` flag's, else `new.template` when a repository names one, else
//! the configured preset's, so a MADR repository gets MADR files without a second key.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};

use super::catalog::{Catalog, format_number_width};
use super::lock::Lock;
use super::supersede;
use super::{Workspace, index_table, slug};
use crate::engine::Engine;

/// The shipped templates by name.
pub const TEMPLATES: &[(&str, &str)] = &[
    ("helix", include_str!("../../templates/helix.md")),
    // The HELIX template with its guidance in German (`new.template: helix-de`).
    ("helix-de", include_str!("../../templates/helix-de.md")),
    ("madr", include_str!("../../templates/madr.md")),
    ("nygard", include_str!("../../templates/nygard.md")),
];

/// The `adr_id` of a draft that has no number yet (finalize assigns one).
pub const DRAFT_ID: &str = "XXX";

/// The title number of a Nygard draft that has no number yet: finalize reads `0` as
/// the template's placeholder and assigns the next free one.
pub const DRAFT_NUMBER: &str = "0";

/// The text of the shipped template `name`.
pub fn template(name: &str) -> Option<&'static str> {
    TEMPLATES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// What a template's `{{...}}` fields are filled with.
#[derive(Debug, Clone)]
pub struct Fill<'a> {
    pub title: &'a str,
    /// HELIX's `adr_id` (`XXX` in a draft).
    pub adr_id: &'a str,
    /// The unpadded number of a Nygard title (`0` in a draft).
    pub number: &'a str,
    /// Today, `YYYY-MM-DD` (MADR's `date:`, Nygard's `Date:`).
    pub date: &'a str,
    pub min_section_length: usize,
    pub min_acceptance_criteria: usize,
}

/// The template with its fields filled in. The title is written once into a
/// double-quoted YAML string (escaped) and once as the heading, after every
/// other field: a title that itself contains `{{adr_id}}` stays as typed.
pub fn render(template: &str, fill: &Fill<'_>) -> String {
    let quoted = fill.title.replace('\\', "\\\\").replace('"', "\\\"");
    template
        .replace("{{adr_id}}", fill.adr_id)
        .replace("{{number}}", fill.number)
        .replace("{{date}}", fill.date)
        .replace(
            "{{min_section_length}}",
            &fill.min_section_length.to_string(),
        )
        .replace(
            "{{min_acceptance_criteria}}",
            &fill.min_acceptance_criteria.to_string(),
        )
        .split("title: \"{{title}}\"")
        .map(|part| part.replace("{{title}}", fill.title))
        .collect::<Vec<_>>()
        .join(&format!("title: \"{quoted}\""))
}

/// Where the new ADR went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// A draft in a consultant session (this folder, repository-relative); no number yet.
    Session(String),
    /// Straight into the ADR directory with this number (`adr.number_width` digits).
    AdrDirectory(String),
}

/// What `new` did (or, for a [`Mode::Preview`], would do).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Created {
        /// Absolute path of the new file.
        path: PathBuf,
        /// The path as the user should type it: relative to the current directory when
        /// the file is below it, else to the repository root.
        display: String,
        place: Place,
        template: String,
        /// The file's text: the template with its fields filled in.
        text: String,
        /// The ADR directory's INDEX.md as the user should type it, when `new` added
        /// the ADR's row to it (only where an INDEX.md is kept already).
        index: Option<String>,
        /// The ADRs it supersedes, as the user should type them; each now names the
        /// new ADR in its `superseded_by`.
        superseded: Vec<String>,
    },
    /// The file exists already; nothing was written.
    Exists { display: String },
    /// The gate would never check a file at that path (`reason`: `adr.exclude`
    /// matches it, or no `adr.globs` pattern does); nothing was written.
    Skipped { display: String, reason: String },
}

/// Whether [`skipped_because`] asks for a matching `adr.globs` pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Globs {
    /// A file in the ADR directory: the gate must find it.
    Required,
    /// A session draft: finalize checks it, and a preset whose globs do not cover
    /// session drafts (madr, nygard) still gets one.
    Ignored,
}

/// Why the gate (validate, the hook, pre-commit) would skip a file at `path`:
/// `adr.exclude` matches it, or (`Globs::Required`) no `adr.globs` pattern does.
/// `None`: it is an ADR.
fn skipped_because(engine: &Engine, path: &Path, globs: Globs) -> Option<String> {
    let rel = crate::paths::relative_to(&engine.root, path)?;
    let matcher = engine.settings.matcher();
    if matcher.is_excluded(&rel) {
        Some(
            "`adr.exclude` in config/helix-gate.yaml matches it (INDEX, README, template files)"
                .to_owned(),
        )
    } else if globs == Globs::Required && !matcher.is_adr(&rel) {
        Some("no pattern of `adr.globs` in config/helix-gate.yaml matches it".to_owned())
    } else {
        None
    }
}

/// Whether [`make`] writes the ADR or only says what it would write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Create the file (and its folder), taking the number under the ADR directory's lock.
    Write,
    /// Change nothing: no folder, no lock, no file. The number is the next free one now,
    /// which a write a moment later may no longer get.
    Preview,
}

/// Create an ADR titled `title` in the repository at `root`, seen from `cwd`.
/// `supersedes`: the ids of ADRs it replaces (`3`, `0003`, `ADR-0003`).
pub fn run(root: &Path, cwd: &Path, title: &str, supersedes: &[String]) -> anyhow::Result<Outcome> {
    make(
        root,
        cwd,
        title,
        crate::config::preset::cli_override(),
        Mode::Write,
        supersedes,
    )
}

/// [`run`] with `preset` in place of the `--preset` flag, writing or only previewing.
pub fn make(
    root: &Path,
    cwd: &Path,
    title: &str,
    preset: Option<crate::config::Preset>,
    mode: Mode,
    supersedes: &[String],
) -> anyhow::Result<Outcome> {
    let title = title.trim();
    let mut replaced = Vec::new();
    for id in supersedes {
        let Some(n) = crate::adr::number_in_id(id) else {
            bail!("--supersedes {id}: not an ADR number (write 3, 0003 or ADR-0003)");
        };
        replaced.push(n);
    }
    if title.is_empty() {
        bail!("the title is empty; give the ADR a title: helix-gate new \"<title>\"");
    }
    if title.chars().any(char::is_control) {
        bail!("the title contains a line break or another control character; use one line");
    }
    let root = crate::paths::absolute(root);
    let cwd = crate::paths::absolute(cwd);
    let engine = Engine::with_settings(
        &root,
        crate::config::Settings::load_with(&root, preset)?,
        None,
    )?;
    let name = engine
        .settings
        .new
        .template_name_with(engine.settings.preset, preset);
    let Some(text) = template(&name) else {
        let known: Vec<&str> = TEMPLATES.iter().map(|(n, _)| *n).collect();
        bail!(
            "unknown template `{name}` (new.template in config/helix-gate.yaml); shipped templates: {}",
            known.join(", ")
        );
    };
    let date = crate::clock::today();
    let base = (
        engine.rules.base.min_section_length,
        engine.rules.base.min_acceptance_criteria,
    );
    let fill = |adr_id: &str, number: &str| {
        render(
            text,
            &Fill {
                title,
                adr_id,
                number,
                date: &date,
                min_section_length: base.0,
                min_acceptance_criteria: base.1,
            },
        )
    };
    let show = |path: &Path| {
        crate::paths::relative_to(&cwd, path).unwrap_or_else(|| crate::paths::display(&root, path))
    };
    let slug = slug::slug(title);
    if let Some(session) = session_of(&root, &cwd, &engine)? {
        if !replaced.is_empty() {
            bail!(
                "--supersedes works in the ADR directory, not in a session (a draft has no number yet); add `supersedes:` to the draft and the predecessor's `superseded_by:` when it is finalized"
            );
        }
        let dir = session.join(&engine.settings.new.drafts);
        let path = dir.join(format!("ADR-{slug}.md"));
        if let Some(reason) = skipped_because(&engine, &path, Globs::Ignored) {
            return Ok(Outcome::Skipped {
                display: show(&path),
                reason,
            });
        }
        if mode == Mode::Write {
            crate::fs::confine::create_dir_all(&root, &dir)
                .with_context(|| format!("cannot create {}", show(&dir)))?;
        }
        let place = Place::Session(crate::paths::display(&root, &session));
        let text = fill(DRAFT_ID, DRAFT_NUMBER);
        return create(&root, path, text, &show, place, name, mode);
    }
    numbered(
        &Making {
            root: &root,
            mode,
            template: name,
            title,
            slug,
            show: &show,
            fill: &fill,
            supersedes: &replaced,
        },
        engine,
    )
}

/// What [`make`] settled before choosing where the ADR goes.
struct Making<'a> {
    root: &'a Path,
    mode: Mode,
    /// The template's name.
    template: String,
    title: &'a str,
    slug: String,
    /// A path as the user should type it.
    show: &'a dyn Fn(&Path) -> String,
    /// The template filled in with an `adr_id` and a title number.
    fill: &'a dyn Fn(&str, &str) -> String,
    /// Numbers of the ADRs it replaces.
    supersedes: &'a [u32],
}

/// Outside a session: the ADR goes into the ADR directory with the next free number.
fn numbered(making: &Making<'_>, engine: Engine) -> anyhow::Result<Outcome> {
    let Making {
        root,
        mode,
        show,
        fill,
        ..
    } = *making;
    let dir = crate::paths::absolute(&root.join(&engine.settings.adr.directory));
    if dir.exists() && !dir.is_dir() {
        bail!(
            "the ADR directory {} is not a directory (set adr.directory in config/helix-gate.yaml)",
            show(&dir)
        );
    }
    let missing = !dir.exists();
    if missing && mode == Mode::Write {
        crate::fs::confine::create_dir_all(root, &dir)
            .with_context(|| format!("cannot create the ADR directory {}", show(&dir)))?;
    }
    // The directory exists now (or, for a preview, is known to be missing), so this is
    // `Workspace::open` without loading the settings and rules a second time.
    let ws = Workspace {
        engine,
        dir,
        state_dir: crate::env::state_dir(),
    };
    // The number is taken by the file itself, so it is picked and the file created
    // under the lock finalize holds while it numbers a draft.
    let _lock = match mode {
        Mode::Write => Some(Lock::acquire(root, &ws.dir)?),
        Mode::Preview => None,
    };
    let catalog = if missing && mode == Mode::Preview {
        None
    } else {
        Some(Catalog::load(&ws.engine, &ws.dir)?)
    };
    let number = match &catalog {
        Some(catalog) => catalog.next_number()?,
        None => 1,
    };
    let id = format_number_width(number, ws.engine.settings.adr.number_width);
    let path = ws.dir.join(format!("{id}-{}.md", making.slug));
    if let Some(reason) = skipped_because(&ws.engine, &path, Globs::Required) {
        return Ok(Outcome::Skipped {
            display: show(&path),
            reason,
        });
    }
    let predecessors = predecessors(catalog.as_ref(), making.supersedes, show)?;
    let mut text = fill(&id, &number.to_string());
    for p in &predecessors {
        text = supersede::successor_text(&text, &p.other());
    }
    let outcome = create(
        root,
        path,
        text,
        show,
        Place::AdrDirectory(id.clone()),
        making.template.clone(),
        mode,
    )?;
    match outcome {
        Outcome::Created {
            path,
            display,
            place,
            template,
            text,
            index: None,
            ..
        } if mode == Mode::Write => {
            // Still under the lock: no finalize adds a row between the read and the write.
            let index = add_index_row(root, &ws, number, making.title, &path, &text, show)?;
            let file_name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let successor = supersede::Other {
                id: &id,
                title: making.title,
                file_name: &file_name,
            };
            let mut superseded = Vec::new();
            for p in &predecessors {
                let changed = supersede::predecessor_text(&p.text, &successor);
                crate::fs::atomic::write(root, &p.path, changed.as_bytes())
                    .with_context(|| format!("cannot write {}", show(&p.path)))?;
                superseded.push(show(&p.path));
            }
            Ok(Outcome::Created {
                path,
                display,
                place,
                template,
                text,
                index,
                superseded,
            })
        }
        other => Ok(other),
    }
}

/// An ADR the new one replaces, read from the ADR directory.
struct Predecessor {
    path: PathBuf,
    id: String,
    title: String,
    file_name: String,
    text: String,
}

impl Predecessor {
    fn other(&self) -> supersede::Other<'_> {
        supersede::Other {
            id: &self.id,
            title: &self.title,
            file_name: &self.file_name,
        }
    }
}

/// The ADRs numbered `numbers` in `catalog`; an error names a number it lacks.
fn predecessors(
    catalog: Option<&Catalog>,
    numbers: &[u32],
    show: &dyn Fn(&Path) -> String,
) -> anyhow::Result<Vec<Predecessor>> {
    let mut out = Vec::new();
    for &n in numbers {
        let entry = catalog
            .and_then(|c| c.entries.iter().find(|e| e.number() == Some(n)))
            .ok_or_else(|| anyhow::anyhow!("--supersedes {n}: the ADR directory has no ADR {n}"))?;
        let text = std::fs::read_to_string(&entry.path)
            .with_context(|| format!("cannot read {}", show(&entry.path)))?;
        out.push(Predecessor {
            id: catalog.map_or_else(|| n.to_string(), |c| c.format(n)),
            title: entry.title().unwrap_or_default().to_owned(),
            file_name: entry
                .path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default(),
            path: entry.path.clone(),
            text,
        });
    }
    Ok(out)
}

/// Add the new ADR's row to the ADR directory's INDEX.md, as `finalize` does, so the next
/// `doctor` does not fail on `new`'s own output; nothing where no INDEX.md is kept.
fn add_index_row(
    root: &Path,
    ws: &Workspace,
    number: u32,
    title: &str,
    path: &Path,
    text: &str,
    show: &dyn Fn(&Path) -> String,
) -> anyhow::Result<Option<String>> {
    let index_path = ws.index_path();
    let Some(index_text) = super::read_optional(&index_path)? else {
        return Ok(None);
    };
    let adr = crate::adr::Adr::parse(text);
    let row = index_table::NewRow {
        number: Some(number),
        width: ws.engine.settings.adr.number_width,
        title: title.to_owned(),
        link: super::catalog::link_from(&ws.dir, path),
        status: adr
            .front_matter()
            .and_then(|fm| fm.status.valid())
            .map(|s| s.trim().to_owned())
            .unwrap_or_default(),
        summary: crate::adr::catalog::summary(&adr),
    };
    let updated = index_table::add_row(Some(&index_text), &row);
    crate::fs::atomic::write(root, &index_path, updated.as_bytes()).with_context(|| {
        format!(
            "{} was created, but its row could not be added to {} (run `helix-gate index --write`)",
            show(path),
            show(&index_path)
        )
    })?;
    Ok(Some(show(&index_path)))
}

/// Create `path` with `text`, never over an existing file: [`Outcome::Created`], or
/// [`Outcome::Exists`] when a file is there already. A preview writes nothing and only
/// looks whether something is at `path` already.
fn create(
    root: &Path,
    path: PathBuf,
    text: String,
    show: &dyn Fn(&Path) -> String,
    place: Place,
    template: String,
    mode: Mode,
) -> anyhow::Result<Outcome> {
    let display = show(&path);
    let written = match mode {
        Mode::Preview => {
            if std::fs::symlink_metadata(&path).is_ok() {
                Err(std::io::ErrorKind::AlreadyExists.into())
            } else {
                Ok(())
            }
        }
        Mode::Write => crate::fs::atomic::create_new(root, &path, text.as_bytes()),
    };
    match written {
        Ok(()) => Ok(Outcome::Created {
            path,
            display,
            place,
            template,
            text,
            index: None,
            superseded: Vec::new(),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(Outcome::Exists { display }),
        Err(e) => Err(e).with_context(|| format!("cannot write {display}")),
    }
}

/// The consultant session folder `cwd` is in: the nearest folder from `cwd` up to
/// (not including) the repository root that matches `sessions.paths`.
fn session_of(root: &Path, cwd: &Path, engine: &Engine) -> anyhow::Result<Option<PathBuf>> {
    let globs = engine
        .settings
        .sessions
        .globs()
        .map_err(|e| anyhow::anyhow!("sessions.paths in config/helix-gate.yaml: {e}"))?;
    for dir in cwd.ancestors() {
        if dir == root {
            break;
        }
        match crate::paths::relative_to(root, dir) {
            Some(rel) if globs.is_match(&rel) => return Ok(Some(dir.to_path_buf())),
            Some(_) => {}
            // Outside the repository: never a session of it.
            None => break,
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shipped_template_is_found_by_name() {
        for (name, text) in TEMPLATES {
            assert_eq!(template(name), Some(*text));
            assert!(text.contains("{{title}}"), "{name}");
        }
        // One template per preset: `new` falls back to the preset's.
        for preset in crate::config::Preset::ALL {
            assert!(template(preset.name()).is_some(), "{preset}");
        }
        assert_eq!(template("nope"), None);
    }

    #[test]
    fn the_title_is_escaped_in_the_front_matter_only() {
        let text = render(
            "title: \"{{title}}\"\n# ADR-{{adr_id}}: {{title}}\n",
            &Fill {
                title: r#"Say "hi" \ bye"#,
                adr_id: DRAFT_ID,
                number: DRAFT_NUMBER,
                date: "2026-01-02",
                min_section_length: 50,
                min_acceptance_criteria: 3,
            },
        );
        assert_eq!(
            text,
            "title: \"Say \\\"hi\\\" \\\\ bye\"\n# ADR-XXX: Say \"hi\" \\ bye\n"
        );
    }

    #[test]
    fn a_title_with_template_fields_stays_as_typed() {
        let text = render(
            "title: \"{{title}}\"\n# ADR-{{adr_id}}: {{title}}\ndate: {{date}}\n",
            &Fill {
                title: "Keep {{adr_id}}, {{title}} and {{date}}",
                adr_id: "007",
                number: "7",
                date: "2026-01-02",
                min_section_length: 50,
                min_acceptance_criteria: 3,
            },
        );
        assert_eq!(
            text,
            "title: \"Keep {{adr_id}}, {{title}} and {{date}}\"\n# ADR-007: Keep {{adr_id}}, {{title}} and {{date}}\ndate: 2026-01-02\n"
        );
    }
}
