//! The Claude Code plugin marketplace: `.claude-plugin/marketplace.json` lists the plugin
//! at the repository root, the real client (2.1.329) validates it and installs the plugin
//! from it, and the plugin's hook shim never fails silently when there is no binary.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::support::claude::require_claude;
use crate::support::cli::{bin, bounded, isolated, manifest_dir};

fn json_file(rel: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(manifest_dir().join(rel)).unwrap()).unwrap()
}

#[test]
fn marketplace_lists_the_plugin_of_this_repository() {
    let market = json_file(".claude-plugin/marketplace.json");
    let plugin = json_file(".claude-plugin/plugin.json");
    assert_eq!(market["name"], "helix-gate");
    assert!(market["owner"]["name"].is_string());
    let plugins = market["plugins"].as_array().unwrap();
    assert_eq!(plugins.len(), 1);
    let entry = &plugins[0];
    assert_eq!(entry["name"], plugin["name"]);
    // The plugin is the repository itself: hooks/hooks.json next to .claude-plugin/.
    assert_eq!(entry["source"], "./");
    assert_eq!(entry["version"], plugin["version"]);
    assert_eq!(entry["version"], env!("CARGO_PKG_VERSION"));
}

/// A plugin folder with only what the plugin consists of (never `target/`).
fn plugin_copy(dir: &Path) {
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

const EVENT: &str = r#"{"session_id":"s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"adr/001-x.md","content":"x"},"cwd":"/tmp"}"#;

/// `/bin/sh <plugin>/hooks/helix-gate.sh hook` with only `env` (no inherited environment).
fn shim(plugin: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg(plugin.join("hooks/helix-gate.sh"))
        .arg("hook")
        .env_clear()
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    {
        use std::io::Write as _;
        // The shim may exit without reading the event; a closed pipe is fine.
        let _ = child.stdin.take().unwrap().write_all(EVENT.as_bytes());
    }
    child.wait_with_output().unwrap()
}

#[test]
fn shim_without_a_binary_tells_the_user_how_to_get_one() {
    let dir = tempfile::tempdir().unwrap();
    plugin_copy(dir.path());
    let root = dir.path().to_str().unwrap();
    // Empty PATH, with and without CLAUDE_PLUGIN_ROOT (then the root comes from $0).
    for env in [
        vec![("PATH", ""), ("CLAUDE_PLUGIN_ROOT", root)],
        vec![("PATH", "")],
    ] {
        let out = shim(dir.path(), &env);
        assert_eq!(out.status.code(), Some(0), "{env:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        // Exactly one JSON object on stdout: what Claude Code accepts from a hook.
        let answer: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(answer.as_object().unwrap().len(), 1, "{answer}");
        let message = answer["systemMessage"].as_str().unwrap();
        assert!(message.contains("no helix-gate binary found"), "{message}");
        assert!(message.contains("NOT being checked"), "{message}");
        assert!(
            message.contains("cargo install --locked --git "),
            "{message}"
        );
        assert!(
            out.stderr.is_empty(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn shim_runs_the_binary_it_finds_on_path() {
    let dir = tempfile::tempdir().unwrap();
    plugin_copy(dir.path());
    let bin_dir = dir.path().join("bin");
    std::fs::create_dir(&bin_dir).unwrap();
    std::os::unix::fs::symlink(bin(), bin_dir.join("helix-gate")).unwrap();
    let path = format!("{}:/usr/bin:/bin", bin_dir.display());
    let state = dir.path().join("state");
    let out = shim(
        dir.path(),
        &[
            ("PATH", &path),
            ("CLAUDE_PLUGIN_ROOT", dir.path().to_str().unwrap()),
            ("HOME", dir.path().to_str().unwrap()),
            ("HELIX_GATE_STATE_DIR", state.to_str().unwrap()),
        ],
    );
    // helix-gate answered (an ADR outside any repository: whatever it says, it is not
    // the shim's "no binary" message).
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("no helix-gate binary found"));
}

/// `claude ARGS` with a temp HOME, bounded in time; no network beyond what the command needs.
fn claude(claude: &Path, home: &Path, args: &[&str]) -> Output {
    // In the crate folder, where `cargo test` runs the suite.
    bounded(
        isolated(claude, manifest_dir())
            .args(args)
            .env("HOME", home)
            .env("DISABLE_TELEMETRY", "1")
            .env("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        Duration::from_secs(120),
    )
}

#[test]
fn claude_code_adds_the_marketplace_and_installs_the_plugin() {
    let Some(client) = require_claude() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let market = dir.path().join("helix-gate");
    plugin_copy(&market);
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let market_arg = market.to_str().unwrap();

    let out = claude(
        &client,
        &home,
        &["plugin", "validate", "--json", market_arg],
    );
    let report: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)));
    assert!(
        out.status.success() && report["success"] == true,
        "{report:#}"
    );
    assert_eq!(report["manifest"]["type"], "marketplace");
    assert_eq!(
        report["manifest"]["errors"],
        Value::Array(vec![]),
        "{report:#}"
    );

    let out = claude(
        &client,
        &home,
        &["plugin", "marketplace", "add", market_arg],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = claude(
        &client,
        &home,
        &["plugin", "install", "helix-gate@helix-gate"],
    );
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let settings: Value =
        serde_json::from_str(&std::fs::read_to_string(home.join(".claude/settings.json")).unwrap())
            .unwrap();
    assert_eq!(settings["enabledPlugins"]["helix-gate@helix-gate"], true);
    let installed = home.join(format!(
        ".claude/plugins/cache/helix-gate/helix-gate/{}",
        env!("CARGO_PKG_VERSION")
    ));
    assert!(
        installed.join("hooks/helix-gate.sh").is_file(),
        "{}",
        installed.display()
    );
    assert!(installed.join("hooks/hooks.json").is_file());
}
