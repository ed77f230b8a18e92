//! The file-system leaf: how helix-gate replaces files, locks, and lays out its
//! data directory. Every writer above uses these instead of its own copy, so the
//! guarantees (no half-written file, no leftover temporary file, a lock that dies
//! with its process) hold everywhere or nowhere.
//!
//! Nothing is written outside the folder a write belongs to: every function
//! that writes takes that folder (the project root) and refuses a path that
//! leaves it through a symbolic link ([`confine`]).
//!
//! This module imports nothing else from the crate: it sits below everything.

pub mod append;
pub mod atomic;
pub mod confine;
pub mod data_dir;
pub mod lock;
pub mod platform;
pub mod read;
