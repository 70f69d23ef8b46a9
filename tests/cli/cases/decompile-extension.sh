# The output's extension picks the format when --format is not given, and a
# format the map's family cannot be written as is refused with nothing
# written: a Source map is not turned into .map text, a Quake map not into VMF.
"$BSPKIT" decompile "$GEN/source-room.bsp" -o s.map 2>err1; echo "exit $?"
grep -c "Source maps decompile to VMF" err1
[ -e s.map ] && echo "s.map written" || echo "no s.map"
"$BSPKIT" decompile "$GEN/quake-room.bsp" -o q.VMF 2>err2; echo "exit $?"
grep -c "use the .map format" err2
[ -e q.VMF ] && echo "q.VMF written" || echo "no q.VMF"
"$BSPKIT" decompile "$GEN/source-room.bsp" -o s.vmf >/dev/null; echo "exit $?"
head -c 11 s.vmf; echo
"$BSPKIT" decompile "$GEN/quake-room.bsp" -o q.txt >/dev/null; echo "exit $?"
grep -c '"mapversion" "220"' q.txt
