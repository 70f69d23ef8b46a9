#!/usr/bin/env python3
"""Peak resident memory of `bspkit check` on each map, beside the budget of
twice the file's size plus 8 MiB, measured by GNU time (`/usr/bin/time -f %M`)
as a whole process; `/bin/true` is measured the same way as the floor.
Reports the maps over the budget and the one closest to it.

    bench/bench_check_rss.py [MAP|DIR]     BSPKIT selects the binary (default build/bspkit)
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def peak_kib(cmd):
    r = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    return int(r.stderr.strip().splitlines()[-1])


def main():
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "..", "shared", "maps")
    bspkit = os.environ.get("BSPKIT", os.path.join(ROOT, "build", "bspkit"))
    if not os.access("/usr/bin/time", os.X_OK):
        print("bench_check_rss.py: skipped: no /usr/bin/time (Debian package time)")
        return
    if os.path.isfile(target):
        maps = [target]
    else:
        maps = sorted(os.path.join(d, n) for d, _, ns in os.walk(target) for n in ns if n.lower().endswith(".bsp"))
    floor = peak_kib(["/bin/true"])
    over, worst = [], None
    for m in maps:
        size = os.path.getsize(m)
        rss = peak_kib([bspkit, "check", "-j", "1", m]) * 1024
        budget = 2 * size + 8 * 1024 * 1024
        if worst is None or rss / budget > worst[0]:
            worst = (rss / budget, m, rss, size)
        if rss > budget:
            over.append((m, rss, size))
    print(f"peak RSS of bspkit check on {len(maps)} maps (/bin/true: {floor} KiB); budget 2 x size + 8 MiB")
    for m, rss, size in over:
        print(f"  over: {m}: {rss / 1048576:.1f} MiB for {size / 1048576:.1f} MiB")
    if worst:
        print(f"{len(over)} over the budget; closest: {worst[1]} at {worst[0]:.2f} of it "
              f"({worst[2] / 1048576:.1f} MiB for a {worst[3] / 1048576:.1f} MiB map)")


if __name__ == "__main__":
    main()
