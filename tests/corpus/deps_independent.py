#!/usr/bin/env python3
"""`bspkit deps --json` on the little-endian Source maps of the corpus (no
game directory given), checked against what is read here with struct and
zipfile:

  - every texture data record's name (its TEXDATA_STRING_TABLE entry into
    TEXDATA_STRING_DATA) is listed as the material materials/NAME.vmt;
  - a dependency is "map" exactly when the PAKFILE lump's zip holds its path
    (names compared ignoring case and '\\' against '/'), else "missing";
  - every .vtf a packed material's $basetexture names is listed;
  - the exit status is 1 exactly when something is missing.

Usage: deps_independent.py BSPKIT MAPS_DIR   (skips, saying so, when MAPS_DIR is absent)
"""
import io
import json
import os
import re
import struct
import subprocess
import sys
import zipfile

import independent
from independent import fail

BASETEXTURE = re.compile(rb'"?\$basetexture"?\s+"?([^"\s}]+)', re.IGNORECASE)


def norm(name):
    return re.sub("/+", "/", name.replace("\\", "/").lower().lstrip("/"))


def main():
    bspkit, maps = sys.argv[1], sys.argv[2]
    rows = independent.manifest_rows(maps)
    if rows is None:
        return 0
    checked = packed_maps = 0
    for f in rows:
        if len(f) < 6 or not f[5].startswith("vbsp") or f[5] == "vbsp-be":
            continue
        rel, path = f[0], os.path.join(maps, f[0])
        data = open(path, "rb").read()
        lump = [struct.unpack_from("<2i", data, 8 + 16 * i) for i in range(64)]
        if data[lump[0][0]:lump[0][0] + 1] not in (b"{", b"L"):
            lump = [struct.unpack_from("<2i", data, 12 + 16 * i) for i in range(64)]  # Left 4 Dead 2 order
        sofs, slen = lump[43]
        tofs, tlen = lump[44]
        if data[sofs:sofs + 4] == b"LZMA" or data[tofs:tofs + 4] == b"LZMA":
            continue  # compressed string lumps: read through bspkit only
        dofs, dlen = lump[2]
        strings = data[sofs:sofs + slen]
        table = [o for (o,) in struct.iter_unpack("<i", data[tofs:tofs + tlen])]
        names = set()
        # dtexdata_t: reflectivity (3 floats), nameStringTableID, width, height, view_width, view_height
        for rec in struct.iter_unpack("<3f5i", data[dofs:dofs + dlen - dlen % 32]):
            o = table[rec[3]]
            n = norm(strings[o:strings.index(b"\0", o)].decode("latin-1"))
            names.add(n[:-4] if n.endswith(".vmt") else n)  # a name written with its extension keeps it once
        pofs, plen = lump[40]
        zipped = {}
        if plen:
            try:
                z = zipfile.ZipFile(io.BytesIO(data[pofs:pofs + plen]))
                zipped = {norm(i.filename): i for i in z.infolist()}
            except zipfile.BadZipFile:
                continue
        r = subprocess.run([bspkit, "deps", path, "--json"], capture_output=True)
        if r.returncode not in (0, 1):
            fail(rel, f"deps exit {r.returncode}: {r.stderr.decode(errors='replace').strip()}")
            continue
        j = json.loads(r.stdout)
        listed = {(d["kind"], d["path"]): d for d in j["deps"]}
        for n in names:
            if ("material", f"materials/{n}.vmt") not in listed:
                fail(rel, f"texdata {n} not listed")
        for (kind, p), d in listed.items():
            want = "map" if p in zipped else "missing"
            if d["where"] != want:
                fail(rel, f"{kind} {p}: {d['where']}, the pakfile says {want}")
            if kind == "material" and p in zipped:
                try:
                    m = BASETEXTURE.search(z.read(zipped[p].filename))
                except Exception:  # a damaged entry (bad CRC) or a method zipfile lacks: not followed
                    m = None
                if m:
                    tex = f"materials/{norm(m.group(1).decode('latin-1'))}"
                    tex = tex if tex.endswith(".vtf") else tex + ".vtf"
                    if ("texture", tex) not in listed:
                        fail(rel, f"{p}: $basetexture {tex} not listed")
        if (r.returncode == 1) != (j["missing"] > 0) or j["missing"] != sum(
                d["where"] == "missing" for d in j["deps"]):
            fail(rel, f"exit {r.returncode} with {j['missing']} missing")
        checked += 1
        packed_maps += any(d["where"] == "map" for d in j["deps"])
    print(f"{checked} Source maps' dependencies agree with their texture data and pakfile "
          f"({packed_maps} with packed ones); {independent.failures} failures")
    if checked < 30:
        fail("corpus", f"only {checked} maps checked")
    return 1 if independent.failures else 0


if __name__ == "__main__":
    sys.exit(main())
