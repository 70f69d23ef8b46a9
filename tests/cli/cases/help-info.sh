"$BSPKIT" info --help
