"""Map.export / Map.decompile: the files equal the CLI's for the same map and options byte
for byte, and the output is checked on its own: the GLB's chunks and JSON parsed here (accessor
counts against the faces read with struct from the FACES lump), the .vmf/.map text parsed here
(brush and side counts against `decompile --json`)."""
import json
import struct

import pytest

import bspkit
from conftest import cli_json, run_cli


def read_glb(data):
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    assert magic == b"glTF" and version == 2 and length == len(data)
    size, kind = struct.unpack_from("<I4s", data, 12)
    assert kind == b"JSON"
    doc = json.loads(data[20:20 + size])
    off = 20 + size
    bin_size, bin_kind = struct.unpack_from("<I4s", data, off)
    assert bin_kind == b"BIN\0" and off + 8 + bin_size == len(data)
    return doc


def quake_face_triangles(path):
    """Triangles of every face of a BSP29 map: edges - 2 per face (FACES record: 20 bytes,
    edge count an int16 at offset 8)."""
    faces = run_cli("lump", path, "extract", "FACES")[1]
    return sum(struct.unpack_from("<h", faces, i + 8)[0] - 2 for i in range(0, len(faces), 20))


@pytest.mark.parametrize("kind,options,cli_args", [
    ("quake-room", {}, []),
    ("goldsrc-room", {"scale": 0.5, "no_lightmaps": True}, ["--scale", "0.5", "--no-lightmaps"]),
    ("source-room", {"skip": "tool,sky"}, ["--skip", "tool,sky"]),
    ("source-room", {"keep": "all", "skip": ["sky"]}, ["--keep", "all", "--skip", "sky"]),
    ("quake3-room", {"no_textures": True}, ["--no-textures"]),
])
def test_glb_equals_cli(samples, tmp_path, kind, options, cli_args):
    src = samples[kind]
    py_out, cli_out = tmp_path / "py.glb", tmp_path / "cli.glb"
    with bspkit.open(src) as m:
        stats = m.export(py_out, **options)
    ref = json.loads(run_cli("export", src, "-o", cli_out, "--json", *cli_args)[1])
    assert py_out.read_bytes() == cli_out.read_bytes()
    assert {k: v for k, v in ref.items() if k not in ("map", "output")} == stats
    doc = read_glb(py_out.read_bytes())
    prims = [p for mesh in doc["meshes"] for p in mesh["primitives"]]
    positions = sum(doc["accessors"][p["attributes"]["POSITION"]]["count"] for p in prims)
    indices = sum(doc["accessors"][p["indices"]]["count"] for p in prims)
    assert positions == ref["vertices"] and indices == 3 * ref["triangles"]
    if kind == "quake-room":
        assert indices == 3 * quake_face_triangles(src)


def glb_triangles(path):
    doc = read_glb(path.read_bytes())
    return sum(doc["accessors"][p["indices"]]["count"] for mesh in doc["meshes"] for p in mesh["primitives"]) // 3


def test_keep_sky_and_tool(samples, tmp_path):
    """The source room with SURF_SKY on texinfo 0 and SURF_HINT (a tool surface) on texinfo 1:
    their faces are left out unless keep= names them, as with the CLI's --keep."""
    src = samples["source-room"]
    texinfo = bytearray(run_cli("lump", src, "extract", "TEXINFO")[1])
    struct.pack_into("<i", texinfo, 64, 0x4)          # texinfo 0 flags: SURF_SKY
    struct.pack_into("<i", texinfo, 72 + 64, 0x100)   # texinfo 1 flags: SURF_HINT
    (tmp_path / "ti.bin").write_bytes(texinfo)
    patched = tmp_path / "sky-tool.bsp"
    run_cli("lump", src, "replace", "TEXINFO", tmp_path / "ti.bin", "-o", patched)
    faces = run_cli("lump", patched, "extract", "FACES")[1]
    # dface_t (56 bytes): numedges and texinfo int16 at 8 and 10
    tris = {}
    for i in range(0, len(faces), 56):
        edges, ti = struct.unpack_from("<hh", faces, i + 8)
        tris[ti] = tris.get(ti, 0) + edges - 2
    assert tris[0] and tris[1] and tris[2]
    for keep, want in (((), tris[2]), ("sky,tool", tris[0] + tris[1] + tris[2]), (["sky"], tris[0] + tris[2])):
        with bspkit.open(patched) as m:
            stats = m.export(tmp_path / "py.glb", keep=keep)
        cli_args = ["--keep", keep if isinstance(keep, str) else ",".join(keep)] if keep else []
        run_cli("export", patched, "-o", tmp_path / "cli.glb", *cli_args)
        assert (tmp_path / "py.glb").read_bytes() == (tmp_path / "cli.glb").read_bytes()
        assert glb_triangles(tmp_path / "py.glb") == stats["triangles"] == want


def test_obj_and_gltf_files_equal_cli(samples, tmp_path):
    src = samples["goldsrc-room"]
    for ext, options, cli_args in ((".obj", {"obj_y_up": True}, ["--obj-y-up"]), (".gltf", {}, [])):
        (tmp_path / "py").mkdir(exist_ok=True)
        (tmp_path / "cli").mkdir(exist_ok=True)
        with bspkit.open(src) as m:
            m.export(tmp_path / "py" / ("out" + ext), **options)
        run_cli("export", src, "-o", tmp_path / "cli" / ("out" + ext), *cli_args)
        py_files = {p.relative_to(tmp_path / "py"): p.read_bytes() for p in (tmp_path / "py").rglob("*") if p.is_file()}
        cli_files = {p.relative_to(tmp_path / "cli"): p.read_bytes() for p in (tmp_path / "cli").rglob("*") if p.is_file()}
        assert py_files == cli_files and py_files


def count_blocks(text, name):
    """Blocks `name` (a line holding only the name, then `{`) in VMF/keyvalue-style text."""
    lines = [ln.strip() for ln in text.splitlines()]
    return sum(1 for i, ln in enumerate(lines[:-1]) if ln == name and lines[i + 1] == "{")


def map_brushes(text):
    """(brushes, sides, patches) of a .map: a block at depth 2 is a brush unless its first line
    is patchDef2; a side is a plane line directly inside a brush."""
    depth = brushes = sides = patches = 0
    opened = in_patch = False
    for ln in (ln.strip() for ln in text.splitlines()):
        if ln.startswith("//") or not ln:
            continue
        if opened:
            opened = False
            if ln.startswith("patchDef"):
                in_patch = True
                patches += 1
                continue
            brushes += 1
        if ln == "{":
            depth += 1
            opened = depth == 2
        elif ln == "}":
            depth -= 1
            if depth == 1:
                in_patch = False
        elif depth == 2 and not in_patch and ln.startswith("("):
            sides += 1
    return brushes, sides, patches


@pytest.mark.parametrize("kind,ext,options,cli_args", [
    ("source-room", ".vmf", {}, []),
    ("source-room", ".vmf", {"no_props": True, "no_cubemaps": True}, ["--no-props", "--no-cubemaps"]),
    ("quake-room", ".map", {"no_merge": True}, ["--no-merge"]),
    ("goldsrc-room", ".map", {"no_clip": True}, ["--no-clip"]),
    ("quake2-room", ".map", {}, []),
    ("quake3-room", ".map", {}, []),
])
def test_decompile_equals_cli(samples, tmp_path, kind, ext, options, cli_args):
    src = samples[kind]
    py_out, cli_out = tmp_path / ("py" + ext), tmp_path / ("cli" + ext)
    with bspkit.open(src) as m:
        stats = m.decompile(py_out, **options)
        text = m.decompile_text(ext[1:], **options)
    ref = json.loads(run_cli("decompile", src, "-o", cli_out, "--json", *cli_args)[1])
    assert py_out.read_bytes() == cli_out.read_bytes()
    assert text.encode() == cli_out.read_bytes()
    assert all(stats[k] == v for k, v in ref.items() if k not in ("map", "output"))
    if ext == ".vmf":
        assert count_blocks(text, "solid") == ref["brushes"]
        assert count_blocks(text, "side") == ref["sides"]
    else:
        assert map_brushes(text) == (ref["brushes"], ref["sides"], ref["patches"])


def test_format_option_equals_cli(samples, tmp_path):
    """`format="map"` writes a .map whatever the file is called, as `--format map`."""
    src = samples["goldsrc-room"]
    with bspkit.open(src) as m:
        m.decompile(tmp_path / "py.txt", format="map")
        with pytest.raises(ValueError):
            m.decompile_text("obj")
    run_cli("decompile", src, "-o", tmp_path / "cli.txt", "--format", "map")
    assert (tmp_path / "py.txt").read_bytes() == (tmp_path / "cli.txt").read_bytes()


def test_refusals(samples, tmp_path):
    with bspkit.open(samples["quake-room"]) as m:
        with pytest.raises(bspkit.Error):
            m.decompile(tmp_path / "x.vmf")
        with pytest.raises(TypeError):
            m.decompile(tmp_path / "x.map", no_such_option=True)
        with pytest.raises(ValueError):
            m.export(tmp_path / "x.glb", skip="walls")
        with pytest.raises(ValueError):
            m.export(tmp_path / "x.glb", keep="skies")
