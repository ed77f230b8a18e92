# Sourced by scripts/bench.sh: the cost of decisions that govern code (issue 31, point 6).
# Uses $bin, $work, $seed_repo, $root from bench.sh.
# A repository with 200 accepted ADRs and 1,000 rules (scripts/gen_governed.py), 10 of
# them (50 rules) governing src/mod0/service.py, a 20 KB Python file. A PostToolUse Write
# of it (one line added, every rule kept) loads the cached governing index and runs the
# rules; the hook's no-op (a Write of an ungoverned file in the seed repository, which
# has no ruling ADR) is timed in the same rounds. HELIX_GATE_BENCH_BEFORE names an older
# binary to time in the same rounds.
echo "== governs"
gov="$work/governed"
python3 "$root/scripts/gen_governed.py" "$gov" 200 5
mkdir -p "$gov/config" && printf 'approvals:\n  adr:\n    enabled: false\n' > "$gov/config/approvals.yaml"
(cd "$gov" && git init -q . && git add -A &&
  git -c user.name=bench -c user.email=bench@example.com commit -q -m "200 ADRs, 1,000 rules")
cp "$gov/src/mod0/service.next.py" "$gov/src/mod0/service.py"
printf '{"session_id":"bench","transcript_path":"t","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s/src/mod0/service.py","content":"..."},"tool_response":{"type":"update"},"tool_use_id":"toolu_1","duration_ms":3}\n' "$gov" "$gov" > "$work/governed.json"
printf '{"session_id":"bench","transcript_path":"t","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s/src/main.rs","content":"fn main() {}"},"tool_response":{"type":"create"},"tool_use_id":"toolu_1","duration_ms":3}\n' "$seed_repo" "$seed_repo" > "$work/noop.json"
export HELIX_GATE_STATE_DIR="$work/state"
for repo in "$seed_repo" "$gov"; do
  printf '{"session_id":"bench","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}\n' "$repo" |
    (cd "$repo" && CLAUDE_PROJECT_DIR="$repo" "$bin" hook > /dev/null)
done
[ -f "$gov/.helix-gate/governs-index" ] || { echo "bench: no governs-index written"; exit 1; }
echo "  cache: $(wc -c < "$gov/.helix-gate/governs-index") bytes for $(ls "$gov/adr" | wc -l) ADRs"
# The cache trusts an ADR's stamp once it is older than its racy window (2.5 s).
sleep 3
(cd "$gov" && CLAUDE_PROJECT_DIR="$gov" "$bin" hook < "$work/governed.json" > /dev/null)
runs=("hook PostToolUse non-ADR (no-op)=CLAUDE_PROJECT_DIR=$seed_repo $bin hook<$work/noop.json"
  "PostToolUse 20 KB file, 200 ADRs, 1000 rules=CLAUDE_PROJECT_DIR=$gov $bin hook<$work/governed.json")
if [ -n "${HELIX_GATE_BENCH_BEFORE:-}" ]; then
  runs+=("no-op, before=CLAUDE_PROJECT_DIR=$seed_repo $HELIX_GATE_BENCH_BEFORE hook<$work/noop.json")
fi
(cd "$gov" && python3 "$root/scripts/bench_spawn.py" 300 "${runs[@]}")
unset HELIX_GATE_STATE_DIR
