# Source samples: one cluster, so the lump holds the cluster count, one
# {PVS, PAS} offset pair and two one-byte rows: 4 + 8 + 2 = 14 bytes, which
# is also what the directory says (entry 4 at byte 72: length at 76, and for
# an LZMA lump the uncompressed size in the fourCC at 84).
source "$CASES/lib.bash"
for kind in source-room source-room-be source-room-lzma; do
    "$BSPKIT" generate "$kind" -o "$kind.bsp" >/dev/null || exit 1
    endian=little
    [ "$kind" = source-room-be ] && endian=big
    size=$(rd_u32 "$kind.bsp" 76 $endian)
    [ "$kind" = source-room-lzma ] && size=$(rd_u32 "$kind.bsp" 84 $endian)
    "$BSPKIT" vis "$kind.bsp" --stats --json >stats.json || exit 1
    jq -e --argjson size "$size" '.clusters == 1 and .row_bytes == 1 and .average_visible_percent == 100
           and .min_visible == 1 and .max_visible == 1 and .compressed_size == $size
           and .uncompressed_size == 14' stats.json >/dev/null && echo "ok $kind $size"
done
