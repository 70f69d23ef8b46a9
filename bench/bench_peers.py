#!/usr/bin/env python3
"""Whole-process times of bspkit beside ericw-tools on the same Quake and
GoldSrc maps, in the same run: `bspkit decompile MAP -o OUT.map` beside
`bsputil --decompile MAP` (which writes MAP.decompile.map, so it runs on a
copy in a temporary directory), and `bspkit check MAP` beside
`bsputil --check MAP`. The two commands of a pair run in turn, RUNS times
(default 3), more on small maps (see timed_pair), and the fastest wall time
counts; CPU time (user + system of the children) is shown
beside it, since bsputil uses several threads. A map counts for a pair only
when both programs exit 0 on it. Without ericw-tools the benchmark says so and
stops: there is nothing to put beside bspkit's figures.

    bench/bench_peers.py [MAP|DIR] [--ericw DIR]
    BSPKIT selects the binary (default build/bspkit); RUNS the repetitions.
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_once(cmd, cwd):
    """(wall seconds, CPU seconds of the children, exit code) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    code = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), code


def timed_pair(ours, theirs):
    """Each side's (best wall seconds, CPU seconds of that run, exit code of
    the last run). The two commands run in turn, so a busy moment of the
    machine falls on both; each runs RUNS times (default 3) and, on maps that
    take a few milliseconds, on until each side has had 0.2 s (at most 50
    runs), since on those a single scheduling delay is as long as the work."""
    runs = int(os.environ.get("RUNS", "3"))
    best = [None, None]
    spent = [0.0, 0.0]
    last_code = [0, 0]
    n = 0
    while n < runs or (n < 50 and min(spent) < 0.2):
        for side, (cmd, cwd) in enumerate((ours, theirs)):
            wall, cpu, code = run_once(cmd, cwd)
            spent[side] += wall
            if best[side] is None or wall < best[side][0]:
                best[side] = (wall, cpu)
            last_code[side] = code
        n += 1
    return best[0] + (last_code[0],), best[1] + (last_code[1],)


def family(bspkit, path):
    r = subprocess.run([bspkit, "info", "--json", path], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    return json.loads(r.stdout).get("format")


def maps_under(target):
    if os.path.isfile(target):
        return [target]
    found = []
    for dirpath, _, names in os.walk(target):
        found += [os.path.join(dirpath, n) for n in names if n.lower().endswith(".bsp")]
    return sorted(found)


def report(title, rows):
    if not rows:
        print(f"{title}: no map where both ran")
        return
    print(f"\n{title}")
    print(f"{'map':40} {'bytes':>9} {'bspkit s':>9} {'cpu':>6} {'ericw s':>8} {'cpu':>6} {'ericw/bspkit':>12}")
    for name, size, ours, ours_cpu, theirs, theirs_cpu in rows:
        print(f"{name[-40:]:40} {size:9d} {ours:9.3f} {ours_cpu:6.3f} {theirs:8.3f} {theirs_cpu:6.3f} "
              f"{theirs / ours:11.2f}x")
    ratios = [r[4] / r[2] for r in rows]
    faster = sum(1 for r in ratios if r > 1)
    print(f"{len(rows)} maps: bspkit faster in wall time on {faster}; ericw/bspkit median "
          f"{statistics.median(ratios):.2f}x, range {min(ratios):.2f}-{max(ratios):.2f}x")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("target", nargs="?", default=os.path.join(ROOT, "..", "shared", "maps"))
    ap.add_argument("--ericw", default=os.path.join(ROOT, "..", "shared", "tools", "ericw-tools"))
    args = ap.parse_args()
    bspkit = os.environ.get("BSPKIT", os.path.join(ROOT, "build", "bspkit"))
    bsputil = os.path.join(args.ericw, "bsputil")
    if not os.access(bspkit, os.X_OK):
        sys.exit(f"bench_peers.py: {bspkit} not built")
    if not os.access(bsputil, os.X_OK):
        print(f"bench_peers.py: skipped: no ericw-tools bsputil at {bsputil}")
        return
    maps = [m for m in maps_under(args.target) if family(bspkit, m) in ("quake", "goldsrc")]
    print(f"{len(maps)} Quake/GoldSrc maps under {args.target}; bspkit {bspkit}, ericw-tools {args.ericw} "
          f"({os.cpu_count()} online processors)")
    decompile, check = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for path in maps:
            name = os.path.relpath(path, args.target) if os.path.isdir(args.target) else os.path.basename(path)
            size = os.path.getsize(path)
            copy = os.path.join(tmp, "map.bsp")
            shutil.copyfile(path, copy)
            ours, theirs = timed_pair(([bspkit, "decompile", copy, "-o", os.path.join(tmp, "bspkit.map")], None),
                                      ([bsputil, "--decompile", copy], tmp))
            if ours[2] == 0 and theirs[2] == 0:
                decompile.append((name, size, ours[0], ours[1], theirs[0], theirs[1]))
            ours, theirs = timed_pair(([bspkit, "check", copy], None), ([bsputil, "--check", copy], tmp))
            if ours[2] in (0, 1) and theirs[2] == 0:  # check exits 1 for a map with errors
                check.append((name, size, ours[0], ours[1], theirs[0], theirs[1]))
    report("decompile to .map (bspkit decompile / bsputil --decompile)", decompile)
    report("check (bspkit check / bsputil --check)", check)


if __name__ == "__main__":
    main()
