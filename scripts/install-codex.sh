#!/usr/bin/env bash
# Installs the pinned Codex CLI used by helix-gate's end-to-end tests of
# `helix-gate hook --agent codex` (tests/it/codex.rs) into <repo>/.cache/codex.
#
# Why a script: the e2e tests run the REAL `codex` client against a fake OpenAI
# Responses API on 127.0.0.1, and they must all use the client version the hook
# protocol notes (agent-hooks.md) were written against.
#
# How the npm package works (0.169.0): `@openai/codex` ships a node launcher
# (bin/codex.js) that runs the native binary of the platform package, an
# optional dependency aliased to `@openai/codex@<version>-<platform>`. npm
# skips a missing optional dependency silently, so this script forces optional
# deps on and then verifies that `codex --version` really reports the pinned
# version. Only the npm registry is contacted.
#
# Idempotent: does nothing when the pinned version is already installed and
# working. The absolute path of the `codex` executable is printed on the last
# line of stdout.
set -euo pipefail

VERSION="0.169.0"
PACKAGE="@openai/codex"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
prefix="$root/.cache/codex"
bin="$prefix/node_modules/.bin/codex"

installed_version() {
    # Prints e.g. "0.169.0" when the installed client works, nothing otherwise.
    # A scratch HOME and CODEX_HOME keep the probe away from the developer's ~/.codex.
    [ -x "$bin" ] || return 0
    local probe_home out
    probe_home="$(mktemp -d)"
    out="$(env -u OPENAI_API_KEY -u OPENAI_BASE_URL HOME="$probe_home" CODEX_HOME="$probe_home" \
        "$bin" --version 2>/dev/null || true)"
    rm -rf "$probe_home"
    printf '%s\n' "$out" | sed -n 's/^codex-cli \([0-9][0-9.]*\).*/\1/p' | head -n 1
}

if [ "$(installed_version)" = "$VERSION" ]; then
    echo "codex $VERSION already installed in $prefix" >&2
else
    command -v npm >/dev/null 2>&1 || { echo "error: npm not found on PATH" >&2; exit 1; }
    echo "installing $PACKAGE@$VERSION into $prefix ..." >&2
    mkdir -p "$prefix"
    # --include=optional overrides a user npmrc that omits optional deps: the
    # native binary is one.
    npm install --prefix "$prefix" --no-audit --no-fund \
        --include=optional "$PACKAGE@$VERSION" >&2
    got="$(installed_version)"
    if [ "$got" != "$VERSION" ]; then
        echo "error: $bin does not report version $VERSION (got: '${got:-nothing}')." >&2
        echo "       The platform package ${PACKAGE}@${VERSION}-<platform> may be missing; see the npm output above." >&2
        exit 1
    fi
    echo "installed codex $VERSION" >&2
fi

echo "$bin"
