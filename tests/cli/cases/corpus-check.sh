# One real map of each family: GoldSrc, Source, Quake BSP2.
source "$CASES/lib.bash"
require_corpus
cd "$MAPS" || exit 1
"$BSPKIT" check barnuri+cs1.6-server/maps/de_dust2.bsp "bsp_tool/maps/Team Fortress 2/mp_lobby.bsp" \
    bsp_tool/maps/ReMakeQuake/mp_lobby.bsp
