//! `helix-gate key export [--out FILE]`: this user's public Ed25519 key, so
//! that teammates verify the results this user signs ([`crate::approval::keys`]).

use std::path::Path;

use super::ExitStatus;
use super::terminal::{current_root, print};
use crate::approval::keys;
use crate::text::escape_controls;

/// What `helix-gate key` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum KeyAction {
    /// Write this user's public key (made first when there is none).
    Export,
}

pub(super) fn run(action: KeyAction, out: Option<&Path>) -> anyhow::Result<ExitStatus> {
    let root = current_root();
    match action {
        KeyAction::Export => {
            let exported = keys::export(&root, out, &keys::default_name())?;
            let shown = crate::paths::display(&root, &exported.path);
            let mut text = format!(
                "wrote {} (ed25519 key {})\n",
                escape_controls(&shown),
                exported.key_id
            );
            if exported.in_approvals {
                text.push_str(
                    "commit it; a teammate's `helix-gate gate approval_passed` then verifies the results you sign, once they have read it and run `helix-gate trust` (every change to approvals/ asks for that again, yours too)\n",
                );
            }
            print(&text)?;
        }
    }
    Ok(ExitStatus::Success)
}
