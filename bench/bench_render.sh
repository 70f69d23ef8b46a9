#!/usr/bin/env bash
# Whole-process time of `bspkit render` at 1920x1080 (spawn view, else iso
# when the map has no player spawn) on the largest map, beside `bspkit export
# --no-textures` of the same map to GLB in the same run: both build the same
# meshes and lightmap atlas, so the difference is drawing and PNG encoding.
# Then `bspkit view` of the same map beside `export --keep all`, and the page's size.
# Reports the best of RUNS (default 5) wall times; never fails on a figure.
#   bench/bench_render.sh [MAP|DIR]     (default: the shared map corpus)
# BSPKIT selects the binary (default build/bspkit).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bspkit=${BSPKIT:-$root/build/bspkit}
runs=${RUNS:-5}
target=${1:-$root/../shared/maps}

if [ -d "$target" ]; then
  map=$(find "$target" -type f -iname '*.bsp' -printf '%s\t%p\n' | sort -n | tail -n 1 | cut -f2-)
else
  map=$target
fi
if [ -z "$map" ] || [ ! -f "$map" ]; then
  echo "bench_render.sh: no map found under $target" >&2
  exit 1
fi
if [ ! -x "$bspkit" ]; then
  echo "bench_render.sh: $bspkit not built" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
view=spawn
"$bspkit" render "$map" -o "$out/r.png" --size 1920x1080 >/dev/null 2>&1 || view=iso
echo "bspkit render --view $view --size 1920x1080 and bspkit export --no-textures on $map ($(stat -c %s "$map") bytes)"

# Best of $runs wall times of a command, in milliseconds.
best_ms() {
  local best=
  for ((i = 0; i < runs; i++)); do
    local start end ms
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || { echo "bench_render.sh: '$*' failed" >&2; echo -1; return; }
    end=$(date +%s%N)
    ms=$(( (end - start) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}
r=$(best_ms "$bspkit" render "$map" -o "$out/r.png" --view "$view" --size 1920x1080)
r1=$(best_ms "$bspkit" render "$map" -o "$out/r1.png" --view "$view" --size 1920x1080 --supersample 1)
e=$(best_ms "$bspkit" export "$map" -o "$out/e.glb" --no-textures)
echo "render 1920x1080, 2x2 samples: ${r} ms   1x1: ${r1} ms   export --no-textures: ${e} ms   (best of $runs)"

# bspkit view builds the GLB export --keep all writes, deflates and base64-encodes it beside the
# viewer script: its time against that export's, and the page's size against the GLB's.
if "$bspkit" view "$map" -o "$out/v.html" >/dev/null 2>&1; then
  v=$(best_ms "$bspkit" view "$map" -o "$out/v.html")
  k=$(best_ms "$bspkit" export "$map" -o "$out/k.glb" --keep all)
  html=$(stat -c %s "$out/v.html") glb=$(stat -c %s "$out/k.glb")
  echo "view: ${v} ms   export --keep all: ${k} ms   page ${html} bytes for a ${glb}-byte GLB" \
       "($(awk -v a="$html" -v b="$glb" 'BEGIN { printf "%.2f", a / b }') x)   (best of $runs)"
else
  echo "view: not measured (this bspkit was built without the viewer script)"
fi
