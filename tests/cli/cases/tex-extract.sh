# Extracted PNGs hold the sizes the map states (PNG header: width and height
# as big-endian 32-bit integers at bytes 16 and 20).
"$BSPKIT" tex "$GEN/quake-room.bsp" extract -o out/q || exit 1
for f in out/q/bk_floor.png out/q/bk_wall.png; do
    printf '%s %d %d\n' "$(basename "$f")" "0x$(xxd -s 16 -l 4 -p "$f")" "0x$(xxd -s 20 -l 4 -p "$f")"
done
