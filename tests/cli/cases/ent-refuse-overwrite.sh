# -o naming the input map (by its own name, another spelling of the path, or
# a hard link) is refused with a usage error; the map is left as it was.
cp "$GEN/source-room.bsp" map.bsp && chmod u+w map.bsp || exit 1
ln map.bsp link.bsp || exit 1
for out in map.bsp ./map.bsp "$PWD/map.bsp" link.bsp; do
    "$BSPKIT" ent map.bsp --delete classname=light -o "$out" 2>err.txt
    status=$?
    echo "-o $(basename "$out"): exit $status: $(head -1 err.txt | sed 's/^.*is the input map/is the input map/')"
done
cmp -s map.bsp "$GEN/source-room.bsp" && echo "map unchanged"
