# Usage errors exit 64 and say what is wrong; an unreadable map exits 2.
"$BSPKIT" diff; echo "exit $?"
"$BSPKIT" diff "$GEN/source-room.bsp"; echo "exit $?"
"$BSPKIT" diff "$GEN/source-room.bsp" "$GEN/source-room.bsp" third.bsp; echo "exit $?"
"$BSPKIT" diff "$GEN/source-room.bsp" "$GEN/source-room.bsp" --json --stripper; echo "exit $?"
"$BSPKIT" diff "$GEN/source-room.bsp" "$GEN/source-room.bsp" -o x.cfg; echo "exit $?"
"$BSPKIT" diff "$GEN/source-room.bsp" "$GEN/source-room.bsp" --bogus; echo "exit $?"
"$BSPKIT" diff "$GEN/source-room.bsp" missing.bsp 2>/dev/null; echo "exit $?"
