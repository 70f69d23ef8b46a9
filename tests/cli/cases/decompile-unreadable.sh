# A missing map, a file that is no map, a format that does not fit the map,
# --unpack on a map without a pakfile and an output directory that does not
# exist all exit 2 with an error naming the file; no output is left behind.
"$BSPKIT" decompile missing.bsp -o out.vmf; echo "exit $?"
printf 'not a map at all' > junk.bsp
"$BSPKIT" decompile junk.bsp -o out.vmf; echo "exit $?"
"$BSPKIT" decompile "$GEN/goldsrc-room.bsp" -o out.vmf --format vmf; echo "exit $?"
"$BSPKIT" decompile "$GEN/source-room.bsp" -o out.map --format map; echo "exit $?"
"$BSPKIT" decompile "$GEN/quake-room.bsp" -o out.map --unpack pak; echo "exit $?"
"$BSPKIT" decompile "$GEN/source-room.bsp" -o no/such/dir/out.vmf; echo "exit $?"
ls | grep -c '^out' ; ls -d pak 2>/dev/null | wc -l
