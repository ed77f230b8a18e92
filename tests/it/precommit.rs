//! Integration tests for `precommit` (filled in by its owner).
