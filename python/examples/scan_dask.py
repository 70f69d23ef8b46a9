#!/usr/bin/env python3
"""Scan a map collection on a Dask cluster: one summary record per map (the
records of `bspkit scan --jsonl`: format, version, game, counts, CRC,
validation totals, or the error that stopped it) written as JSON Lines, in
path order.

    scan_dask.py DIR_OR_FILE... -o OUT.jsonl [--scheduler ADDRESS] [--workers N] [--batches-per-worker B]

Without --scheduler a LocalCluster of N worker processes (default 2) runs
here; with it, the records are computed on that cluster's workers (each needs
the bspkit package installed); on a terminal a progress bar shows the
scan. A file bspkit cannot read is a record with an
"error" member: bspkit.scan_files (a batch of consecutive files on each task,
B batches per worker (default 2), through the C library's scan, every map inside an
archive included) never raises for a bad file, so a hostile map cannot take
a worker down. Batches keep the scheduler's cost per task from outweighing
the scan of small maps.
"""
import argparse
import json
import sys

import bspkit


def batches(files, count):
    """`files` cut into at most `count` runs of consecutive files (path order kept)."""
    count = max(1, min(count, len(files)))
    size = -(-len(files) // count)
    return [files[i:i + size] for i in range(0, len(files), size)]


def scan_on(client, paths, batches_per_worker=2):
    """The records of every map under `paths`, computed on `client`'s workers."""
    files = bspkit.map_files(paths)
    workers = max(1, sum(client.nthreads().values()))
    futures = client.map(bspkit.scan_files, batches(files, workers * batches_per_worker), pure=False)
    if sys.stderr.isatty():  # a progress bar for people watching, none in logs and pipes
        from dask.distributed import progress

        progress(futures)
    return [record for records in client.gather(futures) for record in records]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="+")
    ap.add_argument("-o", "--output", required=True, help="JSON Lines file to write")
    ap.add_argument("--scheduler", help="address of a running dask.distributed scheduler")
    ap.add_argument("--workers", type=int, default=2, help="LocalCluster worker processes (default 2)")
    ap.add_argument("--batches-per-worker", type=int, default=2, help="tasks per worker thread (default 2)")
    args = ap.parse_args(argv)
    from dask.distributed import Client, LocalCluster

    if args.scheduler:
        client = Client(args.scheduler)
        cluster = None
    else:
        cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
    try:
        records = scan_on(client, args.paths, args.batches_per_worker)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    with open(args.output, "w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, sort_keys=True) + "\n")
    bad = sum(1 for r in records if r.get("error"))
    print(f"{len(records)} maps scanned, {bad} unreadable -> {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
