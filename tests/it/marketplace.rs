//! The Claude Code plugin marketplace: `.claude-plugin/marketplace.json` lists the plugin
//! at the repository root, the real client (2.1.329) validates it and installs the plugin
//! from it, and the plugin's hook shim finds the binary of every install channel (npm, pip,
//! cargo, the tarball) and never fails silently when there is none. tests/it/packages.rs
//! runs the shim against real installs of each channel's package.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use serde_json::Value;

use crate::support::claude::require_claude;
use crate::support::cli::{bin, bounded, isolated, manifest_dir};
use crate::support::plugin::{plugin_copy, shim};

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

/// The one-line install of every channel, as the shim's message names them.
const INSTALL_LINES: [&str; 4] = [
    "`npm install -g helix-gate`",
    "`pipx install helix-gate`",
    "`cargo install --locked helix-gate`",
    "https://github.com/helix-gate/helix-gate/releases",
];

/// The shim's "no binary" answer in `out`: exactly one JSON object, a `systemMessage`
/// naming every channel's install; exit 0, nothing on stderr.
fn assert_no_binary_message(out: &Output, case: &str) {
    assert_eq!(out.status.code(), Some(0), "{case}");
    let text = String::from_utf8_lossy(&out.stdout);
    // Exactly one JSON object on stdout: what Claude Code accepts from a hook.
    let answer: Value =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{case}: {e}: {text}"));
    assert_eq!(answer.as_object().unwrap().len(), 1, "{case}: {answer}");
    let message = answer["systemMessage"].as_str().unwrap();
    assert!(message.contains("no helix-gate binary found"), "{message}");
    assert!(message.contains("NOT being checked"), "{message}");
    for line in INSTALL_LINES {
        assert!(message.contains(line), "{case}: {line} missing: {message}");
    }
    assert!(
        out.stderr.is_empty(),
        "{case}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A binary in a system folder the shim also searches would make the "no binary" cases
/// find it: those cases are skipped (with a note) on such a machine.
fn system_install() -> Option<&'static str> {
    ["/usr/local/bin/helix-gate", "/opt/homebrew/bin/helix-gate"]
        .into_iter()
        .find(|p| Path::new(p).exists())
}

#[test]
fn shim_without_a_binary_tells_the_user_how_to_get_one() {
    if let Some(found) = system_install() {
        eprintln!("skipped: {found} exists, the shim would run it");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    plugin_copy(dir.path());
    let root = dir.path().to_str().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    // An executable `helix-gate` in the working directory (the project's, when Claude Code
    // runs the hook): an empty PATH or an empty PATH entry must not make the shim run it.
    let project = dir.path().join("project");
    std::fs::create_dir(&project).unwrap();
    fake(&project.join("helix-gate"), "planted");
    let home = home.to_str().unwrap();
    // Empty PATH, with and without CLAUDE_PLUGIN_ROOT (then the root comes from $0), with
    // and without HOME.
    for env in [
        vec![("PATH", ""), ("CLAUDE_PLUGIN_ROOT", root)],
        vec![("PATH", "")],
        vec![("PATH", ""), ("HOME", home)],
        vec![("PATH", ":/usr/bin:/bin"), ("HOME", home)],
    ] {
        let out = shim(dir.path(), &project, &["hook"], &env);
        assert_no_binary_message(&out, &format!("{env:?}"));
    }
}

/// An executable shell script at `path` that prints `fake <name> <args>`.
fn fake(path: &Path, name: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, format!("#!/bin/sh\necho \"fake {name} $*\"\n")).unwrap();
    crate::support::make_executable(path);
}

/// Where each install channel puts the binary, relative to a scratch folder `D` (HOME is
/// `D/home`), with the environment that channel's install leaves behind: the shim finds
/// every one of them with no PATH at all (Claude Code started from a desktop launcher).
#[test]
fn shim_finds_the_binary_of_every_install_channel_off_path() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case; 7] = [
        (
            "cargo install, install.sh",
            "home/.cargo/bin/helix-gate",
            &[],
        ),
        (
            "cargo install, CARGO_HOME",
            "cargo/bin/helix-gate",
            &[("CARGO_HOME", "cargo")],
        ),
        (
            "pip install --user, pipx, uv tool, the tarball",
            "home/.local/bin/helix-gate",
            &[],
        ),
        (
            "pip install --user on macOS",
            "home/Library/Python/3.12/bin/helix-gate",
            &[],
        ),
        (
            "npm -g, NPM_CONFIG_PREFIX",
            "npm/bin/helix-gate",
            &[("NPM_CONFIG_PREFIX", "npm")],
        ),
        (
            "npm -g, ~/.npm-global",
            "home/.npm-global/bin/helix-gate",
            &[],
        ),
        ("the tarball, ~/bin", "home/bin/helix-gate", &[]),
    ];
    for (channel, rel, extra) in cases {
        let dir = tempfile::tempdir().unwrap();
        let plugin = dir.path().join("plugin");
        plugin_copy(&plugin);
        fake(&dir.path().join(rel), channel);
        let home = dir.path().join("home");
        std::fs::create_dir_all(&home).unwrap();
        let abs: Vec<(String, String)> = extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), dir.path().join(v).display().to_string()))
            .collect();
        let mut env = vec![("PATH", ""), ("HOME", home.to_str().unwrap())];
        env.extend(abs.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        let out = shim(&plugin, dir.path(), &["hook"], &env);
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("fake {channel} hook\n"),
            "{channel}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// npm installs a node launcher as `<prefix>/bin/helix-gate`; the shim runs the native
/// binary of the platform package beside it instead (no node start per hook call), hoisted
/// or nested, and the launcher itself when there is no such binary.
#[test]
#[cfg(unix)]
fn shim_runs_the_native_binary_of_an_npm_install_not_its_launcher() {
    for native in [
        "lib/node_modules/@helix-gate/cli-linux-x64/helix-gate",
        "lib/node_modules/helix-gate/node_modules/@helix-gate/cli-darwin-arm64/helix-gate",
        "",
    ] {
        let dir = tempfile::tempdir().unwrap();
        let plugin = dir.path().join("plugin");
        plugin_copy(&plugin);
        let prefix = dir.path().join("npm");
        // npm links <prefix>/bin/helix-gate to the package's launcher.
        let launcher = prefix.join("lib/node_modules/helix-gate/bin/helix-gate");
        fake(&launcher, "launcher");
        std::fs::create_dir_all(prefix.join("bin")).unwrap();
        std::os::unix::fs::symlink(
            "../lib/node_modules/helix-gate/bin/helix-gate",
            prefix.join("bin/helix-gate"),
        )
        .unwrap();
        if !native.is_empty() {
            fake(&prefix.join(native), "native");
        }
        let path = prefix.join("bin");
        let out = shim(
            &plugin,
            dir.path(),
            &["hook"],
            &[("PATH", path.to_str().unwrap())],
        );
        let expected = if native.is_empty() {
            "fake launcher hook\n"
        } else {
            "fake native hook\n"
        };
        assert_eq!(String::from_utf8_lossy(&out.stdout), expected, "{native}");
    }
}

/// PATH comes first: a binary on PATH wins over the channel folders (the user's choice),
/// and the clone's own release build wins over both (the plugin used from a clone).
#[test]
fn shim_prefers_the_clone_then_path_then_the_channel_folders() {
    let dir = tempfile::tempdir().unwrap();
    let plugin = dir.path().join("plugin");
    plugin_copy(&plugin);
    let home = dir.path().join("home");
    fake(&home.join(".cargo/bin/helix-gate"), "cargo");
    fake(&dir.path().join("path/helix-gate"), "path");
    let path = dir.path().join("path");
    let env = [
        ("PATH", path.to_str().unwrap()),
        ("HOME", home.to_str().unwrap()),
    ];
    let out = shim(&plugin, dir.path(), &["hook"], &env);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "fake path hook\n");
    fake(
        &plugin.join("target/x86_64-unknown-linux-gnu/dist/helix-gate"),
        "clone",
    );
    let out = shim(&plugin, dir.path(), &["hook"], &env);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "fake clone hook\n");
}

#[test]
#[cfg(unix)]
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
        dir.path(),
        &["hook"],
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
