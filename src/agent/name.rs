//! Which agent: the one enum every room of helix-gate names an agent by. It
//! imports nothing, so the event (which records the agent that decoded it)
//! and the backends can name it without an import circle.

/// The agent a hook process answers (`helix-gate hook --agent NAME`; one per
/// process), and the target of `install NAME`. What each one does is its
/// backend's ([`Agent::backend`](super::Agent::backend)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Agent {
    /// Claude Code (the default): `../shared/claude-code-hooks.md`.
    #[default]
    Claude,
    /// `OpenAI`'s Codex CLI: `../shared/agent-hooks.md`, and the output schemas
    /// of the pinned client in `tests/fixtures/codex/`.
    Codex,
    /// Google's Gemini CLI: `../shared/agent-hooks.md`, checked against the
    /// pinned client 0.61.0.
    Gemini,
    /// GitHub Copilot CLI: the GitHub docs' hooks reference, checked against
    /// the pinned client 1.0.102.
    Copilot,
}

impl Agent {
    /// Every agent, in the order the CLI lists them.
    pub const ALL: [Agent; 4] = [Agent::Claude, Agent::Codex, Agent::Gemini, Agent::Copilot];

    /// The agent's name on the command line (`--agent codex`, `install codex`).
    pub fn cli_name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Copilot => "copilot",
        }
    }

    /// The agent whose [`cli_name`](Agent::cli_name) is `name`.
    pub fn from_name(name: &str) -> Option<Agent> {
        Agent::ALL.into_iter().find(|a| a.cli_name() == name)
    }
}
