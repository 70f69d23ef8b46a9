"$BSPKIT" size --help
