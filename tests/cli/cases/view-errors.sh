# A map that cannot be read and an output that cannot be written: exit 2,
# the message names the file, and no output is left behind.
"$BSPKIT" view does-not-exist.bsp -o out.html; echo "exit $?"
printf 'not a map at all' > junk.bsp
"$BSPKIT" view junk.bsp -o out.html; echo "exit $?"
"$BSPKIT" view "$GEN/goldsrc-room.bsp" -o no-such-dir/out.html; echo "exit $?"
test -e out.html || echo "no out.html"
