# Expected output rebuilt from the bytes of goldsrc-room.bsp (see lib.bash).
source "$CASES/lib.bash"
cd "$GEN" || exit 1
MAP_FAMILY=goldsrc
MAP_ENDIAN=little
MAP_VARIANT=()
load_map goldsrc-room.bsp
MAP_NAME="GoldSrc BSP30"
run_and_compare expected_info_text goldsrc-room.bsp info goldsrc-room.bsp
