: >empty.bsp
"$BSPKIT" info empty.bsp
