//! `helix-gate accept | reject | deprecate ADR --by NAME [--reason TEXT]`: a
//! person's change of an ADR's status, recorded ([`crate::adr_dir::acceptance`]),
//! and `helix-gate history ADR`: the recorded changes of one ADR.

use std::fmt::Write as _;

use super::ExitStatus;
use super::terminal::{current_root, print, print_stderr};
use crate::adr_dir::Workspace;
use crate::adr_dir::acceptance::{self, Change, Signer};
use crate::approval::signing;
use crate::text::escape_controls;

/// The output formats of `history`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum HistoryFormat {
    Human,
    Json,
}

/// `helix-gate accept|reject|deprecate ADR --by NAME [--reason TEXT]`.
pub(super) fn change(
    change: Change,
    adr: &str,
    by: &str,
    reason: Option<&str>,
) -> anyhow::Result<ExitStatus> {
    let fail = |message: &str| {
        print_stderr(&format!(
            "helix-gate: error: {}\n",
            escape_controls(message)
        ));
        Ok(ExitStatus::Error)
    };
    // Refused before anything is opened: the key is not even created in an agent's session.
    if let Some(var) = crate::env::agent_session() {
        return fail(&acceptance::AcceptError::AgentSession(change.command(), var).to_string());
    }
    let root = current_root();
    let ws = Workspace::open(&root)?;
    let key = match signing::load_or_create() {
        Ok(key) => key,
        Err(e) => return fail(&acceptance::AcceptError::Key(e.to_string()).to_string()),
    };
    let sign = |fields: &[&[u8]]| key.sign(fields).to_vec();
    let signer = Signer {
        key_id: key.id(),
        sign: &sign,
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| root.clone());
    match acceptance::run(&ws, &cwd, adr, change, by, reason.unwrap_or(""), &signer) {
        Ok(record) => {
            print(&format!(
                "{}: {} -> {} by {} ({}); recorded in {} and {}\n",
                escape_controls(&record.path),
                escape_controls(&record.from),
                escape_controls(&record.to),
                escape_controls(&record.by),
                record.time,
                escape_controls(&record.path),
                acceptance::HISTORY_PATH,
            ))?;
            Ok(ExitStatus::Success)
        }
        Err(e) => fail(&e.to_string()),
    }
}

/// `helix-gate history ADR [--format json]`.
pub(super) fn history(adr: &str, format: HistoryFormat) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    let ws = Workspace::open(&root)?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| root.clone());
    let path = match acceptance::find(&ws, &cwd, adr) {
        Ok(path) => path,
        Err(e) => {
            print_stderr(&format!(
                "helix-gate: error: {}\n",
                escape_controls(&e.to_string())
            ));
            return Ok(ExitStatus::Error);
        }
    };
    let rel = crate::paths::relative_to(&root, &path).unwrap_or_else(|| path.display().to_string());
    let records = acceptance::history(&root, &rel);
    let verify = signing::load().ok().flatten();
    let verified = |r: &acceptance::Record| {
        verify
            .as_ref()
            .is_some_and(|k| r.verified(&|f: &[&[u8]], t: &[u8]| k.verify(f, t)))
    };
    match format {
        HistoryFormat::Json => {
            let list: Vec<serde_json::Value> = records
                .iter()
                .map(|r| {
                    let mut v = serde_json::to_value(r).unwrap_or_default();
                    if let Some(map) = v.as_object_mut() {
                        map.insert("verified".to_owned(), verified(r).into());
                    }
                    v
                })
                .collect();
            let out = serde_json::json!({ "path": rel, "history": list });
            print(&format!("{}\n", serde_json::to_string_pretty(&out)?))?;
        }
        HistoryFormat::Human => {
            let mut text = format!("{}\n", escape_controls(&rel));
            if records.is_empty() {
                text.push_str("  no status change recorded by `helix-gate accept`, `reject` or `deprecate` (history starts at adoption)\n");
            }
            for r in &records {
                let _ = writeln!(
                    text,
                    "  {}  {} -> {}  by {}{}{}",
                    r.time,
                    escape_controls(&r.from),
                    escape_controls(&r.to),
                    escape_controls(&r.by),
                    if r.reason.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", escape_controls(&r.reason))
                    },
                    if verified(r) {
                        ""
                    } else {
                        "  (not signed by your key)"
                    }
                );
            }
            print(&text)?;
        }
    }
    Ok(ExitStatus::Success)
}
