# Sourced by scripts/bench.sh: whole-process `helix-gate validate` on pathological
# ADRs of 1 MB and 5 MB (scripts/gen_worst.py: nested YAML flow and block collections,
# anchors and aliases, deep lists and block quotes, brackets, emphasis runs, long lines,
# many headings and checkboxes, wide tables; in the front matter and in the body).
# Prints the median of a few runs in ms and in ms per MB; the goal is <= 150 ms per MB
# for every shape. A run is killed after 60 s and shows as "timeout".
# Uses $bin and $work from bench.sh.
echo "== worst (validate one pathological ADR; median of 5 runs at 1 MB, 3 at 5 MB)"
python3 scripts/gen_worst.py "$work/worst" 1000000 5000000 > "$work/worst.list"
python3 - "$bin" "$work/worst.list" <<'PY'
import json, os, statistics, subprocess, sys, tempfile, threading, time

GOAL = 150.0  # ms per MB
bin_path, listing = sys.argv[1], sys.argv[2]


def run(args, cwd):
    """One run: (wall ms, CPU ms, peak RSS KB, exit code or "timeout", stdout)."""
    with tempfile.TemporaryFile() as out:
        started = time.perf_counter()
        proc = subprocess.Popen(args, cwd=cwd, stdout=out, stderr=subprocess.DEVNULL)
        timer = threading.Timer(60, proc.kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = (time.perf_counter() - started) * 1000
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        code = "timeout" if proc.returncode < 0 else proc.returncode
        return wall, (usage.ru_utime + usage.ru_stime) * 1000, usage.ru_maxrss, code, out.read()


def decided_by(stdout):
    """The error rules about the file itself or its front matter, else "parsed"."""
    try:
        rules = [f["rule"] for report in json.loads(stdout)["files"] for f in report["findings"]
                 if f["severity"] == "error"]
    except (ValueError, KeyError):
        return "(no JSON)"
    own = sorted({r for r in rules if r.startswith(("front-matter", "file-"))})
    return ", ".join(own) or "parsed"


print(f"  load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores "
      "(other load inflates wall time; CPU time much less)")
print(f"  {'shape':<22} {'MB':>2} {'median ms':>9} {'ms/MB':>7} {'CPU ms/MB':>9} {'RSS MB':>6}  exit  decided by")
over = 0
for line in open(listing):
    shape, path = line.split()
    size = os.path.getsize(path)
    repo = os.path.dirname(os.path.dirname(path))
    args = [bin_path, "validate", "--format", "json", os.path.relpath(path, repo)]
    runs = [run(args, repo) for _ in range(5 if size <= 1_000_000 else 3)]
    mb = size / 1_000_000
    code = runs[0][3]
    if code == "timeout":
        over += 1
        print(f"  {shape:<22} {mb:>2.0f} {'>60000':>9}  timeout  OVER GOAL")
        continue
    wall = statistics.median(r[0] for r in runs)
    cpu = statistics.median(r[1] for r in runs)
    rss = max(r[2] for r in runs) / 1024
    flag = "" if wall / mb <= GOAL else "  OVER GOAL"
    over += bool(flag)
    print(f"  {shape:<22} {mb:>2.0f} {wall:>9.1f} {wall / mb:>7.1f} {cpu / mb:>9.1f} {rss:>6.0f}  {code:>4}  "
          f"{decided_by(runs[0][4])}{flag}")
print(f"  goal <= {GOAL:.0f} ms/MB (median wall time): {'met by every shape' if over == 0 else f'{over} over'}")
PY
