# export answers --help with its usage, and the main help lists it.
"$BSPKIT" export --help
"$BSPKIT" --help | grep -c '^  export '
