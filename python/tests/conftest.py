"""Shared fixtures: the bspkit CLI (the reference the package is compared with)
and the sample maps it generates."""
import json
import os
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def cli_path() -> str:
    path = os.environ.get("BSPKIT_CLI") or str(REPO / "build" / "bspkit")
    if not os.access(path, os.X_OK):
        pytest.skip(f"bspkit CLI not found at {path} (set BSPKIT_CLI)")
    return path


def run_cli(*args, ok_codes=(0,)):
    """Runs the CLI and returns (exit code, stdout)."""
    proc = subprocess.run([cli_path(), *map(str, args)], capture_output=True)
    assert proc.returncode in ok_codes, proc.stderr.decode(errors="replace")
    return proc.returncode, proc.stdout


def cli_json(*args, ok_codes=(0,)):
    code, out = run_cli(*args, ok_codes=ok_codes)
    return json.loads(out, object_pairs_hook=list) if out else None


@pytest.fixture(scope="session")
def cli():
    return cli_path()


@pytest.fixture(scope="session")
def samples(tmp_path_factory):
    """{name: path} of every map `bspkit generate --all` writes."""
    out = tmp_path_factory.mktemp("samples")
    run_cli("generate", "--all", "-o", out)
    maps = {p.stem: p for p in sorted(out.glob("*.bsp"))}
    assert len(maps) >= 5
    return maps
