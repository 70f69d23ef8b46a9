# Usage errors exit 64; each line gives the exit status of one attempt.
"$BSPKIT" generate quake-room -o room.bsp >/dev/null || exit 1
try() { "$BSPKIT" vis "$@" 2>>err.txt; echo "exit $?"; }
try
try room.bsp
try room.bsp --at 1 2
try room.bsp --at 1 2 zz
try room.bsp --at 1 2 3 --stats
try room.bsp --stats --bogus
try room.bsp other.bsp --stats
grep -c "Run 'bspkit vis --help' for usage." err.txt
