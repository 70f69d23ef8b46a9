#!/usr/bin/env python3
"""`bspkit size --json` on every map of the corpus, checked against the lump
directory read here with struct from the published header layouts:

  - every lump's offset and length are the directory's;
  - header, lumps and padding add up to the file size exactly, and so do the
    groups; each lump's unique bytes, the header and the padding are what
    this file computes from the directory (header first, then the lumps by
    offset, each credited with the bytes no earlier range holds);
  - Source pakfiles: the entry count and stored bytes Python's zipfile reads
    from the PAKFILE lump, by extension and top directory, and the cubemap
    textures (materials/maps/*/c*_*_*.vtf, case-insensitive); where there are
    cubemaps, `bspkit pak remove` of them really shrinks the PAKFILE lump
    (read back here) by the saving reported; on a few small ones the savings
    --measure-compression reports are what `bspkit convert --compress` (file
    size) and `bspkit pak repack --lzma` (PAKFILE length) really save.

Usage: size_independent.py BSPKIT MAPS_DIR   (skips, saying so, when MAPS_DIR is absent)
"""
import fnmatch
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

import independent
from independent import fail

FORMATS = {"quake29", "bsp2", "goldsrc30", "ibsp38", "ibsp41", "ibsp46", "ibsp47", "rbsp37", "vbsp-be",
           "vbsp17", "vbsp19", "vbsp20", "vbsp21", "vbsp25", "vbsp42"}
CUBEMAP = "materials/maps/*/c*_*_*.vtf"


def directory(path, data, info):
    """(header size, [(offset, length, external)]) from the header bytes."""
    magic = data[:4]
    if magic in (b"VBSP", b"PSBV"):
        end = "<" if magic == b"VBSP" else ">"
        n = 64
        entries = [struct.unpack_from(end + "4i", data, 8 + 16 * i) for i in range(n)]
        lumps = [(e[0], e[1], False) for e in entries]
        ent_ofs = lumps[0][0]
        if not (0 < ent_ofs < len(data) and data[ent_ofs:ent_ofs + 1] in (b"{", b"L")):
            lumps = [(e[1], e[2], False) for e in entries]  # Left 4 Dead 2: version, offset, length, fourCC
        return 8 + 16 * n + 4, lumps
    if magic == b"rBSP":
        lumps = []
        for i in range(128):
            ofs, length = struct.unpack_from("<2i", data, 16 + 16 * i)
            external = os.path.exists(f"{path}.{i:04x}.bsp_lump")
            lumps.append((ofs, length, external))
        return 16 + 16 * 128, lumps
    if magic == b"IBSP":
        n = len(info["lumps"])  # 17 or 18 for Quake 3 (Quake Live adds one): the count is bspkit's
        return 8 + 8 * n, [struct.unpack_from("<2i", data, 8 + 8 * i) + (False,) for i in range(n)]
    # Quake BSP29/BSP2/2PSB and GoldSrc BSP30: a 4-byte version or magic, then 15 pairs.
    return 4 + 8 * 15, [struct.unpack_from("<2i", data, 4 + 8 * i) + (False,) for i in range(15)]


def expected_counts(size, header, lumps):
    header = min(header, size)
    spans = sorted((ofs, i, length) for i, (ofs, length, ext) in enumerate(lumps) if length > 0 and not ext)
    unique = [0] * len(lumps)
    covered, padding = header, 0
    for ofs, i, length in spans:
        end = min(ofs + length, size)
        if ofs > covered:
            padding += ofs - covered
        unique[i] = max(0, end - max(ofs, covered))
        covered = max(covered, end)
    trailing = size - covered
    return header, unique, padding + trailing, trailing


def check_pak(bspkit, rel, path, data, lumps, j, tmp):
    pak = j["pakfile"]
    ofs, length, _ = lumps[40]
    if length == 0:
        if pak is not None:
            fail(rel, "pakfile reported for an empty PAKFILE lump")
        return
    zbytes = data[ofs:ofs + length]
    try:
        z = zipfile.ZipFile(io.BytesIO(zbytes))
        infos = z.infolist()
    except zipfile.BadZipFile:
        return  # e.g. an Xbox 360 archive Python's zipfile does not take; nothing to compare with
    if not pak or not pak["read"]:
        fail(rel, "zipfile reads the pakfile, bspkit did not")
        return
    stored = sum(i.compress_size for i in infos)
    if (pak["entries"], pak["data_bytes"], pak["bytes"]) != (len(infos), stored, length):
        fail(rel, f"pakfile {pak['entries']} entries {pak['data_bytes']} bytes, zipfile {len(infos)} {stored}")
    by_ext, by_dir = {}, {}
    for i in infos:
        base = i.filename.rsplit("/", 1)[-1]
        ext = base.rsplit(".", 1)[1].lower() if "." in base and not base.endswith(".") else "(none)"
        top = i.filename.split("/", 1)[0].lower() if "/" in i.filename else "(root)"
        for d, k in ((by_ext, ext), (by_dir, top)):
            c, b = d.get(k, (0, 0))
            d[k] = (c + 1, b + i.compress_size)
    for name, d in (("by_extension", by_ext), ("by_directory", by_dir)):
        got = {x["name"]: (x["count"], x["bytes"]) for x in pak[name]}
        if got != d:
            fail(rel, f"pakfile {name} {got}, zipfile {d}")
    cubes = [i for i in infos if fnmatch.fnmatchcase(i.filename.lower(), CUBEMAP)]
    want = (len(cubes), sum(i.compress_size for i in cubes))
    if (pak["cubemaps"]["count"], pak["cubemaps"]["bytes"]) != want:
        fail(rel, f"cubemaps {pak['cubemaps']}, zipfile {want}")
    if not cubes:
        return
    saving = next((s for s in j["savings"] if s["what"] == "cubemap textures"), None)
    if saving is None:
        fail(rel, "cubemaps present but no saving listed")
        return
    out = os.path.join(tmp, "nocube.bsp")
    r = subprocess.run([bspkit, "pak", path, "remove", CUBEMAP, "-o", out], capture_output=True)
    if r.returncode != 0:
        fail(rel, f"pak remove exit {r.returncode}")
        return
    new_len = directory(out, open(out, "rb").read(), None)[1][40][1]
    if length - new_len != saving["bytes"] or saving["entries"] != len(cubes):
        fail(rel, f"saving {saving['bytes']} bytes / {saving['entries']} entries; pak remove shrank the "
                  f"lump by {length - new_len} bytes, {len(cubes)} cubemaps")


def check_compression(bspkit, rel, path, data, tmp):
    """--measure-compression against the files `convert --compress` and `pak repack --lzma` really write."""
    r = subprocess.run([bspkit, "size", path, "--json", "--measure-compression"], capture_output=True)
    if r.returncode != 0:
        fail(rel, f"size --measure-compression exit {r.returncode}")
        return False
    savings = {s["command"].split()[1]: s for s in json.loads(r.stdout)["savings"]}
    conv, repack = os.path.join(tmp, "compressed.bsp"), os.path.join(tmp, "repacked.bsp")
    if subprocess.run([bspkit, "convert", path, "--compress", "-o", conv], capture_output=True).returncode != 0 or \
            subprocess.run([bspkit, "pak", path, "repack", "--lzma", "-o", repack], capture_output=True).returncode:
        fail(rel, "convert --compress or pak repack --lzma failed")
        return False
    want_convert = max(0, len(data) - os.path.getsize(conv))
    old_pak = directory(path, data, None)[1][40][1]
    new_pak = directory(repack, open(repack, "rb").read(), None)[1][40][1]
    got = (savings.get("convert", {}).get("bytes"), savings.get("pak", {}).get("bytes"))
    if got != (want_convert, max(0, old_pak - new_pak)):
        fail(rel, f"compression savings {got}, the commands save {want_convert} and {max(0, old_pak - new_pak)}")
        return False
    return True


def main():
    bspkit, maps = sys.argv[1], sys.argv[2]
    rows = independent.manifest_rows(maps)
    if rows is None:
        return 0
    checked = paks = cubes = measured = 0
    with tempfile.TemporaryDirectory() as tmp:
        for f in rows:
            if len(f) < 6 or f[5] not in FORMATS:
                continue
            rel, path = f[0], os.path.join(maps, f[0])
            r = subprocess.run([bspkit, "size", path, "--json"], capture_output=True)
            if r.returncode != 0:
                fail(rel, f"size exit {r.returncode}: {r.stderr.decode(errors='replace').strip()}")
                continue
            j = json.loads(r.stdout)
            data = open(path, "rb").read()
            header, lumps = directory(path, data, j)
            if len(lumps) != len(j["lumps"]):
                fail(rel, f"{len(j['lumps'])} lumps, the header has {len(lumps)}")
                continue
            want_header, unique, padding, trailing = expected_counts(len(data), header, lumps)
            got = j["lumps"]
            for i, (ofs, length, ext) in enumerate(lumps):
                if ext != got[i]["external"] or (not ext and (got[i]["offset"], got[i]["length"]) != (ofs, length)):
                    fail(rel, f"lump {i}: {got[i]['offset']}+{got[i]['length']}, the header says {ofs}+{length}")
                elif got[i]["unique_bytes"] != unique[i]:
                    fail(rel, f"lump {i}: {got[i]['unique_bytes']} unique bytes, computed here {unique[i]}")
            if (j["header_bytes"], j["padding_bytes"], j["trailing_bytes"]) != (want_header, padding, trailing):
                fail(rel, f"header/padding/trailing {j['header_bytes']}/{j['padding_bytes']}/{j['trailing_bytes']}, "
                          f"computed {want_header}/{padding}/{trailing}")
            total = want_header + padding + sum(unique)
            if total != len(data) or sum(j["groups"].values()) != len(data) or j["size"] != len(data):
                fail(rel, f"parts {total}, groups {sum(j['groups'].values())}, file {len(data)}")
            if data[:4] == b"VBSP":
                check_pak(bspkit, rel, path, data, lumps, j, tmp)
                paks += j["pakfile"] is not None
                cubes += bool(j["pakfile"] and j["pakfile"]["cubemaps"]["count"])
                # LZMA over a whole map takes a while: the small maps with packed files only.
                if j["pakfile"] and j["pakfile"]["entries"] and len(data) < 1000000 and measured < 4:
                    measured += check_compression(bspkit, rel, path, data, tmp)
            checked += 1
    print(f"{checked} maps add up to their file size; {paks} pakfiles compared with zipfile, "
          f"{cubes} with cubemaps whose removal saves what was reported, {measured} whose LZMA savings are "
          f"what convert --compress and pak repack --lzma save; {independent.failures} failures")
    if checked < 100 or measured < 2:
        fail("corpus", f"only {checked} maps checked, {measured} measured")
    return 1 if independent.failures else 0


if __name__ == "__main__":
    sys.exit(main())
