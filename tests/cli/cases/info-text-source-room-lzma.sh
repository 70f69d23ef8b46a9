# Expected output rebuilt from the bytes of source-room-lzma.bsp (see lib.bash).
source "$CASES/lib.bash"
cd "$GEN" || exit 1
MAP_FAMILY=source
MAP_ENDIAN=little
MAP_VARIANT=("LZMA lumps")
load_map source-room-lzma.bsp
MAP_NAME="Source VBSP $MAP_VERSION"
run_and_compare expected_info_text source-room-lzma.bsp info source-room-lzma.bsp
