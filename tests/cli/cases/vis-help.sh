"$BSPKIT" vis --help
"$BSPKIT" --help | grep -E '^  (vis|contents) '
