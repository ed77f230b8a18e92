#!/usr/bin/env bash
# The one test command (README, .ci/run): installs what the tests need, then
# checks formatting, lints and runs every test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# The real Claude Code client for the end-to-end tests (pinned, from the npm registry).
if [ -f scripts/install-claude.sh ]; then
  HELIX_GATE_CLAUDE_BIN="$(bash scripts/install-claude.sh | tail -n 1)"
  export HELIX_GATE_CLAUDE_BIN
fi

# The SARIF validator for the `--format sarif` test (pinned, from the npm registry).
if [ -f scripts/install-sarif-multitool.sh ]; then
  HELIX_GATE_SARIF_MULTITOOL="$(bash scripts/install-sarif-multitool.sh | tail -n 1)"
  export HELIX_GATE_SARIF_MULTITOOL
fi

cargo fmt --all -- --check
cargo clippy --all-targets --quiet -- -D warnings
cargo test --all-targets "$@"
