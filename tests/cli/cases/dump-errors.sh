# A lump the map lacks is a usage error naming the map; an unreadable map exits 2.
"$BSPKIT" dump "$GEN/goldsrc-room.bsp" sprp; echo "exit $?"
"$BSPKIT" dump "$GEN/source-room.bsp" 64; echo "exit $?"
"$BSPKIT" dump "$GEN/source-room.bsp"; echo "exit $?"
"$BSPKIT" dump missing.bsp planes; echo "exit $?"
"$BSPKIT" dump "$GEN/source-room.bsp" planes --first x; echo "exit $?"
