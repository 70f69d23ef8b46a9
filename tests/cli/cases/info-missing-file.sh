"$BSPKIT" info does-not-exist.bsp
