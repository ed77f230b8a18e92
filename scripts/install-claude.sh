#!/usr/bin/env bash
# Installs the pinned Claude Code CLI used by helix-gate's end-to-end tests
# (tests/claude_*.rs) into <repo>/.cache/claude-code.
#
# Why a script: the e2e tests run the REAL `claude` client against a fake
# Messages API on 127.0.0.1, and they must all use the same client version the
# behaviour reference (claude-code-hooks.md) was written against.
#
# How the npm package works (2.1.329): `@anthropic-ai/claude-code` ships only a
# shell stub at bin/claude.exe. Its postinstall (install.cjs) hard-links the
# native binary from the platform optional dependency
# (`@anthropic-ai/claude-code-linux-x64`, ~hundreds of MB) over that stub. The
# postinstall does NOT fail when the optional dependency is missing, so this
# script forces optional deps + lifecycle scripts on and then verifies that
# `claude --version` really reports the pinned version. Only the npm registry is
# contacted; the native binary needs nothing else at install time.
#
# Idempotent: does nothing when the pinned version is already installed and
# working. The absolute path of the `claude` executable is printed on the last
# line of stdout.
set -euo pipefail

VERSION="2.1.329"
PACKAGE="@anthropic-ai/claude-code"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
prefix="$root/.cache/claude-code"
bin="$prefix/node_modules/.bin/claude"

installed_version() {
    # Prints e.g. "2.1.329" when the installed binary works, nothing otherwise.
    # A scratch HOME keeps the probe from touching the developer's ~/.claude.
    [ -x "$bin" ] || return 0
    local probe_home out
    probe_home="$(mktemp -d)"
    out="$(env -u ANTHROPIC_API_KEY -u ANTHROPIC_BASE_URL HOME="$probe_home" \
        DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
        "$bin" --version 2>/dev/null || true)"
    rm -rf "$probe_home"
    printf '%s\n' "$out" | sed -n 's/^\([0-9][0-9.]*\) (Claude Code).*/\1/p' | head -n 1
}

if [ "$(installed_version)" = "$VERSION" ]; then
    echo "claude $VERSION already installed in $prefix" >&2
else
    command -v npm >/dev/null 2>&1 || { echo "error: npm not found on PATH" >&2; exit 1; }
    echo "installing $PACKAGE@$VERSION into $prefix ..." >&2
    mkdir -p "$prefix"
    # --include=optional / --ignore-scripts=false override a user npmrc that
    # omits optional deps or disables scripts: both would leave only the stub.
    # The package declares engines.node >=22; npm only warns about that, and
    # the native binary does not use node at all (only install.cjs does).
    npm install --prefix "$prefix" --no-audit --no-fund \
        --include=optional --ignore-scripts=false \
        "$PACKAGE@$VERSION" >&2

    got="$(installed_version)"
    wrapper="$prefix/node_modules/$PACKAGE/install.cjs"
    if [ "$got" != "$VERSION" ] && [ -f "$wrapper" ]; then
        # Newer npm versions may skip dependency install scripts that are not
        # approved (npm 11 already warns "not yet covered by allowScripts");
        # run the postinstall ourselves so the native binary replaces the stub.
        echo "running the postinstall of $PACKAGE manually ..." >&2
        (cd "$(dirname "$wrapper")" && node install.cjs) >&2 || true
        got="$(installed_version)"
    fi
    if [ "$got" != "$VERSION" ]; then
        echo "error: $bin does not report version $VERSION (got: '${got:-nothing}')." >&2
        echo "       The native package ${PACKAGE}-<platform> may be missing; see the npm output above." >&2
        exit 1
    fi
    echo "installed claude $VERSION" >&2
fi

# Absolute path, symlinks resolved only up to the .bin entry (tests use it as is).
echo "$bin"
