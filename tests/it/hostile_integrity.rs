//! `helix-gate hook` against a model that switches a gate off by the side door
//! (issue 27, round 3): it unregisters its own hook, switches git's pre-commit
//! hook off, restores or removes the configuration with git's own file
//! commands, or wipes helix-gate's per-user state outside the tree. Each way is
//! put to the person (`ask` in Claude Code) or refused with the reason to ask
//! them (`deny` for the agents that cannot ask), through a real `PreToolUse`
//! event of each agent's wire, piped into the real binary in a real git
//! repository. The near misses next to each way still pass without a word.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::hook::Hook;
use crate::support::repo::ScratchRepo;

/// Longest any hook run may take here: the default deadline (8 s) plus room.
const HARD_LIMIT: Duration = Duration::from_secs(15);

/// A repository set up for helix-gate with the configuration committed, and a
/// home folder of its own (user-scope registrations, the per-user state).
struct Setup {
    repo: ScratchRepo,
    home: tempfile::TempDir,
}

impl Setup {
    fn new() -> Setup {
        let repo = ScratchRepo::empty();
        repo.write("config/helix-gate.yaml", "hook: {budget: 3}\n");
        repo.write(
            "config/approvals.yaml",
            "approvals:\n  adr:\n    enabled: false\n",
        );
        repo.write("src/lib.rs", "");
        repo.write("README.md", "# r\n");
        repo.commit_all("base");
        Setup {
            repo,
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn root(&self) -> &Path {
        self.repo.path()
    }

    fn home(&self) -> PathBuf {
        self.home.path().canonicalize().unwrap()
    }

    /// The hook of `agent` with this setup's home and `env`.
    fn run(&self, agent: &str, env: &[(&str, &Path)], event: &Value) -> Option<Value> {
        Hook::new(self.root())
            .args(&["--agent", agent])
            .env("HOME", self.home())
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .limit(HARD_LIMIT)
            .event(event)
            .answer()
    }

    /// The `PreToolUse` event of `agent` for a shell command.
    fn shell(&self, agent: &str, command: &str) -> Value {
        let root = self.root();
        match agent {
            "gemini" => json!({"session_id": "g1", "transcript_path": "t", "cwd": root,
                "hook_event_name": "BeforeTool", "timestamp": "t",
                "tool_name": "run_shell_command", "tool_input": {"command": command}}),
            "copilot" => json!({"hook_event_name": "PreToolUse", "session_id": "c1",
                "timestamp": "t", "cwd": root, "tool_name": "Bash",
                "tool_input": {"command": command, "description": "d"}}),
            _ => json!({"session_id": "s1", "turn_id": "t1", "transcript_path": "t", "cwd": root,
                "hook_event_name": "PreToolUse", "tool_name": "Bash",
                "tool_input": {"command": command}, "tool_use_id": "call_1"}),
        }
    }

    /// The `PreToolUse` event of `agent` for a write of `path`.
    fn write_of(&self, agent: &str, path: &Path) -> Value {
        let root = self.root();
        match agent {
            "gemini" => json!({"session_id": "g1", "transcript_path": "t", "cwd": root,
                "hook_event_name": "BeforeTool", "timestamp": "t",
                "tool_name": "write_file", "tool_input": {"file_path": path, "content": "{}"}}),
            "copilot" => json!({"hook_event_name": "PreToolUse", "session_id": "c1",
                "timestamp": "t", "cwd": root, "tool_name": "Edit",
                "tool_input": {"path": path, "old_str": "a", "new_str": "b"}}),
            _ => json!({"session_id": "s1", "transcript_path": "t", "cwd": root,
                "hook_event_name": "PreToolUse", "tool_name": "Write",
                "tool_input": {"file_path": path, "content": "{}"}, "tool_use_id": "toolu_1"}),
        }
    }

    /// Codex's `apply_patch` `PreToolUse` event.
    fn patch(&self, patch: &str) -> Value {
        json!({"session_id": "s1", "turn_id": "t1", "transcript_path": "t", "cwd": self.root(),
            "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
            "tool_input": {"command": patch}, "tool_use_id": "call_1"})
    }
}

/// The decision and its reason in `agent`'s fields.
fn decision(agent: &str, answer: &Value) -> (String, String) {
    let (decision, reason) = match agent {
        "gemini" => (&answer["decision"], &answer["reason"]),
        "copilot" => (
            &answer["permissionDecision"],
            &answer["permissionDecisionReason"],
        ),
        _ => (
            &answer["hookSpecificOutput"]["permissionDecision"],
            &answer["hookSpecificOutput"]["permissionDecisionReason"],
        ),
    };
    (
        decision.as_str().unwrap_or_default().to_owned(),
        reason.as_str().unwrap_or_default().to_owned(),
    )
}

/// `answer` puts the call to the person: `ask` in Claude Code, a `deny` that
/// says to ask them elsewhere; the reason contains `says`.
fn assert_refused(agent: &str, answer: Option<&Value>, says: &str, what: &str) {
    let answer = answer.unwrap_or_else(|| panic!("{agent}: {what}: passed without a word"));
    let (decision, reason) = decision(agent, answer);
    if agent == "claude" {
        assert_eq!(decision, "ask", "{what}: {answer}");
        assert!(reason.contains("Ask the user"), "{what}: {reason}");
    } else {
        assert_eq!(decision, "deny", "{agent}: {what}: {answer}");
        assert!(
            reason.contains("cannot ask the user from a hook") && reason.contains("Tell the user"),
            "{agent}: {what}: {reason}"
        );
    }
    assert!(reason.contains(says), "{agent}: {what}: {reason}");
}

const CODEX_HOOKS: &str = r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"helix-gate hook --agent codex"}]}]}}"#;
const GEMINI_SETTINGS: &str = r#"{"ui":{"theme":"x"},"hooks":{"BeforeTool":[{"hooks":[{"type":"command","command":"helix-gate hook --agent gemini"}]}]}}"#;
const COPILOT_HOOKS: &str = r#"{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"helix-gate hook --agent copilot"}]}}"#;
const CLAUDE_SETTINGS: &str =
    r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"helix-gate hook"}]}]}}"#;

// ------------------------------------------------------------------ registrations

#[test]
fn the_model_cannot_unregister_its_own_hook() {
    let s = Setup::new();
    let root = s.root();
    let home = s.home();
    s.repo.write(".codex/hooks.json", CODEX_HOOKS);
    s.repo.write(".gemini/settings.json", GEMINI_SETTINGS);
    s.repo.write(".github/hooks/helix-gate.json", COPILOT_HOOKS);
    s.repo.write(".claude/settings.json", CLAUDE_SETTINGS);
    for (rel, text) in [
        (".codex/hooks.json", CODEX_HOOKS),
        (".gemini/settings.json", GEMINI_SETTINGS),
        (".copilot/hooks/helix-gate.json", COPILOT_HOOKS),
    ] {
        let path = home.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let says = "registers helix-gate's hook";
    let delete_codex = "*** Begin Patch\n*** Delete File: .codex/hooks.json\n*** End Patch\n";
    let answer = s.run("codex", &[], &s.patch(delete_codex));
    assert_refused("codex", answer.as_ref(), says, "apply_patch delete");
    for (agent, command) in [
        ("codex", "rm .codex/hooks.json"),
        ("codex", "rm -f ~/.codex/hooks.json"),
        ("codex", "echo '{}' > .codex/hooks.json"),
        ("gemini", "echo '{}' > .gemini/settings.json"),
        ("gemini", "rm $HOME/.gemini/settings.json"),
        ("gemini", "rm -rf .gemini"),
        ("copilot", "rm -rf .github/hooks"),
        ("copilot", "mv ~/.copilot/hooks/helix-gate.json /tmp/x.json"),
        ("copilot", "git rm .github/hooks/helix-gate.json"),
        (
            "claude",
            "sed -i 's/helix-gate/true/' .claude/settings.json",
        ),
    ] {
        let answer = s.run(agent, &[], &s.shell(agent, command));
        assert_refused(agent, answer.as_ref(), says, command);
    }
    for (agent, path) in [
        ("gemini", root.join(".gemini/settings.json")),
        ("gemini", home.join(".gemini/settings.json")),
        ("copilot", root.join(".github/hooks/helix-gate.json")),
        ("copilot", home.join(".copilot/hooks/helix-gate.json")),
        ("codex", root.join(".codex/hooks.json")),
        ("claude", root.join(".claude/settings.json")),
    ] {
        let answer = s.run(agent, &[], &s.write_of(agent, &path));
        assert_refused(agent, answer.as_ref(), says, &path.display().to_string());
    }
    // A user folder moved by the agent's variable is found there.
    let moved = s.home().join("elsewhere");
    std::fs::create_dir_all(&moved).unwrap();
    std::fs::write(moved.join("hooks.json"), CODEX_HOOKS).unwrap();
    let answer = s.run(
        "codex",
        &[("CODEX_HOME", &moved)],
        &s.shell("codex", &format!("rm {}/hooks.json", moved.display())),
    );
    assert_refused("codex", answer.as_ref(), says, "rm $CODEX_HOME/hooks.json");

    // Near misses: reading them, a settings file that registers no helix-gate,
    // another file of the folder.
    s.repo.write(".gemini/other.json", "{}");
    let plain = ScratchRepo::new();
    plain.write(".gemini/settings.json", r#"{"ui":{"theme":"x"}}"#);
    for (agent, command) in [
        ("codex", "cat .codex/hooks.json"),
        ("gemini", "jq . .gemini/settings.json > /tmp/out.json"),
        ("gemini", "rm .gemini/other.json"),
        ("copilot", "cp .github/hooks/helix-gate.json /tmp/copy.json"),
    ] {
        assert_eq!(
            s.run(agent, &[], &s.shell(agent, command)),
            None,
            "{command}"
        );
    }
    let answer = Hook::new(plain.path())
        .args(&["--agent", "gemini"])
        .env("HOME", s.home())
        .limit(HARD_LIMIT)
        .event(
            &json!({"session_id": "g1", "transcript_path": "t", "cwd": plain.path(),
            "hook_event_name": "BeforeTool", "timestamp": "t", "tool_name": "write_file",
            "tool_input": {"file_path": plain.join(".gemini/settings.json"), "content": "{}"}}),
        )
        .answer();
    assert_eq!(answer, None, "no helix-gate in it: the model may edit it");
    assert_eq!(
        s.run(
            "copilot",
            &[],
            &s.write_of("copilot", &root.join(".github/workflows/ci.yml"))
        ),
        None
    );
}

// ------------------------------------------------------------------ pre-commit

#[test]
fn the_model_cannot_switch_off_the_pre_commit_hook_unasked() {
    let s = Setup::new();
    s.repo.write_executable(
        ".git/hooks/pre-commit",
        "#!/bin/sh\n# helix-gate pre-commit shim\nexit 0\n",
    );
    let says = "pre-commit";
    for command in [
        "git commit --no-verify -m x",
        "git commit -n -m x",
        "git commit -anm x",
        "git add -A && git commit -qn -m 'wip'",
        "git push --no-verify origin main",
        "git -c core.hooksPath=/dev/null commit -m x",
        "git -c core.hookspath=/tmp/none commit -m x",
        "git config core.hooksPath /dev/null",
        "git config --global core.hooksPath /tmp/none",
        "git config --local --unset core.hooksPath",
        "GIT_CONFIG_PARAMETERS=\"'core.hooksPath'='/dev/null'\" git commit -m x",
        "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.hooksPath GIT_CONFIG_VALUE_0=/dev/null git commit -m x",
        "rm .git/hooks/pre-commit",
        "rm -rf .git/hooks",
        "mv .git/hooks/pre-commit /tmp/",
        "chmod -x .git/hooks/pre-commit",
        "echo 'exit 0' > .git/hooks/pre-commit",
        "printf '[core]\\nhooksPath = /dev/null\\n' >> .git/config",
        "helix-gate uninstall git",
    ] {
        for agent in ["claude", "codex", "gemini"] {
            let answer = s.run(agent, &[], &s.shell(agent, command));
            assert_refused(agent, answer.as_ref(), says, command);
        }
    }
    let answer = s.run(
        "copilot",
        &[],
        &s.write_of("copilot", &s.root().join(".git/hooks/pre-commit")),
    );
    assert_refused("copilot", answer.as_ref(), says, "Edit of the hook");
    for command in [
        "git commit -m '--no-verify mentioned'",
        "git commit -m \"-n is not a flag here\"",
        "git commit -F notes.txt -m x",
        "git log -n 3",
        "git push -n origin main",
        "git config --get core.hooksPath",
        "git config user.name 'A B'",
        "git -c color.ui=never commit -m x",
        "echo core.hooksPath",
        "cat .git/hooks/pre-commit",
        "helix-gate install git",
    ] {
        assert_eq!(
            s.run("claude", &[], &s.shell("claude", command)),
            None,
            "{command}"
        );
    }
}

// ------------------------------------------------------------------ git's file commands

#[test]
fn gits_own_file_commands_on_the_configuration_are_asked() {
    let s = Setup::new();
    let says = "is part of helix-gate's configuration";
    for command in [
        "git mv config/helix-gate.yaml config/old.yaml",
        "git mv notes.yaml config/approvals.yaml",
        "git checkout -- config/helix-gate.yaml",
        "git checkout HEAD~1 -- config/approvals.yaml",
        "git checkout main config/approvals.yaml",
        "git restore config/helix-gate.yaml",
        "git restore --source HEAD~2 config/helix-gate.yaml",
        "git restore --source=HEAD~2 --staged --worktree config/approvals.yaml",
        "git rm config/approvals.yaml",
        "git rm -r --cached config",
        "git -C . rm -q config/helix-gate.yaml",
        "git restore .",
    ] {
        for agent in ["claude", "copilot"] {
            let answer = s.run(agent, &[], &s.shell(agent, command));
            assert_refused(agent, answer.as_ref(), says, command);
        }
    }
    // Codex's apply_patch run as a shell command, heredoc and all.
    let heredoc = "apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: config/helix-gate.yaml\n*** End Patch\nEOF\n";
    let answer = s.run("codex", &[], &s.shell("codex", heredoc));
    assert_refused(
        "codex",
        answer.as_ref(),
        "config/helix-gate.yaml is part of helix-gate's configuration",
        "apply_patch heredoc",
    );
    for command in [
        "git mv adr/001-a.md adr/002-a.md",
        "git checkout main",
        "git checkout -b feature",
        "git checkout -- README.md",
        "git restore --staged src/lib.rs",
        "git rm -q README.md",
        "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.txt\n+x\n*** End Patch\nEOF\n",
    ] {
        for agent in ["claude", "codex"] {
            assert_eq!(
                s.run(agent, &[], &s.shell(agent, command)),
                None,
                "{agent}: {command}"
            );
        }
    }
}

// ------------------------------------------------------------------ per-user state

#[test]
fn a_command_cannot_wipe_helix_gates_state_outside_the_tree_unasked() {
    let s = Setup::new();
    let home = s.home();
    let default = home.join(".local/state/helix-gate");
    std::fs::create_dir_all(&default).unwrap();
    std::fs::write(default.join("key"), "k").unwrap();
    let says = "helix-gate's per-user state";
    for command in [
        "rm -rf ~/.local/state/helix-gate".to_owned(),
        "rm -rf ~/.local/state".to_owned(),
        "rm $HOME/.local/state/helix-gate/key".to_owned(),
        "echo x > \"${HOME}/.local/state/helix-gate/key\"".to_owned(),
        format!("rm -rf {}", default.display()),
        format!("cd /tmp && find . ; rm -r {}/trust", default.display()),
    ] {
        for agent in ["claude", "copilot"] {
            let answer = s.run(agent, &[], &s.shell(agent, &command));
            assert_refused(agent, answer.as_ref(), says, &command);
        }
    }
    // The folder the variables move it to.
    let xdg = home.join("xdg");
    let answer = s.run(
        "claude",
        &[("XDG_STATE_HOME", &xdg)],
        &s.shell("claude", "rm -rf ${XDG_STATE_HOME}/helix-gate"),
    );
    assert_refused("claude", answer.as_ref(), says, "XDG_STATE_HOME");
    let own = home.join("own-state");
    let answer = s.run(
        "gemini",
        &[("HELIX_GATE_STATE_DIR", &own)],
        &s.shell("gemini", "truncate -s0 $HELIX_GATE_STATE_DIR/key"),
    );
    assert_refused("gemini", answer.as_ref(), says, "HELIX_GATE_STATE_DIR");
    let answer = s.run(
        "claude",
        &[("HELIX_GATE_STATE_DIR", &own)],
        &s.write_of("claude", &own.join("key")),
    );
    assert_refused("claude", answer.as_ref(), says, "Write of the key");
    for command in [
        "rm -rf ~/.local/state/other-tool",
        "ls -la ~/.local/state/helix-gate",
        "cat $HOME/.local/state/helix-gate/key",
        "rm -rf /tmp/helix-gate",
    ] {
        assert_eq!(
            s.run("claude", &[], &s.shell("claude", command)),
            None,
            "{command}"
        );
    }
}

// ------------------------------------------------------------------ doctor

#[test]
fn doctor_warns_when_a_registration_install_wrote_is_gone() {
    use crate::support::cli::{bin, bounded, stdout};
    use crate::support::repo::{TIME_LIMIT, in_repo};
    let s = Setup::new();
    let helix = |args: &[&str]| {
        let mut cmd = in_repo(bin(), s.root());
        cmd.env("HOME", s.home()).args(args);
        stdout(&bounded(&mut cmd, TIME_LIMIT))
    };
    let line = |text: &str, head: &str| {
        text.lines()
            .find(|l| l.contains(head))
            .unwrap_or_else(|| panic!("no line with {head}: {text}"))
            .to_owned()
    };
    // Never installed: not registered is a fact, no warning.
    let before = helix(&["doctor"]);
    assert!(
        line(&before, "not registered (.github/hooks/helix-gate.json").starts_with("  info:"),
        "{before}"
    );
    helix(&["install", "copilot"]);
    helix(&["install", "gemini"]);
    let installed = helix(&["doctor"]);
    assert!(
        line(
            &installed,
            "project: .github/hooks/helix-gate.json: registered"
        )
        .contains("ok:"),
        "{installed}"
    );
    // The model (or anyone) removes them: doctor no longer says ok.
    std::fs::remove_file(s.repo.join(".github/hooks/helix-gate.json")).unwrap();
    std::fs::write(s.repo.join(".gemini/settings.json"), "{}").unwrap();
    let after = helix(&["doctor"]);
    for head in [
        "project: .github/hooks/helix-gate.json: not registered any more",
        "project: .gemini/settings.json: not registered any more",
    ] {
        let warned = line(&after, head);
        assert!(
            warned.contains("warning:") && warned.contains("`helix-gate install"),
            "{after}"
        );
    }
    // `uninstall` forgets it: not registered is a fact again.
    helix(&["install", "copilot"]);
    helix(&["uninstall", "copilot"]);
    let uninstalled = helix(&["doctor"]);
    assert!(
        line(
            &uninstalled,
            "not registered (.github/hooks/helix-gate.json"
        )
        .contains("info:"),
        "{uninstalled}"
    );
}
