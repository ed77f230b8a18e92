#!/usr/bin/env bash
# Benchmarks: whole-process time (hyperfine, median) and peak RSS (/usr/bin/time).
# Usage: scripts/bench.sh [section...]   sections: validate hook pre-commit approve governs
# madr (default: these six) and worst (pathological inputs, scripts/bench-worst.sh; only on
# request). madr installs the pinned `adrs` it compares with (scripts/install-adrs.sh).
# Numbers are for this machine; quote medians, never assert them in tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if ! command -v hyperfine >/dev/null; then
  (apt-get update -qq && apt-get install -y -qq hyperfine) >/dev/null 2>&1 || { echo "bench: hyperfine missing (apt-get install hyperfine)"; exit 2; }
fi
bin="$(bash scripts/build-release.sh | tail -n 1)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
sections="${*:-validate hook pre-commit approve governs madr}"

peak_rss() { # peak resident set size in KB of one run of "$@"
  /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -n 1
}

# The 51 KB seed ADR (ADR-015), in a repository of its own.
seed_repo="$work/seed"
mkdir -p "$seed_repo/.git" "$seed_repo/adr"
cp tests/fixtures/seeds/015-approval-validation-system.md "$seed_repo/adr/015-approval.md"
seed="$seed_repo/adr/015-approval.md"

# 1000 generated ADRs of 2-60 KB.
big="$work/big"
python3 scripts/gen_adrs.py "$big" 1000
mkdir -p "$big/.git"

for section in $sections; do
  case "$section" in
    validate)
      echo "== validate"
      (cd "$seed_repo" && hyperfine -N --warmup 20 --runs 200 --style basic \
        -n "validate seed ADR (51 KB)" "$bin validate adr/015-approval.md" -i --export-json "$work/v1.json" >/dev/null)
      (cd "$big" && hyperfine -N --warmup 3 --runs 30 --style basic \
        -n "validate 1000 ADRs (2-60 KB)" "$bin validate adr" -i --export-json "$work/v2.json" >/dev/null)
      python3 - "$work/v1.json" "$work/v2.json" <<'PY'
import json, sys
for p in sys.argv[1:]:
    r = json.load(open(p))["results"][0]
    print(f"  {r['command']:<40} median {r['median']*1000:8.2f} ms  (mean {r['mean']*1000:.2f}, min {r['min']*1000:.2f}, n={len(r['times'])})")
PY
      echo "  peak RSS validate seed ADR:   $(cd "$seed_repo" && peak_rss "$bin" validate adr/015-approval.md) KB"
      echo "  peak RSS validate 1000 ADRs:  $(cd "$big" && peak_rss "$bin" validate adr) KB"
      ;;
    *) [ -f "scripts/bench-$section.sh" ] && source "scripts/bench-$section.sh" ;;
  esac
done
