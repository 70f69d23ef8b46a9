"$BSPKIT" deps --help
