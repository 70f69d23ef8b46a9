"""bspkit.scan: one record per map (containers included), hostile files as
records with an error, the same records as `bspkit scan --jsonl`, and the Dask
example giving the same records as the serial scan."""
import bz2
import gzip
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import bspkit
from conftest import cli_json, run_cli

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "scan_dask.py"
CORPUS = Path(os.environ.get("BSPKIT_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "maps"))


def test_scan_records_match_cli(samples, tmp_path):
    bad = tmp_path / "bad.bsp"
    bad.write_bytes(b"VBSP\x14\x00\x00\x00")  # a Source header cut inside its directory
    records = list(bspkit.scan([samples[name] for name in samples] + [bad], threads=2))
    assert [r["path"] for r in records] == sorted(str(p) for p in [*samples.values(), bad])
    for r in records:
        if r["path"] == str(bad):
            assert r["format"] is None and r["counts"] is None and r["error"].startswith("truncated")
            continue
        info = dict(cli_json("info", "--json", r["path"]))
        check = dict(cli_json("check", "--json", r["path"], ok_codes=(0, 1))[0])
        assert r["error"] is None and r["member"] is None
        assert (r["format"], r["version"], r["name"], r["size"]) == (info["format"], info["version"], info["name"],
                                                                    info["size"])
        assert r["counts"] == dict(info["counts"]) and r["crc"] == info.get("crc")
        assert (r["errors"], r["warnings"]) == (check["errors"], check["warnings"])
        assert r["entities"] == len(cli_json("ent", "--json", r["path"]))


def without_time(records):
    return [{k: v for k, v in r.items() if k != "ms"} for r in records]


def test_scan_reads_containers_like_the_cli(samples, tmp_path):
    """Maps inside a zip, a .bsp.gz and a .bsp.bz2 (written here with zipfile, gzip and bz2):
    the records equal `bspkit scan --jsonl -` over the same directory (`ms` aside)."""
    names = sorted(samples)
    with zipfile.ZipFile(tmp_path / "pack.zip", "w") as z:
        for name in names[:3]:
            z.writestr(f"maps/{name}.bsp", samples[name].read_bytes())
        z.writestr("readme.txt", b"not a map")
    (tmp_path / "one.bsp.gz").write_bytes(gzip.compress(samples[names[3]].read_bytes()))
    (tmp_path / "two.bsp.bz2").write_bytes(bz2.compress(samples[names[4]].read_bytes()))
    (tmp_path / "notes.txt").write_text("skipped by the walk")
    records = list(bspkit.scan([tmp_path]))
    _, out = run_cli("scan", tmp_path, "--jsonl", "-")
    assert without_time(records) == without_time(json.loads(line) for line in out.decode().splitlines())
    # path order (one.bsp.gz, pack.zip, two.bsp.bz2), then member order
    order = [names[3], *names[:3], names[4]]
    assert [r["member"] for r in records] == [None] + [f"maps/{n}.bsp" for n in names[:3]] + [None]
    assert [r["size"] for r in records] == [samples[n].stat().st_size for n in order]
    assert all(r["error"] is None for r in records)
    assert bspkit.map_files([tmp_path]) == [str(tmp_path / n) for n in ("one.bsp.gz", "pack.zip",
                                                                        "two.bsp.bz2")]
    per_file = [r for f in bspkit.map_files([tmp_path]) for r in bspkit.scan_file(f)]
    assert without_time(per_file) == without_time(records)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=f"corpus directory {CORPUS} absent")
def test_dask_example_equals_serial_scan(tmp_path):
    pytest.importorskip("distributed", reason="dask.distributed (Debian python3-distributed) not installed")
    out = tmp_path / "scan.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    proc = subprocess.run([sys.executable, str(EXAMPLE), str(CORPUS), "-o", str(out), "--workers", "2"],
                          capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    distributed = [json.loads(line) for line in out.read_text().splitlines()]
    serial = [json.loads(json.dumps(r, sort_keys=True)) for r in bspkit.scan([CORPUS])]
    assert len(distributed) == len(serial) > 100
    assert without_time(distributed) == without_time(serial)
