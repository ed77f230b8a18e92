#!/usr/bin/env bash
# Installs the pinned maturin that builds the PyPI wheel (scripts/package.sh pypi) into
# <repo>/.cache/maturin-<version>, a virtual environment of its own.
#
# Why pinned and local: the wheel's layout and tags are maturin's, so every machine that
# builds it (the test command, the release workflow) must use the same version; a venv
# keeps it out of the user's Python. Only PyPI is contacted, once; afterwards nothing is
# fetched.
#
# Idempotent: does nothing when the pinned version is already installed. The absolute
# path of the `maturin` executable is printed on the last line of stdout.
set -euo pipefail

VERSION="1.16.0"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
mkdir -p "$root/.cache"
# The venv's scripts name their interpreter by absolute path: take the cache's real path,
# so a cache shared through a symlink keeps working from every checkout that links it.
prefix="$(cd "$root/.cache" && pwd -P)/maturin-$VERSION"
bin="$prefix/bin/maturin"

installed_version() {
    [ -x "$bin" ] || return 0
    "$bin" --version 2>/dev/null | sed -n 's/^maturin \([0-9][0-9.]*\)$/\1/p'
}

if [ "$(installed_version)" = "$VERSION" ]; then
    echo "maturin $VERSION already installed in $prefix" >&2
else
    python="$(command -v python3 || command -v python || true)"
    [ -n "$python" ] || { echo "error: python3 not found on PATH" >&2; exit 1; }
    echo "installing maturin==$VERSION into $prefix ..." >&2
    rm -rf "$prefix"
    "$python" -m venv "$prefix" >&2
    "$prefix/bin/python" -m pip install --quiet --disable-pip-version-check \
        "maturin==$VERSION" >&2
    if [ "$(installed_version)" != "$VERSION" ]; then
        echo "error: $bin does not report version $VERSION" >&2
        exit 1
    fi
    echo "installed maturin $VERSION" >&2
fi

echo "$bin"
