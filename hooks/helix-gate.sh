#!/bin/sh
# Claude Code plugin entry point: runs the first helix-gate binary it finds, in this order:
#   1. the clone's own release build, when the plugin is a clone used with --plugin-dir
#      (target/<target>/dist from scripts/build-release.sh, or target/release);
#   2. `helix-gate` on PATH; when that is the npm package's node launcher, the native
#      binary npm installed beside it instead (no node start per hook call);
#   3. where each install channel puts it when its folder is not on PATH (Claude Code
#      started from a desktop launcher gets a shorter PATH than a login shell):
#      cargo install and install.sh ($CARGO_HOME/bin, ~/.cargo/bin), pip --user, pipx and
#      uv tool (~/.local/bin, on macOS ~/Library/Python/*/bin), npm -g (its prefix from
#      $NPM_CONFIG_PREFIX, ~/.npm-global, /usr/local, /opt/homebrew), the release tarball
#      (~/.local/bin, ~/bin, /usr/local/bin).
# Without any it tells the user on every event (a systemMessage, which only the user sees)
# and lets Claude Code proceed: never a silent no-op, and the message says how to install
# it. Only shell builtins are used until a binary is found, so this works with any PATH,
# even an empty one.
root="${CLAUDE_PLUGIN_ROOT:-$(cd "${0%/*}/.." 2>/dev/null && pwd)}"

# `try BIN ARGS...` runs BIN with ARGS when it is an executable file.
try() {
  if [ -n "$1" ] && [ -f "$1" ] && [ -x "$1" ]; then
    exec "$@"
  fi
}

# `try_dir DIR ARGS...`: DIR/helix-gate, or, when DIR is an npm prefix's bin folder with the
# npm package's launcher, first the native binary of the platform package npm installed
# (nested under the package or hoisted beside it).
try_dir() {
  bindir="$1"
  shift
  if [ -f "$bindir/../lib/node_modules/helix-gate/bin/helix-gate" ]; then
    for native in "$bindir"/../lib/node_modules/helix-gate/node_modules/@helix-gate/cli-*/helix-gate \
      "$bindir"/../lib/node_modules/@helix-gate/cli-*/helix-gate; do
      try "$native" "$@"
    done
  fi
  try "$bindir/helix-gate" "$@"
}

for bin in "$root"/target/*/dist/helix-gate "$root/target/release/helix-gate"; do
  try "$bin" "$@"
done

# Only an absolute path: an empty PATH entry would name the current directory, the project's.
on_path="$(command -v helix-gate 2>/dev/null)"
case "$on_path" in
  /*/helix-gate) try_dir "${on_path%/helix-gate}" "$@" ;;
esac

home="${HOME:-/nonexistent}"
for dir in "${CARGO_HOME:-$home/.cargo}/bin" "$home/.cargo/bin" "$home/.local/bin" \
  "$home"/Library/Python/*/bin "${NPM_CONFIG_PREFIX:-${npm_config_prefix:-$home/.npm-global}}/bin" \
  "$home/.npm-global/bin" "$home/bin" /usr/local/bin /opt/homebrew/bin; do
  try_dir "$dir" "$@"
done

# The plugin root is left out of the JSON: a path may hold characters JSON must escape.
printf '%s\n' '{"systemMessage":"helix-gate plugin: no helix-gate binary found, so ADRs are NOT being checked. Install it with one of: `npm install -g helix-gate` | `pipx install helix-gate` (or `pip install helix-gate`) | `cargo install --locked helix-gate` | the release tarball from https://github.com/helix-gate/helix-gate/releases, its helix-gate on PATH; then restart Claude Code."}'
exit 0
