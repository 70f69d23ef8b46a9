# bsp_tool's Quake 3 test map, written by q3map2 2.5.17 with an eighteenth,
# empty directory entry (expected output rebuilt from the bytes, see lib.bash).
source "$CASES/lib.bash"
require_corpus
file="$MAPS/bsp_tool/maps/Quake 3 Arena/mp_lobby.bsp"
MAP_FAMILY=quake3
MAP_ENDIAN=little
MAP_VARIANT=()
MAP_Q3_LUMPS=18
load_map "$file"
expect_counts version=46 shaders=2 planes=30 brushes=6 brushsides=36 surfaces=6 entities=2
MAP_NAME="Quake 3 IBSP 46"
run_and_compare expected_info_json "$file" info --json "$file"
