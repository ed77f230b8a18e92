#!/usr/bin/env bash
# Installs the pinned Gemini CLI used by helix-gate's end-to-end tests of
# `helix-gate hook --agent gemini` (tests/it/gemini.rs) into <repo>/.cache/gemini-cli.
#
# Why a script: the e2e tests run the REAL `gemini` client against a fake
# Gemini API on 127.0.0.1 (GOOGLE_GEMINI_BASE_URL), and they must all use the
# client version the hook protocol notes (agent-hooks.md) were written against.
# Only the npm registry is contacted.
#
# Idempotent: does nothing when the pinned version is already installed and
# working. The absolute path of the `gemini` executable is printed on the last
# line of stdout.
set -euo pipefail

VERSION="0.61.0"
PACKAGE="@google/gemini-cli"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
prefix="$root/.cache/gemini-cli"
bin="$prefix/node_modules/.bin/gemini"

installed_version() {
    # Prints e.g. "0.61.0" when the installed client works, nothing otherwise.
    # A scratch HOME keeps the probe away from the developer's ~/.gemini.
    [ -x "$bin" ] || return 0
    local probe_home out
    probe_home="$(mktemp -d)"
    out="$(env -u GEMINI_API_KEY -u GOOGLE_API_KEY -u GOOGLE_GEMINI_BASE_URL HOME="$probe_home" \
        "$bin" --version 2>/dev/null </dev/null || true)"
    rm -rf "$probe_home"
    printf '%s\n' "$out" | grep -E '^[0-9]+\.[0-9]+\.[0-9]+' | head -n 1
}

if [ "$(installed_version)" = "$VERSION" ]; then
    echo "gemini $VERSION already installed in $prefix" >&2
else
    command -v npm >/dev/null 2>&1 || { echo "error: npm not found on PATH" >&2; exit 1; }
    echo "installing $PACKAGE@$VERSION into $prefix ..." >&2
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund "$PACKAGE@$VERSION" >&2
    got="$(installed_version)"
    if [ "$got" != "$VERSION" ]; then
        echo "error: $bin does not report version $VERSION (got: '${got:-nothing}')." >&2
        exit 1
    fi
    echo "installed gemini $VERSION" >&2
fi

echo "$bin"
