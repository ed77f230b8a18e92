//! The terminal: writing to stdout and stderr, colour, and the repository
//! around the current directory. Only `cli` prints.

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;

use anyhow::Context as _;

use crate::env;

/// The repository root for the current directory.
pub(super) fn current_root() -> PathBuf {
    crate::paths::find_root(&std::env::current_dir().unwrap_or_default())
}

/// Write to stdout; a closed pipe is not an error.
pub(super) fn print(text: &str) -> anyhow::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        // A closed pipe (`| head`) is not an error worth a message.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context("cannot write to stdout"),
    }
}

/// Write to stderr. A closed stderr is ignored: the exit status still carries the result.
/// No line of it can start a CI workflow command (`::error::…`), whatever it quotes.
pub(super) fn print_stderr(text: &str) {
    let text = crate::text::defuse_workflow_commands(text);
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(text.as_bytes())
        .and_then(|()| stderr.flush());
}

/// One `warning:` line on stderr per settings key whose value fell back (out of
/// range or of the wrong type): the key, what it allows, what is used instead.
pub(super) fn print_settings_problems(problems: &[crate::config::settings::ValueProblem]) {
    for problem in problems {
        print_stderr(&format!("helix-gate: warning: {problem}\n"));
    }
}

/// Colour on stdout when it is a terminal, unless `NO_COLOR` is set.
pub(super) fn use_color() -> bool {
    std::io::stdout().is_terminal() && !env::is_set(env::NO_COLOR)
}

/// Colour on stderr when it is a terminal, unless `NO_COLOR` is set.
pub(super) fn use_color_stderr() -> bool {
    std::io::stderr().is_terminal() && !env::is_set(env::NO_COLOR)
}
