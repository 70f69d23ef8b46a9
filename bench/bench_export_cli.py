#!/usr/bin/env python3
"""Whole-process GLB export: `bspkit export MAP -o OUT.glb` on the largest
maps bspkit exports (default 5), with texture images and the lightmap atlas
and geometry only (--no-textures --no-lightmaps), each run writing its file.
Beside them, in the same run and on the same maps: `/bin/true` (the process
floor), `cat MAP` into /dev/null (reading the map) and `cp MAP OUT` (reading
it and writing as many bytes). With BASE set to another bspkit binary, that
binary runs the same exports interleaved with this one (before/after).
Rates are MB of map input per second over the sum of each map's best wall
time (RUNS per command, default 15), with the page faults a run of each takes
(minor faults of the process, averaged over the runs: each costs the kernel a
fresh page). A benchmark reports; it never fails on a figure.

    bench/bench_export_cli.py [MAP|DIR] [-n MAPS]
    BSPKIT selects the binary (default build/bspkit); BASE the binary beside it.
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

from bench_peers import maps_under

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def wall(cmd):
    """(wall seconds, exit code, minor page faults) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    start = time.perf_counter()
    code = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    seconds = time.perf_counter() - start
    return seconds, code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - before


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("target", nargs="?", default=os.path.join(ROOT, "..", "shared", "maps"))
    ap.add_argument("-n", type=int, default=5, help="how many of the largest maps (default 5)")
    args = ap.parse_args()
    bspkit = os.environ.get("BSPKIT", os.path.join(ROOT, "build", "bspkit"))
    base = os.environ.get("BASE")
    runs = int(os.environ.get("RUNS", "15"))
    if not os.access(bspkit, os.X_OK):
        print(f"bench_export_cli.py: {bspkit} not built", file=sys.stderr)
        return 1

    out = tempfile.mkdtemp()
    glb = os.path.join(out, "out.glb")
    chosen = []
    for path in sorted(maps_under(args.target), key=os.path.getsize, reverse=True):
        if len(chosen) == args.n:
            break
        if wall([bspkit, "export", path, "-o", glb])[1] == 0:
            chosen.append(path)
    if not chosen:
        print("bench_export_cli.py: no map exports")
        return 0

    binaries = [("bspkit", bspkit)] + ([("base", base)] if base else [])
    commands = [("/bin/true", lambda m: ["/bin/true"]),
                ("cat MAP", lambda m: ["sh", "-c", 'exec cat "$1" >/dev/null', "sh", m]),
                ("cp MAP OUT", lambda m: ["cp", m, os.path.join(out, "copy.bsp")])]
    for label, binary in binaries:
        commands.append((f"{label} export", lambda m, b=binary: [b, "export", m, "-o", glb]))
        commands.append((f"{label} export geometry only",
                         lambda m, b=binary: [b, "export", m, "-o", glb, "--no-textures", "--no-lightmaps"]))

    total_bytes = sum(os.path.getsize(m) for m in chosen)
    best = {label: [None] * len(chosen) for label, _ in commands}
    faults = {label: 0 for label, _ in commands}
    # Interleaved: every command once per round, so drift on a shared machine
    # falls on all of them alike.
    for _ in range(runs):
        for i, m in enumerate(chosen):
            for label, make in commands:
                t, _, f = wall(make(m))
                faults[label] += f
                if best[label][i] is None or t < best[label][i]:
                    best[label][i] = t
    try:
        for name in os.listdir(out):
            os.unlink(os.path.join(out, name))
        os.rmdir(out)
    except OSError:
        pass

    print(f"whole-process export to GLB: {len(chosen)} maps, {total_bytes / 1e6:.1f} MB, best of {runs}")
    for m in chosen:
        print(f"  {os.path.basename(m)} ({os.path.getsize(m) / 1e6:.1f} MB)")
    print(f"{'command':32} {'ms (sum of maps)':>17} {'MB/s of map':>12} {'faults a run':>13}")
    for label, _ in commands:
        seconds = sum(best[label])
        per_run = faults[label] / (runs * len(chosen))
        print(f"{label:32} {seconds * 1e3:17.1f} {total_bytes / 1e6 / seconds:12.1f} {per_run:13.0f}")
    print("targets: 200 MB/s with images and atlas, 1000 MB/s geometry only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
