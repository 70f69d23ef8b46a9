#!/usr/bin/env python3
"""Decompile every Source map under MAPS_DIR to VMF and parse each VMF with
srctools (TeamSpen210/srctools, the library behind many Source map tools):
every file must parse, with as many solids and displacements as bspkit's
own statistics report.

srctools is not packaged for Debian, so this is a developer check rather
than part of `make test`: point SRCTOOLS at a checkout (its src/ is put on
the path; its one typing-only dependency, useful_types, is stubbed when
missing).

Usage: SRCTOOLS=DIR check-vmf-srctools.py BSPKIT MAPS_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import types


def import_srctools(checkout):
    sys.path.insert(0, os.path.join(checkout, "src"))
    try:
        import useful_types  # noqa: F401
    except ImportError:
        from typing import Generic, TypeVar
        stub = types.ModuleType("useful_types")
        key, value = TypeVar("key"), TypeVar("value")
        stub.SupportsKeysAndGetItem = types.new_class("SupportsKeysAndGetItem", (Generic[key, value],))
        sys.modules["useful_types"] = stub
    from srctools import vmf
    from srctools.keyvalues import Keyvalues
    return vmf, Keyvalues


def main():
    if len(sys.argv) != 3 or not os.environ.get("SRCTOOLS"):
        sys.exit(__doc__)
    bspkit, root = sys.argv[1], sys.argv[2]
    vmf, Keyvalues = import_srctools(os.environ["SRCTOOLS"])
    good = bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.vmf")
        for base, _, files in sorted(os.walk(root)):
            for name in sorted(files):
                if not name.lower().endswith(".bsp"):
                    continue
                path = os.path.join(base, name)
                rel = os.path.relpath(path, root)
                run = subprocess.run([bspkit, "decompile", path, "-o", out, "--json"], capture_output=True, text=True)
                if run.returncode != 0:
                    continue  # not a Source map, or not readable: other tests' business
                stats = json.loads(run.stdout)
                try:
                    with open(out, encoding="utf-8", errors="replace") as f:
                        parsed = vmf.VMF.parse(Keyvalues.parse(f, out))
                except Exception as e:  # srctools raises its own error types
                    bad += 1
                    print(f"FAIL {rel}: srctools: {type(e).__name__}: {e}")
                    continue
                solids = list(parsed.brushes) + [s for ent in parsed.entities for s in ent.solids]
                disps = sum(1 for b in solids for side in b.sides if side.is_disp)
                if len(solids) != stats["brushes"] or disps != stats["displacements"]:
                    bad += 1
                    print(f"FAIL {rel}: srctools reads {len(solids)} solids and {disps} displacements, "
                          f"bspkit wrote {stats['brushes']} and {stats['displacements']}")
                else:
                    good += 1
    print(f"{good} VMFs read back by srctools with the same counts, {bad} failures")
    return 1 if bad or good == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
