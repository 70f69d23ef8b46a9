"""Re-encode `bspkit dump --json` records with the struct layouts of the
format documents and compare them with the lump's bytes from
`bspkit lump extract`. Checks the decoder and the dump's field names at once,
independently of bspkit's own structs.

usage: dump_reencode.py BSPKIT MAP FAMILY ENDIAN LUMP...
"""
import json
import re
import struct
import subprocess
import sys

# name: (struct format without byte order, field order, padding byte offsets)
SOURCE = {
    "PLANES": ("3ffi", ["normal", "dist", "type"], []),
    "VERTEXES": ("3f", ["point"], []),
    "EDGES": ("2H", ["v"], []),
    "SURFEDGES": ("i", ["surfedge"], []),
    "FACES": ("HBBihhhh4Bif2i2iiHHI", ["planenum", "side", "onNode", "firstedge", "numedges", "texinfo",
                                         "dispinfo", "surfaceFogVolumeID", "styles", "lightofs", "area",
                                         "m_LightmapTextureMinsInLuxels", "m_LightmapTextureSizeInLuxels",
                                         "origFace", "m_NumPrims", "firstPrimID", "smoothingGroups"], []),
    "NODES": ("i2i3h3hHHh2x", ["planenum", "children", "mins", "maxs", "firstface", "numfaces", "area"], [30, 31]),
    "TEXINFO": ("8f8fii", ["textureVecsTexelsPerWorldUnits", "lightmapVecsLuxelsPerWorldUnits", "flags", "texdata"], []),
    "MODELS": ("3f3f3fiii", ["mins", "maxs", "origin", "headnode", "firstface", "numfaces"], []),
    "BRUSHES": ("iii", ["firstside", "numsides", "contents"], []),
    "TEXDATA": ("3fiiiii", ["reflectivity", "nameStringTableID", "width", "height", "view_width", "view_height"], []),
    "AREAS": ("ii", ["numareaportals", "firstareaportal"], []),
    "AREAPORTALS": ("HHHHi", ["m_PortalKey", "otherarea", "m_FirstClipPortalVert", "m_nClipPortalVerts",
                               "planenum"], []),
    "LEAFFACES": ("H", ["leafface"], []),
    "LEAFBRUSHES": ("H", ["leafbrush"], []),
    "TEXDATA_STRING_TABLE": ("i", ["offset"], []),
}
SOURCE["ORIGINALFACES"] = SOURCE["FACES_HDR"] = SOURCE["FACES"]
QUAKE = {
    "PLANES": SOURCE["PLANES"],
    "VERTEXES": SOURCE["VERTEXES"],
    "EDGES": SOURCE["EDGES"],
    "SURFEDGES": SOURCE["SURFEDGES"],
    "FACES": ("HHiHH4Bi", ["planenum", "side", "firstedge", "numedges", "texinfo", "styles", "lightofs"], []),
    "NODES": ("I2h3h3hHH", ["planenum", "children", "mins", "maxs", "firstface", "numfaces"], []),
    "LEAFS": ("ii3h3hHH4B", ["contents", "visofs", "mins", "maxs", "firstmarksurface", "nummarksurfaces",
                             "ambient_level"], []),
    "MODELS": ("3f3f3f4iiii", ["mins", "maxs", "origin", "headnode", "visleafs", "firstface", "numfaces"], []),
    "TEXINFO": ("8fii", ["vecs", "miptex", "flags"], []),
    "CLIPNODES": ("i2h", ["planenum", "children"], []),
    "MARKSURFACES": ("H", ["marksurface"], []),
}


def flatten(record, names):
    values = []
    for name in names:
        v = record[name]
        values.extend(v if isinstance(v, list) else [v])
    return values


def source_leaf(record):
    """dleaf_t version 1: area and flags share one 16-bit field (area:9, flags:7)."""
    bits = record["area"] | (record["flags"] << 9)
    return ("ihH3h3hHHHHh2x", [record["contents"], record["cluster"], bits] +
            flatten(record, ["mins", "maxs", "firstleafface", "numleaffaces", "firstleafbrush",
                             "numleafbrushes", "leafWaterDataID"]), [30, 31])


def pack(order, fmt, values):
    """struct.pack, turning integral floats (short bounds decode to floats) into ints for integer codes."""
    codes = [c for c in "".join(c * int(n or 1) for n, c in re.findall(r"(\d*)([a-zA-Z])", fmt)) if c != "x"]
    fixed = []
    for code, v in zip(codes, values):
        if code not in "fd" and isinstance(v, float):
            if v != int(v):
                sys.exit(f"integer field holds {v}")
            v = int(v)
        fixed.append(v)
    return struct.pack(order + fmt, *fixed)


def main():
    bspkit, path, family, endian = sys.argv[1:5]
    order = "<" if endian == "little" else ">"
    layouts = SOURCE if family == "source" else QUAKE
    checked = 0
    for lump in sys.argv[5:]:
        dump = json.loads(subprocess.run([bspkit, "dump", path, lump, "--json"], check=True,
                                         capture_output=True).stdout)
        raw = subprocess.run([bspkit, "lump", path, "extract", lump], check=True, capture_output=True).stdout
        records = dump["tables"][0]["records"]
        if not records:
            sys.exit(f"{lump}: no records to compare")
        out = bytearray()
        pads = []
        for rec in records:
            if family == "source" and lump == "LEAFS":
                fmt, values, pad = source_leaf(rec)
            else:
                fmt, names, pad = layouts[lump]
                values = flatten(rec, names)
            pads += [len(out) + p for p in pad]
            out += pack(order, fmt, values)
        got = bytearray(raw)
        for p in pads:  # padding is not decoded
            got[p] = 0
        if bytes(out) != bytes(got):
            first = next(i for i in range(min(len(out), len(got))) if out[i] != got[i]) \
                if len(out) == len(got) else min(len(out), len(got))
            sys.exit(f"{lump}: re-encoded records differ from the lump bytes at byte {first} "
                     f"({len(out)} vs {len(got)} bytes)")
        checked += len(records)
    print(f"ok {len(sys.argv) - 5} lumps, {checked} records")


main()
