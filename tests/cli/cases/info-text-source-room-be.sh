# Expected output rebuilt from the bytes of source-room-be.bsp (see lib.bash).
source "$CASES/lib.bash"
cd "$GEN" || exit 1
MAP_FAMILY=source
MAP_ENDIAN=big
MAP_VARIANT=()
load_map source-room-be.bsp
MAP_NAME="Source VBSP $MAP_VERSION (big-endian)"
run_and_compare expected_info_text source-room-be.bsp info source-room-be.bsp
