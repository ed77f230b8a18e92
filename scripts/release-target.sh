# Sourced by scripts/build-release.sh and scripts/package.sh (whose maturin build must hit
# the same cargo cache): the one place where the release build's target and flags are set.
# Sets `release_target` (rustc's host triple; the release binary is built for it with
# --target, under $CARGO_TARGET_DIR/<target>/release); on Linux with glibc it adds to
# RUSTFLAGS, on macOS it sets MACOSX_DEPLOYMENT_TARGET (both exported).
#
# On Linux with glibc the binary is linked statically (crt-static): the hook's no-op path is
# mostly process start-up, and a static binary skips the dynamic loader (about 0.5 ms less
# per hook call on the 2-core CI machine); it also runs on any Linux of its architecture,
# glibc or musl, whatever their versions. It is not position-independent either
# (relocation-model=static): a static-pie binary relocates itself at every start (about
# 18,000 relocations, 200 page faults against 118 without; the no-op hook 1.29 ms -> 1.03 ms,
# scripts/bench.sh hook). The price is no address randomisation of the binary itself, for a
# short-lived process in a language without unsafe code here. --target keeps the flags away
# from proc-macros and build scripts, which must stay dynamic.
release_target="$(rustc -vV | sed -n 's/^host: //p')"
case "$release_target" in
  *-linux-gnu)
    RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static -C relocation-model=static"
    export RUSTFLAGS
    ;;
  *-apple-darwin)
    # maturin sets a deployment target when none is set, and a changed one makes cargo build
    # again: set it here, for both builds (rustc's defaults: 10.12 on x86_64, 11.0 on arm64).
    case "$release_target" in
      x86_64-*) MACOSX_DEPLOYMENT_TARGET="${MACOSX_DEPLOYMENT_TARGET:-10.12}" ;;
      *) MACOSX_DEPLOYMENT_TARGET="${MACOSX_DEPLOYMENT_TARGET:-11.0}" ;;
    esac
    export MACOSX_DEPLOYMENT_TARGET
    ;;
esac
