# Sourced by scripts/bench.sh (section "approve"): $root, $bin, $work exist.
# Goals (issue 5): overhead of `approve` beyond the reviewer process <= 50 ms
# median, measured against a stub reviewer; a cache hit <= 5 ms median.

echo "== approve"
# bench.sh builds with cargo, which honours CARGO_TARGET_DIR; use that binary.
approve_bin="$bin"
if [ -n "${CARGO_TARGET_DIR:-}" ] && [ -x "$CARGO_TARGET_DIR/release/helix-gate" ]; then
  approve_bin="$CARGO_TARGET_DIR/release/helix-gate"
fi

approve_repo="$work/approve"
mkdir -p "$approve_repo/.git" "$approve_repo/adr" "$approve_repo/src" "$approve_repo/config" "$approve_repo/stub"
cp tests/fixtures/good/001-minimal-valid.md "$approve_repo/adr/001-cache-rules.md"
echo 'pub fn rules() {}' > "$approve_repo/src/lib.rs"
cp tests/fixtures/seeds/015-approval-validation-system.md "$approve_repo/adr/015-approval.md"

# The stub reviewer: prints a canned `claude -p --output-format json` result.
cat > "$approve_repo/stub/result.json" <<'JSON'
{"type":"result","subtype":"success","is_error":false,"total_cost_usd":0.0123,"usage":{"input_tokens":12000,"output_tokens":800},"modelUsage":{"claude-stub":{}},"structured_output":{"result":"approved","confidence":0.92,"findings":[{"severity":"info","check":"acceptance","message":"criteria are checkable"}],"recommendations":[],"summary":"stub"}}
JSON
cat > "$approve_repo/stub/reviewer.sh" <<SH
#!/bin/sh
exec cat "$approve_repo/stub/result.json"
SH
chmod +x "$approve_repo/stub/reviewer.sh"
printf 'defaults:\n  command: stub/reviewer.sh\n' > "$approve_repo/config/approvals.yaml"

(cd "$approve_repo" && "$approve_bin" approve adr/001-cache-rules.md >/dev/null) # fills the cache
(cd "$approve_repo" && hyperfine -N --warmup 5 --runs 100 --style basic \
  -n "process start (helix-gate --version)" "$approve_bin --version" \
  -n "stub reviewer alone" "$approve_repo/stub/reviewer.sh" \
  -n "approve --no-cache (stub reviewer)" "$approve_bin approve --no-cache adr/001-cache-rules.md" \
  -n "approve, cache hit" "$approve_bin approve adr/001-cache-rules.md" \
  -n "approve, deterministic rejection (seed ADR)" "$approve_bin approve adr/015-approval.md" \
  -i --export-json "$work/approve.json" >/dev/null)
python3 - "$work/approve.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
median = {r["command"]: r["median"] * 1000 for r in results}
for r in results:
    print(f"  {r['command']:<44} median {r['median']*1000:8.2f} ms  (mean {r['mean']*1000:.2f}, min {r['min']*1000:.2f}, n={len(r['times'])})")
overhead = median["approve --no-cache (stub reviewer)"] - median["stub reviewer alone"]
hit = median["approve, cache hit"]
print(f"  overhead beyond the reviewer process:        median {overhead:8.2f} ms  (goal <= 50 ms: {'ok' if overhead <= 50 else 'MISSED'})")
start = median["process start (helix-gate --version)"]
print(f"  cache hit:                                   median {hit:8.2f} ms  (goal <= 5 ms: {'ok' if hit <= 5 else 'MISSED'}; {hit - start:.2f} ms beyond process start)")
PY
echo "  peak RSS approve (stub reviewer): $(cd "$approve_repo" && peak_rss "$approve_bin" approve --no-cache adr/001-cache-rules.md) KB"
