"$BSPKIT" check --max-problems -1 a.bsp
