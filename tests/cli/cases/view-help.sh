# view answers --help with its usage, and the main help lists it.
"$BSPKIT" view --help
"$BSPKIT" --help | grep -c '^  view '
