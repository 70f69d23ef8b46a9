# Clip brushes are recovered on several threads: the .map is the same byte
# for byte with one thread, two and the default, and a bad thread count is a
# usage error (corpus-decompile-jobs compares maps with clip brushes).
for m in "$GEN/goldsrc-room.bsp" "$GEN/quake-room.bsp"; do
    "$BSPKIT" decompile "$m" -o one.map -j 1 > /dev/null || exit 1
    "$BSPKIT" decompile "$m" -o two.map --jobs 2 > /dev/null || exit 1
    "$BSPKIT" decompile "$m" -o default.map > /dev/null || exit 1
    cmp one.map two.map && cmp one.map default.map && echo "same .map for 1, 2 and the default"
done
"$BSPKIT" decompile "$GEN/goldsrc-room.bsp" -o bad.map -j 0 2> err.txt
echo "exit $?"
grep -c "thread count" err.txt
