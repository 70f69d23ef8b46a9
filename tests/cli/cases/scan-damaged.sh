# Damaged maps and containers: cut short, bytes flipped, sizes and offsets
# made huge. Each is one record (the cut maps and broken containers with an
# error), the scan goes on to the end, and -j 1 and -j 4 print the same.
set -e
lib="$CASES/scan_lib.py"
mkdir d
python3 - "$GEN" <<'PY'
import os, random, struct, sys, bz2, gzip
gen = sys.argv[1]
rnd = random.Random(1)
for name in ('goldsrc-room.bsp', 'source-room.bsp', 'source-room-lzma.bsp', 'quake3-room.bsp'):
    data = open(os.path.join(gen, name), 'rb').read()
    stem = name[:-4]
    for cut in (0, 3, 7, 100, len(data) // 3):
        open('d/cut-%s-%d.bsp' % (stem, cut), 'wb').write(data[:cut])
    # The last byte may be padding no lump covers: this one need not fail.
    open('d/tail-%s.bsp' % stem, 'wb').write(data[:-1])
    for i in range(6):
        b = bytearray(data)
        for _ in range(8):
            p = rnd.randrange(len(b))
            b[p] ^= 1 << rnd.randrange(8)
        open('d/flip-%s-%d.bsp' % (stem, i), 'wb').write(bytes(b))
    z = bz2.compress(data)
    open('d/cut-%s.bsp.bz2' % stem, 'wb').write(z[:len(z) // 2])
    g = gzip.compress(data)
    open('d/cut-%s.bsp.gz' % stem, 'wb').write(g[:len(g) // 2])
    open('d/garbage-%s.bsp.bz2' % stem, 'wb').write(b'BZh9' + bytes(rnd.randrange(256) for _ in range(300)))
open('d/empty.bsp', 'wb').write(b'')
open('d/text.bsp.gz', 'wb').write(b'not gzip at all')
PY
src="$GEN/source-room.bsp"
# A GMA whose entry claims 2^62 bytes; a GMA cut inside its file list.
python3 "$lib" gma d/ok.gma maps/a.bsp="$src"
python3 - <<'PY'
import struct
b = bytearray(open('d/ok.gma', 'rb').read())
i = b.index(b'maps/a.bsp\0') + len('maps/a.bsp\0')
open('d/cut.gma', 'wb').write(bytes(b[:i + 3]))
b[i:i + 8] = struct.pack('<q', 1 << 62)
open('d/huge.gma', 'wb').write(bytes(b))
PY
rm d/ok.gma
# VPKs: a bad entry terminator, a tree size past the end, data past the end, a missing archive.
python3 "$lib" vpk d/a_dir.vpk maps/a.bsp="$src"
python3 "$lib" vpk d/b_dir.vpk maps/b.bsp="$src"@5
rm d/b_005.vpk
python3 - <<'PY'
import struct
b = bytearray(open('d/a_dir.vpk', 'rb').read())
i = b.index(b'a\0') + 2
t = bytearray(b); t[i + 16:i + 18] = b'\0\0'; open('d/term_dir.vpk', 'wb').write(bytes(t))
t = bytearray(b); t[8:12] = struct.pack('<I', 0xfffffff0); open('d/tree_dir.vpk', 'wb').write(bytes(t))
t = bytearray(b); t[i + 12:i + 16] = struct.pack('<I', 0xffffffff); open('d/len_dir.vpk', 'wb').write(bytes(t))
PY
rm d/a_dir.vpk
# A zip cut in half (no central directory) and a zip whose map is damaged inside.
(cd d && zip -q good.zip cut-source-room-100.bsp && head -c 60 good.zip > half.zip && rm good.zip)

set +e
"$BSPKIT" scan d -j 1 --jsonl one.jsonl; s1=$?
"$BSPKIT" scan d -j 4 --jsonl four.jsonl; s4=$?
set -e
echo "exit $s1 $s4"
python3 "$lib" strip one.jsonl > one.txt
python3 "$lib" strip four.jsonl > four.txt
cmp one.txt four.txt && echo "-j 1 and -j 4 agree"
python3 - <<'PY'
import json, os
recs = [json.loads(l) for l in open('one.jsonl')]
files = sorted(os.listdir('d'))
seen = sorted(os.path.basename(r['path']) for r in recs)
print('files', len(files), 'records', len(recs), 'same files', seen == files)
for r in recs:
    name = os.path.basename(r['path'])
    must_fail = (name.startswith('cut') or name.startswith('garbage') or name.endswith('.vpk') or
                 name.endswith('.gma') or name in ('empty.bsp', 'text.bsp.gz', 'half.zip'))
    if must_fail and r['error'] is None:
        print('no error for', name)
    if r['error'] is not None and r['format'] is not None and r['errors'] is None:
        print('inconsistent record', name)
print('errors where expected checked')
PY
