"""Map.static_props and Map.static_prop_models against the sprp game lump read
here with struct: the game-lump directory (lump 35), the model dictionary, the
leaf array and each record's common v4 part, on every little-endian Source
corpus map that has static props."""
import os
import struct
from pathlib import Path

import numpy as np
import pytest

import bspkit
from conftest import REPO

CORPUS = Path(os.environ.get("BSPKIT_CORPUS", REPO.parent / "shared" / "maps"))
SPRP = int.from_bytes(b"sprp", "big")


def read_sprp(data):
    """(version, model names, records as tuples) from the file bytes, or None."""
    if data[:4] != b"VBSP":
        return None
    version, = struct.unpack_from("<i", data, 4)
    # Lump 35's directory entry: offset, length (after the 8-byte header, 16 bytes each).
    ofs, length = struct.unpack_from("<ii", data, 8 + 16 * 35)
    if length < 4:
        return None
    count, = struct.unpack_from("<i", data, ofs)
    for i in range(count):
        gid, _flags, gver, gofs, glen = struct.unpack_from("<iHHii", data, ofs + 4 + 16 * i)
        if gid != SPRP:
            continue
        lump = data[gofs:gofs + glen]
        pos = 0
        ndict, = struct.unpack_from("<i", lump, pos)
        pos += 4
        names = [lump[pos + 128 * k:pos + 128 * (k + 1)].split(b"\0", 1)[0].decode("utf-8", "surrogateescape")
                 for k in range(ndict)]
        pos += 128 * ndict
        nleaf, = struct.unpack_from("<i", lump, pos)
        pos += 4 + nleaf * (4 if gver >= 12 else 2)
        nprops, = struct.unpack_from("<i", lump, pos)
        pos += 4
        if nprops == 0:
            return gver, names, []
        size = (len(lump) - pos) // nprops
        records = []
        for k in range(nprops):
            r = pos + size * k
            origin = struct.unpack_from("<3f", lump, r)
            angles = struct.unpack_from("<3f", lump, r + 12)
            prop_type, first_leaf, leaf_count, solid = struct.unpack_from("<3HB", lump, r + 24)
            records.append((origin, angles, prop_type, first_leaf, leaf_count, solid))
        return gver, names, records
    return None


def source_maps():
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.rglob("*.bsp") if p.read_bytes()[:4] == b"VBSP")


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus directory {CORPUS} absent")
def test_static_props_match_the_lump_bytes():
    compared = props = 0
    failures = []
    for path in source_maps():
        data = path.read_bytes()
        try:
            ref = read_sprp(data)
        except struct.error:
            continue  # a directory this reader cannot follow (e.g. relative game-lump offsets)
        if ref is None or not ref[2]:
            continue
        try:
            m = bspkit.open(path)
        except bspkit.Error:
            continue
        with m:
            if m.game is not None and m.game != "Half-Life 2 (beta)" and m.format.version not in (19, 20, 21):
                continue  # variants whose common part differs (Dear Esther, Vindictus ...)
            try:
                sp = m.static_props
            except bspkit.Error as e:
                failures.append(f"{path}: {e}")
                continue
            _ver, names, records = ref
            if m.static_prop_models != names:
                failures.append(f"{path}: model names differ")
            if len(sp) != len(records):
                failures.append(f"{path}: {len(sp)} props, the lump holds {len(records)}")
                continue
            for k, (origin, angles, prop_type, first_leaf, leaf_count, solid) in enumerate(records):
                got = sp[k]
                if (tuple(got["origin"]) != tuple(np.float32(v) for v in origin)
                        or tuple(got["angles"]) != tuple(np.float32(v) for v in angles)
                        or (got["prop_type"], got["first_leaf"], got["leaf_count"], got["solid"])
                        != (prop_type, first_leaf, leaf_count, solid)):
                    failures.append(f"{path}: prop {k} differs")
                    break
            compared += 1
            props += len(records)
    assert not failures, "\n".join(failures[:20])
    assert compared > 0
    print(f"{props} static props on {compared} maps compared")


def test_static_props_empty_without_sprp(samples):
    # The Quake sample has no game lumps: an empty array, no model names.
    path = next(p for name, p in samples.items() if "quake" in name and "quake2" not in name and "quake3" not in name)
    with bspkit.open(path) as m:
        assert len(m.static_props) == 0
        assert m.static_prop_models == []
        assert "prop_type" in m.static_props.dtype.names
