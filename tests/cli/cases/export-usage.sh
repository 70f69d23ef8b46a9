# Usage errors exit 64; each line gives the exit status of one attempt.
try() { "$BSPKIT" export "$@" 2>>err.txt >/dev/null; echo "exit $?"; }
try
try "$GEN/quake-room.bsp"
try -o out.glb
try "$GEN/quake-room.bsp" -o
try "$GEN/quake-room.bsp" -o out.txt
try "$GEN/quake-room.bsp" -o out.glb --scale 0
try "$GEN/quake-room.bsp" -o out.glb --scale -2
try "$GEN/quake-room.bsp" -o out.glb --scale x
try "$GEN/quake-room.bsp" -o out.glb --skip tools
try "$GEN/quake-room.bsp" -o out.glb --wad
try "$GEN/quake-room.bsp" "$GEN/goldsrc-room.bsp" -o out.glb
try "$GEN/quake-room.bsp" -o out.glb --bogus
grep -c "Run 'bspkit export --help' for usage." err.txt
ls out.* 2>/dev/null | wc -l
