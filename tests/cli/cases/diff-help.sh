"$BSPKIT" diff --help
