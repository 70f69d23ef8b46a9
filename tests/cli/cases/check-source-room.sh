cd "$GEN" || exit 1
"$BSPKIT" check source-room.bsp
