# render answers --help with its usage, and the main help lists it.
"$BSPKIT" render --help
"$BSPKIT" --help | grep -c '^  render '
