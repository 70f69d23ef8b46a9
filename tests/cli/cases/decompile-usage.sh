# Usage errors exit 64 and write nothing; each line gives the exit status of one attempt.
try() { "$BSPKIT" decompile "$@" 2>>err.txt >/dev/null; echo "exit $?"; }
try
try "$GEN/quake-room.bsp"
try -o out.map
try "$GEN/quake-room.bsp" -o
try "$GEN/quake-room.bsp" -o out.map --format
try "$GEN/quake-room.bsp" -o out.map --format obj
try "$GEN/quake-room.bsp" -o out.map --unpack
try "$GEN/quake-room.bsp" "$GEN/goldsrc-room.bsp" -o out.map
try "$GEN/quake-room.bsp" -o out.map --bogus
cp "$GEN/quake-room.bsp" q.bsp
try q.bsp -o ./q.bsp
grep -c "Run 'bspkit decompile --help' for usage." err.txt
ls out.* 2>/dev/null | wc -l
cmp -s q.bsp "$GEN/quake-room.bsp" && echo "input unchanged"
