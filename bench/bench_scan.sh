#!/usr/bin/env bash
# Wall time of `bspkit scan` over a directory (default: the shared map
# corpus) at -j 1 and at the default thread count, and of `bspkit check` over
# its .bsp files, beside `cat` of the same files to /dev/null in the same run
# (the cost of reading the bytes alone).
# Each is run RUNS times (default 3) and the fastest is reported.
#   bench/bench_scan.sh [DIR]     BSPKIT selects the binary (default build/bspkit)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bspkit=${BSPKIT:-$root/build/bspkit}
runs=${RUNS:-3}
dir=${1:-$root/../shared/maps}
if [ ! -d "$dir" ] || [ ! -x "$bspkit" ]; then
  echo "bench_scan.sh: need a directory ($dir) and a built $bspkit" >&2
  exit 1
fi
mapfile -d '' files < <(find "$dir" -type f \( -iname '*.bsp' -o -iname '*.bsp.bz2' -o -iname '*.bsp.gz' \
  -o -iname '*.zip' -o -iname '*.pk3' -o -iname '*.gma' -o -iname '*.vpk' \) -print0)
bytes=$(du -cb "${files[@]}" | tail -1 | cut -f1)
echo "${#files[@]} files, $bytes bytes under $dir ($(nproc) online processors)"

# best_of LABEL COMMAND...: the fastest of $runs wall times.
best_of() {
  local label=$1 best= start end t
  shift
  for ((i = 0; i < runs; i++)); do
    start=$(date +%s%N)
    "$@" >/dev/null 2>&1 || true
    end=$(date +%s%N)
    t=$((end - start))
    if [ -z "$best" ] || [ "$t" -lt "$best" ]; then best=$t; fi
  done
  awk -v ns="$best" -v b="$bytes" -v l="$label" \
    'BEGIN { printf "%-22s %8.3f s  %8.1f MB/s\n", l, ns / 1e9, b / (ns / 1e9) / 1e6 }'
}
best_of "cat" cat "${files[@]}"
best_of "bspkit scan -j 1" "$bspkit" scan "$dir" -j 1 --jsonl /dev/null
best_of "bspkit scan (default)" "$bspkit" scan "$dir" --jsonl /dev/null
mapfile -d '' bsps < <(find "$dir" -type f -iname '*.bsp' -print0)
bytes=$(du -cb "${bsps[@]}" | tail -1 | cut -f1)
echo "${#bsps[@]} .bsp files, $bytes bytes"
best_of "cat" cat "${bsps[@]}"
best_of "bspkit check -j 1" "$bspkit" check -j 1 "${bsps[@]}"
best_of "bspkit check (default)" "$bspkit" check "${bsps[@]}"
