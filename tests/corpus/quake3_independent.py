#!/usr/bin/env python3
"""Quake 3, Quake Live and RTCW maps of the corpus (IBSP 46 and 47), read a
second time with Python's struct module straight from id's qfiles.h, and
compared with what bspkit reports and writes:

  - every record lump's count (`bspkit info --json`) and the shader count,
  - each shader's name and flags, each surface's fields, each brush side's
    plane and shader, each leaf's cluster and area (`bspkit dump --json`),
  - `bspkit check`: no errors,
  - the visibility cluster count and each cluster's visible count
    (`bspkit vis --stats --json`: fewest, most, average),
  - the glTF export: one vertex per stored vertex of each planar surface and
    triangle soup, and for each Bézier patch the (8 x blocks + 1)^2 grid,
    every grid point found in the exported vertices at the position this
    script evaluates on the patch's biquadratic Bézier surface (so the
    exported patch triangles lie on the surface), and the triangle count,
  - the .map decompile: the planes that bound each brush with area (found
    here by enumerating the brush's corners) are exactly the planes of one
    output brush, and every patch comes back as a patchDef2 with the same
    control points.

Usage: quake3_independent.py BSPKIT MAPS_DIR   (skips, saying so, when MAPS_DIR is absent)
"""
import itertools
import json
import math
import os
import re
import struct
import subprocess
import sys
import tempfile

import independent
from independent import bspkit_json, dump_records, fail, records

LUMPS = 17
# lump index: (key in `info --json` counts, record size)
RECORDS = {
    1: ("shaders", 72), 2: ("planes", 16), 3: ("nodes", 36), 4: ("leafs", 48), 5: ("leafsurfaces", 4),
    6: ("leafbrushes", 4), 7: ("models", 40), 8: ("brushes", 12), 9: ("brushsides", 8), 10: ("drawverts", 44),
    11: ("drawindexes", 4), 12: ("fogs", 72), 13: ("surfaces", 104), 15: ("lightgrid", 8),
}
# dsurface_t: shaderNum, fogNum, surfaceType, firstVert, numVerts, firstIndex, numIndexes,
# lightmapNum, lightmapX, lightmapY, lightmapWidth, lightmapHeight, lightmapOrigin[3],
# lightmapVecs[3][3], patchWidth, patchHeight
SURFACE = "<12i3f9f2i"
DRAWVERT = "<3f2f2f3f4B"
STEPS = 8  # the exporter's fixed subdivision per 3 x 3 control block
GLTF_SCALE = 0.0254


def read_map(path):
    data = open(path, "rb").read()
    if len(data) < 8 or data[:4] != b"IBSP":
        return None
    version = struct.unpack_from("<i", data, 4)[0]
    if version not in (46, 47):
        return None
    lumps = [struct.unpack_from("<ii", data, 8 + 8 * i) for i in range(LUMPS)]
    return data, version, lumps


def cstr(raw):
    return raw.split(b"\0", 1)[0].decode("latin-1")


def bezier(ctrl, w, bx, by, u, v):
    """Point of the 3 x 3 block at (bx, by) of a patch `w` control points wide."""
    bu = ((1 - u) ** 2, 2 * u * (1 - u), u * u)
    bv = ((1 - v) ** 2, 2 * v * (1 - v), v * v)
    p = [0.0, 0.0, 0.0]
    for j in range(3):
        for i in range(3):
            c = ctrl[(2 * by + j) * w + 2 * bx + i]
            for k in range(3):
                p[k] += bu[i] * bv[j] * c[k]
    return p


def key(p):
    # Exported positions are float32 (x, z, -y) * 0.0254; a grid of 1e-4 m (4 mm
    # in map units) tells points apart while absorbing float rounding.
    return tuple(round(c / 1e-4) for c in p)


def near(index, p):
    k = key(p)
    return any((k[0] + a, k[1] + b, k[2] + c) in index for a in (-1, 0, 1) for b in (-1, 0, 1) for c in (-1, 0, 1))


def glb_positions(path):
    data = open(path, "rb").read()
    jlen = struct.unpack_from("<I", data, 12)[0]
    doc = json.loads(data[20:20 + jlen])
    bin_ofs = 20 + jlen + 8
    positions, triangles = [], 0
    for mesh in doc.get("meshes", []):
        for prim in mesh["primitives"]:
            acc = doc["accessors"][prim["attributes"]["POSITION"]]
            view = doc["bufferViews"][acc["bufferView"]]
            start = bin_ofs + view.get("byteOffset", 0) + acc.get("byteOffset", 0)
            for i in range(acc["count"]):
                positions.append(struct.unpack_from("<3f", data, start + 12 * i))
            triangles += doc["accessors"][prim["indices"]]["count"] // 3
    return positions, triangles


def check_export(bspkit, rel, path, data, lumps):
    surfaces = records(data, lumps, 13, SURFACE)
    verts = records(data, lumps, 10, DRAWVERT)
    models = records(data, lumps, 7, "<6f4i")
    want_verts = want_tris = 0
    patch_points = []
    for m in models:
        for s in surfaces[m[6]:m[6] + m[7]]:
            kind, first, count, nidx, pw, ph = s[2], s[3], s[4], s[6], s[24], s[25]
            if kind in (1, 3) and count > 0 and nidx >= 3:
                want_verts += count
                want_tris += nidx // 3
            elif kind == 2:
                bw, bh = (pw - 1) // 2, (ph - 1) // 2
                gw, gh = bw * STEPS + 1, bh * STEPS + 1
                want_verts += gw * gh
                want_tris += (gw - 1) * (gh - 1) * 2
                ctrl = [verts[first + i][0:3] for i in range(count)]
                for y in range(gh):
                    by = min(y // STEPS, bh - 1)
                    for x in range(gw):
                        bx = min(x // STEPS, bw - 1)
                        patch_points.append(bezier(ctrl, pw, bx, by, (x - bx * STEPS) / STEPS,
                                                   (y - by * STEPS) / STEPS))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "map.glb")
        r = subprocess.run([bspkit, "export", path, "-o", out, "--keep", "all"], capture_output=True, text=True)
        if r.returncode != 0:
            fail(rel, f"export failed: {r.stderr.strip()}")
            return 0
        positions, tris = glb_positions(out)
    if len(positions) != want_verts:
        fail(rel, f"export has {len(positions)} vertices, the surfaces give {want_verts}")
    if tris != want_tris:
        fail(rel, f"export has {tris} triangles, the surfaces give {want_tris}")
    index = {key(p) for p in positions}
    missing = 0
    for p in patch_points:
        if not near(index, (p[0] * GLTF_SCALE, p[2] * GLTF_SCALE, -p[1] * GLTF_SCALE)):
            missing += 1
    if missing:
        fail(rel, f"{missing} of {len(patch_points)} patch grid points are not on the exported mesh")
    return len(patch_points)


def entity_models(text):
    """(model number, origin) of worldspawn and every entity naming "*N"."""
    out = []
    for block in text.split("}"):
        pairs = dict(re.findall(r'"([^"]*)"\s+"([^"]*)"', block))
        origin = (0.0, 0.0, 0.0)
        if "origin" in pairs:
            try:
                o = tuple(float(x) for x in pairs["origin"].split())
                origin = o if len(o) == 3 else origin
            except ValueError:
                pass
        if pairs.get("classname") == "worldspawn":
            out.append((0, (0.0, 0.0, 0.0)))
        elif pairs.get("model", "").startswith("*") and pairs["model"][1:].isdigit():
            out.append((int(pairs["model"][1:]), origin))
    return out


def dot(u, v):
    return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]


def cross(u, v):
    return (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])


def solve3(a, b, c):
    """The point on three planes (n, d), or None when they do not meet in one point."""
    (n1, d1), (n2, d2), (n3, d3) = a, b, c
    n23, n31, n12 = cross(n2, n3), cross(n3, n1), cross(n1, n2)
    det = dot(n1, n23)
    if abs(det) < 1e-9:
        return None
    return tuple((d1 * n23[k] + d2 * n31[k] + d3 * n12[k]) / det for k in range(3))


def plane_key(n, d):
    return (round(n[0], 3) + 0.0, round(n[1], 3) + 0.0, round(n[2], 3) + 0.0, round(d, 1) + 0.0)


def spans_area(points):
    """Whether some three of the points are not on one line (a face, not an edge or a corner)."""
    if len(points) < 3:
        return False
    a = points[0]
    b = max(points, key=lambda p: dot([p[k] - a[k] for k in range(3)], [p[k] - a[k] for k in range(3)]))
    ab = [b[k] - a[k] for k in range(3)]
    length = math.sqrt(dot(ab, ab))
    for p in points:
        c = cross(ab, [p[k] - a[k] for k in range(3)])
        # p lies off the line through a and b by more than the compilers' ON_EPSILON (0.1): a
        # narrower sliver comes from the rounding of a bevel's stored plane, not from the brush.
        if length > 0 and math.sqrt(dot(c, c)) / length > 0.1:
            return True
    return False


def area_planes(planes):
    """Keys of the planes of a convex brush that bound it with area: the
    brush's corners (three planes meeting inside every other) on them do not
    all lie on one line. Bevel planes touch it at an edge or a corner."""
    corners = []
    for i, j, k in itertools.combinations(range(len(planes)), 3):
        p = solve3(planes[i], planes[j], planes[k])
        if p and all(dot(n, p) - d <= 0.01 for n, d in planes):
            corners.append(p)
    return {plane_key(n, d) for n, d in planes if spans_area([p for p in corners if abs(dot(n, p) - d) <= 0.01])}


NUM = r"(-?[0-9.eE+-]+)"


def parse_decompiled(text):
    """Plane-key sets of the output brushes, and (w, h, control points) of its patches."""
    brushes, patches = [], []
    for block in re.findall(r"\{\n(\(.*?)\n\}", text, re.S):
        keys = set()
        for line in block.splitlines():
            p = [tuple(float(x) for x in t) for t in re.findall(r"\( " + " ".join([NUM] * 3) + r" \)", line)]
            if len(p) != 3:
                continue
            a, b, c = p
            n = cross([a[k] - b[k] for k in range(3)], [c[k] - b[k] for k in range(3)])
            ln = math.sqrt(dot(n, n))
            n = tuple(x / ln for x in n)
            keys.add(plane_key(n, dot(n, b)))
        brushes.append(frozenset(keys))
    for w, h, body in re.findall(r"patchDef2\n\{\n[^\n]*\n\( (\d+) (\d+) 0 0 0 \)\n\(\n(.*?)\n\)\n\}", text, re.S):
        w, h = int(w), int(h)
        grid = {}
        for x, line in enumerate(body.splitlines()):
            for y, v in enumerate(re.findall(r"\( " + " ".join([NUM] * 5) + r" \)", line)):
                grid[y * w + x] = tuple(round(float(v[k]), 2) for k in range(3))
        patches.append((w, h, tuple(grid.get(i) for i in range(w * h))))
    return brushes, patches


def check_decompile(bspkit, rel, path, data, lumps):
    planes = records(data, lumps, 2, "<4f")
    brushes = records(data, lumps, 8, "<3i")
    sides = records(data, lumps, 9, "<2i")
    models = records(data, lumps, 7, "<6f4i")
    surfaces = records(data, lumps, 13, SURFACE)
    verts = records(data, lumps, 10, DRAWVERT)
    ents_ofs, ents_len = lumps[0]
    want_brushes, want_patches = [], []
    for model, o in entity_models(data[ents_ofs:ents_ofs + ents_len].decode("latin-1")):
        if model >= len(models):
            continue
        m = models[model]
        for b in brushes[m[8]:m[8] + m[9]]:
            pl = []
            for s in sides[b[0]:b[0] + b[1]]:
                n, d = planes[s[0]][0:3], planes[s[0]][3]
                pl.append((n, d + dot(n, o)))
            keys = area_planes(pl)
            if len(keys) >= 4:
                want_brushes.append(frozenset(keys))
        for srf in surfaces[m[6]:m[6] + m[7]]:
            if srf[2] == 2:
                pts = tuple(tuple(round(verts[srf[3] + i][k] + o[k], 2) for k in range(3)) for i in range(srf[4]))
                want_patches.append((srf[24], srf[25], pts))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "map.map")
        r = subprocess.run([bspkit, "decompile", path, "-o", out], capture_output=True, text=True)
        if r.returncode != 0:
            fail(rel, f"decompile failed: {r.stderr.strip()}")
            return
        got_brushes, got_patches = parse_decompiled(open(out, encoding="latin-1").read())
    if sorted(map(sorted, want_brushes)) != sorted(map(sorted, got_brushes)):
        missing = len([b for b in want_brushes if b not in got_brushes])
        fail(rel, f"decompile: {len(got_brushes)} brushes written, {len(want_brushes)} in the models; "
                  f"{missing} of the map's brushes have no output brush with the same planes")
    if sorted(want_patches) != sorted(got_patches):
        fail(rel, f"decompile: {len(got_patches)} patchDef2 written, {len(want_patches)} patches in the models, "
                  f"or their control points differ")


def check_map(bspkit, rel, path, data, version, lumps):
    info = bspkit_json(bspkit, "info", path)
    counts = info["counts"]
    for index, (key_name, size) in RECORDS.items():
        want = lumps[index][1] // size
        if counts.get(key_name) != want:
            fail(rel, f"{key_name}: bspkit says {counts.get(key_name)}, the directory gives {want}")
    # The light grid: one 8-byte cell per point of the world model's bounds in steps of
    # worldspawn's gridsize (default 64 64 128), from the points at or inside them.
    ents = data[lumps[0][0]:lumps[0][0] + lumps[0][1]].decode("latin-1")
    grid = re.search(r'"gridsize"\s+"([^"]+)"', ents)
    step = [float(x) for x in grid.group(1).split()] if grid else [64.0, 64.0, 128.0]
    world = struct.unpack_from("<6f", data, lumps[7][0])
    cells = 1
    for a in range(3):
        cells *= int((step[a] * math.floor(world[3 + a] / step[a]) - step[a] * math.ceil(world[a] / step[a])) / step[a]) + 1
    if lumps[15][1] and (counts.get("lightgrid") != cells or lumps[15][1] != 8 * cells):
        fail(rel, f"lightgrid: bspkit counts {counts.get('lightgrid')}, {lumps[15][1]} bytes, the bounds give {cells}")
    if counts.get("textures") != lumps[1][1] // 72:
        fail(rel, f"textures: bspkit says {counts.get('textures')}, SHADERS holds {lumps[1][1] // 72}")

    shaders = records(data, lumps, 1, "<64sii")
    # `tex list`: each distinct shader name, in first-use order.
    distinct = []
    for name, _, _ in shaders:
        if cstr(name) not in distinct:
            distinct.append(cstr(name))
    if [e["name"] for e in bspkit_json(bspkit, "tex", path, "list")["textures"]] != distinct:
        fail(rel, f"tex list: the names differ from the {len(distinct)} distinct shaders")
    for i, (d, (name, sflags, contents)) in enumerate(zip(dump_records(bspkit, path, "SHADERS"), shaders)):
        if (d["shader"], d["surfaceFlags"], d["contentFlags"]) != (cstr(name), sflags, contents):
            fail(rel, f"shader {i}: bspkit {d}, file {cstr(name)!r} {sflags} {contents}")
            break

    names = ["shaderNum", "fogNum", "surfaceType", "firstVert", "numVerts", "firstIndex", "numIndexes",
             "lightmapNum", "lightmapX", "lightmapY", "lightmapWidth", "lightmapHeight"]
    for i, (d, s) in enumerate(zip(dump_records(bspkit, path, "SURFACES"), records(data, lumps, 13, SURFACE))):
        got = [d[n] for n in names] + [d["patchWidth"], d["patchHeight"]]
        if got != list(s[0:12]) + [s[24], s[25]]:
            fail(rel, f"surface {i}: bspkit {got}, file {list(s[0:12]) + [s[24], s[25]]}")
            break

    for i, (d, s) in enumerate(zip(dump_records(bspkit, path, "BRUSHSIDES"), records(data, lumps, 9, "<ii"))):
        if (d["planeNum"], d["shaderNum"]) != s:
            fail(rel, f"brush side {i}: bspkit {d}, file {s}")
            break

    leafs = records(data, lumps, 4, "<12i")
    for i, (d, lf) in enumerate(zip(dump_records(bspkit, path, "LEAFS"), leafs)):
        if (d["cluster"], d["area"], d["firstLeafSurface"], d["numLeafSurfaces"]) != (lf[0], lf[1], lf[8], lf[9]):
            fail(rel, f"leaf {i}: bspkit {d}, file {lf}")
            break

    r = subprocess.run([bspkit, "check", path, "--json"], capture_output=True, text=True)
    report = json.loads(r.stdout)[0]
    if r.returncode != 0 or report["errors"] != 0:
        fail(rel, f"check: exit {r.returncode}, {report['errors']} errors: {report['problems'][:3]}")

    # Visibility: numClusters, clusterBytes, then one bit row per cluster.
    vofs, vlen = lumps[16]
    if vlen >= 8:
        clusters, stride = struct.unpack_from("<ii", data, vofs)
        visible = []
        for c in range(clusters):
            row = data[vofs + 8 + c * stride:vofs + 8 + (c + 1) * stride]
            visible.append(sum(1 for k in range(clusters) if row[k >> 3] & (1 << (k & 7))))
        stats = bspkit_json(bspkit, "vis", path, "--stats")
        want = (clusters, min(visible), max(visible))
        got = (stats.get("clusters"), stats.get("min_visible"), stats.get("max_visible"))
        if got != want:
            fail(rel, f"vis: bspkit (clusters, min, max) {got}, file {want}")
        if max(lf[0] for lf in leafs) >= clusters:
            fail(rel, f"a leaf's cluster is not below the {clusters} clusters")

    check_decompile(bspkit, rel, path, data, lumps)
    return check_export(bspkit, rel, path, data, lumps)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    bspkit, root = sys.argv[1:3]
    if not os.path.isdir(root):
        print(f"skipped: {root} not present")
        return 0
    checked = patches = 0
    for base, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if not name.lower().endswith(".bsp"):
                continue
            path = os.path.join(base, name)
            m = read_map(path)
            if not m:
                continue
            checked += 1
            patches += check_map(bspkit, os.path.relpath(path, root), path, *m)
    print(f"{checked} Quake 3 family maps read independently, {patches} patch grid points checked, "
          f"{independent.failures} failures")
    if checked == 0:
        print("FAIL: no IBSP 46/47 map found in the corpus")
        return 1
    return 1 if independent.failures else 0


if __name__ == "__main__":
    sys.exit(main())
