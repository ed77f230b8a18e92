//! The hook's one overall deadline.
//!
//! Claude Code cancels a hook at its `timeout` without a word: no decision, the
//! tool or the stop proceeds. So the hook keeps its own deadline below that
//! timeout and answers on time with a labelled decision under the failure
//! policy. The deadline runs from the hook's start (reading stdin included); it
//! starts at [`DEFAULT`], is set from `hook.deadline_ms` once the settings are
//! read, and at Stop, when reviews may run, becomes the Stop hook's installed
//! timeout minus a reserve (`super::reviews::StopWindow`).
//!
//! The decision is made on a worker thread and the main thread watches the
//! clock: whatever blocks the worker (a held lock, a slow disk, a file that
//! never ends), the answer is printed on time and the process ends.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::config::Settings;

/// Until the settings are read, and when they cannot be: below the shortest
/// timeout `install claude` registers (`SessionStart`, 10 s).
pub const DEFAULT: Duration = Duration::from_secs(8);

/// The longest limit kept: a Stop timeout comes from a settings file the
/// repository may ship (`"timeout": 18446744073709551615`), and an `Instant`
/// that far ahead overflows (a panic, exit 101: Claude Code lets the stop
/// through unreviewed). Far above any real timeout (reviewers end within a day).
const LONGEST: Duration = Duration::from_secs(2 * 24 * 60 * 60);

/// The deadline, shared by the thread that decides and the one that watches.
#[derive(Debug)]
pub struct Deadline {
    started: Instant,
    state: Mutex<State>,
}

#[derive(Debug, Clone, Copy)]
struct State {
    /// From `started`.
    limit: Duration,
    /// Set for the reviews at Stop: replaces `limit`.
    reviews: Option<Duration>,
    /// The failure policy that applies when the deadline passes (unknown, so
    /// open, until the settings are read).
    fail_closed: bool,
}

impl Deadline {
    pub fn new(started: Instant) -> Self {
        Deadline {
            started,
            state: Mutex::new(State {
                limit: DEFAULT,
                reviews: None,
                fail_closed: false,
            }),
        }
    }

    fn state(&self) -> State {
        *self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn change(&self, f: impl FnOnce(&mut State)) {
        f(&mut self.state.lock().unwrap_or_else(PoisonError::into_inner));
    }

    pub fn started(&self) -> Instant {
        self.started
    }

    /// The deadline and the failure policy from the settings.
    pub fn apply(&self, settings: &Settings) {
        self.change(|s| {
            s.limit = Duration::from_millis(settings.hook.deadline_ms);
            s.fail_closed = settings.hook.fail_closed;
        });
    }

    /// The one deadline of a Stop that runs reviews: `limit` from the hook's
    /// start, whatever `hook.deadline_ms` says (longer for the reviews, or
    /// shorter when Claude Code's timeout for the hook is shorter).
    pub fn for_reviews(&self, limit: Duration) {
        self.change(|s| s.reviews = Some(limit));
    }

    /// When the answer is due.
    pub fn expires(&self) -> Instant {
        self.started
            .checked_add(self.limit())
            .unwrap_or_else(|| self.started + DEFAULT)
    }

    /// The limit in force, for the message (at most [`LONGEST`]).
    pub fn limit(&self) -> Duration {
        let s = self.state();
        s.reviews.unwrap_or(s.limit).min(LONGEST)
    }

    /// Whether the limit is the reviews' one (for the message).
    pub fn reviewing(&self) -> bool {
        self.state().reviews.is_some()
    }

    pub fn fail_closed(&self) -> bool {
        self.state().fail_closed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_set_the_limit_and_reviews_replace_it() {
        let start = Instant::now();
        let d = Deadline::new(start);
        assert_eq!(d.expires(), start + DEFAULT);
        let mut settings = Settings::builtin();
        settings.hook.deadline_ms = 500;
        settings.hook.fail_closed = true;
        d.apply(&settings);
        assert_eq!(d.expires(), start + Duration::from_millis(500));
        assert!(d.fail_closed());
        d.for_reviews(Duration::from_secs(355));
        assert_eq!(d.limit(), Duration::from_secs(355));
        d.for_reviews(Duration::from_millis(300));
        assert_eq!(d.expires(), start + Duration::from_millis(300));
    }

    #[test]
    fn a_planted_huge_stop_timeout_does_not_overflow() {
        let start = Instant::now();
        let d = Deadline::new(start);
        d.for_reviews(Duration::from_secs(u64::MAX));
        assert_eq!(d.limit(), LONGEST);
        assert_eq!(d.expires(), start + LONGEST);
    }
}
