# Quake 3 sample room: contents come from the brushes holding the point (the
# wall boxes' caulk shader is SOLID); the room between the walls is empty.
# Points on the floor plane belong to the floor box (a brush holds its
# boundary). The tree splits on the floor plane: the room is leaf 1, below it leaf 0.
"$BSPKIT" generate quake3-room -o room.bsp >/dev/null || exit 1
q() { "$BSPKIT" contents room.bsp "$@" --json | jq -r '"\(.point | map(tostring) | join(" ")) leaf \(.leaf): \(.names | join("|"))"'; }
q 0 0 32
q 0 0 100
q 0 0 -8
q 0 0 0
q 70 0 64
q 0 0 140
"$BSPKIT" contents room.bsp 0 0 64 --hull 1 2>err.txt
echo "hull 1: exit $?"
cat err.txt
