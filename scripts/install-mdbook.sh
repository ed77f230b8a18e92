#!/usr/bin/env bash
# Installs the pinned mdBook that builds the docs book (docs/) into
# <repo>/.cache/mdbook, for the book test (tests/it/book.rs: the book builds and
# no internal link is broken).
#
# Why pinned and local: the built HTML (its anchors, its warnings) is mdBook's,
# so every machine that checks the book must use the same version. It is built
# from crates.io with `cargo install --locked`, with only the search feature
# (no live-reload server); the build takes a couple of minutes, once. Only
# crates.io is contacted; afterwards nothing is fetched.
#
# Idempotent: does nothing when the pinned version is already installed. The
# absolute path of the `mdbook` executable is printed on the last line of stdout.
set -euo pipefail

VERSION="0.4.52"

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
mkdir -p "$root/.cache"
# The real path of the cache, so a cache shared through a symlink is named the
# same way from every checkout that links it.
prefix="$(cd "$root/.cache" && pwd -P)/mdbook"
bin="$prefix/bin/mdbook"

installed_version() {
    # Prints e.g. "0.4.52" when the installed binary works, nothing otherwise.
    [ -x "$bin" ] || return 0
    "$bin" --version 2>/dev/null | sed -n 's/^mdbook v\{0,1\}\([0-9][0-9.]*\)$/\1/p' | head -n 1
}

if [ "$(installed_version)" = "$VERSION" ]; then
    echo "mdbook $VERSION already installed in $prefix" >&2
else
    command -v cargo >/dev/null 2>&1 || { echo "error: cargo not found on PATH" >&2; exit 1; }
    echo "installing mdbook $VERSION into $prefix (a cargo build, a few minutes) ..." >&2
    # A target dir of its own: the build must not share (or lock) the project's.
    cargo install --locked mdbook --version "$VERSION" \
        --no-default-features --features search \
        --root "$prefix" --target-dir "$prefix/build" >&2
    rm -rf "$prefix/build"
    got="$(installed_version)"
    if [ "$got" != "$VERSION" ]; then
        echo "error: $bin does not report version $VERSION (got: '${got:-nothing}')" >&2
        exit 1
    fi
    echo "installed mdbook $VERSION" >&2
fi

echo "$bin"
