cd "$GEN" || exit 1
"$BSPKIT" check quake-room.bsp
