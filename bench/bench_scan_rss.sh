#!/usr/bin/env bash
# Peak memory of `bspkit scan` as the number of files grows: the sample maps
# of `bspkit generate --all` (all but the 53 KB Quake 3 room, so the maps stay
# small) copied to COUNT files in a temporary directory, each copy made
# different by 16 bytes after the map's end (the readers ignore them), then
# scanned at 1,000 and at COUNT files. Beside each: the peak of `cat` over the
# same files and the wall time. Scan's records are handed out in order and
# not kept, so its peak should stay flat while the file count grows tenfold.
# Nothing is asserted: the figures are printed.
#   bench/bench_scan_rss.sh          COUNT (default 10000), BSPKIT (default build/bspkit)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bspkit=${BSPKIT:-$root/build/bspkit}
count=${COUNT:-10000}
small=1000
if [ ! -x "$bspkit" ] || [ ! -x /usr/bin/time ]; then
  echo "bench_scan_rss.sh: need a built $bspkit and GNU time (/usr/bin/time)" >&2
  exit 1
fi
if [ "$count" -lt "$small" ]; then
  echo "bench_scan_rss.sh: COUNT must be at least $small" >&2
  exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bspkit-rss.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$bspkit" generate --all -o "$tmp/samples" >/dev/null
rm -f "$tmp/samples/quake3-room.bsp"
mkdir "$tmp/small" "$tmp/all"
# The first $small files are hard links into the larger set: the same bytes, half the disk.
python3 - "$tmp" "$count" "$small" <<'PY'
import os, sys
tmp, count, small = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
samples = sorted(os.listdir(os.path.join(tmp, "samples")))
data = [open(os.path.join(tmp, "samples", s), "rb").read() for s in samples]
for i in range(count):
    k = i % len(samples)
    name = "%05d-%s" % (i, samples[k])
    path = os.path.join(tmp, "all", name)
    with open(path, "wb") as f:
        f.write(data[k] + b"bench%011d" % i)
    if i < small:
        os.link(path, os.path.join(tmp, "small", name))
PY

# measure LABEL DIR COMMAND...: peak resident set (GNU time's %M, of the largest process) and wall time.
measure() {
  local label=$1 dir=$2
  shift 2
  /usr/bin/time -o "$tmp/time.txt" -f '%M %e' "$@" >/dev/null 2>&1 || true
  local out files bytes
  out=$(tail -1 "$tmp/time.txt")
  files=$(find "$dir" -type f | wc -l)
  bytes=$(du -sb "$dir" | cut -f1)
  set -- $out
  printf '%-26s %6d files %10d bytes  peak %8d KiB  %7.2f s\n' "$label" "$files" "$bytes" "$1" "$2"
}
echo "bspkit scan peak memory ($(nproc) online processors)"
for d in small all; do
  measure "cat" "$tmp/$d" find "$tmp/$d" -type f -exec cat {} +
  measure "bspkit scan -j 1" "$tmp/$d" "$bspkit" scan "$tmp/$d" -j 1 --jsonl /dev/null
  measure "bspkit scan (default)" "$tmp/$d" "$bspkit" scan "$tmp/$d" --jsonl /dev/null
  measure "bspkit scan --sqlite" "$tmp/$d" "$bspkit" scan "$tmp/$d" --jsonl /dev/null --sqlite "$tmp/$d.db"
done
