//! Integration tests for `hook` (filled in by its owner).
