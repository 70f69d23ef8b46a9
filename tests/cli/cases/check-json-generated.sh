cd "$GEN" || exit 1
"$BSPKIT" check --json goldsrc-room.bsp source-room-be.bsp
