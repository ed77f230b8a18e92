//! The Stop gate's reviews: several at once, all inside the Stop hook's one
//! deadline.
//!
//! Claude Code cancels the Stop hook at the `timeout` it was registered with,
//! without a word: the stop goes through unreviewed and nobody is told. So at
//! Stop the hook's deadline is that timeout (our entry's in
//! `.claude/settings.json`, `.claude/settings.local.json` or
//! `~/.claude/settings.json`, or in the plugin's `hooks/hooks.json` when it
//! runs as a plugin hook; for Codex in `.codex/hooks.json` or
//! `$CODEX_HOME/hooks.json`; the smallest when there are several; else the one
//! `install` derives from `config/approvals.yaml`) minus a reserve
//! for the answer. Every reviewer gets at most the time that is left
//! ([`approval::ApproveOptions::deadline`]); one still running then is killed
//! and fails as [`approval::RunnerError::Deadline`], which the gate reports
//! under the failure policy.
//!
//! At most `defaults.max_parallel` reviewers run at once, on plain threads:
//! each review is a child process the thread waits for, so there is nothing
//! for an async runtime to do.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::agent::Agent;
use crate::agent::hooks_file as installed;
use crate::approval::{self, Approval, ApprovalSettings, ApproveOptions};

/// Kept free before Claude Code's timeout: the answer and the decision log.
const RESERVE: Duration = Duration::from_secs(5);
/// Reviewers must have ended this long before the hook's deadline, so the
/// deciding thread (not the watchdog) gives the answer, with the verdicts that
/// did arrive.
pub const ANSWER_SLACK: Duration = Duration::from_secs(1);

/// The Stop timeout the hook has to answer within, and where it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StopWindow {
    /// Claude Code's timeout for the Stop hook.
    pub timeout: Duration,
    /// The settings file that registered it; `None` when none was found and
    /// the timeout is the one `install claude` would register.
    pub file: Option<PathBuf>,
}

impl StopWindow {
    /// The timeout of `agent`'s installed Stop hook (Claude Code's settings and
    /// plugin, or Codex's hooks files), else the derived one.
    pub fn find(root: &Path, settings: &ApprovalSettings, agent: Agent) -> StopWindow {
        let found = agent.backend().installed_stop_timeouts(root);
        let found = found.into_iter().min_by_key(|(_, seconds)| *seconds);
        match found {
            Some((file, seconds)) => StopWindow {
                timeout: Duration::from_secs(seconds),
                file: Some(file),
            },
            None => StopWindow {
                timeout: Duration::from_secs(installed::stop_timeout_s(
                    settings.longest_enabled_timeout(),
                )),
                file: None,
            },
        }
    }

    /// How long the hook may take from its start: the timeout minus the
    /// reserve (half of it when the timeout is short).
    pub fn limit(&self) -> Duration {
        self.timeout.saturating_sub(RESERVE.min(self.timeout / 2))
    }

    /// For messages: which timeout and where it is set.
    pub fn describe(&self, root: &Path) -> String {
        match &self.file {
            Some(file) => format!(
                "the Stop hook's timeout of {} s in {}, minus {} s to answer",
                self.timeout.as_secs(),
                crate::paths::display(root, file),
                self.timeout.saturating_sub(self.limit()).as_secs_f32()
            ),
            None => format!(
                "the Stop timeout `helix-gate install claude` derives from config/approvals.yaml, {} s, minus {} s to answer",
                self.timeout.as_secs(),
                self.timeout.saturating_sub(self.limit()).as_secs_f32()
            ),
        }
    }
}

/// Review `files` (repository-relative), at most `max_parallel` at once, each
/// ending by `until`. One result per file, in the order of `files`; `Err` is
/// a setup problem of that approval (the message, with the cause chain).
pub fn run_parallel(
    root: &Path,
    files: &[String],
    kind: &str,
    max_parallel: usize,
    until: Instant,
    config_root: &Path,
    require_consent: bool,
) -> Vec<Result<Approval, String>> {
    let options = ApproveOptions {
        no_cache: false,
        progress: false,
        deadline: Some(until),
        config_root: Some(config_root.to_path_buf()),
        // Registered for every session on the machine, the hook runs no
        // program a repository names without the person's consent.
        require_consent,
    };
    let review = |i: usize| {
        approval::approve(root, &[root.join(&files[i])], kind, &options)
            .map_err(|e| format!("{e:#}"))
    };
    let workers = max_parallel.clamp(1, files.len().max(1));
    crate::engine::parallel_map(0..files.len(), workers, review)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_keeps_a_reserve_below_the_timeout() {
        let window = |s| StopWindow {
            timeout: Duration::from_secs(s),
            file: None,
        };
        assert_eq!(window(360).limit(), Duration::from_secs(355));
        assert_eq!(window(6).limit(), Duration::from_secs(3));
        assert_eq!(window(0).limit(), Duration::ZERO);
    }

    #[test]
    fn without_an_installed_hook_the_window_is_derived_from_the_config() {
        let dir = tempfile::tempdir().unwrap();
        let settings =
            approval::settings::from_layers(Some("approvals: {adr: {timeout: 900}}\n"), "x")
                .unwrap();
        let window = StopWindow::find(dir.path(), &settings, Agent::Claude);
        // The user's own ~/.claude/settings.json may register helix-gate too.
        if window.file.is_none() {
            assert_eq!(window.timeout, Duration::from_secs(960));
        }
    }
}
