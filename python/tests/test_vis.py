"""Visibility: Map.point_leaf / leaf_cluster / vis_row / leaf_vis_row / visible against
`bspkit vis --at ... --json`, and every PVS row checked against a run-length decoder written
here over the VISIBILITY, LEAFS and MODELS lump bytes (`bspkit lump extract`, read with struct)."""
import json
import struct

import numpy as np
import pytest

import bspkit
from conftest import run_cli
from test_corpus import CORPUS, corpus_maps


def rle_row(data, offset, row_bytes):
    """One decompressed row: a zero byte is followed by a count of zero bytes (clamped at the row end)."""
    out = bytearray()
    i = offset
    while len(out) < row_bytes:
        b = data[i]
        i += 1
        if b:
            out.append(b)
        else:
            out.extend(b"\0" * data[i])
            i += 1
    return bytes(out[:row_bytes])


def bits(row, count):
    return [bool(row[c >> 3] >> (c & 7) & 1) for c in range(count)]


def lump(path, name):
    return run_cli("lump", path, "extract", name)[1]


def reference_rows(path, family, version, endian):
    """{cluster: PVS bits} decoded here (lump bytes in the map's byte order), or None for a
    layout this decoder does not read."""
    e = "<" if endian == "little" else ">"
    vis = lump(path, "VISIBILITY")
    if family in ("source", "quake2"):
        if len(vis) < 4:
            return {}
        n = struct.unpack_from(e + "i", vis, 0)[0]
        row_bytes = (n + 7) // 8
        picked = sorted(set(range(min(n, 48))) | set(range(max(0, n - 16), n)))
        return {c: bits(rle_row(vis, struct.unpack_from(e + "i", vis, 4 + 8 * c)[0], row_bytes), n) for c in picked}
    if family in ("quake", "goldsrc") and version in (29, 30):
        vis_leafs = struct.unpack_from(e + "i", lump(path, "MODELS"), 52)[0]
        leafs = lump(path, "LEAFS")
        row_bytes = (vis_leafs + 7) // 8
        if not vis:
            return {}
        rows = {}
        for leaf in sorted(set(range(1, min(vis_leafs, 48) + 1)) | set(range(max(1, vis_leafs - 15), vis_leafs + 1))):
            ofs = struct.unpack_from(e + "i", leafs, 28 * leaf + 4)[0]
            row = b"\xff" * row_bytes if ofs < 0 else rle_row(vis, ofs, row_bytes)
            rows[leaf - 1] = bits(row, vis_leafs)
        return rows
    return None


def probe_points(m):
    """Entity origins (players, lights, anything placed) and model 0's centre."""
    pts = []
    for ent in m.entities:
        o = ent.get("origin")
        if o:
            try:
                p = tuple(float(v) for v in o.split())
            except ValueError:
                continue
            if len(p) == 3:
                pts.append(p)
    if len(m.models):
        mins, maxs = m.models[0]["mins"], m.models[0]["maxs"]
        pts.append(tuple(float((a + b) / 2) for a, b in zip(mins, maxs)))
    return pts[:6]


def leaf_clusters(m):
    """Cluster of every leaf, from the leafs array (Quake/GoldSrc: leaf i is cluster i - 1)."""
    rows = m.vis_dimensions[0]
    if m.format.family in ("quake", "goldsrc"):
        return np.array([i - 1 if 1 <= i <= rows else -1 for i in range(len(m.leafs))])
    return m.leafs["cluster"].astype(np.int64)


def check_against_cli(path, m, points):
    rows = m.vis_dimensions[0]
    clusters = leaf_clusters(m) if rows else None
    for p in points:
        ref = json.loads(run_cli("vis", path, "--at", *p, "--json")[1])
        leaf = m.point_leaf(p)
        assert leaf == ref["leaf"], (path, p)
        assert m.leaf_cluster(leaf) == ref["cluster"], (path, p)
        assert rows == ref["clusters"]
        pvs, pas = m.leaf_vis_row(leaf), m.leaf_vis_row(leaf, "pas")
        assert pvs.dtype == bool and len(pvs) == rows and len(pas) == rows
        assert int(pvs.sum()) == ref["visible_clusters"], (path, p)
        assert int(pas.sum()) == ref["audible_clusters"], (path, p)
        if rows:
            visible_leafs = int(np.isin(clusters, np.flatnonzero(pvs)).sum())
            assert visible_leafs == ref["visible_leafs"], (path, p)
            if ref["cluster"] is not None:
                assert np.array_equal(pvs, m.vis_row(ref["cluster"]))
                assert np.array_equal(pas, m.vis_row(ref["cluster"], "pas"))


def check_rows(path, m):
    f = m.format
    ref = reference_rows(path, f.family, f.version, f.endian)
    if ref is None:
        return False
    for cluster, expected in ref.items():
        assert m.vis_row(cluster).tolist() == expected, (path, cluster)
    return True


def check_visible(m, points):
    rows = m.vis_dimensions[0]
    for a in points:
        for b in points:
            la, lb = m.point_leaf(a), m.point_leaf(b)
            ca, cb = m.leaf_cluster(la), m.leaf_cluster(lb)
            if rows == 0:
                expected = True
            elif ca is None or cb is None:
                expected = False
            else:
                expected = bool(m.vis_row(ca)[cb])
            assert m.visible(a, b) is expected


def test_samples_against_cli_and_decoder(samples):
    with_vis = 0
    for path in samples.values():
        with bspkit.open(path) as m:
            points = probe_points(m)
            assert points
            check_against_cli(path, m, points)
            check_rows(path, m)
            check_visible(m, points)
            with_vis += m.vis_dimensions[0] > 0
    assert with_vis >= 1


def test_bad_arguments(samples):
    with bspkit.open(samples["source-room"]) as m:
        rows = m.vis_dimensions[0]
        with pytest.raises(ValueError):
            m.leaf_vis_row(0, "sound")
        with pytest.raises(bspkit.Error):
            m.vis_row(rows)
        with pytest.raises(bspkit.Error):
            m.leaf_cluster(len(m.leafs))


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus directory {CORPUS} absent")
def test_corpus_against_cli_and_decoder():
    decoded = compared = 0
    for path in corpus_maps():
        try:
            m = bspkit.open(path)
        except bspkit.Error:
            continue
        with m:
            try:
                m.vis_dimensions
            except bspkit.Error:
                code, _ = run_cli("vis", path, "--stats", "--json", ok_codes=(0, 1, 2))
                assert code != 0, path
                continue
            points = probe_points(m)[:2]
            try:
                leafs = [m.point_leaf(p) for p in points]
            except bspkit.Error:
                continue
            if not leafs:
                continue
            check_against_cli(path, m, points)
            compared += 1
            decoded += check_rows(path, m)
            check_visible(m, points)
    assert compared >= 20 and decoded >= 10, (compared, decoded)
