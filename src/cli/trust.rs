//! `helix-gate trust [--show | --revoke]`: a person's consent to run the
//! programs the repository's configuration names (its reviewer `command`),
//! which the user-scope hook asks for ([`crate::config::trust`]).

use std::fmt::Write as _;
use std::path::Path;

use super::ExitStatus;
use super::terminal::{current_root, print};
use crate::config::protected::{APPROVALS_PATH, Snapshot};
use crate::config::trust::{self, TrustState};
use crate::text::escape_controls;

/// What `helix-gate trust` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    Trust,
    Show,
    Revoke,
}

pub(super) fn run(action: Action) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    let shown_root = escape_controls(&root.display().to_string()).into_owned();
    match action {
        Action::Trust => {
            // One read: what is shown is exactly what is recorded.
            let snapshot = Snapshot::read(&root);
            let record = trust::trust_snapshot(&root, &snapshot)?;
            let mut out = format!(
                "trusted the configuration of {shown_root} (digest {}) at {}\n",
                record.digest, record.trusted_at
            );
            out.push_str(&describe(&snapshot));
            out.push_str(
                "the user-scope hook may now run these commands here; any change to these files asks again\n",
            );
            print(&out)?;
        }
        Action::Show => {
            let snapshot = Snapshot::read(&root);
            let digest = snapshot.digest();
            let mut out = format!(
                "{shown_root}: {}\ncurrent digest {digest}\n",
                state_text(&trust::state(&root, &digest))
            );
            if let Some(path) = trust::record_path(&root) {
                let _ = writeln!(
                    out,
                    "record: {}",
                    escape_controls(&path.display().to_string())
                );
            }
            out.push_str(&describe(&snapshot));
            print(&out)?;
        }
        Action::Revoke => {
            let text = if trust::revoke(&root)? {
                format!("revoked: the configuration of {shown_root} is no longer trusted\n")
            } else {
                format!("{shown_root} was not trusted: nothing to revoke\n")
            };
            print(&text)?;
        }
    }
    Ok(ExitStatus::Success)
}

/// The trust state in words (also for `doctor`).
pub(super) fn state_text(state: &TrustState) -> String {
    match state {
        TrustState::Trusted { at } => format!("trusted at {}", escape_controls(at)),
        TrustState::Untrusted => "not trusted".to_owned(),
        TrustState::Changed { trusted_at } => format!(
            "changed since trusted at {} (run `helix-gate trust` again to consent to the new configuration)",
            escape_controls(trusted_at)
        ),
    }
}

/// The files of the snapshot and the reviewer commands its approvals file names.
fn describe(snapshot: &Snapshot) -> String {
    let mut out = String::from("files:\n");
    if snapshot.files.is_empty() && snapshot.unreadable.is_empty() {
        out.push_str("  (none: the built-in configuration applies)\n");
    }
    for (rel, bytes) in &snapshot.files {
        let _ = writeln!(out, "  {} ({} bytes)", escape_controls(rel), bytes.len());
    }
    let public_keys: Vec<(String, [u8; 32])> = snapshot
        .files
        .iter()
        .filter_map(|(rel, bytes)| {
            let key = crate::approval::keys::parse(std::str::from_utf8(bytes).ok()?)?;
            rel.starts_with(crate::approval::keys::KEYS_DIR)
                .then(|| (rel.clone(), key))
        })
        .collect();
    for (rel, key) in &public_keys {
        let _ = writeln!(
            out,
            "  signed results by the key in {} (ed25519 key {}) verify while this is trusted",
            escape_controls(rel),
            crate::approval::signing::public_key_id(key)
        );
    }
    for (rel, why) in &snapshot.unreadable {
        let _ = writeln!(
            out,
            "  {} (not read: {})",
            escape_controls(rel),
            escape_controls(why)
        );
    }
    out.push_str("reviewer commands (config/approvals.yaml):\n");
    let overlay = snapshot
        .files
        .get(APPROVALS_PATH)
        .map(|bytes| String::from_utf8_lossy(bytes).into_owned());
    match crate::approval::settings::from_layers(overlay.as_deref(), APPROVALS_PATH) {
        Ok(settings) => {
            for (name, t) in &settings.types {
                let builtin = if t.command == crate::approval::consent::DEFAULT_COMMAND {
                    ", built-in"
                } else {
                    ""
                };
                let _ = writeln!(
                    out,
                    "  {}: `{}` ({}{builtin})",
                    escape_controls(name),
                    escape_controls(&t.command),
                    if t.enabled { "enabled" } else { "disabled" }
                );
            }
        }
        Err(e) => {
            let _ = writeln!(out, "  cannot be read: {}", escape_controls(&e.to_string()));
        }
    }
    out
}

/// The consent part of `doctor`'s human output, for the repository at `root`
/// whose approval settings are `approvals`.
pub(super) fn doctor_lines(root: &Path, approvals: &crate::approval::ApprovalSettings) -> String {
    let mut commands: Vec<String> = approvals
        .types
        .values()
        .filter(|t| t.command != crate::approval::consent::DEFAULT_COMMAND)
        .map(|t| format!("`{}`", escape_controls(&t.command)))
        .collect();
    commands.dedup();
    let mut out =
        String::from("\nReviewer consent for the user-scope hook (`helix-gate trust`):\n");
    if commands.is_empty() {
        out.push_str("  ok: not needed: every reviewer command is the built-in `claude`\n");
        return out;
    }
    let state = trust::state(root, &Snapshot::read(root).digest());
    let commands = commands.join(", ");
    let _ = match &state {
        TrustState::Trusted { .. } => writeln!(
            out,
            "  ok: {}: the user-scope hook may run the reviewer command(s) {commands}",
            state_text(&state)
        ),
        _ => writeln!(
            out,
            "  warning: {}: the user-scope hook will not run the reviewer command(s) {commands} from config/approvals.yaml; read it and approvals/, then run `helix-gate trust`",
            state_text(&state)
        ),
    };
    out
}
