# Every decoded record of the sample maps, re-encoded in the test from the
# format documents' struct layouts, gives back the lump's bytes.
command -v python3 >/dev/null || { echo "skipped: python3 not installed"; exit 77; }
R="$CASES/dump_reencode.py"
python3 "$R" "$BSPKIT" "$GEN/goldsrc-room.bsp" goldsrc little \
    PLANES VERTEXES EDGES SURFEDGES FACES NODES LEAFS MODELS TEXINFO CLIPNODES MARKSURFACES || exit 1
python3 "$R" "$BSPKIT" "$GEN/quake-room.bsp" quake little PLANES FACES NODES LEAFS MODELS TEXINFO || exit 1
for m in source-room:little source-room-be:big source-room-lzma:little; do
    python3 "$R" "$BSPKIT" "$GEN/${m%%:*}.bsp" source "${m##*:}" PLANES VERTEXES EDGES SURFEDGES FACES \
        NODES LEAFS TEXINFO MODELS BRUSHES TEXDATA LEAFFACES LEAFBRUSHES TEXDATA_STRING_TABLE || exit 1
done
