"""Map.edit(): an unchanged write reproduces the file byte for byte; entity and
lump edits reach the saved file (read back by the CLI, which checks it clean);
the source file is never touched."""
import hashlib

import pytest

import bspkit
from conftest import cli_json, run_cli


def test_unchanged_write_is_byte_identical(samples):
    for path in samples.values():
        with bspkit.open(path) as m:
            assert m.edit().to_bytes() == path.read_bytes()


def test_entity_edit_round_trip(samples, tmp_path):
    src = samples["goldsrc-room"]
    before = hashlib.sha256(src.read_bytes()).hexdigest()
    out = tmp_path / "edited.bsp"
    with bspkit.open(src) as m:
        ents = m.entities
        ents[0]["message"] = "edited from Python"
        ents[0]["bspkit_note"] = "a new key"
        e = m.edit()
        e.set_entities(ents)
        e.save(out)
    assert hashlib.sha256(src.read_bytes()).hexdigest() == before
    ref = cli_json("ent", "--json", out)
    world = dict(ref[0])
    assert world["message"] == "edited from Python" and world["bspkit_note"] == "a new key"
    assert len(ref) == len(ents)
    code, _ = run_cli("check", out, ok_codes=(0, 1))
    assert code == 0


def test_replace_lump_by_name(samples, tmp_path):
    src = samples["quake-room"]
    out = tmp_path / "lump.bsp"
    text = b'{\n"classname" "worldspawn"\n"message" "lump"\n}\n\0'
    with bspkit.open(src) as m:
        e = m.edit()
        e.replace_lump("ENTITIES", text)
        e.save(out)
    _, got = run_cli("lump", out, "extract", "ENTITIES")
    assert got == text
    with bspkit.open(src) as m:
        with pytest.raises(KeyError):
            m.edit().replace_lump("NO_SUCH_LUMP", b"")


def test_edit_keeps_a_closed_map_alive(samples):
    m = bspkit.open(samples["source-room"])
    e = m.edit()
    m.close()
    del m
    assert e.to_bytes() == samples["source-room"].read_bytes()


def test_unwritable_entity_text_is_refused(samples):
    with bspkit.open(samples["quake-room"]) as m:
        ents = m.entities
        ents[0]["message"] = 'a "quoted" word'
        with pytest.raises(ValueError):
            m.edit().set_entities(ents)
