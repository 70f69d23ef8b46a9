# --overview: a 1024x1024 PNG and the overview text. The sample room's floor
# spans -64..64 in X and Y, so the top-left corner is (-64, 64) and 128 units
# cover 1024 pixels: 0.125 units a pixel.
"$BSPKIT" render "$GEN/goldsrc-room.bsp" -o de_room.png --overview >/dev/null
cat de_room.txt
od -An -tx1 -j16 -N8 de_room.png | tr -d ' \n'
echo
# The same command writes the same bytes.
"$BSPKIT" render "$GEN/goldsrc-room.bsp" -o again.png --overview >/dev/null
cmp de_room.png again.png && echo same
