# Usage errors exit 64; an unreadable map 2; a Quake map is not supported (2).
"$BSPKIT" deps; echo "exit $?"
"$BSPKIT" deps a.bsp b.bsp; echo "exit $?"
"$BSPKIT" deps a.bsp --game; echo "exit $?"
"$BSPKIT" deps missing.bsp 2>/dev/null; echo "exit $?"
"$BSPKIT" deps "$GEN/quake-room.bsp" 2>&1 | sed "s#$GEN/##"; echo "exit ${PIPESTATUS[0]}"
