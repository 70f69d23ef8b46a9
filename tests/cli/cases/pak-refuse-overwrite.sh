# Writing subcommands need -o OUT or --in-place; -o naming the input map
# (by another spelling of its path or a hard link) is refused with a usage
# error and the map is left as it was. --in-place writes over it.
source "$CASES/pak-lib.bash"
cp "$GEN/source-room.bsp" map.bsp && chmod u+w map.bsp || exit 1
ln map.bsp link.bsp || exit 1
echo hello > a.txt
for out in map.bsp ./map.bsp "$PWD/map.bsp" link.bsp; do
    "$BSPKIT" pak map.bsp add a.txt -o "$out" > /dev/null 2> err.txt
    status=$?
    echo "-o $(basename "$out"): exit $status: $(head -1 err.txt | sed 's/^.*is the input map/is the input map/')"
done
"$BSPKIT" pak map.bsp repack -o out.bsp --in-place > /dev/null 2>&1
echo "both: exit $?"
"$BSPKIT" pak map.bsp remove '*' > /dev/null 2>&1
echo "neither: exit $?"
cmp -s map.bsp "$GEN/source-room.bsp" && echo "map unchanged"
"$BSPKIT" pak map.bsp add a.txt --in-place > /dev/null || echo "--in-place failed"
pak_zip map.bsp pak.zip
unzip -p pak.zip a.txt | cmp - a.txt && echo "--in-place stored a.txt"
