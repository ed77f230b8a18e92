//! What the hook guards besides helix-gate's configuration and data folder:
//! the things whose loss switches a gate off without a word.
//!
//! - **An agent's registration of the hook** (`.claude/settings*.json`,
//!   `.codex/hooks.json`, `.gemini/settings.json`,
//!   `.github/hooks/helix-gate.json` and their user-scope twins, as
//!   `crate::install` names them): once it is gone, that agent's sessions are
//!   not gated at all. A file there counts while it names helix-gate (these
//!   files also hold the agents' other settings, which the model may change).
//! - **git's pre-commit hook** (`.git/hooks/`, `.git/config`, `core.hooksPath`,
//!   `--no-verify`): the gate that remains after the session.
//! - **helix-gate's per-user state** (the resolved [`crate::env::state_dir`],
//!   and its default places): the key that signs approvals, trust records,
//!   session baselines.
//!
//! A write of any of them is put to the person exactly like a write of the
//! configuration ([`super::ruling::ask_person`]). Like `shell`, this reads
//! what the text of a call plainly names (a path as written, `~/`, `$HOME/`,
//! `${XDG_STATE_HOME}/`, a trailing glob); a path built at run time is not seen.

use std::path::{Path, PathBuf};

use super::ctx::Context;
use super::ruling::{Asked, Ruling, ask_person};
use crate::agent::Agent;
use crate::env;
use crate::paths;

/// Where the agents' registrations lie in a project (or home) folder; a file
/// whose path ends so is one, also in a session folder (each agent's
/// [`crate::agent::Backend::registration_paths`]).
fn registration_paths() -> impl Iterator<Item = &'static str> {
    Agent::ALL
        .into_iter()
        .flat_map(|agent| agent.backend().registration_paths().iter().copied())
}

/// The environment variables a shell word may start with that name a folder of
/// the guarded places.
/// (and each agent's [`crate::agent::Backend::home_var`]).
const FOLDER_VARS: [&str; 3] = [env::HOME, env::XDG_STATE_HOME, env::HELIX_GATE_STATE_DIR];

/// Whether `$name` names a folder of the guarded places.
fn folder_var(name: &str) -> bool {
    FOLDER_VARS.contains(&name)
        || Agent::ALL
            .into_iter()
            .any(|agent| agent.backend().home_var() == Some(name))
}

/// One guarded thing a call would change, and the words of the answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Guard {
    /// What the log names as the target.
    target: String,
    /// The answer's opening: what it is and that the model may not.
    what: String,
    /// What the person can do (after "Tell the user ...").
    tell: &'static str,
    /// The log's note: what was written.
    log: &'static str,
}

impl Guard {
    fn registration(shown: String) -> Guard {
        Guard {
            what: format!(
                "helix-gate: {shown} registers helix-gate's hook with a coding agent; without it that agent's sessions are not gated, so the session's model may not remove or change it on its own."
            ),
            target: shown,
            tell: "what you wanted to change in it and why: they can edit the file themselves (`helix-gate install <agent>` writes helix-gate's entries again)",
            log: "write of an agent's registration of helix-gate",
        }
    }

    fn pre_commit_file(rel: String) -> Guard {
        Guard {
            what: format!(
                "helix-gate: {rel} is git's pre-commit hook or the git configuration that decides whether it runs; the pre-commit hook is the gate that checks every commit's ADRs, so the session's model may not switch it off on its own."
            ),
            target: rel,
            tell: "what you wanted to change and why: they can do it themselves",
            log: "write of git's pre-commit hook or its configuration",
        }
    }

    /// A command (as written) that switches git's pre-commit hook off or skips it.
    pub(super) fn pre_commit_command(command: String) -> Guard {
        Guard {
            what: format!(
                "helix-gate: `{command}` switches off or skips git's pre-commit hook, the gate that checks every commit's ADRs; the session's model may not do that on its own."
            ),
            target: command,
            tell: "what you wanted to run and why: they can run it themselves",
            log: "command that skips git's pre-commit hook",
        }
    }

    /// A `helix-gate override` command (as written): a person's override of an ADR rule.
    pub(super) fn override_command(command: String) -> Guard {
        Guard {
            what: format!(
                "helix-gate: `{command}` overrides a rule of an accepted ADR for the next commit; an override is a person's decision with a reason, so the session's model may not give it to itself."
            ),
            target: command,
            tell: "which rule blocks the commit and why you think it should not: they can run `helix-gate override` themselves, or you change the code so it follows the decision",
            log: "command that overrides an ADR rule",
        }
    }

    /// A `helix-gate accept | reject | deprecate` command (as written): a person's
    /// change of an ADR's status.
    pub(super) fn status_command(command: String) -> Guard {
        Guard {
            what: format!(
                "helix-gate: `{command}` changes an ADR's status as a person's recorded decision (who, when, why); the session's model may not accept, reject or deprecate a decision itself."
            ),
            target: command,
            tell: "which ADR you think is ready and why: they can run `helix-gate accept ADR --by NAME` (or `reject`, `deprecate`) themselves",
            log: "command that changes an ADR's status as a person",
        }
    }

    fn state(shown: String) -> Guard {
        Guard {
            what: format!(
                "helix-gate: this command writes, moves or deletes {shown}, helix-gate's per-user state (the key that signs its approvals, trust records, session baselines); the session's model may not change it on its own."
            ),
            target: shown,
            tell: "what you wanted to change and why: they can do it themselves",
            log: "write of helix-gate's per-user state",
        }
    }

    /// The answer: the person is asked, or (an agent that cannot ask) refused.
    pub(super) fn ask(&self, ctx: &Context) -> Ruling {
        ask_person(
            &Asked {
                target: &self.target,
                what: &self.what,
                tell: self.tell,
                after: None,
                log: self.log,
            },
            ctx.agent,
        )
    }
}

/// Whether `rel` (repository-relative) is git's pre-commit hook, its folder,
/// git's configuration (`core.hooksPath`) or a folder that holds them.
fn is_git_hook(rel: &str) -> bool {
    is_git_hook_on(rel, paths::WINDOWS)
}

/// [`is_git_hook`] for the platform `windows` says (there in any case).
fn is_git_hook_on(rel: &str, windows: bool) -> bool {
    let rel = paths::comparable_on(rel, windows);
    rel == ".git"
        || rel == ".git/hooks"
        || rel.starts_with(".git/hooks/")
        || rel.starts_with(".git/config")
}

/// The folders helix-gate's per-user state lives in, or would by default.
fn state_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = env::state_dir().into_iter().collect();
    let under = |var: &str, rel: &str| {
        env::var(var)
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .map(|p| p.join(rel))
    };
    for dir in [
        under(env::XDG_STATE_HOME, "helix-gate"),
        under(env::HOME, ".local/state/helix-gate"),
    ]
    .into_iter()
    .flatten()
    {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// The registration files where `install` writes them: the project's and the user's.
fn registration_files(root: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = registration_paths().map(|rel| root.join(rel)).collect();
    files.extend(
        Agent::ALL
            .into_iter()
            .filter_map(|agent| agent.backend().user_hooks_file(root).ok()),
    );
    files
}

/// Whether the file at `path` registers helix-gate: it exists and names it
/// (or is there but cannot be read: then it may).
fn registers(path: &Path) -> bool {
    if std::fs::symlink_metadata(path).is_err() {
        return false;
    }
    crate::fs::read::regular(
        path,
        crate::fs::read::CONFIG_LIMIT,
        crate::fs::read::Links::Follow,
    )
    .map_or(true, |bytes| {
        bytes
            .windows(b"helix-gate".len())
            .any(|w| w == b"helix-gate")
    })
}

/// `path` as the model and the log see it.
fn shown(root: &Path, path: &Path) -> String {
    paths::relative_to(root, path).unwrap_or_else(|| path.display().to_string())
}

/// Whether `path` could be a registration by its name alone (no file opened).
fn named_like_registration(root: &Path, path: &Path) -> bool {
    ends_like_registration(&path.to_string_lossy(), paths::WINDOWS)
        || (path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|name| {
                ["settings.json", "hooks.json", "helix-gate.json"]
                    .iter()
                    .any(|known| paths::same_name(name, known, paths::WINDOWS))
            })
            && registration_files(root)
                .iter()
                .any(|f| paths::same_path(f, path)))
}

/// Whether the path `text` ends in one of the agents' registration paths: on
/// Windows (`windows`) with `\` separators and in any case too
/// (`.Claude\Settings.json`), as the file system there opens them.
fn ends_like_registration(text: &str, windows: bool) -> bool {
    let text = paths::comparable_on(text, windows);
    registration_paths()
        .any(|rel| text.ends_with(&format!("/{}", paths::comparable_on(rel, windows))))
}

/// A write tool's write of `path` (absolute): the guarded thing it changes.
/// On the hook's no-op path: compares names only, and opens a file only when
/// the name is a registration's.
pub(super) fn written_file(root: &Path, path: &Path) -> Option<Guard> {
    let path = paths::absolute(path);
    if let Some(rel) = paths::relative_to(root, &path).filter(|rel| is_git_hook(rel)) {
        return Some(Guard::pre_commit_file(rel));
    }
    if let Some(dir) = state_dirs()
        .into_iter()
        .find(|dir| paths::starts_with(&path, dir))
    {
        return Some(Guard::state(dir.display().to_string()));
    }
    (named_like_registration(root, &path) && registers(&path))
        .then(|| Guard::registration(shown(root, &path)))
}

/// A word of a shell command resolved to an absolute path: as written, after
/// `~` or a known variable (`$HOME`, `${XDG_STATE_HOME}`, ...), relative to
/// `dir`; and whether it ends in a glob (then only the part before the glob
/// counts, and anything it may match is hit). `None` for a word built at run
/// time (another variable, a command substitution).
fn expand(dir: &Path, word: &str) -> Option<(PathBuf, bool)> {
    let (base, rest): (PathBuf, &str) = if word == "~" || word.starts_with("~/") {
        (
            PathBuf::from(env::var(env::HOME)?),
            word[1..].trim_start_matches('/'),
        )
    } else if let Some(after) = word.strip_prefix('$') {
        let (name, rest) = match after.strip_prefix('{') {
            Some(braced) => braced.split_once('}')?,
            None => after.split_at(
                after
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(after.len()),
            ),
        };
        if !folder_var(name) {
            return None;
        }
        (PathBuf::from(env::var(name)?), rest.trim_start_matches('/'))
    } else {
        (dir.to_path_buf(), word)
    };
    if rest.contains('$') || rest.contains('`') {
        return None;
    }
    let glob = rest.find(['*', '?', '[']);
    let literal = glob.map_or(rest, |at| &rest[..at]);
    let path = paths::absolute(&base.join(literal));
    Some((path, glob.is_some()))
}

/// Whether `target` (a written path, `glob`: or anything starting so) is
/// `place`, inside it, or holds it.
fn hits(target: &Path, glob: bool, place: &Path) -> bool {
    if glob {
        return place
            .to_string_lossy()
            .starts_with(&*target.to_string_lossy());
    }
    target.starts_with(place) || place.starts_with(target)
}

/// A word a shell command writes, moves or deletes (`shell::written`,
/// `shell::git_written`): the guarded thing it changes, or holds.
pub(super) fn shell_word(root: &Path, dir: &Path, word: &str) -> Option<Guard> {
    let (path, glob) = expand(dir, word)?;
    let canonical = |p: &Path| std::fs::canonicalize(p).ok();
    for place in [root.join(".git/hooks/pre-commit"), root.join(".git/config")] {
        if hits(&path, glob, &place) {
            let rel = paths::relative_to(root, &path).filter(|rel| !rel.is_empty());
            return Some(Guard::pre_commit_file(
                rel.unwrap_or_else(|| word.to_owned()),
            ));
        }
    }
    if let Some(rel) = paths::relative_to(root, &path).filter(|rel| is_git_hook(rel)) {
        return Some(Guard::pre_commit_file(rel));
    }
    for dir in state_dirs() {
        let by_name = hits(&path, glob, &dir);
        let by_place = !glob
            && canonical(&dir)
                .zip(canonical(&path))
                .is_some_and(|(dir, path)| hits(&path, false, &dir));
        if by_name || by_place {
            return Some(Guard::state(dir.display().to_string()));
        }
    }
    let mut files = registration_files(root);
    if !glob && named_like_registration(root, &path) {
        files.push(path.clone());
    }
    files
        .into_iter()
        .find(|file| hits(&path, glob, file) && registers(file))
        .map(|file| Guard::registration(shown(root, &file)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_resolved_as_the_shell_would_when_plain() {
        let top = Path::new(if cfg!(windows) { r"C:\" } else { "/" });
        let dir = &top.join("r/sub");
        assert_eq!(expand(dir, "../x/./y"), Some((top.join("r/x/y"), false)));
        assert_eq!(expand(dir, "/abs/p*"), Some((top.join("abs/p"), true)));
        assert_eq!(expand(dir, "$OTHER/x"), None);
        assert_eq!(expand(dir, "a/$(pwd)/x"), None);
        if let Some(home) = env::var(env::HOME) {
            assert_eq!(
                expand(dir, "~/.local/state"),
                Some((PathBuf::from(&home).join(".local/state"), false))
            );
            assert_eq!(
                expand(dir, "${HOME}/a"),
                Some((PathBuf::from(&home).join("a"), false))
            );
        }
    }

    #[test]
    fn a_place_is_hit_by_itself_its_contents_its_folders_and_a_glob() {
        let place = Path::new("/h/.local/state/helix-gate");
        for (target, glob) in [
            ("/h/.local/state/helix-gate", false),
            ("/h/.local/state/helix-gate/key", false),
            ("/h/.local/state", false),
            ("/h/.local/state/helix", true),
        ] {
            assert!(hits(Path::new(target), glob, place), "{target}");
        }
        for (target, glob) in [
            ("/h/.local/state/other", false),
            ("/h/.local/state/helix", false),
            ("/tmp/", true),
        ] {
            assert!(!hits(Path::new(target), glob, place), "{target}");
        }
    }

    #[test]
    fn git_hooks_and_config_are_the_pre_commit_gate() {
        for rel in [
            ".git",
            ".git/hooks",
            ".git/hooks/pre-commit",
            ".git/config",
            ".git/config.worktree",
        ] {
            assert!(is_git_hook(rel), "{rel}");
        }
        for rel in [".github/hooks/x.json", ".gitignore", ".git/HEAD"] {
            assert!(!is_git_hook(rel), "{rel}");
        }
        assert!(is_git_hook_on(r".GIT\Hooks\pre-commit", true));
        assert!(!is_git_hook_on(r".GIT\Hooks\pre-commit", false));
    }

    #[test]
    fn on_windows_a_registration_is_known_in_any_case_and_with_backslashes() {
        for path in [
            r"C:\Users\a\proj\.Claude\Settings.json",
            "c:/Users/a/proj/.Claude/settings.local.json",
            r"\\?\C:\p\.CODEX\hooks.json",
            r"C:\p\.github\Hooks\helix-gate.json",
        ] {
            assert!(ends_like_registration(path, true), "{path}");
            assert!(!ends_like_registration(path, false), "{path}");
        }
        assert!(ends_like_registration("/p/.claude/settings.json", false));
        assert!(!ends_like_registration(r"C:\p\.claude\other.json", true));
    }

    #[test]
    fn a_registration_counts_while_it_names_helix_gate() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".gemini")).unwrap();
        let file = root.join(".gemini/settings.json");
        std::fs::write(&file, r#"{"ui":{}}"#).unwrap();
        assert_eq!(written_file(root, &file), None);
        assert_eq!(shell_word(root, root, ".gemini"), None);
        std::fs::write(&file, r#"{"hooks":{"x":"helix-gate hook --agent gemini"}}"#).unwrap();
        assert!(written_file(root, &file).is_some());
        for word in [".gemini/settings.json", ".gemini", ".gem*", "."] {
            assert!(shell_word(root, root, word).is_some(), "{word}");
        }
        assert_eq!(shell_word(root, root, ".gemini/other.json"), None);
        // In a session folder too.
        let session = root.join("projects/s1/.codex/hooks.json");
        std::fs::create_dir_all(session.parent().unwrap()).unwrap();
        std::fs::write(&session, "helix-gate hook --agent codex").unwrap();
        assert!(written_file(root, &session).is_some());
    }
}
