cd "$GEN" || exit 1
"$BSPKIT" check goldsrc-room.bsp quake-room.bsp source-room.bsp source-room-be.bsp source-room-lzma.bsp
