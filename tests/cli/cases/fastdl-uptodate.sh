# An output is current only with its input's modification time and size: a
# map or content file replaced by one of another size, its time kept, is
# written again (the archive's size is what it decompresses to); an untouched
# run writes nothing.
set -e
mkdir in
cp "$GEN"/source-room.bsp "$GEN"/goldsrc-room.bsp in/
mkdir -p game/materials/tools
printf '"UnlitGeneric" { }\n' >game/materials/tools/toolsnodraw.vmt
"$BSPKIT" fastdl in -o web --content game | sed 's/ ([0-9]* bytes)$//; s/;.*//'
touch -r in/source-room.bsp t-source
touch -r in/goldsrc-room.bsp t-goldsrc
touch -r game/materials/tools/toolsnodraw.vmt t-vmt
cp "$GEN"/source-room-lzma.bsp in/source-room.bsp
printf '\0\0\0\0' >>in/goldsrc-room.bsp
printf '"UnlitGeneric" { "$alpha" "1" }\n' >game/materials/tools/toolsnodraw.vmt
touch -r t-source in/source-room.bsp
touch -r t-goldsrc in/goldsrc-room.bsp
touch -r t-vmt game/materials/tools/toolsnodraw.vmt
echo "-- sizes changed, times kept"
"$BSPKIT" fastdl in -o web --content game | sed 's/ ([0-9]* bytes)$//; s/;.*//'
bzip2 -d -c web/maps/source-room.bsp.bz2 | cmp - in/source-room.bsp
cmp web/maps/goldsrc-room.bsp in/goldsrc-room.bsp
bzip2 -d -c web/materials/tools/toolsnodraw.vmt.bz2 | cmp - game/materials/tools/toolsnodraw.vmt
echo "-- nothing changed"
"$BSPKIT" fastdl in -o web --content game | tail -1 | sed 's/;.*//'
