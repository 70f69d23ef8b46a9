#!/usr/bin/env bash
# Whole-process time of `bspkit info` on the largest map: start-up, open,
# decode of what info prints, output. Reports milliseconds per run beside
# /bin/true and `bspkit --version` measured in the same run.
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

# Each command in turn, RUNS times: /bin/true (the process floor) and
# `bspkit --version` (start-up alone) beside `bspkit info`. A benchmark
# reports; it never fails on a figure.
per_run() {
  local start end
  start=$(date +%s%N)
  for ((i = 0; i < runs; i++)); do
    "$@" >/dev/null 2>&1 || true
  done
  end=$(date +%s%N)
  awk -v ns=$((end - start)) -v n="$runs" 'BEGIN { printf "%.3f", ns / n / 1e6 }'
}
t_true=$(per_run /bin/true)
t_version=$(per_run "$bspkit" --version)
t_info=$(per_run "$bspkit" info "$map")
printf '%d runs each, ms per run (the loop itself adds the same to each)
' "$runs"
printf '  /bin/true          %s
' "$t_true"
printf '  bspkit --version   %s
' "$t_version"
printf '  bspkit info        %s   (%s ms over /bin/true; target: within 2)\n' "$t_info" \
  "$(awk -v a="$t_info" -v b="$t_true" 'BEGIN { printf "%.3f", a - b }')"
