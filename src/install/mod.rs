//! `helix-gate install|uninstall claude|codex|git`.

pub mod claude;
pub mod codex;
pub mod codex_config;
pub mod git;
pub mod registrations;
