# Byte-order conversion of the big-endian sample gives exactly the
# little-endian sample, which the generator encodes on its own, and back.
"$BSPKIT" convert "$GEN/source-room-be.bsp" --endian little --strict -o le.bsp || exit 1
cmp le.bsp "$GEN/source-room.bsp" || exit 1
"$BSPKIT" convert "$GEN/source-room.bsp" --endian=big --strict -o be.bsp || exit 1
cmp be.bsp "$GEN/source-room-be.bsp" || exit 1
"$BSPKIT" convert "$GEN/goldsrc-room.bsp" --endian big -o x.bsp
