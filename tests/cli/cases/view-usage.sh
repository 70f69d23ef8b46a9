# Bad view arguments are usage errors (64) naming what is wrong, and write nothing.
try() { "$BSPKIT" view "$@" 2>>err.txt >/dev/null; echo "exit $?"; }
try
try "$GEN/goldsrc-room.bsp"
try -o out.html
try "$GEN/goldsrc-room.bsp" -o
try "$GEN/goldsrc-room.bsp" -o out.html --serve 70000
try "$GEN/goldsrc-room.bsp" -o out.html --serve=x
try "$GEN/goldsrc-room.bsp" -o out.html --wad
try "$GEN/goldsrc-room.bsp" -o out.html --title
try "$GEN/goldsrc-room.bsp" -o out.html --zoom
try "$GEN/goldsrc-room.bsp" "$GEN/quake-room.bsp" -o out.html
test -e out.html || echo "no out.html"
cat err.txt >&2
