#!/usr/bin/env python3
"""Quake 2 corpus maps (IBSP 38) decompiled by bspkit and compiled again by a
real compiler (ericw-tools' `qbsp -q2bsp`): the recompiled map must hold the
same solid and open space as the original at 2,000 seeded points inside the
world's bounds (at least 99.9 % agreement per map).

Contents are read through the shared library with ctypes, so the comparison
uses bspkit's own point query on both maps, whose correctness the query tests
cover separately.

Usage: quake2_decompile_qbsp.py BSPKIT LIBBSPKIT MAPS_DIR QBSP
(skips, saying so, when MAPS_DIR or a runnable QBSP is absent)
"""
import ctypes
import os
import random
import struct
import subprocess
import sys
import tempfile

POINTS = 2000
NEEDED = 0.999
SOLID = 1  # Quake 2 CONTENTS_SOLID


class Vec3(ctypes.Structure):
    _fields_ = [("x", ctypes.c_float), ("y", ctypes.c_float), ("z", ctypes.c_float)]


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    bspkit, libpath, root, qbsp = sys.argv[1:]
    if not os.path.isdir(root):
        print(f"skipped: {root} not present")
        return 0
    probe = subprocess.run([qbsp], capture_output=True) if os.access(qbsp, os.X_OK) else None
    if probe is None or probe.returncode == 127:
        print(f"skipped: {qbsp} does not run here")
        return 0
    lib = ctypes.CDLL(libpath)
    lib.bspkit_open_file.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    lib.bspkit_point_contents.argtypes = [ctypes.c_void_p, Vec3, ctypes.c_int, ctypes.POINTER(ctypes.c_int32),
                                          ctypes.c_void_p]
    lib.bspkit_close.argtypes = [ctypes.c_void_p]
    err = ctypes.create_string_buffer(1024)

    def open_map(path):
        m = ctypes.c_void_p()
        if lib.bspkit_open_file(path.encode(), None, ctypes.byref(m), err) != 0:
            raise RuntimeError(f"cannot open {path}")
        return m

    def solid(m, p):
        c = ctypes.c_int32()
        if lib.bspkit_point_contents(m, Vec3(*p), 0, ctypes.byref(c), err) != 0:
            raise RuntimeError("point query failed")
        return (c.value & SOLID) != 0

    failures = checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for base, _, files in sorted(os.walk(root)):
            for name in sorted(files):
                path = os.path.join(base, name)
                if not name.lower().endswith(".bsp"):
                    continue
                with open(path, "rb") as f:
                    head = f.read(8)
                if head[:4] != b"IBSP" or struct.unpack("<i", head[4:8])[0] != 38:
                    continue
                rel = os.path.relpath(path, root)
                src, out = os.path.join(tmp, "d.map"), os.path.join(tmp, "d.bsp")
                r = subprocess.run([bspkit, "decompile", path, "-o", src], capture_output=True, text=True)
                if r.returncode != 0:
                    print(f"FAIL {rel}: decompile: {r.stderr.strip()}")
                    failures += 1
                    continue
                r = subprocess.run([qbsp, "-q2bsp", src, out], capture_output=True, text=True, timeout=600)
                if r.returncode != 0 or not os.path.exists(out):
                    print(f"FAIL {rel}: qbsp -q2bsp failed: {r.stdout.strip()[-300:]}")
                    failures += 1
                    continue
                a, b = open_map(path), open_map(out)
                # World bounds from model 0 (MODELS lump of the original, qfiles.h dmodel_t).
                with open(path, "rb") as f:
                    data = f.read()
                ofs = struct.unpack_from("<i", data, 8 + 8 * 13)[0]
                mins = struct.unpack_from("<3f", data, ofs)
                maxs = struct.unpack_from("<3f", data, ofs + 12)
                rng = random.Random(rel)
                agree = 0
                for _ in range(POINTS):
                    p = [rng.uniform(mins[k], maxs[k]) for k in range(3)]
                    agree += solid(a, p) == solid(b, p)
                lib.bspkit_close(a)
                lib.bspkit_close(b)
                share = agree / POINTS
                checked += 1
                status = "ok" if share >= NEEDED else "FAIL"
                print(f"{status} {rel}: {100 * share:.2f}% of {POINTS} points agree")
                failures += share < NEEDED
    print(f"{checked} Quake 2 maps decompiled and recompiled, {failures} failures")
    return 1 if failures or checked == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
