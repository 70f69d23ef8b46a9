"""bspkit.scan: one record per map, hostile files as records with an error,
and the Dask example giving the same records as the serial scan."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bspkit
from conftest import cli_json

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "scan_dask.py"
CORPUS = Path(os.environ.get("BSPKIT_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "maps"))


def test_scan_records_match_cli(samples, tmp_path):
    bad = tmp_path / "bad.bsp"
    bad.write_bytes(b"VBSP\x14\x00\x00\x00")  # a Source header cut inside its directory
    records = list(bspkit.scan([samples[name] for name in samples] + [bad]))
    assert [r["path"] for r in records] == sorted(str(p) for p in [*samples.values(), bad])
    for r in records:
        if r["path"] == str(bad):
            assert r["error"]["code"] == bspkit.ERR_TRUNCATED and r["size"] == 8
            continue
        info = dict(cli_json("info", "--json", r["path"]))
        check = dict(cli_json("check", "--json", r["path"], ok_codes=(0, 1))[0])
        assert r["error"] is None
        assert (r["format"], r["version"], r["name"], r["size"]) == (info["format"], info["version"], info["name"],
                                                                    info["size"])
        assert r["counts"] == dict(info["counts"]) and r["crc"] == info.get("crc")
        assert (r["errors"], r["warnings"]) == (check["errors"], check["warnings"])


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
    assert distributed == serial
