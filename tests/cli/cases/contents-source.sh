# Source sample room: walls are CONTENTS_SOLID brushes (floor slab z -16..0,
# +x wall x 64..80); the func_brush box [16,48]x[-16,16]x[16,48] is model 1,
# so the world tree sees only the room there.
"$BSPKIT" generate source-room -o room.bsp >/dev/null || exit 1
"$BSPKIT" contents room.bsp 0 0 -8 || exit 1
"$BSPKIT" contents room.bsp 32 0 32 --model 1 || exit 1
for kind in source-room source-room-be source-room-lzma; do
    "$BSPKIT" generate "$kind" -o "$kind.bsp" >/dev/null || exit 1
    a=$("$BSPKIT" contents "$kind.bsp" 72 0 64 --json | jq -c '[.leaf, .contents, .names]')
    b=$("$BSPKIT" contents "$kind.bsp" 32 0 32 --json | jq -c '[.leaf, .contents, .names]')
    echo "$kind: $a $b"
done
"$BSPKIT" contents room.bsp 0 0 64 --hull 1 2>err.txt
echo "hull 1: exit $?"
cat err.txt
