# GoldSrc sample room (inside [-64,64]x[-64,64]x[0,128]). The clip hulls are
# the walls pushed in by the player boxes: hull 1 (z -36..36) has its floor
# at z 36, hull 2 (-32..32) at 32, hull 3 (z -18..18) at 18; hull 1's +x
# wall is at x 64 - 16 = 48.
"$BSPKIT" generate goldsrc-room -o room.bsp >/dev/null || exit 1
"$BSPKIT" contents room.bsp 0 0 20 || exit 1
q() { "$BSPKIT" contents room.bsp "$@" --json | jq -r '"\(.point | map(tostring) | join(" ")) hull \(.hull): \(.contents) \(.names | join("|")) leaf \(.leaf)"'; }
q 0 0 20 --hull 1
q 0 0 20 --hull 2
q 0 0 20 --hull 3
q 0 0 17 --hull 3
q 0 0 64 --hull 1
q 56 0 64 --hull 1
q 47 0 64 --hull 1
q -72 0 64
q 0 0 -5000 --hull 2
