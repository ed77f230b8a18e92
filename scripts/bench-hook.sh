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
# Interleaved whole-process runs with stdin from a file (scripts/bench_spawn.py: hyperfine 1.15
# cannot feed stdin without a shell, and its shell mode's subtraction breaks on a loaded VM).
(cd "$seed_repo" && python3 "$root/scripts/bench_spawn.py" 300 \
  "minimal program reading stdin=$baseline<$work/noop.json" \
  "hook PostToolUse non-ADR (no-op)=$bin hook<$work/noop.json" \
  "hook --scope user, no config/ (no-op)=$bin hook --scope user<$work/adr.json" \
  "hook PostToolUse seed ADR (51 KB)=$bin hook<$work/adr.json")
echo "  peak RSS hook seed ADR: $(cd "$seed_repo" && /usr/bin/time -f '%M' "$bin" hook < "$work/adr.json" 2>&1 >/dev/null | tail -n 1) KB"
unset CLAUDE_PROJECT_DIR
