"$BSPKIT" check --help
