"""Every corpus map (../shared/maps): counts and crc equal `bspkit info --json`."""
import json
import os
from pathlib import Path

import pytest

import bspkit
from conftest import REPO, run_cli

CORPUS = Path(os.environ.get("BSPKIT_CORPUS", REPO.parent / "shared" / "maps"))


def corpus_maps():
    if not CORPUS.is_dir():
        return []
    return sorted(CORPUS.rglob("*.bsp"))


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus directory {CORPUS} absent")
def test_corpus_counts_crc_and_game():
    maps = corpus_maps()
    assert maps
    failures = []
    compared = 0
    for path in maps:
        code, out = run_cli("info", "--json", path, ok_codes=(0, 1, 2))
        if code == 2:  # the CLI cannot open it: neither may the package
            with pytest.raises(bspkit.Error):
                bspkit.open(path)
            continue
        ref = json.loads(out)
        try:
            with bspkit.open(path) as m:
                got = (m.counts, m.crc, m.game)
        except bspkit.Error as e:
            failures.append(f"{path}: {e}")
            continue
        compared += 1
        if got != (ref["counts"], ref.get("crc"), ref.get("game")):
            failures.append(f"{path}: counts/crc/game differ")
    assert not failures, "\n".join(failures)
    assert compared > 0
    print(f"{compared} of {len(maps)} corpus maps compared")
