#!/bin/sh
# Claude Code plugin entry point: runs the helix-gate built in this clone
# (scripts/build-release.sh or cargo build --release), else the one on PATH. Without either it tells the
# user once per event and lets Claude Code proceed.
root="${CLAUDE_PLUGIN_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}"
for bin in "$root"/target/*-linux-gnu/release/helix-gate "$root/target/release/helix-gate" "$(command -v helix-gate 2>/dev/null)"; do
  if [ -n "$bin" ] && [ -x "$bin" ]; then
    exec "$bin" "$@"
  fi
done
printf '{"systemMessage":"helix-gate plugin: no helix-gate binary found; run cargo build --release in %s or install.sh"}\n' "$root"
exit 0
