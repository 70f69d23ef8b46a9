# Quake sample: one visible leaf whose one-byte row (0x01) is stored as is,
# so the vis lump is 1 byte; the size is also read from the lump directory
# (entry 4: file bytes 36..43, offset then length).
source "$CASES/lib.bash"
"$BSPKIT" generate quake-room -o room.bsp >/dev/null || exit 1
"$BSPKIT" vis room.bsp --stats >out.txt || exit 1
cat out.txt
vis_length=$(rd_u32 room.bsp 40)
grep -qx "compressed:       $vis_length bytes" out.txt && echo "compressed size = directory length $vis_length"
"$BSPKIT" vis room.bsp --stats --json | jq -c '[.clusters, .row_bytes, .average_visible_percent, .min_visible, .max_visible, .uncompressed_size]'
