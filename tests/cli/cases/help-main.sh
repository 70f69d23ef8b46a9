"$BSPKIT" --help
