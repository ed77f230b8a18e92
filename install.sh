#!/usr/bin/env bash
# Build helix-gate, put it on PATH (~/.cargo/bin), and register it in a repository:
#   ./install.sh [REPO]        REPO defaults to the current directory
# Registers the Claude Code hook (.claude/settings.json) and the git pre-commit hook.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "${1:-.}" && pwd)"
built="$(bash "$here/scripts/build-release.sh" | tail -n 1)"   # static on Linux/glibc
bin_dir="${CARGO_HOME:-$HOME/.cargo}/bin"
mkdir -p "$bin_dir"
install -m 0755 "$built" "$bin_dir/helix-gate"
bin="$bin_dir/helix-gate"
echo "installed $("$bin" --version) to $bin"
cd "$repo"
"$bin" install claude
if git -C "$repo" rev-parse --git-dir >/dev/null 2>&1; then
  "$bin" install git
else
  echo "not a git repository: skipped the pre-commit hook"
fi
case ":$PATH:" in
  *":$(dirname "$bin"):"*) ;;
  *) echo "note: add $(dirname "$bin") to PATH so Claude Code and git find helix-gate" ;;
esac
