#!/usr/bin/env bash
# Whole-process time of `bspkit info` on the largest map: start-up, open,
# decode of what info prints, output. Reports the median milliseconds of a
# run beside /bin/true and `bspkit --version` timed in the same rounds.
#   bench/bench_info.sh [MAP|DIR]     (default: the shared map corpus)
# BSPKIT selects the binary (default build/bspkit); RUNS the rounds.
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

# The three commands in turn, RUNS rounds: /bin/true (the process floor),
# `bspkit --version` (start-up alone) and `bspkit info`, each run timed on its
# own with bash's clock (no process per reading), so drift on a shared machine
# falls on all three alike. Medians are reported: one run delayed by the
# scheduler moves a mean by more than the start-up being measured. A
# benchmark reports; it never fails on a figure.
declare -a t_true t_version t_info
elapsed_us() { # start and end as $EPOCHREALTIME gives them
  local a=${1/./} b=${2/./}
  echo $((10#$b - 10#$a))
}
for ((i = 0; i < runs; i++)); do
  s=$EPOCHREALTIME; /bin/true >/dev/null 2>&1 || true; e=$EPOCHREALTIME
  t_true+=("$(elapsed_us "$s" "$e")")
  s=$EPOCHREALTIME; "$bspkit" --version >/dev/null 2>&1 || true; e=$EPOCHREALTIME
  t_version+=("$(elapsed_us "$s" "$e")")
  s=$EPOCHREALTIME; "$bspkit" info "$map" >/dev/null 2>&1 || true; e=$EPOCHREALTIME
  t_info+=("$(elapsed_us "$s" "$e")")
done
median_ms() {
  printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.3f", m / 1000 }'
}
m_true=$(median_ms "${t_true[@]}")
m_version=$(median_ms "${t_version[@]}")
m_info=$(median_ms "${t_info[@]}")
printf '%d rounds, median ms per run (the timing itself adds the same to each)\n' "$runs"
printf '  /bin/true          %s\n' "$m_true"
printf '  bspkit --version   %s\n' "$m_version"
printf '  bspkit info        %s   (%s ms over /bin/true; target: within 2)\n' "$m_info" \
  "$(awk -v a="$m_info" -v b="$m_true" 'BEGIN { printf "%.3f", a - b }')"
