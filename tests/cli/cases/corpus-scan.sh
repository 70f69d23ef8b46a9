# bspkit scan over the corpus: every .bsp file (as find lists it) is one
# record, in byte-wise path order, with the counts, entity count and CRC that
# 'bspkit info --json' gives for it; -j 1 and -j 4 print the same records.
source "$CASES/lib.bash"
require_corpus
set -e
"$BSPKIT" scan "$MAPS" -j 1 --jsonl one.jsonl
"$BSPKIT" scan "$MAPS" -j 4 --jsonl four.jsonl
python3 "$CASES/scan_lib.py" strip one.jsonl > one.txt
python3 "$CASES/scan_lib.py" strip four.jsonl > four.txt
cmp one.txt four.txt
find "$MAPS" -type f -iname '*.bsp' | LC_ALL=C sort > found.txt
python3 - "$BSPKIT" <<'PY'
import json, subprocess, sys
recs = [json.loads(l) for l in open('one.jsonl')]
found = [l.rstrip('\n') for l in open('found.txt')]
paths = [r['path'] for r in recs]
assert paths == found, 'records %d, files %d; first difference: %r' % (
    len(paths), len(found), next(((a, b) for a, b in zip(paths, found) if a != b), None))
bad = 0
for r in recs:
    out = subprocess.run([sys.argv[1], 'info', '--json', r['path']], capture_output=True)
    info = json.loads(out.stdout)
    for key in ('counts', 'entities', 'version', 'format', 'size'):
        if info[key] != r[key]:
            bad += 1
            print('%s: %s differs' % (r['path'], key))
    if info.get('crc') != r['crc']:
        bad += 1
        print('%s: crc differs' % r['path'])
    if r['error'] is not None:
        bad += 1
        print('%s: %s' % (r['path'], r['error']))
print('%d maps, %d differences' % (len(recs), bad))
sys.exit(1 if bad else 0)
PY
