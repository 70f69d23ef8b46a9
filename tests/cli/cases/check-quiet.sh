cd "$GEN" || exit 1
"$BSPKIT" check --quiet goldsrc-room.bsp source-room.bsp
