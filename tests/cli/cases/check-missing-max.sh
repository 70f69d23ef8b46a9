"$BSPKIT" check a.bsp --max-problems
