"$BSPKIT" info --jsn a.bsp
