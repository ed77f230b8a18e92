# Sourced by scripts/bench.sh (section "approve"): $root, $bin, $work exist.
# Goals (issue 5): overhead of `approve` beyond the reviewer process <= 50 ms
# median, measured against a stub reviewer; a cache hit <= 5 ms median.

echo "== approve"
# The shipped binary bench.sh built (scripts/build-release.sh).
approve_bin="$bin"

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

# The Stop gate (issue 11): N clean ADRs touched in one session, a stub
# reviewer with a fixed latency of 1 s, defaults.max_parallel 4. The Stop hook's
# wall time is compared with one review's latency (goal: <= 1.3x for 3 ADRs),
# and the reviewer runs are counted per distinct content (goal: exactly 1; the
# second Stop answers every file from the cache).
echo "== approve: Stop gate (stub reviewer, 1 s per review, max_parallel 4)"
stop_repo="$work/stop"
mkdir -p "$stop_repo/.git" "$stop_repo/adr" "$stop_repo/src" "$stop_repo/config" "$stop_repo/stub" "$work/stop-home"
echo 'pub fn rules() {}' > "$stop_repo/src/lib.rs"
cat > "$stop_repo/stub/reviewer.sh" <<SH
#!/bin/sh
echo run >> "$stop_repo/stub/runs"
sleep 1
exec cat "$approve_repo/stub/result.json"
SH
chmod +x "$stop_repo/stub/reviewer.sh"
printf 'defaults:\n  command: stub/reviewer.sh\n  max_parallel: 4\n' > "$stop_repo/config/approvals.yaml"
printf '{"session_id":"bench","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done","background_tasks":[]}\n' > "$work/stop.json"
# The hook's environment: this repository, its own per-user state and HOME
# (no ~/.claude of the machine decides the Stop timeout), not inside a reviewer.
stop_env=(env -u HELIX_GATE_CHILD CLAUDE_PROJECT_DIR="$stop_repo" HELIX_GATE_STATE_DIR="$work/stop-state" HOME="$work/stop-home")
# A fresh session that touched adr/1..N (distinct contents), with an empty cache.
cat > "$work/stop-prepare.sh" <<SH
#!/bin/sh
set -e
rm -rf "$stop_repo/.helix-gate" "$stop_repo/adr"
mkdir -p "$stop_repo/adr"
i=1
while [ "\$i" -le "\$1" ]; do
  f="$stop_repo/adr/\$(printf '%03d' "\$i")-bench.md"
  sed -e "s/adr_id: \"001\"/adr_id: \"\$(printf '%03d' "\$i")\"/" -e "s/# ADR-001:/# ADR-\$(printf '%03d' "\$i"):/" "$root/tests/fixtures/good/001-minimal-valid.md" > "\$f"
  printf '{"session_id":"bench","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s","content":"x"}}\n' "$stop_repo" "\$f" \
    | ${stop_env[*]} "$approve_bin" hook >/dev/null
  i=\$((i + 1))
done
SH
chmod +x "$work/stop-prepare.sh"
for n in 1 3 8; do
  (cd "$stop_repo" && hyperfine --warmup 1 --runs 5 --style basic \
    --prepare "$work/stop-prepare.sh $n" \
    -n "Stop hook, $n clean ADR(s)" "${stop_env[*]} $approve_bin hook < $work/stop.json" \
    -i --export-json "$work/stop-$n.json" >/dev/null)
  # Reviewer runs per distinct content: one Stop after a fresh session, then a second Stop.
  "$work/stop-prepare.sh" "$n"
  rm -f "$stop_repo/stub/runs"
  "${stop_env[@]}" "$approve_bin" hook < "$work/stop.json" >/dev/null
  first=$(wc -l < "$stop_repo/stub/runs")
  "${stop_env[@]}" "$approve_bin" hook < "$work/stop.json" >/dev/null
  second=$(wc -l < "$stop_repo/stub/runs")
  python3 - "$work/stop-$n.json" "$n" "$first" "$second" <<'PY'
import json, sys
result = json.load(open(sys.argv[1]))["results"][0]
n, first, second = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
median = result["median"]
ratio = median / 1.0
goal = f" (goal for 3 ADRs <= 1.3x: {'ok' if ratio <= 1.3 else 'MISSED'})" if n == 3 else ""
print(f"  Stop hook, {n} clean ADR(s): median {median:6.2f} s = {ratio:.2f}x one review (1 s){goal}")
per = first / n
print(f"    reviewer runs: {first} for {n} distinct content(s) = {per:.2f} per content; a second Stop: {second - first} more (goal: exactly 1, then 0: {'ok' if first == n and second == first else 'MISSED'})")
PY
done
