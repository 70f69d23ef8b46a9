"""Map.render: the PNG equals `bspkit render`'s for the same view, and the
pixel array equals that PNG decoded here (zlib + the PNG row filters)."""
import struct
import zlib

import numpy as np
import pytest

import bspkit
from conftest import run_cli


def decode_png(data):
    """RGBA pixels of an 8-bit RGB or RGBA, non-interlaced PNG (an RGB one is opaque)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, width = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack_from(">I4s", data, pos)
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _c, _f, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0
            channels = 4 if colour == 6 else 3
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    out = np.zeros((height, stride), dtype=np.int32)
    prev = np.zeros(stride, dtype=np.int32)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = np.frombuffer(raw, dtype=np.uint8, count=stride, offset=y * (stride + 1) + 1).astype(np.int32)
        cur = np.zeros(stride, dtype=np.int32)
        for x in range(stride):
            a = cur[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if f == 0:
                p = 0
            elif f == 1:
                p = a
            elif f == 2:
                p = b
            elif f == 3:
                p = (a + b) // 2
            else:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
            cur[x] = (line[x] + p) & 0xFF
        out[y] = cur
        prev = cur
    pixels = out.reshape(height, width, channels).astype(np.uint8)
    if channels == 3:
        pixels = np.concatenate([pixels, np.full((height, width, 1), 255, dtype=np.uint8)], axis=2)
    return pixels


@pytest.mark.parametrize("view", ["top", "iso", "spawn"])
def test_render_matches_cli_and_png(samples, tmp_path, view):
    path = samples["goldsrc-room"]
    ours, theirs = tmp_path / "py.png", tmp_path / "cli.png"
    with bspkit.open(path) as m:
        stats = m.render(ours, view=view, size=(48, 32))
        pixels = m.render(view=view, size=(48, 32))
    run_cli("render", path, "-o", theirs, "--view", view, "--size", "48x32")
    assert ours.read_bytes() == theirs.read_bytes()
    assert stats["triangles_drawn"] > 0
    assert pixels.shape == (32, 48, 4)
    assert np.array_equal(pixels, decode_png(ours.read_bytes()))
    assert len(np.unique(pixels.reshape(-1, 4), axis=0)) > 1  # not one flat colour


def test_render_camera_and_errors(samples):
    with bspkit.open(samples["quake-room"]) as m:
        a = m.render(size=(16, 16), camera=(0, 0, 64, 0, 0, 90))
        b = m.render(size=(16, 16), camera=(0, 0, 64, 0, 180, 90))
        assert a.shape == (16, 16, 4) and not np.array_equal(a, b)
        with pytest.raises(ValueError):
            m.render(view="sideways")
        with pytest.raises(bspkit.Error):
            m.render(size=(0, 99999))


def test_view_matches_cli(samples, tmp_path):
    """Map.view gives the page `bspkit view` writes, as bytes or as a file; a library
    built without the viewer script says so with UnsupportedError."""
    path = samples["goldsrc-room"]
    with bspkit.open(path) as m:
        if not bspkit.view_available():
            with pytest.raises(bspkit.UnsupportedError):
                m.view()
            pytest.skip("library built without the viewer script (no npm ci in viewer/)")
        html = m.view(title="room")
        stats = m.view(tmp_path / "py.html", title="room")
    run_cli("view", path, "-o", tmp_path / "cli.html", "--title", "room")
    assert html == (tmp_path / "cli.html").read_bytes() == (tmp_path / "py.html").read_bytes()
    assert html.startswith(b"<!DOCTYPE html>") and b"<title>room</title>" in html
    assert stats["html_bytes"] == len(html) and stats["triangles"] > 0
    assert stats["glb_deflated"] < stats["glb_bytes"]
