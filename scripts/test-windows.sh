#!/usr/bin/env bash
# Cross-build helix-gate for x86_64-pc-windows-gnu (MinGW) and run its tests under Wine
# (issue 33). Installs what it needs: MinGW and Wine (Debian packages), the rustup
# target, a Wine prefix and the bcryptprimitives.dll shim Wine 8 lacks
# (scripts/windows/bcp.c). Called by scripts/test.sh; extra arguments go to every
# `cargo test` run here.
#
# What runs: every unit test (`cargo test --lib`) and the integration modules in
# RUN_MODULES below. What does not, and why, is printed at the end:
# - integration modules that need a Windows git (git.exe), the agents' node clients
#   or a unix shell, which Wine does not have (SKIP_MODULES);
# - tests marked `#[cfg_attr(windows, ignore = "...")]` (listed by cargo as ignored);
# - tests and modules behind `#[cfg(unix)]` (file modes, FIFOs, symbolic links,
#   sh): counted here from the sources.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target=x86_64-pc-windows-gnu

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
if ! command -v x86_64-w64-mingw32-gcc > /dev/null 2>&1 || ! command -v wine > /dev/null 2>&1; then
  as_root apt-get install -y gcc-mingw-w64-x86-64 wine64 \
    || { as_root apt-get update && as_root apt-get install -y gcc-mingw-w64-x86-64 wine64; }
fi
rustup target add "$target" > /dev/null

export WINEDEBUG=-all
WINEPREFIX="$(bash scripts/windows/wine-prefix.sh)"
export WINEPREFIX

export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUNNER=wine

# Integration modules that run under Wine: no git command line, no node client, no sh.
RUN_MODULES=(completions language list new_presets preset_edges readme schemas validate)
# The rest of tests/it, each with what it needs that Wine has not.
SKIP_MODULES="every other module of tests/it: they need git.exe (scratch repositories through the git command line), sh scripts as reviewers or hooks, or the agents' node clients (budget, corpus, decisions, formats and gate_formats were tried: git, sh and the SARIF validator)"

started=$(date +%s)
cargo build --target "$target" --all-targets --quiet
echo "== test-windows: unit tests under Wine"
cargo test --target "$target" --lib "$@" 2>&1 | tee /tmp/helix-gate-windows-lib.log | tail -n 5
echo "== test-windows: integration modules under Wine: ${RUN_MODULES[*]}"
filter=()
for m in "${RUN_MODULES[@]}"; do filter+=("$m::"); done
cargo test --target "$target" --test it "$@" -- "${filter[@]}" 2>&1 | tee /tmp/helix-gate-windows-it.log | tail -n 5

echo "== test-windows: not run under Wine"
echo "- integration tests: $SKIP_MODULES"
echo "- ignored on Windows (cargo lists them as ignored above):"
# The attribute as rustfmt leaves it, on one line or over several.
find src tests -name '*.rs' -exec perl -0777 -ne \
  'while (/cfg_attr\(\s*windows,\s*ignore\s*=\s*"([^"]*)"\s*,?\s*\)/g) { print "cfg_attr(windows, ignore = \"$1\")\n" }' {} + \
  | sort | uniq -c | sed 's/^/    /'
unix_tests=$(find src tests -name '*.rs' -exec awk 'prev ~ /#\[test\]/ && /#\[cfg\(unix\)\]/ {n++} prev ~ /#\[cfg\(unix\)\]/ && /#\[test\]/ {n++} {prev=$0} END {print n+0}' {} \; | awk '{s+=$1} END {print s}')
unix_modules=$(grep -B1 -E '^mod ' tests/it/main.rs | grep -c 'cfg(unix)')
echo "- Unix-only, not compiled for Windows (modes, FIFOs, symbolic links, sh): $unix_tests tests marked #[cfg(unix)], and $unix_modules modules of tests/it"
echo "== test-windows: $(( $(date +%s) - started )) s"
