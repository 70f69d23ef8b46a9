"$BSPKIT" info a.bsp b.bsp
