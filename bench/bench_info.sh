#!/usr/bin/env bash
# Whole-process time of `bspkit info` on the largest map: start-up, open,
# decode of what info prints, output. Reports milliseconds per run.
#   bench/bench_info.sh [MAP|DIR]     (default: the shared map corpus)
# BSPKIT selects the binary (default build/bspkit); RUNS the loop count.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bspkit=${BSPKIT:-$root/build/bspkit}
runs=${RUNS:-200}
target=${1:-$root/../shared/maps}

if [ -d "$target" ]; then
  map=$(find "$target" -type f -iname '*.bsp' -printf '%s\t%p\n' | sort -n | tail -n 1 | cut -f2-)
else
  map=$target
fi
if [ -z "$map" ] || [ ! -f "$map" ]; then
  echo "bench_info.sh: no map found under $target" >&2
  exit 1
fi
if [ ! -x "$bspkit" ]; then
  echo "bench_info.sh: $bspkit not built" >&2
  exit 1
fi
echo "bspkit info on $map ($(stat -c %s "$map") bytes)"
"$bspkit" info "$map" >/dev/null || echo "bench_info.sh: bspkit info exited $? on this map" >&2

if command -v hyperfine >/dev/null 2>&1; then
  hyperfine -N --warmup 5 --runs "$runs" --ignore-failure "'$bspkit' info '$map'"
  exit 0
fi
start=$(date +%s%N)
for ((i = 0; i < runs; i++)); do
  "$bspkit" info "$map" >/dev/null 2>&1 || true
done
end=$(date +%s%N)
awk -v ns=$((end - start)) -v n="$runs" 'BEGIN { printf "%d runs: %.3f ms per run\n", n, ns / n / 1e6 }'
