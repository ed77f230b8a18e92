//! A person's override of one rule of an ADR for one commit:
//! `helix-gate override ADR-014/no-direct-http --reason "..."`.
//!
//! The override is recorded in `.helix-gate/overrides.json` (never committed),
//! bound to the rule id. The next commit that the rule's errors would block takes
//! it: pre-commit shows those errors as notes ("overridden by <user>: <reason>"),
//! lets the commit through (when nothing else blocks it), removes the override and
//! logs its use in the decision log, where `helix-gate report` shows it. A commit
//! the rule does not block leaves it waiting; one blocked by something else too
//! leaves it for the retry.
//!
//! It is a person's decision: refused inside an agent's session (the variables
//! agents set for their tools, [`env::agent_session`]), and the hook puts a
//! `helix-gate override` command of the model's shell to the person. CI's
//! `helix-gate check` honours no override: it judges the branch as it is.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::enforce::rule_id;
use super::governs::Index;
use crate::fs::data_dir;
use crate::fs::read::{self, Links};
use crate::{clock, env};

/// One recorded override, waiting for the commit it lets through.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Override {
    /// `ADR-014/no-direct-http`.
    pub rule: String,
    pub reason: String,
    /// Who recorded it (`$USER`, else `$LOGNAME`).
    pub user: String,
    /// When (RFC 3339).
    pub time: String,
}

impl Override {
    /// The note that replaces one of the rule's errors.
    pub fn note(&self) -> String {
        format!("overridden by {}: {}", self.user, self.reason)
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct File {
    #[serde(default)]
    pending: Vec<Override>,
}

/// Why an override was not recorded.
#[derive(Debug, thiserror::Error)]
pub enum OverrideError {
    #[error(
        "`helix-gate override` records a person's decision and is refused inside an agent's session ({0} is set): a person runs it in their own terminal"
    )]
    AgentSession(&'static str),
    #[error("--reason must not be empty: say why this commit may break the rule")]
    NoReason,
    #[error(
        "no rule `{rule}` in the accepted or proposed ADRs{known}; rule ids look like ADR-014/no-direct-http"
    )]
    UnknownRule { rule: String, known: String },
    #[error("cannot record the override in .helix-gate/overrides.json: {0}")]
    Io(#[from] std::io::Error),
}

/// The largest overrides file read.
const LIMIT: u64 = 1 << 20;

/// The overrides waiting in the repository at `root` (none when the file is
/// missing or unreadable: an override only ever lets something through).
pub fn pending(root: &Path) -> Vec<Override> {
    read::regular(&root.join(data_dir::OVERRIDES_PATH), LIMIT, Links::Refuse)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<File>(&bytes).ok())
        .map(|f| f.pending)
        .unwrap_or_default()
}

fn save(root: &Path, pending: Vec<Override>) -> std::io::Result<()> {
    data_dir::ensure(root)?;
    let text = serde_json::to_string_pretty(&File { pending }).map_err(std::io::Error::other)?;
    crate::fs::atomic::write(root, &root.join(data_dir::OVERRIDES_PATH), text.as_bytes())
}

/// Record a person's override of `rule` (an id of a rule of an accepted or
/// proposed ADR of `index`) for the next commit it would block; replaces an
/// override of the same rule still waiting.
pub fn record(
    root: &Path,
    index: &Index,
    rule: &str,
    reason: &str,
) -> Result<Override, OverrideError> {
    if let Some(var) = env::agent_session() {
        return Err(OverrideError::AgentSession(var));
    }
    let reason = reason.trim();
    if reason.is_empty() {
        return Err(OverrideError::NoReason);
    }
    let rule = rule.trim();
    // The rules of the ADRs, and the lifecycle rules a person may need to pass once
    // (a typo fixed in an accepted ADR).
    let known: Vec<String> = index
        .ruling()
        .flat_map(|adr| adr.rules.iter().map(move |c| rule_id(adr.id, &c.rule.id)))
        .chain(
            [
                crate::rules::lifecycle::REWRITTEN.id,
                crate::rules::lifecycle::TRANSITION.id,
            ]
            .map(str::to_owned),
        )
        .collect();
    if !known.iter().any(|k| k == rule) {
        let known = if known.is_empty() {
            String::new()
        } else {
            let mut some: Vec<&str> = known.iter().map(String::as_str).take(8).collect();
            if known.len() > some.len() {
                some.push("...");
            }
            format!(" (known: {})", some.join(", "))
        };
        return Err(OverrideError::UnknownRule {
            rule: rule.to_owned(),
            known,
        });
    }
    let user = env::var(env::USER)
        .or_else(|| env::var(env::LOGNAME))
        .filter(|u| !u.is_empty())
        .unwrap_or_else(|| "someone".to_owned());
    let made = Override {
        rule: rule.to_owned(),
        reason: reason.to_owned(),
        user,
        time: clock::now_rfc3339(),
    };
    let mut waiting = pending(root);
    waiting.retain(|o| o.rule != made.rule);
    waiting.push(made.clone());
    save(root, waiting)?;
    Ok(made)
}

/// Remove the overrides of `rules` (used by a commit).
pub fn consume(root: &Path, rules: &[&str]) -> std::io::Result<()> {
    let mut waiting = pending(root);
    let before = waiting.len();
    waiting.retain(|o| !rules.contains(&o.rule.as_str()));
    if waiting.len() == before {
        return Ok(());
    }
    save(root, waiting)
}
