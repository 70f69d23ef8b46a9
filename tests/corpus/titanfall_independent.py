#!/usr/bin/env python3
"""Titanfall 2 (rBSP 37) maps of the corpus, read a second time with
Python's struct module from the layouts bsp_tool documents
(branches/respawn/titanfall.py, titanfall2.py; respawn.py for the header
and the external `<map>.bsp.<xxxx>.bsp_lump` files that replace a lump),
compared with what bspkit reports:

  - every record lump's count and length, and which lumps came from an
    external file (`bspkit info --json`),
  - each mesh, material sort, model and texture data record, and the first
    and last record of the vertex, plane and index lumps (`bspkit dump --json`),
  - that the meshes' indices, counted from their material sort's vertex
    offset, lie inside their vertex lump (checked here, not by bspkit),
  - the entities: the '{' blocks of the ENTITIES lump and of each entity
    partition's `<map>_<name>.ent` file after its header line, counted here
    (the partitions named by the ENTITY_PARTITIONS lump), against the entity
    count and partitions of `bspkit info --json` and the classnames, in
    order, of `bspkit ent --json`; each partition whose file is missing must
    be named in a warning,
  - that `bspkit check` finds no error.

The three maps the corpus holds (a retail map with external lumps, a
single-file community map and bsp_tool's test map) must all be present.

Usage: titanfall_independent.py BSPKIT MAPS_DIR   (skips, saying so, when MAPS_DIR is absent)
"""
import json
import os
import struct
import subprocess
import sys

import independent
from independent import fail

EXPECTED = [
    "Syampuuh+Titanfall2/depot/r2dlc10/game/r2/maps/mp_lobby.bsp",
    "Berdox+Chroma-Null-Surf/mod/maps/mp_chroma_null_surf.bsp",
    "bsp_tool/maps/Titanfall 2/mp_crossfire.bsp",
]

# lump index: (key in `info --json` counts, struct format of one record)
RECORDS = {
    1: ("planes", "<4f"), 2: ("texdata", "<3f6i"), 3: ("vertices", "<3f"), 14: ("models", "<6f2I"),
    30: ("vertex_normals", "<3f"), 42: ("cubemaps", "<3iI"), 44: ("texdata_string_table", "<I"),
    71: ("vertex_unlit", "<2I2f4B"), 72: ("vertex_lit_flat", "<2I2f4B4f"), 73: ("vertex_lit_bump", "<2I2f4B4f2i"),
    74: ("vertex_unlit_ts", "<2I2f4B2i"), 79: ("mesh_indices", "<H"), 80: ("meshes", "<I3H2b4B2h2BHI"),
    81: ("mesh_bounds", "<8f"), 82: ("material_sorts", "<3hHi"),
}
# Mesh flags & 0x600 -> vertex lump.
VERTEX_LUMP = {0x000: 72, 0x200: 73, 0x400: 71, 0x600: 74}

partition_files_read = 0


def read_map(path):
    """Header fields and each lump's bytes: the external file when there is one."""
    data = open(path, "rb").read()
    if len(data) < 16 + 16 * 128 or data[:4] != b"rBSP" or struct.unpack_from("<i", data, 4)[0] != 37:
        return None
    revision = struct.unpack_from("<i", data, 8)[0]
    lumps, external = {}, {}
    for i in range(128):
        ofs, length, _version, _fourcc = struct.unpack_from("<4I", data, 16 + 16 * i)
        ext = f"{path}.{i:04x}.bsp_lump"
        if os.path.isfile(ext):
            external[i] = ext
            lumps[i] = open(ext, "rb").read()
        else:
            lumps[i] = data[ofs:ofs + length]
    return revision, lumps, external


def records(lumps, index):
    fmt = RECORDS[index][1]
    size = struct.calcsize(fmt)
    raw = lumps[index]
    return [struct.unpack_from(fmt, raw, k * size) for k in range(len(raw) // size)]


def blocks(text):
    """The '{' ... '}' blocks of entity text up to its first NUL, each as its
    list of quoted strings (braces inside quotes do not count)."""
    text = text.split(b"\0")[0]
    out, cur, i = [], None, 0
    while i < len(text):
        c = text[i:i + 1]
        if c == b'"':
            end = text.index(b'"', i + 1)
            if cur is not None:
                cur.append(text[i + 1:end].decode("utf-8", "replace"))
            i = end + 1
            continue
        if c == b"{":
            cur = []
        elif c == b"}" and cur is not None:
            out.append(cur)
            cur = None
        i += 1
    return out


def classname(block):
    pairs = dict(zip(block[0::2], block[1::2]))
    return pairs.get("classname")


def check_entities(bspkit, path, rel, lumps, info):
    """Entities of the lump and of the .ent files beside the map, counted here."""
    want = [classname(b) for b in blocks(lumps[0])]
    partitions_text = lumps[24].split(b"\0")[0].decode("ascii")
    names = partitions_text.split(" ")[1:] if partitions_text else []
    if partitions_text and not partitions_text.split(" ")[0].endswith("*"):
        fail(rel, f"ENTITY_PARTITIONS {partitions_text!r} does not start with the lump's marker")
    parts, missing = [], []
    for name in names:
        ent = f"{os.path.splitext(path)[0]}_{name}.ent"
        if not os.path.isfile(ent):
            parts.append({"name": name, "file": ent, "read": False, "first_entity": len(want), "entities": 0})
            missing.append(os.path.basename(ent))
            continue
        data = open(ent, "rb").read()
        header, _, body = data.partition(b"\n")
        if not header.startswith(b"ENTITIES"):
            fail(rel, f"{ent}: header {header[:20]!r}")
        found = [classname(b) for b in blocks(body)]
        parts.append({"name": name, "file": ent, "read": True, "first_entity": len(want), "entities": len(found)})
        want += found
    if info["entities"] != len(want):
        fail(rel, f"bspkit counts {info['entities']} entities, the lump and .ent files hold {len(want)}")
    got_parts = [{k: p[k] for k in ("name", "file", "read", "first_entity", "entities")}
                 for p in info.get("entity_partitions") or []]
    if got_parts != parts:
        fail(rel, f"entity partitions: bspkit {got_parts}, expected {parts}")
    ent = subprocess.run([bspkit, "ent", path, "--json"], check=False, capture_output=True)
    got = [e.get("classname") for e in json.loads(ent.stdout)]
    if got != want:
        fail(rel, f"bspkit ent: {len(got)} entities, classnames differ from the {len(want)} counted here")
    for base in missing:
        if f"warning: {base} not found" not in ent.stderr.decode():
            fail(rel, f"no warning names the missing {base}")
    return len(want), len(names) - len(missing), len(names)


# `check` exits 1 for an invalid map and still prints its report.
def bspkit_json(bspkit, *args):
    return independent.bspkit_json(bspkit, *args, ok_codes=(0, 1))


def dump(bspkit, path, lump):
    return independent.dump_records(bspkit, path, lump, ok_codes=(0, 1))


def close(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def check(bspkit, root, rel):
    path = os.path.join(root, rel)
    parsed = read_map(path)
    if parsed is None:
        fail(rel, "not an rBSP 37 file")
        return
    revision, lumps, external = parsed
    info = bspkit_json(bspkit, "info", path)
    if info["format"] != "titanfall" or info["version"] != 37 or info["revision"] != revision:
        fail(rel, f"detected as {info['format']} {info['version']} revision {info['revision']}")
        return
    for entry in info["lumps"]:
        i = entry["index"]
        if entry["external"] != external.get(i):
            fail(rel, f"lump {i}: bspkit reads it from {entry['external']}, expected {external.get(i)}")
        if i in external and entry["length"] != len(lumps[i]):
            fail(rel, f"lump {i}: length {entry['length']}, the external file holds {len(lumps[i])} bytes")
    # The texture count `info` prints is the TEXTURE_DATA record count.
    texdata = len(lumps[2]) // struct.calcsize(RECORDS[2][1])
    if info["counts"].get("textures") != texdata:
        fail(rel, f"textures: bspkit counts {info['counts'].get('textures')}, TEXTURE_DATA holds {texdata}")
    for index, (key, fmt) in RECORDS.items():
        want = len(lumps[index]) // struct.calcsize(fmt)
        if info["counts"].get(key) != want:
            fail(rel, f"{key}: bspkit counts {info['counts'].get(key)}, the lump holds {want}")

    meshes = records(lumps, 80)
    names = ["first_mesh_index", "num_triangles", "first_vertex", "num_vertices", "vertex_type", "cubemap"]
    for i, (m, d) in enumerate(zip(meshes, dump(bspkit, path, "meshes"))):
        want = dict(zip(names, m[:6]))
        want.update(styles=list(m[6:10]), luxel_origin=list(m[10:12]), luxel_offset_max=list(m[12:14]),
                    material_sort=m[14], flags=m[15])
        if {k: d[k] for k in want} != want:
            fail(rel, f"mesh {i}: bspkit {d}, struct {want}")
            break

    sorts = records(lumps, 82)
    for i, (s, d) in enumerate(zip(sorts, dump(bspkit, path, "material_sorts"))):
        got = (d["texture_data"], d["lightmap_header"], d["cubemap"], d["last_vertex"], d["vertex_offset"])
        if got != s:
            fail(rel, f"material sort {i}: bspkit {got}, struct {s}")
            break

    for i, (m, d) in enumerate(zip(records(lumps, 14), dump(bspkit, path, "models"))):
        got = (*d["mins"], *d["maxs"], d["first_mesh"], d["num_meshes"])
        if not all(close(a, b) for a, b in zip(got[:6], m[:6])) or got[6:] != m[6:]:
            fail(rel, f"model {i}: bspkit {got}, struct {m}")
            break

    string_data, table = lumps[43], records(lumps, 44)
    # `tex list`: one entry per texture data record, named through the string table.
    listed = [e["name"] for e in bspkit_json(bspkit, "tex", path, "list")["textures"]]
    want_names = [string_data[table[t[3]][0]:].split(b"\0")[0].decode("latin-1") for t in records(lumps, 2)]
    if listed != want_names:
        fail(rel, f"tex list: {len(listed)} names, the texture data give {len(want_names)} (or they differ)")
    for i, (t, d) in enumerate(zip(records(lumps, 2), dump(bspkit, path, "texdata"))):
        if (d["name_index"], d["size.width"], d["size.height"], d["flags"]) != (t[3], t[4], t[5], t[8]):
            fail(rel, f"texture data {i}: bspkit {d}, struct {t}")
            break
        # The name the string table points at, as bspkit's export names materials.
        name = string_data[table[t[3]][0]:].split(b"\0")[0]
        if not name:
            fail(rel, f"texture data {i}: empty material name")

    for index, key in ((1, "planes"), (3, "vertices"), (79, "mesh_indices"), (72, "vertex_lit_flat"),
                       (73, "vertex_lit_bump"), (71, "vertex_unlit")):
        recs = records(lumps, index)
        if not recs:
            continue
        out = bspkit_json(bspkit, "dump", path, key, "--first", str(len(recs) - 1))["tables"][0]
        if out["count"] != len(recs):
            fail(rel, f"{key}: dump gives {out['count']} records, the lump holds {len(recs)}")
        last, d = recs[-1], out["records"][0]
        flat = []
        for v in d.values():
            if isinstance(v, dict):
                flat += [v["x"], v["y"], v["z"]]
            elif isinstance(v, list):
                flat += v
            else:
                flat.append(v)
        if len(flat) != len(last) or not all(close(a, b) for a, b in zip(flat, last)):
            fail(rel, f"{key}: last record bspkit {d}, struct {last}")

    # Independent of bspkit: the geometry the exporter draws is all in range.
    indices = [r[0] for r in records(lumps, 79)]
    triangles = 0
    for i, m in enumerate(meshes):
        first, count, sort, flags = m[0], 3 * m[1], m[14], m[15]
        vertex_count = len(records(lumps, VERTEX_LUMP[flags & 0x600]))
        span = indices[first:first + count]
        if len(span) != count or sort >= len(sorts) or max(span, default=0) + sorts[sort][4] >= max(vertex_count, 1):
            fail(rel, f"mesh {i} reaches outside its indices or vertex lump")
        triangles += m[1]

    global partition_files_read
    entities, read, named = check_entities(bspkit, path, rel, lumps, info)
    partition_files_read += read

    report = bspkit_json(bspkit, "check", path)[0]
    if report["errors"] != 0 or report["status"] != "ok":
        fail(rel, f"bspkit check: {report['errors']} errors: {report['problems'][:3]}")
    print(f"ok {rel}: {len(meshes)} meshes, {triangles} triangles, {len(external)} external lumps, "
          f"{entities} entities ({read} of {named} entity partition files read)")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bspkit, root = sys.argv[1], sys.argv[2]
    if not os.path.isdir(root):
        print(f"skipped: {root} not present")
        return 0
    for rel in EXPECTED:
        if not os.path.isfile(os.path.join(root, rel)):
            fail(rel, "missing from the corpus")
            continue
        check(bspkit, root, rel)
    if partition_files_read == 0:
        fail("corpus", "no map had an entity partition file beside it (bsp_tool's mp_crossfire has two)")
    print(f"{len(EXPECTED)} Titanfall 2 maps compared, {independent.failures} failures")
    return 1 if independent.failures else 0


if __name__ == "__main__":
    sys.exit(main())
