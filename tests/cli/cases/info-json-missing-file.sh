"$BSPKIT" info --json does-not-exist.bsp
