#!/usr/bin/env bash
# Build the release binary and print its path on the last line.
# On Linux with glibc the binary is linked statically (crt-static): the hook's
# no-op path is mostly process start-up, and a static binary skips the dynamic
# loader (about 0.5 ms less per hook call on the 2-core CI machine). It is also
# not position-independent (relocation-model=static): a static-pie binary
# relocates itself at every start (about 18,000 relocations, 200 page faults
# against 118 without; the no-op hook 1.29 ms -> 1.03 ms, scripts/bench.sh
# hook). The price is no address randomisation of the binary itself, for a
# short-lived process in a language without unsafe code here. --target keeps
# the flags away from proc-macros and build scripts, which must stay dynamic.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
host="$(rustc -vV | sed -n 's/^host: //p')"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
case "$host" in
  *-linux-gnu)
    RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static" \
      cargo build --release --locked --quiet --target "$host" >&2
    echo "$target_dir/$host/release/helix-gate"
    ;;
  *)
    cargo build --release --locked --quiet >&2
    echo "$target_dir/release/helix-gate"
    ;;
esac
