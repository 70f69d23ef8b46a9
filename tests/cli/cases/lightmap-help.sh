"$BSPKIT" lightmap --help
"$BSPKIT" --help | grep -E '^  lightmap '
