# FastDL streams kept inside archives: .bsp.bz2 and .bsp.gz members of a zip,
# a pk3 and a GMA give the same record as the map itself (apart from path,
# member and time); a member whose stream is cut short is a record with its
# error, and the other members are still read.
set -e
lib="$CASES/scan_lib.py"
mkdir plain packed stage
cp "$GEN"/source-room.bsp "$GEN"/goldsrc-room.bsp "$GEN"/quake3-room.bsp plain/
bzip2 -9 -c plain/source-room.bsp > stage/source-room.bsp.bz2
gzip -9 -c plain/goldsrc-room.bsp > stage/goldsrc-room.bsp.gz
gzip -9 -c plain/quake3-room.bsp > stage/quake3-room.bsp.gz
head -c 200 stage/source-room.bsp.bz2 > stage/cut.bsp.bz2
(cd stage && zip -q ../packed/maps.zip source-room.bsp.bz2 goldsrc-room.bsp.gz cut.bsp.bz2)
(cd stage && zip -q ../packed/pak0.pk3 quake3-room.bsp.gz)
python3 "$lib" gma packed/addon.gma maps/source-room.bsp.bz2=stage/source-room.bsp.bz2
"$BSPKIT" scan plain --jsonl plain.jsonl
set +e
"$BSPKIT" scan packed -j 4 --jsonl packed.jsonl
echo "exit $?"
set -e
grep -v '"cut.bsp.bz2"' packed.jsonl > good.jsonl
python3 "$lib" same plain.jsonl good.jsonl && echo "same records as the plain maps"
python3 - <<'PY'
import json
for line in open('packed.jsonl'):
    r = json.loads(line)
    print(r['path'], r['member'], r['format'], r['size'] if not r['error'] else 'error')
PY
