//! `hook`: answer the agent (Claude Code, Codex, Gemini or Copilot CLI) with exactly one JSON object
//! on stdout, or nothing; notes for the person go to stderr, which neither agent
//! shows the model.

use std::io::Write as _;

use super::ExitStatus;
use crate::agent::Agent;

/// Run `agent`'s hook and print its answer. Always exit 0: the agent reads the
/// decision from stdout, and a non-zero exit would only mean "proceed".
/// `user_scope`: registered for every session on the machine (`--scope user`).
pub fn run(user_scope: bool, agent: Agent) -> ExitStatus {
    let answer = crate::hook::run_registered(
        if user_scope {
            crate::hook::project::Registration::User
        } else {
            crate::hook::project::Registration::Repository
        },
        agent,
        late,
    );
    print(&answer);
    ExitStatus::Success
}

/// The watchdog's answer, given when the deadline passed before the decision:
/// printed, and the process ends at once (the deciding thread may be stuck).
fn late(answer: &crate::hook::Answer) -> ! {
    print(answer);
    std::process::exit(0)
}

fn print(answer: &crate::hook::Answer) {
    {
        let mut stderr = std::io::stderr().lock();
        for note in &answer.notes {
            // Nowhere left to report a failing stderr.
            let _ = writeln!(
                stderr,
                "helix-gate hook: {}",
                crate::text::escape_controls(note)
            );
        }
    }
    if let Some(line) = &answer.stdout {
        let mut stdout = std::io::stdout().lock();
        // A closed stdout leaves Claude Code nothing to read: it proceeds.
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
    }
}
