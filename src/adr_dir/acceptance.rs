//! A person's change of an ADR's status: `helix-gate accept ADR --by NAME
//! [--reason TEXT]`, `reject` and `deprecate`.
//!
//! The command sets the status as the ADR writes it (front matter `status:`, a
//! `Status:` line, or the first line of a `## Status` section), only along
//! `lifecycle.transitions`, and records the change twice:
//!
//! - in the ADR, for every reader: a `status_history` entry in the front matter
//!   (`- {from: Proposed, to: Accepted, by: Ann, at: ..., reason: ...}`), or a
//!   `Status history:` line after the `Status:` line, or a line at the end of the
//!   `## Status` section, for ADRs without front matter;
//! - in `.helix-gate/status-history.jsonl` (never committed), signed with the
//!   person's key (HMAC-SHA256 with the per-user key that signs approvals) over the
//!   ADR's id, from, to, who, when, why and the SHA-256 of the ADR as written. A
//!   model that writes a history entry into the ADR itself has no such record,
//!   and cannot make one: the key is outside the work tree, and the hook refuses
//!   writes into `.helix-gate/` and the model's shell running these commands.
//!
//! pre-commit accepts a staged change into Accepted only with a record whose
//! digest is the staged content's ([`recorded_for`]).
//!
//! It is a person's act: refused inside an agent's session
//! ([`env::agent_session`]), like `helix-gate override`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Workspace;
use super::catalog::{Catalog, format_number_width};
use crate::adr::{self, Adr, succession};
use crate::fs::data_dir;
use crate::fs::read::{self, Links};
use crate::rules::lifecycle;
use crate::{clock, env};

/// Whether a tag is the person's key's HMAC of the fields.
pub type Verify<'a> = dyn Fn(&[&[u8]], &[u8]) -> bool + 'a;

/// The signed records of status changes made by a person.
pub const HISTORY_PATH: &str = ".helix-gate/status-history.jsonl";

/// The largest history file read.
const LIMIT: u64 = 16 << 20;

/// What a person does to an ADR's status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    Accept,
    Reject,
    Deprecate,
}

impl Change {
    /// The lifecycle state it leads to (as the tables name it, any case).
    pub fn target(self) -> &'static str {
        match self {
            Change::Accept => "Accepted",
            Change::Reject => "Rejected",
            Change::Deprecate => "Deprecated",
        }
    }

    /// The command's name.
    pub fn command(self) -> &'static str {
        match self {
            Change::Accept => "accept",
            Change::Reject => "reject",
            Change::Deprecate => "deprecate",
        }
    }
}

/// One recorded status change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The ADR's id (`0003`, its file name's number as the directory writes it).
    pub adr: String,
    /// The file, relative to the repository.
    pub path: String,
    pub from: String,
    pub to: String,
    /// Who (`--by`).
    pub by: String,
    /// When (RFC 3339).
    pub time: String,
    #[serde(default)]
    pub reason: String,
    /// SHA-256 (hex) of the ADR's text as written by the command.
    pub digest: String,
    /// The id of the key that signed it.
    pub key: String,
    /// HMAC-SHA256 (hex) over the fields above ([`Record::fields`]).
    pub tag: String,
}

impl Record {
    /// The signed fields, in order.
    fn fields(&self) -> [&[u8]; 7] {
        [
            self.adr.as_bytes(),
            self.from.as_bytes(),
            self.to.as_bytes(),
            self.by.as_bytes(),
            self.time.as_bytes(),
            self.reason.as_bytes(),
            self.digest.as_bytes(),
        ]
    }

    /// Whether `verify` (the person's key) signed it.
    pub fn verified(&self, verify: &Verify) -> bool {
        crate::text::unhex(&self.tag).is_some_and(|tag| verify(&self.fields(), &tag))
    }
}

/// Why a status was not changed.
#[derive(Debug, thiserror::Error)]
pub enum AcceptError {
    #[error(
        "`helix-gate {0}` records a person's decision and is refused inside an agent's session ({1} is set): a person runs it themselves"
    )]
    AgentSession(&'static str, &'static str),
    #[error("--by must name the person who decides")]
    NoName,
    #[error("no ADR `{0}` (name it by number, ADR-0014, or its path)")]
    NotFound(String),
    #[error("{0} has no status this command can change")]
    NoStatus(String),
    #[error(
        "{path}: lifecycle.transitions has no state {target}; the states are those of config/helix-gate.yaml"
    )]
    NoState { path: String, target: String },
    #[error("{path} is {from}; from {from} the status may change to: {allowed}")]
    Illegal {
        path: String,
        from: String,
        allowed: String,
    },
    #[error("cannot sign the record: {0}")]
    Key(String),
    #[error(transparent)]
    Other(#[from] anyhow::Error),
    #[error("cannot write: {0}")]
    Io(#[from] std::io::Error),
}

/// The person's signature: the key's id and its HMAC.
pub struct Signer<'a> {
    pub key_id: String,
    pub sign: &'a dyn Fn(&[&[u8]]) -> Vec<u8>,
}

/// The ADR file `name` names: a path (from `cwd`, or the repository's root), or a
/// number (`14`, `0014`, `ADR-0014`) of a file of the ADR directory.
pub fn find(ws: &Workspace, cwd: &Path, name: &str) -> Result<PathBuf, AcceptError> {
    for base in [cwd, ws.engine.root.as_path()] {
        let path = crate::paths::absolute(&base.join(name));
        if path.is_file() {
            return Ok(path);
        }
    }
    let number = adr::number_in_id(name)
        .or_else(|| adr::number_in_id(name.to_ascii_uppercase().trim_start_matches("ADR")))
        .ok_or_else(|| AcceptError::NotFound(name.to_owned()))?;
    let catalog = Catalog::load(&ws.engine, &ws.dir)?;
    catalog
        .entries
        .iter()
        .find(|e| e.file_number == Some(number))
        .map(|e| e.path.clone())
        .ok_or_else(|| AcceptError::NotFound(name.to_owned()))
}

/// The id a record gives the ADR at `path`.
fn id_of(ws: &Workspace, rel: &str, path: &Path) -> String {
    adr::number_in_file_name(path).map_or_else(
        || rel.to_owned(),
        |n| format_number_width(n, ws.engine.settings.adr.number_width),
    )
}

/// SHA-256 (hex) of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::Digest as _;
    crate::text::hex(&sha2::Sha256::digest(bytes))
}

/// Set the status of the ADR at `name` as `change` says, record it in the ADR and
/// in the signed history, and return the record.
pub fn run(
    ws: &Workspace,
    cwd: &Path,
    name: &str,
    change: Change,
    by: &str,
    reason: &str,
    signer: &Signer<'_>,
) -> Result<Record, AcceptError> {
    if let Some(var) = env::agent_session() {
        return Err(AcceptError::AgentSession(change.command(), var));
    }
    let by = one_line(by);
    if by.is_empty() {
        return Err(AcceptError::NoName);
    }
    let reason = one_line(reason);
    let root = ws.engine.root.as_path();
    let path = find(ws, cwd, name)?;
    let rel = crate::paths::relative_to(root, &path).unwrap_or_else(|| path.display().to_string());
    let text = std::fs::read_to_string(&path)?;
    let parsed = Adr::parse(&text);
    let table = &ws.engine.settings.lifecycle;
    let status = succession::status(&parsed).ok_or_else(|| AcceptError::NoStatus(rel.clone()))?;
    let from =
        lifecycle::state(&status, table).ok_or_else(|| AcceptError::NoStatus(rel.clone()))?;
    let to =
        lifecycle::named_state(change.target(), table).ok_or_else(|| AcceptError::NoState {
            path: rel.clone(),
            target: change.target().to_owned(),
        })?;
    let allowed = lifecycle::allowed_after(&from, table);
    if !allowed.contains(&to) {
        return Err(AcceptError::Illegal {
            path: rel,
            from,
            allowed: if allowed.is_empty() {
                "none: it is final".to_owned()
            } else {
                allowed.join(", ")
            },
        });
    }
    // Written as the ADR writes its status: MADR's `proposed` becomes `accepted`.
    let written = if status.chars().any(char::is_uppercase) {
        to.clone()
    } else {
        to.to_lowercase()
    };
    let time = clock::now_rfc3339();
    let entry = Entry {
        from: &from,
        to: &to,
        by: &by,
        time: &time,
        reason: &reason,
    };
    let new_text =
        set_status(&parsed, &written, &entry).ok_or_else(|| AcceptError::NoStatus(rel.clone()))?;
    crate::fs::atomic::write(root, &path, new_text.as_bytes())?;
    let mut record = Record {
        adr: id_of(ws, &rel, &path),
        path: rel,
        from,
        to,
        by,
        time,
        reason,
        digest: digest(new_text.as_bytes()),
        key: signer.key_id.clone(),
        tag: String::new(),
    };
    record.tag = crate::text::hex(&(signer.sign)(&record.fields()));
    let mut line = serde_json::to_string(&record).map_err(std::io::Error::other)?;
    line.push('\n');
    data_dir::ensure(root)?;
    crate::fs::append::append(
        root,
        &root.join(HISTORY_PATH),
        line.as_bytes(),
        crate::fs::append::Missing::Create,
    )?;
    Ok(record)
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Every record of the repository at `root` (unreadable lines skipped).
pub fn records(root: &Path) -> Vec<Record> {
    let Ok(bytes) = read::regular(&root.join(HISTORY_PATH), LIMIT, Links::Refuse) else {
        return Vec::new();
    };
    String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|line| serde_json::from_str(line).ok())
        .collect()
}

/// The records of the ADR at `rel` (relative to the repository), oldest first.
pub fn history(root: &Path, rel: &str) -> Vec<Record> {
    records(root)
        .into_iter()
        .filter(|r| r.path == rel)
        .collect()
}

/// A record signed by the person's key (`verify`) of a change into Accepted whose
/// ADR text was `content`.
pub fn recorded_for(root: &Path, content: &[u8], verify: &Verify) -> Option<Record> {
    let wanted = digest(content);
    records(root)
        .into_iter()
        .rev()
        .find(|r| r.digest == wanted && lifecycle::is_accepted(&r.to) && r.verified(verify))
}

/// The finding when `now` (an ADR at `rel`, its text `content`) is Accepted and
/// `before` (its version in the last commit) was not, and no record signed with
/// the person's key (`verify`) has the content's digest. A new ADR is judged by
/// `lifecycle.initial` alone.
pub fn unrecorded(
    root: &Path,
    rel: &str,
    before: &Adr,
    (now, content): (&Adr, &[u8]),
    table: &crate::config::settings::LifecycleSettings,
    verify: &Verify,
) -> Option<crate::diagnostic::Finding> {
    let (from, to) = lifecycle::into_accepted(Some(before), now, table)?;
    if from.is_empty() || recorded_for(root, content, verify).is_some() {
        return None;
    }
    let name =
        adr::number_in_file_name(Path::new(rel)).map_or_else(|| rel.to_owned(), |n| n.to_string());
    Some(lifecycle::unrecorded(now, &from, &to, &name))
}

/// The history entry written into the ADR.
struct Entry<'a> {
    from: &'a str,
    to: &'a str,
    by: &'a str,
    time: &'a str,
    reason: &'a str,
}

impl Entry<'_> {
    /// A YAML flow mapping (its strings JSON-quoted, which YAML reads).
    fn yaml(&self) -> String {
        let q = |s: &str| serde_json::to_string(s).unwrap_or_default();
        let mut out = format!(
            "{{from: {}, to: {}, by: {}, at: {}",
            q(self.from),
            q(self.to),
            q(self.by),
            q(self.time)
        );
        if !self.reason.is_empty() {
            let _ = write!(out, ", reason: {}", q(self.reason));
        }
        out.push('}');
        out
    }

    /// A line of prose.
    fn line(&self) -> String {
        let mut out = format!(
            "{} -> {} on {} by {}",
            self.from,
            self.to,
            clock::day_of(self.time),
            self.by
        );
        if !self.reason.is_empty() {
            let _ = write!(out, ": {}", self.reason);
        }
        out
    }
}

/// `adr`'s text with its status set to `status` and `entry` added to its history;
/// `None` when it writes no status.
fn set_status(adr: &Adr, status: &str, entry: &Entry<'_>) -> Option<String> {
    let mut lines: Vec<String> = adr.text.lines().map(str::to_owned).collect();
    let ends_with_newline = adr.text.ends_with('\n');
    if let Some(line) = adr
        .front_matter()
        .and_then(|fm| fm.key_lines.get("status").copied())
    {
        let at = line.checked_sub(1)?;
        let old = lines.get(at)?;
        let indent = &old[..old.len() - old.trim_start().len()];
        lines[at] = format!("{indent}status: {status}");
        // The front matter's end: the closing `---` after the status line.
        let end = (at + 1..lines.len()).find(|&i| matches!(lines[i].trim_end(), "---" | "..."))?;
        let key = (1..end).find(|&i| {
            lines[i].starts_with("status_history:") || lines[i].starts_with("status-history:")
        });
        let item = format!("  - {}", entry.yaml());
        match key {
            Some(k) if lines[k].trim_end().ends_with(':') => {
                let mut last = k;
                for (i, l) in lines.iter().enumerate().take(end).skip(k + 1) {
                    if l.starts_with(' ') || l.starts_with('-') {
                        last = i;
                    } else {
                        break;
                    }
                }
                lines.insert(last + 1, item);
            }
            Some(k) if lines[k].trim_end().ends_with("[]") => {
                "status_history:".clone_into(&mut lines[k]);
                lines.insert(k + 1, item);
            }
            // A flow list with items, or another form: rewritten as a block list
            // would lose nothing, but it is the person's text; add a new entry list.
            Some(_) => return None,
            None => {
                lines.insert(end, "status_history:".to_owned());
                lines.insert(end + 1, item);
            }
        }
    } else {
        let found = adr.body_status()?;
        let at = found.line.checked_sub(1)?;
        let old = lines.get(at)?.clone();
        let pos = old.find(&found.value)?;
        lines[at] = format!("{}{status}{}", &old[..pos], &old[pos + found.value.len()..]);
        let section = adr.section(&["status".to_owned()]).filter(|s| {
            adr.line_of(s.content_start) <= found.line
                && found.line <= adr.line_of(s.end.saturating_sub(1))
        });
        if let Some(section) = section {
            // After the last non-empty line of the `## Status` section.
            let last = adr.line_of(section.end.saturating_sub(1).max(section.content_start));
            let mut after = last.min(lines.len());
            while after > at + 1 && lines[after - 1].trim().is_empty() {
                after -= 1;
            }
            lines.insert(after, String::new());
            lines.insert(after + 1, format!("Status history: {}", entry.line()));
        } else {
            let bullet = &old[..old.len() - old.trim_start_matches(['*', '-', '+', ' ']).len()];
            lines.insert(at + 1, format!("{bullet}Status history: {}", entry.line()));
        }
    }
    let mut out = lines.join("\n");
    if ends_with_newline {
        out.push('\n');
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry<'static> {
        Entry {
            from: "Proposed",
            to: "Accepted",
            by: "Ann",
            time: "2026-11-28T06:00:00Z",
            reason: "we agreed",
        }
    }

    #[test]
    fn the_status_is_set_where_the_adr_writes_it_and_the_history_follows() {
        let fm = Adr::parse(
            "---\nadr_id: \"001\"\nstatus: Proposed\ndate: 2026-01-01\n---\n# T\n\n## Decision\n\nX.\n",
        );
        let out = set_status(&fm, "Accepted", &entry()).unwrap();
        assert_eq!(
            out,
            "---\nadr_id: \"001\"\nstatus: Accepted\ndate: 2026-01-01\nstatus_history:\n  - {from: \"Proposed\", to: \"Accepted\", by: \"Ann\", at: \"2026-11-28T06:00:00Z\", reason: \"we agreed\"}\n---\n# T\n\n## Decision\n\nX.\n"
        );
        let again = Adr::parse(&out);
        assert_eq!(succession::status(&again).as_deref(), Some("Accepted"));
        let twice = set_status(&again, "Implemented", &entry()).unwrap();
        assert_eq!(twice.matches("  - {from").count(), 2, "{twice}");
        assert!(Adr::parse(&twice).front_matter().is_some());

        let nygard =
            Adr::parse("# 1. T\n\nDate: 2026-01-01\n\n## Status\n\nProposed\n\n## Context\n\nC.\n");
        let out = set_status(&nygard, "Accepted", &entry()).unwrap();
        assert_eq!(
            out,
            "# 1. T\n\nDate: 2026-01-01\n\n## Status\n\nAccepted\n\nStatus history: Proposed -> Accepted on 2026-11-28 by Ann: we agreed\n\n## Context\n\nC.\n"
        );
        assert_eq!(
            succession::status(&Adr::parse(&out)).as_deref(),
            Some("Accepted")
        );

        let madr =
            Adr::parse("# T\n\n* Status: proposed\n* Date: 2026-01-01\n\n## Context\n\nC.\n");
        let out = set_status(&madr, "accepted", &entry()).unwrap();
        assert_eq!(
            out,
            "# T\n\n* Status: accepted\n* Status history: Proposed -> Accepted on 2026-11-28 by Ann: we agreed\n* Date: 2026-01-01\n\n## Context\n\nC.\n"
        );
        assert_eq!(
            succession::status(&Adr::parse(&out)).as_deref(),
            Some("accepted")
        );
    }

    #[test]
    fn a_record_verifies_with_its_key_only() {
        let mut r = Record {
            adr: "001".into(),
            path: "docs/adr/001-x.md".into(),
            from: "Proposed".into(),
            to: "Accepted".into(),
            by: "Ann".into(),
            time: "t".into(),
            reason: String::new(),
            digest: digest(b"x"),
            key: "k".into(),
            tag: String::new(),
        };
        let sign = |fields: &[&[u8]]| digest(&fields.concat()).into_bytes();
        r.tag = crate::text::hex(&sign(&r.fields()));
        let verify = |fields: &[&[u8]], tag: &[u8]| sign(fields) == tag;
        assert!(r.verified(&verify));
        r.by = "Model".into();
        assert!(!r.verified(&verify));
    }
}
