"""Edit.pak_add / pak_remove: the saved map's PAKFILE read back with Python's zipfile
(over `bspkit lump extract PAKFILE`), `bspkit check` clean, and the same bytes as
`bspkit pak add` / `remove` write."""
import io
import zipfile

import pytest

import bspkit
from conftest import run_cli


def pak_zip(path):
    return zipfile.ZipFile(io.BytesIO(run_cli("lump", path, "extract", "PAKFILE")[1]))


def test_add_then_remove(samples, tmp_path):
    src = samples["source-room"]
    before = {i.filename: i for i in pak_zip(src).infolist()}
    vmt = b'"LightmappedGeneric"\n{\n"$basetexture" "dev/dev_measuregeneric01"\n}\n'
    blob = bytes(range(256)) * 40
    out = tmp_path / "added.bsp"
    with bspkit.open(src) as m:
        e = m.edit()
        e.pak_add("materials/Test/Measure.vmt", vmt)
        e.pak_add("./sound/test/blob.bin", blob)
        e.pak_add("sound/test/blob.bin", blob[:100])  # replaces the entry of that name
        e.save(out)
    z = pak_zip(out)
    assert z.testzip() is None
    names = z.namelist()
    assert set(names) == set(before) | {"materials/test/measure.vmt", "sound/test/blob.bin"}
    assert len(names) == len(set(names))
    assert z.read("materials/test/measure.vmt") == vmt
    assert z.read("sound/test/blob.bin") == blob[:100]
    assert run_cli("check", out, ok_codes=(0, 1))[0] == 0
    with bspkit.open(out) as m2:
        assert m2.counts == bspkit.open(src).counts

    removed_out = tmp_path / "removed.bsp"
    with bspkit.open(out) as m:
        e = m.edit()
        assert e.pak_remove("sound/*") == 1
        assert e.pak_remove("no/such/*") == 0
        e.save(removed_out)
    z = pak_zip(removed_out)
    assert set(z.namelist()) == set(before) | {"materials/test/measure.vmt"}
    assert run_cli("check", removed_out, ok_codes=(0, 1))[0] == 0


def test_same_bytes_as_cli(samples, tmp_path):
    src = samples["source-room"]
    data = b"hello pakfile\n" * 7
    f = tmp_path / "readme.txt"
    f.write_bytes(data)
    cli_out = tmp_path / "cli.bsp"
    run_cli("pak", src, "add", f, "--as", "docs/readme.txt", "-o", cli_out)
    with bspkit.open(src) as m:
        e = m.edit()
        e.pak_add("docs/readme.txt", data)
        py_bytes = e.to_bytes()
    assert py_bytes == cli_out.read_bytes()

    cli_removed = tmp_path / "cli_removed.bsp"
    run_cli("pak", cli_out, "remove", "docs/*", "-o", cli_removed)
    with bspkit.open(cli_out) as m:
        e = m.edit()
        assert e.pak_remove("docs/*") == 1
        assert e.to_bytes() == cli_removed.read_bytes()


def test_refusals(samples):
    with bspkit.open(samples["quake-room"]) as m:
        with pytest.raises(ValueError):
            m.edit().pak_add("a.txt", b"x")
    with bspkit.open(samples["source-room"]) as m:
        e = m.edit()
        with pytest.raises(bspkit.Error) as info:
            e.pak_add("materials/", b"x")
        assert info.value.code == bspkit.ERR_ARGUMENT
