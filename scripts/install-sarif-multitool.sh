#!/usr/bin/env bash
# Installs the pinned SARIF validator used by the SARIF output test
# (tests/it/formats.rs) into <repo>/.cache/sarif-multitool.
#
# Why: `--format sarif` must validate against the SARIF 2.1.0 schema, and
# Microsoft's `sarif-multitool validate` is the reference validator (the one
# GitHub code scanning's documentation points to). The npm package is a small
# launcher whose platform package (`@microsoft/sarif-multitool-linux`) carries a
# self-contained .NET binary, so only the npm registry is contacted.
#
# Idempotent: does nothing when the pinned version is already installed. The
# absolute path of the native validator is printed on the last line of stdout: the
# package's node launcher (bin.js) runs it through a shell, which would split
# arguments such as `--level "Error;Warning"` at the `;`.
set -euo pipefail

VERSION="5.7.0"
PACKAGE="@microsoft/sarif-multitool"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
prefix="$root/.cache/sarif-multitool"
bin="$prefix/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"

installed_version() {
    [ -f "$prefix/node_modules/$PACKAGE/package.json" ] || return 0
    node -p "require('$prefix/node_modules/$PACKAGE/package.json').version" 2>/dev/null || true
}

if [ "$(installed_version)" = "$VERSION" ] && [ -x "$bin" ]; then
    echo "sarif-multitool $VERSION already installed in $prefix" >&2
else
    command -v npm >/dev/null 2>&1 || { echo "error: npm not found on PATH" >&2; exit 1; }
    echo "installing $PACKAGE@$VERSION into $prefix ..." >&2
    mkdir -p "$prefix"
    # --include=optional: the validator itself is the platform optional dependency.
    npm install --prefix "$prefix" --no-audit --no-fund --include=optional \
        "$PACKAGE@$VERSION" >&2
    if [ "$(installed_version)" != "$VERSION" ] || [ ! -f "$bin" ]; then
        echo "error: $PACKAGE@$VERSION did not install into $prefix" >&2
        exit 1
    fi
    echo "installed sarif-multitool $VERSION" >&2
fi
# The platform package's postinstall only does this chmod, and npm may skip it.
[ -x "$bin" ] || chmod u+x "$bin"

echo "$bin"
