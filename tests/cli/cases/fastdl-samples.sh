# bspkit fastdl on the sample maps: each Source map's .bsp.bz2 decompresses
# (Debian's bzip2 -d) to the map byte for byte, the GoldSrc map is a plain
# copy, Quake-family maps are skipped; a second run writes nothing, a map
# with a new modification time is written again, and a second map of the
# same name fails.
set -e
mkdir in
cp "$GEN"/source-room.bsp "$GEN"/source-room-be.bsp "$GEN"/source-room-lzma.bsp "$GEN"/goldsrc-room.bsp \
    "$GEN"/quake-room.bsp in/
"$BSPKIT" fastdl in -o web > run1.txt
sed 's/ ([0-9]* bytes)$//; s/;.*//' run1.txt
for m in source-room source-room-be source-room-lzma; do
    bzip2 -d -c "web/maps/$m.bsp.bz2" | cmp - "in/$m.bsp"
done
cmp web/maps/goldsrc-room.bsp in/goldsrc-room.bsp
ls web/maps | LC_ALL=C sort
find web -type f -exec stat -c '%n %s %Y %Z' {} + | LC_ALL=C sort > before.txt
sleep 1
"$BSPKIT" fastdl in -o web --quiet
"$BSPKIT" fastdl in -o web | tail -1 | sed 's/;.*//'
find web -type f -exec stat -c '%n %s %Y %Z' {} + | LC_ALL=C sort > after.txt
cmp before.txt after.txt && echo "second run wrote nothing"
touch in/source-room.bsp
"$BSPKIT" fastdl in -o web | tail -1 | sed 's/;.*//'
bzip2 -d -c web/maps/source-room.bsp.bz2 | cmp - in/source-room.bsp
mkdir in/sub && cp in/source-room.bsp in/sub/
set +e
"$BSPKIT" fastdl in -o web --quiet 2>err.txt
echo "exit $?"
sed "s|$PWD/||" err.txt
