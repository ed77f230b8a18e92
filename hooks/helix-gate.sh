#!/bin/sh
# Claude Code plugin entry point: runs the helix-gate built in this clone
# (scripts/build-release.sh or cargo build --release), else the one on PATH.
# Without either it tells the user on every event (a systemMessage, which only the
# user sees) and lets Claude Code proceed: never a silent no-op, and the message says
# how to get the binary. Only shell builtins are used on that path, so it works with
# any PATH, even an empty one.
root="${CLAUDE_PLUGIN_ROOT:-$(cd "${0%/*}/.." 2>/dev/null && pwd)}"
for bin in "$root"/target/*-linux-gnu/release/helix-gate "$root/target/release/helix-gate" "$(command -v helix-gate 2>/dev/null)"; do
  if [ -n "$bin" ] && [ -x "$bin" ]; then
    exec "$bin" "$@"
  fi
done
# The plugin root is left out of the JSON: a path may hold characters JSON must escape.
printf '%s\n' '{"systemMessage":"helix-gate plugin: no helix-gate binary found, so ADRs are NOT being checked. Install it: `cargo install --locked --git https://github.com/helix-gate/helix-gate helix-gate` (needs Rust 1.89+; put ~/.cargo/bin on PATH), or run `cargo build --release` in a clone used with --plugin-dir; then restart Claude Code."}'
exit 0
