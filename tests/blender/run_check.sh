#!/usr/bin/env bash
# Generate a sample map, export it to glTF and check the Blender add-on's import of it inside
# Blender (check_import.py). Exits 77 (skipped) when Blender is not installed.
#   run_check.sh BSPKIT KIND EXT VIA MIN_LIT MIN_UNLIT
#     KIND: a `bspkit generate` sample; EXT: glb or gltf; VIA: operator or function
set -u
BSPKIT=$1 KIND=$2 EXT=$3 VIA=$4 MIN_LIT=$5 MIN_UNLIT=$6
HERE=$(cd "$(dirname "$0")" && pwd)
ADDON="$HERE/../../tools/blender/bspkit_import.py"
BLENDER=${BLENDER:-blender}
if ! command -v "$BLENDER" >/dev/null 2>&1; then
    echo "SKIP: blender is not installed (scripts/install-deps.sh installs it)"
    exit 77
fi

OUT=$(mktemp -d "${TMPDIR:-/tmp}/bspkit-blender.XXXXXX")
trap 'rm -rf "$OUT"' EXIT
"$BSPKIT" generate "$KIND" -o "$OUT/$KIND.bsp" >/dev/null || { echo "FAIL: bspkit generate $KIND"; exit 1; }
"$BSPKIT" export "$OUT/$KIND.bsp" -o "$OUT/$KIND.$EXT" >/dev/null || { echo "FAIL: bspkit export $KIND"; exit 1; }

# Blender writes its user settings under HOME (the add-on is installed there): a fresh one per run.
mkdir "$OUT/home"
HOME="$OUT/home" "$BLENDER" -b --factory-startup --python-exit-code 1 \
    --python "$HERE/check_import.py" -- "$ADDON" "$OUT/$KIND.$EXT" "$VIA" "$MIN_LIT" "$MIN_UNLIT" 2>&1
rc=$?
[ $rc -eq 0 ] || echo "FAIL: Blender import check of $KIND.$EXT exited $rc"
exit $rc
