#!/usr/bin/env bash
# Installs the pinned GitHub Copilot CLI used by helix-gate's end-to-end tests
# of `helix-gate hook --agent copilot` (tests/it/copilot.rs) into
# <repo>/.cache/copilot-cli.
#
# Why a script: the e2e tests run the REAL `copilot` client against a fake
# Chat Completions API on 127.0.0.1 (its BYOK variables COPILOT_PROVIDER_BASE_URL
# and COPILOT_MODEL, with COPILOT_OFFLINE=true: no GitHub sign-in, no network),
# and they must all use the client version the protocol notes were taken from.
#
# How the npm package works (1.0.102): `@github/copilot` ships a node launcher
# that runs the native binary of the platform package (an optional dependency,
# forced on here); on its first run the binary unpacks its JavaScript into a
# package cache. The tests point COPILOT_PKG_CACHE_HOME at
# <prefix>/pkg-cache, which this script fills once (`copilot --version`), so a
# test's scratch HOME does not unpack 200 MB again. Only the npm registry is
# contacted.
#
# Idempotent. The absolute path of the `copilot` executable is printed on the
# last line of stdout.
set -euo pipefail

VERSION="1.0.102"
PACKAGE="@github/copilot"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
prefix="$root/.cache/copilot-cli"
bin="$prefix/node_modules/.bin/copilot"

installed_version() {
    # Prints e.g. "1.0.102" when the installed client works, nothing otherwise.
    [ -x "$bin" ] || return 0
    local probe_home out
    probe_home="$(mktemp -d)"
    out="$(env -u GH_TOKEN -u GITHUB_TOKEN -u COPILOT_GITHUB_TOKEN HOME="$probe_home" \
        COPILOT_PKG_CACHE_HOME="$prefix/pkg-cache" COPILOT_AUTO_UPDATE=false COPILOT_OFFLINE=true \
        "$bin" --version 2>/dev/null </dev/null || true)"
    rm -rf "$probe_home"
    printf '%s\n' "$out" | sed -n 's/^GitHub Copilot CLI \([0-9][0-9.]*[0-9]\).*/\1/p' | head -n 1
}

if [ "$(installed_version)" = "$VERSION" ]; then
    echo "copilot $VERSION already installed in $prefix" >&2
else
    command -v npm >/dev/null 2>&1 || { echo "error: npm not found on PATH" >&2; exit 1; }
    echo "installing $PACKAGE@$VERSION into $prefix ..." >&2
    mkdir -p "$prefix"
    npm install --prefix "$prefix" --no-audit --no-fund --include=optional "$PACKAGE@$VERSION" >&2
    got="$(installed_version)"
    if [ "$got" != "$VERSION" ]; then
        echo "error: $bin does not report version $VERSION (got: '${got:-nothing}')." >&2
        exit 1
    fi
    echo "installed copilot $VERSION" >&2
fi

echo "$bin"
