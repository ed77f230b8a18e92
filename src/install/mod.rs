//! `helix-gate install|uninstall claude|git`.

pub mod claude;
pub mod git;
pub mod registrations;
