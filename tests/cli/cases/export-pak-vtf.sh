# A texture packed in a Source map's pakfile as a VTF is decoded beside the
# other image work: the GLB is the same byte for byte with one thread, two
# and the default, and the PNG written for it holds the VTF's own pixels
# (read back here with zlib, independently of bspkit). A VTF that does not
# decode leaves the material with a flat colour and is counted as missing.
python3 - <<'PY'
import struct
w, h = 8, 8
px = bytearray()
for y in range(h):
    for x in range(w):
        px += bytes((x * 32, y * 32, (x ^ y) * 16, 255 if (x + y) % 5 else 128))
# VTF 7.2: 80-byte header, RGBA8888 (format 0), one mip, no thumbnail.
head = b"VTF\0" + struct.pack("<IIIHHIHH4x3f4xfIBiBBH", 7, 2, 80, w, h, 0, 1, 0, 0.5, 0.5, 0.5, 1.0, 0, 1, -1, 0, 0, 1)
head += b"\0" * (80 - len(head))
import os
os.makedirs("materials/dev", exist_ok=True)
open("materials/dev/dev_measuregeneric01b.vtf", "wb").write(head + px)
open("expected.rgba", "wb").write(px)
PY
"$BSPKIT" pak "$GEN/source-room.bsp" add materials/dev/dev_measuregeneric01b.vtf -o packed.bsp >/dev/null ||
    echo "pak add exit $?"
"$BSPKIT" export packed.bsp -o one.glb -j 1 --json > one.json || echo "export exit $?"
"$BSPKIT" export packed.bsp -o two.glb -j 2 > /dev/null || echo "export exit $?"
"$BSPKIT" export packed.bsp -o default.glb > /dev/null || echo "export exit $?"
cmp one.glb two.glb && cmp one.glb default.glb && echo "same GLB for 1, 2 and the default"
"$BSPKIT" export packed.bsp -o out.gltf > /dev/null || echo "export exit $?"
python3 - <<'PY'
import json, struct, zlib, glob
stats = json.load(open("one.json"))
print("images", stats["images"], "missing", stats["missing_textures"])
(png,) = [p for p in glob.glob("out_images/*.png") if "lightmap" not in p]
data = open(png, "rb").read()
pos, idat, ihdr, plte, trns = 8, b"", None, b"", b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        ihdr = struct.unpack(">IIBBBBB", body)
    elif kind == b"PLTE":
        plte = body
    elif kind == b"tRNS":
        trns = body
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
w, h, depth, colour = ihdr[:4]
bpp = {6: 4, 2: 3, 3: 1}[colour]
raw = zlib.decompress(idat)
rows, prev = [], bytearray(w * bpp)
for y in range(h):
    f, line = raw[y * (w * bpp + 1)], bytearray(raw[y * (w * bpp + 1) + 1:(y + 1) * (w * bpp + 1)])
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + ((a + b) >> 1)) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(bytes(line))
    prev = line
got = b"".join(rows)
if colour == 3:  # palette indices: PLTE's colours, tRNS's alphas (255 past its end)
    got = b"".join(plte[3 * i:3 * i + 3] + bytes((trns[i] if i < len(trns) else 255,)) for i in got)
elif colour == 2:
    got = b"".join(got[i:i + 3] + b"\xff" for i in range(0, len(got), 3))
want = open("expected.rgba", "rb").read()
print(f"{w}x{h} colour type {colour}:", "pixels match the VTF" if got == want else "pixels DIFFER")
PY
printf 'VTF' > materials/dev/dev_measuregeneric01b.vtf
"$BSPKIT" pak "$GEN/source-room.bsp" add materials/dev/dev_measuregeneric01b.vtf -o broken.bsp >/dev/null ||
    echo "pak add exit $?"
"$BSPKIT" export broken.bsp -o broken.glb --json > broken.json
echo "exit $?"
python3 -c 'import json; s = json.load(open("broken.json")); print("images", s["images"], "missing", s["missing_textures"])'
