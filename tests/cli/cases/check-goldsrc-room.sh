cd "$GEN" || exit 1
"$BSPKIT" check goldsrc-room.bsp
