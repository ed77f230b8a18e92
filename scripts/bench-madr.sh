# Sourced by scripts/bench.sh: `helix-gate --preset madr validate` of 1,000 real MADR ADRs
# against `adrs doctor` (joshrotenberg/adrs 0.13.0, scripts/install-adrs.sh) on the same
# files; issue 34's goal is at most 0.5x. Uses $bin, $work, $root from bench.sh.
#
# The files: the MADR ADRs of the shared corpus (real ADRs of public repositories; data
# for tests, never copied into this repository), 158 of them (the MADR project's own,
# JabRef's and the preset corpus's seven MADR repositories), taken in turn and numbered
# 0001-1000 in docs/decisions/ under their own names. HELIX_GATE_MADR_CORPUS names the
# corpus folder (default: ../shared/corpus next to the repository).
echo "== madr (1,000 real MADR ADRs: helix-gate --preset madr validate vs adrs doctor)"
corpus="${HELIX_GATE_MADR_CORPUS:-$root/../shared/corpus}"
if [ ! -f "$corpus/preset-adrs/manifest.json" ] || [ ! -d "$corpus/public-adrs/adr__madr" ]; then
  echo "  skipped: no MADR corpus at $corpus (set HELIX_GATE_MADR_CORPUS)"
else
  adrs_bin="$(bash "$root/scripts/install-adrs.sh" | tail -n 1)"
  madr="$work/madr"
  python3 - "$corpus" "$madr" <<'PY'
import json, os, re, sys
corpus, out = sys.argv[1:3]
sources = []
manifest = json.load(open(os.path.join(corpus, "preset-adrs", "manifest.json")))
for repo, entry in sorted(manifest.items()):
    if entry["preset"] == "madr":
        sources += [os.path.join(corpus, "preset-adrs", repo, f) for f in entry["files"]]
for repo in ("adr__madr", "JabRef__jabref"):
    folder = os.path.join(corpus, "public-adrs", repo, "docs", "decisions")
    sources += [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if f.endswith(".md") and f != "index.md"]
decisions = os.path.join(out, "docs", "decisions")
os.makedirs(decisions)
os.makedirs(os.path.join(out, ".git"))
with open(os.path.join(out, ".adr-dir"), "w") as f:
    f.write("docs/decisions\n")
for i in range(1000):
    source = sources[i % len(sources)]
    slug = re.sub(r"^[0-9]+-", "", os.path.basename(source))
    with open(source, "rb") as f:
        text = f.read()
    with open(os.path.join(decisions, f"{i + 1:04d}-{slug}"), "wb") as f:
        f.write(text)
print(f"  {len(sources)} MADR files, 1000 written")
PY
  specs=("adrs doctor (0.13.0)=$adrs_bin -C $madr doctor</dev/null"
    "helix-gate --preset madr validate=$bin --preset madr validate $madr/docs/decisions</dev/null")
  if [ -n "${HELIX_GATE_BENCH_BEFORE:-}" ]; then
    specs+=("helix-gate validate, before=$HELIX_GATE_BENCH_BEFORE --preset madr validate $madr/docs/decisions</dev/null")
  fi
  (cd "$madr" && python3 "$root/scripts/bench_spawn.py" 30 "${specs[@]}")
fi
