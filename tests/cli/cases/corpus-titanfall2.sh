source "$CASES/lib.bash"
require_corpus
"$BSPKIT" check "$MAPS/bsp_tool/maps/Titanfall 2/mp_crossfire.bsp"
