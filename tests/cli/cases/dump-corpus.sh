# Real maps, both byte orders and LZMA lumps: re-encoded records equal the lump bytes.
source "$CASES/lib.bash"
require_corpus
command -v python3 >/dev/null || { echo "skipped: python3 not installed"; exit 77; }
R="$CASES/dump_reencode.py"
cd "$MAPS" || exit 1
L="PLANES VERTEXES EDGES SURFEDGES NODES LEAFS TEXINFO MODELS BRUSHES TEXDATA LEAFFACES LEAFBRUSHES"
python3 "$R" "$BSPKIT" "bsp_tool/maps/Team Fortress 2/mp_lobby.bsp" source little $L FACES ORIGINALFACES || exit 1
python3 "$R" "$BSPKIT" "bsp_tool/maps/Xbox360/The Orange Box/shack.360.bsp" source big $L FACES_HDR || exit 1
python3 "$R" "$BSPKIT" barnuri+cs1.6-server/maps/de_dust2.bsp goldsrc little \
    PLANES VERTEXES EDGES SURFEDGES FACES NODES LEAFS MODELS TEXINFO CLIPNODES MARKSURFACES || exit 1
