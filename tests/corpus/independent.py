"""What the independent corpus readers (quake2_independent.py,
quake3_independent.py, titanfall_independent.py, diff_independent.py, size_independent.py) share:
failure counting, the corpus manifest, record arrays read with struct from a directory of
(offset, length) pairs, and bspkit's JSON output."""
import json
import os
import struct
import subprocess

failures = 0


def fail(rel, msg):
    global failures
    failures += 1
    print(f"FAIL {rel}: {msg}")


def manifest_rows(maps):
    """The rows of MAPS/MANIFEST.tsv split on tabs (header left out), or None, saying "skipped", when
    the corpus is absent."""
    manifest = os.path.join(maps, "MANIFEST.tsv")
    if not os.path.isfile(manifest):
        print(f"skipped: {maps} not present")
        return None
    return [line.split("\t") for line in open(manifest, encoding="utf-8").read().splitlines()[1:]]


def records(data, lumps, index, fmt):
    """Lump `index` as a list of struct tuples of `fmt`."""
    ofs, length = lumps[index]
    size = struct.calcsize(fmt)
    return [struct.unpack_from(fmt, data, ofs + i * size) for i in range(length // size)]


def bspkit_json(bspkit, *args, ok_codes=(0,)):
    """The JSON a bspkit command prints; an exit code outside `ok_codes` raises."""
    out = subprocess.run([bspkit, *args, "--json"], check=False, capture_output=True)
    if out.returncode not in ok_codes:
        raise RuntimeError(f"bspkit {' '.join(args)}: exit {out.returncode}: {out.stderr.decode()}")
    return json.loads(out.stdout)


def dump_records(bspkit, path, lump, ok_codes=(0,)):
    return bspkit_json(bspkit, "dump", path, lump, ok_codes=ok_codes)["tables"][0]["records"]
