"""What the independent corpus readers (quake2_independent.py,
quake3_independent.py, titanfall_independent.py) share: failure counting, record arrays read with
struct from a directory of (offset, length) pairs, and bspkit's JSON output."""
import json
import struct
import subprocess

failures = 0


def fail(rel, msg):
    global failures
    failures += 1
    print(f"FAIL {rel}: {msg}")


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
