#!/usr/bin/env python3
"""`bspkit deps --json` on the little-endian Source and the GoldSrc maps of
the corpus (no game directory given), checked against what is read here
with struct and zipfile:

  - every texture data record's name (its TEXDATA_STRING_TABLE entry into
    TEXDATA_STRING_DATA) is listed as the material materials/NAME.vmt;
  - a dependency is "map" exactly when the PAKFILE lump's zip holds its path
    (names compared ignoring case and '\\' against '/'), else "missing";
  - every .vtf a packed material's $basetexture names is listed;
  - GoldSrc: the WADs are the file names of worldspawn's "wad" items, and
    every miptex is listed, "map" when it carries its pixels (first mip
    offset not 0), else "missing";
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


def run_deps(bspkit, rel, path):
    r = subprocess.run([bspkit, "deps", path, "--json"], capture_output=True)
    if r.returncode not in (0, 1):
        fail(rel, f"deps exit {r.returncode}: {r.stderr.decode(errors='replace').strip()}")
        return None
    j = json.loads(r.stdout)
    if (r.returncode == 1) != (j["missing"] > 0) or j["missing"] != sum(d["where"] == "missing" for d in j["deps"]):
        fail(rel, f"exit {r.returncode} with {j['missing']} missing")
    return j


def check_source(bspkit, rel, path):
    """True when checked, None when the map's lumps cannot be read here."""
    data = open(path, "rb").read()
    lump = [struct.unpack_from("<2i", data, 8 + 16 * i) for i in range(64)]
    if data[lump[0][0]:lump[0][0] + 1] not in (b"{", b"L"):
        lump = [struct.unpack_from("<2i", data, 12 + 16 * i) for i in range(64)]  # Left 4 Dead 2 order
    sofs, slen = lump[43]
    tofs, tlen = lump[44]
    if data[sofs:sofs + 4] == b"LZMA" or data[tofs:tofs + 4] == b"LZMA":
        return None  # compressed string lumps: read through bspkit only
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
            return None
    j = run_deps(bspkit, rel, path)
    if j is None:
        return False
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
    return any(d["where"] == "map" for d in j["deps"])


def check_goldsrc(bspkit, rel, path):
    """The WADs of worldspawn "wad" and every miptex (embedded when its first mip offset is not 0)."""
    data = open(path, "rb").read()
    lumps = [struct.unpack_from("<2i", data, 4 + 8 * i) for i in range(15)]
    ents = data[lumps[0][0]:lumps[0][0] + lumps[0][1]]
    tex_lump = 2
    if ents.lstrip()[:1] != b"{":  # Blue Shift: ENTITIES and PLANES swapped
        ents = data[lumps[1][0]:lumps[1][0] + lumps[1][1]]
    m = re.search(rb'"wad"\s*"([^"]*)"', ents.split(b"}", 1)[0])
    wads = set()
    for item in (m.group(1).decode("latin-1").split(";") if m else []):
        base = re.split(r"[\\/]", item)[-1].lower()
        if base:
            wads.add(base)
    tofs, tlen = lumps[tex_lump]
    textures = {}
    if tlen >= 4:
        (count,) = struct.unpack_from("<i", data, tofs)
        for k in range(count):
            (o,) = struct.unpack_from("<i", data, tofs + 4 + 4 * k)
            if o < 0:
                continue
            name = data[tofs + o:tofs + o + 16].split(b"\0", 1)[0].decode("latin-1").lower()
            (mip0,) = struct.unpack_from("<I", data, tofs + o + 24)
            if name:
                textures[name] = "map" if mip0 else "missing"
    j = run_deps(bspkit, rel, path)
    if j is None:
        return False
    got_wads = {d["path"] for d in j["deps"] if d["kind"] == "wad"}
    got_tex = {d["path"]: d["where"] for d in j["deps"] if d["kind"] == "texture"}
    if got_wads != wads:
        fail(rel, f"WADs {sorted(got_wads)}, the worldspawn names {sorted(wads)}")
    if got_tex != textures:
        diff = {k: (got_tex.get(k), textures.get(k)) for k in set(got_tex) | set(textures) if got_tex.get(k) != textures.get(k)}
        fail(rel, f"textures differ (bspkit, here): {dict(list(diff.items())[:5])}")
    return True


def main():
    bspkit, maps = sys.argv[1], sys.argv[2]
    rows = independent.manifest_rows(maps)
    if rows is None:
        return 0
    source = packed = goldsrc = 0
    for f in rows:
        if len(f) < 6:
            continue
        rel, path = f[0], os.path.join(maps, f[0])
        if f[5].startswith("vbsp") and f[5] != "vbsp-be":
            res = check_source(bspkit, rel, path)
            source += res is not None
            packed += bool(res)
        elif f[5] == "goldsrc30":
            goldsrc += check_goldsrc(bspkit, rel, path)
    print(f"{source} Source maps' dependencies agree with their texture data and pakfile ({packed} with packed "
          f"ones), {goldsrc} GoldSrc maps' with their WAD key and miptex; {independent.failures} failures")
    if source < 30 or goldsrc < 20:
        fail("corpus", f"only {source} Source and {goldsrc} GoldSrc maps checked")
    return 1 if independent.failures else 0


if __name__ == "__main__":
    sys.exit(main())
