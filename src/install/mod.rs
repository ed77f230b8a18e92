//! `helix-gate install|uninstall claude|codex|gemini|copilot|git`.

pub mod claude;
pub mod codex;
pub mod codex_config;
pub mod copilot;
pub mod gemini;
pub mod git;
pub mod in_effect;
pub mod record;
pub mod registrations;
