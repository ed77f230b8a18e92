#!/usr/bin/env bash
# Installs the pinned `adrs` (joshrotenberg/adrs, the Rust ADR tool a Rust user would
# pick) that `scripts/bench.sh madr` times `helix-gate --preset madr validate` against
# (`adrs doctor` on the same 1,000 MADR files), into <repo>/.cache/adrs.
#
# Idempotent: does nothing when the pinned version is already installed. The absolute
# path of the `adrs` executable is printed on the last line of stdout. Only crates.io
# is contacted (`cargo install --locked`: the versions of its own Cargo.lock).
set -euo pipefail

VERSION="0.13.0"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
prefix="$root/.cache/adrs"
bin="$prefix/bin/adrs"

installed_version() { # e.g. "0.13.0" when the installed tool works, nothing otherwise
    [ -x "$bin" ] || return 0
    "$bin" --version 2>/dev/null | sed -n 's/^adrs \([0-9][0-9.]*\).*/\1/p' | head -n 1
}

if [ "$(installed_version)" = "$VERSION" ]; then
    echo "adrs $VERSION already installed in $prefix" >&2
else
    echo "installing adrs $VERSION into $prefix ..." >&2
    cargo install --quiet --locked --version "$VERSION" --root "$prefix" adrs >&2
    got="$(installed_version)"
    if [ "$got" != "$VERSION" ]; then
        echo "error: $bin does not report version $VERSION (got: '${got:-nothing}')" >&2
        exit 1
    fi
fi

echo "$bin"
