"$BSPKIT" check --json
