# --skip all keeps the source room's 12 wall faces (none has a tool texture,
# sky or trigger); --obj-y-up --scale 2 turns the GoldSrc room's interior
# (-64..64, -64..64, 0..128) into x -128..128, y 0..256, z -128..128.
"$BSPKIT" export "$GEN/source-room.bsp" -o some.glb --skip all --json | jq -c '{faces, triangles, nodes}'
"$BSPKIT" export "$GEN/goldsrc-room.bsp" -o room.obj --obj-y-up --scale 2 --no-textures --no-lightmaps --wad . >/dev/null
awk '$1 == "v" { for (i = 2; i <= 4; i++) { if (n == 0 || $i < lo[i]) lo[i] = $i; if (n == 0 || $i > hi[i]) hi[i] = $i } n++ }
     END { print n, lo[2], hi[2], lo[3], hi[3], lo[4], hi[4] }' room.obj
"$BSPKIT" export "$GEN/goldsrc-room.bsp" -o room.glb --skip tool,sky
