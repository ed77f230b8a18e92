//! Integration tests for `approval` (filled in by its owner).
