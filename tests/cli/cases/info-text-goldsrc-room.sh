# Expected output rebuilt from the bytes of goldsrc-room.bsp (see lib.bash).
source "$CASES/lib.bash"
cd "$GEN" || exit 1
MAP_FAMILY=goldsrc
MAP_ENDIAN=little
MAP_VARIANT=()
load_map goldsrc-room.bsp
expect_counts version=30 vertexes=8 faces=6 nodes=6 leafs=2 marksurfaces=6 models=1 texinfo=3 \
    textures=2 embedded=2 entities=3
MAP_NAME="GoldSrc BSP30"
run_and_compare expected_info_text goldsrc-room.bsp info goldsrc-room.bsp
