#!/usr/bin/env bash
# Regenerate scripts/hot-text.ld: the functions the hook runs, laid out together at the front
# of the release binary's code (scripts/release-target.sh links with it on x86_64 Linux).
#
# Why: the hook's no-op executes ~100,000 instructions, yet touched ~30 pages of code spread
# over 6 MB; each is a page fault, and together they were a third of what the no-op costs
# above a static C program that only reads stdin (issue 20). With the functions of the hot
# paths in one place, the no-op takes a few code faults.
#
# How: an unstripped release build runs each hot path once under callgrind: the paths that
# come with every tool call first (the hook's no-op for a Write, a Bash PreToolUse and
# PostToolUse, and a PostToolUse Write of a 20 KB source file under the rules of 200 accepted
# ADRs, scripts/bench-governs.sh's case), then SessionStart and the PostToolUse check of the
# 51 KB seed ADR with the built-in rules and with a repository's rules file. Every function
# a path entered becomes one input-section pattern, in that order (the no-op's first), so
# the code a governed write adds to the no-op's lies next to it, not after the ADR check's.
# Rust names are v0 names with their per-build hashes (crate disambiguators) as `*`, so the
# list matches in any build of the same code, in any folder,
# with any compiler (scripts/hot_text.py says how); a pattern that matches nothing is ignored
# by the linker, so a stale list only costs speed, and the package tests fail when what it
# lays out falls under 90 % of what it did when generated: then run this script again.
# C library functions are placed by their archive member (`*libc.a:malloc.o`).
#
# Needs valgrind (apt-get install valgrind). Takes two shipped builds (~5 min each) and ~1 min.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v valgrind > /dev/null || { echo "hot-text: valgrind missing (apt-get install valgrind)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The shipped build with its symbols, in a target folder of its own (rustc's own
# `-C strip=none`, given after the profile's, keeps them).
bin="$(CARGO_TARGET_DIR="$root/target/hot-text" RUSTFLAGS="${RUSTFLAGS:-} -C strip=none" \
  bash scripts/build-release.sh | tail -n 1)"

seed_repo="$work/seed"
rules_repo="$work/seed-rules"
for repo in "$seed_repo" "$rules_repo"; do
  mkdir -p "$repo/.git" "$repo/adr"
  cp tests/fixtures/seeds/015-approval-validation-system.md "$repo/adr/015-approval.md"
done
mkdir -p "$rules_repo/config"
cp config/adr-completeness-rules.yaml "$rules_repo/config/"
event() { # event NAME REPO JSON-REST
  printf '{"session_id":"hot","transcript_path":"t","cwd":"%s",%s}\n' "$2" "$3" > "$work/$1.json"
}
# The fields Claude Code 2.1.329 sends (an unused number too: decoding skips it).
write_of() { printf '"permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"%s","content":"..."},"tool_response":{"type":"create"},"tool_use_id":"t1","duration_ms":3' "$1"; }
bash_of() { printf '"permission_mode":"default","hook_event_name":"%s","tool_name":"Bash","tool_input":{"command":"cargo test","description":"Run the tests"},"tool_response":{"stdout":"ok"},"tool_use_id":"t1","duration_ms":3' "$1"; }
event start "$seed_repo" '"hook_event_name":"SessionStart","source":"startup"'
event start-rules "$rules_repo" '"hook_event_name":"SessionStart","source":"startup"'
event noop "$seed_repo" "$(write_of "$seed_repo/src/main.rs")"
event prebash "$seed_repo" "$(bash_of PreToolUse)"
event bash "$seed_repo" "$(bash_of PostToolUse)"
event adr "$seed_repo" "$(write_of "$seed_repo/adr/015-approval.md")"
event adr-rules "$rules_repo" "$(write_of "$rules_repo/adr/015-approval.md")"

# A file under the rules of accepted ADRs (scripts/gen_governed.py), in a real repository:
# its version at HEAD is read through git.
gov="$work/governed"
python3 scripts/gen_governed.py "$gov" 200 5
mkdir -p "$gov/config" && printf 'approvals:\n  adr:\n    enabled: false\n' > "$gov/config/approvals.yaml"
(cd "$gov" && git init -q . && git add -A &&
  git -c user.name=hot -c user.email=hot@example.com commit -q -m "200 ADRs, 1,000 rules")
cp "$gov/src/mod0/service.next.py" "$gov/src/mod0/service.py"
event start-governed "$gov" '"hook_event_name":"SessionStart","source":"startup"'
event governed "$gov" "$(write_of "$gov/src/mod0/service.py")"

export HELIX_GATE_STATE_DIR="$work/state"
# The governing index's cache, built as a session start builds it, and older than its
# racy window (2.5 s), so the profiled call reads it as a hook call does.
(cd "$gov" && CLAUDE_PROJECT_DIR="$gov" "$bin" hook < "$work/start-governed.json" > /dev/null)
sleep 3
profiles=()
# The order of the list: what every tool call runs first, the session's start and the ADR
# check next.
for spec in noop:seed prebash:seed bash:seed governed:governed start:seed start-rules:seed-rules adr:seed adr-rules:seed-rules; do
  name="${spec%%:*}"
  repo="$work/${spec#*:}"
  (cd "$repo" && CLAUDE_PROJECT_DIR="$repo" valgrind -q --tool=callgrind --demangle=no \
    --callgrind-out-file="$work/$name.out" "$bin" hook < "$work/$name.json" > /dev/null)
  profiles+=("$work/$name.out")
done
libc="$(gcc -print-file-name=libc.a)"
python3 scripts/hot_text.py "$bin" "$libc" "${profiles[@]}" > "$work/hot-text.ld"
cp "$work/hot-text.ld" scripts/hot-text.ld
# The floor the package tests hold every shipped binary to: what the new list lays out in
# the shipped build (built again with it, in the usual target folder).
size="$(python3 scripts/hot_text.py --size "$(bash scripts/build-release.sh | tail -n 1)")"
sed "s/@SIZE@/$size/" "$work/hot-text.ld" > scripts/hot-text.ld
echo "scripts/hot-text.ld: $(grep -c '^    \*' scripts/hot-text.ld) patterns, $size bytes laid out" >&2
