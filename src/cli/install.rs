//! `install` and `uninstall`: register helix-gate as a Claude Code, Codex CLI,
//! Gemini CLI or Copilot CLI hook or a git pre-commit hook, and remove exactly that again.

use std::fmt::Write as _;

use super::terminal::{current_root, print, print_stderr};
use super::{ExitStatus, InstallTarget, Scope};
use crate::agent::hooks_file;
use crate::agent::record;
use crate::agent::{Agent, InstallRequest};
use crate::install::git::{self, HOOK, Installed, LOCAL, Uninstalled};

/// What `install codex` may record for the person in Codex's config.toml, only
/// when asked (`--trust-hooks`, `--trust-project`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Trust {
    pub(super) hooks: bool,
    pub(super) project: bool,
}

/// Where the reviewers' timeouts come from, as the install summary names it: the
/// repository's config/approvals.yaml only when it exists.
fn approvals_source(root: &std::path::Path) -> &'static str {
    if root
        .join(crate::config::protected::APPROVALS_PATH)
        .is_file()
    {
        "from config/approvals.yaml"
    } else {
        "from the built-in approval settings"
    }
}

/// The first existing session folder (`sessions.paths`), if any.
fn session_folder(root: &std::path::Path) -> Option<String> {
    let settings = crate::config::Settings::load(root).ok()?;
    crate::agent::doctor::first_session_folder(root, &settings.sessions.paths)
}

fn scope(scope: Scope) -> hooks_file::Scope {
    match scope {
        Scope::Project => hooks_file::Scope::Project,
        Scope::Local => hooks_file::Scope::Local,
        Scope::User => hooks_file::Scope::User,
    }
}

pub(super) fn install(target: InstallTarget, s: Scope, trust: Trust) -> anyhow::Result<ExitStatus> {
    let takes_trust =
        matches!(target, InstallTarget::Agent(agent) if agent.backend().trust_gates());
    if !takes_trust && (trust.hooks || trust.project) {
        let takers: Vec<String> = Agent::ALL
            .into_iter()
            .filter(|a| a.backend().trust_gates())
            .map(|a| format!("`install {}`", a.cli_name()))
            .collect();
        anyhow::bail!(
            "--trust-hooks and --trust-project are for {} only",
            takers.join(", ")
        );
    }
    match target {
        InstallTarget::Agent(agent) => install_agent(agent, s, trust)?,
        InstallTarget::Git => {
            let (hook, done) = git::install()?;
            let hook = hook.display();
            print(&match done {
                Installed::Fresh => {
                    format!("installed the helix-gate pre-commit hook: {hook}\n")
                }
                Installed::Chained => format!(
                    "installed the helix-gate pre-commit hook: {hook}\nthe existing hook was kept as {LOCAL}; it runs first and its failure still blocks the commit\n",
                ),
                Installed::Updated => format!("updated the helix-gate pre-commit hook: {hook}\n"),
                Installed::Unchanged => {
                    format!("the helix-gate pre-commit hook is already installed: {hook}\n")
                }
            })?;
            if !git::on_path("helix-gate") {
                print_stderr(
                    "helix-gate: warning: `helix-gate` is not on PATH; the hook blocks every commit until it is (install.sh or `cargo install --path <checkout>`)\n",
                );
            }
        }
    }
    Ok(ExitStatus::Success)
}

/// `install NAME`: the Stop timeout the reviews need, then the agent's
/// registration and what it says.
fn install_agent(agent: Agent, s: Scope, trust: Trust) -> anyhow::Result<()> {
    let backend = agent.backend();
    let root = current_root();
    // The Stop hook runs the reviewers: its timeout follows config/approvals.yaml.
    let longest = crate::approval::settings(&root)?.longest_enabled_timeout();
    let why = longest.map_or_else(
        || "no approval type is enabled".to_owned(),
        |t| {
            format!(
                "the longest enabled approval timeout, {} s, plus {} s",
                t.as_secs(),
                hooks_file::STOP_TIMEOUT_MARGIN_S
            )
        },
    );
    let done = backend.install(&InstallRequest {
        root: &root,
        scope: scope(s),
        stop_timeout_s: hooks_file::stop_timeout_s(longest),
        stop_why: Some(why),
        stop_source: approvals_source(&root),
        session_folder: session_folder(&root),
        trust_hooks: trust.hooks,
        trust_project: trust.project,
    })?;
    if done.record {
        record::registered(&done.path);
    }
    print(&done.text)?;
    for note in &done.notes {
        print_stderr(note);
    }
    Ok(())
}

pub(super) fn uninstall(target: InstallTarget, s: Scope) -> anyhow::Result<ExitStatus> {
    match target {
        InstallTarget::Agent(agent) => {
            let done = agent.backend().uninstall(&current_root(), scope(s))?;
            if done.record {
                record::unregistered(&done.path);
            }
            print(&done.text)?;
        }
        InstallTarget::Git => {
            let (dir, done) = git::uninstall()?;
            let hook = dir.join(HOOK);
            let hook = hook.display();
            print(&match done {
                Uninstalled::Removed => {
                    format!("removed the helix-gate pre-commit hook: {hook}\n")
                }
                Uninstalled::Restored => format!(
                    "removed the helix-gate pre-commit hook and restored the previous hook from {LOCAL}: {hook}\n"
                ),
                Uninstalled::NotInstalled => format!(
                    "no pre-commit hook is installed in {}: nothing to do\n",
                    dir.display()
                ),
                Uninstalled::Foreign => {
                    format!("{hook} is not helix-gate's hook: left unchanged\n")
                }
            })?;
        }
    }
    Ok(ExitStatus::Success)
}

/// The part of `doctor` about reaching sessions: where the hook is registered and
/// whether sessions started in the configured session folders load it.
pub(super) fn print_registrations(root: &std::path::Path) -> anyhow::Result<()> {
    use crate::agent::doctor::Level;
    use crate::install::in_effect;
    let settings = crate::config::Settings::load(root)?;
    let opted_in = root.join(crate::config::settings::SETTINGS_PATH).is_file();
    let mut text = String::new();
    let mut sections = vec![
        (
            "Configuration in effect".to_owned(),
            in_effect::settings_lines(root, &settings),
        ),
        (
            "git pre-commit hook".to_owned(),
            vec![in_effect::git_hook_line(root)],
        ),
    ];
    sections.extend(Agent::ALL.into_iter().map(|agent| {
        let backend = agent.backend();
        (
            format!("{} hook registrations", backend.name()),
            backend.doctor(root, &settings.sessions.paths, opted_in),
        )
    }));
    for (title, lines) in sections {
        let _ = writeln!(text, "\n{title}:");
        for line in lines {
            let label = match line.level {
                Level::Ok => "ok",
                Level::Info => "info",
                Level::Warning => "warning",
            };
            let _ = writeln!(
                text,
                "  {label}: {}",
                crate::text::escape_controls(&line.text)
            );
        }
    }
    print(&text)
}
