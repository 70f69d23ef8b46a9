# Source sample room in both byte orders and with LZMA lumps: the room is
# leaf 1 in cluster 0, which sees and hears itself; the +x wall (x 64..80)
# is leaf 5, CONTENTS_SOLID, outside every cluster.
for kind in source-room source-room-be source-room-lzma; do
    "$BSPKIT" generate "$kind" -o "$kind.bsp" >/dev/null || exit 1
    "$BSPKIT" vis "$kind.bsp" --at 0 0 64 --json >room.json || exit 1
    jq -e '.format == "source" and .point == [0, 0, 64] and .leaf == 1 and .contents == 0
           and .contents_names == ["EMPTY"] and .cluster == 0 and .clusters == 1
           and .visible_clusters == 1 and .visible_leafs == 1 and .audible_clusters == 1
           and .audible_leafs == 1 and .pas_computed == false' room.json >/dev/null && echo "room ok $kind"
    "$BSPKIT" vis "$kind.bsp" --at 72 0 64 --json >wall.json || exit 1
    jq -e '.leaf == 5 and .contents == 1 and .contents_names == ["SOLID"] and .cluster == null
           and .visible_clusters == 0 and .audible_leafs == 0' wall.json >/dev/null && echo "wall ok $kind"
done
