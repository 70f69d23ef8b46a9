"$BSPKIT" generate --help
