# extract gives the lump's bytes: as stored for plain lumps, decompressed
# (checked with xz through lib.bash) for LZMA lumps.
source "$CASES/lib.bash"
MAP_FAMILY=goldsrc
load_map "$GEN/goldsrc-room.bsp"
"$BSPKIT" lump "$GEN/goldsrc-room.bsp" extract PLANES -o planes.bin || exit 1
raw_bytes "$GEN/goldsrc-room.bsp" "${L_OFF[1]}" "${L_LEN[1]}" | cmp - planes.bin || exit 1
"$BSPKIT" lump "$GEN/goldsrc-room.bsp" extract 0 | cmp - <(raw_bytes "$GEN/goldsrc-room.bsp" "${L_OFF[0]}" "${L_LEN[0]}") || exit 1
MAP_FAMILY=source MAP_ENDIAN=little
load_map "$GEN/source-room-lzma.bsp"
[ "${L_COMP[3]}" = true ] || echo "VERTEXES is not compressed in the sample"
"$BSPKIT" lump "$GEN/source-room-lzma.bsp" extract vertexes -o v.bin || exit 1
lump_data "$GEN/source-room-lzma.bsp" 3 | cmp - v.bin || exit 1
echo ok
"$BSPKIT" lump "$GEN/goldsrc-room.bsp" extract NOSUCHLUMP
