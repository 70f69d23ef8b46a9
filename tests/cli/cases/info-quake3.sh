# "IBSP", version 46, then a zeroed directory of 17 lumps: an empty Quake 3
# map, every count 0 (expected output rebuilt from the bytes, see lib.bash).
source "$CASES/lib.bash"
{ printf 'IBSP\056\000\000\000'; head -c 136 /dev/zero; } >q3.bsp
MAP_FAMILY=quake3
MAP_ENDIAN=little
MAP_VARIANT=()
MAP_Q3_LUMPS=17
load_map q3.bsp
expect_counts version=46 shaders=0 surfaces=0 entities=0 textures=0
MAP_NAME="Quake 3 IBSP 46"
run_and_compare expected_info_text q3.bsp info q3.bsp
