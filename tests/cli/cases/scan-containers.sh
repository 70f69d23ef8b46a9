# Maps inside .bz2, .gz, zip, pk3, GMA and VPK files give the same record as
# the map itself (apart from path, member and time); the containers are made
# by Debian's bzip2, gzip and zip and by the test's own GMA and VPK writers.
set -e
lib="$CASES/scan_lib.py"
mkdir plain packed packed/zips
cp "$GEN"/*.bsp plain/
for f in plain/*.bsp; do
    name=$(basename "$f")
    bzip2 -9 -c "$f" > "packed/$name.bz2"
    gzip -9 -c "$f" > "packed/$name.gz"
done
echo "not a map" > readme.txt
mkdir -p stage/maps && cp plain/source-room.bsp plain/goldsrc-room.bsp plain/quake3-room.bsp stage/maps/
cp readme.txt stage/
(cd stage && zip -q -r ../packed/zips/maps.zip maps/source-room.bsp maps/goldsrc-room.bsp readme.txt)
(cd stage && zip -q -r ../packed/zips/pak0.pk3 maps/quake3-room.bsp readme.txt)
python3 "$lib" gma packed/addon.gma maps/source-room-be.bsp=plain/source-room-be.bsp readme.txt=readme.txt \
    maps/quake-room.bsp=plain/quake-room.bsp
python3 "$lib" vpk packed/pak01_dir.vpk maps/source-room.bsp=plain/source-room.bsp \
    maps/source-room-lzma.bsp=plain/source-room-lzma.bsp@0 maps/quake2-room.bsp=plain/quake2-room.bsp@1 \
    readme.txt=readme.txt

"$BSPKIT" scan plain --jsonl plain.jsonl
"$BSPKIT" scan packed -j 3 --jsonl packed.jsonl
python3 "$lib" same plain.jsonl packed.jsonl
# Which records, in order: path, then member.
python3 - <<'PY'
import json
for line in open('packed.jsonl'):
    r = json.loads(line)
    print(r['path'], r['member'], r['format'], r['error'])
PY
