# --decompress stores every lump plainly; each lump's bytes equal the LZMA
# lump decompressed by xz (lib.bash), and the map still validates.
source "$CASES/lib.bash"
MAP_FAMILY=source MAP_ENDIAN=little
in="$GEN/source-room-lzma.bsp"
"$BSPKIT" convert "$in" --decompress -o plain.bsp || exit 1
load_map "$in"
for ((i = 0; i < 64; i++)); do lump_data "$in" $i > "in.$i"; done
load_map plain.bsp
compressed=0
for ((i = 0; i < 64; i++)); do
    [ "${L_COMP[$i]}" = true ] && compressed=$((compressed + 1))
    [ $i -eq 35 ] && continue   # GAME_LUMP holds file offsets
    lump_data plain.bsp $i | cmp -s - "in.$i" || echo "lump $i differs"
done
echo "compressed lumps left: $compressed"
"$BSPKIT" check -q plain.bsp
