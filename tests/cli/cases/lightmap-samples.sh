# Every sample map: the PNG is a valid PNG whose IHDR size is the size the
# JSON states; every lit face is placed (the samples have 6 faces in the
# GoldSrc and Quake rooms, 12 in the Source rooms, all lightmapped); the
# padded rectangles lie inside the image and do not overlap.
command -v python3 >/dev/null || { echo "skipped: python3 not installed"; exit 77; }
for kind in goldsrc-room quake-room source-room source-room-be source-room-lzma; do
    "$BSPKIT" generate "$kind" -o "$kind.bsp" >/dev/null || exit 1
    "$BSPKIT" lightmap "$kind.bsp" -o "$kind.png" --json "$kind.json" >/dev/null || exit 1
    faces=6
    case $kind in source-*) faces=12 ;; esac
    jq -e --argjson n "$faces" '.faces_total == $n and .faces_lit == $n and .faces_placed == $n
           and (.faces | length) == $n and .padding == 1 and .hdr == false
           and .luxels == ([.faces[] | .width * .height] | add)' "$kind.json" >/dev/null || { echo "json $kind"; continue; }
    python3 - "$kind.png" "$kind.json" <<'PY' && echo "ok $kind"
import json, struct, sys
png = open(sys.argv[1], 'rb').read()
d = json.load(open(sys.argv[2]))
assert png[:8] == b'\x89PNG\r\n\x1a\n', 'signature'
length, kind = struct.unpack('>I4s', png[8:16])
assert kind == b'IHDR' and length == 13, 'IHDR'
w, h, depth, colour = struct.unpack('>IIBB', png[16:26])
assert (w, h) == (d['width'], d['height']), (w, h)
assert depth == 8 and colour == 2, 'opaque RGB'
p = d['padding']
used = set()
for f in d['faces']:
    x0, y0 = f['x'] - p, f['y'] - p
    x1, y1 = f['x'] + f['width'] + p, f['y'] + f['height'] + p
    assert x0 >= 0 and y0 >= 0 and x1 <= w and y1 <= h, f
    cells = {(x, y) for x in range(x0, x1) for y in range(y0, y1)}
    assert not cells & used, f
    used |= cells
PY
done
