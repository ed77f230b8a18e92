//! `install` and `uninstall`: register helix-gate as a Claude Code, Codex CLI,
//! Gemini CLI or Copilot CLI hook or a git pre-commit hook, and remove exactly that again.

use std::fmt::Write as _;

use super::terminal::{current_root, print, print_stderr};
use super::{ExitStatus, InstallTarget, Scope};
use crate::agent::claude::hooks as claude;
use crate::agent::codex::config::{CodexConfig, TRUSTED, project_key};
use crate::agent::codex::hooks as codex;
use crate::agent::copilot::hooks as copilot;
use crate::agent::gemini::hooks as gemini;
use crate::agent::hooks_file;
use crate::install::git::{self, HOOK, Installed, LOCAL, Uninstalled};
use crate::install::record;

/// What `install codex` may record for the person in Codex's config.toml, only
/// when asked (`--trust-hooks`, `--trust-project`).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Trust {
    pub(super) hooks: bool,
    pub(super) project: bool,
}

fn codex_scope(scope: Scope) -> anyhow::Result<codex::Scope> {
    match scope {
        Scope::Project => Ok(codex::Scope::Project),
        Scope::User => Ok(codex::Scope::User),
        Scope::Local => anyhow::bail!(
            "Codex CLI has no local settings file: use --scope project (.codex/hooks.json) or --scope user ($CODEX_HOME/hooks.json)"
        ),
    }
}

fn gemini_scope(scope: Scope) -> anyhow::Result<gemini::Scope> {
    match scope {
        Scope::Project => Ok(gemini::Scope::Project),
        Scope::User => Ok(gemini::Scope::User),
        Scope::Local => anyhow::bail!(
            "Gemini CLI has no local settings file: use --scope project (.gemini/settings.json) or --scope user (~/.gemini/settings.json)"
        ),
    }
}

fn copilot_scope(scope: Scope) -> anyhow::Result<copilot::Scope> {
    match scope {
        Scope::Project => Ok(copilot::Scope::Project),
        Scope::User => Ok(copilot::Scope::User),
        Scope::Local => anyhow::bail!(
            "Copilot CLI has no local hooks file: use --scope project (.github/hooks/) or --scope user (~/.copilot/hooks/)"
        ),
    }
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
    crate::install::registrations::first_session_folder(root, &settings.sessions.paths)
}

fn scope(scope: Scope) -> hooks_file::Scope {
    match scope {
        Scope::Project => hooks_file::Scope::Project,
        Scope::Local => hooks_file::Scope::Local,
        Scope::User => hooks_file::Scope::User,
    }
}

pub(super) fn install(target: InstallTarget, s: Scope, trust: Trust) -> anyhow::Result<ExitStatus> {
    if target != InstallTarget::Codex && (trust.hooks || trust.project) {
        anyhow::bail!("--trust-hooks and --trust-project are for `install codex` only");
    }
    match target {
        InstallTarget::Codex => install_codex(codex_scope(s)?, trust)?,
        InstallTarget::Gemini => install_gemini(gemini_scope(s)?)?,
        InstallTarget::Copilot => install_copilot(copilot_scope(s)?)?,
        InstallTarget::Claude => {
            let root = current_root();
            // The Stop hook runs the reviewers: its timeout follows config/approvals.yaml.
            let longest = crate::approval::settings(&root)?.longest_enabled_timeout();
            let stop_timeout = hooks_file::stop_timeout_s(longest);
            let path = claude::install(&root, scope(s), stop_timeout)?;
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
            print(&format!(
                "helix-gate hook registered in {} (PreToolUse and PostToolUse on Write|Edit|MultiEdit, Stop, SessionStart)\nStop timeout: {stop_timeout} s ({why}, {})\n",
                path.display(),
                approvals_source(&root)
            ))?;
            if s == Scope::User {
                print(&user_scope_prompt_context(&root)?)?;
            }
            if s == Scope::User {
                print_stderr(
                    "helix-gate: note: registered for every Claude Code session on this machine; it checks only repositories that have config/helix-gate.yaml (an empty file is enough) and does nothing elsewhere\n",
                );
            } else if let Some(folder) = session_folder(&root) {
                // Only where session folders exist: elsewhere the warning names a
                // problem the repository does not have.
                print_stderr(&format!(
                    "helix-gate: warning: Claude Code sessions started in a subdirectory of this repository (e.g. {}/) are their own project and do not load this file, so the hook will not run in them. To reach them: `helix-gate install claude --scope user` (every session; repositories opt in with config/helix-gate.yaml), a .claude/settings.json written into the session folder, or `claude --settings FILE`. See `helix-gate doctor`.\n",
                    crate::text::escape_controls(&folder)
                ));
            }
        }
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

/// `install codex`: register the hook, then record what was asked for and say
/// what Codex still needs before it runs the hook.
fn install_codex(scope: codex::Scope, trust: Trust) -> anyhow::Result<()> {
    let root = current_root();
    let longest = crate::approval::settings(&root)?.longest_enabled_timeout();
    let stop_timeout = hooks_file::stop_timeout_s(longest);
    let installed = codex::install(&root, scope, stop_timeout)?;
    record::registered(&installed.path);
    let events: Vec<&str> = installed.reviews.iter().map(|r| r.event.as_str()).collect();
    let mut text = format!(
        "helix-gate hook registered for Codex CLI in {} ({}; PreToolUse and PostToolUse on {})\nStop timeout: {stop_timeout} s ({})\n",
        installed.path.display(),
        events.join(", "),
        codex::TOOL_MATCHER,
        approvals_source(&root)
    );
    let mut config = CodexConfig::load()?;
    let mut changed = false;
    if trust.hooks {
        let added = config.record_reviews(&installed.reviews)?;
        changed |= added > 0;
        let _ = writeln!(
            text,
            "recorded Codex's review of {added} helix-gate hook(s) in {} (--trust-hooks)",
            config.path.display()
        );
    }
    if trust.project && config.trust_project(&root)? {
        changed = true;
        let _ = writeln!(
            text,
            "marked {} trusted in {} (--trust-project)",
            project_key(&root),
            config.path.display()
        );
    }
    if changed {
        config.save(&codex::user_area()?)?;
    }
    // What Codex still needs: both gates skip hooks without a word.
    let mut needs = Vec::new();
    if scope == codex::Scope::Project && config.project_trust(&root).as_deref() != Some(TRUSTED) {
        needs.push(format!(
            "- trust this project: Codex ignores .codex/ in an untrusted project. Add to {}:\n    [projects.\"{}\"]\n    trust_level = \"trusted\"\n  or run `codex exec --trust` once here (or `helix-gate install codex --trust-project`)",
            config.path.display(),
            project_key(&root)
        ));
    }
    let unreviewed = installed
        .reviews
        .iter()
        .filter(|r| !config.is_reviewed(r))
        .count();
    if unreviewed > 0 {
        needs.push(format!(
            "- review the hooks: Codex runs a hook only after the person reviewed it ({unreviewed} of {} not reviewed). The Codex TUI asks at startup (\"Hooks need review\"); `codex exec` skips them silently. Or record the review with `helix-gate install codex{} --trust-hooks`, which writes their `trusted_hash` into [hooks.state.\"{}:...\"] of {}. A changed command (a new helix-gate path) needs a new review",
            installed.reviews.len(),
            if scope == codex::Scope::User { " --scope user" } else { "" },
            installed.path.display(),
            config.path.display()
        ));
    }
    if needs.is_empty() {
        text.push_str(if scope == codex::Scope::Project {
            "Codex will run the hook: the project is trusted and every entry is reviewed.\n"
        } else {
            "Codex will run the hook: every entry is reviewed (hooks in Codex's home folder need no project trust).\n"
        });
    } else {
        let _ = writeln!(text, "Before Codex runs it:\n{}", needs.join("\n"));
    }
    print(&text)?;
    if scope == codex::Scope::User {
        print_stderr(
            "helix-gate: note: registered for every Codex session on this machine; it checks only repositories that have config/helix-gate.yaml (an empty file is enough) and does nothing elsewhere\n",
        );
    }
    Ok(())
}

/// `install gemini`: register the hook and say what Gemini still needs before
/// it runs it.
fn install_gemini(scope: gemini::Scope) -> anyhow::Result<()> {
    let root = current_root();
    let longest = crate::approval::settings(&root)?.longest_enabled_timeout();
    let stop_timeout = hooks_file::stop_timeout_s(longest);
    let (path, events) = gemini::install(&root, scope, stop_timeout)?;
    record::registered(&path);
    let mut text = format!(
        "helix-gate hook registered for Gemini CLI in {} ({}; BeforeTool and AfterTool on {})\nAfterAgent timeout: {} ms ({})\n",
        path.display(),
        events.join(", "),
        gemini::TOOL_MATCHER,
        stop_timeout * 1000,
        approvals_source(&root)
    );
    if scope == gemini::Scope::Project {
        if gemini::folder_trusted(&root) != Some(true) {
            let _ = writeln!(
                text,
                "Before Gemini runs it:\n- trust this folder: Gemini ignores .gemini/settings.json (hooks included) in a folder it does not trust. Accept the prompt when `gemini` starts here, or add `\"{}\": \"TRUST_FOLDER\"` to {}, or run it with GEMINI_CLI_TRUST_WORKSPACE=true. (`gemini --skip-trust` runs but ignores this file.)",
                root.display(),
                gemini::trusted_folders_path()?.display()
            );
        }
        print(&text)?;
        print_stderr(
            "helix-gate: warning: Gemini CLI sessions started in a subdirectory of this repository (e.g. projects/sessions/<id>/) load only that folder's .gemini/settings.json and the user's, so the hook will not run in them. To reach them: `helix-gate install gemini --scope user` (every session; repositories opt in with config/helix-gate.yaml). See `helix-gate doctor`.\n",
        );
    } else {
        print(&text)?;
        print_stderr(
            "helix-gate: note: registered for every Gemini CLI session on this machine; it checks only repositories that have config/helix-gate.yaml (an empty file is enough) and does nothing elsewhere\n",
        );
    }
    Ok(())
}

/// `install copilot`: register the hook and say what Copilot still needs.
fn install_copilot(scope: copilot::Scope) -> anyhow::Result<()> {
    let root = current_root();
    let longest = crate::approval::settings(&root)?.longest_enabled_timeout();
    let stop_timeout = hooks_file::stop_timeout_s(longest);
    let (path, events) = copilot::install(&root, scope, stop_timeout)?;
    record::registered(&path);
    let mut text = format!(
        "helix-gate hook registered for Copilot CLI in {} ({}; every tool, Copilot has no matcher for them)\nStop timeout: {stop_timeout} s ({})\n",
        path.display(),
        events.join(", "),
        approvals_source(&root)
    );
    if scope == copilot::Scope::Project {
        text.push_str("Before Copilot runs it: Copilot loads a repository's .github/hooks/ once the folder is trusted (its prompt at startup); `copilot -p` loads them only in a trusted folder or with GITHUB_COPILOT_PROMPT_MODE_REPO_HOOKS=true.\n");
    }
    print(&text)?;
    if scope == copilot::Scope::User {
        print_stderr(
            "helix-gate: note: registered for every Copilot CLI session on this machine; it checks only repositories that have config/helix-gate.yaml (an empty file is enough) and does nothing elsewhere\n",
        );
    }
    Ok(())
}

/// The line `install claude --scope user` adds: `hook.prompt_context` is the
/// built-in default there, whatever this repository's config says.
fn user_scope_prompt_context(root: &std::path::Path) -> anyhow::Result<String> {
    let registered = hooks_file::prompt_context(root, hooks_file::Scope::User)?;
    let here = crate::config::Settings::load(root)
        .map(|settings| settings.hook.prompt_context)
        .ok();
    let mut text = format!(
        "UserPromptSubmit: {} (user scope uses the built-in hook.prompt_context: {registered}, not this repository's config/helix-gate.yaml",
        if registered {
            "registered"
        } else {
            "not registered"
        }
    );
    if here.is_some_and(|here| here != registered) {
        let _ = write!(
            text,
            ", whose hook.prompt_context: {} applies only to `helix-gate install claude` at project or local scope",
            !registered
        );
    }
    text.push_str(")\n");
    Ok(text)
}

pub(super) fn uninstall(target: InstallTarget, s: Scope) -> anyhow::Result<ExitStatus> {
    match target {
        InstallTarget::Codex => {
            let (path, removed, reviews) = codex::uninstall(&current_root(), codex_scope(s)?)?;
            record::unregistered(&path);
            let mut text = format!(
                "removed {removed} helix-gate hook(s) from {}\n",
                path.display()
            );
            if !reviews.is_empty() {
                // Only the reviews of the entries just removed (their key and hash).
                let mut config = CodexConfig::load()?;
                let forgotten = config.forget_reviews(&reviews);
                if forgotten > 0 {
                    config.save(&codex::user_area()?)?;
                    let _ = writeln!(
                        text,
                        "removed Codex's review of {forgotten} of them from {}",
                        config.path.display()
                    );
                }
            }
            print(&text)?;
        }
        InstallTarget::Copilot => {
            let (path, removed) = copilot::uninstall(&current_root(), copilot_scope(s)?)?;
            record::unregistered(&path);
            print(&format!(
                "removed {removed} helix-gate hook(s) from {}\n",
                path.display()
            ))?;
        }
        InstallTarget::Gemini => {
            let (path, removed) = gemini::uninstall(&current_root(), gemini_scope(s)?)?;
            record::unregistered(&path);
            print(&format!(
                "removed {removed} helix-gate hook(s) from {}\n",
                path.display()
            ))?;
        }
        InstallTarget::Claude => {
            let (path, removed) = claude::uninstall(&current_root(), scope(s))?;
            print(&format!(
                "removed {removed} helix-gate hook(s) from {}\n",
                path.display()
            ))?;
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
    use crate::install::in_effect;
    use crate::install::registrations::{self, Level};
    let settings = crate::config::Settings::load(root)?;
    let opted_in = root.join(crate::config::settings::SETTINGS_PATH).is_file();
    let mut text = String::new();
    for (title, lines) in [
        (
            "Configuration in effect",
            in_effect::settings_lines(root, &settings),
        ),
        ("git pre-commit hook", vec![in_effect::git_hook_line(root)]),
        (
            "Claude Code hook registrations",
            registrations::report(root, &settings.sessions.paths, opted_in),
        ),
        (
            "Codex CLI hook registrations",
            registrations::codex_report(root, opted_in),
        ),
        (
            "Gemini CLI hook registrations",
            registrations::gemini_report(root, opted_in),
        ),
        (
            "Copilot CLI hook registrations",
            registrations::copilot_report(root, opted_in),
        ),
    ] {
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
