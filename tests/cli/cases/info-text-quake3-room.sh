# Expected output rebuilt from the bytes of quake3-room.bsp (see lib.bash).
source "$CASES/lib.bash"
cd "$GEN" || exit 1
MAP_FAMILY=quake3
MAP_ENDIAN=little
MAP_VARIANT=()
MAP_Q3_LUMPS=17
load_map quake3-room.bsp
# Four shaders; 6 wall boxes of 6 sides on 12 axial plane pairs (the split on the floor plane one of them);
# 6 quads and a 3 x 3 patch: 6 x 4 + 9 vertices, 6 x 6 indices; 2 leafs under 1 node.
expect_counts version=46 shaders=4 planes=24 brushes=6 brushsides=36 surfaces=7 drawverts=33 drawindexes=36 \
    nodes=1 leafs=2 models=1 fogs=0 entities=3 textures=4
MAP_NAME="Quake 3 IBSP 46"
run_and_compare expected_info_text quake3-room.bsp info quake3-room.bsp
