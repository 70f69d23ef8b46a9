#!/usr/bin/env python3
"""Speed of the Python package beside C and beside bsp_tool. Reports, never fails on a figure.

    bench/bench_python.py open-faces MAP [--iterations N]
    bench/bench_python.py dask-scan [DIR] [--runs N]
    bench/bench_python.py bsp-tool [DIR] --bsp-tool CHECKOUT [--budget SECONDS]

open-faces: bspkit.open(MAP) + `.faces` + close() per iteration in Python beside the same
  calls in C (build/bench/bench_open_faces); the difference is the package's overhead.
dask-scan: the corpus scanned by examples/scan_dask.py's scan_on on a 2-worker LocalCluster
  (cluster start-up not counted) beside `bspkit scan -j 1` and `-j 2`, best of N runs each.
bsp-tool: bsp_tool's load_bsp + every lump read record by record, beside bspkit.open + every
  record array + the entities, on the maps both read (DIR default ../shared/maps).

The package is imported from PYTHONPATH (`ctest -R python_package` installs it into
build/python/site); BSPKIT selects the CLI (default build/bspkit).
"""
import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CLI = os.environ.get("BSPKIT", str(ROOT / "build" / "bspkit"))
CORPUS = ROOT.parent / "shared" / "maps"


def best_of(runs, fn):
    best = None
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        t = time.perf_counter() - start
        best = t if best is None or t < best else best
    return best


def open_faces(args):
    import bspkit

    def loop():
        for _ in range(args.iterations):
            m = bspkit.open(args.map)
            faces = m.faces
            m.close()
            del faces
    py = best_of(5, loop) / args.iterations * 1e6
    out = subprocess.run([str(ROOT / "build" / "bench" / "bench_open_faces"), args.map, str(args.iterations)],
                         capture_output=True, text=True, check=True).stdout
    c = float(out.split()[0])
    print(f"{args.map}")
    print(f"  C:      {c:9.2f} us per open + faces + close")
    print(f"  Python: {py:9.2f} us per open + faces + close")
    print(f"  overhead {py - c:.2f} us (target < 50)")


def dask_scan(args):
    sys.path.insert(0, str(ROOT / "python" / "examples"))
    import scan_dask
    from dask.distributed import Client, LocalCluster

    def cli(jobs):
        subprocess.run([CLI, "scan", "-j", str(jobs), "--jsonl", os.devnull, args.dir], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    serial = best_of(args.runs, lambda: cli(1))
    threaded = best_of(args.runs, lambda: cli(2))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        records = []
        dask = best_of(args.runs, lambda: records.append(len(scan_dask.scan_on(client, [args.dir],
                                                                                args.batches_per_worker))))
    print(f"{args.dir}: {records[-1]} maps")
    print(f"  bspkit scan -j 1:            {serial:7.2f} s")
    print(f"  bspkit scan -j 2:            {threaded:7.2f} s")
    print(f"  Dask, 2 local workers, {args.batches_per_worker} batches each: {dask:7.2f} s  ({dask / serial:.2f} x the serial scan, target <= 1.5)")


def touch_bsp_tool(bsp_tool, path):
    b = bsp_tool.load_bsp(str(path))
    records = 0
    for name in list(b.headers):
        lump = getattr(b, name, None)
        if lump is None or isinstance(lump, (bytes, bytearray)):
            continue
        try:
            for _ in lump:
                records += 1
        except TypeError:
            pass
    return records


def touch_bspkit(bspkit, path):
    records = 0
    with bspkit.open(path) as m:
        for name in bspkit.RECORD_ARRAYS:
            try:
                records += len(m.array(name))
            except bspkit.Error:
                pass
        records += len(m.entities)
    return records


def bsp_tool_ratio(args):
    sys.path.insert(0, args.bsp_tool)
    import bsp_tool
    import bspkit
    maps = sorted(Path(args.dir).rglob("*.bsp"))
    t_bt = t_bk = 0.0
    done = failed = 0
    start = time.perf_counter()
    for path in maps:
        if time.perf_counter() - start > args.budget:
            break
        try:
            t0 = time.perf_counter()
            touch_bsp_tool(bsp_tool, path)
            t1 = time.perf_counter()
        except Exception:  # bsp_tool does not read every map bspkit reads
            failed += 1
            continue
        try:
            t2 = time.perf_counter()
            touch_bspkit(bspkit, path)
            t3 = time.perf_counter()
        except bspkit.Error:
            failed += 1
            continue
        t_bt += t1 - t0
        t_bk += t3 - t2
        done += 1
    print(f"{done} maps read by both ({failed} left out: one of the two could not read them) of {len(maps)}")
    print(f"  bsp_tool load_bsp + every lump:        {t_bt:8.3f} s")
    print(f"  bspkit.open + every record array:      {t_bk:8.3f} s")
    print(f"  ratio bsp_tool / bspkit: {t_bt / t_bk:.1f}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    a = sub.add_parser("open-faces")
    a.add_argument("map")
    a.add_argument("--iterations", type=int, default=2000)
    a.set_defaults(fn=open_faces)
    b = sub.add_parser("dask-scan")
    b.add_argument("dir", nargs="?", default=str(CORPUS))
    b.add_argument("--runs", type=int, default=3)
    b.add_argument("--batches-per-worker", type=int, default=2, help="as scan_dask.py's option")
    b.set_defaults(fn=dask_scan)
    c = sub.add_parser("bsp-tool")
    c.add_argument("dir", nargs="?", default=str(CORPUS))
    c.add_argument("--bsp-tool", required=True, help="a bsp_tool checkout (its bsp_tool package is imported)")
    c.add_argument("--budget", type=float, default=600, help="stop starting new maps after this many seconds")
    c.set_defaults(fn=bsp_tool_ratio)
    args = ap.parse_args()
    args.fn(args)


if __name__ == "__main__":
    main()
