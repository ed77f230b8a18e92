//! The tool of a tool event, decoded once per event into what the hook
//! decides on: a write (with the file it writes, resolved), a shell command, a
//! patch, or any other tool. The pre-screen and the dispatch in `hook/mod.rs`
//! are one `match` over it.

use std::path::{Path, PathBuf};

use crate::agent::event::{EventKind, HookEvent};

/// Tools whose events concern one written file.
const WRITE_TOOLS: [&str; 3] = ["Write", "Edit", "MultiEdit"];

/// What a tool event's tool is to the hook.
#[derive(Debug)]
pub(super) enum Tool {
    /// Not a tool event.
    None,
    /// `tool_name` cannot be read: the decision needs it (the message says why).
    Unreadable(String),
    /// A patch (Codex's `apply_patch`): it names its files in its text.
    Patch,
    /// A shell command (Bash).
    Shell,
    /// A write tool (Write, Edit, `MultiEdit`) and the file it writes,
    /// absolute (`Err`: why the event does not say which).
    Write(Result<PathBuf, String>),
    /// Any other tool: nothing to check.
    Other,
}

impl Tool {
    /// The tool of `event` (nothing read from disk: the written path is only
    /// joined to the session's folder).
    pub(super) fn of(event: &HookEvent) -> Tool {
        let (EventKind::PreToolUse | EventKind::PostToolUse | EventKind::PostToolUseFailure) =
            event.kind
        else {
            return Tool::None;
        };
        if let Some(broken) = event.broken("tool_name") {
            return Tool::Unreadable(broken.to_string());
        }
        if event.patch.is_some() {
            return Tool::Patch;
        }
        match event.tool_name.as_deref() {
            Some("Bash") => Tool::Shell,
            Some(tool) if WRITE_TOOLS.contains(&tool) => Tool::Write(written(event)),
            _ => Tool::Other,
        }
    }
}

/// The file a Write/Edit names, absolute. Claude Code always sends one for these
/// tools, so a missing or broken path means the payload changed and the gate
/// would not see the write: an infrastructure error (the caller's), not a pass.
fn written(event: &HookEvent) -> Result<PathBuf, String> {
    if let Some(broken) = event
        .broken("tool_input")
        .or_else(|| event.broken("tool_input.file_path"))
    {
        return Err(broken.to_string());
    }
    let Some(path) = event.file_path() else {
        return Err(format!(
            "the {} event of {} has no tool_input.file_path",
            event.hook_event_name,
            event.tool_name.as_deref().unwrap_or("a write tool")
        ));
    };
    absolute(event, path)
}

/// `path` as a tool wrote it, absolute: a relative path is relative to the
/// session's working directory (the event's `cwd`).
pub(super) fn absolute(event: &HookEvent, path: &str) -> Result<PathBuf, String> {
    let path = Path::new(path);
    if path.is_absolute() {
        return Ok(path.to_path_buf());
    }
    if let Some(broken) = event.broken("cwd") {
        return Err(broken.to_string());
    }
    Ok(Path::new(event.cwd.as_deref().unwrap_or(".")).join(path))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::Agent;

    fn tool(payload: &serde_json::Value) -> Tool {
        Tool::of(
            &Agent::Claude
                .decode(payload.to_string().as_bytes())
                .unwrap(),
        )
    }

    #[test]
    fn the_tool_is_decoded_once_with_the_written_path_resolved() {
        let write = |name: &str, path: &str| {
            tool(&serde_json::json!({
                "hook_event_name": "PostToolUse", "tool_name": name,
                "cwd": "/repo/sub", "tool_input": {"file_path": path},
            }))
        };
        assert!(
            matches!(write("Edit", "adr/1.md"), Tool::Write(Ok(p)) if p == Path::new("/repo/sub/adr/1.md"))
        );
        assert!(
            matches!(write("Write", "/abs/2.md"), Tool::Write(Ok(p)) if p == Path::new("/abs/2.md"))
        );
        assert!(matches!(write("Read", "/abs/2.md"), Tool::Other));
        let no_path = tool(&serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "MultiEdit", "tool_input": {},
        }));
        assert!(matches!(no_path, Tool::Write(Err(e)) if e.contains("no tool_input.file_path")));
        let bash = tool(&serde_json::json!({
            "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": "ls"},
        }));
        assert!(matches!(bash, Tool::Shell));
        let unreadable =
            tool(&serde_json::json!({"hook_event_name": "PreToolUse", "tool_name": 7}));
        assert!(matches!(unreadable, Tool::Unreadable(_)));
        assert!(matches!(
            tool(&serde_json::json!({"hook_event_name": "Stop"})),
            Tool::None
        ));
    }
}
