//! Integration tests for `chores` (filled in by its owner).
