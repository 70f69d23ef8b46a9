"$BSPKIT" check --max-problems=99999999999999999999 a.bsp
