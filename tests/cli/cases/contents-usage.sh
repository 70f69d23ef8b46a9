# Usage errors exit 64; each line gives the exit status of one attempt.
"$BSPKIT" generate goldsrc-room -o room.bsp >/dev/null || exit 1
try() { "$BSPKIT" contents "$@" 2>>err.txt; echo "exit $?"; }
try
try room.bsp
try room.bsp 1 2
try room.bsp 1 2 3 4
try room.bsp 1 2 x
try room.bsp 1 2 nan
try room.bsp 1 2 1e99
try room.bsp 1 2 3 --hull 4
try room.bsp 1 2 3 --hull -1
try room.bsp 1 2 3 --hull
try room.bsp 1 2 3 --model 7
try room.bsp 1 2 3 --jsn
grep -c "Run 'bspkit contents --help' for usage." err.txt
