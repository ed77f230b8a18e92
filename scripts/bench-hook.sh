# Sourced by scripts/bench.sh: whole-process time of `helix-gate hook`.
# Uses $bin, $work, $seed_repo from bench.sh.
echo "== hook"
# The yardstick: a static C program that only reads stdin (the floor of any hook: exec,
# start-up, one read). The issue's goals are ratios to it: the no-op at most 1.2x, the
# seed ADR's check at most 5x.
baseline="$work/read-stdin"
cat > "$baseline.c" <<'C'
#include <unistd.h>
int main(void) { char b[65536]; while (read(0, b, sizeof b) > 0) {} return 0; }
C
gcc -O2 -static -o "$baseline" "$baseline.c"
# The seed ADR again, in a repository with its own rules file (this one's).
rules_repo="$work/seed-rules"
mkdir -p "$rules_repo/.git" "$rules_repo/adr" "$rules_repo/config"
cp "$seed" "$rules_repo/adr/015-approval.md"
cp "$root/config/adr-completeness-rules.yaml" "$rules_repo/config/"
printf '{"session_id":"bench","transcript_path":"t","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s/adr/015-approval.md","content":"..."},"tool_response":{"type":"create"},"tool_use_id":"toolu_1","duration_ms":3}\n' "$rules_repo" "$rules_repo" > "$work/adr-rules.json"
printf '{"session_id":"bench","transcript_path":"t","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s/src/main.rs","content":"fn main() {}"},"tool_response":{"type":"create"},"tool_use_id":"toolu_1","duration_ms":3}\n' "$seed_repo" "$seed_repo" > "$work/noop.json"
printf '{"session_id":"bench","transcript_path":"t","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s/adr/015-approval.md","content":"..."},"tool_response":{"type":"create"},"tool_use_id":"toolu_1","duration_ms":3}\n' "$seed_repo" "$seed_repo" > "$work/adr.json"
export CLAUDE_PROJECT_DIR="$seed_repo"
# Sessions as Claude Code runs them: SessionStart first (the baseline and the
# configuration's snapshot, in a state folder of the benchmark's own).
export HELIX_GATE_STATE_DIR="$work/state"
for repo in "$seed_repo" "$rules_repo"; do
  printf '{"session_id":"bench","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}\n' "$repo" |
    (cd "$repo" && CLAUDE_PROJECT_DIR="$repo" "$bin" hook > /dev/null)
done
# Interleaved whole-process runs with stdin from a file (scripts/bench_spawn.py: hyperfine 1.15
# cannot feed stdin without a shell, and its shell mode's subtraction breaks on a loaded VM).
first=("static C program reading stdin=$baseline<$work/noop.json"
  "hook PostToolUse non-ADR (no-op)=$bin hook<$work/noop.json"
  "hook --scope user, no config/ (no-op)=$bin hook --scope user<$work/adr.json"
  "hook PostToolUse seed ADR (51 KB)=$bin hook<$work/adr.json"
  "seed ADR, repository's rules file=CLAUDE_PROJECT_DIR=$rules_repo $bin hook<$work/adr-rules.json")
if [ -n "${HELIX_GATE_BENCH_BEFORE:-}" ]; then
  first+=("no-op, before=$HELIX_GATE_BENCH_BEFORE hook<$work/noop.json"
    "seed ADR, before=$HELIX_GATE_BENCH_BEFORE hook<$work/adr.json"
    "seed ADR + rules file, before=CLAUDE_PROJECT_DIR=$rules_repo $HELIX_GATE_BENCH_BEFORE hook<$work/adr-rules.json")
fi
(cd "$seed_repo" && python3 "$root/scripts/bench_spawn.py" 300 "${first[@]}")
echo "  peak RSS hook seed ADR: $(cd "$seed_repo" && /usr/bin/time -f '%M' "$bin" hook < "$work/adr.json" 2>&1 >/dev/null | tail -n 1) KB"

# The Bash hook when no ADR changed, against the Write no-op, in a session that has its
# baseline (taken by SessionStart, in a state folder of the benchmark's own), in a
# repository with its own approvals/ (this one's: every file a `stat` per call).
cp -r "$root/approvals" "$seed_repo/approvals"
printf '{"session_id":"bench","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}\n' "$seed_repo" > "$work/start.json"
printf '{"session_id":"bench","transcript_path":"t","cwd":"%s","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"cargo test","description":"Run the tests"},"tool_response":{"stdout":"ok"},"tool_use_id":"toolu_1","duration_ms":3}\n' "$seed_repo" > "$work/bash.json"
printf '{"session_id":"bench","transcript_path":"t","cwd":"%s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cargo test","description":"Run the tests"},"tool_use_id":"toolu_1"}\n' "$seed_repo" > "$work/prebash.json"
(cd "$seed_repo" && "$bin" hook < "$work/start.json" > /dev/null)
(cd "$seed_repo" && python3 "$root/scripts/bench_spawn.py" 300 \
  "hook PostToolUse non-ADR (no-op)=$bin hook<$work/noop.json" \
  "hook PostToolUse Bash, no ADR changed=$bin hook<$work/bash.json" \
  "hook PreToolUse Bash, plain command=$bin hook<$work/prebash.json")

# The Stop in a repository of 1000 ADRs that the session did not change (it walks the
# repository against the baseline). HELIX_GATE_BENCH_BEFORE names an older binary to
# time in the same rounds.
printf '{"session_id":"bench","cwd":"%s","hook_event_name":"SessionStart","source":"startup"}\n' "$big" > "$work/big-start.json"
printf '{"session_id":"bench","cwd":"%s","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done","background_tasks":[]}\n' "$big" > "$work/big-stop.json"
mkdir -p "$big/config" && printf 'approvals:\n  adr:\n    enabled: false\n' > "$big/config/approvals.yaml"
export CLAUDE_PROJECT_DIR="$big"
(cd "$big" && "$bin" hook < "$work/big-start.json" > /dev/null)
stops=("Stop, 1000 unchanged ADRs=$bin hook<$work/big-stop.json")
if [ -n "${HELIX_GATE_BENCH_BEFORE:-}" ]; then
  stops+=("Stop, 1000 ADRs, before=$HELIX_GATE_BENCH_BEFORE hook<$work/big-stop.json")
fi
(cd "$big" && python3 "$root/scripts/bench_spawn.py" 100 "${stops[@]}")
# A session's first SessionStart takes the baseline (a walk, and a hash of every ADR):
# 20 new sessions, one process each.
python3 - "$bin" "$big" "$work" <<'PY'
import os, statistics, subprocess, sys, time
binary, big, work = sys.argv[1:4]
walls = []
for i in range(20):
    event = f'{{"session_id":"fresh-{i}","cwd":"{big}","hook_event_name":"SessionStart","source":"startup"}}\n'
    start = time.perf_counter()
    subprocess.run([binary, "hook"], input=event.encode(), cwd=big, stdout=subprocess.DEVNULL, check=True)
    walls.append(time.perf_counter() - start)
print(f"  SessionStart of a new session, 1000 ADRs (baseline taken): median wall {statistics.median(walls) * 1000:.2f} ms, n=20")
PY
unset CLAUDE_PROJECT_DIR HELIX_GATE_STATE_DIR
