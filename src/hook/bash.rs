//! Bash: a shell command can write, move or delete an ADR, or helix-gate's own
//! files, just as well as the write tools.
//!
//! - `PreToolUse`: a command that plainly writes, moves or deletes
//!   helix-gate's configuration (also by git's own `mv`, `rm`, `checkout`,
//!   `restore`, or Codex's `apply_patch <<'EOF'`), an agent's registration of
//!   the hook, git's pre-commit hook or helix-gate's per-user state
//!   ([`super::guarded`]), or that skips the pre-commit hook
//!   (`git commit --no-verify`, `core.hooksPath`) or overrides an ADR rule
//!   (`helix-gate override`), is put to the person; one
//!   that does so to `.helix-gate/` is refused ([`super::shell::written`]).
//!   Everything else runs.
//! - `PostToolUse` and `PostToolUseFailure` (a failing command may have written
//!   all the same): the files the command may have changed are compared with
//!   what the session last saw ([`changes::changed_since_seen`], a `stat`
//!   each), and an ADR or phase plan that changed is checked on the spot,
//!   exactly like a save through Write, so the feedback comes with the command
//!   that broke it.

use std::path::{Path, PathBuf};

use super::answer::{charged_answer, count_write};
use super::ctx::Context;
use super::policy::{InfraError, need_session};
use super::ruling::{Ruling, count, session_id};
use super::shell;
use super::tool_use::{self, DATA_DIR_WHY, ask_config, refuse_data};
use super::{changes, guarded};
use crate::agent::event::HookEvent;
use crate::config::protected;
use crate::diagnostic::Severity;
use crate::fs::data_dir;
use crate::paths;

/// The folder the command runs in (the event's `cwd`, else the project's).
fn command_dir(event: &HookEvent, root: &Path) -> PathBuf {
    event
        .cwd
        .as_deref()
        .filter(|c| !c.is_empty())
        .map_or_else(|| root.to_path_buf(), |c| paths::absolute(Path::new(c)))
}

/// `word` of a command as a repository-relative path, when it names a place
/// inside the repository.
fn in_repository(root: &Path, dir: &Path, word: &str) -> Option<String> {
    if word.is_empty() || word.starts_with('~') || word.starts_with('$') {
        return None;
    }
    paths::relative_to_real(root, &dir.join(word))
}

/// `PreToolUse` on Bash: refuse a plain write into `.helix-gate/`, ask the
/// person about a plain write of the configuration or of what
/// [`super::guarded`] guards (an agent's registration, git's pre-commit hook,
/// helix-gate's per-user state), and about a command that skips the
/// pre-commit hook; silence otherwise.
pub(super) fn pre_tool_use(ctx: &Context) -> Ruling {
    let (event, root) = (&ctx.event, ctx.root.as_path());
    let Some(command) = event.command.as_deref() else {
        return Ruling::default();
    };
    let dir = command_dir(event, root);
    if let Some(ruling) = patch_command(ctx, &dir, command) {
        return ruling;
    }
    let mut config = None;
    let mut guard = None;
    let by_tools = shell::written(command).into_iter().map(|w| (w, false));
    let by_git = shell::git_written(command).into_iter().map(|w| (w, true));
    for (word, git) in by_tools.chain(by_git) {
        if let Some(rel) = in_repository(root, &dir, &word) {
            // `rm -rf config` or `rm -rf .` takes the protected files with it.
            let contains_protected = |rel: &str| {
                rel.is_empty()
                    || protected::CONFIG_FILES
                        .iter()
                        .any(|f| f.starts_with(&format!("{rel}/")))
                    || protected::APPROVALS_DIR.starts_with(&format!("{rel}/"))
                    || rel == protected::APPROVALS_DIR
            };
            // git's file commands change tracked files only: `git restore .`
            // leaves an untracked `.helix-gate/` alone, but not the configuration.
            if protected::is_data(&rel) || (rel.is_empty() && !git) {
                let target = if rel.is_empty() { ".".to_owned() } else { rel };
                let why = format!(
                    "helix-gate: this command writes, moves or deletes {target}, which holds {}/, {DATA_DIR_WHY}. The command was refused",
                    data_dir::DIR
                );
                return refuse_data(target, &why, "shell write");
            }
            if config.is_none() && (protected::is_config_in(root, &rel) || contains_protected(&rel))
            {
                config = Some(if rel.is_empty() { ".".to_owned() } else { rel });
            }
        }
        if guard.is_none() {
            guard = guarded::shell_word(root, &dir, &word);
        }
    }
    if let Some(rel) = config {
        return ask_config(&rel, ctx);
    }
    guard
        .or_else(|| shell::skips_hooks(command).map(guarded::Guard::pre_commit_command))
        .or_else(|| shell::overrides_rule(command).map(guarded::Guard::override_command))
        .or_else(|| shell::changes_status(command).map(guarded::Guard::status_command))
        .map_or_else(Ruling::default, |guard| guard.ask(ctx))
}

/// Codex's `apply_patch` run as a shell command (`apply_patch <<'EOF'`): each
/// path of the patch decided as by the `apply_patch` tool, and when none is
/// refused, the decisions that govern the files it writes as context, as for
/// the tool. `None` when the command is no such patch, or has nothing to say.
fn patch_command(ctx: &Context, dir: &Path, command: &str) -> Option<Ruling> {
    let (cd, script) = shell::apply_patch_script(command)?;
    let patch = crate::agent::patch::parse(&script).ok()?;
    let dir = cd.map_or_else(|| dir.to_path_buf(), |cd| paths::absolute(&dir.join(cd)));
    let refusals: Vec<Ruling> = patch
        .iter()
        .map(|touched| tool_use::pre_write(ctx, &dir.join(&touched.path)))
        .filter(|ruling| ruling.output.is_some())
        .collect();
    let ruling = if refusals.is_empty() && super::governed::may_govern(&ctx.root) {
        let contexts = patch
            .iter()
            .filter(|touched| touched.change.writes_content())
            .map(|touched| super::governed::pre_context(ctx, &dir.join(&touched.path)))
            .collect();
        super::ruling::merge(contexts, &ctx.event)
    } else {
        super::apply_patch::refuse_all(refusals)
    };
    ruling.output.is_some().then_some(ruling)
}

/// `PostToolUse` / `PostToolUseFailure` on Bash: check what the command changed.
pub(super) fn post_tool_use(
    event: &HookEvent,
    root: &Path,
    ctx: &Context,
    notes: &mut Vec<String>,
) -> Result<Ruling, InfraError> {
    let config = ctx.config();
    let dir = command_dir(event, root);
    let candidates: Vec<String> = event
        .command
        .as_deref()
        .map(shell::named_documents)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|word| in_repository(root, &dir, &word))
        .collect();
    let mut loaded = None;
    let changed = changes::changed_since_seen(
        root,
        config.store.as_ref().zip(config.record()),
        &candidates,
        || {
            let settings = ctx.settings().ok()?;
            let matcher = settings.adr_matcher().ok();
            loaded = Some(settings);
            matcher
        },
    )
    .map_err(|e| InfraError::new(e.to_string(), None))?;
    // Code under the rules of ADRs that the command changed: checked as a write of it.
    let code = super::governed::after_shell(event, root, ctx, notes)?;
    let Some(changed) = changed.filter(|c| !c.is_empty()) else {
        return Ok(super::ruling::merge(code, event));
    };
    let settings = match loaded {
        Some(settings) => settings,
        None => ctx.settings()?,
    };
    need_session(event, &settings)?;
    let budget = settings.hook.budget;
    let engine = ctx.load_engine(settings)?;
    let mut rulings = code;
    for rel in changed {
        let path = root.join(&rel);
        let report = match engine.check_file(&path) {
            Ok(checked) => {
                // The lifecycle against HEAD, as for a Write: a status set to
                // Accepted by the shell is caught here, after the fact.
                let mut report = checked.report;
                report.findings.extend(super::tool_use::lifecycle(
                    root,
                    &rel,
                    checked.adr.as_ref(),
                    &engine.settings,
                ));
                engine.retain_selected(&path, &mut report.findings);
                report.sort();
                report
            }
            Err(e) if e.cause.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(InfraError::new(e.to_string(), Some(&engine.settings))),
        };
        let errors = count(&report, Severity::Error);
        // A phase plan is counted under its own key but never joins the touched ADRs.
        let (charge, note) = count_write(
            root,
            session_id(event),
            &rel,
            errors,
            budget,
            !super::tool_use::is_plan(&rel),
        )
        .map_err(|e| InfraError::new(e.to_string(), Some(&engine.settings)))?;
        notes.extend(note.clone());
        notes.push(format!("{rel} changed by a shell command; checked"));
        rulings.push(charged_answer(&rel, &report, charge.as_ref(), note, budget));
    }
    Ok(super::ruling::merge(rulings, event))
}
