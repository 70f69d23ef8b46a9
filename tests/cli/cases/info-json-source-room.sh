# Expected output rebuilt from the bytes of source-room.bsp (see lib.bash).
source "$CASES/lib.bash"
cd "$GEN" || exit 1
MAP_FAMILY=source
MAP_ENDIAN=little
MAP_VARIANT=()
load_map source-room.bsp
expect_counts version=20 revision=1 vertexes=16 faces=12 origfaces=12 nodes=12 leafs=15 leaffaces=12 leafbrushes=7 \
    brushes=7 brushsides=42 models=2 texinfo=4 texdata=2 textures=2 entities=4
MAP_NAME="Source VBSP $MAP_VERSION"
run_and_compare expected_info_json source-room.bsp info --json source-room.bsp
