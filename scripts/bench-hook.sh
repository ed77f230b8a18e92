# Sourced by scripts/bench.sh: whole-process time of `helix-gate hook`.
# Uses $bin, $work, $seed_repo from bench.sh.
echo "== hook"
baseline="$work/read-stdin"
cat > "$baseline.rs" <<'RS'
use std::io::Read;
fn main() { let mut s = Vec::new(); let _ = std::io::stdin().read_to_end(&mut s); }
RS
rustc -O -o "$baseline" "$baseline.rs" 2>/dev/null
printf '{"session_id":"bench","transcript_path":"t","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s/src/main.rs","content":"fn main() {}"},"tool_response":{"type":"create"},"tool_use_id":"toolu_1","duration_ms":3}\n' "$seed_repo" "$seed_repo" > "$work/noop.json"
printf '{"session_id":"bench","transcript_path":"t","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s/adr/015-approval.md","content":"..."},"tool_response":{"type":"create"},"tool_use_id":"toolu_1","duration_ms":3}\n' "$seed_repo" "$seed_repo" > "$work/adr.json"
export CLAUDE_PROJECT_DIR="$seed_repo"
# hyperfine's shell mode (its own shell start-up is measured and subtracted) so
# stdin can be redirected; the baseline gets exactly the same treatment.
(cd "$seed_repo" && hyperfine --warmup 20 --runs 300 --style basic -i \
  -n "minimal program reading stdin" "$baseline < $work/noop.json" \
  -n "hook PostToolUse non-ADR (no-op)" "$bin hook < $work/noop.json" \
  -n "hook PostToolUse seed ADR (51 KB)" "$bin hook < $work/adr.json" \
  -n "hook --scope user, no config/ (no-op)" "$bin hook --scope user < $work/adr.json" \
  --export-json "$work/h.json" >/dev/null)
python3 - "$work/h.json" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["results"]
for r in rs:
    print(f"  {r['command']:<40} median {r['median']*1000:8.2f} ms  (mean {r['mean']*1000:.2f}, min {r['min']*1000:.2f}, n={len(r['times'])})")
# hyperfine subtracts the shell's start-up time, so on a loaded machine the baseline's
# median can be 0 (or below): then there is no meaningful ratio.
base = rs[0]["median"]
ratio = f"{rs[1]['median'] / base:.2f}x" if base > 0 else f"n/a (baseline median {base * 1000:.2f} ms)"
print(f"  no-op / minimal program: {ratio}")
PY
echo "  peak RSS hook seed ADR: $(cd "$seed_repo" && /usr/bin/time -f '%M' "$bin" hook < "$work/adr.json" 2>&1 >/dev/null | tail -n 1) KB"
unset CLAUDE_PROJECT_DIR
