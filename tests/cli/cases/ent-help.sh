"$BSPKIT" ent --help
