# bspkit fastdl over the corpus maps below 3 MB: every Source archive
# decompresses (bzip2 -d) to its map byte for byte and every GoldSrc copy
# equals its map; the only failures are maps whose file name another map
# already used; a second run writes nothing.
source "$CASES/lib.bash"
require_corpus
set -e
find "$MAPS" -type f -iname '*.bsp' -size -3M | LC_ALL=C sort > maps.txt
mapfile -t maps < maps.txt
set +e
"$BSPKIT" fastdl "${maps[@]}" -o web > run1.txt 2> err1.txt
status=$?
set -e
python3 - "$status" <<'PY'
import os, re, subprocess, sys
maps = [l.rstrip('\n') for l in open('maps.txt')]
done, bad = {}, 0
for line in open('run1.txt'):
    m = re.match(r'(written|copied|skipped)\s+(.*?)(?: -> (.*) \(\d+ bytes\)|: (.*))$', line.rstrip('\n'))
    if m:
        done[m.group(2)] = (m.group(1), m.group(3))
failed = {}
for line in open('err1.txt'):
    m = re.match(r'FAILED\s+(.*?): (.*)$', line.rstrip('\n'))
    if m:
        failed[m.group(1)] = m.group(2)
        if not m.group(2).startswith('another map already wrote'):
            bad += 1
            print('failed:', line.strip())
missing = [p for p in maps if p not in done and p not in failed]
if missing:
    bad += 1
    print('no line for', len(missing), 'maps, e.g.', missing[0])
counts = {}
for path, (action, out) in done.items():
    counts[action] = counts.get(action, 0) + 1
    if action == 'written':
        back = subprocess.run(['bzip2', '-d', '-c', out], capture_output=True, check=True).stdout
    elif action == 'copied':
        back = open(out, 'rb').read()
    else:
        continue
    if back != open(path, 'rb').read():
        bad += 1
        print('differs:', path, out)
want_status = 2 if failed else 0
if int(sys.argv[1]) != want_status:
    bad += 1
    print('exit', sys.argv[1], 'expected', want_status)
print('written %d, copied %d, checked; %d differences' % (counts.get('written', 0), counts.get('copied', 0), bad))
sys.exit(1 if bad else 0)
PY
find web -type f -exec stat -c '%n %s %Y' {} + | LC_ALL=C sort > before.txt
"$BSPKIT" fastdl "${maps[@]}" -o web 2>/dev/null | tail -1 | sed 's/ 0 unchanged.*//; s/[0-9]* unchanged.*//' || true
find web -type f -exec stat -c '%n %s %Y' {} + | LC_ALL=C sort > after.txt
cmp before.txt after.txt && echo "second run wrote nothing"
