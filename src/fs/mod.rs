//! The file-system leaf: how helix-gate replaces files, locks, and lays out its
//! data directory. Every writer above uses these instead of its own copy, so the
//! guarantees (no half-written file, no leftover temporary file, a lock that dies
//! with its process) hold everywhere or nowhere.
//!
//! This module imports nothing else from the crate: it sits below everything.

pub mod append;
pub mod atomic;
pub mod data_dir;
pub mod lock;
