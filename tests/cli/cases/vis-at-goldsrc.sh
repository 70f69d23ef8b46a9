# The GoldSrc sample room spans [-64,64]x[-64,64]x[0,128]: its inside is the
# one empty leaf 1 (cluster 0, vis row 0 = {leaf 1}); walls and the outside
# are the shared solid leaf 0, which has no cluster.
"$BSPKIT" generate goldsrc-room -o room.bsp >/dev/null || exit 1
"$BSPKIT" vis room.bsp --at 0 0 64 || exit 1
"$BSPKIT" vis room.bsp --at 0 0 -8
