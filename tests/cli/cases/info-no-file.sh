"$BSPKIT" info
