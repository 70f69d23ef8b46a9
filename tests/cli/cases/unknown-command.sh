"$BSPKIT" frobnicate x.bsp
