# decompile answers --help with its usage, and the main help lists it.
"$BSPKIT" decompile --help
"$BSPKIT" --help | grep -c '^  decompile '
