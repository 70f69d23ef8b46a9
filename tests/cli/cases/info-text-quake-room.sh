# Expected output rebuilt from the bytes of quake-room.bsp (see lib.bash).
source "$CASES/lib.bash"
cd "$GEN" || exit 1
MAP_FAMILY=quake
MAP_ENDIAN=little
MAP_VARIANT=()
load_map quake-room.bsp
expect_counts version=29 vertexes=8 faces=6 nodes=6 leafs=2 marksurfaces=6 models=1 texinfo=3 \
    textures=2 embedded=2 entities=3
MAP_NAME="Quake BSP29"
run_and_compare expected_info_text quake-room.bsp info quake-room.bsp
