#!/usr/bin/env bash
# The one test command (docs/src/contributing.md, .ci/run): installs what the tests need, then
# checks formatting, lints and runs every test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# The musl standard library for the build of tests/it/platforms.rs (`main` reads argv itself
# there). rustup answers at once when it is installed already.
if command -v rustup > /dev/null 2>&1; then
  rustup target add x86_64-unknown-linux-musl > /dev/null
fi

# The real Claude Code client for the end-to-end tests (pinned, from the npm registry).
if [ -f scripts/install-claude.sh ]; then
  HELIX_GATE_CLAUDE_BIN="$(bash scripts/install-claude.sh | tail -n 1)"
  export HELIX_GATE_CLAUDE_BIN
fi

# The real Codex CLI for the end-to-end tests of `hook --agent codex` (pinned, from the npm registry).
if [ -f scripts/install-codex.sh ]; then
  HELIX_GATE_CODEX_BIN="$(bash scripts/install-codex.sh | tail -n 1)"
  export HELIX_GATE_CODEX_BIN
fi

# The real Gemini CLI for the end-to-end tests of `hook --agent gemini` (pinned, from the npm registry).
if [ -f scripts/install-gemini.sh ]; then
  HELIX_GATE_GEMINI_BIN="$(bash scripts/install-gemini.sh | tail -n 1)"
  export HELIX_GATE_GEMINI_BIN
fi

# The real GitHub Copilot CLI for the end-to-end tests of `hook --agent copilot` (pinned, from the npm registry).
if [ -f scripts/install-copilot.sh ]; then
  HELIX_GATE_COPILOT_BIN="$(bash scripts/install-copilot.sh | tail -n 1)"
  export HELIX_GATE_COPILOT_BIN
fi

# The SARIF validator for the `--format sarif` test (pinned, from the npm registry).
if [ -f scripts/install-sarif-multitool.sh ]; then
  HELIX_GATE_SARIF_MULTITOOL="$(bash scripts/install-sarif-multitool.sh | tail -n 1)"
  export HELIX_GATE_SARIF_MULTITOOL
fi

# maturin builds the PyPI wheel of the package tests (tests/it/packages.rs; pinned, from PyPI).
if [ -f scripts/install-maturin.sh ]; then
  bash scripts/install-maturin.sh > /dev/null
fi

# mdBook builds the docs book for the book test (tests/it/book.rs; pinned, from crates.io).
if [ -f scripts/install-mdbook.sh ]; then
  HELIX_GATE_MDBOOK="$(bash scripts/install-mdbook.sh | tail -n 1)"
  export HELIX_GATE_MDBOOK
fi

# Headless Chromium (Debian's package) renders the `helix-gate report` page (tests/it/report.rs).
if ! command -v chromium > /dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get install -y chromium || { apt-get update && apt-get install -y chromium; }
  else
    sudo apt-get install -y chromium || { sudo apt-get update && sudo apt-get install -y chromium; }
  fi
fi

cargo fmt --all -- --check
cargo clippy --all-targets --quiet -- -D warnings
cargo test --all-targets "$@"

# Windows (issue 33): cross-built with MinGW; the unit tests and the integration modules that
# need no git.exe, sh or node client run under Wine; what does not run is listed.
bash scripts/test-windows.sh

# macOS: type-checked only (linking needs Apple's SDK, which this machine has not).
if command -v rustup > /dev/null 2>&1; then
  rustup target add x86_64-apple-darwin > /dev/null
fi
cargo check --target x86_64-apple-darwin --all-targets --quiet
