#!/usr/bin/env bash
# Prepares the Wine prefix that runs helix-gate's Windows build here and prints its path
# (WINEPREFIX, default ~/.wine-helix-gate): creates the prefix once and puts the
# bcryptprimitives.dll shim Wine 8 lacks into it (scripts/windows/bcp.c; Rust's std imports
# ProcessPrng from it). Needs wine and x86_64-w64-mingw32-gcc (scripts/test-windows.sh
# installs both). Used by scripts/test-windows.sh and the Windows package test.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
export WINEDEBUG=-all
export WINEPREFIX="${WINEPREFIX:-$HOME/.wine-helix-gate}"
shim="$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$shim" ]; then
  wine cmd /c exit > /dev/null 2>&1 || true # creates the prefix
  x86_64-w64-mingw32-gcc -shared -O2 -o "$shim" "$root/scripts/windows/bcp.c" -ladvapi32 -Wl,--kill-at
fi
echo "$WINEPREFIX"
