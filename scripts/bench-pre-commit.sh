# Sourced by scripts/bench.sh with $bin, $work and $big (1000 generated ADRs in adr/, src/lib.rs).
# `helix-gate pre-commit` in a git repository whose 1000 ADRs are committed, with 10 and
# then all 1000 of them changed and staged. Goals: <= 30 ms and <= 300 ms (median, whole process).
echo "== pre-commit"
pc_repo="$work/pre-commit-repo"
mkdir -p "$pc_repo"
cp -R "$big/adr" "$big/src" "$pc_repo/"
pc_git() {
  # Isolated from the user's configuration, fixed identity and dates, no signing.
  GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
    GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.invalid GIT_AUTHOR_DATE="1577836800 +0000" \
    GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.invalid GIT_COMMITTER_DATE="1577836800 +0000" \
    git -C "$pc_repo" -c commit.gpgsign=false -c init.defaultBranch=main "$@"
}
pc_git init -q
pc_git add -A
pc_git commit -q --no-verify -m "1000 ADRs"
# A change that keeps every ADR valid: one more line in the body.
pc_touch() { for f in "$@"; do printf '\nStaged for the benchmark.\n' >>"$f"; done; }
(cd "$pc_repo" && pc_touch $(ls adr/*.md | head -n 10))
pc_git add adr
(cd "$pc_repo" && hyperfine -N --warmup 10 --runs 100 --style basic \
  -n "pre-commit, 10 of 1000 ADRs staged" "$bin pre-commit" -i --export-json "$work/pc1.json" >/dev/null)
(cd "$pc_repo" && pc_touch adr/*.md)
pc_git add adr
(cd "$pc_repo" && hyperfine -N --warmup 3 --runs 30 --style basic \
  -n "pre-commit, 1000 of 1000 ADRs staged" "$bin pre-commit" -i --export-json "$work/pc2.json" >/dev/null)
python3 - "$work/pc1.json" "$work/pc2.json" <<'PY'
import json, sys
for p in sys.argv[1:]:
    r = json.load(open(p))["results"][0]
    print(f"  {r['command']:<40} median {r['median']*1000:8.2f} ms  (mean {r['mean']*1000:.2f}, min {r['min']*1000:.2f}, n={len(r['times'])})")
PY
(cd "$pc_repo" && "$bin" pre-commit >/dev/null 2>&1) || echo "  note: pre-commit exited $? on the benchmark repository (expected 0)"
echo "  peak RSS pre-commit 1000 staged: $(cd "$pc_repo" && peak_rss "$bin" pre-commit) KB"
