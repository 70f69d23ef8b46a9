# Quake sample room: hull 1 (z -24..32) floor at 24, hull 2 (z -24..64)
# ceiling at 128 - 64 = 64. A point on a plane goes to the plane's front:
# the ceiling planes are stored facing +z, so z 64 is solid in hull 2 and
# z 128 in hull 0, while the floor (front = the room) at z 0 is empty.
"$BSPKIT" generate quake-room -o room.bsp >/dev/null || exit 1
q() { "$BSPKIT" contents room.bsp "$@" --json | jq -r '"\(.point | map(tostring) | join(" ")) hull \(.hull): \(.names[0])"'; }
q 0 0 23 --hull 1
q 0 0 25 --hull 1
q 0 0 64 --hull 2
q 0 0 63.5 --hull 2
q 0 0 0
q 0 0 128
q 0 0 127.5
"$BSPKIT" contents room.bsp 0 0 64 --hull 3 2>err.txt
echo "hull 3: exit $?"
cat err.txt
