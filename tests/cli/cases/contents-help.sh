"$BSPKIT" contents --help
