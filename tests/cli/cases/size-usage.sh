# Usage errors exit 64; an unreadable map exits 2.
"$BSPKIT" size; echo "exit $?"
"$BSPKIT" size a.bsp b.bsp; echo "exit $?"
"$BSPKIT" size a.bsp --bogus; echo "exit $?"
"$BSPKIT" size missing.bsp 2>/dev/null; echo "exit $?"
