"$BSPKIT" check does-not-exist.bsp
