"""The package against the CLI's JSON output on the generated sample maps, and
its record arrays against records decoded here from the raw lump bytes."""
import json
import lzma
import struct

import numpy as np
import pytest

import bspkit
from conftest import cli_json, run_cli

SAMPLES = ["goldsrc-room", "quake-room", "quake2-room", "quake3-room", "source-room", "source-room-be",
           "source-room-lzma"]


def info(path):
    _, out = run_cli("info", "--json", path)
    return json.loads(out)


@pytest.mark.parametrize("name", SAMPLES)
def test_info_matches_cli(samples, name):
    path = samples[name]
    ref = info(path)
    with bspkit.open(str(path)) as m:
        assert m.counts == ref["counts"]
        assert list(m.counts) == list(ref["counts"])  # same order as well
        assert m.crc == ref.get("crc")
        assert m.lumps == ref["lumps"]
        f = m.format
        assert (f.family, f.name, f.version, f.endian, f.variant, f.revision) == (
            ref["format"], ref["name"], ref["version"], ref["endian"], ref["variant"], ref["revision"])
        assert f.lump_count == len(ref["lumps"])
        assert m.size == ref["size"] == path.stat().st_size
        assert m.game == ref.get("game")


# Points of the sample rooms (inside, in a wall, outside the world) and hulls.
POINTS = [(0, 0, 32, 0), (0, 0, -8, 0), (70, 0, 64, 0), (0, 0, 100, 0), (0, 0, 23, 1), (0, 0, 64, 2)]


@pytest.mark.parametrize("name", SAMPLES)
def test_point_contents_match_cli(samples, name):
    path = samples[name]
    family = info(path)["format"]
    hulls = 3 if family == "goldsrc" else 2 if family == "quake" else 0
    with bspkit.open(path) as m:
        for x, y, z, hull in POINTS:
            if hull > hulls:
                continue
            ref = cli_json("contents", path, x, y, z, "--hull", hull, "--json")
            ref = dict(ref)
            assert m.point_contents((x, y, z), hull=hull) == ref["contents"], (x, y, z, hull)
        with pytest.raises(bspkit.Error) as e:
            m.point_contents((0, 0, 0), hull=hulls + 1)
        assert e.value.code == bspkit.ERR_ARGUMENT


@pytest.mark.parametrize("name", SAMPLES)
def test_open_from_bytes_equals_open_from_path(samples, name):
    data = samples[name].read_bytes()
    with bspkit.open(samples[name]) as a, bspkit.open(data) as b:
        assert a.counts == b.counts and a.crc == b.crc and a.lumps == b.lumps
        assert a.planes.tobytes() == b.planes.tobytes()


# ---- independent reading of the lump directory and records -------------------

def directory(data):
    """{lump index: raw (decompressed) bytes}, byte order prefix and family, read with struct."""
    magic = data[:4]
    if magic in (b"VBSP", b"PSBV"):
        e = "<" if magic == b"VBSP" else ">"
        lumps = {}
        for i in range(64):
            ofs, length, _ver, _fourcc = struct.unpack_from(e + "iiii", data, 8 + 16 * i)
            raw = data[ofs:ofs + length]
            if raw[:4] == b"LZMA":  # Valve LZMA: id, actual size, lzma size, 5 property bytes
                actual, = struct.unpack_from("<I", raw, 4)
                alone = raw[12:17] + struct.pack("<Q", actual) + raw[17:]
                raw = lzma.LZMADecompressor(format=lzma.FORMAT_ALONE).decompress(alone)[:actual]
            lumps[i] = raw
        return lumps, e, "source"
    if magic == b"IBSP":
        version, = struct.unpack_from("<i", data, 4)
        n = 19 if version == 38 else 17
        lumps = {}
        for i in range(n):
            ofs, length = struct.unpack_from("<ii", data, 8 + 8 * i)
            lumps[i] = data[ofs:ofs + length]
        return lumps, "<", "quake2" if version == 38 else "quake3"
    version, = struct.unpack_from("<i", data, 0)
    assert version in (29, 30)
    lumps = {}
    for i in range(15):
        ofs, length = struct.unpack_from("<ii", data, 4 + 8 * i)
        lumps[i] = data[ofs:ofs + length]
    return lumps, "<", "quake"


# lump indices of PLANES, VERTEXES, EDGES per family (from each engine's header layout)
LUMPS = {"quake": (1, 3, 12), "quake2": (1, 2, 11), "source": (1, 3, 12)}


@pytest.mark.parametrize("name", SAMPLES)
def test_planes_vertexes_edges_match_struct_decoding(samples, name):
    data = samples[name].read_bytes()
    lumps, e, family = directory(data)
    with bspkit.open(samples[name]) as m:
        planes = m.planes
        if family == "quake3":  # 16-byte planes: normal, dist
            rec = list(struct.iter_unpack(e + "4f", lumps[2]))
            assert len(planes) == len(rec) > 0
            np.testing.assert_array_equal(planes["normal"], [r[:3] for r in rec])
            np.testing.assert_array_equal(planes["dist"], [r[3] for r in rec])
            return
        lp, lv, le = LUMPS[family]
        rec = list(struct.iter_unpack(e + "4fi", lumps[lp]))
        assert len(planes) == len(rec) > 0
        np.testing.assert_array_equal(planes["normal"], [r[:3] for r in rec])
        np.testing.assert_array_equal(planes["dist"], [r[3] for r in rec])
        np.testing.assert_array_equal(planes["type"], [r[4] for r in rec])

        verts = m.vertexes
        rec = list(struct.iter_unpack(e + "3f", lumps[lv]))
        assert len(verts) == len(rec) > 0
        np.testing.assert_array_equal(np.stack([verts["x"], verts["y"], verts["z"]], axis=1), rec)

        edges = m.edges
        rec = list(struct.iter_unpack(e + "2H", lumps[le]))
        assert len(edges) == len(rec) > 0
        np.testing.assert_array_equal(edges["v"], rec)


@pytest.mark.parametrize("name", ["quake-room", "goldsrc-room", "source-room", "quake2-room"])
def test_surfedges_and_faces_edge_ranges(samples, name):
    data = samples[name].read_bytes()
    lumps, e, family = directory(data)
    surf_lump = {"quake": 13, "quake2": 12, "source": 13}[family]
    with bspkit.open(samples[name]) as m:
        surfedges = m.surfedges
        assert surfedges.dtype == np.int32
        assert surfedges.tolist() == [r[0] for r in struct.iter_unpack(e + "i", lumps[surf_lump])]
        faces = m.faces
        assert len(faces) == m.counts["faces"] > 0
        assert (faces["first_edge"] + faces["num_edges"] <= len(surfedges)).all()


@pytest.mark.parametrize("name", ["source-room", "quake-room", "goldsrc-room", "quake2-room"])
def test_other_arrays_have_the_counted_length(samples, name):
    with bspkit.open(samples[name]) as m:
        counts = m.counts
        for attr, key in [("models", "models"), ("nodes", "nodes"), ("leafs", "leafs"), ("texinfo", "texinfo")]:
            arr = getattr(m, attr)
            assert len(arr) == counts[key], attr
            assert arr.dtype.itemsize == bspkit.RECORD_ARRAYS[attr].itemsize
        assert len(m.models) > 0 and len(m.nodes) > 0


def test_arrays_are_read_only_views(samples):
    with bspkit.open(samples["source-room"]) as m:
        a, b = m.faces, m.faces
        assert not a.flags.writeable and not a.flags.owndata
        assert a.__array_interface__["data"][0] == b.__array_interface__["data"][0]  # one decoded array, no copy
        with pytest.raises(ValueError):
            a["plane"][0] = 7


# ---- entities and validation --------------------------------------------------

@pytest.mark.parametrize("name", SAMPLES)
def test_entities_match_cli(samples, name):
    ref = cli_json("ent", "--json", samples[name])
    with bspkit.open(samples[name]) as m:
        ents = m.entities
    assert [list(ent) for ent in ents] == [[tuple(kv) for kv in obj] for obj in ref]
    assert ents[0]["classname"] == "worldspawn"
    for ent in ents:
        assert ent.get_all("classname") == [ent["classname"]]


def test_entity_keeps_order_and_duplicates():
    ent = bspkit.Entity([("classname", "func_door"), ("target", "a"), ("target", "b")])
    assert ent["target"] == "a"
    assert ent.get_all("target") == ["a", "b"]
    assert list(ent) == [("classname", "func_door"), ("target", "a"), ("target", "b")]
    assert ent.get("missing") is None and "target" in ent and len(ent) == 3
    with pytest.raises(KeyError):
        ent["missing"]


def damaged_quake_map(samples, tmp_path):
    """quake-room with edge 1 (edge 0 is unused by convention) pointing at vertex 60000."""
    data = bytearray(samples["quake-room"].read_bytes())
    ofs, _length = struct.unpack_from("<ii", data, 4 + 8 * 12)
    struct.pack_into("<H", data, ofs + 4, 60000)
    path = tmp_path / "bad-edge.bsp"
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("name", SAMPLES)
def test_validate_matches_cli_on_samples(samples, name):
    ref = json.loads(run_cli("check", "--json", samples[name])[1])[0]
    with bspkit.open(samples[name]) as m:
        assert len(m.validate()) == len(ref["problems"])


def test_validate_matches_cli_on_damaged_map(samples, tmp_path):
    path = damaged_quake_map(samples, tmp_path)
    _, out = run_cli("check", "--json", path, ok_codes=(0, 1))
    ref = json.loads(out)[0]["problems"]
    with bspkit.open(path) as m:
        problems = m.validate()
    assert len(problems) == len(ref) > 0
    for p, r in zip(problems, ref):
        assert (p.severity, p.code_name, p.lump_name, p.lump, p.record, p.offset, p.message) == (
            r["severity"], r["code"], r["lump"], r["lump_index"], r["record"], r["offset"], r["message"])
    assert any(p.code == bspkit.ERR_INDEX and p.lump_name == "EDGES" and p.record == 1 for p in problems)


# ---- errors -------------------------------------------------------------------

def test_empty_input_is_code_5():
    with pytest.raises(bspkit.Error) as info_:
        bspkit.open(b"")
    assert info_.value.code == bspkit.ERR_EMPTY == 5


def test_truncated_input_is_code_6(samples):
    with pytest.raises(bspkit.Error) as info_:
        bspkit.open(samples["source-room"].read_bytes()[:100])
    assert info_.value.code == bspkit.ERR_TRUNCATED == 6
    assert "truncated" in str(info_.value)


def test_unknown_format_is_code_7():
    with pytest.raises(bspkit.Error) as info_:
        bspkit.open(b"NOPE" * 300)
    assert info_.value.code == bspkit.ERR_UNKNOWN_FORMAT == 7


def test_lump_out_of_range_carries_lump_and_offset(samples):
    data = bytearray(samples["quake-room"].read_bytes())
    struct.pack_into("<i", data, 4 + 8 * 1, len(data) + 1000)  # PLANES offset past the end
    with pytest.raises(bspkit.Error) as info_:
        bspkit.open(bytes(data))
    e = info_.value
    assert e.code == bspkit.ERR_LUMP_RANGE
    assert e.lump == 1


def test_missing_file_is_io_error(tmp_path):
    with pytest.raises(bspkit.Error) as info_:
        bspkit.open(tmp_path / "none.bsp")
    assert info_.value.code == bspkit.ERR_IO
