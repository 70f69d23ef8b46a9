# The images of an export are encoded on several threads: the GLB is the same
# byte for byte with one thread, two and the default, and a bad thread count
# is a usage error.
"$BSPKIT" export "$GEN/goldsrc-room.bsp" -o one.glb -j 1 > /dev/null || exit 1
"$BSPKIT" export "$GEN/goldsrc-room.bsp" -o two.glb --jobs 2 > /dev/null || exit 1
"$BSPKIT" export "$GEN/goldsrc-room.bsp" -o default.glb > /dev/null || exit 1
cmp one.glb two.glb && cmp one.glb default.glb && echo "same GLB for 1, 2 and the default"
"$BSPKIT" export "$GEN/goldsrc-room.bsp" -o bad.glb -j 0 2> err.txt
echo "exit $?"
grep -c "thread count" err.txt
