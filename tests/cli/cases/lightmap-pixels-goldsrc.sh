# GoldSrc lightmaps are copied into the atlas byte for byte: the PNG is
# decoded here (zlib + PNG row filters) and every luxel of every face in the
# JSON is compared with the LIGHTING lump read from the map file (BSP30
# header: version, then 15 {offset, length}; FACES records are 20 bytes
# with the light offset at byte 16).
command -v python3 >/dev/null || { echo "skipped: python3 not installed"; exit 77; }
"$BSPKIT" generate goldsrc-room -o g.bsp >/dev/null || exit 1
"$BSPKIT" lightmap g.bsp -o g.png --json g.json --padding 2 >/dev/null || exit 1
python3 - g.bsp g.png g.json <<'PY'
import json, struct, sys, zlib
bsp = open(sys.argv[1], 'rb').read()
png = open(sys.argv[2], 'rb').read()
d = json.load(open(sys.argv[3]))
lumps = [struct.unpack_from('<ii', bsp, 4 + 8 * i) for i in range(15)]
fofs, flen = lumps[7]
lofs, llen = lumps[8]
light = bsp[lofs:lofs + llen]
pos, idat = 8, b''
while pos < len(png):
    n, kind = struct.unpack_from('>I4s', png, pos)
    body = png[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, colour = struct.unpack_from('>IIBB', body)
    elif kind == b'IDAT':
        idat += body
    pos += 12 + n
assert depth == 8 and colour == 2
raw, bpp, stride = zlib.decompress(idat), 3, 3 * w
rows, prev = [], bytearray(stride)
for y in range(h):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    rows.append(line)
    prev = line
checked = 0
for f in d['faces']:
    ofs = struct.unpack_from('<i', bsp, fofs + 20 * f['face'] + 16)[0]
    for t in range(-2, f['height'] + 2):
        for s in range(-2, f['width'] + 2):
            cs, ct = min(max(s, 0), f['width'] - 1), min(max(t, 0), f['height'] - 1)
            i = ofs + 3 * (ct * f['width'] + cs)
            px = rows[f['y'] + t][3 * (f['x'] + s):3 * (f['x'] + s) + 3]
            assert px == light[i:i + 3], (f, s, t)
            checked += 1
print('faces', len(d['faces']), 'luxels with padding', checked)
PY
