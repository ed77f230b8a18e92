#!/usr/bin/env python3
"""Time whole processes that read stdin, interleaved, so machine noise hits every command alike.

Usage: bench_spawn.py RUNS NAME=CMD<INPUT ...   (CMD split on spaces; INPUT a file for stdin;
leading VAR=value words of CMD set that command's environment, as in a shell)

hyperfine 1.15 (Debian's) cannot feed stdin without a shell, and its shell mode subtracts
the shell's start-up, which on a loaded 2-core VM leaves medians of 0 ms. Here each round runs
every command once, in turn, with posix_spawn; wall time is measured around spawn + wait4, and
CPU time (user + system) comes from wait4's rusage, which load on the other core barely moves.
Rounds run the commands in a shuffled order. Prints the median wall and CPU time per command and
each command's ratio to the first one.
"""
import os
import random
import statistics
import sys
import time


def run_once(argv, stdin_path, env):
    fd = os.open(stdin_path, os.O_RDONLY)
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        start = time.perf_counter()
        pid = os.posix_spawn(
            argv[0],
            argv,
            env,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, fd, 0),
                (os.POSIX_SPAWN_DUP2, devnull, 1),
                (os.POSIX_SPAWN_DUP2, devnull, 2),
            ],
        )
        _, _, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
    finally:
        os.close(fd)
        os.close(devnull)
    return wall, usage.ru_utime + usage.ru_stime


def main():
    runs = int(sys.argv[1])
    specs = []
    for spec in sys.argv[2:]:
        name, rest = spec.split("=", 1)
        cmd, stdin_path = rest.rsplit("<", 1)
        words = cmd.split()
        env = dict(os.environ)
        while words and "=" in words[0] and not words[0].startswith("/"):
            key, value = words.pop(0).split("=", 1)
            env[key] = value
        specs.append((name, words, stdin_path, env))
    walls = {spec[0]: [] for spec in specs}
    cpus = {spec[0]: [] for spec in specs}
    for _ in range(10):  # warm-up: page cache, dynamic loader
        for _, argv, stdin_path, env in specs:
            run_once(argv, stdin_path, env)
    # Each round in a new order (seeded): a command that always followed another
    # would inherit its cache and scheduler state (position alone moved medians by
    # up to 40 % on the loaded 2-core VM).
    order = random.Random(1)
    for _ in range(runs):
        round_specs = list(specs)
        order.shuffle(round_specs)
        for name, argv, stdin_path, env in round_specs:
            wall, cpu = run_once(argv, stdin_path, env)
            walls[name].append(wall)
            cpus[name].append(cpu)
    base = specs[0][0]
    base_wall = statistics.median(walls[base])
    base_cpu = statistics.median(cpus[base])
    for name, *_ in specs:
        wall = statistics.median(walls[name])
        cpu = statistics.median(cpus[name])
        ratio = f"{wall / base_wall:.2f}x" if base_wall > 0 else "n/a"
        print(
            f"  {name:<40} median wall {wall * 1000:6.2f} ms ({ratio} {base}), "
            f"CPU {cpu * 1000:5.2f} ms, n={runs}"
        )


if __name__ == "__main__":
    main()
