# --measure-compression on the Source room with a compressible packed file:
# the savings reported are what `convert --compress` (file size, stat) and
# `pak repack --lzma` (PAKFILE length, read from the directory) really save.
mkdir -p scripts
for i in $(seq 1 200); do echo "\"entry$i\" \"the same words again and again\""; done >scripts/notes.txt
"$BSPKIT" pak "$GEN/source-room.bsp" add scripts/notes.txt -o pak.bsp >/dev/null || echo "pak add exit $?"
"$BSPKIT" size pak.bsp --json --measure-compression >size.json || echo "size exit $?"
"$BSPKIT" convert pak.bsp --compress -o compressed.bsp || echo "convert exit $?"
"$BSPKIT" pak pak.bsp repack --lzma -o repacked.bsp >/dev/null || echo "repack exit $?"
python3 - "$(stat -c %s pak.bsp)" "$(stat -c %s compressed.bsp)" <<'PY'
import json, struct, sys
before, after = int(sys.argv[1]), int(sys.argv[2])
pak_len = lambda f: struct.unpack_from("<i", open(f, "rb").read(), 8 + 16 * 40 + 4)[0]
s = {x["command"].split()[1]: x for x in json.load(open("size.json"))["savings"]}
print("convert --compress saving", "agrees" if s["convert"]["bytes"] == before - after > 0 else s["convert"])
want = pak_len("pak.bsp") - pak_len("repacked.bsp")
print("pak repack --lzma saving", "agrees" if s["pak"]["bytes"] == want > 0 else (s["pak"], want), s["pak"]["entries"], "entry")
PY
