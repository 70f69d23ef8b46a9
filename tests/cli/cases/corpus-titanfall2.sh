source "$CASES/lib.bash"
require_corpus
"$BSPKIT" info --json "$MAPS/bsp_tool/maps/Titanfall 2/mp_crossfire.bsp"
