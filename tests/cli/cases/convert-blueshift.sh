# --blueshift swaps the first two directory entries and nothing else;
# --standard restores the original file.
source "$CASES/lib.bash"
in="$GEN/goldsrc-room.bsp"
"$BSPKIT" convert "$in" --blueshift -o bs.bsp || exit 1
[ "$(raw_bytes bs.bsp 4 8 | od -A n -t x1)" = "$(raw_bytes "$in" 12 8 | od -A n -t x1)" ] || echo "slot 0 is not PLANES"
[ "$(raw_bytes bs.bsp 12 8 | od -A n -t x1)" = "$(raw_bytes "$in" 4 8 | od -A n -t x1)" ] || echo "slot 1 is not ENTITIES"
cmp -s <(tail -c +21 bs.bsp) <(tail -c +21 "$in") || echo "bytes after the first two entries differ"
"$BSPKIT" info bs.bsp | grep '^variant:'
"$BSPKIT" convert bs.bsp --standard -o std.bsp || exit 1
cmp std.bsp "$in" && echo restored
"$BSPKIT" convert "$GEN/source-room.bsp" --blueshift -o x.bsp
