#!/usr/bin/env bash
# Build the shipped binary (Cargo.toml's `dist` profile: fat LTO, one codegen unit) and print
# its path on the last line.
# The target and flags are those of scripts/release-target.sh: on Linux with glibc the binary
# is linked statically and is not position-independent (a faster start; why, there).
# scripts/package.sh packs this binary into every channel; a second call is cargo's no-op.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
# shellcheck source=release-target.sh
. scripts/release-target.sh
cargo build --profile dist --locked --quiet --target "$release_target" >&2
case "$release_target" in
  *-windows-*) echo "$target_dir/$release_target/dist/helix-gate.exe" ;;
  *) echo "$target_dir/$release_target/dist/helix-gate" ;;
esac
