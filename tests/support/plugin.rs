//! The Claude Code plugin as Claude Code installs it: a folder with only the plugin's files,
//! and its hook shim (`hooks/helix-gate.sh`) run the way Claude Code runs it, with an
//! environment the test spells out completely.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use super::cli::{bounded, manifest_dir};

/// A hook event the shim passes on to helix-gate (an ADR outside any repository).
pub(crate) const EVENT: &str = r#"{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"adr/001-x.md","content":"x"},"cwd":"/tmp"}"#;

/// Copies into `dir` what the plugin consists of (never `target/`).
pub(crate) fn plugin_copy(dir: &Path) {
    for rel in [
        ".claude-plugin/plugin.json",
        ".claude-plugin/marketplace.json",
        "hooks/hooks.json",
        "hooks/helix-gate.sh",
    ] {
        let to = dir.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(manifest_dir().join(rel), &to).unwrap();
    }
}

/// `/bin/sh <plugin>/hooks/helix-gate.sh ARGS` in `cwd` with only `env` (nothing inherited),
/// [`EVENT`] on stdin, bounded in time.
pub(crate) fn shim(plugin: &Path, cwd: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let stdin = tempfile::tempfile().unwrap();
    {
        use std::io::{Seek as _, Write as _};
        let mut file = &stdin;
        file.write_all(EVENT.as_bytes()).unwrap();
        file.rewind().unwrap();
    }
    bounded(
        Command::new("/bin/sh")
            .arg(plugin.join("hooks/helix-gate.sh"))
            .args(args)
            .current_dir(cwd)
            .env_clear()
            .envs(env.iter().copied())
            .stdin(Stdio::from(stdin)),
        Duration::from_secs(60),
    )
}
