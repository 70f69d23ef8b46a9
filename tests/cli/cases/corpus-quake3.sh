source "$CASES/lib.bash"
require_corpus
"$BSPKIT" info --json "$MAPS/bsp_tool/maps/Quake 3 Arena/mp_lobby.bsp"
