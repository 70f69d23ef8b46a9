# Expected output rebuilt from the bytes of source-room.bsp (see lib.bash).
source "$CASES/lib.bash"
cd "$GEN" || exit 1
MAP_FAMILY=source
MAP_ENDIAN=little
MAP_VARIANT=()
load_map source-room.bsp
MAP_NAME="Source VBSP $MAP_VERSION"
run_and_compare expected_info_text source-room.bsp info source-room.bsp
