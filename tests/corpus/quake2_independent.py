#!/usr/bin/env python3
"""Quake 2 and Daikatana maps of the corpus, read a second time with Python's
struct module straight from qfiles.h, compared with what bspkit reports:

  - every record lump's count (`bspkit info --json`),
  - each face's planenum/numedges/texinfo/lightofs, each texinfo's texture
    name and flags, each leaf's cluster/area and each brush side's plane
    (`bspkit dump --json`),
  - the visibility cluster count against the largest leaf cluster.

Usage: quake2_independent.py BSPKIT MAPS_DIR   (skips, saying so, when MAPS_DIR is absent)
"""
import os
import struct
import sys

import independent
from independent import bspkit_json, dump_records, fail, records

# lump index: (key in `info --json` counts, record size)
RECORDS = {
    1: ("planes", 20), 2: ("vertexes", 12), 4: ("nodes", 28), 5: ("texinfo", 76), 6: ("faces", 20),
    8: ("leafs", 28), 9: ("leaffaces", 2), 10: ("leafbrushes", 2), 11: ("edges", 4), 12: ("surfedges", 4),
    13: ("models", 48), 14: ("brushes", 12), 15: ("brushsides", 4), 17: ("areas", 8), 18: ("areaportals", 8),
}


def read_map(path):
    data = open(path, "rb").read()
    if len(data) < 8 or data[:4] != b"IBSP":
        return None
    version = struct.unpack_from("<i", data, 4)[0]
    if version not in (38, 41):
        return None
    count = 21 if version == 41 else 19
    lumps = [struct.unpack_from("<ii", data, 8 + 8 * i) for i in range(count)]
    return data, version, lumps


def check(bspkit, root, rel):
    path = os.path.join(root, rel)
    parsed = read_map(path)
    if parsed is None:
        return False
    data, version, lumps = parsed
    info = bspkit_json(bspkit, "info", path)
    if info["format"] != "quake2" or info["version"] != version:
        fail(rel, f"detected as {info['format']} {info['version']}, expected quake2 {version}")
        return True
    for index, (key, size) in RECORDS.items():
        want = lumps[index][1] // size
        got = info["counts"].get(key)
        if got != want:
            fail(rel, f"{key}: bspkit counts {got}, the directory gives {want}")

    faces = records(data, lumps, 6, "<HhihhBBBBi")
    dumped = dump_records(bspkit, path, "faces")
    for i, (f, d) in enumerate(zip(faces, dumped)):
        want = {"planenum": f[0], "numedges": f[3], "texinfo": f[4], "lightofs": f[9]}
        got = {k: d[k] for k in want}
        if got != want:
            fail(rel, f"face {i}: bspkit {got}, struct {want}")
            break

    texinfo = records(data, lumps, 5, "<8fii32si")
    dumped = dump_records(bspkit, path, "texinfo")
    for i, (t, d) in enumerate(zip(texinfo, dumped)):
        name = t[10].split(b"\0")[0].decode("latin-1")
        if d["texture"] != name or d["flags"] != t[8] or d["value"] != t[9] or d["nexttexinfo"] != t[11]:
            fail(rel, f"texinfo {i}: bspkit {d}, struct name {name!r} flags {t[8]} value {t[9]} next {t[11]}")
            break

    leafs = records(data, lumps, 8, "<ihh6h4H")
    dumped = dump_records(bspkit, path, "leafs")
    for i, (lf, d) in enumerate(zip(leafs, dumped)):
        if (d["contents"], d["cluster"], d["area"]) != lf[:3]:
            fail(rel, f"leaf {i}: bspkit {d}, struct {lf[:3]}")
            break

    sides = records(data, lumps, 15, "<Hh")
    dumped = dump_records(bspkit, path, "brushsides")
    for i, (s, d) in enumerate(zip(sides, dumped)):
        if (d["planenum"], d["texinfo"]) != s:
            fail(rel, f"brush side {i}: bspkit {d}, struct {s}")
            break

    vis_ofs, vis_len = lumps[3]
    if vis_len >= 4:
        clusters = struct.unpack_from("<i", data, vis_ofs)[0]
        biggest = max((lf[1] for lf in leafs), default=-1)
        if biggest >= clusters:
            fail(rel, f"leaf cluster {biggest} but VISIBILITY holds {clusters} clusters")
    print(f"ok {rel}: IBSP {version}, {len(faces)} faces, {len(texinfo)} texinfo, {len(leafs)} leafs")
    return True


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bspkit, root = sys.argv[1], sys.argv[2]
    if not os.path.isdir(root):
        print(f"skipped: {root} not present")
        return 0
    seen = 0
    for base, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if name.lower().endswith(".bsp"):
                rel = os.path.relpath(os.path.join(base, name), root)
                seen += check(bspkit, root, rel)
    print(f"{seen} Quake 2 / Daikatana maps compared, {independent.failures} failures")
    if seen == 0:
        print("FAIL: the corpus holds no Quake 2 map")
        return 1
    return 1 if independent.failures else 0


if __name__ == "__main__":
    sys.exit(main())
