//! `helix-gate install|uninstall claude|codex|gemini|copilot|git`: the git
//! hook, `doctor`'s report of the registrations, and the record of what was
//! registered. An agent's own files are its room's (`crate::agent`).

pub mod git;
pub mod in_effect;
pub mod probe;
